#include "vta/compiler/frontend/onnx_import.h"

#include "vta/sim/error.h"
#include "vta/sim/input_file.h"

#ifndef VTA_HAVE_ONNX

namespace vta::compiler {

bool onnx_import_available() {
  return false;
}

FloatGraph import_onnx(const std::string& path) {
  throw Error(path +
              ": this vtasim was built without ONNX support (configure with -DVTA_ONNX=ON "
              "and libonnx-dev, libprotobuf-dev installed)");
}

}  // namespace vta::compiler

#else

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include "frontend/constant_folding.h"
#include "frontend/fused_import.h"
#include "frontend/onnx_external_data.h"
#include "frontend/onnx_importer.h"
#include "frontend/unsupported_ops.h"

namespace vta::compiler {

bool onnx_import_available() {
  return true;
}

namespace onnx_in {

namespace {

constexpr int64_t kMaxDim = 65535;

// The dims and element count of a tensor; throws for negative dims.
std::vector<int> tensor_dims(const onnx::TensorProto& t, const std::string& where, size_t& count) {
  std::vector<int> dims;
  count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (int64_t(1) << 31)) {
      throw Error(fmt::format("{}: tensor '{}' has dimension {}", where, t.name(), d));
    }
    dims.push_back(int(d));
    count *= size_t(d);
  }
  return dims;
}

// An int8 (QDQ weights) or int32 (QDQ bias) tensor's values as floats (exact).
FloatTensor integer_tensor(const onnx::TensorProto& t, const std::string& where, FloatTensor out,
                           size_t count) {
  const bool int8 = t.data_type() == onnx::TensorProto::INT8;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const size_t width = int8 ? 1 : 4;
    for (size_t i = 0; i + width <= raw.size(); i += width) {
      int32_t v = 0;
      if (int8) {
        const int byte = static_cast<unsigned char>(raw[i]);
        v = byte > 127 ? byte - 256 : byte;  // two's complement int8
      } else {
        std::memcpy(&v, raw.data() + i, 4);
      }
      out.data.push_back(float(v));
    }
  } else {
    for (int32_t v : t.int32_data()) {
      out.data.push_back(float(v));
    }
  }
  if (out.data.size() != count) {
    throw Error(fmt::format("{}: tensor '{}' holds {} values but its dims {} need {}", where,
                            t.name(), out.data.size(), out.shape().empty() ? "[]" : out.shape(),
                            count));
  }
  return out;
}

// A float tensor's values from float_data or raw_data; its size must match its dims.
FloatTensor float_tensor(const onnx::TensorProto& t, const std::string& where) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(
        fmt::format("{}: tensor '{}' keeps its data in an external file, which is read for "
                    "initializers only (make it an initializer, or save it inside the model)",
                    where, t.name()));
  }
  FloatTensor out;
  size_t count = 0;
  out.dims = tensor_dims(t, where, count);
  if (t.data_type() == onnx::TensorProto::INT8 || t.data_type() == onnx::TensorProto::INT32) {
    return integer_tensor(t, where, std::move(out), count);
  }
  if (t.data_type() != onnx::TensorProto::FLOAT) {
    throw Error(
        fmt::format("{}: tensor '{}' has data type {} (float32 weights, or int8 / int32 "
                    "ones of a QDQ graph)",
                    where, t.name(), t.data_type()));
  }
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    out.data.resize(raw.size() / 4);
    std::memcpy(out.data.data(), raw.data(), out.data.size() * 4);
    if (raw.size() % 4) {
      out.data.clear();  // reported below as a size mismatch
    }
  } else {
    out.data.assign(t.float_data().begin(), t.float_data().end());
  }
  if (out.data.size() != count) {
    throw Error(fmt::format("{}: tensor '{}' holds {} values but its dims {} need {}", where,
                            t.name(), out.data.size(), out.shape().empty() ? "[]" : out.shape(),
                            count));
  }
  for (float v : out.data) {
    if (!std::isfinite(v)) {
      throw Error(fmt::format("{}: tensor '{}' holds the non-finite value {}", where, t.name(), v));
    }
  }
  return out;
}

// An int64 tensor, or a bool one (a mask) as 1 and 0.
std::vector<int64_t> int_tensor(const onnx::TensorProto& t, const std::string& where) {
  const bool is_bool = t.data_type() == onnx::TensorProto::BOOL;
  if (t.data_type() != onnx::TensorProto::INT64 && !is_bool) {
    throw Error(fmt::format("{}: tensor '{}' must be int64", where, t.name()));
  }
  size_t count = 0;
  tensor_dims(t, where, count);
  std::vector<int64_t> v;
  if (is_bool && t.has_raw_data()) {
    for (char c : t.raw_data()) {
      v.push_back(c != 0);
    }
  } else if (is_bool) {
    for (int32_t b : t.int32_data()) {
      v.push_back(b != 0);
    }
  } else if (t.has_raw_data()) {
    v.resize(t.raw_data().size() / 8);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 8);
  } else {
    v.assign(t.int64_data().begin(), t.int64_data().end());
  }
  if (v.size() != count) {
    throw Error(fmt::format("{}: tensor '{}' holds {} values but its dims need {}", where, t.name(),
                            v.size(), count));
  }
  return v;
}

}  // namespace

std::string node_name(const onnx::NodeProto& n) {
  return n.name().empty() ? (n.output_size() ? n.output(0) : n.op_type()) : n.name();
}

