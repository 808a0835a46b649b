#include "frontend/onednn_kernels.h"

#include <omp.h>

#include <cstdlib>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace vta::compiler::onednn {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

struct Cpu {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Cpu& cpu() {
  static Cpu c;  // one engine and stream for the process (primitives are cached by oneDNN)
  return c;
}

// The primitives run on one thread unless OMP_NUM_THREADS asks for more: vtasim parallelises
// with processes (sweep workers, -j), and OpenMP's spinning threads on a loaded machine made a
// float run 8x slower than one thread (bench_calibration, load 12 on 2 cores). The calling
// thread's OpenMP setting is restored after (a Python process's torch keeps its own).
class ThreadScope {
 public:
  ThreadScope() : m_saved(omp_get_max_threads()) {
    if (std::getenv("OMP_NUM_THREADS") == nullptr) {
      omp_set_num_threads(1);
    }
  }
  ~ThreadScope() { omp_set_num_threads(m_saved); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int m_saved;
};

memory::desc plain(const memory::dims& d, Tag tag) {
  return memory::desc(d, kF32, tag);
}
memory::desc any(const memory::dims& d) {
  return memory::desc(d, kF32, Tag::any);
}

// A memory over caller-owned values (oneDNN only reads the inputs it is given).
memory wrap(const memory::desc& d, const float* data) {
  return memory(d, cpu().engine, const_cast<float*>(data));
}

// `user` in the layout `want`: itself when it has it, else a reordered copy.
memory in_layout(memory user, const memory::desc& want) {
  if (user.get_desc() == want) {
    return user;
  }
  memory m(want, cpu().engine);
  dnnl::reorder(user, m).execute(cpu().stream, user, m);
  return m;
}

// Runs `prim` with its arguments, then copies DST (layout `dst_desc`) into out's plain NCHW.
void run_into(const dnnl::primitive& prim, std::unordered_map<int, memory> args,
              const memory::desc& dst_desc, const memory::desc& out_desc, FloatTensor& out) {
  out.data.resize(out.size());
  memory user_dst = wrap(out_desc, out.data.data());
  memory dst = dst_desc == out_desc ? user_dst : memory(dst_desc, cpu().engine);
  args[DNNL_ARG_DST] = dst;
  prim.execute(cpu().stream, args);
  if (dst != user_dst) {
    dnnl::reorder(dst, user_dst).execute(cpu().stream, dst, user_dst);
  }
  cpu().stream.wait();
}

memory::dims nchw_dims(const FloatTensor& x) {
  std::vector<int> d = x.dims;
  d.resize(4, 1);
  return {d[0], d[1], d[2], d[3]};
}

FloatTensor conv(const GraphNode& g, const FloatTensor& x, int oh, int ow) {
  const ThreadScope threads;
  const memory::dims src = nchw_dims(x);
  const int64_t k = g.weight.dims[0], groups = g.groups;
  const memory::dims dst{src[0], k, oh, ow};
  const bool grouped = groups > 1;
  const memory::dims wei = grouped ? memory::dims{groups, k / groups, src[1] / groups, g.kh, g.kw}
                                   : memory::dims{k, src[1], g.kh, g.kw};
  const memory::desc bias = plain({k}, Tag::x);
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct, any(src), any(wei),
                                          bias, any(dst), {g.stride_h, g.stride_w},
                                          {g.pad_top, g.pad_left}, {g.pad_bottom, g.pad_right});
  const dnnl::convolution_forward::primitive_desc pd(d, cpu().engine);
  memory user_src = wrap(plain(src, Tag::nchw), x.data.data());
  memory user_wei = wrap(plain(wei, grouped ? Tag::goihw : Tag::oihw), g.weight.data.data());
  FloatTensor out{{int(dst[0]), int(k), oh, ow}, {}};
  run_into(dnnl::convolution_forward(pd),
           {{DNNL_ARG_SRC, in_layout(user_src, pd.src_desc())},
            {DNNL_ARG_WEIGHTS, in_layout(user_wei, pd.weights_desc())},
            {DNNL_ARG_BIAS, wrap(bias, g.bias.data.data())}},
           pd.dst_desc(), plain(dst, Tag::nchw), out);
  return out;
}

FloatTensor pool(const GraphNode& g, const FloatTensor& x, bool is_max, int oh, int ow) {
  const ThreadScope threads;
  const memory::dims src = nchw_dims(x);
  const memory::dims dst{src[0], src[1], oh, ow};
  const dnnl::algorithm alg = is_max                ? dnnl::algorithm::pooling_max
                              : g.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                                    : dnnl::algorithm::pooling_avg_exclude_padding;
  // The source's layout is given (the library has no choice of it for a pool): plain NCHW.
  const dnnl::pooling_forward::desc d(
      dnnl::prop_kind::forward_inference, alg, plain(src, Tag::nchw), any(dst),
      {g.stride_h, g.stride_w}, {g.kh, g.kw}, {g.pad_top, g.pad_left}, {g.pad_bottom, g.pad_right});
  const dnnl::pooling_forward::primitive_desc pd(d, cpu().engine);
  FloatTensor out{{int(dst[0]), int(dst[1]), oh, ow}, {}};
  run_into(dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, wrap(plain(src, Tag::nchw), x.data.data())}},
           pd.dst_desc(), plain(dst, Tag::nchw), out);
  return out;
}

