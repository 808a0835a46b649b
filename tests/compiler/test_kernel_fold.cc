// Kernel-window folding (kernel_fold.h): the folded layer's shape by hand, ResNet-18's C1 within
// 1.5x the GEMM micro-ops of its MACs, and random few-channel convolutions run with every fold
// on four configs and on the timed backends, bit for bit against the reference of the original
// layer (seeds printed).
#include <algorithm>
#include <random>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

Target fold_target(const std::string& backend, const char* config) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  return Target(HwConfig::from_file(config_path(config)), backend);
}

// The best-ranked schedule with fold f (else the smallest tile with fold f).
ConvSchedule fold_schedule(const Conv2dParams& p, const Epilogue& e, const HwConfig& cfg, int f) {
  for (const ScheduleCandidate& c : rank_schedules(p, e, cfg, 400)) {
    if (c.schedule.fold_rows == f) {
      return c.schedule;
    }
  }
  ConvSchedule s;
  s.threads = 1;
  s.fold_rows = f;
  return s;
}

void random_folds(const std::string& backend, const char* config, uint32_t seed, int trials) {
  const auto names = vta::available_backends();
  REQUIRE(std::find(names.begin(), names.end(), backend) != names.end());
  const Target target = fold_target(backend, config);
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < trials; ++trial) {
    Conv2dParams p;
    p.name = "fold";
    p.n = uni(1, 2);
    p.c = uni(1, 5);
    p.k = uni(1, 40);
    const int kernels[] = {2, 3, 5, 7};
    p.kh = kernels[uni(0, 3)];
    p.kw = uni(0, 3) == 0 ? kernels[uni(0, 3)] : p.kh;
    p.stride_h = uni(1, 2);
    p.stride_w = uni(1, 2);
    p.pad_top = uni(0, 3), p.pad_bottom = uni(0, 3);
    p.pad_left = uni(0, 3), p.pad_right = uni(0, 3);
    p.h = std::max(uni(1, 16), p.kh);
    p.w = std::max(uni(1, 16), p.kw);
    Epilogue e;
    e.bias = uni(0, 1);
    e.shift = uni(0, 8);
    e.residual = uni(0, 3) == 0;
    e.relu = uni(0, 1);
    const std::vector<int> folds = fold_candidates(p, target.config.block_in);
    REQUIRE_FALSE(folds.empty());  // c < BLOCK_IN on every config tested, kernel > 1 tap
    const int f = folds[size_t(uni(0, int(folds.size()) - 1))];
    const ConvSchedule s = fold_schedule(p, e, target.config, f);
    INFO("seed " << seed << " trial " << trial << " " << config << " " << backend << ": "
                 << p.describe() << " epilogue " << e.describe() << " schedule " << s.describe());
    const LayerRun r = run_conv2d(target, p, e, s, random_conv_data(p, e, seed + trial), true);
    INFO("first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
  }
}

}  // namespace

TEST_CASE("the folded layer of resnet18.C1, by hand", "[fold]") {
  const auto c1 = find_named_layer("resnet18.C1").params;  // 3x224x224 * 64x7x7 s2 p3
  // fold 2: row step 2, channels 3*2*7 = 42, kernel ceil((7-2)/2)+1 = 4 rows x 1, stride 1,
  // rows (112-1)*1 + 4 = 115, columns 112.
  const Conv2dParams f2 = folded_params(c1, 2);
  CHECK(f2.c == 42);
  CHECK(f2.kh == 4);
  CHECK(f2.kw == 1);
  CHECK(f2.stride_h == 1);
  CHECK(f2.h == 115);
  CHECK(f2.w == 112);
  CHECK(f2.out_h() == 112);
  // fold 7: 147 channels, a 1x1 kernel, stride 1 over 112 rows.
  const Conv2dParams f7 = folded_params(c1, 7);
  CHECK(f7.c == 147);
  CHECK(f7.kh == 1);
  CHECK(f7.h == 112);
  // fold 1: the kernel columns only; stride 2 stays on the rows.
  const Conv2dParams f1 = folded_params(c1, 1);
  CHECK(f1.c == 21);
  CHECK(f1.kh == 7);
  CHECK(f1.stride_h == 2);
  CHECK(f1.h == 229);
  CHECK_THROWS_WITH(folded_params(c1, 8), Catch::Contains("fold_rows 8 must be in 1..7"));
  CHECK(fold_candidates(find_named_layer("resnet18.C2").params, 16).empty());
}

TEST_CASE("resnet18.C1 runs within 1.5x the GEMM micro-ops of its MACs", "[fold]") {
  const Target target = fold_target("fsim", "pynq");
  const auto layer = find_named_layer("resnet18.C1");
  const ConvSchedule s = auto_schedule(layer.params, layer.epilogue, target.config);
  INFO("schedule " << s.describe());
  const LayerRun r = run_conv2d(target, layer.params, layer.epilogue, s,
                                random_conv_data(layer.params, layer.epilogue, 5), true);
  REQUIRE(r.mismatches == 0);
  // 112x112 outputs x 64 channels x 3x7x7 = 118,013,952 MACs = 460,992 GEMM micro-ops of 256.
  const uint64_t true_uops = 112ull * 112 * 64 * 147 / 256;
  CHECK(r.macs == 118013952ull);
  CHECK(s.fold_rows > 0);
  CHECK(double(r.stats.gemm_counter) <= 1.5 * double(true_uops));
}

TEST_CASE("random folded conv2d on fsim with four configs", "[fold]") {
  random_folds("fsim", "pynq", 901, 12);
  random_folds("fsim", "small", 902, 12);
  random_folds("fsim", "block32", 903, 8);
  random_folds("fsim", "batch4", 904, 8);
}

TEST_CASE("random folded conv2d on the cycle backend", "[fold][cycle]") {
  random_folds("cycle", "pynq", 911, 4);
  random_folds("cycle", "small", 912, 3);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("random folded conv2d on the rtl backend", "[fold][rtl]") {
  random_folds("rtl", "pynq", 921, 2);
}
#endif
