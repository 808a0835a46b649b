// The residual shift (Epilogue::residual_shift r): a residual held at a 2^-r finer scale than
// the conv2d's output is added rounded half up, (res + 2^(r-1)) >> r, which VTA does as an ALU
// ADD and SHR of the residual's accumulator region before the residual ADD. A plain convolution
// loop written here is the reference; compiled layers (r of 1, 3 and 8, with and without a bias:
// without one the residual would otherwise initialise the accumulator) must equal it bit for
// bit on fsim, cycle and rtl, and rtl must take the cycle model's cycles. r = 0 must leave the
// program as it was.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

constexpr uint64_t kSeed = 9090;  // printed by every case that uses it

// 20 output channels: 1.25 blocks of 16 (pynq), 2.5 of 8 (small).
Conv2dParams conv20() {
  Conv2dParams p;
  p.name = "rs_conv";
  p.c = 24, p.k = 20, p.h = 6, p.w = 7;
  p.kh = p.kw = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  return p;
}

Epilogue residual_epilogue(bool bias, int r) {
  Epilogue e;
  e.bias = bias;
  e.shift = 10;
  e.residual = true;
  e.residual_shift = r;
  e.relu = true;
  e.clip_hi = 127;
  return e;
}

// The int8 convolution and its epilogue, element by element from the definition: the int32 sum
// (+ bias), an arithmetic >> shift, + round_half_up(res / 2^r), then max 0 and min 127.
std::vector<int8_t> plain_conv(const Conv2dParams& p, const Epilogue& e, const ConvData& d) {
  const int oh = p.out_h(), ow = p.out_w();
  std::vector<int8_t> out(size_t(p.k) * oh * ow);
  for (int k = 0; k < p.k; ++k) {
    for (int y = 0; y < oh; ++y) {
      for (int x = 0; x < ow; ++x) {
        int64_t acc = e.bias ? d.bias[size_t(k)] : 0;
        for (int c = 0; c < p.c; ++c) {
          for (int i = 0; i < p.kh; ++i) {
            for (int j = 0; j < p.kw; ++j) {
              const int iy = y * p.stride_h + i - p.pad_top, ix = x * p.stride_w + j - p.pad_left;
              if (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w) {
                acc += int64_t(d.x[size_t((c * p.h + iy) * p.w + ix)]) *
                       d.w[size_t(((k * p.c + c) * p.kh + i) * p.kw + j)];
              }
            }
          }
        }
        const size_t o = size_t((k * oh + y) * ow + x);
        const int r = e.residual_shift;
        const int64_t res = r ? (d.residual[o] + (int64_t(1) << (r - 1))) >> r : d.residual[o];
        const int64_t v = (acc >> e.shift) + res;
        out[o] = int8_t(std::clamp<int64_t>(v, 0, 127));
      }
    }
  }
  return out;
}

LayerRun run_conv(const std::string& backend, const char* config, const Epilogue& e) {
  const Conv2dParams p = conv20();
  const Target target(HwConfig::from_file(config_path(config)), backend);
  const ConvData data = random_conv_data(p, e, kSeed);
  const ConvSchedule s = auto_schedule(p, e, target.config);
  INFO(backend << " " << config << ": " << p.describe() << " epilogue " << e.describe()
               << " schedule " << s.describe());
  LayerRun r = run_conv2d(target, p, e, s, data, false);
  REQUIRE(r.out == plain_conv(p, e, data));
  return r;
}

std::vector<LayerRun> run_all(const std::string& backend, const char* config) {
  std::printf("residual shifts on %s/%s: seed %llu\n", backend.c_str(), config,
              static_cast<unsigned long long>(kSeed));
  return {run_conv(backend, config, residual_epilogue(true, 1)),
          run_conv(backend, config, residual_epilogue(false, 3)),
          run_conv(backend, config, residual_epilogue(true, 8))};
}

// The kernels of the lowered conv2d as "opcode imm value" strings of the ALU immediates.
std::vector<std::string> alu_immediates(const HwConfig& cfg, const Epilogue& e) {
  const Conv2dParams p = conv20();
  const auto sink = lower_conv2d(cfg, p, e, auto_schedule(p, e, cfg));
  std::vector<std::string> ops;
  for (const auto& k : sink->kernels()) {
    if (!k.gemm && k.use_imm) {
      ops.push_back(std::to_string(k.alu_opcode) + " " + std::to_string(k.imm));
    }
  }
  return ops;
}

}  // namespace

