// Lowered programs without a device: the loop folder against hand-written loop nests and
// against random nests expanded by an evaluator of its own; the recording sink's stream of the
// tutorial layer (ResNet-18 C8, schedule h7 w14 oc8 ic1 vt2) counted by hand.
//
// The goldens of tests/compiler/lowered/ (compiler.lowered.*) were reviewed by hand against
// their schedules. tutorial_c8: 4 tiles (2 output-channel tiles x 2 row tiles) of 16 steps
// (one input-channel block each); each input window is 8 DRAM rows x 14 plus one zero row on
// the tile's image border (y pad 1 before on the top tile, after on the bottom one) and one
// zero column each side, 196 elements apart per channel block, 84 (6 rows) for the bottom
// tile; weights in two parts of 4 output blocks (576 elements apart, OIHWoi with 144 per
// output block), each cut into 3 rows + 1 row; a GEMM kernel per part of 36 micro-ops
// (kernel row, kernel column, output block; dst 98 per block, src 16 per input row, wgt 9 per
// block) under loops of 7 rows x 14 columns; slots 1024 INP / 512 WGT / 1024 ACC apart for
// the second virtual thread; reset, then >>8, max 0, min 127 on 8 x 98 accumulators; 8 stores
// of 7x14 per tile, 196 apart; tokens: no g2l pop in the first two steps, no s2g pop in the
// first two tiles, two of each drained at the end. c10_1x1_stride2: the window keeps only every
// second input row (7 rows, DRAM pitch 28, 13 columns), 16 input blocks per tile, the second
// output-channel tile 256 weight elements on. matmul_bias: 64 rows as one 64-wide tile, 8
// input blocks, weights 4 blocks at pitch 8, the bias loaded as 4 ACC elements at offset 256
// and added by an ALU ADD with src_factor 1 on the output-block loop.
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/compiler/codegen/loop_fold.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/sim/hw_config.h"

using namespace vta::compiler;

namespace {

// Calls "f(" v ")" for the values in order.
std::vector<LoopNest> calls_of(const std::vector<int64_t>& values) {
  std::vector<LoopNest> out;
  for (int64_t v : values) {
    out.push_back(LoopNest::call({"f(", ")"}, {v}));
  }
  return out;
}

// Expands a nest back into calls "f(v)": the test's own evaluator of loops and affine terms.
void expand(const std::vector<LoopNest>& nodes, std::vector<int64_t>& vars,
            std::vector<std::string>& out) {
  for (const LoopNest& n : nodes) {
    if (n.is_loop()) {
      for (int64_t i = 0; i < n.extent; ++i) {
        vars.push_back(i);
        expand(n.body, vars, out);
        vars.pop_back();
      }
      continue;
    }
    std::string text = n.pieces[0];
    for (size_t k = 0; k < n.values.size(); ++k) {
      int64_t v = n.values[k].base;
      for (const auto& [up, coef] : n.values[k].terms) {
        v += coef * vars[vars.size() - 1 - size_t(up)];
      }
      text += std::to_string(v) + n.pieces[k + 1];
    }
    out.push_back(text);
  }
}

std::vector<std::string> texts(const std::vector<LoopNest>& nodes) {
  std::vector<int64_t> vars;
  std::vector<std::string> out;
  expand(nodes, vars, out);
  return out;
}

}  // namespace

TEST_CASE("fold_loops turns a regular three-level nest back into its loops", "[lowered]") {
  std::vector<int64_t> values;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 4; ++c) {
        values.push_back(100 * a + 10 * b + c + 7);
      }
    }
  }
  CHECK(print_loops(fold_loops(calls_of(values))) ==
        "for (i0, 0, 2) {\n"
        "  for (i1, 0, 3) {\n"
        "    for (i2, 0, 4) {\n"
        "      f(100*i0 + 10*i1 + i2 + 7)\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("fold_loops keeps irregular calls and folds what repeats", "[lowered]") {
  // 5, then 0 2 4 6 (step 2), then 3 3 3, then 9: a loop needs two repetitions or more.
  CHECK(print_loops(fold_loops(calls_of({5, 0, 2, 4, 6, 3, 3, 3, 9}))) ==
        "f(5)\n"
        "for (i0, 0, 4) {\n"
        "  f(2*i0)\n"
        "}\n"
        "for (i0, 0, 3) {\n"
        "  f(3)\n"
        "}\n"
        "f(9)\n");
  // Different calls never fold; two equal calls are a loop of two.
  std::vector<LoopNest> mixed = calls_of({4, 1});
  mixed.insert(mixed.begin() + 1, LoopNest::call({"g(", ")"}, {2}));
  CHECK(print_loops(fold_loops(mixed)) == "f(4)\ng(2)\nf(1)\n");
  CHECK(print_loops(fold_loops(calls_of({4, 1}))) == "for (i0, 0, 2) {\n  f(-3*i0 + 4)\n}\n");
}

