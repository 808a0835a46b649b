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
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"

namespace vta::cli {

namespace {

double run_timed(Backend& be, uint32_t insn_phys, uint32_t insn_count, RunStatus* status) {
  const auto t0 = std::chrono::steady_clock::now();
  *status = be.run(insn_phys, insn_count, 0);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Prints up to 256 bytes of a region as int8 values, 16 per line.
void dump_region(std::ostream& os, const std::string& name, const uint8_t* p, uint32_t bytes) {
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

// y[M][N] = clip((bias + x[M][K] . W[N][K]^T) >> 6, 0, 127) as int8, blocked over rows, output
// channels and the reduction, with the load / compute / store units handing over by tokens.
DemoProgram build_demo(const HwConfig& cfg, Dram& dram, uint32_t seed) {
  const uint32_t M = 64, K = 256, N = 256;
  const uint32_t RT = std::max(1u, M / cfg.batch), KT = K / cfg.block_in, NT = N / cfg.block_out;
  const uint32_t rb = std::min(RT, 16u), kb = std::min(KT, 4u), nb = std::min(NT, 4u);
  const uint32_t batch = cfg.batch, bin = cfg.block_in, bout = cfg.block_out;
  const uint32_t rows = RT * batch;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127), bias_d(-4096, 4096);
  std::vector<int8_t> x(rows * K), w(N * K);
  std::vector<int32_t> bias(rows * N);
  for (auto& v : x) {
    v = static_cast<int8_t>(i8(rng));
  }
  for (auto& v : w) {
    v = static_cast<int8_t>(i8(rng));
  }
  for (auto& v : bias) {
    v = bias_d(rng);
  }

  DemoAssembler as(cfg, dram);
  uint32_t x_phys, w_phys, b_phys, y_phys, u_phys;
  uint8_t* xd = as.alloc(static_cast<size_t>(RT) * KT * cfg.inp_elem_bytes, &x_phys);
  uint8_t* wd = as.alloc(static_cast<size_t>(NT) * KT * cfg.wgt_elem_bytes, &w_phys);
  uint8_t* bd = as.alloc(static_cast<size_t>(RT) * NT * cfg.acc_elem_bytes, &b_phys);
  as.alloc(static_cast<size_t>(RT) * NT * cfg.out_elem_bytes, &y_phys);
  // Tiled DRAM layouts: x [RT][KT][batch][bin], W [NT][KT][bout][bin], bias/y
  // [RT][NT][batch][bout].
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t k = 0; k < K; ++k) {
      xd[((r / batch) * KT + k / bin) * cfg.inp_elem_bytes + (r % batch) * bin + k % bin] =
          static_cast<uint8_t>(x[r * K + k]);
    }
    for (uint32_t n = 0; n < N; ++n) {
      const int32_t v = bias[r * N + n];
      std::memcpy(bd + ((r / batch) * NT + n / bout) * cfg.acc_elem_bytes +
                      ((r % batch) * bout + n % bout) * 4,
                  &v, 4);
    }
  }
  for (uint32_t n = 0; n < N; ++n) {
    for (uint32_t k = 0; k < K; ++k) {
      wd[((n / bout) * KT + k / bin) * cfg.wgt_elem_bytes + (n % bout) * bin + k % bin] =
          static_cast<uint8_t>(w[n * K + k]);
    }
  }
  // Micro-ops: rb GEMM uops (loops walk the reduction and output tiles) + one element-wise uop.
  std::vector<Uop> uops;
  for (uint32_t i = 0; i < rb; ++i) {
    uops.push_back(Uop{i * nb, i * kb, 0});
  }
  uops.push_back(Uop{0, 0, 0});
  uint8_t* ud = as.alloc(uops.size() * kUopBytes, &u_phys);
  for (size_t k = 0; k < uops.size(); ++k) {
    const uint32_t word = as.codec().encode_uop(uops[k]);
    std::memcpy(ud + k * kUopBytes, &word, kUopBytes);
  }
  as.push(mem_insn(kOpLoad, kMemUop, 0, u_phys / kUopBytes, 1, static_cast<uint32_t>(uops.size()),
                   static_cast<uint32_t>(uops.size())));

  Insn gemm;
  gemm.opcode = kOpGemm;
  gemm.uop_bgn = 0;
  gemm.uop_end = rb;
  gemm.iter_out = kb;
  gemm.src_factor_out = 1;
  gemm.wgt_factor_out = 1;
  gemm.iter_in = nb;
  gemm.dst_factor_in = 1;
  gemm.wgt_factor_in = kb;
  Insn alu;
  alu.opcode = kOpAlu;
  alu.uop_bgn = rb;
  alu.uop_end = rb + 1;
  alu.iter_out = 1;
  alu.iter_in = rb * nb;
  alu.dst_factor_in = 1;
  alu.src_factor_in = 1;
  alu.use_imm = true;

