// The operators of a vision transformer on 3-D values [A, B, C] (torch's multi-head attention
// runs on [S, N, D] and on [N * heads, S, head dim]): a Transpose, a MatMul of two activations,
// a Slice of the last axis (the fused q / k / v projection's thirds) and a Gather of one token
// (the class token of the head). The view of a 3-D value is (A*B) x C x 1 x 1
// (float_graph.h); a Transpose or a MatMul runs on the 4-D view 1 x A x B x C (a View before
// and after: the same values under other dims), a Slice of the last axis is a box of the view's
// channels, a Gather of token i a box of the channels of the view A x B x C x 1.
#ifdef VTA_HAVE_ONNX

#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/constant_folding.h"
#include "frontend/onnx_importer.h"
#include "frontend/onnx_index_rules.h"

namespace vta::compiler::onnx_in {

std::string add_view(Importer& im, const std::string& name, const std::string& in,
                     const std::string& out, std::vector<int> to, std::vector<int> model) {
  // The same dims and model shape: the input itself (an alias keeps the input's shape).
  if (im.dims.count(in) && im.dims.at(in) == to && im.shape.count(in) && im.shape.at(in) == model) {
    if (out != in) {
      im.alias[out] = in;
    }
    return in;
  }
  GraphNode g;
  g.op = GraphOp::kView;
  g.name = name;
  g.inputs = {in};
  g.output = out;
  g.to_dims = std::move(to);
  add_node(im, std::move(g), std::move(model));
  return out;
}

namespace {

int rank_of(const Importer& im, const onnx::NodeProto& n, int i) {
  return n.input_size() > i && !n.input(i).empty() && !im.constants.count(n.input(i)) &&
                 !im.int_constants.count(n.input(i))
             ? int(im.shape_of(n, n.input(i)).size())
             : 0;
}

// The 3-D input i of node n as the 4-D graph tensor 1 x A x B x C.
std::string lifted(Importer& im, const onnx::NodeProto& n, int i, const std::string& tag) {
  const std::vector<int> s = im.shape_of(n, n.input(i));
  const std::vector<int> to{1, s[0], s[1], s[2]};
  return add_view(im, fmt::format("{}/{}", node_name(n), tag), im.resolve(n.input(i)),
                  fmt::format("{}/{}", n.output(0), tag), to, to);
}

// The 4-D graph tensor `four` (1 x A x B x C) as the node's 3-D output [A, B, C].
void lowered(Importer& im, const onnx::NodeProto& n, const std::string& four) {
  const std::vector<int> d = im.dims.at(four);
  const std::vector<int> model{d[1], d[2], d[3]};
  add_view(im, node_name(n), four, n.output(0), nchw_view(model, "a 3-D value"), model);
}

void transpose_3d(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  std::vector<int64_t> perm{2, 1, 0};
  if (const auto* a = find_attr(n, "perm")) {
    perm.assign(a->ints().begin(), a->ints().end());
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::vector<int64_t>{0, 1, 2}) {
    im.fail(n, fmt::format("perm [{}] is not a permutation of 3 axes", fmt::join(perm, ", ")));
  }
  std::vector<int> out(3), kept_in, kept_out;
  for (size_t a = 0; a < 3; ++a) {
    out[a] = s[size_t(perm[a])];
    if (out[a] != 1) {
      kept_out.push_back(int(perm[a]));
    }
    if (s[a] != 1) {
      kept_in.push_back(int(a));
    }
  }
  if (kept_in == kept_out) {  // only axes of size 1 move: the same values in the same order
    add_view(im, node_name(n), im.resolve(n.input(0)), n.output(0), nchw_view(out, "a 3-D value"),
             out);
    return;
  }
  GraphNode g;
  g.op = GraphOp::kPermute;
  g.name = node_name(n) + "/permute";
  g.inputs = {lifted(im, n, 0, "lift")};
  g.output = n.output(0) + "/permuted";
  g.perm = {0, int(perm[0]) + 1, int(perm[1]) + 1, int(perm[2]) + 1};
  add_node(im, g);
  lowered(im, n, g.output);
}

void matmul_3d(Importer& im, const onnx::NodeProto& n) {
  GraphNode g;
  g.op = GraphOp::kBatchMatMul;
  g.name = node_name(n) + "/matmul";
  g.inputs = {lifted(im, n, 0, "lift_a"), lifted(im, n, 1, "lift_b")};
  g.output = n.output(0) + "/product";
  add_node(im, g);
  if (!im.dims.count(g.output)) {
    const std::vector<int>&a = im.shape_of(n, n.input(0)), &b = im.shape_of(n, n.input(1));
    im.fail(n, fmt::format("the operands [{}] and [{}] do not multiply", fmt::join(a, ", "),
                           fmt::join(b, ", ")));
  }
  lowered(im, n, g.output);
}

// Slice of the last axis of a 2-D or 3-D value: a box of the view's channels.
void slice_last_axis(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  const int rank = int(s.size());
  if (n.input_size() < 3) {
    im.fail(n, "needs constant starts and ends (opset 10 and later)");
  }
  auto starts = im.int_constants.find(n.input(1)), ends = im.int_constants.find(n.input(2));
  std::vector<int64_t> axes{0}, steps{1};
  if (n.input_size() > 3 && !n.input(3).empty()) {
    axes = im.int_constants.count(n.input(3)) ? im.int_constants.at(n.input(3)) : axes;
  }
  if (n.input_size() > 4 && !n.input(4).empty() && im.int_constants.count(n.input(4))) {
    steps = im.int_constants.at(n.input(4));
  }
  int64_t axis = axes.size() == 1 ? axes[0] : -1;
  if (starts == im.int_constants.end() || ends == im.int_constants.end() ||
      starts->second.size() != 1 || ends->second.size() != 1 || axes.size() != 1 ||
      !normalize_axis(axis, size_t(rank)) || axis != rank - 1 || steps.size() != 1 ||
      steps[0] != 1) {
    im.fail(n, fmt::format("a Slice of a {}-D value: only constant bounds on its last axis, "
                           "step 1, are supported",
                           rank));
  }
  const SliceRange r = slice_range(s.back(), starts->second[0], ends->second[0], 1);
  if (r.count < 1) {
    im.fail(n, "the slice is empty");
  }
  std::vector<int> model = s;
  model.back() = int(r.count);
  GraphNode g;
  g.op = GraphOp::kSlice;
  g.name = node_name(n);
  g.inputs = {im.resolve(n.input(0))};
  g.output = n.output(0);
  g.slice_begin = {int(r.start), 0, 0}, g.slice_end = {int(r.start + r.count), 1, 1};
  add_node(im, std::move(g), model);
}

// Gather of one token (a scalar index) along axis 1 of [N, S, D]: the [N, D] row.
void gather_token(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  if (n.input_size() != 2) {
    im.fail(n, "needs a data and an indices input");
  }
  auto index = im.int_constants.find(n.input(1));
  int64_t axis = attr_int(im, n, "axis", 0, -int64_t(s.size()), int64_t(s.size()) - 1);
  normalize_axis(axis, s.size());
  if (s.size() != 3 || axis != 1 || index == im.int_constants.end() || index->second.size() != 1) {
    im.fail(n,
            "only a Gather of one constant index along axis 1 of a 3-D value (a token) is "
            "supported");
  }
  int64_t i = index->second[0];
  if (!normalize_axis(i, size_t(s[1]))) {
    im.fail(n, fmt::format("index {} is outside the {} tokens", index->second[0], s[1]));
  }
  const std::string base = node_name(n);
  const std::string rows =
      add_view(im, base + "/tokens", im.resolve(n.input(0)), n.output(0) + "/tokens",
               {s[0], s[1], s[2], 1}, {s[0], s[1], s[2], 1});
  GraphNode g;
  g.op = GraphOp::kSlice;
  g.name = base + "/token";
  g.inputs = {rows};
  g.output = n.output(0) + "/token";
  g.slice_begin = {int(i), 0, 0}, g.slice_end = {int(i) + 1, s[2], 1};
  add_node(im, g, std::vector<int>{s[0], 1, s[2], 1});
  add_view(im, base, g.output, n.output(0), {s[0], s[2], 1, 1}, {s[0], s[2]});
}

// Constant c broadcast to `shape` (ONNX's rules, as an Expand folds it).
FloatTensor broadcast(const Importer& im, const onnx::NodeProto& n, const FloatTensor& c,
                      const std::vector<int>& shape) {
  std::map<std::string, FloatTensor> floats{{"c", c}};
  std::map<std::string, std::vector<int64_t>> ints{{"shape", {shape.begin(), shape.end()}}};
  onnx::NodeProto e;
  e.set_op_type("Expand");
  e.add_input("c"), e.add_input("shape"), e.add_output("y");
  if (std::string err = fold_constant_node(e, {}, {floats, ints}); !err.empty()) {
    im.fail(n, err);
  }
  FloatTensor& y = floats.at("y");
  if (std::vector<int>(y.dims.begin(), y.dims.end()) != shape) {
    im.fail(n, fmt::format("the constant {} does not broadcast to [{}]", c.shape(),
                           fmt::join(shape, ", ")));
  }
  return std::move(y);
}

GraphNode constant_node_of(Importer& im, const onnx::NodeProto& n, const std::string& x) {
  GraphNode g;
  g.op = GraphOp::kAddConstant;
  g.name = node_name(n);
  g.inputs = {im.resolve(x)};
  g.output = n.output(0);
  return g;
}

// x + c of a constant tensor c (not a scalar, not a Linear's bias): ViT's position embedding,
// Swin's relative position bias of its attention.
bool add_tensor(Importer& im, const onnx::NodeProto& n) {
  if (n.input_size() != 2) {
    return false;
  }
  const int ci = im.constants.count(n.input(1)) ? 1 : im.constants.count(n.input(0)) ? 0 : -1;
  if (ci < 0) {
    return false;
  }
  const FloatTensor& c = im.constants.at(n.input(ci));
  const std::string& x = n.input(1 - ci);
  const std::vector<int> s = im.shape_of(n, x);
  auto p = im.producer.find(im.resolve(x));
  const bool bias = c.size() == size_t(s.back()) && p != im.producer.end() &&
                    im.graph.nodes[p->second].op == GraphOp::kGemm;
  if (c.size() <= 1 || bias || c.dims.size() < 2) {
    return false;  // a scalar or a bias: sequence_import.cc's
  }
  GraphNode g = constant_node_of(im, n, x);
  g.groups = 1;
  g.bias = broadcast(im, n, c, s);
  add_node(im, std::move(g), s);
  return true;
}

// Concat of constants and one 3-D activation after them along axis 1: rows before each
// sequence (ViT's class token).
bool concat_constant(Importer& im, const onnx::NodeProto& n) {
  const int last = n.input_size() - 1;
  if (n.input_size() < 2 || rank_of(im, n, last) != 3) {
    return false;
  }
  const std::vector<int> s = im.shape_of(n, n.input(last));
  int64_t axis = attr_int(im, n, "axis", 1, -3, 2);
  normalize_axis(axis, 3);
  GraphNode g = constant_node_of(im, n, n.input(last));
  g.groups = s[0];
  for (int i = 0; i < last; ++i) {
    auto c = im.constants.find(n.input(i));
    if (c == im.constants.end() || c->second.dims.size() != 3 || axis != 1) {
      im.fail(n,
              "a Concat with a sequence: only constants before it along axis 1 (the "
              "tokens) are supported");
    }
    const int rows = c->second.dims[1];
    FloatTensor rows_of = broadcast(im, n, c->second, {s[0], rows, s[2]});
    g.prefix_rows += rows;
    g.weight.data.insert(g.weight.data.end(), rows_of.data.begin(), rows_of.data.end());
  }
  if (last > 1) {  // several constants: each sequence's rows in order
    im.fail(n, "a Concat of more than one constant with a sequence is not supported");
  }
  g.weight.dims = {s[0] * g.prefix_rows, s[2]};
  const std::vector<int> out{s[0], s[1] + g.prefix_rows, s[2]};
  add_node(im, std::move(g), out);
  return true;
}

}  // namespace

bool import_sequence_3d_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  const int rank = rank_of(im, n, 0);
  if (t == "Transpose" && rank == 3) {
    transpose_3d(im, n);
  } else if (t == "MatMul" && rank == 3 && rank_of(im, n, 1) == 3) {
    matmul_3d(im, n);
  } else if (t == "Slice" && (rank == 3 || rank == 2)) {
    slice_last_axis(im, n);
  } else if (t == "Gather") {  // of an activation (a constant's folds at import)
    gather_token(im, n);
  } else if (t == "Concat") {
    return concat_constant(im, n);
  } else if (t == "Add" && (rank >= 3 || rank_of(im, n, 1) >= 3)) {
    return add_tensor(im, n);
  } else {
    return false;
  }
  return true;
}

}  // namespace vta::compiler::onnx_in

#endif