TEST_CASE("fold_loops never changes the calls a nest expands to", "[lowered]") {
  const uint64_t seed = GENERATE(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Random nests of up to three loops with small extents and steps, plus stray calls, in
  // two kinds of calls ("f" and "g") so that shapes differ too.
  std::vector<LoopNest> flat;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int group = 0; group < 12; ++group) {
    const int e0 = pick(1, 3), e1 = pick(1, 4), s0 = pick(-3, 20), s1 = pick(0, 2);
    const int base = pick(0, 50);
    const bool g = pick(0, 1) == 1;
    for (int a = 0; a < e0; ++a) {
      for (int b = 0; b < e1; ++b) {
        flat.push_back(LoopNest::call({g ? "g(" : "f(", ", ", ")"},
                                      {base + s0 * a + s1 * b, int64_t(pick(0, 1))}));
      }
    }
  }
  const std::vector<std::string> expected = texts(flat);
  const std::vector<LoopNest> folded = fold_loops(flat);
  CHECK(texts(folded) == expected);
  CHECK(folded.size() <= flat.size());
}

TEST_CASE("the recording sink keeps the tutorial layer's calls, counted by hand", "[lowered]") {
  const vta::HwConfig cfg = vta::HwConfig::from_file(config_path("pynq"));
  const NamedConvLayer c8 = find_named_layer("resnet18.C8");
  const ConvSchedule s =
      ConvSchedule::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/schedules/tutorial_c8.json");
  const auto sink = lower_conv2d(cfg, c8.params, s.epilogue ? *s.epilogue : c8.epilogue, s);

  size_t inp_loads = 0, wgt_loads = 0, stores = 0, gemm = 0, alu = 0, resets = 0;
  uint64_t gemm_uops = 0;
  int tokens[4][4] = {};  // pushes minus pops per (from, to)
  for (const RecordedCall& c : sink->calls()) {
    switch (c.kind) {
      case CallKind::kLoad:
        (c.load.memory_type == vta::kMemInp ? inp_loads : wgt_loads) += 1;
        break;
      case CallKind::kStore:
        ++stores;
        break;
      case CallKind::kKernel: {
        const MicroKernel& k = sink->kernels()[c.kernel];
        if (!k.gemm) {
          ++alu;
        } else if (k.reset) {
          ++resets;
        } else {
          ++gemm;
          gemm_uops += k.executions();
        }
        break;
      }
      case CallKind::kDepPush:
        ++tokens[c.from][c.to];
        break;
      case CallKind::kDepPop:
        --tokens[c.from][c.to];
        break;
      case CallKind::kSync:
        FAIL("emit does not synchronise");
    }
  }
  // 4 tiles x 16 steps; each step: one LOAD INP, two weight parts cut into two LOADs each.
  CHECK(inp_loads == 64);
  CHECK(wgt_loads == 256);
  CHECK(gemm == 128);
  CHECK(resets == 4);
  CHECK(alu == 12);                       // >>8, max, min per tile
  CHECK(stores == 32);                    // 8 output blocks per tile
  CHECK(gemm_uops == 16 * 16 * 9 * 196);  // input x output blocks x kernel x output pixels
  for (const auto& row : tokens) {
    for (int balance : row) {
      CHECK(balance == 0);
    }
  }
  // The same layer lowered again records the same stream.
  const auto again = lower_conv2d(cfg, c8.params, s.epilogue ? *s.epilogue : c8.epilogue, s);
  CHECK(again->calls() == sink->calls());
}
