// vtasim run: execute a program image (see vta/sim/program_image.h) or a raw instruction stream
// on a backend and print the report. vtasim demo: build a blocked matmul with an ALU epilogue as
// an instruction stream, run it, and check it against a plain C++ matmul.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "cli_common.h"
#include "vta/compiler/check/program_check.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"

namespace vta::cli {

namespace {

// vtasim run's budget without --max-cycles: 10^10 cycles (fsim: work units), 100 s of a
// 100 MHz device, so a runaway program (one ALU instruction of 2e12 micro-ops) ends in an error.
constexpr uint64_t kRunDefaultBudget = 10'000'000'000;

double run_timed(Backend& be, uint32_t insn_phys, uint32_t insn_count, uint64_t max_cycles,
                 RunStatus* status) {
  const auto t0 = std::chrono::steady_clock::now();
  *status = be.run(insn_phys, insn_count, max_cycles);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Prints up to 256 bytes of a region as int8 values, 16 per line; a region that is not wholly
// allocated DRAM is named as such instead of being read.
void dump_region(std::ostream& os, const std::string& name, const Dram& dram, uint32_t phys,
                 uint32_t bytes) {
  const uint8_t* p = dram.checked_ptr(phys, bytes);
  if (p == nullptr) {
    os << fmt::format("output '{}' ({} bytes at {:#x}): not allocated DRAM, nothing to print\n",
                      name, bytes, phys);
    return;
  }
  os << fmt::format("output '{}' ({} bytes{}):\n", name, bytes, bytes > 256 ? ", first 256" : "");
  for (uint32_t k = 0; k < std::min<uint32_t>(bytes, 256); k += 16) {
    std::string line;
    for (uint32_t j = k; j < std::min<uint32_t>(bytes, k + 16); ++j) {
      line += fmt::format("{:5}", static_cast<int8_t>(p[j]));
    }
    os << fmt::format("  {:6}:{}\n", k, line);
  }
}

// ---- The demo program ----------------------------------------------------------------------

// Appends encoded instructions to a vector and places data in DRAM.
class DemoAssembler {
 public:
  DemoAssembler(const HwConfig& cfg, Dram& dram) : m_cfg(cfg), m_dram(dram), m_codec(cfg) {}
  uint8_t* alloc(size_t bytes, uint32_t* phys) {
    void* p = m_dram.alloc(bytes);
    *phys = m_dram.phys_addr(p);
    return static_cast<uint8_t*>(p);
  }
  void push(const Insn& i) { m_insns.push_back(i); }
  // Writes the stream to DRAM; returns its physical address.
  uint32_t emit() {
    uint32_t phys = 0;
    uint8_t* p = alloc(m_insns.size() * kInsnBytes, &phys);
    for (size_t k = 0; k < m_insns.size(); ++k) {
      IsaCodec::store_words(m_codec.encode(m_insns[k]), p + k * kInsnBytes);
    }
    return phys;
  }
  uint32_t count() const { return static_cast<uint32_t>(m_insns.size()); }
  const IsaCodec& codec() const { return m_codec; }

 private:
  const HwConfig& m_cfg;
  Dram& m_dram;
  IsaCodec m_codec;
  std::vector<Insn> m_insns;
};

struct DemoProgram {
  uint32_t insn_phys = 0, insn_count = 0;
  uint32_t out_phys = 0, out_bytes = 0;
  std::vector<int8_t> expected;  // tiled like the output buffer
  std::string description;
};

// The demo's sizes: y[M][N] from x[M][K] and W[N][K], in tiles of BATCH rows, BLOCK_IN
// reduction and BLOCK_OUT output elements, processed in blocks of rb x kb x nb tiles.
struct DemoShape {
  explicit DemoShape(const HwConfig& cfg)
      : RT(std::max(1u, M / cfg.batch)),
        KT(K / cfg.block_in),
        NT(N / cfg.block_out),
        rb(std::min(RT, 16u)),
        kb(std::min(KT, 4u)),
        nb(std::min(NT, 4u)),
        batch(cfg.batch),
        bin(cfg.block_in),
        bout(cfg.block_out),
        rows(RT * cfg.batch) {}
  static constexpr uint32_t M = 64, K = 256, N = 256;
  uint32_t RT, KT, NT;  // row, reduction and output tiles
  uint32_t rb, kb, nb;  // tiles per block
  uint32_t batch, bin, bout;
  uint32_t rows;  // M rounded up to whole row tiles
};

struct DemoData {
  std::vector<int8_t> x, w;   // rows x K, N x K
  std::vector<int32_t> bias;  // rows x N
};

DemoData demo_data(const DemoShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127), bias_d(-4096, 4096);
  DemoData d;
  d.x.resize(s.rows * s.K);
  d.w.resize(s.N * s.K);
  d.bias.resize(s.rows * s.N);
  for (auto& v : d.x) {
    v = static_cast<int8_t>(i8(rng));
  }
  for (auto& v : d.w) {
    v = static_cast<int8_t>(i8(rng));
  }
  for (auto& v : d.bias) {
    v = bias_d(rng);
  }
  return d;
}

// Physical addresses of the demo's DRAM buffers.
struct DemoBuffers {
  uint32_t x = 0, w = 0, bias = 0, y = 0;
};

// Allocates x, W, bias and y and writes the inputs in the tiled DRAM layouts:
// x [RT][KT][batch][bin], W [NT][KT][bout][bin], bias/y [RT][NT][batch][bout].
DemoBuffers place_demo_data(DemoAssembler& as, const HwConfig& cfg, const DemoShape& s,
                            const DemoData& d) {
  DemoBuffers b;
  uint8_t* xd = as.alloc(static_cast<size_t>(s.RT) * s.KT * cfg.inp_elem_bytes, &b.x);
  uint8_t* wd = as.alloc(static_cast<size_t>(s.NT) * s.KT * cfg.wgt_elem_bytes, &b.w);
  uint8_t* bd = as.alloc(static_cast<size_t>(s.RT) * s.NT * cfg.acc_elem_bytes, &b.bias);
  as.alloc(static_cast<size_t>(s.RT) * s.NT * cfg.out_elem_bytes, &b.y);
  for (uint32_t r = 0; r < s.rows; ++r) {
    for (uint32_t k = 0; k < s.K; ++k) {
      xd[((r / s.batch) * s.KT + k / s.bin) * cfg.inp_elem_bytes + (r % s.batch) * s.bin +
         k % s.bin] = static_cast<uint8_t>(d.x[r * s.K + k]);
    }
    for (uint32_t n = 0; n < s.N; ++n) {
      const int32_t v = d.bias[r * s.N + n];
      std::memcpy(bd + ((r / s.batch) * s.NT + n / s.bout) * cfg.acc_elem_bytes +
                      ((r % s.batch) * s.bout + n % s.bout) * 4,
                  &v, 4);
    }
  }
  for (uint32_t n = 0; n < s.N; ++n) {
    for (uint32_t k = 0; k < s.K; ++k) {
      wd[((n / s.bout) * s.KT + k / s.bin) * cfg.wgt_elem_bytes + (n % s.bout) * s.bin +
         k % s.bin] = static_cast<uint8_t>(d.w[n * s.K + k]);
    }
  }
  return b;
}

// Micro-ops: rb GEMM uops (loops walk the reduction and output tiles) + one element-wise uop,
// and the LOAD UOP that brings them into the uop SRAM.
void push_demo_uops(DemoAssembler& as, const DemoShape& s) {
  std::vector<Uop> uops;
  for (uint32_t i = 0; i < s.rb; ++i) {
    uops.push_back(Uop{i * s.nb, i * s.kb, 0});
  }
  uops.push_back(Uop{0, 0, 0});
  uint32_t u_phys = 0;
  uint8_t* ud = as.alloc(uops.size() * kUopBytes, &u_phys);
  for (size_t k = 0; k < uops.size(); ++k) {
    const uint32_t word = as.codec().encode_uop(uops[k]);
    std::memcpy(ud + k * kUopBytes, &word, kUopBytes);
  }
  as.push(mem_insn(kOpLoad, kMemUop, 0, u_phys / kUopBytes, 1, static_cast<uint32_t>(uops.size()),
                   static_cast<uint32_t>(uops.size())));
}

// The GEMM of one (row block, output block, reduction block) step, for a full row block.
Insn demo_gemm(const DemoShape& s) {
  Insn gemm;
  gemm.opcode = kOpGemm;
  gemm.uop_bgn = 0;
  gemm.uop_end = s.rb;
  gemm.iter_out = s.kb;
  gemm.src_factor_out = 1;
  gemm.wgt_factor_out = 1;
  gemm.iter_in = s.nb;
  gemm.dst_factor_in = 1;
  gemm.wgt_factor_in = s.kb;
  return gemm;
}

// The ALU epilogue of one output block: >> 6, max 0, min 127 (the last one signals the store).
void push_demo_epilogue(DemoAssembler& as, const DemoShape& s, uint32_t rn) {
  Insn a;
  a.opcode = kOpAlu;
  a.uop_bgn = s.rb;
  a.uop_end = s.rb + 1;
  a.iter_out = 1;
  a.iter_in = rn * s.nb;
  a.dst_factor_in = 1;
  a.src_factor_in = 1;
  a.use_imm = true;
  a.alu_opcode = kAluShr;
  a.imm = 6;
  as.push(a);
  a.alu_opcode = kAluMax;
  a.imm = 0;
  as.push(a);
  a.alu_opcode = kAluMin;
  a.imm = 127;
  a.push_next_dep = true;
  as.push(a);
}

// Position of the demo's instruction stream: steps (GEMMs) and output blocks pushed so far.
struct DemoProgress {
  uint32_t step = 0, block = 0, steps = 0;
};

// One output block (rows r0.. of row block, output tiles ni*nb..): bias load, the reduction
// steps, the epilogue and the store.
void push_demo_block(DemoAssembler& as, const HwConfig& cfg, const DemoShape& s,
                     const DemoBuffers& b, uint32_t r0, uint32_t ni, DemoProgress& at) {
  const uint32_t rn = std::min(s.rb, s.RT - r0);
  Insn bias_load = mem_insn(kOpLoad, kMemAcc, 0,
                            b.bias / cfg.acc_elem_bytes + r0 * s.NT + ni * s.nb, rn, s.nb, s.NT);
  bias_load.pop_next_dep = at.block > 0;  // the previous block's store has read the out buffer
  as.push(bias_load);
  for (uint32_t ki = 0; ki < s.KT / s.kb; ++ki, ++at.step) {
    Insn li = mem_insn(kOpLoad, kMemInp, 0, b.x / cfg.inp_elem_bytes + r0 * s.KT + ki * s.kb, rn,
                       s.kb, s.KT);
    li.pop_next_dep = at.step > 0;  // compute is done with the previous tiles
    as.push(li);
    Insn lw = mem_insn(kOpLoad, kMemWgt, 0, b.w / cfg.wgt_elem_bytes + ni * s.nb * s.KT + ki * s.kb,
                       s.nb, s.kb, s.KT);
    lw.push_next_dep = true;
    as.push(lw);
    Insn g = demo_gemm(s);
    g.uop_end = rn;
    g.pop_prev_dep = true;
    g.push_prev_dep = at.step + 1 < at.steps;
    as.push(g);
  }
  push_demo_epilogue(as, s, rn);
  Insn st = mem_insn(kOpStore, kMemOut, 0, b.y / cfg.out_elem_bytes + r0 * s.NT + ni * s.nb, rn,
                     s.nb, s.NT);
  st.pop_prev_dep = true;
  st.push_prev_dep = true;
  as.push(st);
  ++at.block;
}

// y as the int8 result tiled like the output buffer.
std::vector<int8_t> demo_expected(const HwConfig& cfg, const DemoShape& s, const DemoData& d) {
  std::vector<int8_t> expected(s.RT * s.NT * cfg.out_elem_bytes, 0);
  for (uint32_t r = 0; r < s.rows; ++r) {
    for (uint32_t n = 0; n < s.N; ++n) {
      int64_t acc = d.bias[r * s.N + n];
      for (uint32_t k = 0; k < s.K; ++k) {
        acc += d.x[r * s.K + k] * d.w[n * s.K + k];
      }
      const int32_t v = std::clamp(static_cast<int32_t>(acc) >> 6, 0, 127);
      expected[((r / s.batch) * s.NT + n / s.bout) * cfg.out_elem_bytes + (r % s.batch) * s.bout +
               n % s.bout] = static_cast<int8_t>(v);
    }
  }
  return expected;
}

// y[M][N] = clip((bias + x[M][K] . W[N][K]^T) >> 6, 0, 127) as int8, blocked over rows, output
// channels and the reduction, with the load / compute / store units handing over by tokens.
DemoProgram build_demo(const HwConfig& cfg, Dram& dram, uint32_t seed) {
  if (cfg.inp_width != 8 || cfg.wgt_width != 8 || cfg.acc_width != 32) {
    throw Error(fmt::format(
        "the demo program is built for int8 inputs and weights with int32 accumulators; config "
        "{} has int{} inputs, int{} weights and int{} accumulators",
        cfg.model_name, cfg.inp_width, cfg.wgt_width, cfg.acc_width));
  }
  const DemoShape s(cfg);
  const DemoData d = demo_data(s, seed);
  DemoAssembler as(cfg, dram);
  const DemoBuffers b = place_demo_data(as, cfg, s, d);
  push_demo_uops(as, s);
  const uint32_t rblocks = (s.RT + s.rb - 1) / s.rb;
  DemoProgress at;
  at.steps = rblocks * (s.NT / s.nb) * (s.KT / s.kb);
  for (uint32_t ri = 0; ri < rblocks; ++ri) {
    for (uint32_t ni = 0; ni < s.NT / s.nb; ++ni) {
      push_demo_block(as, cfg, s, b, ri * s.rb, ni, at);
    }
  }
  Insn fin;
  fin.opcode = kOpFinish;
  fin.pop_next_dep = true;
  as.push(fin);

  DemoProgram p;
  p.insn_count = as.count();
  p.insn_phys = as.emit();
  p.out_phys = b.y;
  p.out_bytes = s.RT * s.NT * cfg.out_elem_bytes;
  p.expected = demo_expected(cfg, s, d);
  p.description = fmt::format(
      "matmul {}x{}x{} + bias, >> 6, clip [0, 127] (blocks {}x{}x{} tiles, {} instructions)",
      s.rows, s.K, s.N, s.rb, s.kb, s.nb, p.insn_count);
  return p;
}

// Loads `file` (a program image, or a raw stream placed in fresh DRAM) into `dram` and returns
// the config to run it with; `img` gets the stream's position (and an image's outputs).
ResolvedConfig load_program(const std::string& file, const CommonOptions& opts, Dram& dram,
                            ProgramImage& img) {
  const std::string& config = opts.config;
  require_regular_file(file);
  if (ProgramImage::is_image_file(file)) {
    img = ProgramImage::load(file);
    ResolvedConfig rc = image_config(img, config, opts.sets, file);
    const HwConfig& cfg = rc.config;
    img.check_widths(cfg, file);
    if (!config.empty() && !img.config_json.empty()) {
      const HwConfig built_for = embedded_config(img, file);
      if (built_for.model_name != cfg.model_name) {
        std::cerr << fmt::format("vtasim: note: running with config {}, but {} was built for {}\n",
                                 cfg.model_name, file, built_for.model_name);
      }
    }
    img.load_into(dram);
    return rc;
  }
  // A raw stream: 16-byte little-endian instructions, placed in fresh DRAM.
  const std::vector<uint8_t> data = read_regular_file(file, Dram::kPhysBytes);
  if (data.empty() || data.size() % kInsnBytes != 0) {
    throw Error(
        fmt::format("'{}' is neither a program image nor a raw instruction stream "
                    "({} bytes is not a positive multiple of 16)",
                    file, data.size()));
  }
  ResolvedConfig rc = resolve_config(config, opts.sets);
  void* p = dram.alloc(data.size());
  std::memcpy(p, data.data(), data.size());
  img.insn_phys = dram.phys_addr(p);
  img.insn_count = static_cast<uint32_t>(data.size() / kInsnBytes);
  return rc;
}

// The report line of an image's expected outputs ("2 match" or the first difference); returns
// the difference ("" when they all match).
std::string check_image_outputs(const ProgramImage& img, const Dram& dram, RunReport& r) {
  const std::string check = img.check_outputs(dram);
  size_t checked = 0;
  for (const ImageOutput& o : img.outputs) {
    checked += o.expected.empty() ? 0 : 1;
  }
  if (checked > 0) {
    r.extra["outputs_checked"] = check.empty() ? fmt::format("{} match", checked) : check;
  }
  return check;
}

// The static verifier on the stream, before any backend sees it: every backend then gives the
// same verdict on a program whose outcome would depend on timing.
void verify_stream(const HwConfig& cfg, const Dram& dram, const ProgramImage& img) {
  const std::string problem =
      compiler::describe_problem(compiler::check_stream(cfg, dram, img.insn_phys, img.insn_count));
  if (!problem.empty()) {
    throw ProgramError("program verifier (--no-check skips it): " + problem);
  }
}

// Runs the image within --max-cycles, or run's default budget, recording the wall time in `r`;
// a run over the budget is the named error.
RunStatus run_within_budget(CommonOptions opts, Backend& be, const ProgramImage& img,
                            const std::string& file, RunReport& r) {
  const bool by_default = opts.max_cycles == 0;
  if (by_default) {
    opts.max_cycles = kRunDefaultBudget;
  }
  apply_budget(opts, be);
  RunStatus status = RunStatus::kOk;
  r.wall_seconds = compiler::with_simulation_progress(opts.progress_flags(), be.name(), [&] {
    return run_timed(be, img.insn_phys, img.insn_count, opts.max_cycles, &status);
  });
  if (status == RunStatus::kTimeout) {
    throw_over_budget(file, be, opts.max_cycles, img.insn_count, by_default);
  }
  return status;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  return guarded([&]() {
    CommonOptions opts;
    std::string file;
    bool dump = false;
    bool no_check = false;
    po::options_description desc("run options");
    add_common_options(desc, opts);
    auto add = desc.add_options();
    add("file", po::value(&file), "program image or raw instruction stream");
    add("dump-outputs", po::bool_switch(&dump), "print the output regions of an image");
    add("no-check", po::bool_switch(&no_check), "skip the static program verifier");
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    const std::string usage = "vtasim run FILE [--backend B] [--config C] [--json OUT]";
    if (!parse_args(argc, argv, usage, desc, pos, vm)) {
      return 0;
    }
    if (file.empty()) {
      throw UsageError("missing FILE (usage: " + usage + ")");
    }
    Dram dram;
    ProgramImage img;
    const ResolvedConfig rc = load_program(file, opts, dram, img);
    const HwConfig& cfg = rc.config;
    if (!no_check) {
      verify_stream(cfg, dram, img);
    }
    std::unique_ptr<Backend> be = create_backend(opts, cfg, dram);
    RunReport r;
    r.command = "run";
    r.program = file;
    r.backend = be->name();
    r.config = cfg.model_name;
    r.resolved = rc;
    const RunStatus status = run_within_budget(opts, *be, img, file, r);
    r.stats = be->stats();
    r.extra["status"] = status == RunStatus::kOk ? "finished" : "timeout";
    const std::string check = check_image_outputs(img, dram, r);
    print_report(std::cout, r);
    if (dump) {
      for (const ImageOutput& o : img.outputs) {
        dump_region(std::cout, o.name, dram, o.phys, o.bytes);
      }
    }
    write_json_report(opts, r);
    if (!check.empty()) {
      throw Error(check);
    }
    return 0;
  });
}

int cmd_demo(int argc, char** argv) {
  return guarded([&]() {
    CommonOptions opts;
    std::string save;
    uint32_t seed = 1;
    po::options_description desc("demo options");
    add_common_options(desc, opts);
    auto add = desc.add_options();
    add("save-image", po::value(&save), "also save the program as an image for `vtasim run`");
    add("seed", po::value(&seed)->default_value(1), "seed of the random data");
    po::positional_options_description pos;
    po::variables_map vm;
    const std::string usage = "vtasim demo [--backend B] [--config C] [--json OUT]";
    if (!parse_args(argc, argv, usage, desc, pos, vm)) {
      return 0;
    }
    const ResolvedConfig rc = resolve_config(opts.config, opts.sets);
    const HwConfig& cfg = rc.config;
    Dram dram;
    const DemoProgram p = build_demo(cfg, dram, seed);
    if (!save.empty()) {
      ProgramImage img =
          ProgramImage::capture(dram, p.insn_phys, p.insn_count, cfg.to_json().dump());
      img.outputs.push_back(
          ImageOutput{"y", p.out_phys, p.out_bytes,
                      std::vector<uint8_t>(p.expected.begin(), p.expected.end())});
      img.save(save);
    }
    std::unique_ptr<Backend> be = create_backend(opts, cfg, dram);
    RunStatus status = RunStatus::kOk;
    RunReport r;
    r.command = "demo";
    r.program = p.description;
    r.backend = be->name();
    r.config = cfg.model_name;
    r.resolved = rc;
    apply_budget(opts, *be);
    r.wall_seconds = compiler::with_simulation_progress(opts.progress_flags(), be->name(), [&] {
      return run_timed(*be, p.insn_phys, p.insn_count, opts.max_cycles, &status);
    });
    if (status == RunStatus::kTimeout) {
      throw_over_budget("demo", *be, opts.max_cycles, p.insn_count);
    }
    r.stats = be->stats();
    const bool ok = std::memcmp(dram.host_ptr(p.out_phys), p.expected.data(), p.out_bytes) == 0;
    r.extra["status"] = status == RunStatus::kOk ? "finished" : "timeout";
    r.extra["check"] = ok ? "output matches the C++ reference" : "OUTPUT MISMATCH";
    if (!save.empty()) {
      r.extra["image"] = save;
    }
    print_report(std::cout, r);
    write_json_report(opts, r);
    if (!ok) {
      throw Error("demo output differs from the C++ reference");
    }
    return 0;
  });
}

}  // namespace vta::cli
