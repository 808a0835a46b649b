// The instruction stream the runtime builds, compared with hand-written expected streams:
// dependency-flag folding (pops onto the next instruction of the stage, pushes onto the last
// instruction or a NOP), the final syncs and FINISH, micro-op kernel caching with the ring
// residency policy, residency forgotten at synchronisation, automatic synchronisation, tokens
// carried across a synchronisation, FORCE_SERIAL, and the debug dumps.
#include <fstream>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "runtime_test_util.h"
#include "vta/sim/fsim.h"
#include "vta/sim/program_image.h"

using namespace vta;
using namespace vta::rt_test;

namespace {

constexpr uint32_t kSync = 1u << 31;

// Captures every synchronised program.
struct Capture {
  std::vector<SyncedProgram> programs;
  Capture() {
    runtime_set_program_observer([this](const SyncedProgram& p) { programs.push_back(p); });
  }
  ~Capture() { runtime_set_program_observer(nullptr); }
  std::vector<Insn> decoded(size_t i) const {
    IsaCodec codec(runtime_config());
    std::vector<Insn> out;
    for (const auto& w : programs.at(i).insns) {
      out.push_back(codec.decode(w));
    }
    return out;
  }
};

struct Flags {
  bool pop_prev = false, pop_next = false, push_prev = false, push_next = false;
};

Insn with_flags(Insn i, Flags f) {
  i.pop_prev_dep = f.pop_prev;
  i.pop_next_dep = f.pop_next;
  i.push_prev_dep = f.push_prev;
  i.push_next_dep = f.push_next;
  return i;
}

Insn mem(uint32_t opcode, uint32_t type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
         uint32_t stride, Flags f = {}) {
  Insn i;
  i.opcode = opcode;
  i.memory_type = type;
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return with_flags(i, f);
}

// NOPs of the three stages as upstream's PushNoop builds them.
Insn load_nop(Flags f) {
  return mem(kOpLoad, kMemInp, 0, 0, 0, 0, 0, f);
}
Insn compute_nop(Flags f) {
  return mem(kOpLoad, kMemUop, 0, 0, 0, 0, 0, f);
}
Insn store_nop(Flags f) {
  return mem(kOpStore, kMemUop, 0, 0, 0, 0, 0, f);
}
Insn finish() {
  Insn i;
  i.opcode = kOpFinish;
  return i;
}

Insn gemm(bool reset, uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in,
          uint32_t dst_fo, uint32_t dst_fi, Flags f = {}) {
  Insn i;
  i.opcode = kOpGemm;
  i.reset_reg = reset;
  i.uop_bgn = bgn;
  i.uop_end = end;
  i.iter_out = iter_out;
  i.iter_in = iter_in;
  i.dst_factor_out = dst_fo;
  i.dst_factor_in = dst_fi;
  return with_flags(i, f);
}

Insn alu(uint32_t bgn, uint32_t end, uint32_t iter_in, Flags f = {}) {
  Insn i;
  i.opcode = kOpAlu;
  i.uop_bgn = bgn;
  i.uop_end = end;
  i.iter_out = 1;
  i.iter_in = iter_in;
  i.dst_factor_in = iter_in > 1 ? 1 : 0;
  i.src_factor_in = iter_in > 1 ? 1 : 0;
  i.alu_opcode = kAluShr;
  i.use_imm = true;
  i.imm = 0;
  return with_flags(i, f);
}

void check_stream(const std::vector<Insn>& got, const std::vector<Insn>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("instruction " << i << "\n  got:  " << disassemble(got[i])
                        << "\n  want: " << disassemble(want[i]));
    CHECK(got[i] == want[i]);
  }
}

int reset_two_finit(void*) {
  VTAUopLoopBegin(2, 1, 0, 0);
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}

int gemm_two_finit(void*) {
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  VTAUopPush(0, 0, 1, 1, 0, 0, 0, 0);
  return 0;
}

uint32_t phys_elem(void* p, uint32_t elem_bytes) {
  return VTAMemGetPhyAddr(p) / elem_bytes;
}

// Loads 4 acc tiles from `ab` and adds the immediate Imm to each (one uop in a 4-step loop).
template <int Imm>
void load_acc4_add_imm(VTACommandHandle cmd, const Buffer& ab, void** handle) {
  VTALoadBuffer2D(cmd, ab.get(), 0, 4, 1, 4, 0, 0, 0, 0, 0, kMemAcc);
  VTAPushALUOp(
      handle,
      [](void*) {
        VTAUopLoopBegin(4, 1, 1, 0);
        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, Imm);
        VTAUopLoopEnd();
        return 0;
      },
      nullptr, 0);
}

}  // namespace

