#include "py_layers.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include <pybind11/stl.h>

#include "py_common.h"
#include "py_config.h"
#include "py_design.h"
#include "vta/backend_factory.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/reports/layer_fields.h"
#include "vta/compiler/run/host_cpu.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

namespace vta::py {

namespace {

using compiler::ConvSchedule;
using compiler::Epilogue;
using compiler::LayerRun;
using compiler::Target;

// Raised from a network's per-layer callback when Python has a pending signal (Ctrl-C).
struct Interrupted {};

Target make_target(const pyb::handle& config, const std::string& backend, bool verify) {
  Target t(config_arg(config), backend.empty() ? backend_name_from_env() : backend);
  t.verify_programs = verify;
  return t;
}

// `shift`: one right shift for every output channel, or a sequence of one per output channel
// (what per-channel weight scales give a quantized layer: Epilogue::shifts).
Epilogue make_epilogue(bool bias, const pyb::object& shift, bool relu, const pyb::object& clip) {
  Epilogue e;
  e.bias = bias;
  try {
    if (pyb::isinstance<pyb::sequence>(shift) && !pyb::isinstance<pyb::str>(shift)) {
      e.shifts = shift.cast<std::vector<int>>();
      if (e.shifts.empty()) {
        throw Error("shift: a per-channel list needs one value per output channel (got none)");
      }
    } else {
      e.shift = shift.cast<int>();
    }
  } catch (const pyb::cast_error&) {
    throw Error("shift: expected an int or a list of ints, one per output channel");
  }
  e.relu = relu;
  if (!clip.is_none()) {
    const auto [lo, hi] = clip.cast<std::pair<int, int>>();
    e.clip_lo = lo;
    e.clip_hi = hi;
  }
  e.validate();
  return e;
}

// "auto", a schedule dict, or None (auto).
ConvSchedule schedule_arg(const pyb::object& s, const compiler::Conv2dParams& p, const Epilogue& e,
                          const HwConfig& cfg) {
  if (s.is_none() || (pyb::isinstance<pyb::str>(s) && s.cast<std::string>() == "auto")) {
    return compiler::auto_schedule(p, e, cfg);
  }
  if (pyb::isinstance<pyb::dict>(s)) {
    return ConvSchedule::from_json(from_python(s, "schedule"), "schedule");
  }
  throw Error(
      "schedule: expected \"auto\" or a dict with tile_h, tile_w, tile_oc_blocks, "
      "tile_ic_blocks, threads");
}

// A finished layer as a dict; `output` takes the layer's output (no copy) in `shape`.
pyb::dict layer_dict(LayerRun&& r, const std::vector<pyb::ssize_t>& shape, const HwConfig& cfg) {
  pyb::dict d;
  for (const compiler::LayerField& f : compiler::layer_fields()) {
    d[f.key] = to_python(compiler::field_value(f, r));
  }
  add_design_figures(d, cfg, r);
  d["schedule"] = to_python(r.schedule.to_json());
  d["epilogue"] = to_python(r.epilogue.to_json());
  d["stats"] = to_python(r.stats.to_json());
  if (!shape.empty()) {
    d["output"] = to_numpy(std::move(r.out), shape);
  }
  return d;
}

compiler::Conv2dParams conv_params(const pyb::object& layer, int n, int c, int h, int w, int k,
                                   int kernel, int stride, const pyb::object& pad, Epilogue& e) {
  if (!layer.is_none()) {
    const compiler::NamedConvLayer l = compiler::find_named_layer(layer.cast<std::string>());
    e = l.epilogue;
    return l.params;
  }
  compiler::Conv2dParams p;
  p.name = "conv2d";
  p.n = n;
  p.c = c;
  p.h = h;
  p.w = w;
  p.k = k;
  p.kh = p.kw = kernel;
  p.stride_h = p.stride_w = stride;
  const int pd = pad.is_none() ? compiler::Conv2dDefaults::pad : pad.cast<int>();
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pd;
  p.validate();
  return p;
}

pyb::dict conv2d(const pyb::object& config, const pyb::object& layer, int n, int c, int h, int w,
                 int k, int kernel, int stride, const pyb::object& pad, bool bias,
                 const pyb::object& shift, bool relu, const pyb::object& clip, const pyb::object& x,
                 const pyb::object& weights, const pyb::object& bias_values,
                 const pyb::object& schedule, const std::string& backend, uint64_t seed, bool check,
                 bool verify, const std::string& dump_program) {
  const Target t = make_target(config, backend, verify);
  Epilogue e = make_epilogue(bias || !bias_values.is_none(), shift, relu, clip);
  const compiler::Conv2dParams p = conv_params(layer, n, c, h, w, k, kernel, stride, pad, e);
  e.check_channels(static_cast<size_t>(p.k), "conv2d");
  compiler::ConvData data = compiler::random_conv_data_at(p, e, seed, t.config);
  if (!x.is_none()) {
    data.x = int8_elements(x, data.x.size(), "x");
  }
  if (!weights.is_none()) {
    data.w = int8_elements(weights, data.w.size(), "weights");
  }
  if (!bias_values.is_none()) {
    data.bias = int32_elements(bias_values, static_cast<size_t>(p.k), "bias_values");
  }
  const ConvSchedule s = schedule_arg(schedule, p, e, t.config);
  t.runtime->set_program_dump(dump_program);  // this call's own runtime
  LayerRun r = interruptible([&] { return compiler::run_conv2d(t, p, e, s, data, check); });
  return layer_dict(std::move(r), {p.n, p.k, p.out_h(), p.out_w()}, t.config);
}

pyb::dict matmul(const pyb::object& config, const pyb::object& a, const pyb::object& b,
                 const pyb::object& bias_values, const pyb::object& shift, bool relu,
                 const pyb::object& clip, const pyb::object& schedule, const std::string& backend,
                 bool check, bool verify) {
  const Target t = make_target(config, backend, verify);
  const pyb::array aa = pyb::array::ensure(a), bb = pyb::array::ensure(b);
  if (!aa || !bb || aa.ndim() != 2 || bb.ndim() != 2 || aa.shape(1) != bb.shape(0)) {
    throw Error("matmul: a (M x K) and b (K x N) must be 2-D arrays with matching K");
  }
  compiler::MatmulParams p;
  p.m = static_cast<int>(aa.shape(0));
  p.k = static_cast<int>(aa.shape(1));
  p.n = static_cast<int>(bb.shape(1));
  p.validate();
  const Epilogue e = make_epilogue(!bias_values.is_none(), shift, relu, clip);
  e.check_channels(static_cast<size_t>(p.n), "matmul");
  compiler::MatmulData data;
  data.a = int8_elements(a, size_t(p.m) * p.k, "a");
  data.b = int8_elements(b, size_t(p.k) * p.n, "b");
  if (!bias_values.is_none()) {
    data.bias = int32_elements(bias_values, static_cast<size_t>(p.n), "bias_values");
  }
  const compiler::Conv2dParams as_conv = compiler::matmul_as_conv(p, t.config);
  const ConvSchedule s = schedule_arg(schedule, as_conv, e, t.config);
  LayerRun r = interruptible([&] { return compiler::run_matmul(t, p, e, s, data, check); });
  return layer_dict(std::move(r), {p.m, p.n}, t.config);
}

// MODEL.onnx: imported and quantized (quantize.h) to the lanes of `cfg`; anything else:
// Network::load.
compiler::Network load_network(const std::string& name_or_path, int calib, const std::string& quant,
                               const vta::HwConfig& cfg,
                               std::optional<compiler::QuantizedModel>& model) {
  if (!compiler::is_onnx_model(name_or_path)) {
    return compiler::Network::load(name_or_path);
  }
  compiler::QuantOptions q;
  q.calib = calib;
  q.set_quant(quant);
  q.widths = compiler::LayerWidths::of(cfg);
  model = compiler::import_and_quantize(name_or_path, q);
  return model->net;
}

pyb::dict network(const std::string& name_or_path, const pyb::object& config,
                  const std::string& backend, bool check, size_t tune, bool verify, int calib,
                  const std::string& quant) {
  const Target t = make_target(config, backend, verify);
  std::optional<compiler::QuantizedModel> model;
  const compiler::Network net = load_network(name_or_path, calib, quant, t.config, model);
  compiler::NetworkOptions opt;
  opt.check = check;
  opt.tune_candidates = tune;
  opt.on_layer = [](const LayerRun&) {
    pyb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      throw Interrupted{};
    }
  };
  compiler::NetworkRun run = interruptible([&] { return compiler::run_network(t, net, opt); });
  pyb::dict d;
  d["name"] = net.name;
  pyb::list layers;
  uint64_t cycles = 0;
  double wall = 0;
  const bool timed = !run.runs.empty() && run.runs.front().stats.timed;
  for (LayerRun& r : run.runs) {
    cycles += r.stats.cycles;
    wall += r.wall_seconds;
    layers.append(layer_dict(std::move(r), {}, t.config));
  }
  d["layers"] = layers;
  d["host_ops"] = run.host_ops;
  d["cycles"] = timed ? pyb::object(pyb::int_(cycles)) : pyb::object(pyb::none());
  d["time_s"] =
      timed ? pyb::object(pyb::float_(static_cast<double>(cycles) / (t.config.clock_mhz * 1e6)))
            : pyb::object(pyb::none());
  d["wall_seconds"] = wall;
  if (model) {
    // The host layers on this design's board, and the serial end to end (VTA + host).
    model->time_host(compiler::host_cpu_for(t.config.target));
    d["host_time_us"] = model->host_us;
    d["end_to_end_us"] =
        timed ? pyb::object(pyb::float_(double(cycles) / t.config.clock_mhz + model->host_us))
              : pyb::object(pyb::none());
    d["import_seconds"] = model->import_seconds;
    d["quantize_seconds"] = model->quantize_seconds;
    pyb::dict fe = to_python(model->to_json()).cast<pyb::dict>();
    fe["output_matches_reference"] = compiler::output_matches_reference(*model, run);
    d["frontend"] = fe;
  }
  if (run.output.empty() && !run.wide_output.empty()) {
    // An int16-lane network keeps its tensors in int32 (wide_network_run.h).
    d["output"] = pyb::array_t<int32_t>(static_cast<pyb::ssize_t>(run.wide_output.size()),
                                        run.wide_output.data());
  } else {
    d["output"] = to_numpy(std::move(run.output), {static_cast<pyb::ssize_t>(run.output.size())});
  }
  return d;
}

pyb::list schedules(const pyb::object& config, const pyb::object& layer, int n, int c, int h, int w,
                    int k, int kernel, int stride, const pyb::object& pad, size_t count) {
  Epilogue e;
  const compiler::Conv2dParams p = conv_params(layer, n, c, h, w, k, kernel, stride, pad, e);
  e.check_channels(static_cast<size_t>(p.k), "conv2d");
  pyb::list out;
  for (const auto& cand : compiler::rank_schedules(p, e, config_arg(config), count)) {
    pyb::dict d = to_python(cand.schedule.to_json()).cast<pyb::dict>();
    d["est_cycles"] = cand.est_cycles;
    d["est_bytes"] = cand.est_bytes;
    d["score"] = cand.score;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_layers(pyb::module_& m) {
  using D = compiler::Conv2dDefaults;
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const Interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  using pyb::arg;
  m.def("conv2d", &conv2d, R"doc(
Compile and run one conv2d layer; returns a dict with the counters ("stats"), "cycles" (timed
backends), the schedule, bytes moved and their minimum, and "output" (int8 numpy, N x K x OH x OW).

Give a ResNet-18 layer (layer="resnet18.C8") or a shape (n, c, h, w, k, kernel, stride, pad;
the defaults of `vtasim conv2d`: 1x16x14x14, k 16, 3x3, stride 1, pad 1). x (N x C x H x W) and weights (K x C x KH x KW) are int8 numpy
arrays; omitted ones are seeded random data. bias_values (int32, K) implies a bias. The result
is checked against the plain C++ reference unless check=False ("mismatches"). shift is one right
shift for every output channel or a list of one per output channel (K).)doc",
        arg("config") = "pynq", pyb::kw_only(), arg("layer") = pyb::none(), arg("n") = D::n,
        arg("c") = D::c, arg("h") = D::h, arg("w") = D::w, arg("k") = D::k,
        arg("kernel") = D::kernel, arg("stride") = D::stride, arg("pad") = D::pad,
        arg("bias") = false, arg("shift") = 0, arg("relu") = false, arg("clip") = pyb::none(),
        arg("x") = pyb::none(), arg("weights") = pyb::none(), arg("bias_values") = pyb::none(),
        arg("schedule") = "auto", arg("backend") = "", arg("seed") = 1, arg("check") = true,
        arg("verify") = true, arg("dump_program") = "");
  m.def("matmul", &matmul, R"doc(
C = A x B on VTA (int8 a: M x K, b: K x N; optional int32 bias_values of N), with the fused
epilogue (shift: one, or a list of one per output column N; relu, clip=(lo, hi)); returns a dict
like conv2d with "output" M x N.)doc",
        arg("config"), arg("a"), arg("b"), pyb::kw_only(), arg("bias_values") = pyb::none(),
        arg("shift") = 0, arg("relu") = false, arg("clip") = pyb::none(), arg("schedule") = "auto",
        arg("backend") = "", arg("check") = true, arg("verify") = true);
  m.def("network", &network, R"doc(
Run a whole network ("resnet18", a network JSON file or MODEL.onnx) layer by layer; returns
{"layers": [dict per VTA layer], "host_ops": [...], "cycles", "wall_seconds", "output"}. An ONNX
model is imported and quantized first (calib inputs; quant "max" or "percentile" and / or
"per-tensor" or "per-channel" weight scales, e.g. "max,per-channel", as `vtasim network
MODEL.onnx --quant`); the result then has "frontend" (the quantization report, as the
CLI's --json, with "output_matches_reference"), "host_time_us" (the host layers on the design's
board CPU), "end_to_end_us" (VTA + host, timed backends; else None), "import_seconds" and
"quantize_seconds" (the front end's wall times). Ctrl-C stops it, inside a layer too
(KeyboardInterrupt).)doc",
        arg("name_or_path") = "resnet18", arg("config") = "pynq", pyb::kw_only(),
        arg("backend") = "", arg("check") = true, arg("tune") = 0, arg("verify") = true,
        arg("calib") = 4, arg("quant") = "max");
  m.def("schedules", &schedules,
        "The best-ranked schedules of a conv2d layer (dicts with est_cycles, est_bytes and the "
        "ranking score), best first.",
        arg("config") = "pynq", pyb::kw_only(), arg("layer") = pyb::none(), arg("n") = D::n,
        arg("c") = D::c, arg("h") = D::h, arg("w") = D::w, arg("k") = D::k,
        arg("kernel") = D::kernel, arg("stride") = D::stride, arg("pad") = D::pad,
        arg("count") = 8);
  m.def("backends", &available_backends, "Backends built into this module, default last.");
}

}  // namespace vta::py
