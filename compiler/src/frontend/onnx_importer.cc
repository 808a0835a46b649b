#ifdef VTA_HAVE_ONNX

#include "frontend/onnx_importer.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

std::string node_name(const onnx::NodeProto& n) {
  return n.name().empty() ? (n.output_size() ? n.output(0) : n.op_type()) : n.name();
}

std::string Importer::resolve(const std::string& t) const {
  auto it = alias.find(t);
  return it == alias.end() ? t : resolve(it->second);
}

void Importer::fail(const onnx::NodeProto& n, const std::string& what) const {
  throw Error(fmt::format("{}: node '{}' ({}): {}", file, node_name(n), n.op_type(), what));
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) {
      return &a;
    }
  }
  return nullptr;
}

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

namespace {

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

}  // namespace

void add_node(Importer& im, GraphNode g) {
  auto in = g.inputs.empty() ? im.dims.end() : im.dims.find(g.inputs[0]);
  if (g.ceil_mode && in != im.dims.end()) {
    const std::vector<int>& d = in->second;
    g.pad_bottom += ceil_extension(d[2], g.pad_top, g.pad_bottom, g.kh, g.stride_h);
    g.pad_right += ceil_extension(d[3], g.pad_left, g.pad_right, g.kw, g.stride_w);
    g.ceil_mode = false;
  }
  im.dims[g.output] = infer_node_dims(g, im.dims, im.file);
  im.producer[g.output] = im.graph.nodes.size();
  im.graph.nodes.push_back(std::move(g));
}

OnnxShape shape_of(const Importer& im, const onnx::NodeProto& n, const std::string& t) {
  if (auto s = im.shapes.find(t); s != im.shapes.end()) {
    return s->second;
  }
  if (auto c = im.constants.find(t); c != im.constants.end()) {
    return OnnxShape(c->second.dims.begin(), c->second.dims.end());
  }
  if (auto i = im.int_constants.find(t); i != im.int_constants.end()) {
    return OnnxShape{int64_t(i->second.size())};
  }
  auto d = im.dims.find(im.resolve(t));
  if (d == im.dims.end()) {
    im.fail(n, fmt::format("the shape of tensor '{}' is not known", t));
  }
  return OnnxShape(d->second.begin(), d->second.end());
}

void alias_output(Importer& im, const onnx::NodeProto& n, const OnnxShape& shape) {
  im.alias[n.output(0)] = im.resolve(n.input(0));
  im.shapes[n.output(0)] = shape;
}

}  // namespace vta::compiler

#endif
