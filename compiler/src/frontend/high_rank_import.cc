// The ONNX operators of values beyond the 4-D view's own axes, each built from the graph's
// operators of 4-D views (float_graph.h: every value is held as the NCHW view of the model's
// tensor) with a View before and after: MaxViT's attention (an Einsum that is a batched matrix
// product: a BatchMatMul of the operands' 4-D views, an operand read transposed permuted first;
// any other equation is an error quoting it), Swin's window partition (a Transpose of a 6-D value),
// its q / k / v (a Transpose of a 5-D value and a Gather of one index along its first axis), a
// Linear over the last axis of its [B, H, W, C] tokens, and its patch merging (a Slice with step
// 2 of H and of W, a Concat along the last axis).
//
// A Transpose is reduced first: axes of size 1 dropped, axes that stay neighbours merged. Up to
// four axes left, it is one permute of a 4-D view; more, it is a sequence of permutes, each
// moving one axis to its place in front of a run of others ([P, M, X, A] to [P, X, M, A]).
#ifdef VTA_HAVE_ONNX

#include <algorithm>
#include <functional>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/einsum.h"
#include "frontend/onnx_importer.h"
#include "frontend/onnx_index_rules.h"

namespace vta::compiler::onnx_in {

namespace {

int64_t product(const std::vector<int>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t a = from; a < to; ++a) {
    p *= d[a];
  }
  return p;
}

// A Transpose reduced: the sizes of its merged axes in input order and where each goes.
struct ReducedPermutation {
  std::vector<int> dims;  // input order
  std::vector<int> perm;  // output axis i is reduced input axis perm[i]
};

ReducedPermutation reduce_permutation(const std::vector<int>& s, const std::vector<int64_t>& perm) {
  // The input axes of size > 1 numbered among themselves, in the output's order.
  std::vector<int> number(s.size(), -1), kept, kept_dims;
  for (size_t a = 0; a < s.size(); ++a) {
    if (s[a] != 1) {
      number[a] = int(kept_dims.size());
      kept_dims.push_back(s[a]);
    }
  }
  for (int64_t p : perm) {
    if (number[size_t(p)] >= 0) {
      kept.push_back(number[size_t(p)]);
    }
  }
  // Runs of consecutive input axes in the output order, each one reduced axis.
  std::vector<std::vector<int>> runs;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i == 0 || kept[i] != kept[i - 1] + 1) {
      runs.emplace_back();
    }
    runs.back().push_back(kept[i]);
  }
  std::vector<size_t> by_input(runs.size());
  std::iota(by_input.begin(), by_input.end(), size_t{0});
  std::sort(by_input.begin(), by_input.end(),
            [&](size_t a, size_t b) { return runs[a][0] < runs[b][0]; });
  ReducedPermutation r;
  r.perm.resize(runs.size());
  for (size_t k = 0; k < by_input.size(); ++k) {
    const std::vector<int>& run = runs[by_input[k]];
    r.dims.push_back(int(product(kept_dims, size_t(run.front()), size_t(run.back()) + 1)));
    r.perm[by_input[k]] = int(k);
  }
  return r;
}

// One permute of the 4-D view `dims` of `in` by `perm`, its output named `out`.
std::string permute_4d(Importer& im, const std::string& name, const std::string& in,
                       const std::vector<int>& dims, const std::vector<int>& perm,
                       const std::string& out) {
  const std::string viewed = add_view(im, name + "/view", in, out + "/view", dims, dims);
  GraphNode g;
  g.op = GraphOp::kPermute;
  g.name = name;
  g.inputs = {viewed};
  g.output = out;
  g.perm = perm;
  add_node(im, std::move(g));
  return out;
}

// The reduced permutation r of `in` (its axes `order` of r.dims, now in input order) carried
// out by permutes of 4-D views, each moving the first misplaced axis to its place.
std::string permute_steps(Importer& im, const std::string& name, std::string in,
                          const ReducedPermutation& r) {
  std::vector<int> order(r.dims.size());
  std::iota(order.begin(), order.end(), 0);
  for (int step = 0; order != r.perm; ++step) {
    size_t i = 0;
    while (order[i] == r.perm[i]) {
      ++i;
    }
    const size_t j = size_t(std::find(order.begin(), order.end(), r.perm[i]) - order.begin());
    std::vector<int> cur;
    for (int a : order) {
      cur.push_back(r.dims[size_t(a)]);
    }
    const std::vector<int> dims{int(product(cur, 0, i)), int(product(cur, i, j)), cur[j],
                                int(product(cur, j + 1, cur.size()))};
    in = permute_4d(im, fmt::format("{}/step{}", name, step), in, dims, {0, 2, 1, 3},
                    fmt::format("{}/step{}", name, step));
    const int moved = order[j];
    order.erase(order.begin() + long(j));
    order.insert(order.begin() + long(i), moved);
  }
  return in;
}

