// The network compiler's operator table, IR and passes: each pass run alone on a small module
// and checked against values worked out by hand; the manager's printing, stopping and
// verification.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/ir/module.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/passes/passes.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

using namespace vta::compiler;

namespace {

// A 1x3x8x8 input, conv2d (k 20) on VTA, a grouped conv2d on the host, maxpool, dense.
Network small_network() {
  return Network::from_json(nlohmann::json::parse(R"({"name": "small", "input": {"c": 4, "h": 8,
    "w": 8}, "layers": [
    {"name": "c1", "op": "conv2d", "input": "data", "k": 20, "kernel": 3, "pad": 1,
     "epilogue": {"shift": 8, "relu": true}},
    {"name": "g", "op": "conv2d", "input": "c1", "k": 20, "groups": 4, "kernel": 3, "pad": 1},
    {"name": "p", "op": "maxpool", "input": "g", "kernel": 2, "stride": 2},
    {"name": "fc", "op": "dense", "input": "p", "units": 10}]})"),
                            "small.json");
}

ir::Module run_passes(Network net, std::initializer_list<std::unique_ptr<Pass> (*)()> passes,
                      const PassContext& ctx = {}) {
  ir::Module m;
  m.name = net.name;
  m.net = std::move(net);
  for (auto make : passes) {
    make()->run(m, ctx);
    ir::verify_module(m);
  }
  return m;
}

vta::HwConfig pynq() {
  return vta::HwConfig::from_file(config_path("pynq"));
}

}  // namespace

TEST_CASE("operator table: every op defined once with what the compiler needs", "[passes]") {
  CHECK(known_op_names() ==
        "conv2d, dense, maxpool, global_avgpool, avgpool, add, concat, hardsigmoid, sigmoid, "
        "tanh, mul, layer_norm, gelu, softmax, scale, batch_matmul, view, permute, slice, "
        "channel_shuffle, add_constant, min, max");
  for (const OpDef* d : op_defs()) {
    INFO(d->name);
    CHECK(find_op_def(d->name) == d);
    CHECK(d->infer_shape);
    CHECK(d->place);
    CHECK(d->attributes);
    CHECK((d->run_host || d->vta.run));
    CHECK(d->json_keys.size() >= 3);
  }
  CHECK_THROWS_WITH(op_def("conv3d"),
                    "unknown op 'conv3d' (known: conv2d, dense, maxpool, "
                    "global_avgpool, avgpool, add, concat, hardsigmoid, sigmoid, tanh, mul, "
                    "layer_norm, gelu, softmax, scale, batch_matmul, view, permute, slice, "
                    "channel_shuffle, add_constant, min, max)");
  CHECK(op_def_for_graph_op(GraphOp::kGemm).name == "dense");
  CHECK_THROWS_WITH(op_def_for_graph_op(GraphOp::kRelu),
                    "no network operator implements the float-graph operator Relu");
  // The one output-size formula: ResNet-18's C1 (224, pad 3, kernel 7, stride 2) gives 112.
  CHECK(window_output_size(224, 3, 3, 7, 2) == 112);
  CHECK(window_output_size(7, 0, 0, 3, 2) == 3);
}

TEST_CASE("import pass: resnet18, a JSON file", "[passes]") {
  ir::Module m;
  PassContext ctx;
  ctx.source = "resnet18";
  CHECK(make_import_pass()->run(m, ctx));
  REQUIRE(m.net);
  // C1, pool, 16 block convs, 3 shortcut convs, global pool, fc.
  CHECK(m.net->layers.size() == 23);
  ir::Module t;
  ctx.source = std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json";
  make_import_pass()->run(t, ctx);
  CHECK(t.name == "tiny_resnet");
  CHECK(t.net->layers.size() == 9);
}

