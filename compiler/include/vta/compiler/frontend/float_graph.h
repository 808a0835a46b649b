// The front end's graph: a float inference graph in NCHW after import (onnx_import.h), with
// BatchNormalization already folded into the convolutions, the no-op operators (Identity,
// Dropout, Flatten/Reshape to a matrix) resolved to their input and the shape arithmetic done.
// run_float interprets it on the host in float: the reference the quantizer calibrates on and
// measures its error against.
//
// Every value is held as the NCHW view of the model's tensor (nchw_view): the same values in the
// same (row-major) order, under 4 dims. A matrix [N, F] is N x F x 1 x 1; a sequence [N, S, D]
// is N*S rows of D features, (N*S) x D x 1 x 1, so that a Linear over the features is a dense
// layer of N*S rows on VTA and every per-token operator works along the channels; a 4-D tensor
// (attention's heads, [N, heads, S, d]) is itself; a 5-D or 6-D tensor (Swin's window partition
// [B, H/w, w, W/w, w, C] and its q / k / v [B, S, 3, heads, d], MaxViT's windows of heads and its
// partitions) has its leading axes merged into N (the last three kept).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vta::compiler {

struct FloatTensor {
  std::vector<int> dims;  // NCHW for activations (a matrix N x K after a flatten: N x K x 1 x 1)
  std::vector<float> data;
  size_t size() const;
  std::string shape() const;  // "1x64x8x8"
};

enum class GraphOp {
  kConv,
  kRelu,
  kClip,
  kAdd,
  kMaxPool,
  kAvgPool,
  kGlobalAvgPool,
  kGemm,
  kConcat,
  kHardSigmoid,  // max(0, min(1, alpha x + beta))
  kSigmoid,
  kTanh,
  kMul,          // elementwise; the second operand may be per channel (N x C x 1 x 1)
  kLayerNorm,    // over `axis`, with eps, gain (weight) and bias
  kGelu,         // exact (erf) form
  kSoftmax,      // over `axis`
  kBatchMatMul,  // two activations: per (n, c), the H x W matrices multiplied
  kScale,        // x * alpha + beta (scalar constants)
  kView,         // the same values under the dims `to_dims` (a Reshape)
  kPermute,      // the axes reordered by `perm` (a Transpose)
  // A box of C x H x W, step 1 (ONNX Slice, each output of a Split).
  kSlice,
  // The channels viewed as groups x C/groups and transposed (Reshape, Transpose, Reshape).
  kChannelShuffle,
  // Constants joined to an activation: rows put before each sequence (a Concat with ViT's class
  // token) and / or a tensor added (its position embedding).
  kAddConstant,
  // Elementwise minimum / maximum of two activations of one shape, or of one and a scalar
  // constant (kMin: clip_hi, kMax: clip_lo).
  kMin,
  kMax
};

// The operators of MLPs and transformers: LayerNorm, Gelu, Softmax, BatchMatMul, Scale, View,
// Permute, AddConstant.
bool is_sequence_op(GraphOp op);

// The NCHW view of a tensor of the model of rank 1..6 (see above); throws vta::Error naming
// `what` for another rank.
std::vector<int> nchw_view(const std::vector<int>& dims, const std::string& what);
// The axis of the view that holds axis `axis` (negative: from the end) of a tensor of rank
// `rank`; -1 when no axis of the view holds it alone (the S of a sequence, the N of a matrix).
int view_axis(int rank, int axis);

const char* graph_op_name(GraphOp op);  // the ONNX operator name ("Conv", ...)

struct GraphNode {
  std::string name;  // the ONNX node's name (its output's name if it has none)
  GraphOp op = GraphOp::kRelu;
  std::vector<std::string> inputs;  // activation tensors only (weights are below)
  std::string output;
  int kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int groups = 1;                   // Conv; ChannelShuffle
  bool count_include_pad = false;   // AveragePool
  bool ceil_mode = false;           // pools, until the import turns it into end padding
  float clip_lo = 0, clip_hi = 0;   // Clip
  float alpha = 0.2f, beta = 0.5f;  // HardSigmoid; Scale (multiplier, offset)
  int axis = 1;                     // LayerNorm, Softmax: the axis of the view
  float eps = 1e-5f;                // LayerNorm
  bool l2 = false;                  // LayerNorm: x / max(||x||_2, eps) instead (F.normalize)
  std::vector<int> to_dims;         // View: the output dims
  std::vector<int> perm;            // Permute: output axis i is input axis perm[i]
  FloatTensor weight;  // Conv: K x C/groups x KH x KW; Gemm: units x inputs (y = x W^T + b);
                       // LayerNorm: the gain along the axis
  FloatTensor bias;    // K or units values (zeros when the model has none); LayerNorm's bias
  // Slice: the begins and ends (exclusive) of C, H and W.
  std::vector<int> slice_begin, slice_end;
  // AddConstant: the constant rows before each of `groups` sequences (their values: weight,
  // sequences*rows x C; the addend: bias, one value per output element, or none).
  int prefix_rows = 0;
};

struct FloatGraph {
  std::string name;
  std::string input;            // the one activation input, NCHW
  std::vector<int> input_dims;  // the view (nchw_view) of the model's input
  int batch = 0;  // N of the model's input (a sequence's view has N*S rows); 0: input_dims[0]
  int batch_size() const { return batch ? batch : input_dims[0]; }
  std::string output;
  std::vector<GraphNode> nodes;  // topological order
  // Exponents e (scale 2^-e) fixed by the model itself: QDQ-form graphs (QuantizeLinear /
  // DequantizeLinear pairs on activations, which run_float treats as identity).
  std::map<std::string, int> fixed_exponents;
  double import_seconds = 0;  // wall time of the import that built it (its caller measures)

  // The NCHW dims of every tensor, followed from the input. Throws Error
  // "<source>: node 'N' (Op): ..." for a node whose input is unknown or whose shapes do not fit
  // (input channels vs the weight, Add / Concat operands, a window larger than its input), and
  // for an output that no node produces.
  std::map<std::string, std::vector<int>> infer_shapes(const std::string& source) const;
  void validate(const std::string& source) const { infer_shapes(source); }
  // Multiply-accumulates of each node by name (Conv, Gemm; 0 for the others).
  std::map<std::string, uint64_t> node_macs() const;
};

// The float interpreter (calibration, the float check) holds each tensor as float32: a model
// whose input or any node output has more than kMaxFloatTensorValues values is refused before
// anything is allocated (256 MiB of float32; a 1x64x1024x1024 activation fits).
inline constexpr uint64_t kMaxFloatTensorValues = uint64_t{64} << 20;
// Throws vta::Error "<what> of AxBxC values is larger than the limit ..." past it.
void check_float_tensor_size(const std::vector<int>& dims, const std::string& what);

// The output dims of node g from its inputs' dims (`in`); an error text when they do not fit.
std::string node_output_dims(const GraphNode& g, const std::vector<std::vector<int>>& in,
                             std::vector<int>& out);

// Which code computes run_float's Conv, pools, Gemm and MatMul: the float library of the build
// (oneDNN when CMake's VTA_ONEDNN is ON; the plain loops otherwise), or the plain loops (double
// accumulation), the reference the library is checked against.
enum class FloatKernels { kLibrary, kPlain };

// True when the build has the float library (FloatKernels::kLibrary is not the plain loops).
bool float_library_available();

// Every tensor of the graph (the input included), computed in float from `input`.
std::map<std::string, FloatTensor> run_float(const FloatGraph& g, const FloatTensor& input,
                                             FloatKernels kernels = FloatKernels::kLibrary);

}  // namespace vta::compiler
