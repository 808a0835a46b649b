#include "vta/compiler/layer_runner.h"

#include <chrono>
#include <random>

#include <fmt/format.h>

#include "vta/compiler/conv_codegen.h"
#include "vta/compiler/layout.h"
#include "vta/compiler/reference.h"
#include "vta/runtime.h"
#include "vta/runtime_cpp.h"

namespace vta::compiler {

namespace {

// A device buffer owned for the duration of one run.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : m_bytes(bytes) {
    if (bytes)
      m_handle = VTABufferAlloc(bytes);
    if (bytes && !m_handle)
      throw Error(fmt::format("VTABufferAlloc({}) failed", bytes));
  }
  template <typename T>
  static DeviceBuffer from(const std::vector<T>& host) {
    DeviceBuffer b(host.size() * sizeof(T));
    if (b.m_handle)
      VTABufferCopy(host.data(), 0, b.m_handle, 0, b.m_bytes, VTA_MEMCPY_H2D);
    return b;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : m_handle(o.m_handle), m_bytes(o.m_bytes) {
    o.m_handle = nullptr;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(m_handle, o.m_handle);
    std::swap(m_bytes, o.m_bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (m_handle)
      VTABufferFree(m_handle);
  }
  void* get() const { return m_handle; }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> host(m_bytes / sizeof(T));
    VTABufferCopy(m_handle, 0, host.data(), 0, m_bytes, VTA_MEMCPY_D2H);
    return host;
  }

 private:
  void* m_handle = nullptr;
  size_t m_bytes = 0;
};

std::vector<int8_t> random_int8(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v)
    x = int8_t(d(rng));
  return v;
}

std::vector<int32_t> random_bias(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int32_t> d(-(1 << 14), (1 << 14) - 1);
  std::vector<int32_t> v(n);
  for (auto& x : v)
    x = d(rng);
  return v;
}

}  // namespace

ConvData random_conv_data(const Conv2dParams& p, const Epilogue& e, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ConvData d;
  d.x = random_int8(size_t(p.n) * p.c * p.h * p.w, rng);
  d.w = random_int8(size_t(p.k) * p.c * p.kh * p.kw, rng);
  if (e.bias)
    d.bias = random_bias(size_t(p.k), rng);
  if (e.residual)
    d.residual = random_int8(size_t(p.n) * p.k * p.out_h() * p.out_w(), rng);
  return d;
}

MatmulData random_matmul_data(const MatmulParams& p, const Epilogue& e, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MatmulData d;
  d.a = random_int8(size_t(p.m) * p.k, rng);
  d.b = random_int8(size_t(p.k) * p.n, rng);
  if (e.bias)
    d.bias = random_bias(size_t(p.n), rng);
  return d;
}

uint64_t LayerRun::moved_bytes() const {
  return stats.inp_load_nbytes + stats.wgt_load_nbytes + stats.acc_load_nbytes +
         stats.uop_load_nbytes + stats.out_store_nbytes;
}

