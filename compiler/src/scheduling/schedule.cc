#include "vta/compiler/scheduling/schedule.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/compiler/reports/json_file.h"
#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta::compiler {

namespace {
constexpr int kMaxThreads = 4;
constexpr uint32_t kMaxDmaField = 65535;  // x_size / y_size / x_stride are 16-bit
}  // namespace

ConvSchedule ConvSchedule::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) {
    throw Error(source + ": a schedule must be a JSON object");
  }
  ConvSchedule s;
  bool seen[5] = {};
  auto what = [&](const std::string& key) {
    return fmt::format("{}: schedule key '{}'", source, key);
  };
  for_each_json_key(j, source, "schedule", [&](const std::string& key, const nlohmann::json& v) {
    if (key == "tile_h") {
      s.tile_h = json_int32(v, what(key)), seen[0] = true;
    } else if (key == "tile_w") {
      s.tile_w = json_int32(v, what(key)), seen[1] = true;
    } else if (key == "tile_oc_blocks") {
      s.tile_oc_blocks = json_int32(v, what(key)), seen[2] = true;
    } else if (key == "tile_ic_blocks") {
      s.tile_ic_blocks = json_int32(v, what(key)), seen[3] = true;
    } else if (key == "threads") {
      s.threads = json_int32(v, what(key)), seen[4] = true;
    } else if (key == "fold_rows") {
      s.fold_rows = json_int32(v, what(key));
      if (s.fold_rows < 0) {
        throw Error(fmt::format("{}: fold_rows must be >= 0 (got {})", source, s.fold_rows));
      }
    } else if (key == "epilogue") {
      s.epilogue = Epilogue::from_json(v, source);
    } else if (key == "comment" || key == "layer") {
      // informational
    } else {
      throw Error(
          fmt::format("{}: unknown schedule key '{}' (known: tile_h, tile_w, "
                      "tile_oc_blocks, tile_ic_blocks, threads, fold_rows, epilogue, comment)",
                      source, key));
    }
  });
  const char* names[] = {"tile_h", "tile_w", "tile_oc_blocks", "tile_ic_blocks", "threads"};
  for (int i = 0; i < 5; ++i) {
    if (!seen[i]) {
      throw Error(fmt::format("{}: schedule key '{}' is missing", source, names[i]));
    }
  }
  return s;
}

ConvSchedule ConvSchedule::from_file(const std::string& path) {
  return from_json(read_json_file(path, "schedule"), path);
}

nlohmann::json ConvSchedule::to_json() const {
  nlohmann::json j;
  j["tile_h"] = tile_h;
  j["tile_w"] = tile_w;
  j["tile_oc_blocks"] = tile_oc_blocks;
  j["tile_ic_blocks"] = tile_ic_blocks;
  j["threads"] = threads;
  if (fold_rows) {
    j["fold_rows"] = fold_rows;
  }
  if (epilogue) {
    j["epilogue"] = epilogue->to_json();
  }
  return j;
}

std::string ConvSchedule::describe() const {
  return fmt::format("h{} w{} oc{} ic{} vt{}{}", tile_h, tile_w, tile_oc_blocks, tile_ic_blocks,
                     threads, fold_rows ? fmt::format(" fold{}", fold_rows) : "");
}

bool ConvSchedule::operator==(const ConvSchedule& o) const {
  return std::tie(tile_h, tile_w, tile_oc_blocks, tile_ic_blocks, threads, fold_rows) ==
         std::tie(o.tile_h, o.tile_w, o.tile_oc_blocks, o.tile_ic_blocks, o.threads, o.fold_rows);
}

BlockedConv BlockedConv::make(const Conv2dParams& p, const HwConfig& cfg) {
  p.validate();
  BlockedConv g;
  g.p = p;
  g.batch = cfg.batch;
  g.block_in = cfg.block_in;
  g.block_out = cfg.block_out;
  g.nb = ceil_div(p.n, cfg.batch);
  g.icb = ceil_div(p.c, cfg.block_in);
  g.ocb = ceil_div(p.k, cfg.block_out);
  g.oh = p.out_h();
  g.ow = p.out_w();
  return g;
}

uint64_t BlockedConv::gemm_uop_count() const {
  return uint64_t(nb) * ocb * oh * ow * icb * p.kh * p.kw;
}

