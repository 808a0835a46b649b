// maxpool: the maximum over a window (padding never wins), on the host.
#include <algorithm>

#include <fmt/format.h>

#include "ops/op_common.h"

namespace vta::compiler::ops {

namespace {

void write_maxpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_window_json(l, j);
}

TensorShape maxpool_shape(const ShapeContext& ctx) {
  return window_shape(ctx.layer, ctx.in);
}

Placement place_maxpool(const NetworkLayer&) {
  return Placement::kHost;
}

NetworkTensor run_maxpool(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  const NetworkTensor& in = ctx.in;
  const TensorShape s = window_shape(l, TensorShape{in.n, in.c, in.h, in.w});
  NetworkTensor out{in.n, in.c, s.h, s.w, std::vector<int8_t>(size_t(in.n) * in.c * s.h * s.w)};
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    for (int y = 0; y < s.h; ++y) {
      for (int x = 0; x < s.w; ++x) {
        int best = -128;  // padding never wins
        for (int ky = 0; ky < l.kh; ++ky) {
          for (int kx = 0; kx < l.kw; ++kx) {
            int iy = y * l.stride_h - l.pad_top + ky, ix = x * l.stride_w - l.pad_left + kx;
            if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w) {
              best = std::max(best, int(in.data[(size_t(nc) * in.h + iy) * in.w + ix]));
            }
          }
        }
        out.data[(size_t(nc) * s.h + y) * s.w + x] = int8_t(best);
      }
    }
  }
  note = fmt::format("{}: maxpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return out;
}

}  // namespace

const OpDef& maxpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "maxpool";
    d.json_keys = {"name", "op", "input", "kernel", "stride", "pad"};
    d.from_graph_op = GraphOp::kMaxPool;
    d.write_json = write_maxpool;
    d.infer_shape = maxpool_shape;
    d.place = place_maxpool;
    d.attributes = window_attributes;
    d.run_host = run_maxpool;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
