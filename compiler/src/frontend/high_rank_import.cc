// The operators of MaxViT's partitioned attention on 4-D to 6-D values, built of the graph's
// own operators (Permute, View, BatchMatMul, Gemm):
// - a Transpose of a 5-D or 6-D value (the block and grid partitions, the heads split off the
//   features) as a chain of 4-D permutes, each swapping two adjacent blocks of axes of a view
//   [outer, A, B, inner], until the axes are in the output's order;
// - an Einsum that is a batched matrix product (einsum.h) as a BatchMatMul of the operands'
//   4-D views, an operand read transposed permuted first; any other equation is an error
//   quoting it;
// - a Linear (MatMul with a constant) over the last axis of a 4-D to 6-D value as a Gemm of its
//   rows, (all the leading axes) x features, between two views.
#ifdef VTA_HAVE_ONNX

#include <algorithm>
#include <functional>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/einsum.h"
#include "frontend/onnx_importer.h"

namespace vta::compiler::onnx_in {

namespace {

int product(const std::vector<int>& d, size_t begin, size_t end) {
  return std::accumulate(d.begin() + long(begin), d.begin() + long(end), 1, std::multiplies<>());
}

bool is_activation(const Importer& im, const onnx::NodeProto& n, int i) {
  return n.input_size() > i && !n.input(i).empty() && !im.constants.count(n.input(i)) &&
         !im.int_constants.count(n.input(i));
}

// Node n's `perm` (ONNX's default: the axes reversed), checked to be one of `rank` axes.
std::vector<int> transpose_perm(const Importer& im, const onnx::NodeProto& n, size_t rank) {
  std::vector<int> perm(rank);
  for (size_t a = 0; a < rank; ++a) {
    perm[a] = int(rank - 1 - a);
  }
  if (const auto* a = find_attr(n, "perm")) {
    perm.assign(a->ints().begin(), a->ints().end());
  }
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t a = 0; a < rank; ++a) {
    if (sorted.size() != rank || sorted[a] != int(a)) {
      im.fail(
          n, fmt::format("perm [{}] is not a permutation of {} axes", fmt::join(perm, ", "), rank));
    }
  }
  return perm;
}

// Transpose of a 5-D or 6-D value: for each output axis in turn, the block of axes before the
// one it needs swapped with that axis (a permute 0,2,1,3 of the view [outer, block, axis,
// inner]); swaps of a block or an axis of size 1 move no data and build no node.
void transpose_high_rank(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  const std::vector<int> perm = transpose_perm(im, n, s.size());
  std::vector<int> order(s.size()), dims = s;  // the input axes in their current order
  std::iota(order.begin(), order.end(), 0);
  std::string at = im.resolve(n.input(0));
  const std::string base = node_name(n);
  for (size_t i = 0, step = 0; i < perm.size(); ++i) {
    const size_t j = size_t(std::find(order.begin(), order.end(), perm[i]) - order.begin());
    const int block = product(dims, i, j), axis = dims[j];
    if (j != i && block > 1 && axis > 1) {
      const std::vector<int> view{product(dims, 0, i), block, axis,
                                  product(dims, j + 1, dims.size())};
      const bool same = im.dims.count(at) && im.dims.at(at) == view;  // no View needed
      at = add_view(im, fmt::format("{}/view{}", base, step), at,
                    fmt::format("{}/view{}", n.output(0), step), view,
                    same ? im.shape.at(at) : view);
      GraphNode g;
      g.op = GraphOp::kPermute;
      g.name = fmt::format("{}/swap{}", base, step);
      g.inputs = {at};
      g.output = fmt::format("{}/swap{}", n.output(0), step);
      g.perm = {0, 2, 1, 3};
      at = g.output;
      add_node(im, std::move(g), std::vector<int>{view[0], axis, block, view[3]});
      ++step;
    }
    std::rotate(order.begin() + long(i), order.begin() + long(j), order.begin() + long(j) + 1);
    std::rotate(dims.begin() + long(i), dims.begin() + long(j), dims.begin() + long(j) + 1);
  }
  if (im.dims.count(at) && im.dims.at(at) == nchw_view(dims, "a transposed value")) {
    im.shape[at] = dims;  // the last permute's output is the result's view: no View needed
  }
  add_view(im, base, at, n.output(0), nchw_view(dims, "a transposed value"), dims);
}

// Operand i of an Einsum of rank r as the 4-D graph tensor [batch..., rows, columns]: its
// view, the leading batch axes merged (1 x 1 x ... for a matrix), its last two axes swapped
// when the product reads it transposed.
std::string einsum_operand(Importer& im, const onnx::NodeProto& n, int i, int rank,
                           bool transpose) {
  if (!is_activation(im, n, i)) {
    im.fail(n, fmt::format("operand '{}' is a constant; only a product of two activations is "
                           "supported",
                           n.input(i)));
  }
  const std::vector<int> s = im.shape_of(n, n.input(i));
  if (int(s.size()) != rank) {
    im.fail(
        n, fmt::format("operand '{}' has {} dims but the equation {}", n.input(i), s.size(), rank));
  }
  const size_t r = s.size();
  const std::vector<int> four{r > 3 ? product(s, 0, r - 3) : 1, r > 2 ? s[r - 3] : 1, s[r - 2],
                              s[r - 1]};
  const std::string tag = i ? "b" : "a", in = im.resolve(n.input(i));
  const bool same = im.dims.count(in) && im.dims.at(in) == four;
  std::string at = add_view(im, fmt::format("{}/{}", node_name(n), tag), in,
                            fmt::format("{}/{}", n.output(0), tag), four, same ? s : four);
  if (!transpose) {
    return at;
  }
  GraphNode g;
  g.op = GraphOp::kPermute;
  g.name = fmt::format("{}/{}_transposed", node_name(n), tag);
  g.inputs = {at};
  g.output = fmt::format("{}/{}_transposed", n.output(0), tag);
  g.perm = {0, 1, 3, 2};
  add_node(im, g, std::vector<int>{four[0], four[1], four[3], four[2]});
  return g.output;
}

void einsum_node(Importer& im, const onnx::NodeProto& n) {
  const auto* a = find_attr(n, "equation");
  const std::string equation = a ? a->s() : "";
  EinsumMatmul m;
  if (n.input_size() != 2) {
    im.fail(n, fmt::format("equation '{}': only an Einsum of two operands is supported", equation));
  }
  if (std::string e = parse_einsum_matmul(equation, m); !e.empty()) {
    im.fail(n, fmt::format("equation '{}' is not a batched matrix product: {}", equation, e));
  }
  GraphNode g;
  g.op = GraphOp::kBatchMatMul;
  g.name = node_name(n);
  g.inputs = {einsum_operand(im, n, 0, m.rank, m.transpose_a),
              einsum_operand(im, n, 1, m.rank, m.transpose_b)};
  g.output = n.output(0) + "/product";
  const std::string product_of = g.output;
  add_node(im, std::move(g));
  if (!im.dims.count(product_of)) {
    const std::vector<int>&sa = im.shape_of(n, n.input(0)), &sb = im.shape_of(n, n.input(1));
    im.fail(n, fmt::format("equation '{}': the operands [{}] and [{}] do not multiply", equation,
                           fmt::join(sa, ", "), fmt::join(sb, ", ")));
  }
  std::vector<int> out = im.shape_of(n, n.input(0));
  const std::vector<int>& d = im.dims.at(product_of);
  out[out.size() - 2] = d[2], out[out.size() - 1] = d[3];
  if (nchw_view(out, "its output") == d) {
    im.shape[product_of] = out;  // the product is the output's view: no View needed
  }
  add_view(im, node_name(n) + "/output", product_of, n.output(0), nchw_view(out, "its output"),
           out);
}

// MatMul of a 4-D to 6-D value by a constant matrix: a Gemm of its rows.
void linear_last_axis(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  const int rows = product(s, 0, s.size() - 1);
  const std::string base = node_name(n);
  GraphNode g = dense_node(im, n, false);
  g.name = base;
  g.inputs = {add_view(im, base + "/rows", im.resolve(n.input(0)), n.output(0) + "/rows",
                       {rows, s.back(), 1, 1}, {rows, s.back()})};
  g.output = n.output(0) + "/linear";
  const int units = g.weight.dims[0];
  add_node(im, std::move(g), std::vector<int>{rows, units});
  std::vector<int> out = s;
  out.back() = units;
  add_view(im, base + "/tokens", n.output(0) + "/linear", n.output(0), nchw_view(out, "its output"),
           out);
}

}  // namespace

bool import_high_rank_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  // (a channel view, which no graph tensor holds, is onnx_layout_import.cc's)
  const bool tensor = is_activation(im, n, 0) && !im.views.count(im.resolve(n.input(0)));
  const size_t rank = tensor ? im.shape_of(n, n.input(0)).size() : 0;
  if (t == "Einsum") {
    einsum_node(im, n);
  } else if (t == "Transpose" && rank > 4) {
    transpose_high_rank(im, n);
  } else if (t == "MatMul" && rank >= 4 && n.input_size() == 2 && im.constants.count(n.input(1))) {
    linear_last_axis(im, n);
  } else {
    return false;
  }
  return true;
}

}  // namespace vta::compiler::onnx_in

#endif
