// Bad inputs end in a named error, never a crash, a hang or silent wrong output: program images
// that break the format's region rules, output regions outside DRAM, FINISH with instructions
// left on every backend, a run budget (--max-cycles), elided disassembly, a missing command.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"

using namespace vta;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

struct CliResult {
  int status = 0;
  std::string out;  // stdout and stderr
};

// Runs vtasim with `args` through the shell; stderr is merged into the output.
CliResult vtasim(const std::string& args) {
  CliResult r;
  FILE* p = popen((std::string(VTASIM) + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
    r.out.append(buf, n);
  }
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("vta_reliability_{}_{}", getpid(), name))
      .string();
}

std::vector<uint8_t> encode(const IsaCodec& codec, const std::vector<Insn>& insns) {
  std::vector<uint8_t> bytes(insns.size() * kInsnBytes);
  for (size_t k = 0; k < insns.size(); ++k) {
    IsaCodec::store_words(codec.encode(insns[k]), bytes.data() + k * kInsnBytes);
  }
  return bytes;
}

// An image of `insns` at 0x1000 for the pynq config.
ProgramImage image_of(const std::vector<Insn>& insns) {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  ProgramImage img;
  img.config_json = cfg.to_json().dump();
  img.insn_phys = 0x1000;
  img.insn_count = static_cast<uint32_t>(insns.size());
  img.segments.push_back(ImageSegment{0x1000, encode(IsaCodec(cfg), insns)});
  return img;
}

Insn finish() {
  Insn f;
  f.opcode = kOpFinish;
  return f;
}

}  // namespace

TEST_CASE("image: empty, overlapping and out-of-space regions are rejected by name", "[image]") {
  ProgramImage img = image_of({finish()});
  img.segments.push_back(ImageSegment{0x1008, std::vector<uint8_t>(16, 0)});
  REQUIRE_THROWS_WITH(
      ProgramImage::parse(img.serialize(), "x.vtaprog"),
      Equals("x.vtaprog: segments 0 [0x1000, 0x1010) and 1 [0x1008, 0x1018) overlap"));
  img.segments[1] = ImageSegment{0x1000, std::vector<uint8_t>(16, 0)};  // a duplicate
  REQUIRE_THROWS_WITH(ProgramImage::parse(img.serialize(), "x.vtaprog"), Contains("overlap"));
  img.segments[1] = ImageSegment{0x5000, {}};
  REQUIRE_THROWS_WITH(ProgramImage::parse(img.serialize(), "x.vtaprog"),
                      Equals("x.vtaprog: segment 1 at 0x5000 is empty"));
  img.segments.pop_back();
  img.outputs.push_back(ImageOutput{"y", 0xFFFFFF00u, 0x200, {}});
  REQUIRE_THROWS_WITH(ProgramImage::parse(img.serialize(), "x.vtaprog"),
                      Equals("x.vtaprog: output 0 'y' at 0xffffff00 (512 bytes) is outside the "
                             "physical space"));
  img.outputs[0].bytes = 0x100;  // inside the space: accepted
  CHECK(ProgramImage::parse(img.serialize(), "x.vtaprog").outputs.size() == 1);
}

TEST_CASE("run --dump-outputs: a region near the top of DRAM is named, not read", "[cli]") {
  ProgramImage img = image_of({finish()});
  img.outputs.push_back(ImageOutput{"top", 0xFFFFFF00u, 0x100, {}});
  const std::string path = temp_path("top.vtaprog");
  img.save(path);
  const CliResult r = vtasim(fmt::format("run {} --backend fsim --dump-outputs", path));
  std::filesystem::remove(path);
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("output 'top' (256 bytes at 0xffffff00): not allocated DRAM, "
                             "nothing to print"));
}