TEST_CASE("instruction stream of a small GEMM program equals the hand-written one", "[runtime]") {
  Session s;
  const HwConfig& c = s.cfg;
  Capture cap;
  Buffer inp(2 * c.inp_elem_bytes), wgt(c.wgt_elem_bytes), out(2 * c.out_elem_bytes);
  std::vector<int8_t> x(2 * c.inp_elem_bytes), w(c.wgt_elem_bytes);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<int8_t>(int(i % 7) - 3);
  }
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<int8_t>(int(i % 5) - 2);
  }
  inp.upload(x);
  wgt.upload(w);
  void* h_reset = nullptr;
  void* h_gemm = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, inp.get(), 0, 2, 1, 2, 0, 0, 0, 0, 0, kMemInp);  // 0
  VTALoadBuffer2D(cmd, wgt.get(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemWgt);  // 1 (+push_next)
  VTADepPush(cmd, 1, 2);
  VTADepPop(cmd, 1, 2);                                      // folded into 2 (LOAD UOP)
  VTAPushGEMMOp(&h_reset, reset_two_finit, nullptr, 0);      // 2 LOAD UOP, 3 GEMM
  VTAPushGEMMOp(&h_gemm, gemm_two_finit, nullptr, 0);        // 4 LOAD UOP, 5 GEMM
  VTAPushGEMMOp(&h_gemm, gemm_two_finit, nullptr, 0);        // 6 GEMM (resident)
  VTADepPush(cmd, 2, 3);                                     // push_next on 6
  VTADepPop(cmd, 2, 3);                                      // pop_prev on 7
  VTAStoreBuffer2D(cmd, 0, kMemOut, out.get(), 0, 2, 1, 2);  // 7
  VTADepPush(cmd, 3, 2);                                     // push_prev on 7
  VTADepPop(cmd, 3, 2);                                      // pending on compute
  // Before the synchronisation the stream holds only what the calls appended.
  CHECK(runtime_pending_insns().size() == 8);
  VTASynchronize(cmd, kSync);
  REQUIRE(cap.programs.size() == 1);
  const uint32_t uop0 = cap.programs[0].uop_phys / kUopBytes;
  const std::vector<Insn> want = {
      mem(kOpLoad, kMemInp, 0, phys_elem(inp.get(), c.inp_elem_bytes), 1, 2, 2),
      mem(kOpLoad, kMemWgt, 0, phys_elem(wgt.get(), c.wgt_elem_bytes), 1, 1, 1,
          {false, false, false, true}),
      mem(kOpLoad, kMemUop, 0, uop0, 1, 1, 1, {true, false, false, false}),
      gemm(true, 0, 1, 2, 1, 1, 0),
      mem(kOpLoad, kMemUop, 1, uop0 + 1, 1, 2, 2),
      gemm(false, 1, 3, 1, 1, 0, 0),
      gemm(false, 1, 3, 1, 1, 0, 0, {false, false, false, true}),
      mem(kOpStore, kMemOut, 0, phys_elem(out.get(), c.out_elem_bytes), 1, 2, 2,
          {true, false, true, false}),
      // Final syncs: the STORE already pushes s2g, so a store NOP carries the new push; a LOAD
      // NOP belongs to no stage, so the load push needs its own NOP; the user's pending pop
      // is committed when the second s2g pop arrives.
      store_nop({false, false, true, false}),
      load_nop({false, false, false, true}),
      compute_nop({false, true, false, false}),
      compute_nop({true, true, false, false}),
      finish(),
  };
  check_stream(cap.decoded(0), want);
  // The uop image: the reset kernel, then the two-uop GEMM kernel.
  IsaCodec codec(c);
  REQUIRE(cap.programs[0].uops.size() == 3);
  CHECK(codec.decode_uop(cap.programs[0].uops[0]) == Uop{0, 0, 0});
  CHECK(codec.decode_uop(cap.programs[0].uops[2]) == Uop{1, 1, 0});

  // The program ran: out = 2 * (x . w^T) for the two uops (dst i <- src i, wgt 0), as int8.
  const auto y = out.download<int8_t>(2 * c.out_elem_bytes);
  for (int t = 0; t < 2; ++t) {
    for (int b = 0; b < c.batch; ++b) {
      for (int oc = 0; oc < c.block_out; ++oc) {
        int32_t sum = 0;
        for (int k = 0; k < c.block_in; ++k) {
          sum += x[t * c.inp_elem_bytes + b * c.block_in + k] * w[oc * c.block_in + k];
        }
        INFO("tile " << t << " b " << b << " oc " << oc);
        CHECK(y[t * c.out_elem_bytes + b * c.block_out + oc] == static_cast<int8_t>(2 * sum));
      }
    }
  }

  // A new program: uop residency was forgotten, so the kernel is loaded again, at SRAM 0.
  VTAPushGEMMOp(&h_gemm, gemm_two_finit, nullptr, 0);
  VTASynchronize(cmd, kSync);
  REQUIRE(cap.programs.size() == 2);
  const auto second = cap.decoded(1);
  REQUIRE(second.size() >= 2);
  CHECK(second[0] == mem(kOpLoad, kMemUop, 0, cap.programs[1].uop_phys / kUopBytes, 1, 2, 2));
  CHECK(second[1] == gemm(false, 0, 2, 1, 1, 0, 0));
  CHECK(second.back() == finish());
}