TEST_CASE("quantize pass: a float Conv+Relu becomes one conv2d layer", "[passes]") {
  FloatGraph g;
  g.name = "f", g.input = "x", g.input_dims = {1, 2, 4, 4}, g.output = "y";
  GraphNode conv;
  conv.name = "conv", conv.op = GraphOp::kConv, conv.inputs = {"x"}, conv.output = "c";
  conv.weight = FloatTensor{{3, 2, 1, 1}, {0.5f, -0.25f, 0.125f, 1.0f, -1.0f, 0.75f}};
  conv.bias = FloatTensor{{3}, {0.f, 0.f, 0.f}};
  GraphNode relu;
  relu.name = "relu", relu.op = GraphOp::kRelu, relu.inputs = {"c"}, relu.output = "y";
  g.nodes = {conv, relu};
  ir::Module m;
  m.name = "f", m.float_graph = g;
  REQUIRE(make_quantize_pass()->run(m, PassContext{}));
  CHECK(!m.float_graph);
  REQUIRE(m.net->layers.size() == 1);
  CHECK(m.net->layers[0].op == "conv2d");
  CHECK(m.net->layers[0].k == 3);
  CHECK(m.net->layers[0].epilogue.relu);
  // An int8 network is left alone.
  ir::Module n;
  n.net = small_network();
  CHECK_FALSE(make_quantize_pass()->run(n, PassContext{}));
}

TEST_CASE("infer-types pass: shapes by hand", "[passes]") {
  const ir::Module m = run_passes(small_network(), {make_infer_types_pass});
  CHECK(m.types.at("data").str() == "i8[1x4x8x8] NCHW");
  CHECK(m.types.at("c1").shape == TensorShape{1, 20, 8, 8});
  CHECK(m.types.at("g").shape == TensorShape{1, 20, 8, 8});
  CHECK(m.types.at("p").shape == TensorShape{1, 20, 4, 4});
  CHECK(m.types.at("fc").shape == TensorShape{1, 10, 1, 1});
}

TEST_CASE("place pass: VTA for one-group conv2d and dense, the host for the others", "[passes]") {
  const ir::Module m = run_passes(small_network(), {make_infer_types_pass, make_place_pass});
  REQUIRE(m.ops.size() == 4);
  CHECK(m.ops[0].place == Placement::kVta);
  CHECK(m.ops[1].place == Placement::kHost);
  CHECK(m.ops[2].place == Placement::kHost);
  CHECK(m.ops[3].place == Placement::kVta);
}

TEST_CASE("pack-layout pass: blocks of the design, channels padded", "[passes]") {
  PassContext ctx;
  ctx.config = pynq();  // BATCH 1, BLOCK 16
  const ir::Module m = run_passes(
      small_network(), {make_infer_types_pass, make_place_pass, make_pack_layout_pass}, ctx);
  REQUIRE(m.ops[0].packed);
  CHECK(m.ops[0].packed->str() == "NCHW1n16c c 4->16 k 20->32");
  CHECK(!m.ops[1].packed);
  // dense reads 20x4x4 = 320 values per sample: 20 blocks exactly.
  CHECK(m.ops[3].packed->str() == "NCHW1n16c c 320->320 k 10->16");
  // A kernel fold of f rows: C * f * KW channels (kernel_fold.h), 4 * 3 * 3 = 36 -> 48.
  ir::Module f = run_passes(small_network(), {make_infer_types_pass, make_place_pass});
  f.net->layers[0].schedule = ConvSchedule{};
  f.net->layers[0].schedule->fold_rows = 3;
  make_pack_layout_pass()->run(f, ctx);
  CHECK(f.ops[0].packed->str() == "NCHW1n16c c 36->48 k 20->32");
  // Without a design the pass does nothing.
  const ir::Module n =
      run_passes(small_network(), {make_infer_types_pass, make_place_pass, make_pack_layout_pass});
  CHECK(!n.ops[0].packed);
}