const std::vector<int>& Importer::shape_of(const onnx::NodeProto& n, const std::string& t) const {
  auto it = shape.find(t);  // an alias of its own shape (a Flatten), else its source's
  it = it == shape.end() ? shape.find(resolve(t)) : it;
  if (it == shape.end()) {
    fail(n, fmt::format("the shape of input '{}' is unknown (an earlier node does not fit)", t));
  }
  return it->second;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) {
      return &a;
    }
  }
  return nullptr;
}

// An integer attribute in [lo, hi], or `def` when absent.
int64_t attr_int(const Importer& im, const onnx::NodeProto& n, const std::string& name, int64_t def,
                 int64_t lo, int64_t hi) {
  const auto* a = find_attr(n, name);
  if (!a) {
    return def;
  }
  if (a->i() < lo || a->i() > hi) {
    im.fail(n, fmt::format("attribute '{}' = {} is out of range [{}, {}]", name, a->i(), lo, hi));
  }
  return a->i();
}

float attr_float(const onnx::NodeProto& n, const std::string& name, float def) {
  const auto* a = find_attr(n, name);
  return a ? a->f() : def;
}

const FloatTensor& constant_input(const Importer& im, const onnx::NodeProto& n, int index,
                                  const char* what) {
  if (n.input_size() <= index || n.input(index).empty()) {
    im.fail(n, fmt::format("missing input {} ({})", index, what));
  }
  auto it = im.constants.find(n.input(index));
  if (it == im.constants.end()) {
    im.fail(n, fmt::format("{} '{}' must be a constant (an initializer)", what, n.input(index)));
  }
  return it->second;
}

// Gemm (transA 0; alpha, beta and transB folded) or MatMul with a constant right operand.
GraphNode dense_node(const Importer& im, const onnx::NodeProto& n, bool is_gemm) {
  GraphNode g;
  g.op = GraphOp::kGemm;
  const FloatTensor& b = constant_input(im, n, 1, "weight");
  if (b.dims.size() != 2) {
    im.fail(n, fmt::format("weight '{}' has shape {}, expected a matrix", n.input(1), b.shape()));
  }
  const bool trans_b = is_gemm && attr_int(im, n, "transB", 0, 0, 1);
  if (is_gemm && attr_int(im, n, "transA", 0, 0, 1)) {
    im.fail(n, "transA = 1 is not supported");
  }
  const float alpha = is_gemm ? attr_float(n, "alpha", 1.0f) : 1.0f;
  const float beta = is_gemm ? attr_float(n, "beta", 1.0f) : 1.0f;
  const int units = trans_b ? b.dims[0] : b.dims[1], k = trans_b ? b.dims[1] : b.dims[0];
  g.weight.dims = {units, k};
  g.weight.data.resize(size_t(units) * k);
  for (int u = 0; u < units; ++u) {
    for (int j = 0; j < k; ++j) {
      const float v = trans_b ? b.data[size_t(u) * k + j] : b.data[size_t(j) * units + u];
      g.weight.data[size_t(u) * k + j] = alpha * v;
    }
  }
  g.bias = FloatTensor{{units}, std::vector<float>(size_t(units), 0.0f)};
  if (is_gemm && n.input_size() > 2 && !n.input(2).empty()) {
    const FloatTensor& c = constant_input(im, n, 2, "bias");
    if (c.size() != size_t(units)) {
      im.fail(n, fmt::format("bias '{}' has {} values for {} outputs (only a per-output bias is "
                             "supported)",
                             n.input(2), c.size(), units));
    }
    for (int u = 0; u < units; ++u) {
      g.bias.data[size_t(u)] = beta * c.data[size_t(u)];
    }
  }
  return g;
}

