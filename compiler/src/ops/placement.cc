// choose_placement (ops/op_def.h): VTA or the host by the estimated time of each.
#include <fmt/format.h>

#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler {

double vta_host_us(const OpDef& def, const NetworkLayer& l, const TensorShape& in,
                   const HwConfig& cfg) {
  if (!def.vta_host_work) {
    return 0;
  }
  const HostWorkCount w = def.vta_host_work(l, in);
  return host_layer_us(host_cpu_for(cfg.target), w.work, w.ops, w.bytes);
}

PlacementChoice choose_placement(const NetworkLayer& l, const TensorShape& in,
                                 const HwConfig* cfg) {
  const OpDef& def = op_def(l.op);
  PlacementChoice c{def.place ? def.place(l) : Placement::kHost, {}};
  // Compared: an operator the host runs by default that VTA can run too.
  if (!cfg || c.place != Placement::kHost || !def.vta.estimate_cycles || !def.host_work) {
    return c;
  }
  if (const LayerWidths widths = LayerWidths::of(*cfg); !widths.is_int8()) {
    // The ALU programs of these operators saturate to int8 and grouped sets read int8 lanes.
    c.reason = fmt::format("host (VTA's programs of {} are int8 x int8 -> int32; config {} has {})",
                           l.op, cfg->model_name, widths.describe());
    return c;
  }
  const HostWorkCount w = def.host_work(l, in);
  const double host_us = host_layer_us(host_cpu_for(cfg->target), w.work, w.ops, w.bytes);
  uint64_t cycles = 0;
  try {
    cycles = def.vta.estimate_cycles(l, in, *cfg);
  } catch (const Error& ex) {
    c.place = Placement::kHost;
    c.reason = fmt::format("host (no VTA program: {}; host {:.1f} us)", ex.what(), host_us);
    return c;
  }
  const double repack_us = vta_host_us(def, l, in, *cfg);
  const double vta_us = double(cycles) / cfg->clock_mhz + repack_us;
  const bool vta = vta_us < host_us;
  c.place = vta ? Placement::kVta : Placement::kHost;
  c.reason = fmt::format("{} (est {} cy{} = {:.1f} us {} host {:.1f} us)", vta ? "vta" : "host",
                         cycles, repack_us ? fmt::format(" + repack {:.1f} us", repack_us) : "",
                         vta_us, vta ? "<" : ">=", host_us);
  return c;
}

}  // namespace vta::compiler
