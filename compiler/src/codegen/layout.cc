#include "vta/compiler/codegen/layout.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {
void check_size(const char* what, size_t got, size_t want) {
  if (got != want) {
    throw Error(fmt::format("{}: tensor has {} elements, expected {}", what, got, want));
  }
}

// NCHW activations and OIHW weights share one blocking: an A x B x H x W tensor becomes
// [A/ba][B/bb][H][W][ba][bb] with A and B rounded up to whole blocks (zero padded). Calls
// f(plain index, blocked index, count, blocked stride) for every (a, b) plane: the plane's H x W
// elements are consecutive in the plain tensor and `ba * bb` apart in the blocked one, so the
// copy is one strided loop per plane (index arithmetic per element was a tenth of a sweep point).
template <class F>
void for_each_blocked_plane(int a, int b, int h, int w, int ba, int bb, F f) {
  const size_t nbb = size_t(ceil_div(b, bb)), hw = size_t(h) * w, block = size_t(ba) * bb;
  for (int ia = 0; ia < a; ++ia) {
    for (int ib = 0; ib < b; ++ib) {
      const size_t plane = size_t(ia / ba) * nbb + size_t(ib / bb);
      f((size_t(ia) * b + ib) * hw, plane * hw * block + size_t(ia % ba) * bb + size_t(ib % bb), hw,
        block);
    }
  }
}

size_t blocked_size(int a, int b, int h, int w, int ba, int bb) {
  return size_t(ceil_div(a, ba)) * ceil_div(b, bb) * h * w * ba * bb;
}

std::vector<int8_t> pack_blocked(const char* who, const std::vector<int8_t>& plain, int a, int b,
                                 int h, int w, int ba, int bb) {
  check_size(who, plain.size(), size_t(a) * b * h * w);
  std::vector<int8_t> out(blocked_size(a, b, h, w, ba, bb), 0);
  for_each_blocked_plane(a, b, h, w, ba, bb, [&](size_t p, size_t q, size_t n, size_t step) {
    for (size_t k = 0; k < n; ++k) {
      out[q + k * step] = plain[p + k];
    }
  });
  return out;
}

std::vector<int8_t> unpack_blocked(const char* who, const std::vector<int8_t>& blocked, int a,
                                   int b, int h, int w, int ba, int bb) {
  check_size(who, blocked.size(), blocked_size(a, b, h, w, ba, bb));
  std::vector<int8_t> out(size_t(a) * b * h * w);
  for_each_blocked_plane(a, b, h, w, ba, bb, [&](size_t p, size_t q, size_t n, size_t step) {
    for (size_t k = 0; k < n; ++k) {
      out[p + k] = blocked[q + k * step];
    }
  });
  return out;
}

}  // namespace

std::vector<int8_t> pack_nchw(const std::vector<int8_t>& nchw, int n, int c, int h, int w,
                              int batch, int block) {
  return pack_blocked("pack_nchw", nchw, n, c, h, w, batch, block);
}

std::vector<int8_t> unpack_nchw(const std::vector<int8_t>& blocked, int n, int c, int h, int w,
                                int batch, int block) {
  return unpack_blocked("unpack_nchw", blocked, n, c, h, w, batch, block);
}

std::vector<int8_t> pack_oihw(const std::vector<int8_t>& oihw, int o, int i, int kh, int kw,
                              int block_out, int block_in) {
  return pack_blocked("pack_oihw", oihw, o, i, kh, kw, block_out, block_in);
}

std::vector<int8_t> unpack_oihw(const std::vector<int8_t>& blocked, int o, int i, int kh, int kw,
                                int block_out, int block_in) {
  return unpack_blocked("unpack_oihw", blocked, o, i, kh, kw, block_out, block_in);
}

std::vector<int32_t> pack_bias(const std::vector<int32_t>& bias, int k, int batch, int block_out) {
  check_size("pack_bias", bias.size(), size_t(k));
  const int kb = ceil_div(k, block_out);
  std::vector<int32_t> out(size_t(kb) * batch * block_out, 0);
  for (int oc = 0; oc < k; ++oc) {
    for (int b = 0; b < batch; ++b) {
      out[(size_t(oc / block_out) * batch + b) * block_out + oc % block_out] = bias[oc];
    }
  }
  return out;
}

}  // namespace vta::compiler
