// ONNX external data: a model larger than protobuf's 2 GiB keeps its tensors in files beside the
// .onnx (torch.onnx.export does this on its own above 2 GiB, one file per tensor). The importer
// reads them into the tensors before anything else looks at them.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace vta::compiler {

// All external tensor data of the model's initializers, read in. A tensor's `location` must be
// a relative path inside the model's directory (no absolute path, no ".."), name a regular file
// and hold `offset` + `length` bytes; the whole model's external data is limited to
// kMaxExternalDataBytes. Throws vta::Error naming the model, the tensor and the file.
void load_external_data(onnx::ModelProto& model, const std::string& model_path);

}  // namespace vta::compiler
