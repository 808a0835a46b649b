// Workloads the compiler accepts: a quantized conv2d (NCHW int8 input, OIHW int8 weights) or a
// matmul, each followed by the fused accumulator epilogue that VTA's ALU executes before the
// int8 store. Also the ResNet-18 layer table of the upstream benchmark (vta-reference.md 7.2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta::compiler {

// Largest tensor dimension accepted: the ISA's LOAD/STORE size and stride fields are 16 bits.
constexpr int kMaxTensorDim = 65535;
// Largest total of a layer's int8 tensors (input + weights + output, unblocked): the layer's
// blocked copies must fit the 4 GiB simulated DRAM next to the program.
constexpr uint64_t kMaxLayerBytes = uint64_t(1) << 30;

// Output size along one axis of a sliding window (convolution or pool): the one formula of the
// compiler (64-bit, so sums of user-given sizes do not wrap).
constexpr int64_t window_output_size(int64_t in, int64_t pad_a, int64_t pad_b, int64_t kernel,
                                     int64_t stride) {
  return (in + pad_a + pad_b - kernel) / stride + 1;
}

// The shape defaults of a conv2d given by options: `vtasim conv2d`, a sweep's
// conv2d:KEY=VALUE workload and Python's conv2d() / schedules() (1x16x14x14 input, 16 outputs,
// 3x3 kernel, stride 1, zero padding 1 on every side).
struct Conv2dDefaults {
  static constexpr int n = 1, c = 16, h = 14, w = 14, k = 16, kernel = 3, stride = 1, pad = 1;
};

// One 2D convolution. Input N x C x H x W, weights K x C x KH x KW, output N x K x OH x OW.
struct Conv2dParams {
  std::string name;  // for reports ("resnet18.C8", "conv2d")
  int n = 1, c = 16, h = 14, w = 14;
  int k = 16;
  int kh = 3, kw = 3;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  int out_h() const { return int(window_output_size(h, pad_top, pad_bottom, kh, stride_h)); }
  int out_w() const { return int(window_output_size(w, pad_left, pad_right, kw, stride_w)); }
  // Multiply-accumulates of the real (unpadded) computation.
  uint64_t macs() const;
  // Throws vta::Error naming the offending field (range, pad field width, kernel larger than
  // the padded input, dimensions above kMaxTensorDim, tensors above kMaxLayerBytes).
  void validate() const;
  // "1x256x14x14 * 256x3x3 s1 p1" style summary.
  std::string describe() const;
};

// The fused epilogue, applied to the int32 accumulator in this order:
//   + bias[k] (int32), >> shift (arithmetic), + residual (int8 of the output's shape; with a
//   residual_shift r >= 1 the residual at a finer scale, rounded half up: (res + 2^(r-1)) >> r),
//   max(lo), min(hi); then the store keeps the low 8 bits (truncation, no saturation).
// relu is max(0); when both relu and clip_lo are given the larger bound wins.
// With per-channel shifts (`shifts`, one per output channel k, each 0..31) output channel k is
// shifted by shifts[k] instead: on VTA an ALU SHR whose operand is a vector loaded into the
// accumulator SRAM like the bias (per-channel weight scales of a quantized model).
struct Epilogue {
  bool bias = false;
  int shift = 0;            // 0..31; 0 = no shift instruction (ignored with `shifts`)
  std::vector<int> shifts;  // empty: one shift for every channel; else one per output channel
  bool residual = false;
  bool relu = false;
  std::optional<int> clip_lo, clip_hi;  // must fit the 16-bit ALU immediate
  // The shift rounds half away from zero (the host's int8 requantisation) instead of flooring:
  // (v - [v < 0] + 2^(shift-1)) >> shift, as ((v + (v >> 31)) >> (shift - 1) + 1) >> 1 with the
  // sign in a scratch region of the tile's size. Needs one shift for every channel (>= 1) and
  // no residual.
  bool round = false;
  // The residual is held at 2^-r finer a scale than the output (a residual chain whose tensors
  // keep their own exponents): 0..8, on VTA an ALU ADD 2^(r-1) and SHR r of the residual region
  // before it is added (so the residual never initialises the accumulator).
  int residual_shift = 0;

  // Combined relu/clip_lo, if any (inline: the reference applies it to every element).
  std::optional<int> lower_bound() const {
    if (relu) {
      return clip_lo ? std::max(0, *clip_lo) : 0;
    }
    return clip_lo;
  }
  bool per_channel() const { return !shifts.empty(); }
  // The accumulator tile has a second region of its size: the residual's (unless the residual
  // initialises the accumulator) or the rounding's scratch.
  bool second_region(bool residual_init) const { return (residual && !residual_init) || round; }
  // ALU operations per accumulator element beyond a plain shift (round): immediates (MUL 0,
  // SHR 31, ADD 1, SHR 1, and SHR shift-1 from a shift of 2) and vector ones (two ADDs).
  int round_imm_ops() const { return round ? (shift > 1 ? 4 : 3) : 0; }
  int round_vec_ops() const { return round ? 2 : 0; }
  // ALU immediates on the residual region (residual_shift): ADD 2^(r-1), SHR r.
  int residual_shift_imm_ops() const { return residual && residual_shift ? 2 : 0; }
  // The shift of output channel k (per-channel or the layer's one).
  int shift_of(size_t k) const { return shifts.empty() ? shift : shifts[k]; }
  // The epilogue of output channels [first, first + count) (a group of a grouped convolution).
  Epilogue channels(size_t first, size_t count) const;
  // Throws vta::Error unless there is one shift per output channel (or none).
  void check_channels(size_t k, const std::string& layer) const;
  void validate() const;
  std::string describe() const;
  static Epilogue from_json(const nlohmann::json& j, const std::string& source);
  nlohmann::json to_json() const;
};

// C (M x N) = A (M x K) * B (K x N), int8 operands, epilogue per output column n.
struct MatmulParams {
  std::string name = "matmul";
  int m = 16, k = 16, n = 16;
  // Throws vta::Error naming the offending field (1..kMaxTensorDim, tensors <= kMaxLayerBytes).
  void validate() const;
  uint64_t macs() const { return uint64_t(m) * k * n; }
  std::string describe() const;
};

// A named layer of the ResNet-18 table (C1..C11) with its upstream-benchmark epilogue.
struct NamedConvLayer {
  Conv2dParams params;
  Epilogue epilogue;
};
// C1..C11 with batch 1 (C1 has 3 input channels). Epilogue: >> 8, clip [0, 127].
const std::vector<NamedConvLayer>& resnet18_conv_layers();
// Looks up "resnet18.C8" (also "resnet-18.C8", "C8"); throws Error listing the known names.
NamedConvLayer find_named_layer(const std::string& name);

}  // namespace vta::compiler