TEST_CASE("schedule pass: the automatic schedule, none when tuning", "[passes]") {
  PassContext ctx;
  ctx.config = pynq();
  const ir::Module m = run_passes(
      small_network(), {make_infer_types_pass, make_place_pass, make_schedule_pass}, ctx);
  const NetworkLayer& c1 = m.net->layers[0];
  REQUIRE(c1.schedule);
  Conv2dParams p;
  p.name = "c1", p.n = 1, p.c = 4, p.h = p.w = 8, p.k = 20, p.kh = p.kw = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  CHECK(c1.schedule->describe() == auto_schedule(p, c1.epilogue, *ctx.config).describe());
  CHECK(m.ops[0].auto_scheduled);
  CHECK(!m.net->layers[1].schedule);  // host
  ctx.tune_candidates = 2;
  const ir::Module t = run_passes(
      small_network(), {make_infer_types_pass, make_place_pass, make_schedule_pass}, ctx);
  CHECK(!t.net->layers[0].schedule);
}

namespace {

// What a lowered program does, counted from its calls.
struct LoweredCounts {
  uint64_t gemm_executions = 0;  // accumulating GEMM micro-op executions (no resets)
  uint64_t stored_elements = 0;
  uint64_t pushes = 0, pops = 0;
};

LoweredCounts count_lowered(const RecordingSink& sink) {
  LoweredCounts n;
  for (const RecordedCall& c : sink.calls()) {
    if (c.kind == CallKind::kKernel) {
      const MicroKernel& k = sink.kernels()[c.kernel];
      n.gemm_executions += k.gemm && !k.reset ? k.executions() : 0;
    }
    n.stored_elements += c.kind == CallKind::kStore ? uint64_t(c.store.x_size) * c.store.y_size : 0;
    n.pushes += c.kind == CallKind::kDepPush ? 1 : 0;
    n.pops += c.kind == CallKind::kDepPop ? 1 : 0;
  }
  return n;
}

}  // namespace

// Independent counts: VTA computes every output element block once per input-channel block and
// kernel tap (the padding is loaded as zeros), stores every output block once, and every token
// pushed is popped.
TEST_CASE("lower pass: the program of each scheduled VTA op, counted by hand", "[passes]") {
  PassContext ctx;
  ctx.config = pynq();
  const ir::Module m = run_passes(small_network(),
                                  {make_infer_types_pass, make_place_pass, make_schedule_pass,
                                   make_pack_layout_pass, make_lower_pass},
                                  ctx);
  // c1: 4 -> 20 channels (2 output blocks of 16), 8x8 output, 3x3 kernel. Its automatic
  // schedule folds one kernel row's columns into the channels: 4 x 1 x 3 = 12 channels (one input
  // block) and a 3x1 window (kernel_fold.h).
  REQUIRE(m.ops[0].lowered);
  REQUIRE(m.net->layers[0].schedule->fold_rows == 1);
  const LoweredCounts c1 = count_lowered(*m.ops[0].lowered);
  CHECK(c1.gemm_executions == 2 * 8 * 8 * 1 * 3 * 1);
  CHECK(c1.stored_elements == 2 * 8 * 8);
  CHECK(c1.pushes == c1.pops);
  // Without the fold: 1 input block, the 3x3 window.
  Network unfolded = small_network();
  unfolded.layers[0].schedule = ConvSchedule{};
  unfolded.layers[0].schedule->tile_h = unfolded.layers[0].schedule->tile_w = 8;
  unfolded.layers[0].schedule->tile_oc_blocks = 2;
  const ir::Module u = run_passes(unfolded,
                                  {make_infer_types_pass, make_place_pass, make_schedule_pass,
                                   make_pack_layout_pass, make_lower_pass},
                                  ctx);
  REQUIRE(u.ops[0].lowered);
  CHECK(count_lowered(*u.ops[0].lowered).gemm_executions == 2 * 8 * 8 * 1 * 3 * 3);
  CHECK(!m.ops[1].lowered);  // the grouped conv2d runs on the host
  // fc: 20x4x4 = 320 inputs (20 blocks) to 10 units (1 block), one row.
  REQUIRE(m.ops[3].lowered);
  const LoweredCounts fc = count_lowered(*m.ops[3].lowered);
  CHECK(fc.gemm_executions == 20);
  CHECK(fc.stored_elements == 1);
  CHECK(fc.pushes == fc.pops);
  const std::string text = ir::print_module(m);
  CHECK(text.find(" lowered=(" + lowered_summary(*m.ops[0].lowered) + ")") != std::string::npos);
  // No design, or tuning (no schedules): nothing is lowered.
  ctx.tune_candidates = 2;
  const ir::Module t = run_passes(small_network(),
                                  {make_infer_types_pass, make_place_pass, make_schedule_pass,
                                   make_pack_layout_pass, make_lower_pass},
                                  ctx);
  CHECK(!t.ops[0].lowered);
}

