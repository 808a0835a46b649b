#include "vta/compiler/codegen/kernel_fold.h"

#include <fmt/format.h>

#include "vta/compiler/codegen/layout.h"
#include "vta/sim/error.h"

namespace vta::compiler {

int fold_row_step(const Conv2dParams& p, int fold_rows) {
  int a = 1;
  for (int d = 1; d <= std::min(fold_rows, p.stride_h); ++d) {
    if (p.stride_h % d == 0) {
      a = d;
    }
  }
  return a;
}

Conv2dParams folded_params(const Conv2dParams& p, int fold_rows) {
  p.validate();
  if (fold_rows < 1 || fold_rows > p.kh) {
    throw Error(fmt::format("{}: fold_rows {} must be in 1..{} (the kernel height)", p.describe(),
                            fold_rows, p.kh));
  }
  const int a = fold_row_step(p, fold_rows);
  Conv2dParams f = p;
  f.c = p.c * fold_rows * p.kw;
  f.kh = fold_rows >= p.kh ? 1 : ceil_div(p.kh - fold_rows, a) + 1;
  f.kw = 1;
  f.stride_h = p.stride_h / a;
  f.stride_w = 1;
  f.pad_top = f.pad_bottom = f.pad_left = f.pad_right = 0;
  f.h = (p.out_h() - 1) * f.stride_h + f.kh;
  f.w = p.out_w();
  try {
    f.validate();
  } catch (const Error& e) {
    throw Error(fmt::format("{} folded with fold_rows {}: {}", p.describe(), fold_rows, e.what()));
  }
  return f;
}

std::vector<int8_t> fold_input(const Conv2dParams& p, int fold_rows, const std::vector<int8_t>& x) {
  const Conv2dParams f = folded_params(p, fold_rows);
  const int a = fold_row_step(p, fold_rows);
  std::vector<int8_t> out(size_t(f.n) * f.c * f.h * f.w, 0);
  for (int n = 0; n < p.n; ++n) {
    for (int c = 0; c < p.c; ++c) {
      for (int r = 0; r < fold_rows; ++r) {
        for (int dx = 0; dx < p.kw; ++dx) {
          const size_t ch = (size_t(c) * fold_rows + r) * p.kw + dx;
          for (int v = 0; v < f.h; ++v) {
            const int y = v * a + r - p.pad_top;
            if (y < 0 || y >= p.h) {
              continue;  // padding rows stay zero
            }
            for (int u = 0; u < f.w; ++u) {
              const int xx = u * p.stride_w + dx - p.pad_left;
              if (xx >= 0 && xx < p.w) {
                out[((size_t(n) * f.c + ch) * f.h + v) * f.w + u] =
                    x[((size_t(n) * p.c + c) * p.h + y) * p.w + xx];
              }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<int8_t> fold_weights(const Conv2dParams& p, int fold_rows,
                                 const std::vector<int8_t>& w) {
  const Conv2dParams f = folded_params(p, fold_rows);
  const int a = fold_row_step(p, fold_rows);
  std::vector<int8_t> out(size_t(f.k) * f.c * f.kh, 0);
  for (int k = 0; k < p.k; ++k) {
    for (int c = 0; c < p.c; ++c) {
      for (int dy = 0; dy < p.kh; ++dy) {
        // The smallest kernel row g whose window of f input rows holds dy.
        const int g = dy < fold_rows ? 0 : ceil_div(dy - fold_rows + 1, a);
        const int r = dy - g * a;
        for (int dx = 0; dx < p.kw; ++dx) {
          const size_t ch = (size_t(c) * fold_rows + r) * p.kw + dx;
          out[(size_t(k) * f.c + ch) * f.kh + g] =
              w[((size_t(k) * p.c + c) * p.kh + dy) * p.kw + dx];
        }
      }
    }
  }
  return out;
}

std::vector<int> fold_candidates(const Conv2dParams& p, int block_in) {
  std::vector<int> out;
  if (p.c >= block_in || p.kh * p.kw == 1) {
    return out;
  }
  for (int f = 1; f <= p.kh; ++f) {
    try {
      (void)folded_params(p, f);
      out.push_back(f);
    } catch (const Error&) {
    }
  }
  return out;
}

}  // namespace vta::compiler