namespace {

// A list attribute of `size` integers in [lo, hi] (`def` each when absent).
std::vector<int> attr_ints(const Importer& im, const onnx::NodeProto& n, const std::string& name,
                           size_t size, int def, int64_t lo, int64_t hi) {
  const auto* a = find_attr(n, name);
  if (!a) {
    return std::vector<int>(size, def);
  }
  if (size_t(a->ints_size()) != size) {
    im.fail(n, fmt::format("attribute '{}' has {} values, expected {} (2D operators only)", name,
                           a->ints_size(), size));
  }
  std::vector<int> v;
  for (int64_t x : a->ints()) {
    if (x < lo || x > hi) {
      im.fail(n, fmt::format("attribute '{}' value {} is out of range [{}, {}]", name, x, lo, hi));
    }
    v.push_back(int(x));
  }
  return v;
}

// Kernel, strides, pads of Conv / MaxPool / AveragePool; auto_pad and dilations are rejected.
void read_window(const Importer& im, const onnx::NodeProto& n, GraphNode& g, int kh, int kw) {
  if (const auto* a = find_attr(n, "auto_pad"); a && a->s() != "NOTSET") {
    im.fail(n, fmt::format("auto_pad '{}' is not supported (export with explicit pads)", a->s()));
  }
  for (int d : attr_ints(im, n, "dilations", 2, 1, 1, kMaxDim)) {
    if (d != 1) {
      im.fail(n, fmt::format("dilation {} is not supported (only 1)", d));
    }
  }
  const std::vector<int> k = attr_ints(im, n, "kernel_shape", 2, 0, 1, kMaxDim);
  g.kh = k[0] ? k[0] : kh, g.kw = k[1] ? k[1] : kw;
  if (g.kh < 1 || g.kw < 1) {
    im.fail(n, "needs attribute 'kernel_shape'");
  }
  const std::vector<int> s = attr_ints(im, n, "strides", 2, 1, 1, kMaxDim);
  g.stride_h = s[0], g.stride_w = s[1];
  const std::vector<int> p = attr_ints(im, n, "pads", 4, 0, 0, kMaxDim);
  g.pad_top = p[0], g.pad_left = p[1], g.pad_bottom = p[2], g.pad_right = p[3];
}

// A Pad of the node's input added to its own pads (Conv: zeros are its padding too; an
// AveragePool then counts the pads, as it must for the zeros it averages).
void fold_pad(const Importer& im, const onnx::NodeProto& n, GraphNode& g) {
  auto it = im.pending_pads.find(n.input(0));
  if (it == im.pending_pads.end()) {
    return;
  }
  if (g.op == GraphOp::kMaxPool) {
    im.fail(n, "reads a Pad's zeros: only a Conv or an AveragePool takes a Pad over");
  }
  if (g.op == GraphOp::kAvgPool && !g.count_include_pad &&
      g.pad_top + g.pad_left + g.pad_bottom + g.pad_right > 0) {
    im.fail(n, "has pads of its own without count_include_pad after a Pad");
  }
  g.pad_top += it->second[0], g.pad_left += it->second[1];
  g.pad_bottom += it->second[2], g.pad_right += it->second[3];
  g.count_include_pad = true;
}

// A Pad of a 4-D value that no Conv takes over: a slice whose box reaches past the input, read
// as zeros (Swin's padding of its channels-last tokens to whole windows). The pads of a
// channels-last value (NHWC) are those of its NCHW source's H, W and C.
void pad_as_slice(Importer& im, const onnx::NodeProto& n, const std::vector<int64_t>& p) {
  const std::string& in = n.input(0);
  const bool nhwc = im.channels_last.count(in) > 0;
  const std::vector<int>& s = im.shape_of(n, in);
  if (s.size() != 4 || p[0] || p[4]) {
    im.fail(n, fmt::format("pads [{}] of a {}-D value: only 4-D values, N not padded, are "
                           "supported",
                           fmt::join(p, ", "), s.size()));
  }
  // NCHW axis a + 1 of the source is axis src[a] of the model's value.
  const int src[3] = {nhwc ? 3 : 1, nhwc ? 1 : 2, nhwc ? 2 : 3};
  GraphNode g;
  g.op = GraphOp::kSlice;
  g.name = node_name(n);
  g.inputs = {im.resolve(in)};
  g.output = n.output(0);
  const std::vector<int>& d = im.shape_of(n, g.inputs[0]);
  for (int a = 0; a < 3; ++a) {
    g.slice_begin.push_back(int(-p[size_t(src[a])]));
    g.slice_end.push_back(d[size_t(a) + 1] + int(p[size_t(src[a]) + 4]));
  }
  add_node(im, std::move(g));
  if (nhwc) {
    im.channels_last.insert(n.output(0));
  }
}

// Pad (constant mode, value 0): zero padding of H and W of an NCHW value is taken over by the
// Conv or AveragePool that reads it (its output is its input); other pads of a 4-D value are a
// slice reading zeros (pad_as_slice).
void pad_node(Importer& im, const onnx::NodeProto& n) {
  if (const auto* a = find_attr(n, "mode"); a && a->s() != "constant") {
    im.fail(n, fmt::format("mode '{}' is not supported (constant zeros only)", a->s()));
  }
  auto it = im.int_constants.find(n.input_size() > 1 ? n.input(1) : "");
  if (it == im.int_constants.end() || it->second.size() != 8) {
    im.fail(n, "the pads must be a constant of 8 values (NCHW begins, then ends)");
  }
  if (n.input_size() > 2 && !n.input(2).empty()) {
    const FloatTensor& v = constant_input(im, n, 2, "constant_value");
    if (v.size() != 1 || v.data[0] != 0) {
      im.fail(n, "only padding with zeros is supported");
    }
  }
  const std::vector<int64_t>& p = it->second;
  if (*std::min_element(p.begin(), p.end()) < -kMaxDim ||
      *std::max_element(p.begin(), p.end()) > kMaxDim) {
    im.fail(n, fmt::format("pads [{}] are beyond {}", fmt::join(p, ", "), kMaxDim));
  }
  if (p[0] || p[1] || p[4] || p[5] || *std::min_element(p.begin(), p.end()) < 0 ||
      im.channels_last.count(n.input(0))) {
    return pad_as_slice(im, n, p);
  }
  if (p[2] || p[3] || p[6] || p[7]) {
    im.pending_pads[n.output(0)] = {int(p[2]), int(p[3]), int(p[6]), int(p[7])};
  }
  im.alias[n.output(0)] = im.resolve(n.input(0));
}

GraphNode conv_node(const Importer& im, const onnx::NodeProto& n) {
  GraphNode g;
  g.op = GraphOp::kConv;
  g.weight = constant_input(im, n, 1, "weight");
  if (g.weight.dims.size() != 4) {
    im.fail(n, fmt::format("weight '{}' has shape {}, expected 4 dims (K x C x KH x KW)",
                           n.input(1), g.weight.shape()));
  }
  read_window(im, n, g, g.weight.dims[2], g.weight.dims[3]);
  fold_pad(im, n, g);
  if (g.kh != g.weight.dims[2] || g.kw != g.weight.dims[3]) {
    im.fail(n, fmt::format("kernel_shape {}x{} does not match the weight {}", g.kh, g.kw,
                           g.weight.shape()));
  }
  g.groups = int(attr_int(im, n, "group", 1, 1, kMaxDim));
  const int k = g.weight.dims[0];
  if (k % g.groups) {
    im.fail(n, fmt::format("{} output channels do not divide into {} groups", k, g.groups));
  }
  g.bias = FloatTensor{{k}, std::vector<float>(size_t(k), 0.0f)};
  if (n.input_size() > 2 && !n.input(2).empty()) {
    g.bias = constant_input(im, n, 2, "bias");
    if (g.bias.size() != size_t(k)) {
      im.fail(n, fmt::format("bias '{}' has {} values for {} output channels", n.input(2),
                             g.bias.size(), k));
    }
  }
  return g;
}

// Folds BatchNormalization into the Conv producing its input (its only consumer).
// A BatchNormalization that no Conv of its own precedes (DenseNet's after a Concat) becomes a
// depthwise 1x1 Conv, identity until the BN is folded into it: on the host, with the Relu
// after it fused.
size_t batchnorm_conv(Importer& im, const onnx::NodeProto& n) {
  const int k = int(constant_input(im, n, 1, "scale").size());
  GraphNode g;
  g.op = GraphOp::kConv;
  g.name = node_name(n);
  g.groups = k;
  g.weight = FloatTensor{{k, 1, 1, 1}, std::vector<float>(size_t(k), 1.0f)};
  g.bias = FloatTensor{{k}, std::vector<float>(size_t(k), 0.0f)};
  g.inputs = {im.resolve(n.input(0))};
  g.output = n.output(0);
  add_node(im, std::move(g));
  return im.graph.nodes.size() - 1;
}

void fold_batchnorm(Importer& im, const onnx::NodeProto& n) {
  auto p = im.producer.find(im.resolve(n.input(0)));
  const size_t conv = p == im.producer.end() || im.graph.nodes[p->second].op != GraphOp::kConv ||
                              im.consumers[n.input(0)] != 1
                          ? batchnorm_conv(im, n)
                          : p->second;
  GraphNode& c = im.graph.nodes[conv];
  const size_t k = size_t(c.weight.dims[0]);
  const char* names[] = {"scale", "B", "mean", "var"};
  std::vector<const FloatTensor*> prm;
  for (int i = 0; i < 4; ++i) {
    prm.push_back(&constant_input(im, n, i + 1, names[i]));
    if (prm.back()->size() != k) {
      im.fail(n, fmt::format("{} '{}' has {} values for {} channels", names[i], n.input(i + 1),
                             prm.back()->size(), k));
    }
  }
  const float eps = attr_float(n, "epsilon", 1e-5f);
  const size_t per = c.weight.size() / k;
  for (size_t o = 0; o < k; ++o) {
    const double a = prm[0]->data[o] / std::sqrt(double(prm[3]->data[o]) + eps);
    for (size_t i = 0; i < per; ++i) {
      c.weight.data[o * per + i] = float(c.weight.data[o * per + i] * a);
    }
    c.bias.data[o] = float((c.bias.data[o] - prm[2]->data[o]) * a + prm[1]->data[o]);
  }
  if (c.output != n.output(0)) {
    im.alias[n.output(0)] = c.output;
  }
}

// The scalar constant of Clip's input `index` (absent: `def`).
float clip_bound(const Importer& im, const onnx::NodeProto& n, int index, float def) {
  if (n.input_size() <= index || n.input(index).empty()) {
    return def;
  }
  const FloatTensor& t = constant_input(im, n, index, index == 1 ? "min" : "max");
  if (t.size() != 1) {
    im.fail(n, fmt::format("bound '{}' must be a scalar", n.input(index)));
  }
  return t.data[0];
}

// Flatten (axis 1) or a Reshape to N x rest of a 4-D value or a matrix: the data stay as they
// are (a dense layer reads its input flattened). Any other reshape is a view
// (sequence_import.cc): false.
bool flatten_alias(Importer& im, const onnx::NodeProto& n) {
  auto in = im.shape.find(im.resolve(n.input(0)));
  if (in != im.shape.end() && in->second.size() != 4 && in->second.size() != 2) {
    return false;
  }
  if (n.op_type() == "Flatten") {
    if (attr_int(im, n, "axis", 1, -4, 4) != 1) {
      im.fail(n, "only axis 1 (N x rest) is supported");
    }
  } else {
    auto it = im.int_constants.find(n.input_size() > 1 ? n.input(1) : "");
    if (it == im.int_constants.end()) {
      im.fail(n, "the shape must be a constant");
    }
    const auto& s = it->second;
    const int batch = im.graph.batch_size();
    if (s.size() != 2 || !(s[0] == batch || s[0] == 0) || !(s[1] == -1 || s[1] > 0)) {
      return false;
    }
  }
  im.alias[n.output(0)] = im.resolve(n.input(0));
  if (in != im.shape.end() && in->second.size() == 4) {
    const std::vector<int>& s = in->second;  // [N, C*H*W]: what reads it sees a matrix
    im.shape[n.output(0)] = {s[0], s[1] * s[2] * s[3]};
  }
  return true;
}

// Records a Constant node's value (float, or int64 for shapes).
void constant_node(Importer& im, const onnx::NodeProto& n) {
  const auto* a = find_attr(n, "value");
  if (!a || !a->has_t()) {
    im.fail(n, "only a Constant with a tensor 'value' is supported");
  }
  const std::string where = fmt::format("{}: node '{}'", im.file, n.name());
  if (a->t().data_type() == onnx::TensorProto::INT64 ||
      a->t().data_type() == onnx::TensorProto::BOOL) {
    im.int_constants[n.output(0)] = int_tensor(a->t(), where);
    if (a->t().dims_size() == 0) {
      im.int_scalars.insert(n.output(0));
    }
  } else {
    im.constants[n.output(0)] = float_tensor(a->t(), where);
  }
}

// The ONNX operators (default domain) import_node handles.
bool importer_implements(const std::string& op_type) {
  static const std::set<std::string> ops = {"Constant",
                                            "Identity",
                                            "Dropout",
                                            "Flatten",
                                            "Reshape",
                                            "QuantizeLinear",
                                            "DequantizeLinear",
                                            "BatchNormalization",
                                            "Conv",
                                            "Gemm",
                                            "MatMul",
                                            "Relu",
                                            "Clip",
                                            "Add",
                                            "Mul",
                                            "Sigmoid",
                                            "Pad",
                                            "HardSigmoid",
                                            "MaxPool",
                                            "AveragePool",
                                            "GlobalAveragePool",
                                            "Concat",
                                            "Sub",
                                            "Div",
                                            "Softmax",
                                            "LayerNormalization",
                                            "Transpose",
                                            "Slice",
                                            "Split",
                                            "ReduceMean",
                                            "Gather",
                                            "Einsum",
                                            "Tanh",
                                            "Min",
                                            "Max"};
  return ops.count(op_type) > 0;
}

// What the importer does with a node: the support rule of the unsupported-operator listing and
// of import_node's dispatch alike.
NodeSupport import_support(const std::string& op_type, bool inputs_constant) {
  if (op_type == "Constant" || folds_at_import(op_type, inputs_constant)) {
    return NodeSupport::kFolded;
  }
  return importer_implements(op_type) ? NodeSupport::kImported : NodeSupport::kUnsupported;
}

bool inputs_constant(const Importer& im, const onnx::NodeProto& n) {
  return std::all_of(n.input().begin(), n.input().end(), [&](const std::string& in) {
    return in.empty() || im.constants.count(in) || im.int_constants.count(in);
  });
}

// The dims of constant `t` (an integer one flat unless a fold recorded its dims); empty for an
// activation.
std::vector<int64_t> constant_shape(const Importer& im, const std::string& t) {
  if (auto f = im.constants.find(t); f != im.constants.end()) {
    return std::vector<int64_t>(f->second.dims.begin(), f->second.dims.end());
  }
  if (auto d = im.int_constant_dims.find(t); d != im.int_constant_dims.end()) {
    return d->second;
  }
  auto i = im.int_constants.find(t);
  return i == im.int_constants.end() ? std::vector<int64_t>{}
                                     : std::vector<int64_t>{int64_t(i->second.size())};
}

// Constant, or shape arithmetic: the node's outputs computed now, as constants.
void fold_node(Importer& im, const onnx::NodeProto& n) {
  if (n.op_type() == "Constant") {
    return constant_node(im, n);
  }
  std::vector<int64_t> shape;
  if (n.op_type() == "Shape") {
    shape = constant_shape(im, n.input(0));
    if (shape.empty()) {
      const std::vector<int>& s = im.shape_of(n, n.input(0));
      shape.assign(s.begin(), s.end());
      if (im.channels_last.count(n.input(0)) && s.size() == 4) {  // held as its NCHW source
        shape = {s[0], s[2], s[3], s[1]};
      }
    }
  }
  if (std::string e =
          fold_constant_node(n, shape, {im.constants, im.int_constants, &im.int_constant_dims});
      !e.empty()) {
    im.fail(n, e);
  }
}

// A scalar constant operand of a Min / Max: its value as the bound of a clip (min(x, c) is x
// clipped to c from above; max(x, c) from below). Other operands stay activations.
bool scalar_operand(const Importer& im, const std::string& in, float& v) {
  auto c = im.constants.find(in);
  if (c == im.constants.end() || c->second.size() != 1) {
    return false;
  }
  v = c->second.data[0];
  return true;
}

void min_max_node(const Importer& im, const onnx::NodeProto& n, GraphNode& g) {
  g.op = n.op_type() == "Min" ? GraphOp::kMin : GraphOp::kMax;
  g.clip_lo = -INFINITY, g.clip_hi = INFINITY;
  for (const std::string& in : n.input()) {
    float v = 0;
    if (scalar_operand(im, in, v)) {
      (g.op == GraphOp::kMin ? g.clip_hi : g.clip_lo) = v;
    }
  }
}

// The node's graph op for the simple operators, with its attributes.
GraphNode plain_node(const Importer& im, const onnx::NodeProto& n) {
  GraphNode g;
  const std::string& t = n.op_type();
  if (t == "Relu") {
    g.op = GraphOp::kRelu;
  } else if (t == "Clip") {
    g.op = GraphOp::kClip;
    g.clip_lo = clip_bound(im, n, 1, attr_float(n, "min", -INFINITY));
    g.clip_hi = clip_bound(im, n, 2, attr_float(n, "max", INFINITY));
  } else if (t == "Add") {
    g.op = GraphOp::kAdd;
  } else if (t == "Mul") {
    g.op = GraphOp::kMul;
  } else if (t == "Min" || t == "Max") {
    min_max_node(im, n, g);
  } else if (t == "Sigmoid") {
    g.op = GraphOp::kSigmoid;
  } else if (t == "Tanh") {
    g.op = GraphOp::kTanh;
  } else if (t == "HardSigmoid") {
    g.op = GraphOp::kHardSigmoid;
    g.alpha = attr_float(n, "alpha", 0.2f);
    g.beta = attr_float(n, "beta", 0.5f);
  } else if (t == "MaxPool" || t == "AveragePool") {
    g.op = t == "MaxPool" ? GraphOp::kMaxPool : GraphOp::kAvgPool;
    read_window(im, n, g, 0, 0);
    attr_int(im, n, "storage_order", 0, 0, 0);
    g.count_include_pad = attr_int(im, n, "count_include_pad", 0, 0, 1);
    g.ceil_mode = attr_int(im, n, "ceil_mode", 0, 0, 1);
    fold_pad(im, n, g);
    if (g.ceil_mode && g.count_include_pad) {
      // The divisor of a window over the ceil extension would count pixels that are not pads.
      im.fail(n, "ceil_mode 1 with count_include_pad 1 is not supported");
    }
  } else if (t == "GlobalAveragePool") {
    g.op = GraphOp::kGlobalAvgPool;
  } else if (t == "Concat") {
    g.op = GraphOp::kConcat;
    if (attr_int(im, n, "axis", 1, -4, 4) != 1) {
      im.fail(n, "only axis 1 (channels) is supported");
    }
  } else {
    throw Error(
        fmt::format("{}: unsupported operator '{}' at node '{}'", im.file, t, node_name(n)));
  }
  return g;
}

// The exponent e of a QuantizeLinear / DequantizeLinear scale 2^-e (a scalar power of two, zero
// point 0); anything else is an error naming the node.
int qdq_exponent(const Importer& im, const onnx::NodeProto& n) {
  const FloatTensor& s = constant_input(im, n, 1, "scale");
  if (s.size() != 1) {
    im.fail(n, fmt::format("scale '{}' has {} values; only per-tensor scales are supported",
                           n.input(1), s.size()));
  }
  int e = 0;
  const float m = std::frexp(s.data[0], &e);  // s = m * 2^e, m in [0.5, 1)
  if (!(s.data[0] > 0) || m != 0.5f) {
    im.fail(n,
            fmt::format("scale {} is not a power of two (VTA requantizes by shifts)", s.data[0]));
  }
  if (n.input_size() > 2 && !n.input(2).empty()) {
    auto z = im.constants.find(n.input(2));
    if (z == im.constants.end() || z->second.size() != 1 || z->second.data[0] != 0) {
      im.fail(n, "only zero point 0 (symmetric int8) is supported");
    }
  }
  return 1 - e;  // 2^(e-1) = 2^-(1-e)
}

// QDQ form: QuantizeLinear of an activation fixes its exponent and, like the DequantizeLinear
// after it, passes the value on; DequantizeLinear of a constant (int8 weights, int32 bias)
// is that constant in float.
void qdq_node(Importer& im, const onnx::NodeProto& n) {
  const int e = qdq_exponent(im, n);
  if (n.op_type() == "DequantizeLinear" && im.constants.count(n.input(0))) {
    FloatTensor c = im.constants.at(n.input(0));
    for (float& v : c.data) {
      v = std::ldexp(v, -e);
    }
    im.constants[n.output(0)] = std::move(c);
    return;
  }
  const std::string in = im.resolve(n.input(0));
  if (n.op_type() == "QuantizeLinear") {
    auto [it, fresh] = im.graph.fixed_exponents.emplace(in, e);
    if (!fresh && it->second != e) {
      im.fail(n, fmt::format("tensor '{}' is quantized with two scales (2^-{} and 2^-{})", in,
                             it->second, e));
    }
  }
  im.alias[n.output(0)] = in;
}

// A node reading a Pad's zeros or a channel view that it cannot take over: an error naming it.
void check_reads(const Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  for (const std::string& in : n.input()) {
    if (im.pending_pads.count(in) && t != "Conv" && t != "MaxPool" && t != "AveragePool") {
      im.fail(n, fmt::format("reads the zeros of Pad output '{}': only a Conv or an AveragePool "
                             "takes a Pad over",
                             in));
    }
    if (auto v = im.views.find(im.resolve(in));
        v != im.views.end() && t != "Reshape" && t != "Transpose") {
      im.fail(n, fmt::format("reads '{}', a view of the channels of '{}' in {} groups: only a "
                             "Transpose of its two channel factors and a Reshape back to NCHW "
                             "are supported",
                             in, v->second.source, v->second.groups));
    }
  }
}

// An operator of the float graph: its activation inputs (all of them for Add, Mul, Min, Max,
// Concat; the first for the others) and its output, added to the graph.
void finish_node(Importer& im, const onnx::NodeProto& n, GraphNode g) {
  g.name = node_name(n);
  const bool two = g.op == GraphOp::kAdd || g.op == GraphOp::kMul || g.op == GraphOp::kMin ||
                   g.op == GraphOp::kMax;
  if (two && n.input_size() != 2) {
    im.fail(n, fmt::format("{} needs two inputs (has {})", n.op_type(), n.input_size()));
  }
  const size_t activations = two || g.op == GraphOp::kConcat ? n.input_size() : 1;
  for (size_t i = 0; i < activations; ++i) {
    const std::string& in = n.input(int(i));
    float bound = 0;
    if ((g.op == GraphOp::kMin || g.op == GraphOp::kMax) && scalar_operand(im, in, bound)) {
      continue;  // the clip bound (min_max_node)
    }
    if (im.constants.count(in) || im.int_constants.count(in)) {
      im.fail(n, fmt::format("input '{}' is a constant; only activations are supported here", in));
    }
    g.inputs.push_back(im.resolve(in));
  }
  if (g.inputs.empty()) {
    im.fail(n, "needs an activation input");
  }
  g.output = n.output(0);
  add_node(im, std::move(g));
}

// An elementwise node of a channels-last value (its activations all channels-last): its output
// is channels-last too.
bool elementwise_channels_last(const Importer& im, const onnx::NodeProto& n) {
  static const std::set<std::string> ops = {"Add",  "Sub",  "Mul",     "Div",
                                            "Relu", "Clip", "Sigmoid", "Tanh"};
  int activations = 0, nhwc = 0;
  for (const std::string& in : n.input()) {
    if (!in.empty() && !im.constants.count(in) && !im.int_constants.count(in)) {
      ++activations;
      nhwc += int(im.channels_last.count(in));
    }
  }
  return nhwc > 0 && nhwc == activations && ops.count(n.op_type());
}

void import_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    throw Error(fmt::format("{}: unsupported operator '{}' (domain '{}') at node '{}'", im.file, t,
                            n.domain(), node_name(n)));
  }
  if (n.output_size() < 1 || (t != "Constant" && (n.input_size() < 1 || n.input(0).empty()))) {
    im.fail(n, "needs an input and an output");
  }
  if (import_support(t, inputs_constant(im, n)) == NodeSupport::kFolded) {
    return fold_node(im, n);
  }
  if (t == "Identity" || t == "Dropout") {
    im.alias[n.output(0)] = im.resolve(n.input(0));
    return;
  }
  if (t == "QuantizeLinear" || t == "DequantizeLinear") {
    return qdq_node(im, n);
  }
  if (t == "Pad") {
    return pad_node(im, n);
  }
  check_reads(im, n);
  if (import_channels_last_node(im, n)) {
    return;
  }
  if (elementwise_channels_last(im, n)) {
    im.channels_last.insert(n.output(0));
  } else {
    materialize_channels_last(im, n);
  }
  if (import_high_rank_node(im, n) || import_sequence_3d_node(im, n) || import_layout_node(im, n) ||
      ((t == "Flatten" || t == "Reshape") && flatten_alias(im, n)) || import_sequence_node(im, n)) {
    return;
  }
  if (t == "BatchNormalization") {
    return fold_batchnorm(im, n);
  }
  finish_node(im, n,
              t == "Conv"                    ? conv_node(im, n)
              : t == "Gemm" || t == "MatMul" ? dense_node(im, n, t == "Gemm")
                                             : plain_node(im, n));
}

