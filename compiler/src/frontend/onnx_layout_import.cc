// The ONNX operators that move values without computing and keep an NCHW meaning, and
// ReduceMean: a Reshape that splits the channels of an NCHW tensor in two factors, the Transpose
// of the factors and the Reshape back are one channel shuffle (the 5-D view between them is held
// by the importer, never by a graph node); Slice and each output of Split are boxes of C x H x
// W; ReduceMean over H and W is a global average pool. Every other Reshape and Transpose is
// sequence_import.cc's (a view, a permute of a 4-D tensor).
#ifdef VTA_HAVE_ONNX

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/onnx_importer.h"
#include "frontend/onnx_index_rules.h"

namespace vta::compiler::onnx_in {

namespace {

// An optional integer input (shape, axes, bounds) of node n: nullptr when absent; a constant
// or an error naming the node.
const std::vector<int64_t>* int_input(const Importer& im, const onnx::NodeProto& n, int i,
                                      const char* what) {
  if (n.input_size() <= i || n.input(i).empty()) {
    return nullptr;
  }
  auto it = im.int_constants.find(n.input(i));
  if (it == im.int_constants.end()) {
    im.fail(n, fmt::format("{} '{}' must be an int64 constant", what, n.input(i)));
  }
  return &it->second;
}

// The ints of an attribute (absent: empty).
std::vector<int64_t> attr_list(const onnx::NodeProto& n, const char* name) {
  const auto* a = find_attr(n, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

OnnxShape model_shape(const Importer& im, const onnx::NodeProto& n, const std::string& t) {
  const std::vector<int>& s = im.shape_of(n, t);
  return OnnxShape(s.begin(), s.end());
}

// A tensor's NCHW dims as the graph holds them (empty: none).
OnnxShape graph_shape(const Importer& im, const std::string& tensor) {
  auto it = im.dims.find(im.resolve(tensor));
  return it == im.dims.end() ? OnnxShape{} : OnnxShape(it->second.begin(), it->second.end());
}

void set_view(Importer& im, const std::string& out, const ChannelView& view,
              const OnnxShape& shape) {
  im.views[out] = view;
  im.shape[out] = std::vector<int>(shape.begin(), shape.end());
}

// A Reshape of a channel view: to its own shape it stays the view; back to its source's NCHW
// shape it is the source (factors in order) or a channel shuffle (factors transposed).
void reshape_view(Importer& im, const onnx::NodeProto& n, const ChannelView& view,
                  const OnnxShape& in, const OnnxShape& out) {
  if (out == in) {
    return set_view(im, n.output(0), view, out);
  }
  if (out != graph_shape(im, view.source)) {
    im.fail(n, fmt::format("a Reshape of the channel view {} to {}: only back to the NCHW shape "
                           "{} of '{}' is supported",
                           shape_text(in), shape_text(out),
                           shape_text(graph_shape(im, view.source)), view.source));
  }
  if (!view.transposed) {
    im.alias[n.output(0)] = view.source;
    return;
  }
  GraphNode g;
  g.op = GraphOp::kChannelShuffle;
  g.name = node_name(n);
  g.groups = view.groups;
  g.inputs = {view.source};
  g.output = n.output(0);
  add_node(im, std::move(g));
}

// A Reshape of a channel view, or of an NCHW tensor to N x g x C/g x H x W (a channel view);
// false for any other (sequence_import.cc's view, of up to 6 dims).
bool reshape_node(Importer& im, const onnx::NodeProto& n) {
  auto v = im.views.find(im.resolve(n.input(0)));
  const std::vector<int64_t>* target = int_input(im, n, 1, "the shape");
  if (!target || (v == im.views.end() && target->size() != 5)) {
    return false;
  }
  const OnnxShape in = model_shape(im, n, n.input(0));
  OnnxShape out;
  if (std::string e = reshape_target(in, *target, attr_int(im, n, "allowzero", 0, 0, 1), out);
      !e.empty()) {
    im.fail(n, e);
  }
  if (v != im.views.end()) {
    reshape_view(im, n, v->second, in, out);
    return true;
  }
  if (in.size() != 4 || in != graph_shape(im, n.input(0)) || out[0] != in[0] ||
      out[1] * out[2] != in[1] || out[3] != in[2] || out[4] != in[3]) {
    return false;  // not the channels split into groups: a plain 5-D view (sequence_import.cc)
  }
  set_view(im, n.output(0), ChannelView{im.resolve(n.input(0)), int(out[1]), false}, out);
  return true;
}

// The Transpose of a channel view's two factors; false for the Transpose of anything else
// (sequence_import.cc's).
bool transpose_node(Importer& im, const onnx::NodeProto& n) {
  auto v = im.views.find(im.resolve(n.input(0)));
  if (v == im.views.end()) {
    return false;
  }
  const OnnxShape in = model_shape(im, n, n.input(0));
  const std::vector<int64_t> perm = attr_list(n, "perm");
  if (perm != std::vector<int64_t>{0, 2, 1, 3, 4}) {
    im.fail(n, fmt::format("the permutation [{}] of the channel view {} has no NCHW meaning "
                           "(supported: the swap [0, 2, 1, 3, 4] of its two channel factors)",
                           fmt::join(perm, ", "), shape_text(in)));
  }
  ChannelView swapped = v->second;
  swapped.transposed = !swapped.transposed;
  set_view(im, n.output(0), swapped, {in[0], in[2], in[1], in[3], in[4]});
  return true;
}

// The node's input as an NCHW graph tensor (its ONNX shape 4-D and the graph's own).
OnnxShape nchw_input(const Importer& im, const onnx::NodeProto& n) {
  OnnxShape in = model_shape(im, n, n.input(0));
  if (in.size() != 4 || in != graph_shape(im, n.input(0))) {
    im.fail(n, fmt::format("reads '{}' of shape {}: only an NCHW tensor is supported here",
                           n.input(0), shape_text(in)));
  }
  return in;
}

// A slice of the node's input to `box` (the whole input: the input itself) as output `out`.
void add_slice(Importer& im, const onnx::NodeProto& n, const std::string& name,
               const std::string& out, const OnnxShape& in, std::vector<int> begin,
               std::vector<int> end) {
  if (begin == std::vector<int>{0, 0, 0} &&
      end == std::vector<int>{int(in[1]), int(in[2]), int(in[3])}) {
    im.alias[out] = im.resolve(n.input(0));
    return;
  }
  GraphNode g;
  g.op = GraphOp::kSlice;
  g.name = name;
  g.inputs = {im.resolve(n.input(0))};
  g.output = out;
  g.slice_begin = std::move(begin), g.slice_end = std::move(end);
  add_node(im, std::move(g));
}

void slice_node(Importer& im, const onnx::NodeProto& n) {
  const OnnxShape in = nchw_input(im, n);
  const std::vector<int64_t>* starts = int_input(im, n, 1, "starts");
  const std::vector<int64_t>* ends = int_input(im, n, 2, "ends");
  if (!starts || !ends || starts->size() != ends->size()) {
    im.fail(n, "needs constant starts and ends of one length (opset 10 and later)");
  }
  std::vector<int64_t> axes(starts->size()), steps(starts->size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (const std::vector<int64_t>* given = int_input(im, n, 3, "axes")) {
    axes = *given;
  }
  if (const std::vector<int64_t>* given = int_input(im, n, 4, "steps")) {
    steps = *given;
  }
  if (axes.size() != starts->size() || steps.size() != starts->size()) {
    im.fail(n, "its starts, ends, axes and steps differ in length");
  }
  std::vector<int> begin{0, 0, 0}, end{int(in[1]), int(in[2]), int(in[3])};
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = axes[i];
    if (!normalize_axis(axis, 4) || steps[i] != 1) {
      im.fail(n, fmt::format("axis {} with step {}: only steps of 1 along axes of NCHW are "
                             "supported",
                             axes[i], steps[i]));
    }
    const SliceRange r = slice_range(in[size_t(axis)], (*starts)[i], (*ends)[i], 1);
    if (r.count < 1 || (axis == 0 && r.count != in[0])) {
      im.fail(n, fmt::format("takes {} of the {} values of axis {}: only a part of C, H or W "
                             "(not empty, the whole batch) is supported",
                             r.count, in[size_t(axis)], axis));
    }
    if (axis > 0) {
      begin[size_t(axis - 1)] = int(r.start), end[size_t(axis - 1)] = int(r.start + r.count);
    }
  }
  add_slice(im, n, node_name(n), n.output(0), in, begin, end);
}

// Split along C, H or W: one slice per output.
void split_node(Importer& im, const onnx::NodeProto& n) {
  const OnnxShape in = nchw_input(im, n);
  int64_t axis = attr_int(im, n, "axis", 0, -4, 3);
  normalize_axis(axis, 4);
  const std::vector<int64_t>* given = int_input(im, n, 1, "the split");
  std::vector<int64_t> sizes;
  std::string e = axis == 0 ? "splitting the batch is not supported"
                            : split_sizes(in[size_t(axis)], given ? *given : attr_list(n, "split"),
                                          n.output_size(), sizes);
  if (!e.empty()) {
    im.fail(n, e);
  }
  std::vector<int> begin{0, 0, 0}, end{int(in[1]), int(in[2]), int(in[3])};
  for (int i = 0; i < n.output_size(); ++i) {
    const size_t a = size_t(axis - 1);
    end[a] = begin[a] + int(sizes[size_t(i)]);
    if (!n.output(i).empty()) {
      add_slice(im, n, fmt::format("{}_{}", node_name(n), i), n.output(i), in, begin, end);
    }
    begin[a] = end[a];
  }
}

// ReduceMean over H and W: a global average pool (N x C, or N x C x 1 x 1 with keepdims).
void reduce_mean_node(Importer& im, const onnx::NodeProto& n) {
  const OnnxShape in = nchw_input(im, n);
  const std::vector<int64_t>* axes_input = int_input(im, n, 1, "axes");
  std::vector<int64_t> axes = axes_input ? *axes_input : attr_list(n, "axes");
  for (int64_t& a : axes) {
    normalize_axis(a, 4);
  }
  std::sort(axes.begin(), axes.end());
  if (axes != std::vector<int64_t>{2, 3}) {
    im.fail(n, fmt::format("the mean over axes [{}] of {}: only the mean over H and W (a global "
                           "average pool) is supported",
                           fmt::join(axes_input ? *axes_input : attr_list(n, "axes"), ", "),
                           shape_text(in)));
  }
  GraphNode g;
  g.op = GraphOp::kGlobalAvgPool;
  g.name = node_name(n);
  g.inputs = {im.resolve(n.input(0))};
  g.output = n.output(0);
  const bool keepdims = attr_int(im, n, "keepdims", 1, 0, 1);
  add_node(im, std::move(g),
           keepdims ? std::vector<int>{int(in[0]), int(in[1]), 1, 1}
                    : std::vector<int>{int(in[0]), int(in[1])});
}

}  // namespace

bool import_layout_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  if (t == "Reshape") {
    return reshape_node(im, n);
  }
  if (t == "Transpose") {
    return transpose_node(im, n);
  }
  if (t == "Slice") {
    slice_node(im, n);
  } else if (t == "Split") {
    split_node(im, n);
  } else if (t == "ReduceMean") {
    reduce_mean_node(im, n);
  } else {
    return false;
  }
  return true;
}

}  // namespace vta::compiler::onnx_in

#endif
