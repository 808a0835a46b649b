// Per-channel shifts (Epilogue::shifts): output channel k of a conv2d or dense layer is shifted
// right by its own amount, which VTA does as an ALU SHR whose operand is a vector of shifts
// loaded into the accumulator SRAM. The plain reference is checked on hand-computed values
// first; compiled layers with hand-set shifts (0 and 31 among them, output channels not a
// multiple of the block) must then equal it bit for bit on fsim, cycle and rtl, and rtl must
// take the cycle model's cycles.
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

constexpr uint64_t kSeed = 4242;  // printed by every case that uses it

// Shifts 0, 31 and values between, in a pattern that repeats every 7 channels.
std::vector<int> hand_shifts(int k) {
  static const int pattern[] = {0, 31, 9, 3, 12, 1, 7};
  std::vector<int> s(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    s[size_t(i)] = pattern[i % 7];
  }
  return s;
}

// 20 output channels: 1.25 blocks of 16 (pynq), 2.5 of 8 (small).
Conv2dParams conv20() {
  Conv2dParams p;
  p.name = "pc_conv";
  p.c = 24, p.k = 20, p.h = 6, p.w = 7;
  p.kh = p.kw = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  return p;
}

MatmulParams dense20() {
  MatmulParams p;
  p.name = "pc_dense";
  p.m = 5, p.k = 40, p.n = 20;
  return p;
}

Epilogue per_channel(bool bias, bool residual, int k) {
  Epilogue e;
  e.bias = bias;
  e.residual = residual;
  e.shifts = hand_shifts(k);
  return e;
}

LayerRun run_conv(const std::string& backend, const char* config, const Conv2dParams& p,
                  const Epilogue& e) {
  const Target target(HwConfig::from_file(config_path(config)), backend);
  const ConvData data = random_conv_data(p, e, kSeed);
  const ConvSchedule s = auto_schedule(p, e, target.config);
  INFO(backend << " " << config << ": " << p.describe() << " epilogue " << e.describe()
               << " schedule " << s.describe());
  LayerRun r = run_conv2d(target, p, e, s, data, false);
  REQUIRE(r.out == conv2d_reference(p, e, data.x, data.w, data.bias, data.residual));
  return r;
}

LayerRun run_dense(const std::string& backend, const char* config, const MatmulParams& p,
                   const Epilogue& e) {
  const Target target(HwConfig::from_file(config_path(config)), backend);
  const MatmulData data = random_matmul_data(p, e, kSeed);
  const ConvSchedule s = auto_schedule(matmul_as_conv(p, target.config), e, target.config);
  INFO(backend << " " << config << ": " << p.describe() << " epilogue " << e.describe());
  LayerRun r = run_matmul(target, p, e, s, data, false);
  REQUIRE(r.out == matmul_reference(p, e, data.a, data.b, data.bias));
  return r;
}

// The conv (bias; residual without bias) and dense layers on one backend and config.
std::vector<LayerRun> run_all(const std::string& backend, const char* config) {
  std::printf("per-channel shifts on %s/%s: seed %llu\n", backend.c_str(), config,
              static_cast<unsigned long long>(kSeed));
  const Conv2dParams c = conv20();
  return {run_conv(backend, config, c, per_channel(true, false, c.k)),
          run_conv(backend, config, c, per_channel(false, true, c.k)),
          run_dense(backend, config, dense20(), per_channel(true, false, dense20().n))};
}

}  // namespace

