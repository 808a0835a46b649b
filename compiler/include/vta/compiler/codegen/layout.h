// Layout packing between the user's layouts and VTA's blocked DRAM layouts.
//   activations: NCHW  <->  NCHWnc  [N/B][C/BI][H][W][B][BI]     (one INP/OUT element = B*BI bytes)
//   weights:     OIHW  <->  OIHWoi  [O/BO][I/BI][KH][KW][BO][BI]  (one WGT element = BO*BI bytes)
//   bias:        K     ->   [K/BO][B][BO] int32, replicated over the batch lanes (one ACC element)
// Channel and batch counts that are not multiples of the block are zero padded; unpacking drops
// the padding.
#pragma once

#include <cstdint>
#include <vector>

namespace vta::compiler {

// a / b rounded up, for a >= 0 and b >= 1 (no overflow near INT_MAX).
inline int ceil_div(int a, int b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Activation packing. `batch` = BATCH lanes, `block` = BLOCK_IN (input) or BLOCK_OUT (output).
std::vector<int8_t> pack_nchw(const std::vector<int8_t>& nchw, int n, int c, int h, int w,
                              int batch, int block);
std::vector<int8_t> unpack_nchw(const std::vector<int8_t>& blocked, int n, int c, int h, int w,
                                int batch, int block);

std::vector<int8_t> pack_oihw(const std::vector<int8_t>& oihw, int o, int i, int kh, int kw,
                              int block_out, int block_in);
std::vector<int8_t> unpack_oihw(const std::vector<int8_t>& blocked, int o, int i, int kh, int kw,
                                int block_out, int block_in);

std::vector<int32_t> pack_bias(const std::vector<int32_t>& bias, int k, int batch, int block_out);

}  // namespace vta::compiler
