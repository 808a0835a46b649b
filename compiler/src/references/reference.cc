#include "vta/compiler/references/reference.h"

#include <algorithm>

namespace vta::compiler {

int8_t apply_epilogue(int32_t acc, const Epilogue& e, int32_t bias, int8_t residual,
                      size_t channel) {
  // Unsigned arithmetic gives the hardware's modulo-2^32 wrap without undefined behaviour.
  uint32_t v = uint32_t(acc);
  if (e.bias) {
    v += uint32_t(bias);
  }
  int32_t s = int32_t(v);
  if (const int shift = e.shift_of(channel); shift && e.round) {
    // Ties away from zero, with the ALU's steps and their modulo-2^32 adds.
    const int32_t t = int32_t(uint32_t(s) + uint32_t(s >> 31)) >> (shift - 1);
    s = int32_t(uint32_t(t) + 1u) >> 1;
  } else if (shift) {
    s >>= shift;
  }
  if (e.residual) {
    int32_t r = residual;
    if (const int rs = e.residual_shift) {
      r = (r + (1 << (rs - 1))) >> rs;  // the ALU's ADD 2^(r-1), SHR r: half up
    }
    s = int32_t(uint32_t(s) + uint32_t(r));
  }
  if (auto lo = e.lower_bound()) {
    s = std::max(s, int32_t(*lo));
  }
  if (e.clip_hi) {
    s = std::min(s, int32_t(*e.clip_hi));
  }
  return int8_t(uint8_t(uint32_t(s) & 0xFF));
}

std::vector<int8_t> conv2d_reference(const Conv2dParams& p, const Epilogue& e,
                                     const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                     const std::vector<int32_t>& bias,
                                     const std::vector<int8_t>& residual) {
  e.check_channels(size_t(p.k), p.name);
  const int oh = p.out_h(), ow = p.out_w();
  std::vector<int8_t> out(size_t(p.n) * p.k * oh * ow);
  for (int n = 0; n < p.n; ++n) {
    for (int k = 0; k < p.k; ++k) {
      for (int y = 0; y < oh; ++y) {
        for (int xo = 0; xo < ow; ++xo) {
          uint32_t acc = 0;
          for (int c = 0; c < p.c; ++c) {
            for (int ky = 0; ky < p.kh; ++ky) {
              int iy = y * p.stride_h - p.pad_top + ky;
              if (iy < 0 || iy >= p.h) {
                continue;
              }
              for (int kx = 0; kx < p.kw; ++kx) {
                int ix = xo * p.stride_w - p.pad_left + kx;
                if (ix < 0 || ix >= p.w) {
                  continue;
                }
                int32_t prod = int32_t(x[((size_t(n) * p.c + c) * p.h + iy) * p.w + ix]) *
                               int32_t(w[((size_t(k) * p.c + c) * p.kh + ky) * p.kw + kx]);
                acc += uint32_t(prod);
              }
            }
          }
          size_t o = ((size_t(n) * p.k + k) * oh + y) * ow + xo;
          out[o] = apply_epilogue(int32_t(acc), e, e.bias ? bias[k] : 0,
                                  e.residual ? residual[o] : int8_t(0), size_t(k));
        }
      }
    }
  }
  return out;
}

std::vector<int8_t> matmul_reference(const MatmulParams& p, const Epilogue& e,
                                     const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                     const std::vector<int32_t>& bias) {
  e.check_channels(size_t(p.n), p.name);
  std::vector<int8_t> out(size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      uint32_t acc = 0;
      for (int kk = 0; kk < p.k; ++kk) {
        acc += uint32_t(int32_t(a[size_t(i) * p.k + kk]) * int32_t(b[size_t(kk) * p.n + j]));
      }
      out[size_t(i) * p.n + j] =
          apply_epilogue(int32_t(acc), e, e.bias ? bias[j] : 0, 0, size_t(j));
    }
  }
  return out;
}

}  // namespace vta::compiler