TEST_CASE("per-channel shifts in the plain reference, by hand", "[channel_shift]") {
  Epilogue e;
  e.shifts = {0, 31, 3};
  REQUIRE(apply_epilogue(100, e, 0, 0, 0) == int8_t(100));
  REQUIRE(apply_epilogue(-5, e, 0, 0, 1) == int8_t(-1));      // arithmetic: -5 >> 31 = -1
  REQUIRE(apply_epilogue(1 << 30, e, 0, 0, 1) == int8_t(0));  // 2^30 >> 31 = 0
  REQUIRE(apply_epilogue(100, e, 0, 0, 2) == int8_t(12));     // 100 >> 3
  e.bias = true;
  REQUIRE(apply_epilogue(100, e, 4, 0, 2) == int8_t(13));  // (100 + 4) >> 3
  // A 1x1 conv of one input channel with weight 1: output channel k is x >> shifts[k].
  Conv2dParams p;
  p.c = 1, p.k = 3, p.h = 1, p.w = 2, p.kh = p.kw = 1;
  e.bias = false;
  const std::vector<int8_t> out = conv2d_reference(p, e, {-100, 120}, {1, 1, 1}, {}, {});
  REQUIRE(out == std::vector<int8_t>{-100, 120, -1, 0, -13, 15});
  // Dense: column j is shifted by shifts[j].
  MatmulParams m;
  m.m = 1, m.k = 1, m.n = 3;
  REQUIRE(matmul_reference(m, e, {-100}, {1, 1, 1}, {}) == std::vector<int8_t>{-100, -1, -13});
}

TEST_CASE("per-channel shifts: a vector SHR after the bias, one shift row per tile",
          "[channel_shift]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const Conv2dParams p = conv20();
  const Epilogue e = per_channel(true, false, p.k);
  const auto sink = lower_conv2d(cfg, p, e, auto_schedule(p, e, cfg));
  size_t vector_shr = 0, imm_shr = 0;
  for (const auto& k : sink->kernels()) {
    if (!k.gemm && k.alu_opcode == vta::kAluShr) {
      (k.use_imm ? imm_shr : vector_shr) += 1;
    }
  }
  REQUIRE(vector_shr >= 1);
  REQUIRE(imm_shr == 0);
}

TEST_CASE("per-channel shifts: errors name the layer and the channel", "[channel_shift]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const Target target(cfg, "fsim");
  const Conv2dParams p = conv20();
  Epilogue e = per_channel(true, false, p.k - 1);
  const ConvData data = random_conv_data(p, e, kSeed);
  REQUIRE_THROWS_WITH(run_conv2d(target, p, e, auto_schedule(p, e, cfg), data, true),
                      Catch::Contains("pc_conv: per-channel shifts has 19 elements, expected 20"));
  e.shifts = hand_shifts(p.k);
  e.shifts[5] = 32;
  REQUIRE_THROWS_WITH(e.validate(),
                      Catch::Contains("shift 32 of output channel 5 out of range 0..31"));
  REQUIRE_THROWS_WITH(Epilogue::from_json(nlohmann::json::parse(R"({"shift": [1, -1]})"), "l"),
                      Catch::Contains("shift -1 of output channel 1 out of range 0..31"));
  REQUIRE_THROWS_WITH(Epilogue::from_json(nlohmann::json::parse(R"({"shift": []})"), "l"),
                      Catch::Contains("per-channel shifts need at least one value"));
  // The JSON form round-trips, and describes its range.
  const Epilogue back = Epilogue::from_json(per_channel(true, false, 7).to_json(), "l");
  REQUIRE(back.shifts == hand_shifts(7));
  REQUIRE(back.describe() == "+bias, >>[0..31]");
}

TEST_CASE("per-channel shifts equal the reference on fsim", "[channel_shift]") {
  run_all("fsim", "pynq");
  run_all("fsim", "small");
}

TEST_CASE("per-channel shifts equal the reference on cycle", "[channel_shift][cycle]") {
  run_all("cycle", "pynq");
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("per-channel shifts equal the reference on rtl, in the cycle model's cycles",
          "[channel_shift][rtl]") {
  const std::vector<LayerRun> cycle = run_all("cycle", "small");
  const std::vector<LayerRun> rtl = run_all("rtl", "small");
  for (size_t i = 0; i < rtl.size(); ++i) {
    INFO(rtl[i].name << " " << rtl[i].epilogue.describe());
    REQUIRE(rtl[i].stats.cycles == cycle[i].stats.cycles);
    REQUIRE(rtl[i].stats.alu_counter == cycle[i].stats.alu_counter);
  }
}
#endif