TEST_CASE("FINISH with instructions left is an error naming them on every backend", "[cli]") {
  // FINISH first, then a STORE nothing orders before it: the store never (fsim) or not yet
  // (cycle, rtl) ran when FINISH retired.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  for (const std::string& name : available_backends()) {
    INFO("backend " << name);
    Dram dram;
    std::unique_ptr<Backend> be = make_backend(name, cfg, dram);
    void* out = dram.alloc(4096);
    const uint32_t out_elem = dram.phys_addr(out) / static_cast<uint32_t>(cfg.out_elem_bytes);
    const std::vector<uint8_t> bytes =
        encode(IsaCodec(cfg), {finish(), mem_insn(kOpStore, kMemOut, 0, out_elem, 1, 4, 4)});
    void* insns = dram.alloc(bytes.size());
    std::memcpy(insns, bytes.data(), bytes.size());
    REQUIRE_THROWS_WITH(be->run(dram.phys_addr(insns), 2, 100000),
                        Equals("FINISH (instruction 0) retired with 1 instruction left "
                               "unexecuted: 1 (STORE)"));
  }
}

TEST_CASE("run: the static verifier runs by default, --no-check skips it", "[cli]") {
  // A LOAD INP pushes a token that no instruction pops.
  Insn load = mem_insn(kOpLoad, kMemInp, 0, 0x2000 / 16, 1, 1, 1);
  load.push_next_dep = true;
  ProgramImage img = image_of({load, finish()});
  img.segments.push_back(ImageSegment{0x2000, std::vector<uint8_t>(16, 1)});
  const std::string path = temp_path("leftover.vtaprog");
  img.save(path);
  const CliResult checked = vtasim(fmt::format("run {} --backend fsim", path));
  const CliResult unchecked = vtasim(fmt::format("run {} --backend fsim --no-check", path));
  std::filesystem::remove(path);
  INFO(checked.out);
  CHECK(checked.status == 1);
  CHECK_THAT(checked.out, Contains("vtasim: error: program verifier (--no-check skips it): 1 "
                                   "dependency tokens left over"));
  INFO(unchecked.out);
  CHECK(unchecked.status == 0);
}

TEST_CASE("run budget: --max-cycles stops a long run with a named error and its progress",
          "[cli]") {
  // One ALU instruction of 16383 x 16383 micro-op iterations (2.7e8): hours on the rtl, seconds
  // on the others; the budget ends it at once on every backend.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Insn alu;
  alu.opcode = kOpAlu;
  alu.uop_bgn = 0;
  alu.uop_end = 1;
  alu.iter_out = 16383;
  alu.iter_in = 16383;
  alu.use_imm = true;
  alu.alu_opcode = kAluAdd;
  alu.imm = 1;
  ProgramImage img = image_of({alu, finish()});
  const std::string path = temp_path("long.vtaprog");
  img.save(path);
  for (const std::string& name : available_backends()) {
    const CliResult r = vtasim(fmt::format("run {} --backend {} --max-cycles 1000", path, name));
    INFO(r.out);
    CHECK(r.status == 1);
    CHECK_THAT(r.out,
               Contains(fmt::format("vtasim: error: {}: the {} backend did not reach "
                                    "FINISH within --max-cycles 1000 {} (progress: ",
                                    path, name, name == "fsim" ? "fsim work units" : "cycles")));
    CHECK_THAT(r.out, Contains(" of 2 instructions executed, 0 GEMM and "));
  }
  std::filesystem::remove(path);
}

TEST_CASE("run budget: one ALU instruction of 2.2e12 micro-ops stops inside the instruction",
          "[cli]") {
  // 16383 x 16383 iterations of all 8192 micro-ops: days on any backend. fsim refuses to start an
  // instruction beyond its work budget; cycle and rtl stop at the cycle budget. Without
  // --max-cycles, `run` has a default budget that says so (rtl is left to --max-cycles: it
  // simulates every cycle up to the budget).
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Insn alu;
  alu.opcode = kOpAlu;
  alu.uop_bgn = 0;
  alu.uop_end = cfg.uop_buff_depth;
  alu.iter_out = 16383;
  alu.iter_in = 16383;
  alu.use_imm = true;
  alu.alu_opcode = kAluAdd;
  alu.imm = 1;
  ProgramImage img = image_of({alu, finish()});
  const std::string path = temp_path("runaway.vtaprog");
  img.save(path);
  for (const std::string& name : available_backends()) {
    const bool rtl = name == "rtl";
    const CliResult r =
        vtasim(fmt::format("run {} --backend {}{}", path, name, rtl ? " --max-cycles 5000" : ""));
    INFO(r.out);
    CHECK(r.status == 1);
    const std::string unit = name == "fsim" ? "fsim work units" : "cycles";
    CHECK_THAT(r.out, Contains(fmt::format("the {} backend did not reach FINISH within {}", name,
                                           rtl ? "--max-cycles 5000 cycles"
                                               : "the default budget of 10000000000 " + unit +
                                                     " (--max-cycles N sets another)")));
    CHECK_THAT(r.out, Contains(" of 2 instructions executed, 0 GEMM and "));
  }
  std::filesystem::remove(path);
}

