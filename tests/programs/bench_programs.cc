#include "bench_programs.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::testprog {

namespace {

struct ConvGeometry {
  uint32_t icb, ocb;  // channel blocks
  uint32_t ph, pw;    // padded plane
  uint32_t plane;     // tiles of one padded input plane
  uint32_t icb_pass;  // input channel blocks per pass (divides icb)
  uint32_t passes;
  uint32_t out_tiles;  // h * w
};

ConvGeometry geometry(const HwConfig& cfg, const ConvSpec& s) {
  ConvGeometry g;
  if (s.ic % cfg.block_in != 0 || s.oc % cfg.block_out != 0) {
    throw Error(fmt::format("conv channels {} -> {} are not multiples of the block {}", s.ic, s.oc,
                            cfg.block_in));
  }
  g.icb = s.ic / cfg.block_in;
  g.ocb = s.oc / cfg.block_out;
  g.ph = s.h + 2;
  g.pw = s.w + 2;
  g.plane = g.ph * g.pw;
  g.out_tiles = s.h * s.w;
  uint32_t fit = std::min(g.icb, cfg.inp_buff_depth / g.plane);
  while (fit > 0 && g.icb % fit != 0) {
    --fit;
  }
  if (fit == 0 || g.out_tiles > cfg.acc_buff_depth || fit * 9 > cfg.wgt_buff_depth ||
      9 * s.w + 1 > cfg.uop_buff_depth) {
    throw Error(fmt::format("conv {}x{} {}->{} does not fit the buffers of config {}", s.h, s.w,
                            s.ic, s.oc, cfg.model_name));
  }
  g.icb_pass = fit;
  g.passes = g.icb / fit;
  return g;
}

}  // namespace

ConvProgram build_conv3x3_program(ProgramBuilder& pb, const ConvSpec& s, std::mt19937& rng) {
  const HwConfig& cfg = pb.cfg();
  const ConvGeometry g = geometry(cfg, s);
  ConvProgram p;
  p.spec = s;
  p.macs = static_cast<uint64_t>(cfg.batch) * s.h * s.w * s.ic * s.oc * 9;
  p.inp = pb.alloc(static_cast<size_t>(g.icb) * s.h * s.w * cfg.inp_elem_bytes);
  p.wgt = pb.alloc(static_cast<size_t>(g.ocb) * g.icb * 9 * cfg.wgt_elem_bytes);
  p.out = pb.alloc(static_cast<size_t>(g.ocb) * g.out_tiles * cfg.out_elem_bytes);
  fill_random_i8(reinterpret_cast<int8_t*>(p.inp.host), p.inp.bytes, -128, 128, rng);
  fill_random_i8(reinterpret_cast<int8_t*>(p.wgt.host), p.wgt.bytes, -128, 128, rng);

  // Uops: (kh, kw) outer, output column inner, so consecutive uops never share a dst.
  std::vector<Uop> uops;
  for (uint32_t kh = 0; kh < 3; ++kh) {
    for (uint32_t kw = 0; kw < 3; ++kw) {
      for (uint32_t ow = 0; ow < s.w; ++ow) {
        uops.push_back(Uop{ow, kh * g.pw + kw + ow, kh * 3 + kw});
      }
    }
  }
  const uint32_t conv_end = static_cast<uint32_t>(uops.size());
  uops.push_back(Uop{0, 0, 0});  // element-wise kernel for reset and the ALU epilogue
  DeviceBuffer ub = pb.alloc_uops(uops);
  pb.push(make_load_1d(kMemUop, 0, ub.phys / 4, static_cast<uint32_t>(uops.size())));

  UopLoop conv;
  conv.uop_bgn = 0;
  conv.uop_end = conv_end;
  conv.iter_out = s.h;  // output rows
  conv.dst_factor_out = s.w;
  conv.src_factor_out = g.pw;
  conv.iter_in = g.icb_pass;  // input channel blocks of this pass
  conv.src_factor_in = g.plane;
  conv.wgt_factor_in = 9;
  UopLoop elementwise;
  elementwise.uop_bgn = conv_end;
  elementwise.uop_end = conv_end + 1;
  elementwise.iter_in = g.out_tiles;
  elementwise.dst_factor_in = 1;
  elementwise.src_factor_in = 1;

  const uint32_t steps = g.ocb * g.passes;
  uint32_t step = 0;
  for (uint32_t ob = 0; ob < g.ocb; ++ob) {
    for (uint32_t pass = 0; pass < g.passes; ++pass, ++step) {
      // Load unit: the padded input planes of this pass (once if they all fit) and the weights.
      const bool load_inp = g.passes > 1 || ob == 0;
      bool first = true;
      if (load_inp) {
        for (uint32_t c = 0; c < g.icb_pass; ++c) {
          const uint32_t icb = pass * g.icb_pass + c;
          pb.push(make_load_store(kOpLoad, kMemInp, c * g.plane,
                                  p.inp.elem(cfg, kMemInp) + icb * s.h * s.w, s.h, s.w, s.w,
                                  Deps{0, first && step > 0, 0, 0}, 1, 1, 1, 1));
          first = false;
        }
      }
      pb.push(make_load_1d(kMemWgt, 0,
                           p.wgt.elem(cfg, kMemWgt) + (ob * g.icb + pass * g.icb_pass) * 9,
                           g.icb_pass * 9, Deps{0, first && step > 0, 0, 1}));
      // Compute unit: reset the accumulators at the first pass (after the previous store).
      if (pass == 0) {
        pb.push(make_gemm(elementwise, true, Deps{0, ob > 0, 0, 0}));
      }
      pb.push(make_gemm(conv, false, Deps{1, 0, step + 1 < steps, 0}));
    }
    // Epilogue: >> 8, clip to [0, 127]; then store the block.
    pb.push(make_alu(kAluShr, elementwise, true, 8));
    pb.push(make_alu(kAluMax, elementwise, true, 0));
    pb.push(make_alu(kAluMin, elementwise, true, 127, Deps{0, 0, 0, 1}));
    pb.push(make_store_1d(0, p.out.elem(cfg, kMemOut) + ob * g.out_tiles, g.out_tiles,
                          Deps{1, 0, 1, 0}));
  }
  pb.push(make_finish(false, true));
  return p;
}