bool residual_initialises_acc(const BlockedConv& g, const Epilogue& e) {
  if (!e.residual || e.bias || e.per_channel() || e.residual_shift) {
    // A per-channel shift would need a per-channel shift left first; a residual shift rounds
    // the residual alone.
    return false;
  }
  const double max_sum = 16384.0 * g.icb * g.block_in * g.p.kh * g.p.kw;  // 2^14 per product
  return max_sum + std::ldexp(1.0, 7 + e.shift) < std::ldexp(1.0, 31);
}

bool TileShape::operator<(const TileShape& o) const {
  return std::tie(to, ti, th, tw) < std::tie(o.to, o.ti, o.th, o.tw);
}

int window_row_step(const Conv2dParams& p) {
  // The DRAM row pitch stride x W must fit the 16-bit x_stride; a wider one keeps every row.
  const bool skips = p.kh == 1 && p.stride_h > 1;
  return skips && uint64_t(p.stride_h) * uint64_t(p.w) <= kMaxDmaField ? p.stride_h : 1;
}

int window_rows(const Conv2dParams& p, int th) {
  return window_row_step(p) > 1 ? th : (th - 1) * p.stride_h + p.kh;
}

TileShape TilePlan::shape(int th, int tw, int to, int ti) const {
  TileShape t;
  t.th = th;
  t.tw = tw;
  t.to = to;
  t.ti = ti;
  t.ih = window_rows(g.p, th);
  t.row_step = window_row_step(g.p);
  t.iw = (tw - 1) * g.p.stride_w + g.p.kw;
  return t;
}

namespace {

// The checks of TilePlan::make. Each throws vta::Error naming the violated limit; make()
// prefixes the schedule, layer and config.

void check_tile_ranges(const BlockedConv& g, const ConvSchedule& s) {
  auto check_range = [&](const char* key, int v, int hi, const char* limit) {
    if (v < 1) {
      throw Error(fmt::format("{} must be >= 1 (got {})", key, v));
    }
    if (v > hi) {
      throw Error(fmt::format("{} = {} exceeds {} ({})", key, v, limit, hi));
    }
  };
  check_range("tile_h", s.tile_h, g.oh, "the output height");
  check_range("tile_w", s.tile_w, g.ow, "the output width");
  check_range("tile_oc_blocks", s.tile_oc_blocks, g.ocb, "the output-channel blocks");
  check_range("tile_ic_blocks", s.tile_ic_blocks, g.icb, "the input-channel blocks");
  check_range("threads", s.threads, kMaxThreads, "the supported virtual threads");
}

// The full tile's input window, weights and accumulators against one thread's SRAM slots.
void check_sram_fit(const TilePlan& plan, const HwConfig& cfg) {
  const TileShape t = plan.full_shape();
  const Conv2dParams& p = plan.g.p;
  const Epilogue& e = plan.e;
  const int vt = plan.s.threads;
  const uint64_t inp_need = uint64_t(t.ti) * t.ih * t.iw;
  if (inp_need > plan.inp_slot) {
    throw Error(fmt::format(
        "input tile needs {} INP buffer entries (ic_blocks {} x {} rows x {} cols) "
        "but each of the {} virtual threads gets {} (input buffer depth {}, "
        "LOG_INP_BUFF_SIZE {})",
        inp_need, t.ti, t.ih, t.iw, vt, plan.inp_slot, cfg.inp_buff_depth, cfg.log_inp_buff_size));
  }
  const uint64_t wgt_need = uint64_t(t.to) * t.ti * p.kh * p.kw;
  if (wgt_need > plan.wgt_slot) {
    throw Error(
        fmt::format("weight tile needs {} WGT buffer entries (oc_blocks {} x ic_blocks {} x "
                    "{}x{} kernel) but each of the {} virtual threads gets {} (weight buffer "
                    "depth {}, LOG_WGT_BUFF_SIZE {})",
                    wgt_need, t.to, t.ti, p.kh, p.kw, vt, plan.wgt_slot, cfg.wgt_buff_depth,
                    cfg.log_wgt_buff_size));
  }
  const uint64_t out_elems = uint64_t(t.to) * t.th * t.tw;
  const bool res_region = e.second_region(plan.residual_init);
  const uint64_t acc_need = out_elems * (res_region ? 2 : 1) + acc_channel_rows(e) * t.to;
  if (acc_need > plan.acc_slot) {
    throw Error(
        fmt::format("accumulator tile needs {} ACC buffer entries (oc_blocks {} x {} rows x {} "
                    "cols{}{}{}) but each of the {} virtual threads gets {} (accumulator buffer "
                    "depth {}, LOG_ACC_BUFF_SIZE {})",
                    acc_need, t.to, t.th, t.tw,
                    res_region ? (e.round ? ", x2 for the rounding" : ", x2 for the residual") : "",
                    e.bias ? ", + bias" : "", e.per_channel() ? ", + shifts" : "", vt,
                    plan.acc_slot, cfg.acc_buff_depth, cfg.log_acc_buff_size));
  }
}

// DMA field limits (16-bit sizes and strides).
void check_dma_fields(const TilePlan& plan) {
  const BlockedConv& g = plan.g;
  auto dma = [&](const char* what, uint64_t v) {
    if (v > kMaxDmaField) {
      throw Error(
          fmt::format("{} = {} exceeds the 16-bit DMA field (max {})", what, v, kMaxDmaField));
    }
  };
  dma("input row stride (W x row step)", uint64_t(g.p.w) * window_row_step(g.p));
  dma("output row stride (OW)", uint64_t(g.ow));
  dma("weight row stride (ic blocks x KH x KW)", uint64_t(g.icb) * g.p.kh * g.p.kw);
  dma("input rows per load", uint64_t(plan.full_shape().ih));
}

// The step kernel of a full tile must fit the uop buffer next to the epilogue kernels.
void check_uop_budget(const TilePlan& plan, const HwConfig& cfg) {
  const Epilogue& e = plan.e;
  const uint32_t alu_kernels = 2 + uint32_t(acc_channel_rows(e)) + (e.residual ? 1 : 0) + 3 +
                               uint32_t(e.round_imm_ops() + e.round_vec_ops()) +
                               uint32_t(e.residual_shift_imm_ops());
  if (cfg.uop_buff_depth <= alu_kernels) {
    throw Error(fmt::format("uop buffer of {} entries is too small", cfg.uop_buff_depth));
  }
  (void)make_gemm_step(plan, plan.full_shape(), 0, 0, 0, cfg.uop_buff_depth - alu_kernels);
}

}  // namespace