TEST_CASE(
    "one verdict: a STORE not ordered before FINISH is the verifier's error on every "
    "backend",
    "[cli]") {
  // Without tokens FINISH may retire before the STORE runs (fsim's order) or after it (cycle,
  // rtl): the verifier decides before any backend runs.
  Insn store = mem_insn(kOpStore, kMemOut, 0, 0x2000 / 16, 1, 1, 1);
  ProgramImage img = image_of({store, finish()});
  img.segments.push_back(ImageSegment{0x2000, std::vector<uint8_t>(16, 0)});
  const std::string path = temp_path("store_finish.vtaprog");
  img.save(path);
  for (const std::string& name : available_backends()) {
    const CliResult r = vtasim(fmt::format("run {} --backend {}", path, name));
    INFO(name << ": " << r.out);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("vtasim: error: program verifier (--no-check skips it): "
                               "instruction 0 (STORE"));
    CHECK_THAT(r.out, Contains("is not ordered before FINISH (instruction 1) by dependency "
                               "tokens, so FINISH may retire before it runs"));
  }
  // With the STORE's token popped by FINISH every backend runs it.
  store.push_prev_dep = true;
  Insn fin = finish();
  fin.pop_next_dep = true;
  ProgramImage ordered = image_of({store, fin});
  ordered.segments.push_back(ImageSegment{0x2000, std::vector<uint8_t>(16, 0)});
  ordered.save(path);
  for (const std::string& name : available_backends()) {
    const CliResult r = vtasim(fmt::format("run {} --backend {}", path, name));
    INFO(name << ": " << r.out);
    CHECK(r.status == 0);
  }
  std::filesystem::remove(path);
}

TEST_CASE("disasm elides long micro-op listings unless --all-uops", "[cli]") {
  // A LOAD UOP of 16 x 100 micro-ops (a 6400-byte uop segment).
  const Insn load = mem_insn(kOpLoad, kMemUop, 0, 0x2000 / kUopBytes, 100, 16, 16);
  ProgramImage img = image_of({load, finish()});
  img.segments.push_back(ImageSegment{0x2000, std::vector<uint8_t>(1600 * kUopBytes, 0)});
  const std::string path = temp_path("uops.vtaprog");
  img.save(path);
  const CliResult brief = vtasim("disasm " + path);
  const CliResult all = vtasim("disasm --all-uops " + path);
  std::filesystem::remove(path);
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  CHECK(brief.status == 0);
  CHECK(count(brief.out, "uop[") == 64);
  CHECK_THAT(brief.out, Contains("... 1536 more micro-ops (--all-uops lists them)"));
  CHECK(all.status == 0);
  CHECK(count(all.out, "uop[") == 1600);
}

TEST_CASE("vtasim without a command is a usage error", "[cli]") {
  const CliResult r = vtasim("");
  CHECK(r.status == 2);
  CHECK(r.out.rfind("vtasim: error: missing command\n", 0) == 0);
}

TEST_CASE("conv2d --layer with a shape option is a conflict, every shape option", "[cli]") {
  for (const char* opt : {"--kh 1", "--kw 1", "--stride-h 2", "--stride-w 2", "--pad-top 0",
                          "--pad-bottom 0", "--pad-left 0", "--pad-right 0", "--kernel 1"}) {
    const CliResult r = vtasim(fmt::format("conv2d --layer resnet18.C8 --backend fsim {}", opt));
    INFO(opt << ": " << r.out);
    CHECK(r.status == 2);
    const std::string name = std::string(opt).substr(2, std::string(opt).find(' ') - 2);
    CHECK_THAT(r.out, Contains(fmt::format("vtasim: error: --layer fixes the shape; --{} is not "
                                           "allowed with it",
                                           name)));
  }
}

