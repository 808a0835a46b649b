// Channels-last stretches of a CNN (ConvNeXt's blocks, its LayerNorm2d): a Transpose of an NCHW
// value to NHWC, per-pixel work over the last axis (LayerNorm, Linear, GELU, a bias, a
// per-channel scale) and the Transpose back. No graph node moves the data: the NHWC tensor is
// its NCHW source under another name (an alias, recorded in Importer::channels_last), the last
// axis is the view's channel axis, a Linear over it is a 1x1 Conv (on VTA), and a per-channel
// scale folds into the Conv before it. A node that reads a channels-last value otherwise gets
// the NHWC values, permuted then.
#ifdef VTA_HAVE_ONNX

#include <fmt/format.h>

#include "frontend/onnx_importer.h"

namespace vta::compiler::onnx_in {

namespace {

bool is_perm(const onnx::NodeProto& n, const std::vector<int64_t>& perm) {
  const auto* a = find_attr(n, "perm");
  return a && std::vector<int64_t>(a->ints().begin(), a->ints().end()) == perm;
}

bool channels_last(const Importer& im, const std::string& t) {
  return im.channels_last.count(t) > 0;
}

// A Linear over the last axis of a channels-last value: a 1x1 Conv of the NCHW source.
void linear_as_conv(Importer& im, const onnx::NodeProto& n) {
  GraphNode d = dense_node(im, n, false);
  GraphNode g;
  g.op = GraphOp::kConv;
  g.name = node_name(n);
  g.weight = std::move(d.weight);
  g.weight.dims = {g.weight.dims[0], g.weight.dims[1], 1, 1};
  g.bias = std::move(d.bias);
  g.inputs = {im.resolve(n.input(0))};
  g.output = n.output(0);
  add_node(im, std::move(g));
  im.channels_last.insert(n.output(0));
}

// The Conv producing `t` when every tensor from it to `t` (aliases) has one reader, else null.
GraphNode* sole_conv(Importer& im, const std::string& t) {
  std::string at = t;
  while (true) {
    if (im.consumers[at] != 1) {
      return nullptr;
    }
    auto a = im.alias.find(at);
    if (a == im.alias.end()) {
      break;
    }
    at = a->second;
  }
  auto p = im.producer.find(at);
  if (p == im.producer.end() || im.graph.nodes[p->second].op != GraphOp::kConv) {
    return nullptr;
  }
  return &im.graph.nodes[p->second];
}

// A constant of one value per channel of x: C values of a channels-last x, C x 1 x 1 of an
// NCHW one (or 1 x C x 1 x 1); else false.
bool per_channel(const Importer& im, const onnx::NodeProto& n, const FloatTensor& c, int x) {
  auto known = im.shape.find(im.resolve(n.input(x)));
  if (known == im.shape.end()) {
    return false;
  }
  const std::vector<int>& s = known->second;
  if (s.size() != 4 || c.size() != size_t(s[1]) || c.size() == 1) {
    return false;
  }
  const std::vector<int>& d = c.dims;
  if (channels_last(im, n.input(x))) {
    return d.size() == 1;
  }
  return (d.size() == 3 && d[1] == 1 && d[2] == 1) ||
         (d.size() == 4 && d[0] == 1 && d[2] == 1 && d[3] == 1);
}

// x + c or x * c with c per channel, folded into the Conv producing x (its bias; its weights
// and bias); false when no Conv is there to take it.
bool fold_per_channel(Importer& im, const onnx::NodeProto& n, int x, const FloatTensor& c) {
  GraphNode* conv = sole_conv(im, n.input(x));
  if (!conv || conv->groups != 1 || conv->bias.size() != c.size()) {
    return false;
  }
  const size_t k = c.size(), per = conv->weight.size() / k;
  for (size_t o = 0; o < k; ++o) {
    if (n.op_type() == "Mul") {
      for (size_t i = 0; i < per; ++i) {
        conv->weight.data[o * per + i] *= c.data[o];
      }
      conv->bias.data[o] *= c.data[o];
    } else {
      conv->bias.data[o] += c.data[o];
    }
  }
  im.alias[n.output(0)] = im.resolve(n.input(x));
  if (channels_last(im, n.input(x))) {
    im.channels_last.insert(n.output(0));
  }
  return true;
}

bool per_channel_arithmetic(Importer& im, const onnx::NodeProto& n) {
  if ((n.op_type() != "Add" && n.op_type() != "Mul") || n.input_size() != 2) {
    return false;
  }
  const int ci = im.constants.count(n.input(1)) ? 1 : im.constants.count(n.input(0)) ? 0 : -1;
  if (ci < 0) {
    return false;
  }
  const FloatTensor& c = im.constants.at(n.input(ci));
  if (!per_channel(im, n, c, 1 - ci)) {
    return false;
  }
  if (!fold_per_channel(im, n, 1 - ci, c)) {
    if (n.op_type() == "Mul" && !channels_last(im, n.input(1 - ci))) {
      return false;  // a scale per channel on the host (sequence_import.cc)
    }
    im.fail(n, fmt::format("constant '{}' of {} values per channel: only one folded into the "
                           "Conv or Linear before it (its only reader) is supported",
                           n.input(ci), c.size()));
  }
  return true;
}

}  // namespace

bool import_channels_last_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  if (t == "Transpose" && n.input_size() == 1) {
    const std::string& in = n.input(0);
    auto s = im.shape.find(im.resolve(in));
    if (s == im.shape.end() || s->second.size() != 4) {
      return false;
    }
    if (!channels_last(im, in) && is_perm(n, {0, 2, 3, 1})) {
      im.alias[n.output(0)] = im.resolve(in);
      im.channels_last.insert(n.output(0));
      return true;
    }
    if (channels_last(im, in) && is_perm(n, {0, 3, 1, 2})) {
      im.alias[n.output(0)] = im.resolve(in);
      return true;
    }
    return false;
  }
  if (t == "MatMul" && n.input_size() == 2 && channels_last(im, n.input(0)) &&
      im.constants.count(n.input(1))) {
    linear_as_conv(im, n);
    return true;
  }
  return per_channel_arithmetic(im, n);
}

void materialize_channels_last(Importer& im, const onnx::NodeProto& n) {
  for (const std::string& in : n.input()) {
    if (!channels_last(im, in)) {
      continue;
    }
    // Not per-pixel work (attention's fused Transposes of [N, S, heads, d] to [N, heads, d, S]
    // read as one): the NHWC values themselves, by a permute of the NCHW source.
    GraphNode g;
    g.op = GraphOp::kPermute;
    g.name = node_name(n) + "/nhwc";
    g.inputs = {im.resolve(in)};
    g.output = in + "/nhwc";
    g.perm = {0, 2, 3, 1};
    add_node(im, g);
    im.channels_last.erase(in);
    im.alias[in] = g.output;
  }
}

}  // namespace vta::compiler::onnx_in

#endif