TilePlan::WeightSlot TilePlan::weight_slot(int nb, int ot, int chunk, uint64_t step) const {
  const int64_t T = s.threads;
  if (ic_chunks > T) {
    return {int64_t(step), uint32_t(int64_t(step) % T)};
  }
  // One oc tile: the same weights for every batch block, so they stay across them.
  const int64_t pass = oc_tiles == 1 ? 0 : int64_t(nb) * oc_tiles + ot;
  const int64_t tag = pass * ic_chunks + chunk;
  return {tag, uint32_t(tag % T)};
}

uint64_t TilePlan::weight_loads() const {
  if (ic_chunks > s.threads) {
    return steps();
  }
  return (oc_tiles == 1 ? 1 : uint64_t(g.nb) * oc_tiles) * uint64_t(ic_chunks);
}

namespace {

// True when the plan's loads take at least twice its GEMMs: bus beats of every input window and
// weight load against GEMM micro-ops (kShortLoadBeats).
bool load_heavy(const TilePlan& plan, const HwConfig& cfg) {
  const TileShape t = plan.full_shape();
  const double inp = double(plan.steps()) * t.ti * t.ih * t.iw * cfg.inp_elem_bytes;
  const double wgt =
      double(plan.weight_loads()) * t.to * t.ti * plan.g.p.kh * plan.g.p.kw * cfg.wgt_elem_bytes;
  return (inp + wgt) / cfg.bus_bytes >= 2.0 * double(plan.g.gemm_uop_count());
}

}  // namespace