// Transpose of a 5-D or 6-D value.
void transpose_high_rank(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  std::vector<int64_t> perm(s.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (const auto* a = find_attr(n, "perm")) {
    perm.assign(a->ints().begin(), a->ints().end());
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t a = 0; a < sorted.size(); ++a) {
    if (sorted.size() != s.size() || sorted[a] != int64_t(a)) {
      im.fail(n, fmt::format("perm [{}] is not a permutation of {} axes", fmt::join(perm, ", "),
                             s.size()));
    }
  }
  std::vector<int> out;
  for (int64_t p : perm) {
    out.push_back(s[size_t(p)]);
  }
  const ReducedPermutation r = reduce_permutation(s, perm);
  std::string moved = im.resolve(n.input(0));
  const std::string name = node_name(n);
  if (r.dims.size() > 1 && r.dims.size() <= 4) {  // one permute
    std::vector<int> dims(4 - r.dims.size(), 1), p(4 - r.dims.size());
    std::iota(p.begin(), p.end(), 0);
    dims.insert(dims.end(), r.dims.begin(), r.dims.end());
    for (int a : r.perm) {
      p.push_back(a + int(4 - r.dims.size()));
    }
    moved = permute_4d(im, name + "/permute", moved, dims, p, n.output(0) + "/permuted");
  } else if (r.dims.size() > 4) {
    moved = permute_steps(im, name, moved, r);
  }
  add_view(im, name, moved, n.output(0), nchw_view(out, "a Transpose's output"), out);
}

// Where the axes after `axis` of `s` split into the H and W of a view, each at most a view's
// 65535: all of them in H when they fit (W 1), else the first split that fits (Swin's q / k / v
// at 224x224: 64 windows x 3 heads x 49 tokens x 32 values, [9408, 32]); s.size() when none.
size_t after_split(const std::vector<int>& s, size_t axis) {
  constexpr int64_t kMaxViewDim = 65535;
  for (size_t k = s.size() + 1; k-- > axis + 1;) {
    if (product(s, axis + 1, k) <= kMaxViewDim && product(s, k, s.size()) <= kMaxViewDim) {
      return k;
    }
  }
  return s.size();
}

// Gather of one index along any axis: a box of the channels of the view [before, axis, H, W]
// (the axes after it: after_split), viewed as the output (the axis removed for a scalar index,
// kept of size 1 for one of shape [1]).
void gather_one(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  auto index = im.int_constants.find(n.input_size() == 2 ? n.input(1) : "");
  int64_t axis = attr_int(im, n, "axis", 0, -int64_t(s.size()), int64_t(s.size()) - 1);
  normalize_axis(axis, s.size());
  if (index == im.int_constants.end() || index->second.size() != 1) {
    im.fail(n, "only a Gather of one constant index is supported");
  }
  int64_t i = index->second[0];
  if (!normalize_axis(i, size_t(s[size_t(axis)]))) {
    im.fail(n, fmt::format("index {} is outside the {} values of axis {}", index->second[0],
                           s[size_t(axis)], axis));
  }
  const std::string name = node_name(n);
  const int before = int(product(s, 0, size_t(axis)));
  const size_t split = after_split(s, size_t(axis));
  const int h = int(product(s, size_t(axis) + 1, split)), w = int(product(s, split, s.size()));
  const std::vector<int> rows{before, s[size_t(axis)], h, w};
  GraphNode g;
  g.op = GraphOp::kSlice;
  g.name = name + "/index";
  g.inputs = {
      add_view(im, name + "/rows", im.resolve(n.input(0)), n.output(0) + "/rows", rows, rows)};
  g.output = n.output(0) + "/index";
  g.slice_begin = {int(i), 0, 0}, g.slice_end = {int(i) + 1, h, w};
  const std::vector<int> box{before, 1, h, w};
  add_node(im, g, box);
  std::vector<int> out = s;
  if (im.int_scalars.count(n.input(1))) {
    out.erase(out.begin() + axis);
  } else {
    out[size_t(axis)] = 1;
  }
  add_view(im, name, g.output, n.output(0), nchw_view(out, "a Gather's output"), out);
}

// A Linear (MatMul with a constant matrix) over the last axis of a 4-D to 6-D value: a dense
// layer of its rows, viewed back.
void linear_of_rows(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> s = im.shape_of(n, n.input(0));
  const std::string name = node_name(n);
  GraphNode g = dense_node(im, n, false);
  const int rows = int(product(s, 0, s.size() - 1));
  g.name = name + "/rows";
  g.inputs = {add_view(im, name + "/flat", im.resolve(n.input(0)), n.output(0) + "/flat",
                       {rows, s.back(), 1, 1}, {rows, s.back()})};
  g.output = n.output(0) + "/rows";
  const int units = g.weight.dims[0];
  add_node(im, std::move(g), std::vector<int>{rows, units});
  std::vector<int> out = s;
  out.back() = units;
  add_view(im, name, n.output(0) + "/rows", n.output(0), nchw_view(out, "a MatMul's output"), out);
}

// A view of `in` (model shape s) as [before, axis, after, 1] around axis `axis`.
std::vector<int> around_axis(const std::vector<int>& s, size_t axis) {
  return {int(product(s, 0, axis)), s[axis], int(product(s, axis + 1, s.size())), 1};
}

// Concat of activations along an axis other than the channels of a 4-D value: each viewed as
// [before, axis, after, 1], joined along the view's channels (Swin's patch merging joins its
// four pixel phases along the last axis).
void concat_any_axis(Importer& im, const onnx::NodeProto& n, size_t axis) {
  const std::string name = node_name(n);
  GraphNode g;
  g.op = GraphOp::kConcat;
  g.name = name + "/join";
  g.output = n.output(0) + "/join";
  std::vector<int> out = im.shape_of(n, n.input(0));
  out[axis] = 0;
  for (int i = 0; i < n.input_size(); ++i) {
    const std::vector<int> s = im.shape_of(n, n.input(i));
    const std::vector<int> v = around_axis(s, axis);
    g.inputs.push_back(add_view(im, fmt::format("{}/part{}", name, i), im.resolve(n.input(i)),
                                fmt::format("{}/part{}", n.output(0), i), v, v));
    out[axis] += s[axis];
  }
  std::vector<int> joined = around_axis(out, axis);
  add_node(im, std::move(g), joined);
  if (!im.dims.count(n.output(0) + "/join")) {
    im.fail(n, fmt::format("the inputs do not join along axis {}", axis));
  }
  add_view(im, name, n.output(0) + "/join", n.output(0), nchw_view(out, "a Concat's output"), out);
}

// One axis of a Slice: start, step (> 0) and count along axis `axis`.
struct StridedAxis {
  size_t axis = 0;
  SliceRange r;
};

// Slice with steps: per axis, the input viewed as [before, axis / step, step, after] (zeros
// added past the end when the step does not divide it) and a box of the view taken (Swin's
// patch merging takes x[:, 0::2, 1::2, :] and the other phases).
void strided_slice(Importer& im, const onnx::NodeProto& n, const std::vector<StridedAxis>& axes) {
  std::vector<int> s = im.shape_of(n, n.input(0));
  std::string at = im.resolve(n.input(0));
  const std::string name = node_name(n);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t a = axes[k].axis;
    const SliceRange& r = axes[k].r;
    const int step = int(r.step), blocks = (s[a] + step - 1) / step;
    const int before = int(product(s, 0, a)), after = int(product(s, a + 1, s.size()));
    const std::string tag = fmt::format("{}/axis{}", name, a);
    const std::vector<int> v{before, s[a], after, 1};
    GraphNode g;
    g.op = GraphOp::kSlice;
    g.name = tag;
    // [before, blocks, step, after]: first the axis padded to whole blocks (a box past its end).
    const std::string rows = add_view(im, tag + "/rows", at, tag + "/rows", v, v);
    std::string blocked = rows;
    if (blocks * step != s[a]) {
      GraphNode p;
      p.op = GraphOp::kSlice;
      p.name = tag + "/pad";
      p.inputs = {rows};
      p.output = tag + "/pad";
      p.slice_begin = {0, 0, 0}, p.slice_end = {blocks * step, after, 1};
      add_node(im, std::move(p));
      blocked = tag + "/pad";
    }
    const std::vector<int> split{before, int(blocks), step, after};
    g.inputs = {add_view(im, tag + "/blocks", blocked, tag + "/blocks", split, split)};
    g.output = tag;
    const int first = int(r.start / step), phase = int(r.start % step);
    g.slice_begin = {first, phase, 0}, g.slice_end = {first + int(r.count), phase + 1, after};
    add_node(im, std::move(g), std::vector<int>{before, int(r.count), 1, after});
    s[a] = int(r.count);
    at = tag;
  }
  add_view(im, name, at, n.output(0), nchw_view(s, "a Slice's output"), s);
}