TEST_CASE("residual shift in the plain reference, by hand", "[residual_shift]") {
  Epilogue e;
  e.residual = true;
  e.residual_shift = 2;
  REQUIRE(apply_epilogue(10, e, 0, 5, 0) == int8_t(11));     // (5 + 2) >> 2 = 1
  REQUIRE(apply_epilogue(10, e, 0, 6, 0) == int8_t(12));     // (6 + 2) >> 2 = 2: half up
  REQUIRE(apply_epilogue(10, e, 0, -6, 0) == int8_t(9));     // (-6 + 2) >> 2 = -1: half up
  REQUIRE(apply_epilogue(10, e, 0, -7, 0) == int8_t(8));     // (-7 + 2) >> 2 = -2
  REQUIRE(apply_epilogue(0, e, 0, -128, 0) == int8_t(-32));  // exact
  e.residual_shift = 8;
  REQUIRE(apply_epilogue(3, e, 0, 127, 0) == int8_t(3));  // (127 + 128) >> 8 = 0
  REQUIRE(apply_epilogue(3, e, 0, -128, 0) == int8_t(3));
}

TEST_CASE("residual shift: an ADD and SHR of the residual, none at r = 0", "[residual_shift]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const std::vector<std::string> plain = alu_immediates(cfg, residual_epilogue(true, 0));
  std::vector<std::string> shifted = alu_immediates(cfg, residual_epilogue(true, 3));
  const std::string add4 = std::to_string(vta::kAluAdd) + " 4";
  const std::string shr3 = std::to_string(vta::kAluShr) + " 3";
  REQUIRE(std::count(shifted.begin(), shifted.end(), add4) >= 1);
  REQUIRE(std::count(shifted.begin(), shifted.end(), shr3) >= 1);
  REQUIRE(std::count(plain.begin(), plain.end(), shr3) == 0);
  // Without a bias only r = 0 lets the residual initialise the accumulator.
  const BlockedConv g = BlockedConv::make(conv20(), cfg);
  REQUIRE(residual_initialises_acc(g, residual_epilogue(false, 0)));
  REQUIRE_FALSE(residual_initialises_acc(g, residual_epilogue(false, 3)));
}

TEST_CASE("residual shift: range and JSON form", "[residual_shift]") {
  Epilogue e = residual_epilogue(true, 9);
  REQUIRE_THROWS_WITH(e.validate(), Catch::Contains("residual_shift 9 out of range 0..8"));
  REQUIRE_THROWS_WITH(Epilogue::from_json(nlohmann::json::parse(R"({"residual_shift": -1})"), "l"),
                      Catch::Contains("residual_shift -1 out of range 0..8"));
  const Epilogue back = Epilogue::from_json(residual_epilogue(true, 3).to_json(), "l");
  REQUIRE(back.residual_shift == 3);
  REQUIRE(back.describe() == "+bias, >>10, +residual>>3, max 0, min 127");
  REQUIRE_FALSE(residual_epilogue(true, 0).to_json().contains("residual_shift"));
  // In a network only a conv2d layer with a residual takes one.
  auto error_of = [](const char* layer) {
    const std::string text =
        std::string(R"({"input": {"c": 16, "h": 4, "w": 4}, "layers": [)") + layer + "]}";
    try {
      Network::from_json(nlohmann::json::parse(text), "net.json");
    } catch (const vta::Error& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  const std::string need = "epilogue key 'residual_shift' needs a conv2d layer with a 'residual'";
  CHECK_THAT(error_of(R"({"name": "s", "op": "add", "input": "data", "residual": "data",
                          "epilogue": {"residual_shift": 1}})"),
             Catch::Contains("layer 's': " + need));
  CHECK_THAT(error_of(R"({"name": "c", "op": "conv2d", "input": "data", "k": 16,
                          "kernel": 1, "epilogue": {"residual_shift": 1}})"),
             Catch::Contains("layer 'c': " + need));
}

TEST_CASE("residual shift equals the plain loop on fsim", "[residual_shift]") {
  run_all("fsim", "pynq");
  run_all("fsim", "small");
}

TEST_CASE("residual shift equals the plain loop on cycle", "[residual_shift][cycle]") {
  run_all("cycle", "pynq");
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("residual shift equals the plain loop on rtl, in the cycle model's cycles",
          "[residual_shift][rtl]") {
  const std::vector<LayerRun> cycle = run_all("cycle", "small");
  const std::vector<LayerRun> rtl = run_all("rtl", "small");
  for (size_t i = 0; i < rtl.size(); ++i) {
    INFO(rtl[i].name << " " << rtl[i].epilogue.describe());
    REQUIRE(rtl[i].stats.cycles == cycle[i].stats.cycles);
    REQUIRE(rtl[i].stats.alu_counter == cycle[i].stats.alu_counter);
  }
}
#endif