namespace {

// A pass that breaks an invariant: a type of the wrong shape.
class BreakTypesPass : public Pass {
 public:
  std::string name() const override { return "break-types"; }
  std::string description() const override { return "test"; }
  bool run(ir::Module& m, const PassContext&) const override {
    m.types.at("stem").shape.c = 7;
    return true;
  }
};

}  // namespace

TEST_CASE("pass manager: order, printing, stopping, verification", "[passes]") {
  const PassManager pm = network_pipeline();
  std::string names;
  for (const auto& p : pm.passes()) {
    names += p->name() + " ";
  }
  CHECK(names == "import quantize infer-types place schedule pack-layout lower ");
  PassContext ctx;
  ctx.source = std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json";
  std::ostringstream out;
  PassInstrument inst;
  inst.print_before = {"place"};
  inst.print_after = {"all"};
  inst.stop_after = "place";
  inst.out = &out;
  ir::Module m;
  pm.run(m, ctx, inst);
  const std::string s = out.str();
  CHECK(s.find("// ---- IR after pass 'import' ----") != std::string::npos);
  CHECK(s.find("// ---- IR after pass 'quantize' (unchanged) ----") != std::string::npos);
  CHECK(s.find("// ---- IR before pass 'place' ----") != std::string::npos);
  CHECK(s.find("pack-layout") == std::string::npos);
  CHECK(m.ops.size() == 9);
  CHECK_THROWS_WITH(pm.check_pass_name("fuse", "--print-after"),
                    "--print-after 'fuse' names no pass (passes: import, quantize, infer-types, "
                    "place, schedule, pack-layout, lower)");
  PassManager broken;
  broken.add(make_import_pass());
  broken.add(make_infer_types_pass());
  broken.add(std::make_unique<BreakTypesPass>());
  ir::Module b;
  ctx.source = std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json";
  CHECK_THROWS_WITH(broken.run(b, ctx),
                    "IR check after pass 'break-types': value '%stem' has "
                    "type i8[1x7x32x32] NCHW but its op gives 1x24x32x32");
}