namespace {

// ALU kernels of 100 uops (distinct dst) used to fill the 256-uop SRAM of the small config.
int alu100_finit(void*) {
  for (uint32_t i = 0; i < 100; ++i) {
    VTAUopPush(1, 0, i, i, 0, kAluShr, 1, 0);
  }
  return 0;
}

}  // namespace

TEST_CASE("micro-op kernels are placed in the uop SRAM as a ring", "[runtime]") {
  Session s("small");
  REQUIRE(s.cfg.uop_buff_depth == 256);
  Capture cap;
  runtime_set_skip_execution(true);
  void* ha = nullptr;
  void* hb = nullptr;
  void* hc = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTAPushALUOp(&ha, alu100_finit, nullptr, 0);  // A -> [0, 100)
  VTAPushALUOp(&hb, alu100_finit, nullptr, 0);  // B -> [100, 200)
  VTAPushALUOp(&hc, alu100_finit, nullptr,
               0);  // C does not fit at 200: wraps to [0, 100), evicts A
  VTAPushALUOp(&hb, alu100_finit, nullptr, 0);  // B still resident
  VTAPushALUOp(&ha, alu100_finit, nullptr, 0);  // A reloaded after C: [100, 200), evicts B
  VTAPushALUOp(&hb, alu100_finit, nullptr, 0);  // B reloaded at 200? no: 200+100 > 256 -> [0, 100)
  VTASynchronize(cmd, kSync);
  REQUIRE(cap.programs.size() == 1);
  CHECK_FALSE(cap.programs[0].executed);
  const uint32_t u = cap.programs[0].uop_phys / kUopBytes;
  auto uop_load = [&](uint32_t sram, uint32_t image) {
    return mem(kOpLoad, kMemUop, sram, u + image, 1, 100, 100);
  };
  const std::vector<Insn> want = {
      uop_load(0, 0),
      alu(0, 100, 1),
      uop_load(100, 100),
      alu(100, 200, 1),
      uop_load(0, 200),
      alu(0, 100, 1),
      alu(100, 200, 1),
      uop_load(100, 300),
      alu(100, 200, 1),
      uop_load(0, 400),
      alu(0, 100, 1),
      store_nop({false, false, true, false}),
      load_nop({false, false, false, true}),
      compute_nop({true, true, false, false}),
      finish(),
  };
  check_stream(cap.decoded(0), want);
  CHECK(cap.programs[0].uops.size() == 500);
}

TEST_CASE("automatic synchronisation when the instruction buffer would overflow", "[runtime]") {
  Session s;
  runtime_set_max_xfer(32 * kInsnBytes);  // room for 26 instructions + the final syncs
  runtime_reset();
  Capture cap;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const uint32_t n = 40;  // 40 single-tile ALU "+1" ops on tile i: needs several programs
  std::vector<int32_t> a(n * lanes);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int32_t>(i % 50);
  }
  Buffer ab(a.size() * 4), yb(n * lanes);
  ab.upload(a);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  static void* handle = nullptr;
  for (uint32_t i = 0; i < n; ++i) {
    int key = static_cast<int>(i);
    VTAPushALUOp(
        &handle,
        [](void* sig) {
          const auto t = static_cast<uint32_t>(*static_cast<int*>(sig));
          VTAUopPush(1, 0, t, t, 0, kAluAdd, 1, 1);
          return 0;
        },
        &key, 4);
  }
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, kMemOut, yb.get(), 0, n, 1, n);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  VTASynchronize(cmd, kSync);
  CHECK(cap.programs.size() >= 3);
  for (const auto& p : cap.programs) {
    CHECK(p.insns.size() * kInsnBytes <= 32 * kInsnBytes);
  }
  const auto y = yb.download<int8_t>(n * lanes);
  for (size_t i = 0; i < y.size(); ++i) {
    INFO("lane " << i);
    CHECK(y[i] == static_cast<int8_t>(a[i] + 1));
  }
  // Each program reloads the kernels it uses: 40 one-uop kernels, each loaded exactly once.
  CHECK(runtime_stats().uop_load_nbytes == n * kUopBytes);
  CHECK(runtime_stats().alu_counter == n);
}

