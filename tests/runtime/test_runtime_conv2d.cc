// Replay of a TVM-style lowered conv2d layer through the C API: two virtual threads (output
// rows split in halves, each with its own SRAM regions), micro-op kernels with two loops keyed
// by (thread, kh, kw) closures, padded input loads, double-buffer tokens between load and
// compute, and an ALU epilogue (>> 3, max 0, min 127). Checked against a plain C++ conv2d and
// the upstream counters derived from the layer shape.
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime_test_util.h"

using namespace vta;
using namespace vta::rt_test;

namespace {

// Layer: N = BATCH, IC = OC = 2 blocks, 8x8 image, 3x3 kernel, pad 1, stride 1.
constexpr uint32_t kH = 8, kW = 8, kIcb = 2, kOcb = 2, kK = 3;
constexpr uint32_t kVt = 2, kRt = kH / kVt;      // virtual threads, output rows each
constexpr uint32_t kIw = kW + 2, kIr = kRt + 2;  // padded input tile of one thread
constexpr uint32_t kInpPerVt = kIr * kIw;        // inp SRAM tiles per thread
constexpr uint32_t kWgtPerVt = kOcb * kK * kK;   // wgt SRAM tiles per thread
constexpr uint32_t kAccPerVt = kOcb * kRt * kW;  // acc SRAM tiles per thread
constexpr int32_t kShift = 3;

int reset_finit(void* sig) {
  const uint32_t vt = static_cast<uint32_t>(*static_cast<int*>(sig));
  VTAUopLoopBegin(kRt, kW, 0, 0);
  VTAUopLoopBegin(kOcb, kRt * kW, 0, 0);
  for (uint32_t c = 0; c < kW; ++c) {
    VTAUopPush(0, 1, vt * kAccPerVt + c, 0, 0, 0, 0, 0);
  }
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

// Key = vt * 9 + kh * 3 + kw: one output row of one tap, looped over rows and output blocks.
int conv_finit(void* sig) {
  const auto key = static_cast<uint32_t>(*static_cast<int*>(sig));
  const uint32_t vt = key / (kK * kK), kh = (key / kK) % kK, kw = key % kK;
  VTAUopLoopBegin(kRt, kW, kIw, 0);
  VTAUopLoopBegin(kOcb, kRt * kW, 0, kK * kK);
  for (uint32_t c = 0; c < kW; ++c) {
    VTAUopPush(0, 0, vt * kAccPerVt + c, vt * kInpPerVt + kh * kIw + c + kw,
               vt * kWgtPerVt + kh * kK + kw, 0, 0, 0);
  }
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

struct EpilogueStep {
  uint32_t op;
  int32_t imm;
};
constexpr EpilogueStep kSteps[] = {{kAluShr, kShift}, {kAluMax, 0}, {kAluMin, 127}};

int epilogue_finit(void* sig) {
  const auto key = static_cast<uint32_t>(*static_cast<int*>(sig));
  const uint32_t vt = key / 3;
  VTAUopLoopBegin(kAccPerVt, 1, 1, 0);
  VTAUopPush(1, 0, vt * kAccPerVt, vt * kAccPerVt, 0, kSteps[key % 3].op, 1, kSteps[key % 3].imm);
  VTAUopLoopEnd();
  return 0;
}

void conv2d_case(const std::string& preset) {
  Session s(preset);
  const HwConfig& c = s.cfg;
  const uint32_t N = c.batch, BI = c.block_in, BO = c.block_out;
  const uint32_t IC = kIcb * BI, OC = kOcb * BO;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed() << " config " << preset);
  // Plain NCHW / OIHW tensors.
  const auto data = random_vector<int8_t>(rng, N * IC * kH * kW, -16, 16);
  const auto kern = random_vector<int8_t>(rng, OC * IC * kK * kK, -16, 16);
  auto d_at = [&](uint32_t n, uint32_t ic, uint32_t h, uint32_t w) {
    return data[((n * IC + ic) * kH + h) * kW + w];
  };
  auto k_at = [&](uint32_t oc, uint32_t ic, uint32_t kh, uint32_t kw) {
    return kern[((oc * IC + ic) * kK + kh) * kK + kw];
  };
  // Packed (tiled) layouts: data [icb][h][w][n][k], kernel [ocb][icb][kh][kw][oc][k].
  std::vector<int8_t> dpack(data.size()), kpack(kern.size());
  for (uint32_t icb = 0; icb < kIcb; ++icb) {
    for (uint32_t h = 0; h < kH; ++h) {
      for (uint32_t w = 0; w < kW; ++w) {
        for (uint32_t n = 0; n < N; ++n) {
          for (uint32_t k = 0; k < BI; ++k) {
            dpack[(((icb * kH + h) * kW + w) * N + n) * BI + k] = d_at(n, icb * BI + k, h, w);
          }
        }
      }
    }
  }
  for (uint32_t ocb = 0; ocb < kOcb; ++ocb) {
    for (uint32_t icb = 0; icb < kIcb; ++icb) {
      for (uint32_t t = 0; t < kK * kK; ++t) {
        for (uint32_t o = 0; o < BO; ++o) {
          for (uint32_t k = 0; k < BI; ++k) {
            kpack[((((ocb * kIcb + icb) * kK * kK + t) * BO + o) * BI) + k] =
                k_at(ocb * BO + o, icb * BI + k, t / kK, t % kK);
          }
        }
      }
    }
  }
  Buffer db(dpack.size()), kb(kpack.size()), ob(N * OC * kH * kW);
  db.upload(dpack);
  kb.upload(kpack);

  static void* h_reset = nullptr;
  static void* h_conv = nullptr;
  static void* h_alu = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  uint64_t inp_tiles = 0;
  for (uint32_t vt = 0; vt < kVt; ++vt) {
    VTADepPush(cmd, 2, 1);  // this thread's input/weight buffers start free
  }
  for (uint32_t vt = 0; vt < kVt; ++vt) {
    int key = static_cast<int>(vt);
    VTAPushGEMMOp(&h_reset, reset_finit, &key, 4);
  }
  for (uint32_t icb = 0; icb < kIcb; ++icb) {
    for (uint32_t vt = 0; vt < kVt; ++vt) {
      VTADepPop(cmd, 2, 1);
      const int first = static_cast<int>(vt * kRt) - 1;  // first input row incl. the halo
      const int last = static_cast<int>(vt * kRt + kRt);
      const uint32_t start = static_cast<uint32_t>(std::max(first, 0));
      const uint32_t end = static_cast<uint32_t>(std::min(last, static_cast<int>(kH) - 1));
      const uint32_t pad_top = start - static_cast<uint32_t>(first);
      const uint32_t pad_bottom = static_cast<uint32_t>(last) - end;
      VTALoadBuffer2D(cmd, db.get(), (icb * kH + start) * kW, kW, end - start + 1, kW, 1, pad_top,
                      1, pad_bottom, vt * kInpPerVt, kMemInp);
      inp_tiles += (end - start + 1) * kW;
      VTALoadBuffer2D(cmd, kb.get(), icb * kK * kK, kK * kK, kOcb, kIcb * kK * kK, 0, 0, 0, 0,
                      vt * kWgtPerVt, kMemWgt);
      VTADepPush(cmd, 1, 2);
    }
    for (uint32_t vt = 0; vt < kVt; ++vt) {
      VTADepPop(cmd, 1, 2);
      for (uint32_t t = 0; t < kK * kK; ++t) {
        int key = static_cast<int>(vt * kK * kK + t);
        VTAPushGEMMOp(&h_conv, conv_finit, &key, 4);
      }
      VTADepPush(cmd, 2, 1);
    }
  }
  for (uint32_t vt = 0; vt < kVt; ++vt) {
    for (int step = 0; step < 3; ++step) {
      int key = static_cast<int>(vt * 3) + step;
      VTAPushALUOp(&h_alu, epilogue_finit, &key, 4);
    }
  }
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  for (uint32_t vt = 0; vt < kVt; ++vt) {
    for (uint32_t ocb = 0; ocb < kOcb; ++ocb) {
      VTAStoreBuffer2D(cmd, vt * kAccPerVt + ocb * kRt * kW, kMemOut, ob.get(),
                       (ocb * kH + vt * kRt) * kW, kW, kRt, kW);
    }
  }
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  for (uint32_t vt = 0; vt < kVt; ++vt) {
    VTADepPop(cmd, 2, 1);  // the last free-buffer tokens
  }
  VTASynchronize(cmd, 1u << 31);

  // Plain conv2d, then the epilogue; output packed as [ocb][h][w][n][o].
  const auto got = ob.download<int8_t>(N * OC * kH * kW);
  size_t mismatches = 0;
  for (uint32_t n = 0; n < N; ++n) {
    for (uint32_t oc = 0; oc < OC; ++oc) {
      for (uint32_t h = 0; h < kH; ++h) {
        for (uint32_t w = 0; w < kW; ++w) {
          int32_t sum = 0;
          for (uint32_t ic = 0; ic < IC; ++ic) {
            for (uint32_t kh = 0; kh < kK; ++kh) {
              for (uint32_t kw = 0; kw < kK; ++kw) {
                const int ih = static_cast<int>(h + kh) - 1, iw = static_cast<int>(w + kw) - 1;
                if (ih >= 0 && ih < static_cast<int>(kH) && iw >= 0 && iw < static_cast<int>(kW)) {
                  sum += int32_t(d_at(n, ic, ih, iw)) * int32_t(k_at(oc, ic, kh, kw));
                }
              }
            }
          }
          const auto want = static_cast<int8_t>(std::clamp(sum >> kShift, 0, 127));
          const int8_t have = got[((((oc / BO) * kH + h) * kW + w) * N + n) * BO + oc % BO];
          if (have != want && mismatches++ < 5) {
            FAIL_CHECK("n " << n << " oc " << oc << " h " << h << " w " << w << ": got "
                            << int(have) << " want " << int(want));
          }
        }
      }
    }
  }
  CHECK(mismatches == 0);

  Counters e;
  e.inp = inp_tiles * c.inp_elem_bytes;
  e.wgt = uint64_t(kIcb) * kVt * kOcb * kK * kK * c.wgt_elem_bytes;  // each thread its own copy
  e.gemm = uint64_t(kH) * kW * kOcb * kIcb * kK * kK;  // output tiles x reduction tiles x taps
  e.alu = 3ull * kH * kW * kOcb;
  e.out = uint64_t(kH) * kW * kOcb * c.out_elem_bytes;
  // Every kernel loaded once: resets (8 uops) and 9 taps (8 uops) per thread, 3 ALU (1 uop).
  e.uop = (kVt * kW + kVt * kK * kK * kW + kVt * 3) * uint64_t(kUopBytes);
  check_counters(e);
}

}  // namespace

TEST_CASE("conv2d layer with two virtual threads, default config", "[runtime]") {
  conv2d_case("pynq");
}
TEST_CASE("conv2d layer with two virtual threads, batch 4", "[runtime]") {
  conv2d_case("batch4");
}
TEST_CASE("conv2d layer with two virtual threads, block 32", "[runtime]") {
  conv2d_case("block32");
}
TEST_CASE("conv2d layer with two virtual threads, small buffers", "[runtime]") {
  conv2d_case("small");
}