TEST_CASE("hardsigmoid: int8 on the host against an integer formula, float reference", "[passes]") {
  // alpha 1/4, beta 1/2, input 2^-4, output 2^-6: q_out = round((q/16/4 + 1/2) * 64) = q + 32,
  // clipped to 0..64; every int8 input once (16x16 values).
  Network net = Network::from_json(nlohmann::json::parse(R"({"name": "hs", "input": {"c": 1,
    "h": 16, "w": 16}, "layers": [{"name": "y", "op": "hardsigmoid", "input": "data",
    "alpha": 0.25, "beta": 0.5, "in_exp": 4, "out_exp": 6}]})"),
                                   "hs.json");
  std::vector<int8_t> in(256);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = int8_t(int(i) - 128);
  }
  net.input_data = std::make_shared<const std::vector<int8_t>>(in);
  const auto tensors = reference_network_tensors(net);
  const std::vector<int8_t>& out = tensors.at("y").data;
  REQUIRE(out.size() == 256);
  for (size_t i = 0; i < in.size(); ++i) {
    INFO(int(in[i]));
    CHECK(int(out[i]) == std::clamp(int(in[i]) + 32, 0, 64));
  }
  // The JSON form reads back the same; the IR line shows the attributes, placed on the host.
  CHECK(Network::from_json(net.to_json(), "again").to_json() == net.to_json());
  const ir::Module m = run_passes(net, {make_infer_types_pass, make_place_pass});
  CHECK(m.ops[0].place == Placement::kHost);
  CHECK(ir::print_module(m).find("%y = hardsigmoid(%data) alpha=0.25 beta=0.5 in_exp=4 "
                                 "out_exp=6 : i8[1x1x16x16] NCHW @host") != std::string::npos);
  // Float reference: ONNX's defaults alpha 0.2, beta 0.5, at points worked out by hand.
  NetworkLayer l;
  l.op = "hardsigmoid";
  FloatTensor x{{1, 4, 1, 1}, {-3.0f, 0.0f, 1.0f, 3.0f}};
  const FloatTensor y = op_def("hardsigmoid").float_reference(l, {&x});
  CHECK(y.data == std::vector<float>{0.0f, 0.5f, 0.7f, 1.0f});
  CHECK_THROWS_WITH(
      Network::from_json(nlohmann::json::parse(R"({"name": "n", "input": {"c": 1, "h": 2,
        "w": 2}, "layers": [{"name": "y", "op": "hardsigmoid", "input": "data", "in_exp": 30}]})"),
                         "n.json"),
      "n.json: network n: hardsigmoid layer 'y': in_exp must be an integer in -24..24 (got 30)");
}

TEST_CASE("sigmoid, tanh and mul: int8 on the host against formulas of their own", "[passes]") {
  // Every int8 input once (16 channels x 4 x 4): sigmoid at input 2^-4, output 2^-7, against
  // 1/2 + tanh(x/2)/2; tanh at input 2^-5, output 2^-7, against 1 - 2 / (e^2x + 1); y = x * x at
  // 2^-4 each, output 2^-3: (q*q + 16) / 32 for q*q >= 0; z = x times the per-channel mean g (one
  // value per channel broadcast over the pixels).
  Network net = Network::from_json(nlohmann::json::parse(R"({"name": "sm", "input": {"c": 16,
    "h": 4, "w": 4}, "layers": [
    {"name": "s", "op": "sigmoid", "input": "data", "in_exp": 4, "out_exp": 7},
    {"name": "h", "op": "tanh", "input": "data", "in_exp": 5, "out_exp": 7},
    {"name": "y", "op": "mul", "input": "data", "residual": "data", "a_exp": 4, "b_exp": 4,
     "out_exp": 3},
    {"name": "g", "op": "global_avgpool", "input": "data"},
    {"name": "z", "op": "mul", "input": "data", "residual": "g", "a_exp": 4, "b_exp": 4,
     "out_exp": 4, "per_channel": true}]})"),
                                   "sm.json");
  std::vector<int8_t> in(256);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = int8_t(int(i) - 128);
  }
  net.input_data = std::make_shared<const std::vector<int8_t>>(in);
  const auto t = reference_network_tensors(net);
  const std::vector<int8_t>&s = t.at("s").data, &y = t.at("y").data, &z = t.at("z").data;
  const std::vector<int8_t>& g = t.at("g").data;
  REQUIRE(g.size() == 16);
  for (size_t i = 0; i < in.size(); ++i) {
    const int q = in[i];
    INFO(q);
    const double sig = 0.5 + 0.5 * std::tanh(q / 16.0 / 2);
    CHECK(int(s[i]) == std::min(127, int(std::floor(sig * 128 + 0.5))));
    const double th = 1.0 - 2.0 / (std::exp(2.0 * q / 32.0) + 1.0);  // ties away from zero
    const int h = int(th >= 0 ? std::floor(th * 128 + 0.5) : -std::floor(-th * 128 + 0.5));
    CHECK(int(t.at("h").data[i]) == std::clamp(h, -128, 127));
    CHECK(int(y[i]) == std::min(127, (q * q + 16) / 32));
    const int p = q * g[i / 16];  // scale 2^-8 to 2^-4: divide by 16, ties away from zero
    CHECK(int(z[i]) == std::clamp((p >= 0 ? p + 8 : p - 8) / 16, -128, 127));
  }
  CHECK(Network::from_json(net.to_json(), "again").to_json() == net.to_json());
  CHECK_THROWS_WITH(
      Network::from_json(nlohmann::json::parse(R"({"name": "n", "input": {"c": 2, "h": 4,
        "w": 4}, "layers": [{"name": "p", "op": "maxpool", "input": "data", "kernel": 2,
        "stride": 2}, {"name": "y", "op": "mul", "input": "data", "residual": "p"}]})"),
                         "n.json"),
      "n.json: network n: mul layer 'y': operand 'data' has shape 1x2x4x4, 'p' has 1x2x2x2 (the "
      "same shape; one value per sample and channel needs \"per_channel\": true)");
}