// A Slice with a step other than 1: the axes it slices (the others whole); false for a Slice
// of steps 1 (onnx_layout_import.cc's box).
bool slice_with_steps(Importer& im, const onnx::NodeProto& n) {
  auto constant = [&](int i) -> const std::vector<int64_t>* {
    auto it = im.int_constants.find(n.input_size() > i ? n.input(i) : "");
    return it == im.int_constants.end() ? nullptr : &it->second;
  };
  const std::vector<int64_t>*starts = constant(1), *ends = constant(2), *axes = constant(3),
        *steps = constant(4);
  if (!starts || !ends || !axes || !steps || steps->size() != starts->size() ||
      axes->size() != starts->size() || ends->size() != starts->size() ||
      std::all_of(steps->begin(), steps->end(), [](int64_t x) { return x == 1; })) {
    return false;
  }
  const std::vector<int> s = im.shape_of(n, n.input(0));
  std::vector<StridedAxis> sliced;
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i];
    if (!normalize_axis(a, s.size()) || (*steps)[i] < 1 || (*steps)[i] > s[size_t(a)]) {
      im.fail(n, fmt::format("axis {} with step {}: only steps from 1 to the axis' size along "
                             "an axis of the value are supported",
                             (*axes)[i], (*steps)[i]));
    }
    const SliceRange r = slice_range(s[size_t(a)], (*starts)[i], (*ends)[i], (*steps)[i]);
    if (r.count < 1) {
      im.fail(n, fmt::format("takes nothing of axis {}", a));
    }
    sliced.push_back({size_t(a), r});
  }
  strided_slice(im, n, sliced);
  return true;
}