TEST_CASE("dependency tokens left at a synchronisation carry over to the next program",
          "[runtime]") {
  Session s;
  Capture cap;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  std::vector<int32_t> a(4 * lanes, 7);
  Buffer ab(a.size() * 4), yb(4 * lanes);
  ab.upload(a);
  void* handle = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  load_acc4_add_imm<5>(cmd, ab, &handle);
  VTADepPush(cmd, 2, 3);  // the store's token is pushed in this program ...
  VTASynchronize(cmd, kSync);
  VTADepPop(cmd, 2, 3);  // ... and popped in the next one
  VTAStoreBuffer2D(cmd, 0, kMemOut, yb.get(), 0, 4, 1, 4);
  VTASynchronize(cmd, kSync);
  REQUIRE(cap.programs.size() == 2);
  // First program: LOAD ACC, LOAD UOP, ALU whose single uop loop is the INNER loop (upstream),
  // carrying the g2s push that the next program pops.
  const auto first = cap.decoded(0);
  REQUIRE(first.size() >= 3);
  Insn want_alu = alu(0, 1, 4, {false, false, false, true});
  want_alu.alu_opcode = kAluAdd;
  want_alu.imm = 5;
  CHECK(first[2] == want_alu);
  // The second program re-creates the token with a compute NOP before the STORE pops it.
  const auto second = cap.decoded(1);
  REQUIRE(second.size() >= 2);
  CHECK(second[0] == compute_nop({false, false, false, true}));
  CHECK(second[1] == mem(kOpStore, kMemOut, 0, phys_elem(yb.get(), s.cfg.out_elem_bytes), 1, 4, 4,
                         {true, false, true, false}));
  const auto y = yb.download<int8_t>(4 * lanes);
  CHECK(std::all_of(y.begin(), y.end(), [](int8_t v) { return v == 12; }));
}