TEST_CASE("attention's host operators: permute, view and batch_matmul int8 against loops",
          "[passes]") {
  // data 2x3x4x2 (every int8 value from -96 on); t = data with H and W swapped (2x3x2x4);
  // s = data x t per (n, c) plane (4x2 by 2x4), a_exp 4 + b_exp 4 - out_exp 5: acc / 8 rounded
  // to nearest (ties away from zero), saturated; v = t seen as 6x8x1x1.
  Network net = Network::from_json(nlohmann::json::parse(R"({"name": "att", "input": {"n": 2,
    "c": 3, "h": 4, "w": 2}, "layers": [
    {"name": "t", "op": "permute", "input": "data", "perm0": 0, "perm1": 1, "perm2": 3,
     "perm3": 2},
    {"name": "s", "op": "batch_matmul", "input": "data", "residual": "t", "a_exp": 4,
     "b_exp": 4, "out_exp": 5},
    {"name": "v", "op": "view", "input": "t", "to_n": 6, "to_c": 8}]})"),
                                   "att.json");
  std::vector<int8_t> in(48);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = int8_t(int(i) * 4 - 96);
  }
  net.input_data = std::make_shared<const std::vector<int8_t>>(in);
  const auto t = reference_network_tensors(net);
  const std::vector<int8_t>&tr = t.at("t").data, &s = t.at("s").data;
  for (int plane = 0; plane < 6; ++plane) {
    auto x = [&](int i, int j) { return int(in[size_t(plane * 8 + i * 2 + j)]); };
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 2; ++j) {
        CHECK(int(tr[size_t(plane * 8 + j * 4 + i)]) == x(i, j));
      }
      for (int j = 0; j < 4; ++j) {
        const int acc = x(i, 0) * x(j, 0) + x(i, 1) * x(j, 1);
        const int q = acc >= 0 ? (acc + 4) / 8 : -((-acc + 4) / 8);
        CHECK(int(s[size_t(plane * 16 + i * 4 + j)]) == std::clamp(q, -128, 127));
      }
    }
  }
  CHECK(t.at("v").data == tr);
  CHECK((t.at("v").n == 6 && t.at("v").c == 8 && t.at("v").h == 1));
  CHECK(Network::from_json(net.to_json(), "again").to_json() == net.to_json());
  const std::string ir =
      ir::print_module(run_passes(net, {make_infer_types_pass, make_place_pass}));
  CHECK(ir.find("%s = batch_matmul(%data, %t) a_exp=4 b_exp=4 out_exp=5 i8 x i8 -> i32 shift=3 : "
                "i8[2x3x4x4] NCHW @host") != std::string::npos);
  CHECK(ir.find("%v = view(%t) to=6x8x1x1 : i8[6x8x1x1]") != std::string::npos);
  CHECK_THROWS_WITH(
      Network::from_json(nlohmann::json::parse(R"({"name": "n", "input": {"c": 2, "h": 4,
        "w": 4}, "layers": [{"name": "v", "op": "view", "input": "data", "to_n": 5}]})"),
                         "n.json"),
      "n.json: network n: view layer 'v': the 32 values of 1x2x4x4 cannot be viewed as 5x1x1x1");
}