std::vector<int8_t> reference_conv3x3(const HwConfig& cfg, const ConvProgram& p) {
  const ConvSpec& s = p.spec;
  const ConvGeometry g = geometry(cfg, s);
  const int8_t* inp = reinterpret_cast<const int8_t*>(p.inp.host);
  const int8_t* wgt = reinterpret_cast<const int8_t*>(p.wgt.host);
  const uint32_t bin = cfg.block_in, bout = cfg.block_out, batch = cfg.batch;
  std::vector<int8_t> out(static_cast<size_t>(g.ocb) * g.out_tiles * cfg.out_elem_bytes);
  std::vector<int32_t> acc(batch * bout);
  for (uint32_t ob = 0; ob < g.ocb; ++ob) {
    for (uint32_t y = 0; y < s.h; ++y) {
      for (uint32_t x = 0; x < s.w; ++x) {
        std::fill(acc.begin(), acc.end(), 0);
        for (uint32_t ib = 0; ib < g.icb; ++ib) {
          for (uint32_t kh = 0; kh < 3; ++kh) {
            for (uint32_t kw = 0; kw < 3; ++kw) {
              const int iy = static_cast<int>(y + kh) - 1, ix = static_cast<int>(x + kw) - 1;
              if (iy < 0 || ix < 0 || iy >= static_cast<int>(s.h) || ix >= static_cast<int>(s.w)) {
                continue;
              }
              const int8_t* it = inp + ((ib * s.h + iy) * s.w + ix) * cfg.inp_elem_bytes;
              const int8_t* wt = wgt + ((ob * g.icb + ib) * 9 + kh * 3 + kw) * cfg.wgt_elem_bytes;
              for (uint32_t b = 0; b < batch; ++b) {
                for (uint32_t oc = 0; oc < bout; ++oc) {
                  int32_t sum = 0;
                  for (uint32_t k = 0; k < bin; ++k) {
                    sum += it[b * bin + k] * wt[oc * bin + k];
                  }
                  acc[b * bout + oc] += sum;
                }
              }
            }
          }
        }
        int8_t* o = out.data() + (ob * g.out_tiles + y * s.w + x) * cfg.out_elem_bytes;
        for (uint32_t k = 0; k < batch * bout; ++k) {
          o[k] = static_cast<int8_t>(std::clamp(acc[k] >> 8, 0, 127));
        }
      }
    }
  }
  return out;
}

MemoryBoundProgram build_memory_bound_program(ProgramBuilder& pb, uint32_t rounds) {
  const HwConfig& cfg = pb.cfg();
  MemoryBoundProgram m;
  const uint32_t n_inp = cfg.inp_buff_depth, n_wgt = cfg.wgt_buff_depth;
  const uint32_t n_out = std::min(cfg.out_buff_depth, n_inp);
  DeviceBuffer inp = pb.alloc(static_cast<size_t>(n_inp) * cfg.inp_elem_bytes);
  DeviceBuffer wgt = pb.alloc(static_cast<size_t>(n_wgt) * cfg.wgt_elem_bytes);
  DeviceBuffer out = pb.alloc(static_cast<size_t>(n_out) * cfg.out_elem_bytes);
  DeviceBuffer ub = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, ub.phys / 4, 1));
  UopLoop reset;
  reset.iter_in = n_out;
  reset.dst_factor_in = 1;
  for (uint32_t r = 0; r < rounds; ++r) {
    pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), n_inp, Deps{0, r > 0, 0, 0}));
    pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), n_wgt, Deps{0, 0, 0, 1}));
    pb.push(make_gemm(reset, true, Deps{1, r > 0, r + 1 < rounds, 1}));
    pb.push(make_store_1d(0, out.elem(cfg, kMemOut), n_out, Deps{1, 0, 1, 0}));
    m.bytes_loaded += static_cast<uint64_t>(n_inp) * cfg.inp_elem_bytes +
                      static_cast<uint64_t>(n_wgt) * cfg.wgt_elem_bytes;
    m.bytes_stored += static_cast<uint64_t>(n_out) * cfg.out_elem_bytes;
  }
  pb.push(make_finish(false, true));
  return m;
}

}  // namespace vta::testprog
