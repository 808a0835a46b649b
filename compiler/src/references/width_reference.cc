#include "vta/compiler/references/width_reference.h"

#include <algorithm>

#include "vta/compiler/codegen/lane_packing.h"

namespace vta::compiler {

namespace {

// conv2d at `widths` for lanes held in T (int8_t or int32_t).
template <class T>
std::vector<T> conv2d_at(const Conv2dParams& p, const Epilogue& e, const std::vector<T>& x,
                         const std::vector<T>& w, const std::vector<int32_t>& bias,
                         const std::vector<T>& residual, AccumulatorWidths widths) {
  e.check_channels(size_t(p.k), p.name);
  const int oh = p.out_h(), ow = p.out_w();
  std::vector<T> out(size_t(p.n) * p.k * oh * ow);
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
                acc += uint32_t(int64_t(x[((size_t(n) * p.c + c) * p.h + iy) * p.w + ix]) *
                                int64_t(w[((size_t(k) * p.c + c) * p.kh + ky) * p.kw + kx]));
              }
            }
          }
          const size_t o = ((size_t(n) * p.k + k) * oh + y) * ow + xo;
          out[o] = T(epilogue_lane_at(int32_t(acc), e, e.bias ? bias[k] : 0,
                                      e.residual ? int32_t(residual[o]) : 0, size_t(k), widths));
        }
      }
    }
  }
  return out;
}

template <class T>
std::vector<T> matmul_at(const MatmulParams& p, const Epilogue& e, const std::vector<T>& a,
                         const std::vector<T>& b, const std::vector<int32_t>& bias,
                         AccumulatorWidths widths) {
  e.check_channels(size_t(p.n), p.name);
  std::vector<T> out(size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      uint32_t acc = 0;
      for (int kk = 0; kk < p.k; ++kk) {
        acc += uint32_t(int64_t(a[size_t(i) * p.k + kk]) * int64_t(b[size_t(kk) * p.n + j]));
      }
      out[size_t(i) * p.n + j] =
          T(epilogue_lane_at(int32_t(acc), e, e.bias ? bias[j] : 0, 0, size_t(j), widths));
    }
  }
  return out;
}

}  // namespace

int32_t epilogue_lane_at(int32_t acc, const Epilogue& e, int32_t bias, int32_t residual,
                         size_t channel, AccumulatorWidths widths) {
  // Each ALU result is computed in 32 bits and kept as an ACC_WIDTH lane (sign-extended here).
  const int bits = widths.acc;
  int32_t s = sign_extend(acc, bits);
  if (e.bias) {
    s = sign_extend(int64_t(s) + int64_t(sign_extend(bias, bits)), bits);
  }
  if (const int shift = e.shift_of(channel); shift && e.round) {
    // Ties away from zero with the ALU's steps (reference.cc), each kept as an ACC_WIDTH lane.
    const int32_t t =
        sign_extend(int64_t(sign_extend(int64_t(s) + (s < 0 ? -1 : 0), bits)) >> (shift - 1), bits);
    s = sign_extend((int64_t(t) + 1) >> 1, bits);
  } else if (shift) {
    s = sign_extend(int64_t(s) >> shift, bits);
  }
  if (e.residual) {
    int64_t r = residual;
    if (const int rs = e.residual_shift) {
      r = int64_t(sign_extend(r + (int64_t(1) << (rs - 1)), bits)) >> rs;  // ADD, SHR: half up
    }
    s = sign_extend(int64_t(s) + r, bits);
  }
  if (auto lo = e.lower_bound()) {
    s = std::max(s, sign_extend(*lo, bits));
  }
  if (e.clip_hi) {
    s = std::min(s, sign_extend(*e.clip_hi, bits));
  }
  return sign_extend(s, widths.out);  // STORE keeps the low OUT_WIDTH bits
}

int8_t apply_epilogue_at(int32_t acc, const Epilogue& e, int32_t bias, int8_t residual,
                         size_t channel, AccumulatorWidths widths) {
  return int8_t(epilogue_lane_at(acc, e, bias, residual, channel, widths));
}

std::vector<int8_t> conv2d_reference_at(const Conv2dParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                        const std::vector<int32_t>& bias,
                                        const std::vector<int8_t>& residual,
                                        AccumulatorWidths widths) {
  return conv2d_at(p, e, x, w, bias, residual, widths);
}

std::vector<int32_t> conv2d_reference_at(const Conv2dParams& p, const Epilogue& e,
                                         const std::vector<int32_t>& x,
                                         const std::vector<int32_t>& w,
                                         const std::vector<int32_t>& bias,
                                         const std::vector<int32_t>& residual,
                                         AccumulatorWidths widths) {
  return conv2d_at(p, e, x, w, bias, residual, widths);
}

std::vector<int8_t> matmul_reference_at(const MatmulParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                        const std::vector<int32_t>& bias,
                                        AccumulatorWidths widths) {
  return matmul_at(p, e, a, b, bias, widths);
}

std::vector<int32_t> matmul_reference_at(const MatmulParams& p, const Epilogue& e,
                                         const std::vector<int32_t>& a,
                                         const std::vector<int32_t>& b,
                                         const std::vector<int32_t>& bias,
                                         AccumulatorWidths widths) {
  return matmul_at(p, e, a, b, bias, widths);
}

}  // namespace vta::compiler
