#include "vta/compiler/scheduling/bound.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "vta/sim/isa.h"
#include "vta/sim/memory_model.h"

namespace vta::compiler {

double dram_cycles(double read_bytes, double write_bytes, const HwConfig& cfg) {
  return dram_transfer_rates(cfg).cycles(read_bytes, write_bytes);
}

MemoryTransferRates dram_transfer_rates(const HwConfig& cfg) {
  return memory_model_description_of(cfg).transfer_rates(cfg);
}

double dram_read_latency(const HwConfig& cfg) {
  return memory_model_description_of(cfg).read_latency(cfg);
}

namespace {

// Input rows (or columns) of `size` that some kernel window reads: a stride larger than the
// kernel skips some.
uint64_t touched(int size, int kernel, int stride, int pad_before, int out) {
  uint64_t n = 0;
  for (int y = 0; y < size; ++y) {
    const int from = y + pad_before;  // position in the padded input
    const int last_start = std::min(from / stride, out - 1) * stride;
    n += (from - last_start < kernel && last_start <= from) ? 1 : 0;
  }
  return n;
}

}  // namespace

MinimumBytes minimum_bytes(const BlockedConv& g, const Epilogue& e, const HwConfig& cfg) {
  const Conv2dParams& p = g.p;
  const uint64_t out_elems = uint64_t(g.nb) * g.ocb * g.oh * g.ow;
  const uint64_t rows = touched(p.h, p.kh, p.stride_h, p.pad_top, g.oh);
  const uint64_t cols = touched(p.w, p.kw, p.stride_w, p.pad_left, g.ow);
  MinimumBytes b;
  // The bias and the per-channel shifts: one ACC row per output-channel block each.
  const uint64_t bias = acc_channel_rows(e) * uint64_t(g.ocb);
  const uint64_t residual = e.residual ? out_elems : 0;
  b.acc_counted = (bias + residual) * uint64_t(cfg.acc_elem_bytes);
  b.acc_moved = bias * uint64_t(cfg.acc_elem_bytes) + residual * uint64_t(cfg.elem_bytes(kMemAcc8));
  b.read = uint64_t(g.nb) * g.icb * rows * cols * uint64_t(cfg.inp_elem_bytes) +
           uint64_t(g.ocb) * g.icb * g.p.kh * g.p.kw * uint64_t(cfg.wgt_elem_bytes) + b.acc_counted;
  b.write = out_elems * uint64_t(cfg.out_elem_bytes);
  return b;
}

uint64_t epilogue_alu_cycles(const Epilogue& e, uint64_t acc_elems, bool residual_init) {
  // A residual that initialises the accumulator needs one shift left (none without a shift).
  const bool res_shift = residual_init && e.shift;
  const uint64_t imm_ops = (e.shift ? 1 : 0) + (e.lower_bound() ? 1 : 0) + (e.clip_hi ? 1 : 0) +
                           (res_shift ? 1 : 0) + uint64_t(e.round_imm_ops()) +
                           uint64_t(e.residual_shift_imm_ops());
  const uint64_t vec_ops =
      acc_channel_rows(e) + (e.residual && !residual_init ? 1 : 0) + uint64_t(e.round_vec_ops());
  return acc_elems * (imm_ops + 2 * vec_ops);
}

LayerBound layer_bound(const BlockedConv& g, const Epilogue& e, const MinimumBytes& bytes,
                       const HwConfig& cfg) {
  LayerBound b;
  b.gemm_cycles = g.gemm_uop_count();
  b.alu_cycles =
      epilogue_alu_cycles(e, uint64_t(g.nb) * g.ocb * g.oh * g.ow, residual_initialises_acc(g, e));
  // LOAD ACC (bias) and ACC_8BIT (residual) run on the compute unit: no GEMM meanwhile.
  b.acc_load_cycles = uint64_t(std::ceil(dram_cycles(double(bytes.acc_moved), 0, cfg)));
  b.compute_cycles = b.gemm_cycles + b.alu_cycles + b.acc_load_cycles;
  b.bytes = bytes;
  b.memory_cycles = std::ceil(dram_cycles(double(bytes.dram_read()), double(bytes.write), cfg));
  b.cycles = std::max(double(b.compute_cycles), b.memory_cycles);
  return b;
}

namespace {

Verdict at_bound(const LayerBound& b, const HwConfig& cfg) {
  if (b.memory_binds()) {
    return {"dram_bandwidth",
            fmt::format("DRAM bandwidth: the minimum {} bytes need {:.0f} cycles at {} B/cycle; "
                        "a wider bus or faster DRAM would help, a larger block would not",
                        b.bytes.total(), b.memory_cycles, cfg.bus_bytes)};
  }
  const double alu_share = double(b.alu_cycles) / double(std::max<uint64_t>(1, b.compute_cycles));
  if (alu_share >= 0.3) {
    return {"alu_epilogue",
            fmt::format("ALU epilogue: {:.0f}% of the compute unit's cycles are epilogue ALU ops; "
                        "fewer epilogue ops (or fusing them) would help, a larger block alone not",
                        100 * alu_share)};
  }
  return {"gemm_issue",
          fmt::format("GEMM issue: the compute unit issues one GEMM micro-op per cycle for {} "
                      "micro-ops; only a larger block (or less channel padding) goes faster",
                      b.gemm_cycles)};
}

}  // namespace

Verdict verdict_of(const LayerBound& b, const Stats& s, const HwConfig& cfg) {
  if (!s.timed || !s.cycles) {
    return {"untimed", "no cycles (untimed backend); at its bound: " + at_bound(b, cfg).advice};
  }
  const double cycles = double(s.cycles);
  if (cycles <= kAtBound * b.cycles) {
    return at_bound(b, cfg);
  }
  // A compute unit busy nearly all the time limits the run even above the bound: resets and
  // instruction overheads are work the bound leaves out.
  const NamedCounter* busy = s.find("compute.busy_cycles");
  if (busy && busy->value >= 0.9 * cycles) {
    const double alu = double(s.alu_counter) / std::max(1.0, busy->value);
    const double extra = busy->value - double(b.compute_cycles);
    return {alu >= 0.3 ? "alu_epilogue" : "gemm_issue",
            fmt::format("{}: the compute unit is busy {:.0f}% of the cycles; {:.0f} of its "
                        "cycles go beyond the bound (accumulator resets, instruction overhead): "
                        "larger tiles need fewer instructions{}",
                        alu >= 0.3 ? "ALU epilogue" : "GEMM issue", 100 * busy->value / cycles,
                        extra, alu >= 0.3 ? ", fewer epilogue ops fewer ALU cycles" : "")};
  }
  const double read =
      double(s.inp_load_nbytes + s.wgt_load_nbytes + s.acc_load_nbytes + s.uop_load_nbytes);
  const double moved_cycles = dram_cycles(read, double(s.out_store_nbytes), cfg);
  const double over =
      (read + double(s.out_store_nbytes)) / double(std::max<uint64_t>(1, b.bytes.total()));
  if (moved_cycles >= double(b.compute_cycles)) {
    return {"dram_bandwidth",
            fmt::format("DRAM bandwidth: the bytes moved ({:.2f}x the minimum) need {:.0f} "
                        "cycles, more than the compute bound {}; a schedule with more reuse "
                        "(larger tiles) or a wider bus would help",
                        over, moved_cycles, b.compute_cycles)};
  }
  return {"dram_latency",
          fmt::format("DRAM latency / dependencies: {:.2f}x the bound while the bytes moved "
                      "need only {:.0f} cycles; the units wait on DRAM latency and on each "
                      "other (more virtual threads or larger tiles would hide it)",
                      cycles / b.cycles, moved_cycles)};
}

}  // namespace vta::compiler