FloatTensor dense(const GraphNode& g, const FloatTensor& x) {
  const ThreadScope threads;
  const int64_t n = x.dims[0], units = g.weight.dims[0], k = g.weight.dims[1];
  const memory::desc src = plain({n, k}, Tag::ab), wei = plain({k, units}, Tag::ba);
  const memory::desc bias = plain({1, units}, Tag::ab), dst = plain({n, units}, Tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, bias, dst), cpu().engine);
  FloatTensor out{{int(n), int(units), 1, 1}, {}};
  run_into(dnnl::matmul(pd),
           {{DNNL_ARG_SRC, wrap(src, x.data.data())},
            {DNNL_ARG_WEIGHTS, wrap(wei, g.weight.data.data())},
            {DNNL_ARG_BIAS, wrap(bias, g.bias.data.data())}},
           dst, dst, out);
  return out;
}

FloatTensor batch_matmul(const FloatTensor& a, const FloatTensor& b) {
  const ThreadScope threads;
  const int64_t planes = int64_t(a.dims[0]) * a.dims[1];
  const int64_t m = a.dims[2], k = a.dims[3], p = b.dims[3];
  const memory::desc src = plain({planes, m, k}, Tag::abc), wei = plain({planes, k, p}, Tag::abc);
  const memory::desc dst = plain({planes, m, p}, Tag::abc);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), cpu().engine);
  FloatTensor out{{a.dims[0], a.dims[1], int(m), int(p)}, {}};
  run_into(dnnl::matmul(pd),
           {{DNNL_ARG_SRC, wrap(src, a.data.data())}, {DNNL_ARG_WEIGHTS, wrap(wei, b.data.data())}},
           dst, dst, out);
  return out;
}

}  // namespace

bool run_node(const GraphNode& g, const std::vector<const FloatTensor*>& in, int oh, int ow,
              FloatTensor& out) {
  try {
    switch (g.op) {
      case GraphOp::kConv:
        out = conv(g, *in[0], oh, ow);
        return true;
      case GraphOp::kMaxPool:
      case GraphOp::kAvgPool:
        out = pool(g, *in[0], g.op == GraphOp::kMaxPool, oh, ow);
        return true;
      case GraphOp::kGemm:
        out = dense(g, *in[0]);
        return true;
      case GraphOp::kBatchMatMul:
        out = batch_matmul(*in[0], *in[1]);
        return true;
      default:
        return false;
    }
  } catch (const dnnl::error&) {
    return false;  // a shape the library has no primitive for: the plain loops compute it
  }
}

}  // namespace vta::compiler::onednn