// Extra bottom / right padding that gives ceil_mode's output size by the floor formula: as
// many windows as ceil((in + pads - k) / s) + 1, less a last one that would start in the end
// padding. The extension is never read (a max ignores it, an average without count_include_pad
// counts only real pixels).
int ceil_extension(int in, int pad_a, int pad_b, int k, int stride) {
  const int span = in + pad_a + pad_b - k;
  if (span < 0) {
    return 0;  // the shape check reports the kernel
  }
  int out = (span + stride - 1) / stride + 1;
  if ((out - 1) * stride >= in + pad_a) {
    --out;
  }
  return std::max(0, (out - 1) * stride + k - (in + pad_a + pad_b));
}

// The model's shape of node g's output from its view `view`: a Gemm keeps a sequence's rows,
// the operators of 4-D values give 4-D values, the per-token operators keep their input's.
std::vector<int> model_shape(const Importer& im, const GraphNode& g, const std::vector<int>& view) {
  auto in = im.shape.find(g.inputs[0]);
  const size_t rank = in == im.shape.end() ? 4 : in->second.size();
  if (g.op == GraphOp::kGemm) {
    return rank == 3 ? std::vector<int>{in->second[0], in->second[1], view[1]}
                     : std::vector<int>{view[0], view[1]};
  }
  return rank == 4 ? view : in->second;
}

}  // namespace