TEST_CASE("run --json with a file name that is not UTF-8 still writes the report", "[cli]") {
  ProgramImage img = image_of({finish()});
  const std::string path = temp_path("name\xff.vtaprog");
  const std::string json_path = temp_path("report.json");
  img.save(path);
  const CliResult r = vtasim(fmt::format("run '{}' --backend fsim --json {}", path, json_path));
  std::filesystem::remove(path);
  INFO(r.out);
  CHECK(r.status == 0);
  std::ifstream f(json_path);
  const nlohmann::json j = nlohmann::json::parse(f);  // valid JSON, not an empty file
  std::filesystem::remove(json_path);
  CHECK(j.at("program").get<std::string>().find("name\xEF\xBF\xBD.vtaprog") != std::string::npos);
}

TEST_CASE("VCD size limit: --vcd-max-mb cuts the file and names the size it would have had",
          "[cli]") {
  // The matmul's full VCD on cycle (about 8 KB) against a limit of 0.005 MiB (5243 bytes).
  const std::string full = temp_path("full.vcd");
  const std::string cut = temp_path("cut.vcd");
  const CliResult ok = vtasim(fmt::format("matmul --backend cycle --vcd {} --vcd-max-mb 0", full));
  INFO(ok.out);
  REQUIRE(ok.status == 0);
  const double full_bytes = static_cast<double>(std::filesystem::file_size(full));
  REQUIRE(full_bytes > 5243);
  const CliResult r =
      vtasim(fmt::format("matmul --backend cycle --vcd {} --vcd-max-mb 0.005", cut));
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK_THAT(r.out,
             Contains(fmt::format("vtasim: error: VTASynchronize: VCD '{}' would be about ", cut)));
  CHECK_THAT(r.out, Contains("above the limit of 0.005 MiB (--vcd-max-mb): the file stops at "
                             "cycle "));
  CHECK_THAT(r.out, Contains("raise --vcd-max-mb (0 = no limit) to write it all"));
  CHECK(std::filesystem::file_size(cut) <= 5243);
  // The estimate counts every value line and time stamp: close to the real size.
  const size_t at = r.out.find(" MiB (");
  REQUIRE(at != std::string::npos);
  const double estimate = std::stod(r.out.substr(at + 6));
  CHECK(estimate > 0.8 * full_bytes);
  CHECK(estimate < 1.5 * full_bytes);
  std::filesystem::remove(full);
  std::filesystem::remove(cut);
  const CliResult bad = vtasim(fmt::format("matmul --backend cycle --vcd {} --vcd-max-mb -1", cut));
  CHECK(bad.status != 0);
  CHECK_THAT(bad.out, Contains("--vcd-max-mb -1 must be a size in MiB >= 0"));
}

TEST_CASE(
    "progress display: --progress on a non-terminal goes to stderr only, never stdout or --json",
    "[cli]") {
  const std::string json = temp_path("progress.json");
  const std::string err = temp_path("progress.err");
  for (const std::string backend : {"cycle", "fsim"}) {
    INFO(backend);
    // stdout through a pipe (cat: the helper's 2>&1 then applies to it), stderr to a file:
    // neither is a terminal
    std::filesystem::remove(json);
    const CliResult r = vtasim(
        fmt::format("matmul --backend {} --progress --json {} 2>{} | cat", backend, json, err));
    REQUIRE(std::filesystem::exists(json));
    std::ifstream ef(err);
    const std::string progress((std::istreambuf_iterator<char>(ef)),
                               std::istreambuf_iterator<char>());
    INFO(progress);
    CHECK(r.out.find("progress") == std::string::npos);
    std::ifstream jf(json);
    const nlohmann::json report = nlohmann::json::parse(jf);
    CHECK(report.dump().find("progress") == std::string::npos);
    uint64_t insns = 0;
    for (const auto& [op, n] : report["insn_count"].items()) {
      insns += n.get<uint64_t>();
    }
    // The last line gives the totals of the run, as the report counts them (fsim: work units,
    // not cycles).
    const std::string amount = backend == "fsim"
                                   ? "work units"
                                   : std::to_string(report["cycles"].get<uint64_t>()) + " cycles";
    CHECK_THAT(progress, Contains(fmt::format("vtasim: progress: {} backend, ", backend)));
    CHECK_THAT(progress, Contains(fmt::format("{}, {} instructions retired, ", amount, insns)));
    CHECK_THAT(progress, Contains(" s (ended)\n"));
  }
  std::filesystem::remove(json);
  std::filesystem::remove(err);
}

