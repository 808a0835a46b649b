// A seeded, bounded fuzzer over real program images: the demo's blocked GEMM + ALU image
// (vtasim demo --save-image) with random bit flips and field rewrites in its instruction
// stream, run on fsim and cycle. Oracles: no signal (the test process survives), a named
// vta::Error or success within a budget (no hang), and equal DRAM outputs and upstream counters
// on fsim and cycle whenever both succeed on a program the static verifier accepts (a program
// with a race between units may legally give different values on different timings), and the
// verifier's verdict equal to the pairwise oracle's on every image. Under the
// ASan+UBSan build (VTA_SANITIZE) a sanitizer report fails the run as well. VTA_FUZZ_SEED /
// VTA_FUZZ_ITERS override the seed and count.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <unistd.h>

#include "pairwise_race_oracle.h"
#include "vta/backend_factory.h"
#include "vta/compiler/check/program_check.h"
#include "vta/sim/error.h"
#include "vta/sim/program_image.h"

using namespace vta;

namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 0) : fallback;
}

// The demo's program image, made once by the CLI.
ProgramImage demo_image() {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("vta_fuzz_demo_{}.vtaprog", getpid()))
          .string();
  const std::string cmd =
      fmt::format("{} demo --backend fsim --save-image {} > /dev/null", VTASIM, path);
  REQUIRE(std::system(cmd.c_str()) == 0);
  ProgramImage img = ProgramImage::load(path);
  std::filesystem::remove(path);
  return img;
}

// Flips 1-4 random bits of the instruction stream, or rewrites a whole 16-bit field window with
// a random value (large sizes, iterations and indices are the interesting cases).
void mutate(ProgramImage& img, std::mt19937_64& rng) {
  for (ImageSegment& s : img.segments) {
    if (s.phys != img.insn_phys) {
      continue;
    }
    const size_t bits = s.bytes.size() * 8;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      const size_t bit = rng() % bits;
      if (rng() % 4 == 0 && bit / 8 + 1 < s.bytes.size()) {
        s.bytes[bit / 8] = static_cast<uint8_t>(rng());
        s.bytes[bit / 8 + 1] = static_cast<uint8_t>(rng());
      } else {
        s.bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
}

struct Outcome {
  bool ok = false;
  bool verified = false;  // the static verifier accepts the program
  std::string error;
  std::vector<uint8_t> output;
  Stats stats;
};

// Loads the image into a fresh DRAM and runs it on `backend` with a budget.
Outcome run_on(const std::string& backend, const HwConfig& cfg, const ProgramImage& img) {
  constexpr uint64_t kBudget = 4'000'000;  // cycles (fsim: work units); the demo needs ~60 k
  Outcome o;
  Dram dram;
  img.load_into(dram);
  const compiler::ProgramCheck check =
      compiler::check_stream(cfg, dram, img.insn_phys, img.insn_count);
  o.verified = check.ok();
  // The same verdict, counts and first problem as the pairwise oracle on every image.
  const compiler::ProgramCheck want = compiler::oracle::pairwise_check_program(
      compiler::oracle::stream_program(cfg, dram, img.insn_phys, img.insn_count), cfg);
  CHECK(check.insns == want.insns);
  CHECK(check.checked_pairs == want.checked_pairs);
  CHECK(check.races == want.races);
  CHECK(check.leftover_tokens == want.leftover_tokens);
  CHECK(check.unordered_at_finish == want.unordered_at_finish);
  CHECK(check.first_problem == want.first_problem);
  std::unique_ptr<Backend> be = make_backend(backend, cfg, dram);
  try {
    const RunStatus st = be->run(img.insn_phys, img.insn_count, kBudget);
    o.ok = st == RunStatus::kOk;
    o.error = o.ok ? "" : "budget exceeded";
  } catch (const Error& e) {
    o.error = e.what();
  }
  const ImageOutput& y = img.outputs.at(0);
  const uint8_t* p = dram.checked_ptr(y.phys, y.bytes);
  REQUIRE(p != nullptr);
  o.output.assign(p, p + y.bytes);
  o.stats = be->stats();
  return o;
}

}  // namespace

TEST_CASE("fuzz: mutated program images end in a named error or agree on fsim and cycle",
          "[fuzz]") {
  const uint64_t seed = env_or("VTA_FUZZ_SEED", 20261124);
  const uint64_t iters = env_or("VTA_FUZZ_ITERS", 300);
  std::printf("fuzz seed %llu, %llu images\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(iters));
  const ProgramImage base = demo_image();
  const HwConfig cfg = HwConfig::from_json_text(base.config_json, "the demo image");
  std::mt19937_64 rng(seed);
  size_t compared = 0, racy = 0, errors = 0;
  for (uint64_t it = 0; it < iters; ++it) {
    ProgramImage img = base;
    mutate(img, rng);
    INFO("seed " << seed << ", image " << it);
    const Outcome f = run_on("fsim", cfg, img);
    const Outcome c = run_on("cycle", cfg, img);
    if (f.ok && c.ok && !f.verified) {
      ++racy;
    } else if (f.ok && c.ok) {
      ++compared;
      CHECK(f.output == c.output);
      CHECK(f.stats.gemm_counter == c.stats.gemm_counter);
      CHECK(f.stats.alu_counter == c.stats.alu_counter);
      CHECK(f.stats.out_store_nbytes == c.stats.out_store_nbytes);
    } else {
      ++errors;
      // Every failure is a message, never an empty or generic one.
      CHECK(!(f.ok ? c.error : f.error).empty());
    }
  }
  std::printf(
      "fuzz: %zu images agree on fsim and cycle, %zu ran on both but have a race the verifier "
      "names, %zu ended in a named error\n",
      compared, racy, errors);
}