void add_node(Importer& im, GraphNode g, std::optional<std::vector<int> > shape) {
  std::vector<std::vector<int> > in;
  for (const std::string& t : g.inputs) {
    if (auto it = im.dims.find(t); it != im.dims.end()) {
      in.push_back(it->second);
    }
  }
  std::vector<int> out;
  if (in.size() == g.inputs.size()) {
    if (g.ceil_mode) {  // the floor form, the extension as padding
      g.pad_bottom += ceil_extension(in[0][2], g.pad_top, g.pad_bottom, g.kh, g.stride_h);
      g.pad_right += ceil_extension(in[0][3], g.pad_left, g.pad_right, g.kw, g.stride_w);
      g.ceil_mode = false;
    }
    if (node_output_dims(g, in, out).empty()) {
      im.dims[g.output] = out;
      im.shape[g.output] = shape ? *shape : model_shape(im, g, out);
    }
  }
  im.producer[g.output] = im.graph.nodes.size();
  im.graph.nodes.push_back(std::move(g));
}

namespace {

onnx::ModelProto read_model(const std::string& path) {
  const std::string bytes = read_input_file(path, "ONNX model", kMaxModelInputBytes);
  onnx::ModelProto model;
  if (bytes.size() > size_t(INT32_MAX) || !model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    throw Error(
        fmt::format("{}: not a valid ONNX model (the protobuf does not parse: a truncated "
                    "or a different file)",
                    path));
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    throw Error(fmt::format("{}: not a valid ONNX model (no graph nodes)", path));
  }
  load_external_data(model, path);
  return model;
}

// The one activation input (not an initializer) with its fixed NCHW dims.
void read_input(Importer& im, const onnx::GraphProto& g) {
  for (const auto& in : g.input()) {
    if (im.constants.count(in.name()) || im.int_constants.count(in.name())) {
      continue;
    }
    if (!im.graph.input.empty()) {
      throw Error(fmt::format("{}: the graph has several inputs ('{}', '{}'); one is supported",
                              im.file, im.graph.input, in.name()));
    }
    im.graph.input = in.name();
    if (in.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
      throw Error(fmt::format("{}: input '{}' has element type {}; a float32 input is supported",
                              im.file, in.name(), in.type().tensor_type().elem_type()));
    }
    const auto& shape = in.type().tensor_type().shape();
    if (shape.dim_size() < 2 || shape.dim_size() > 4) {
      throw Error(
          fmt::format("{}: input '{}' has {} dims, expected 2 to 4 ([N, F], [N, S, D] or NCHW)",
                      im.file, in.name(), shape.dim_size()));
    }
    std::vector<int> dims;
    for (int i = 0; i < shape.dim_size(); ++i) {
      const auto& d = shape.dim(i);
      if (!d.has_dim_value() || d.dim_value() < 1 || d.dim_value() > kMaxDim) {
        throw Error(fmt::format(
            "{}: input '{}' has a dynamic shape: dimension {} is '{}' (export with fixed sizes)",
            im.file, in.name(), i,
            d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param()));
      }
      dims.push_back(int(d.dim_value()));
    }
    check_float_tensor_size(dims, fmt::format("{}: input '{}'", im.file, in.name()));
    im.graph.input_dims = nchw_view(dims, "input '" + in.name() + "'");
    im.graph.batch = dims[0];
    im.dims[in.name()] = im.graph.input_dims;
    im.shape[in.name()] = dims;
  }
  if (im.graph.input.empty()) {
    throw Error(fmt::format("{}: the graph has no activation input", im.file));
  }
}

// The initializers, the Constant nodes and the Identity nodes of constants (torch shares equal
// initializers through them): every constant, before the nodes are imported. An error names
// the node that uses the tensor.
void read_constants(Importer& im, const onnx::GraphProto& g) {
  for (const auto& t : g.initializer()) {
    std::string where = fmt::format("{}: initializer", im.file);
    for (const auto& n : g.node()) {
      if (std::find(n.input().begin(), n.input().end(), t.name()) != n.input().end()) {
        where = fmt::format("{}: node '{}' ({})", im.file, n.name(), n.op_type());
        break;
      }
    }
    if (t.data_type() == onnx::TensorProto::INT64 || t.data_type() == onnx::TensorProto::BOOL) {
      im.int_constants[t.name()] = int_tensor(t, where);
      if (t.dims_size() == 0) {
        im.int_scalars.insert(t.name());
      }
    } else {
      im.constants[t.name()] = float_tensor(t, where);
    }
  }
  for (const auto& n : g.node()) {
    if (n.op_type() == "Constant" && n.output_size() == 1) {
      constant_node(im, n);
    } else if (n.op_type() == "Identity" && n.input_size() == 1 && n.output_size() == 1) {
      if (auto c = im.constants.find(n.input(0)); c != im.constants.end()) {
        im.constants[n.output(0)] = c->second;
      } else if (auto i = im.int_constants.find(n.input(0)); i != im.int_constants.end()) {
        im.int_constants[n.output(0)] = i->second;
      }
    }
  }
}

}  // namespace

}  // namespace onnx_in

