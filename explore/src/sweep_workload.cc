#include "vta/explore/sweep_workload.h"

#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "vta/compiler/frontend/onnx_import.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"
#include "vta/sim/input_file.h"
#include "vta/sim/text_hash.h"

namespace vta::explore {

using namespace vta::compiler;

namespace {

int parse_dim(const std::string& text, const std::string& what, const std::string& whole) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < 0 || v > kMaxTensorDim) {
    throw Error(fmt::format("workload '{}': {} '{}' must be an integer in 0..{}", whole, what, text,
                            kMaxTensorDim));
  }
  return v;
}

// "c=64,hw=56,k=64,kernel=3,pad=1" over the defaults of `vtasim conv2d`.
Conv2dParams parse_conv_shape(const std::string& arg, const std::string& whole) {
  using D = Conv2dDefaults;
  std::map<std::string, int> v = {{"n", D::n},           {"c", D::c},    {"h", D::h},
                                  {"w", D::w},           {"k", D::k},    {"kernel", D::kernel},
                                  {"stride", D::stride}, {"pad", D::pad}};
  std::set<std::string> given;  // a key twice (or hw with h or w) is an error, not "last wins"
  size_t pos = 0;
  while (pos <= arg.size()) {
    const size_t comma = std::min(arg.find(',', pos), arg.size());
    const std::string item = arg.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos || (key != "hw" && v.count(key) == 0)) {
      throw Error(fmt::format(
          "workload '{}': '{}' is not KEY=VALUE with KEY one of n, c, h, w, hw, k, kernel, "
          "stride, pad (or a layer such as resnet18.C8)",
          whole, item));
    }
    for (const std::string& k :
         key == "hw" ? std::vector<std::string>{"h", "w"} : std::vector<std::string>{key}) {
      if (!given.insert(k).second) {
        throw Error(fmt::format("workload '{}': '{}' sets {} a second time", whole, item, k));
      }
    }
    const int x = parse_dim(item.substr(eq + 1), key, whole);
    if (key == "hw") {
      v["h"] = v["w"] = x;
    } else {
      v[key] = x;
    }
    pos = comma + 1;
  }
  Conv2dParams p;
  p.name = "conv2d";
  p.n = v["n"];
  p.c = v["c"];
  p.h = v["h"];
  p.w = v["w"];
  p.k = v["k"];
  p.kh = p.kw = v["kernel"];
  p.stride_h = p.stride_w = v["stride"];
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = v["pad"];
  return p;
}

MatmulParams parse_matmul(const std::string& arg, const std::string& whole) {
  const size_t x1 = arg.find('x');
  const size_t x2 = x1 == std::string::npos ? x1 : arg.find('x', x1 + 1);
  if (x2 == std::string::npos) {
    throw Error(fmt::format("workload '{}': expected matmul:MxKxN, e.g. matmul:64x256x100", whole));
  }
  MatmulParams p;
  p.m = parse_dim(arg.substr(0, x1), "M", whole);
  p.k = parse_dim(arg.substr(x1 + 1, x2 - x1 - 1), "K", whole);
  p.n = parse_dim(arg.substr(x2 + 1), "N", whole);
  p.name = fmt::format("matmul {}x{}x{}", p.m, p.k, p.n);
  return p;
}

}  // namespace

namespace {

// Whether the raw float32 file `input` fits the input of MODEL.onnx at `path` (an input of the
// wrong size is the spec's error, found when the spec is read); a model that does not import is
// left to load_model, which makes its error the workload's.
void check_model_input(const std::string& path, const std::string& input) {
  compiler::FloatGraph g;
  try {
    g = compiler::import_onnx(path);
  } catch (const Error&) {
    return;
  }
  (void)compiler::read_float_input(g, input);
}

}  // namespace

void SweepWorkload::load_model(compiler::QuantOptions quant, const std::string& input,
                               const std::vector<compiler::LayerWidths>& widths) {
  unload_model();
  compiler::FloatGraph g;
  try {
    g = compiler::import_onnx_timed(model_path);
    if (!input.empty()) {
      quant.first_input = compiler::read_float_input(g, input);
    }
  } catch (const Error& e) {
    import_error = e.what();
    return;
  }
  // The float graph is imported once; each width is its own quantization (calibration and the
  // reference at those lanes), as `vtasim network MODEL.onnx --config` quantizes to its config.
  for (const compiler::LayerWidths& lanes : widths) {
    Quantized q;
    q.widths = lanes;
    quant.widths = lanes;
    try {
      q.model = std::make_shared<compiler::QuantizedModel>(compiler::quantize_graph(g, quant));
    } catch (const Error& e) {
      q.error = e.what();
    }
    quantized.push_back(std::move(q));
  }
}

const SweepWorkload::Quantized* SweepWorkload::quantized_at(
    const compiler::LayerWidths& widths) const {
  for (const Quantized& q : quantized) {
    if (q.widths == widths) {
      return &q;
    }
  }
  return nullptr;
}

void SweepWorkload::unload_model() {
  quantized.clear();
  import_error.clear();
}

