#include "vta/compiler/references/width_reference.h"

#include <algorithm>

#include "vta/compiler/codegen/lane_packing.h"

namespace vta::compiler {

int8_t apply_epilogue_at(int32_t acc, const Epilogue& e, int32_t bias, int8_t residual,
                         size_t channel, AccumulatorWidths widths) {
  // Each ALU result is computed in 32 bits and kept as an ACC_WIDTH lane (sign-extended here).
  const int bits = widths.acc;
  int32_t s = sign_extend(acc, bits);
  if (e.bias) {
    s = sign_extend(int64_t(s) + int64_t(sign_extend(bias, bits)), bits);
  }
  if (const int shift = e.shift_of(channel)) {
    s = sign_extend(int64_t(s) >> shift, bits);
  }
  if (e.residual) {
    s = sign_extend(int64_t(s) + int64_t(residual), bits);
  }
  if (auto lo = e.lower_bound()) {
    s = std::max(s, sign_extend(*lo, bits));
  }
  if (e.clip_hi) {
    s = std::min(s, sign_extend(*e.clip_hi, bits));
  }
  return int8_t(sign_extend(s, widths.out));  // STORE keeps the low OUT_WIDTH bits
}

std::vector<int8_t> conv2d_reference_at(const Conv2dParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                        const std::vector<int32_t>& bias,
                                        const std::vector<int8_t>& residual,
                                        AccumulatorWidths widths) {
  e.check_channels(size_t(p.k), p.name);
  const int oh = p.out_h(), ow = p.out_w();
  std::vector<int8_t> out(size_t(p.n) * p.k * oh * ow);
  for (int n = 0; n < p.n; ++n) {
    for (int k = 0; k < p.k; ++k) {
      for (int y = 0; y < oh; ++y) {
        for (int xo = 0; xo < ow; ++xo) {
          uint32_t acc = 0;  // modulo 2^32, as upstream's functional model sums
          for (int c = 0; c < p.c; ++c) {
            for (int ky = 0; ky < p.kh; ++ky) {
              const int iy = y * p.stride_h - p.pad_top + ky;
              for (int kx = 0; kx < p.kw && iy >= 0 && iy < p.h; ++kx) {
                const int ix = xo * p.stride_w - p.pad_left + kx;
                if (ix < 0 || ix >= p.w) {
                  continue;
                }
                acc += uint32_t(int32_t(x[((size_t(n) * p.c + c) * p.h + iy) * p.w + ix]) *
                                int32_t(w[((size_t(k) * p.c + c) * p.kh + ky) * p.kw + kx]));
              }
            }
          }
          const size_t o = ((size_t(n) * p.k + k) * oh + y) * ow + xo;
          out[o] = apply_epilogue_at(int32_t(acc), e, e.bias ? bias[k] : 0,
                                     e.residual ? residual[o] : int8_t(0), size_t(k), widths);
        }
      }
    }
  }
  return out;
}

std::vector<int8_t> matmul_reference_at(const MatmulParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                        const std::vector<int32_t>& bias,
                                        AccumulatorWidths widths) {
  e.check_channels(size_t(p.n), p.name);
  std::vector<int8_t> out(size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      uint32_t acc = 0;
      for (int kk = 0; kk < p.k; ++kk) {
        acc += uint32_t(int32_t(a[size_t(i) * p.k + kk]) * int32_t(b[size_t(kk) * p.n + j]));
      }
      out[size_t(i) * p.n + j] =
          apply_epilogue_at(int32_t(acc), e, e.bias ? bias[j] : 0, 0, size_t(j), widths);
    }
  }
  return out;
}

}  // namespace vta::compiler