  const uint32_t rblocks = (RT + rb - 1) / rb, nblocks = NT / nb, kblocks = KT / kb;
  const uint32_t steps = rblocks * nblocks * kblocks;
  uint32_t step = 0, block = 0;
  for (uint32_t ri = 0; ri < rblocks; ++ri) {
    const uint32_t r0 = ri * rb, rn = std::min(rb, RT - r0);
    for (uint32_t ni = 0; ni < nblocks; ++ni, ++block) {
      Insn bias_load = mem_insn(kOpLoad, kMemAcc, 0,
                                b_phys / cfg.acc_elem_bytes + r0 * NT + ni * nb, rn, nb, NT);
      bias_load.pop_next_dep = block > 0;  // the previous block's store has read the out buffer
      as.push(bias_load);
      for (uint32_t ki = 0; ki < kblocks; ++ki, ++step) {
        Insn li = mem_insn(kOpLoad, kMemInp, 0, x_phys / cfg.inp_elem_bytes + r0 * KT + ki * kb, rn,
                           kb, KT);
        li.pop_next_dep = step > 0;  // compute is done with the previous tiles
        as.push(li);
        Insn lw = mem_insn(kOpLoad, kMemWgt, 0,
                           w_phys / cfg.wgt_elem_bytes + ni * nb * KT + ki * kb, nb, kb, KT);
        lw.push_next_dep = true;
        as.push(lw);
        Insn g = gemm;
        g.uop_end = rn;
        g.pop_prev_dep = true;
        g.push_prev_dep = step + 1 < steps;
        as.push(g);
      }
      Insn a = alu;
      a.iter_in = rn * nb;
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
      Insn st = mem_insn(kOpStore, kMemOut, 0, y_phys / cfg.out_elem_bytes + r0 * NT + ni * nb, rn,
                         nb, NT);
      st.pop_prev_dep = true;
      st.push_prev_dep = true;
      as.push(st);
    }
  }
  Insn fin;
  fin.opcode = kOpFinish;
  fin.pop_next_dep = true;
  as.push(fin);

  DemoProgram p;
  p.insn_count = as.count();
  p.insn_phys = as.emit();
  p.out_phys = y_phys;
  p.out_bytes = RT * NT * cfg.out_elem_bytes;
  p.expected.assign(p.out_bytes, 0);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t n = 0; n < N; ++n) {
      int64_t acc = bias[r * N + n];
      for (uint32_t k = 0; k < K; ++k) {
        acc += x[r * K + k] * w[n * K + k];
      }
      const int32_t v = std::clamp(static_cast<int32_t>(acc) >> 6, 0, 127);
      p.expected[((r / batch) * NT + n / bout) * cfg.out_elem_bytes + (r % batch) * bout +
                 n % bout] = static_cast<int8_t>(v);
    }
  }
  p.description = fmt::format(
      "matmul {}x{}x{} + bias, >> 6, clip [0, 127] (blocks {}x{}x{} tiles, {} instructions)", rows,
      K, N, rb, kb, nb, p.insn_count);
  return p;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  return guarded([&]() {
    CommonOptions opts;
    std::string file;
    bool dump = false;
    po::options_description desc("run options");
    add_common_options(desc, opts);
    desc.add_options()("file", po::value(&file), "program image or raw instruction stream")(
        "dump-outputs", po::bool_switch(&dump), "print the output regions of an image");
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
    HwConfig cfg;
    require_regular_file(file);
    if (ProgramImage::is_image_file(file)) {
      img = ProgramImage::load(file);
      cfg = image_config(img, opts.config, file);
      if (!opts.config.empty() && !img.config_json.empty()) {
        const HwConfig built_for = embedded_config(img, file);
        if (built_for.model_name != cfg.model_name) {
          std::cerr << fmt::format(
              "vtasim: note: running with config {}, but {} was built for {}\n", cfg.model_name,
              file, built_for.model_name);
        }
      }
      img.load_into(dram);
    } else {
      // A raw stream: 16-byte little-endian instructions, placed in fresh DRAM.
      const std::vector<uint8_t> data = read_regular_file(file, Dram::kPhysBytes);
      if (data.empty() || data.size() % kInsnBytes != 0) {
        throw Error(
            fmt::format("'{}' is neither a program image nor a raw instruction stream "
                        "({} bytes is not a positive multiple of 16)",
                        file, data.size()));
      }
      cfg = resolve_config(opts.config);
      void* p = dram.alloc(data.size());
      std::memcpy(p, data.data(), data.size());
      img.insn_phys = dram.phys_addr(p);
      img.insn_count = static_cast<uint32_t>(data.size() / kInsnBytes);
    }
    std::unique_ptr<Backend> be = create_backend(opts, cfg, dram);
    RunStatus status = RunStatus::kOk;
    RunReport r;
    r.command = "run";
    r.program = file;
    r.backend = be->name();
    r.config = cfg.model_name;
    r.wall_seconds = run_timed(*be, img.insn_phys, img.insn_count, &status);
    r.stats = be->stats();
    r.extra["status"] = status == RunStatus::kOk ? "finished" : "timeout";
    const std::string check = img.check_outputs(dram);
    size_t checked = 0;
    for (const ImageOutput& o : img.outputs) {
      checked += o.expected.empty() ? 0 : 1;
    }
    if (checked > 0) {
      r.extra["outputs_checked"] = check.empty() ? fmt::format("{} match", checked) : check;
    }
    print_report(std::cout, r);
    if (dump) {
      for (const ImageOutput& o : img.outputs) {
        dump_region(std::cout, o.name, dram.host_ptr(o.phys), o.bytes);
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
    desc.add_options()("save-image", po::value(&save),
                       "also save the program as an image for `vtasim run`")(
        "seed", po::value(&seed)->default_value(1), "seed of the random data");
    po::positional_options_description pos;
    po::variables_map vm;
    const std::string usage = "vtasim demo [--backend B] [--config C] [--json OUT]";
    if (!parse_args(argc, argv, usage, desc, pos, vm)) {
      return 0;
    }
    const HwConfig cfg = resolve_config(opts.config);
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
    r.wall_seconds = run_timed(*be, p.insn_phys, p.insn_count, &status);
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
