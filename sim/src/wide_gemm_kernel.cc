#include "vta/sim/wide_gemm_kernel.h"

#include "vta/sim/element_lanes.h"
#include "vta/sim/run_progress.h"

namespace vta {

namespace {

// acc[r][oc] += sum_k x[r][k] * w[oc][k] for one uop, modulo 2^32, then wrapped to acc_bits.
void wide_tile(const GemmShape& s, const int32_t* x, const int32_t* w, int32_t* a, int acc_bits) {
  for (int r = 0; r < s.batch; ++r) {
    const int32_t* xr = x + static_cast<size_t>(r) * s.block_in;
    for (int oc = 0; oc < s.block_out; ++oc) {
      const int32_t* wr = w + static_cast<size_t>(oc) * s.block_in;
      uint32_t sum = static_cast<uint32_t>(a[r * s.block_out + oc]);
      for (int k = 0; k < s.block_in; ++k) {
        sum += static_cast<uint32_t>(xr[k]) * static_cast<uint32_t>(wr[k]);
      }
      a[r * s.block_out + oc] = sign_extend_lane(sum, acc_bits);
    }
  }
}

}  // namespace

void wide_gemm(const GemmShape& s, const GemmLoop& l, const WideGemmBuffers& b) {
  const size_t inp_lanes = static_cast<size_t>(s.batch) * s.block_in;
  const size_t wgt_lanes = static_cast<size_t>(s.block_out) * s.block_in;
  const size_t acc_lanes = static_cast<size_t>(s.batch) * s.block_out;
  for (uint32_t io = 0; io < l.iter_out; ++io) {
    for (uint32_t ii = 0; ii < l.iter_in; ++ii) {
      poll_stop(l.n_uops);  // a long loop nest can be stopped
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const Uop& op = l.uops[u];
        const uint32_t d = op.dst_idx + io * l.dst_factor_out + ii * l.dst_factor_in;
        const uint32_t x = op.src_idx + io * l.src_factor_out + ii * l.src_factor_in;
        const uint32_t w = op.wgt_idx + io * l.wgt_factor_out + ii * l.wgt_factor_in;
        wide_tile(s, b.inp + x * inp_lanes, b.wgt + w * wgt_lanes, b.acc + d * acc_lanes,
                  b.acc_bits);
        b.out_stale[d] = 1;
      }
    }
  }
}

}  // namespace vta