SweepWorkload SweepWorkload::parse(const std::string& text, const std::string& dir,
                                   const std::string& input) {
  SweepWorkload w;
  w.text = text;
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (colon == std::string::npos || arg.empty()) {
    throw Error(fmt::format(
        "workload '{}' must be network:NAME_OR_FILE, conv2d:LAYER_OR_SHAPE or matmul:MxKxN", text));
  }
  try {
    if (kind == "network") {
      w.kind = Kind::kNetwork;
      const std::filesystem::path local = std::filesystem::path(dir) / arg;
      const bool in_dir = !dir.empty() && std::filesystem::path(arg).is_relative() &&
                          std::filesystem::exists(local);
      const std::string path = in_dir ? local.string() : arg;
      if (std::filesystem::exists(path)) {
        w.content_id = short_hash(read_input_file(path, "network file", kMaxModelInputBytes));
      }
      // MODEL.onnx: imported and quantized as `vtasim network MODEL.onnx --calib C --quant Q
      // [--input F]` does.
      w.onnx = is_onnx_model(path);
      if (w.onnx && !std::filesystem::exists(path)) {
        (void)compiler::import_onnx(path);  // the spec's error, naming the missing file
      }
      if (w.onnx) {
        w.model_path = path;  // imported when its jobs run (load_model)
        if (!input.empty()) {
          check_model_input(path, input);
        }
      } else {
        w.network = Network::load(path);
      }
    } else if (kind == "conv2d") {
      w.kind = Kind::kConv2d;
      if (arg.find('=') == std::string::npos) {
        const NamedConvLayer l = find_named_layer(arg);
        w.conv = l.params;
        w.epilogue = l.epilogue;
      } else {
        w.conv = parse_conv_shape(arg, text);
      }
      w.conv.validate();
    } else if (kind == "matmul") {
      w.kind = Kind::kMatmul;
      w.matmul = parse_matmul(arg, text);
      w.matmul.validate();
    } else {
      throw Error(fmt::format("unknown workload kind '{}' (network, conv2d, matmul)", kind));
    }
  } catch (const Error& e) {
    const std::string msg = e.what();
    throw Error(msg.rfind("workload '", 0) == 0 ? msg
                                                : fmt::format("workload '{}': {}", text, msg));
  }
  return w;
}

namespace {

// The network a network workload runs on the target: a MODEL.onnx's quantization at the
// target's widths, else the network as parsed.
const Network& network_of(const Target& target, const SweepWorkload& w) {
  if (!w.onnx) {
    return w.network;
  }
  const LayerWidths lanes = LayerWidths::of(target.config);
  const SweepWorkload::Quantized* q = w.quantized_at(lanes);
  if (q == nullptr || !q->model) {
    throw Error(fmt::format("workload '{}': the model is not quantized to {} lanes{}", w.text,
                            lanes.describe(), q ? ": " + q->error : ""));
  }
  return q->model->net;
}

}  // namespace

SplitChoice choose_workload_split(const Target& target, const SweepWorkload& w) {
  const HwConfig& cfg = target.config;
  if (cfg.num_cores() < 2) {
    return SplitChoice{};
  }
  switch (w.kind) {
    case SweepWorkload::Kind::kNetwork:
      return choose_network_split(network_of(target, w), cfg, NetworkSplit::kAuto);
    case SweepWorkload::Kind::kConv2d: {
      const ConvSchedule s = auto_schedule(w.conv, w.epilogue, cfg);
      return choose_layer_split(w.conv, w.epilogue, s, false, cfg, NetworkSplit::kAuto);
    }
    case SweepWorkload::Kind::kMatmul: {
      const Conv2dParams p = matmul_as_conv(w.matmul, cfg);
      const ConvSchedule s = auto_schedule(p, Epilogue{}, cfg);
      return choose_layer_split(p, Epilogue{}, s, true, cfg, NetworkSplit::kAuto);
    }
  }
  throw Error("unknown workload kind");
}

std::vector<LayerRun> run_workload(const Target& system, const SweepWorkload& w,
                                   const WorkloadOptions& opt) {
  Target target = system;  // the same runtime, with the layers' split
  target.layer_split = layer_split_of(opt.split);
  switch (w.kind) {
    case SweepWorkload::Kind::kNetwork: {
      NetworkOptions no;
      no.check = opt.check;
      no.tune_candidates = opt.tune;
      no.layer_split = layer_split_of(opt.split);
      no.pipeline = opt.split == NetworkSplit::kPipeline;
      return run_network(target, network_of(target, w), no).runs;
    }
    case SweepWorkload::Kind::kConv2d: {
      if (needs_wide_lanes(target.config) && !opt.tune) {  // int16 / int32 lanes
        const WideConvData data =
            random_wide_conv_data(w.conv, w.epilogue, opt.seed, target.config);
        const ConvSchedule s = auto_schedule(w.conv, w.epilogue, target.config);
        return {run_conv2d_wide(target, w.conv, w.epilogue, s, data, opt.check).run};
      }
      const ConvData data = random_conv_data_at(w.conv, w.epilogue, opt.seed, target.config);
      if (opt.tune) {
        TuneResult t = tune_conv2d(target, w.conv, w.epilogue, data, opt.tune, opt.check);
        return {t.trials[t.best].run};
      }
      const ConvSchedule s = auto_schedule(w.conv, w.epilogue, target.config);
      return {run_conv2d(target, w.conv, w.epilogue, s, data, opt.check)};
    }
    case SweepWorkload::Kind::kMatmul: {
      const Epilogue e;
      const ConvSchedule s =
          auto_schedule(matmul_as_conv(w.matmul, target.config), e, target.config);
      if (needs_wide_lanes(target.config)) {
        return {run_matmul_wide(target, w.matmul, e, s,
                                random_wide_matmul_data(w.matmul, e, opt.seed, target.config),
                                opt.check)
                    .run};
      }
      return {run_matmul(target, w.matmul, e, s,
                         random_matmul_data_at(w.matmul, e, opt.seed, target.config), opt.check)};
    }
  }
  throw Error("unknown workload kind");
}

}  // namespace vta::explore