TEST_CASE("FORCE_SERIAL makes every change of stage a push/pop pair", "[runtime]") {
  Session s;
  Capture cap;
  runtime_set_skip_execution(true);
  Buffer inp(s.cfg.inp_elem_bytes), out(s.cfg.out_elem_bytes);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTASetDebugMode(cmd, VTA_DEBUG_FORCE_SERIAL);
  VTALoadBuffer2D(cmd, inp.get(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemInp);  // load
  VTAStoreBuffer2D(cmd, 0, kMemOut, out.get(), 0, 1, 1, 1);             // store
  VTADepPush(cmd, 3, 2);                                                // user flags are replaced
  VTALoadBuffer2D(cmd, inp.get(), 0, 1, 1, 1, 0, 0, 0, 0, 1, kMemInp);  // load
  VTASynchronize(cmd, kSync);
  REQUIRE(cap.programs.size() == 1);
  const uint32_t ib = phys_elem(inp.get(), s.cfg.inp_elem_bytes);
  const uint32_t ob = phys_elem(out.get(), s.cfg.out_elem_bytes);
  const std::vector<Insn> want = {
      mem(kOpLoad, kMemInp, 0, ib, 1, 1, 1, {false, false, false, true}),
      compute_nop({true, false, false, true}),  // load -> store goes through compute
      mem(kOpStore, kMemOut, 0, ob, 1, 1, 1, {true, false, true, false}),
      compute_nop({false, true, true, false}),  // the user's store NOP push was dropped
      mem(kOpLoad, kMemInp, 1, ib, 1, 1, 1, {false, true, false, true}),
      compute_nop({true, false, false, false}),  // FINISH waits for the last load
      finish(),
  };
  check_stream(cap.decoded(0), want);
}

TEST_CASE("VTA_DEBUG_LOG_INSN writes the stream as JSON instead of running it", "[runtime]") {
  Session s;
  const std::string path =
      unique_temp_path("runtime_log_insn_test_" + backend_name_from_env(), ".json");
  setenv("TVM_INSN_DUMP_FILE", path.c_str(), 1);
  Buffer inp(s.cfg.inp_elem_bytes);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTASetDebugMode(cmd, VTA_DEBUG_LOG_INSN | VTA_DEBUG_DUMP_INSN | VTA_DEBUG_DUMP_UOP);
  VTALoadBuffer2D(cmd, inp.get(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemInp);
  VTASynchronize(cmd, kSync);
  unsetenv("TVM_INSN_DUMP_FILE");
  std::ifstream f(path);
  REQUIRE(f.good());
  const auto j = nlohmann::json::parse(f);
  // LOAD INP, store NOP (push s2g), load NOP (push l2g), compute NOP (pop both), FINISH.
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 5);
  CHECK(j[0]["name"] == "LOAD");
  CHECK(j[0]["memory_type"] == "INP");
  CHECK(j[0]["x_size"] == 1);
  CHECK(j[1]["name"] == "STORE");
  CHECK(j[1]["push_prev"] == true);
  CHECK(j[2]["push_next"] == true);
  CHECK(j[3]["pop_prev"] == true);
  CHECK(j[3]["pop_next"] == true);
  CHECK(j.back()["name"] == "FINISH");
  CHECK(runtime_stats().inp_load_nbytes == 0);  // nothing ran
  std::remove(path.c_str());
}

TEST_CASE("VTASimProfilerStatus reports the upstream counters and clears", "[runtime]") {
  Session s;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  Buffer ab(3 * lanes * 4);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, 3, 1, 3, 0, 0, 0, 0, 0, kMemAcc);
  VTASynchronize(cmd, kSync);
  auto j = nlohmann::json::parse(VTASimProfilerStatus());
  for (const char* key : {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes",
                          "uop_load_nbytes", "out_store_nbytes", "gemm_counter", "alu_counter"}) {
    INFO(key);
    CHECK(j.contains(key));
  }
  CHECK(j["acc_load_nbytes"] == 3 * s.cfg.acc_elem_bytes);
  // Accumulates over runs until cleared.
  VTALoadBuffer2D(cmd, ab.get(), 0, 3, 1, 3, 0, 0, 0, 0, 0, kMemAcc);
  VTASynchronize(cmd, kSync);
  CHECK(nlohmann::json::parse(VTASimProfilerStatus())["acc_load_nbytes"] ==
        6 * s.cfg.acc_elem_bytes);
  // The device (and its counters) outlive the command queue.
  VTARuntimeShutdown();
  cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, 3, 1, 3, 0, 0, 0, 0, 0, kMemAcc);
  VTASynchronize(cmd, kSync);
  CHECK(nlohmann::json::parse(VTASimProfilerStatus())["acc_load_nbytes"] ==
        9 * s.cfg.acc_elem_bytes);
  VTASimProfilerClear();
  CHECK(nlohmann::json::parse(VTASimProfilerStatus())["acc_load_nbytes"] == 0);
  // A synchronisation with nothing new runs nothing.
  VTASynchronize(cmd, kSync);
  CHECK(runtime_stats().runs == 0);
}

TEST_CASE("program dump: a synchronised program replays from its image", "[runtime]") {
  Session s;
  // Unique per backend and process: ctest -j runs this test for every backend at once.
  const std::string stem =
      unique_temp_path("runtime_program_dump_test_" + backend_name_from_env() + "_%d", "");
  const std::string path = stem + ".vtaimg";
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  std::vector<int32_t> a(4 * lanes);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int32_t>(i) - 20;
  }
  Buffer ab(a.size() * 4), yb(4 * lanes);
  ab.upload(a);
  runtime_set_program_dump(path);
  void* handle = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  load_acc4_add_imm<3>(cmd, ab, &handle);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, kMemOut, yb.get(), 0, 4, 1, 4);
  VTASynchronize(cmd, kSync);
  runtime_set_program_dump("");
  const std::string file =
      unique_temp_path("runtime_program_dump_test_" + backend_name_from_env() + "_0", ".vtaimg");
  REQUIRE(ProgramImage::is_image_file(file));
  const ProgramImage img = ProgramImage::load(file);
  std::remove(file.c_str());
  // Replay on a fresh DRAM with the functional simulator: same output bytes as the live run.
  Dram dram;
  img.load_into(dram);
  const HwConfig cfg = HwConfig::from_json_text(img.config_json, "image");
  FsimBackend replay(cfg, dram);
  REQUIRE(replay.run(img.insn_phys, img.insn_count, 0) == RunStatus::kOk);
  const auto live = yb.download<int8_t>(4 * lanes);
  const auto* replayed = reinterpret_cast<const int8_t*>(dram.host_ptr(VTAMemGetPhyAddr(yb.get())));
  for (size_t i = 0; i < live.size(); ++i) {
    INFO("lane " << i);
    CHECK(live[i] == static_cast<int8_t>(a[i] + 3));
    CHECK(replayed[i] == live[i]);
  }
}