FloatGraph import_onnx(const std::string& path) {
  using namespace onnx_in;
  const onnx::ModelProto model = read_model(path);
  const onnx::GraphProto& g = model.graph();
  Importer im;
  im.file = path;
  im.graph.name = std::filesystem::path(path).stem().string();  // torch names every graph torch_jit
  read_constants(im, g);
  // The decompositions imported as one node each, known before anything is reported missing.
  const std::vector<FusedOperator> fused = fused_operators(g, im.constants);
  std::set<int> fused_nodes;
  std::map<int, const FusedOperator*> fused_at;
  for (const FusedOperator& f : fused) {
    fused_nodes.insert(f.nodes.begin(), f.nodes.end());
    fused_at[f.output_node] = &f;
  }
  // Every missing operator at once, before any one node's error.
  if (std::string missing = unsupported_operators(g, import_support, fused_nodes);
      !missing.empty()) {
    throw Error(fmt::format("{}: {}", path, missing));
  }
  read_input(im, g);
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) {
      ++im.consumers[in];
    }
  }
  for (int i = 0; i < g.node_size(); ++i) {
    if (auto f = fused_at.find(i); f != fused_at.end()) {
      import_fused(im, g.node(i), *f->second);
    } else if (!fused_nodes.count(i)) {
      import_node(im, g.node(i));
    }
  }
  if (g.output_size() != 1) {
    throw Error(
        fmt::format("{}: the graph has {} outputs; one is supported", path, g.output_size()));
  }
  if (im.channels_last.count(g.output(0).name())) {  // the model's output is NHWC: its values
    onnx::NodeProto out;
    out.set_name("output");
    out.add_input(g.output(0).name());
    materialize_channels_last(im, out);
  }
  im.graph.output = im.resolve(g.output(0).name());
  im.graph.validate(path);
  return std::move(im.graph);
}

}  // namespace vta::compiler

#endif
