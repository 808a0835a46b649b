// slice: a box of an NCHW tensor, its begins and ends (end exclusive, step 1) of C, H and W
// (ONNX Slice, and each output of a Split; ShuffleNet's chunk of the channels in two), on the
// host; a box reaching past the input reads zeros there (ONNX Pad with zeros: Swin's padding to
// whole windows). The int8 values are moved, not changed: the output keeps the input's scale.
#include <fmt/format.h>

#include "ops/data_movement.h"
#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta::compiler::ops {

namespace {

constexpr const char* kAxes[] = {"c", "h", "w"};

std::string key(size_t axis, const char* end) {
  return fmt::format("{}_{}", kAxes[axis], end);
}

SliceBox box_of(const NetworkLayer& l) {
  SliceBox box;
  for (size_t a = 0; a < 3; ++a) {
    auto b = l.attrs.find(key(a, "begin")), e = l.attrs.find(key(a, "end"));
    box.begin[a] = b == l.attrs.end() ? 0 : int(b->second);
    box.end[a] = e == l.attrs.end() ? 0 : int(e->second);
  }
  return box;
}

void read_slice(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  for (const char* end : {"begin", "end"}) {
    const std::string where = fmt::format("{}: slice layer '{}' key '{}'", source, l.name, end);
    if (!j.contains(end) || !j[end].is_array() || j[end].size() != 3) {
      throw Error(where + " must be an array of 3 integers (C, H, W)");
    }
    for (size_t a = 0; a < 3; ++a) {
      l.attrs[key(a, end)] = json_int32(j[end][a], fmt::format("{}[{}]", where, a), -kMaxBoxPad);
    }
  }
}

void write_slice(const NetworkLayer& l, nlohmann::ordered_json& j) {
  const SliceBox box = box_of(l);
  j["begin"] = box.begin, j["end"] = box.end;
}

TensorShape slice_shape(const ShapeContext& ctx) {
  const SliceBox box = box_of(ctx.layer);
  const int size[3] = {ctx.in.c, ctx.in.h, ctx.in.w};
  int out[3] = {};
  for (size_t a = 0; a < 3; ++a) {
    if (!box_fits(box.begin[a], box.end[a], size[a])) {
      throw Error(fmt::format("slice layer '{}': {}={}:{} is empty or outside the input {}",
                              ctx.layer.name, kAxes[a], box.begin[a], box.end[a], ctx.in.str()));
    }
    out[a] = box.end[a] - box.begin[a];
  }
  return TensorShape{ctx.in.n, out[0], out[1], out[2]};
}

Placement place_slice(const NetworkLayer&) {
  return Placement::kHost;
}

std::string slice_attributes(const NetworkLayer& l) {
  const SliceBox b = box_of(l);
  return fmt::format("c={}:{} h={}:{} w={}:{}", b.begin[0], b.end[0], b.begin[1], b.end[1],
                     b.begin[2], b.end[2]);
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_slice(const Ctx& ctx, std::string& note) {
  const TensorOf<Ctx>& in = ctx.in;
  const SliceBox box = box_of(ctx.layer);
  note = fmt::format("{}: slice {} on host", ctx.layer.name, slice_attributes(ctx.layer));
  return TensorOf<Ctx>{in.n, box.end[0] - box.begin[0], box.end[1] - box.begin[1],
                       box.end[2] - box.begin[2], slice_box(in.data, in.n, in.c, in.h, in.w, box)};
}

FloatTensor slice_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  const std::vector<int>& d = in[0]->dims;
  const SliceBox box = box_of(l);
  return FloatTensor{
      {d[0], box.end[0] - box.begin[0], box.end[1] - box.begin[1], box.end[2] - box.begin[2]},
      slice_box(in[0]->data, d[0], d[1], d[2], d[3], box)};
}

}  // namespace

const OpDef& slice_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "slice";
    d.json_keys = {"name", "op", "input", "begin", "end"};
    d.from_graph_op = GraphOp::kSlice;
    d.read_json = read_slice;
    d.write_json = write_slice;
    d.infer_shape = slice_shape;
    d.place = place_slice;
    d.attributes = slice_attributes;
    d.run_host = run_slice<OpContext>;
    d.run_host_wide = run_slice<WideOpContext>;
    d.float_reference = slice_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
