// permute: the axes of an int8 NCHW value reordered, output axis i being input axis perm[i] (a
// Transpose of a 4-D value: attention's heads to the front and back, K's rows and columns
// swapped). On the host; exact (a copy).
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& permute_attrs() {
  static const std::vector<AttrSpec> specs{{"perm0", 0, true, 0, 3},
                                           {"perm1", 1, true, 0, 3},
                                           {"perm2", 2, true, 0, 3},
                                           {"perm3", 3, true, 0, 3}};
  return specs;
}

Permutation perm_of(const NetworkLayer& l) {
  Permutation p{};
  for (size_t i = 0; i < 4; ++i) {
    p[i] = int(attr_value(l, permute_attrs()[i]));
  }
  return p;
}

void read_permute(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, permute_attrs());
}

void write_permute(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, permute_attrs(), j);
}

TensorShape permute_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, permute_attrs());
  const Permutation p = perm_of(ctx.layer);
  if (std::string e = check_permutation(p); !e.empty()) {
    throw Error(fmt::format("permute layer '{}': {}", ctx.layer.name, e));
  }
  const TensorShape& s = ctx.in;
  const std::vector<int> d = permuted_dims({s.n, s.c, s.h, s.w}, p);
  return TensorShape{d[0], d[1], d[2], d[3]};
}

Placement place_permute(const NetworkLayer&) {
  return Placement::kHost;
}

std::string permute_attributes(const NetworkLayer& l) {
  const Permutation p = perm_of(l);
  return fmt::format("perm=({},{},{},{})", p[0], p[1], p[2], p[3]);
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_permute(const Ctx& ctx, std::string& note) {
  const TensorOf<Ctx>& in = ctx.in;
  const Permutation p = perm_of(ctx.layer);
  const std::vector<int> dims{in.n, in.c, in.h, in.w};
  const std::vector<int> d = permuted_dims(dims, p);
  note = fmt::format("{}: permute {}x{}x{}x{} to {}x{}x{}x{} on host", ctx.layer.name, in.n, in.c,
                     in.h, in.w, d[0], d[1], d[2], d[3]);
  TensorOf<Ctx> out{d[0], d[1], d[2], d[3], {}};
  out.data.reserve(in.data.size());
  for (size_t i : permutation_sources(dims, p)) {
    out.data.push_back(in.data[i]);
  }
  return out;
}

}  // namespace

const OpDef& permute_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "permute";
    d.json_keys = {"name", "op", "input", "perm0", "perm1", "perm2", "perm3"};
    d.from_graph_op = GraphOp::kPermute;
    d.read_json = read_permute;
    d.write_json = write_permute;
    d.infer_shape = permute_shape;
    d.place = place_permute;
    d.attributes = permute_attributes;
    d.run_host = run_permute<OpContext>;
    d.run_host_wide = run_permute<WideOpContext>;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