TEST_CASE("every input file is read with a limit: devices, FIFOs and oversized files are named",
          "[cli]") {
  // Nothing is read from a special file (/dev/zero used to be read until memory ran out) and a
  // file over the 64 MiB limit of JSON inputs is refused by its size (a sparse file: no bytes).
  const std::string fifo = temp_path("input.fifo");
  const std::string big = temp_path("input_big.json");
  const std::string spec = temp_path("network_workload.json");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::ofstream(big).close();
  std::filesystem::resize_file(big, (uint64_t{64} << 20) + 1);
  std::ofstream(spec)
      << R"({"base": "pynq", "workloads": ["network:/dev/zero"], "backend": "fsim"})";
  struct Surface {
    const char* kind;  // as the error names it
    std::string args;  // with {} for the file
    int status;        // sweep specs are the sweep's usage errors (2), the others 1
  };
  const std::vector<Surface> surfaces = {
      {"config file", "conv2d --backend fsim --config {}", 1},
      {"schedule file", "conv2d --backend fsim --schedule {}", 1},
      {"network file", "network {} --backend fsim", 1},
      {"sweep spec", "sweep {} --db " + temp_path("never.sqlite"), 2}};
  for (const Surface& s : surfaces) {
    for (const std::string& file : {std::string("/dev/zero"), fifo}) {
      const CliResult r = vtasim(fmt::format(fmt::runtime(s.args), file));
      INFO(s.args << " with " << file << ": " << r.out);
      CHECK(r.status == s.status);
      CHECK_THAT(r.out,
                 Contains(fmt::format("cannot read {} '{}': not a regular file", s.kind, file)));
    }
    const CliResult r = vtasim(fmt::format(fmt::runtime(s.args), big));
    INFO(s.args << " with a 64 MiB + 1 byte file: " << r.out);
    CHECK(r.status == s.status);
    CHECK_THAT(r.out,
               Contains(fmt::format("{} '{}' is larger than the limit of 64 MiB", s.kind, big)));
  }
  const CliResult r = vtasim(fmt::format("sweep {} --db {}", spec, temp_path("never2.sqlite")));
  CHECK(r.status != 0);
  CHECK_THAT(r.out, Contains("workload 'network:/dev/zero': cannot read network file "
                             "'/dev/zero': not a regular file"));
  CHECK_FALSE(std::filesystem::exists(temp_path("never.sqlite")));
  CHECK_FALSE(std::filesystem::exists(temp_path("never2.sqlite")));
  for (const std::string& p : {fifo, big, spec}) {
    std::filesystem::remove(p);
  }
}

TEST_CASE("a network file declaring a huge input is refused by size before any allocation",
          "[cli]") {
  // 40960 x 40960 x 16 int8 values (25 GiB) in a file of 150 bytes.
  const std::string net = temp_path("huge_input.json");
  std::ofstream(net) << R"({"name": "h", "input": {"name": "data", "n": 1, "c": 16, "h": 40960,)"
                     << R"( "w": 40960}, "layers": [{"name": "a", "op": "conv2d", "input": )"
                     << R"("data", "k": 16, "kernel": 1}]})";
  const CliResult r = vtasim("network " + net + " --backend fsim");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("network h: input 1x16x40960x40960 is larger than 1024 MiB"));
  std::filesystem::remove(net);
}