LayerRun run_conv2d(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                    const ConvData& data, bool check) {
  const HwConfig& cfg = runtime_config();
  const TilePlan plan = TilePlan::make(p, e, s, cfg);
  const BlockedConv& g = plan.g;
  auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want)
      throw Error(fmt::format("{}: {} has {} elements, expected {}", p.name, what, got, want));
  };
  expect("input", data.x.size(), size_t(p.n) * p.c * p.h * p.w);
  expect("weights", data.w.size(), size_t(p.k) * p.c * p.kh * p.kw);
  if (e.bias)
    expect("bias", data.bias.size(), size_t(p.k));
  if (e.residual)
    expect("residual", data.residual.size(), size_t(p.n) * p.k * g.oh * g.ow);

  ConvCodegen codegen(plan, cfg);
  DeviceBuffer inp = DeviceBuffer::from(pack_nchw(data.x, p.n, p.c, p.h, p.w, g.batch, g.block_in));
  DeviceBuffer wgt =
      DeviceBuffer::from(pack_oihw(data.w, p.k, p.c, p.kh, p.kw, g.block_out, g.block_in));
  DeviceBuffer out(size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.out_elem_bytes);
  DeviceBuffer bias, residual, zeros;
  if (e.bias)
    bias = DeviceBuffer::from(pack_bias(data.bias, p.k, g.batch, g.block_out));
  if (e.residual)
    residual =
        DeviceBuffer::from(pack_nchw(data.residual, p.n, p.k, g.oh, g.ow, g.batch, g.block_out));
  if (codegen.zero_bytes())
    zeros = DeviceBuffer::from(std::vector<int8_t>(codegen.zero_bytes()));

  ConvBuffers b{inp.get(), wgt.get(), out.get(), bias.get(), residual.get(), zeros.get()};
  VTACommandHandle cmd = VTATLSCommandHandle();
  runtime_clear_stats();
  auto t0 = std::chrono::steady_clock::now();
  codegen.emit(b);
  VTASynchronize(cmd, 1u << 31);
  auto t1 = std::chrono::steady_clock::now();

  LayerRun r;
  r.name = p.name.empty() ? "conv2d" : p.name;
  r.kind = "conv2d";
  r.shape = p.describe();
  r.schedule = s;
  r.epilogue = e;
  r.backend = runtime_backend_name();
  r.config = cfg.model_name;
  r.stats = runtime_stats();
  r.wall_seconds = std::chrono::duration<double>(t1 - t0).count();
  r.macs = p.macs();
  r.gemm_bound = g.gemm_uop_count();
  r.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out;
  const uint64_t out_elems = uint64_t(g.nb) * g.ocb * g.oh * g.ow;
  r.min_bytes = uint64_t(g.nb) * g.icb * p.h * p.w * cfg.inp_elem_bytes +
                uint64_t(g.ocb) * g.icb * p.kh * p.kw * cfg.wgt_elem_bytes +
                out_elems * cfg.out_elem_bytes +
                (e.bias ? uint64_t(g.ocb) * cfg.acc_elem_bytes : 0) +
                (e.residual ? out_elems * cfg.acc_elem_bytes : 0);
  r.kernels = codegen.kernel_count();
  r.kernel_uops = codegen.kernel_uops();
  r.out = unpack_nchw(out.read<int8_t>(), p.n, p.k, g.oh, g.ow, g.batch, g.block_out);

  if (check) {
    r.checked = true;
    const std::vector<int8_t> ref =
        conv2d_reference(p, e, data.x, data.w, data.bias, data.residual);
    for (size_t i = 0; i < ref.size(); ++i) {
      if (ref[i] == r.out[i])
        continue;
      if (r.mismatches++ == 0) {
        const size_t ow = size_t(g.ow), oh = size_t(g.oh), k = size_t(p.k);
        r.first_mismatch =
            fmt::format("n {} k {} y {} x {}: got {}, expected {}", i / (ow * oh * k),
                        (i / (ow * oh)) % k, (i / ow) % oh, i % ow, int(r.out[i]), int(ref[i]));
      }
    }
  }
  return r;
}

Conv2dParams matmul_as_conv(const MatmulParams& p, int batch) {
  Conv2dParams c;
  c.name = p.name;
  c.n = batch;
  c.c = p.k;
  c.h = 1;
  c.w = ceil_div(p.m, batch);
  c.k = p.n;
  c.kh = c.kw = 1;
  return c;
}

LayerRun run_matmul(const MatmulParams& p, const Epilogue& e, const ConvSchedule& s,
                    const MatmulData& data, bool check) {
  p.validate();
  if (e.residual)
    throw Error(fmt::format("matmul '{}': residual epilogue is not supported", p.name));
  if (data.a.size() != size_t(p.m) * p.k || data.b.size() != size_t(p.k) * p.n)
    throw Error(fmt::format("matmul '{}': operand sizes do not match {}", p.name, p.describe()));
  const int batch = runtime_config().batch;
  const Conv2dParams c = matmul_as_conv(p, batch);
  // Row m of A is lane m % BATCH of column m / BATCH.
  ConvData d;
  d.x.assign(size_t(c.n) * c.c * c.w, 0);
  for (int m = 0; m < p.m; ++m)
    for (int k = 0; k < p.k; ++k)
      d.x[(size_t(m % batch) * c.c + k) * c.w + m / batch] = data.a[size_t(m) * p.k + k];
  d.w.resize(size_t(p.n) * p.k);
  for (int n = 0; n < p.n; ++n)
    for (int k = 0; k < p.k; ++k)
      d.w[size_t(n) * p.k + k] = data.b[size_t(k) * p.n + n];
  d.bias = data.bias;
  LayerRun r = run_conv2d(c, e, s, d, false);
  std::vector<int8_t> out(size_t(p.m) * p.n);
  for (int m = 0; m < p.m; ++m)
    for (int n = 0; n < p.n; ++n)
      out[size_t(m) * p.n + n] = r.out[(size_t(m % batch) * c.k + n) * c.w + m / batch];
  r.out = std::move(out);
  r.kind = "matmul";
  r.shape = p.describe();
  r.macs = p.macs();
  if (check) {
    r.checked = true;
    const std::vector<int8_t> ref = matmul_reference(p, e, data.a, data.b, data.bias);
    for (size_t i = 0; i < ref.size(); ++i) {
      if (ref[i] == r.out[i])
        continue;
      if (r.mismatches++ == 0)
        r.first_mismatch = fmt::format("row {} col {}: got {}, expected {}", i / p.n, i % p.n,
                                       int(r.out[i]), int(ref[i]));
    }
  }
  return r;
}

}  // namespace vta::compiler