TEST_CASE("float host operators: values by hand, the conversions in the IR", "[passes]") {
  NetworkLayer l;
  FloatTensor x{{1, 2, 1, 1}, {0.0f, float(std::log(3.0))}};
  const FloatTensor p = op_def("softmax").float_reference(l, {&x});
  CHECK(p.data[0] == Approx(0.25));
  CHECK(p.data[1] == Approx(0.75));
  // (x - 2) / 1 with eps 0 (gain 2, bias 1 on the second position): -1 and 3.
  l.attrs["eps"] = 0;
  l.float_params = std::make_shared<const std::vector<float>>(std::vector<float>{1, 2, 0, 1});
  FloatTensor ln{{1, 2, 1, 1}, {1.0f, 3.0f}};
  CHECK(op_def("layer_norm").float_reference(l, {&ln}).data == std::vector<float>{-1.0f, 3.0f});
  FloatTensor g{{1, 3, 1, 1}, {0.0f, 1.0f, -1.0f}};
  const FloatTensor y = op_def("gelu").float_reference(l, {&g});
  CHECK(y.data[0] == 0.0f);
  CHECK(y.data[1] == Approx(0.8413447));  // Phi(1)
  CHECK(y.data[2] == Approx(-0.1586553));
  // int8: softmax of two equal values at output 2^-7 is 64 each; the IR names the conversions.
  Network net = Network::from_json(nlohmann::json::parse(R"({"name": "f", "input": {"c": 2,
    "h": 1, "w": 1}, "layers": [{"name": "s", "op": "softmax", "input": "data", "in_exp": 4,
    "out_exp": 7}]})"),
                                   "f.json");
  net.input_data = std::make_shared<const std::vector<int8_t>>(std::vector<int8_t>{5, 5});
  CHECK(reference_network_tensors(net).at("s").data == std::vector<int8_t>{64, 64});
  CHECK(ir::print_module(run_passes(net, {make_infer_types_pass, make_place_pass}))
            .find("%s = softmax(%data) axis=1 dequantize(2^-4) f32 quantize(2^-7) : "
                  "i8[1x2x1x1] NCHW @host") != std::string::npos);
}