bool is_activation(const Importer& im, const onnx::NodeProto& n, int i) {
  return n.input_size() > i && !n.input(i).empty() && !im.constants.count(n.input(i)) &&
         !im.int_constants.count(n.input(i));
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
  const std::vector<int> four{r > 3 ? int(product(s, 0, r - 3)) : 1, r > 2 ? s[r - 3] : 1, s[r - 2],
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

int activation_rank(const Importer& im, const onnx::NodeProto& n, int i) {
  return n.input_size() > i && !n.input(i).empty() && !im.constants.count(n.input(i)) &&
                 !im.int_constants.count(n.input(i))
             ? int(im.shape_of(n, n.input(i)).size())
             : 0;
}

// Concat of activations only, along an axis other than a 4-D value's channels; false for the
// others (onnx_import.cc's Concat of channels, sequence_3d_import.cc's with constants).
bool concat_of_activations(Importer& im, const onnx::NodeProto& n, int rank) {
  for (int i = 0; i < n.input_size(); ++i) {
    if (activation_rank(im, n, i) != rank) {
      return false;
    }
  }
  int64_t axis = attr_int(im, n, "axis", 1, -rank, rank - 1);
  normalize_axis(axis, size_t(rank));
  if (rank == 4 && axis == 1) {
    return false;
  }
  concat_any_axis(im, n, size_t(axis));
  return true;
}

}  // namespace

bool import_high_rank_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  const int rank = activation_rank(im, n, 0);
  if (n.input_size() > 0 && im.views.count(im.resolve(n.input(0)))) {
    return false;  // a channel view (onnx_layout_import.cc)
  }
  if (t == "Einsum") {
    einsum_node(im, n);
  } else if (t == "Transpose" && rank >= 5) {
    transpose_high_rank(im, n);
  } else if (t == "Gather" && rank >= 2 && !(rank == 3 && attr_int(im, n, "axis", 0, -3, 2) == 1)) {
    gather_one(im, n);
  } else if (t == "MatMul" && rank >= 4 && n.input_size() == 2 && im.constants.count(n.input(1)) &&
             im.constants.at(n.input(1)).dims.size() == 2 &&
             im.constants.at(n.input(1)).dims[0] == im.shape_of(n, n.input(0)).back()) {
    linear_of_rows(im, n);
  } else if (t == "Slice" && rank >= 2) {
    return slice_with_steps(im, n);
  } else if (t == "Concat" && rank >= 2) {
    return concat_of_activations(im, n, rank);
  } else {
    return false;
  }
  return true;
}

}  // namespace vta::compiler::onnx_in

#endif
