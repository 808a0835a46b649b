#include "frontend/onnx_external_data.h"

#ifdef VTA_HAVE_ONNX

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

namespace fs = std::filesystem;

// The largest model this reads (vit_h_14's float weights are 2.5 GiB).
constexpr uint64_t kMaxExternalDataBytes = uint64_t{16} << 30;

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  bool has_length = false;
  uint64_t length = 0;
};

uint64_t parse_count(const std::string& v, const std::string& what) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19) {
    throw Error(fmt::format("its external data {} '{}' is not a byte count", what, v));
  }
  return std::stoull(v);
}

ExternalRef external_ref(const onnx::TensorProto& t) {
  ExternalRef r;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      r.location = kv.value();
    } else if (kv.key() == "offset") {
      r.offset = parse_count(kv.value(), "offset");
    } else if (kv.key() == "length") {
      r.has_length = true;
      r.length = parse_count(kv.value(), "length");
    }  // "checksum" and others: not needed to read the bytes
  }
  const fs::path loc(r.location);
  if (r.location.empty() || loc.is_absolute() ||
      std::any_of(loc.begin(), loc.end(), [](const fs::path& p) { return p == ".."; })) {
    throw Error(fmt::format(
        "its external data location '{}' is not a relative path inside the model's directory",
        r.location));
  }
  return r;
}

// Bytes [offset, offset + length) of `file`; the length defaults to the rest of the file.
std::string read_range(const fs::path& file, ExternalRef& r) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    throw Error(
        fmt::format("its external data file '{}' is missing or not a regular file", file.string()));
  }
  const uint64_t size = fs::file_size(file, ec);
  if (ec || r.offset > size || (r.has_length && r.length > size - r.offset)) {
    throw Error(
        fmt::format("its external data file '{}' ({} bytes) does not hold offset {} + "
                    "length {}",
                    file.string(), size, r.offset, r.length));
  }
  if (!r.has_length) {
    r.length = size - r.offset;
  }
  std::ifstream in(file, std::ios::binary);
  std::string bytes(r.length, '\0');
  if (!in || !in.seekg(std::streamoff(r.offset)) ||
      !in.read(bytes.data(), std::streamsize(r.length))) {
    throw Error(fmt::format("cannot read its external data file '{}': {}", file.string(),
                            std::strerror(errno)));
  }
  return bytes;
}

}  // namespace

void load_external_data(onnx::ModelProto& model, const std::string& model_path) {
  const fs::path dir = fs::path(model_path).parent_path();
  uint64_t total = 0;
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) {
      continue;
    }
    try {
      ExternalRef r = external_ref(t);
      std::string bytes = read_range(dir / r.location, r);
      total += bytes.size();
      if (total > kMaxExternalDataBytes) {
        throw Error(fmt::format("the model's external data exceed the limit of {} GiB",
                                kMaxExternalDataBytes >> 30));
      }
      t.set_raw_data(std::move(bytes));
      t.clear_external_data();
      t.set_data_location(onnx::TensorProto::DEFAULT);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: tensor '{}': {}", model_path, t.name(), e.what()));
    }
  }
}

}  // namespace vta::compiler

#endif  // VTA_HAVE_ONNX
