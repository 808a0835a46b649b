// channel_shuffle: the channels of an NCHW tensor viewed as groups x C/groups and transposed
// (ShuffleNet's Reshape, Transpose, Reshape), on the host: output channel j * groups + i is
// input channel i * C/groups + j. The int8 values are moved, not changed: the output keeps the
// input's scale.
#include <fmt/format.h>

#include "ops/data_movement.h"
#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

void write_channel_shuffle(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["groups"] = l.groups;
}

TensorShape channel_shuffle_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  if (l.groups < 1 || ctx.in.c % l.groups) {
    throw Error(fmt::format("channel_shuffle layer '{}': {} channels do not divide into {} groups",
                            l.name, ctx.in.c, l.groups));
  }
  return ctx.in;
}

Placement place_channel_shuffle(const NetworkLayer&) {
  return Placement::kHost;
}

std::string channel_shuffle_attributes(const NetworkLayer& l) {
  return fmt::format("groups={}", l.groups);
}

NetworkTensor run_channel_shuffle(const OpContext& ctx, std::string& note) {
  const NetworkTensor& in = ctx.in;
  note = fmt::format("{}: channel shuffle of {} groups on host", ctx.layer.name, ctx.layer.groups);
  return NetworkTensor{
      in.n, in.c, in.h, in.w,
      shuffle_channels(in.data, in.n, in.c, size_t(in.h) * size_t(in.w), ctx.layer.groups)};
}

FloatTensor channel_shuffle_float(const NetworkLayer& l,
                                  const std::vector<const FloatTensor*>& in) {
  const std::vector<int>& d = in[0]->dims;
  return FloatTensor{
      d, shuffle_channels(in[0]->data, d[0], d[1], size_t(d[2]) * size_t(d[3]), l.groups)};
}

}  // namespace

const OpDef& channel_shuffle_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "channel_shuffle";
    d.json_keys = {"name", "op", "input", "groups"};
    d.from_graph_op = GraphOp::kChannelShuffle;
    d.write_json = write_channel_shuffle;
    d.infer_shape = channel_shuffle_shape;
    d.place = place_channel_shuffle;
    d.attributes = channel_shuffle_attributes;
    d.run_host = run_channel_shuffle;
    d.float_reference = channel_shuffle_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