TEST_CASE("slice and channel_shuffle: int8 values moved on the host, by index", "[passes]") {
  // 6 channels of 2x3 pixels, every value distinct (v = 6 * channel + pixel - 18). The shuffle
  // in 3 groups views the channels as 3 x 2 and transposes them: output channels read input
  // channels 0, 2, 4, 1, 3, 5 (worked out by hand); in 2 groups (2 x 3): 0, 3, 1, 4, 2, 5. The
  // slice takes channels 1..3, row 1, columns 0..1 of the first shuffle's output.
  Network net = Network::from_json(nlohmann::json::parse(R"({"name": "mv", "input": {"c": 6,
    "h": 2, "w": 3}, "layers": [
    {"name": "s3", "op": "channel_shuffle", "input": "data", "groups": 3},
    {"name": "s2", "op": "channel_shuffle", "input": "data", "groups": 2},
    {"name": "box", "op": "slice", "input": "s3", "begin": [1, 1, 0], "end": [4, 2, 2]}]})"),
                                   "mv.json");
  std::vector<int8_t> in(36);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = int8_t(int(i) - 18);
  }
  net.input_data = std::make_shared<const std::vector<int8_t>>(in);
  const auto t = reference_network_tensors(net);
  auto channel = [&](const std::string& name, int c) {
    const std::vector<int8_t>& d = t.at(name).data;
    return std::vector<int>(d.begin() + c * 6, d.begin() + c * 6 + 6);
  };
  auto input_channel = [&](int c) {
    std::vector<int> v;
    for (int p = 0; p < 6; ++p) {
      v.push_back(6 * c + p - 18);
    }
    return v;
  };
  const int by3[] = {0, 2, 4, 1, 3, 5}, by2[] = {0, 3, 1, 4, 2, 5};
  for (int c = 0; c < 6; ++c) {
    INFO(c);
    CHECK(channel("s3", c) == input_channel(by3[c]));
    CHECK(channel("s2", c) == input_channel(by2[c]));
  }
  const NetworkTensor& box = t.at("box");
  CHECK(box.shape() == "1x3x1x2");
  // Channels 1..3 of s3 are input channels 2, 4, 1; row 1 starts at pixel 3.
  CHECK(
      std::vector<int>(box.data.begin(), box.data.end()) ==
      std::vector<int>{12 + 3 - 18, 12 + 4 - 18, 24 + 3 - 18, 24 + 4 - 18, 6 + 3 - 18, 6 + 4 - 18});
  CHECK(Network::from_json(net.to_json(), "again").to_json() == net.to_json());
  const ir::Module m = run_passes(net, {make_infer_types_pass, make_place_pass});
  const std::string ir = ir::print_module(m);
  CHECK(ir.find("%s3 = channel_shuffle(%data) groups=3 : i8[1x6x2x3] NCHW @host") !=
        std::string::npos);
  CHECK(ir.find("%box = slice(%s3) c=1:4 h=1:2 w=0:2 : i8[1x3x1x2] NCHW @host") !=
        std::string::npos);
  // The float references move float values the same way.
  FloatTensor x{{1, 6, 2, 3}, std::vector<float>(in.begin(), in.end())};
  const NetworkLayer& l3 = net.layers[0];
  const FloatTensor y = op_def("channel_shuffle").float_reference(l3, {&x});
  CHECK(std::vector<int8_t>(y.data.begin(), y.data.end()) == t.at("s3").data);
  const FloatTensor b = op_def("slice").float_reference(net.layers[2], {&y});
  CHECK(b.dims == std::vector<int>{1, 3, 1, 2});
  CHECK(std::vector<int8_t>(b.data.begin(), b.data.end()) == box.data);
}

TEST_CASE("slice and channel_shuffle: attributes that do not fit the input", "[passes]") {
  auto load = [](const std::string& layer) {
    return Network::from_json(nlohmann::json::parse(R"({"name": "n", "input": {"c": 6, "h": 4,
      "w": 4}, "layers": [)" + layer + "]}"),
                              "n.json");
  };
  CHECK_THROWS_WITH(load(R"({"name": "s", "op": "channel_shuffle", "input": "data",
                             "groups": 4})"),
                    "n.json: network n: channel_shuffle layer 's': 6 channels do not divide into 4 "
                    "groups");
  // A box may reach past the input (zeros there: a Pad), but not lie wholly outside it.
  CHECK_NOTHROW(load(R"({"name": "b", "op": "slice", "input": "data", "begin": [0, 2, 0],
                             "end": [6, 5, 4]})"));
  CHECK_THROWS_WITH(load(R"({"name": "b", "op": "slice", "input": "data", "begin": [0, 4, 0],
                             "end": [6, 6, 4]})"),
                    "n.json: network n: slice layer 'b': h=4:6 is empty or outside the input "
                    "1x6x4x4");
  CHECK_THROWS_WITH(load(R"({"name": "b", "op": "slice", "input": "data", "begin": [3, 0, 0],
                             "end": [3, 4, 4]})"),
                    "n.json: network n: slice layer 'b': c=3:3 is empty or outside the input "
                    "1x6x4x4");
  CHECK_THROWS_WITH(load(R"({"name": "b", "op": "slice", "input": "data", "begin": [0, 0],
                             "end": [6, 4, 4]})"),
                    "n.json: slice layer 'b' key 'begin' must be an array of 3 integers (C, H, "
                    "W)");
}
