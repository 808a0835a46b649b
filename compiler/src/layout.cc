#include "vta/compiler/layout.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {
void check_size(const char* what, size_t got, size_t want) {
  if (got != want)
    throw Error(fmt::format("{}: tensor has {} elements, expected {}", what, got, want));
}
}  // namespace

std::vector<int8_t> pack_nchw(const std::vector<int8_t>& nchw, int n, int c, int h, int w,
                              int batch, int block) {
  check_size("pack_nchw", nchw.size(), size_t(n) * c * h * w);
  const int nb = ceil_div(n, batch), cb = ceil_div(c, block);
  std::vector<int8_t> out(size_t(nb) * cb * h * w * batch * block, 0);
  for (int in = 0; in < n; ++in)
    for (int ic = 0; ic < c; ++ic)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          size_t elem = ((size_t(in / batch) * cb + ic / block) * h + y) * w + x;
          out[(elem * batch + in % batch) * block + ic % block] =
              nchw[((size_t(in) * c + ic) * h + y) * w + x];
        }
  return out;
}

std::vector<int8_t> unpack_nchw(const std::vector<int8_t>& blocked, int n, int c, int h, int w,
                                int batch, int block) {
  const int nb = ceil_div(n, batch), cb = ceil_div(c, block);
  check_size("unpack_nchw", blocked.size(), size_t(nb) * cb * h * w * batch * block);
  std::vector<int8_t> out(size_t(n) * c * h * w);
  for (int in = 0; in < n; ++in)
    for (int ic = 0; ic < c; ++ic)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          size_t elem = ((size_t(in / batch) * cb + ic / block) * h + y) * w + x;
          out[((size_t(in) * c + ic) * h + y) * w + x] =
              blocked[(elem * batch + in % batch) * block + ic % block];
        }
  return out;
}

std::vector<int8_t> pack_oihw(const std::vector<int8_t>& oihw, int o, int i, int kh, int kw,
                              int block_out, int block_in) {
  check_size("pack_oihw", oihw.size(), size_t(o) * i * kh * kw);
  const int ob = ceil_div(o, block_out), ib = ceil_div(i, block_in);
  std::vector<int8_t> out(size_t(ob) * ib * kh * kw * block_out * block_in, 0);
  for (int oc = 0; oc < o; ++oc)
    for (int ic = 0; ic < i; ++ic)
      for (int y = 0; y < kh; ++y)
        for (int x = 0; x < kw; ++x) {
          size_t elem = ((size_t(oc / block_out) * ib + ic / block_in) * kh + y) * kw + x;
          out[(elem * block_out + oc % block_out) * block_in + ic % block_in] =
              oihw[((size_t(oc) * i + ic) * kh + y) * kw + x];
        }
  return out;
}

std::vector<int8_t> unpack_oihw(const std::vector<int8_t>& blocked, int o, int i, int kh, int kw,
                                int block_out, int block_in) {
  const int ob = ceil_div(o, block_out), ib = ceil_div(i, block_in);
  check_size("unpack_oihw", blocked.size(), size_t(ob) * ib * kh * kw * block_out * block_in);
  std::vector<int8_t> out(size_t(o) * i * kh * kw);
  for (int oc = 0; oc < o; ++oc)
    for (int ic = 0; ic < i; ++ic)
      for (int y = 0; y < kh; ++y)
        for (int x = 0; x < kw; ++x) {
          size_t elem = ((size_t(oc / block_out) * ib + ic / block_in) * kh + y) * kw + x;
          out[((size_t(oc) * i + ic) * kh + y) * kw + x] =
              blocked[(elem * block_out + oc % block_out) * block_in + ic % block_in];
        }
  return out;
}

std::vector<int32_t> pack_bias(const std::vector<int32_t>& bias, int k, int batch, int block_out) {
  check_size("pack_bias", bias.size(), size_t(k));
  const int kb = ceil_div(k, block_out);
  std::vector<int32_t> out(size_t(kb) * batch * block_out, 0);
  for (int oc = 0; oc < k; ++oc)
    for (int b = 0; b < batch; ++b)
      out[(size_t(oc / block_out) * batch + b) * block_out + oc % block_out] = bias[oc];
  return out;
}

}  // namespace vta::compiler