TilePlan::WeightParts TilePlan::weight_parts(int to, int positions, int ti,
                                             const HwConfig& cfg) const {
  const int kh = g.p.kh;
  if (positions < 3) {
    return {to, kh};
  }
  const uint64_t row_bytes = uint64_t(g.p.kw) * uint64_t(cfg.wgt_elem_bytes);
  const uint64_t block_bytes = uint64_t(ti) * uint64_t(kh) * row_bytes;
  const uint64_t part_bytes = uint64_t(max_load_beats) * uint64_t(cfg.bus_bytes);
  if (block_bytes >= 2 * part_bytes && ti == 1) {
    // Kernel rows of one block are contiguous in DRAM and SRAM only with one input block. A
    // block of less than two parts stays whole (on a 64-bit bus, 9 KiB blocks cut in 6 + 3
    // KiB cost 0.5 % of the network).
    return {1, int(std::clamp<uint64_t>(part_bytes / row_bytes, 1, uint64_t(kh)))};
  }
  return {int(std::clamp<uint64_t>((part_bytes + block_bytes - 1) / block_bytes, 1, uint64_t(to))),
          kh};
}

TilePlan TilePlan::make(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                        const HwConfig& cfg) {
  e.validate();
  TilePlan plan;
  plan.g = BlockedConv::make(p, cfg);
  plan.s = s;
  plan.e = e;
  const BlockedConv& g = plan.g;
  try {
    if (s.fold_rows) {
      plan.g = BlockedConv::make(folded_params(p, s.fold_rows), cfg);
    }
    check_tile_ranges(g, s);
    plan.residual_init = residual_initialises_acc(g, e);
    const uint32_t vt = uint32_t(s.threads);
    plan.inp_slot = cfg.inp_buff_depth / vt;
    plan.wgt_slot = cfg.wgt_buff_depth / vt;
    plan.acc_slot = cfg.acc_buff_depth / vt;
    check_sram_fit(plan, cfg);
    // Accumulator slot layout: outputs, then the residual (or the rounding's scratch), then the
    // bias, then the shifts.
    const TileShape t = plan.full_shape();
    const uint64_t out_elems = uint64_t(t.to) * t.th * t.tw;
    plan.acc_out_off = 0;
    plan.acc_res_off = uint32_t(out_elems);
    plan.acc_bias_off = uint32_t(out_elems * (e.second_region(plan.residual_init) ? 2 : 1));
    plan.acc_shift_off = plan.acc_bias_off + (e.bias ? uint32_t(t.to) : 0);
    check_dma_fields(plan);
    plan.h_tiles = ceil_div(g.oh, s.tile_h);
    plan.w_tiles = ceil_div(g.ow, s.tile_w);
    plan.oc_tiles = ceil_div(g.ocb, s.tile_oc_blocks);
    plan.ic_chunks = ceil_div(g.icb, s.tile_ic_blocks);
    check_uop_budget(plan, cfg);
    plan.max_load_beats = load_heavy(plan, cfg) ? kLongLoadBeats : kShortLoadBeats;
  } catch (const Error& ex) {
    throw ScheduleFitError(fmt::format("schedule {} for {} on config {}: {}", s.describe(),
                                       p.name.empty() ? "conv2d" : p.name, cfg.model_name,
                                       ex.what()));
  }
  return plan;
}

std::string TilePlan::describe(const HwConfig& cfg) const {
  const TileShape t = full_shape();
  const uint64_t out = uint64_t(t.to) * t.th * t.tw;
  std::string kernel;
  try {
    const auto k = make_gemm_step(*this, t, 0, 0, 0, cfg.uop_buff_depth);
    kernel = k.size() == 1 ? k.front().what : fmt::format("{} x {}", k.size(), k.front().what);
  } catch (const Error& err) {
    kernel = err.what();
  }
  return fmt::format(
      "plan: {} tiles ({} batch x {} oc x {} h x {} w), {} step(s) per tile, {} virtual thread(s)\n"
      "      per thread: INP {}/{}{}, WGT {}/{}, ACC {}/{} entries; step kernel: {}\n",
      tiles(), g.nb, oc_tiles, h_tiles, w_tiles, ic_chunks, s.threads, uint64_t(t.ti) * t.ih * t.iw,
      inp_slot, t.row_step > 1 ? fmt::format(" (1 input row in {})", t.row_step) : "",
      uint64_t(t.to) * t.ti * g.p.kh * g.p.kw, wgt_slot,
      out * (e.second_region(residual_init) ? 2 : 1) + acc_channel_rows(e) * uint64_t(t.to),
      acc_slot, kernel);
}

}  // namespace vta::compiler
