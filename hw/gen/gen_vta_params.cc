// gen_vta_params: writes the Verilog parameter header of one VTA configuration.
// Usage: gen_vta_params <config.json> <out.vh>
// Every value comes from vta::HwConfig, vta::IsaLayout and the timing contract, so the RTL never
// restates a derived constant: widths, depths, bus ratios and instruction field positions are
// computed once in sim/src/hw_config.cc and sim/src/isa.cc; the compute pipeline depth, the
// read-client numbers and the token-queue numbers come from vta/sim/contract/timing_constants.h
// and vta/sim/token_queues.h.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "vta/sim/contract/timing_constants.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace {

int clog2(long v) {
  int r = 0;
  while ((1L << r) < v) {
    ++r;
  }
  return r;
}

std::string upper(std::string s) {
  for (auto& ch : s) {
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return s;
}

void def(std::ostream& o, const std::string& name, long value, const char* what) {
  o << "`define VTA_" << name << " " << value << "  // " << what << "\n";
}

// Shapes, widths, depths and the memory bus of the configuration.
void render_config(std::ostream& o, const vta::HwConfig& c) {
  def(o, "BATCH", c.batch, "rows of the GEMM tile");
  def(o, "BLOCK_IN", c.block_in, "reduction length of the GEMM tile");
  def(o, "BLOCK_OUT", c.block_out, "output channels of the GEMM tile");
  def(o, "INP_WIDTH", c.inp_width, "bits per input lane");
  def(o, "WGT_WIDTH", c.wgt_width, "bits per weight lane");
  def(o, "ACC_WIDTH", c.acc_width, "bits per accumulator lane");
  def(o, "OUT_WIDTH", c.out_width, "bits per output lane");
  def(o, "INP_ELEM_BYTES", c.inp_elem_bytes, "bytes of one input tile");
  def(o, "WGT_ELEM_BYTES", c.wgt_elem_bytes, "bytes of one weight tile");
  def(o, "ACC_ELEM_BYTES", c.acc_elem_bytes, "bytes of one accumulator tile");
  def(o, "OUT_ELEM_BYTES", c.out_elem_bytes, "bytes of one output tile");
  def(o, "ACC8_ELEM_BYTES", c.elem_bytes(vta::kMemAcc8), "DRAM bytes of one ACC_8BIT tile");
  def(o, "UOP_ELEM_BYTES", c.uop_elem_bytes, "bytes of one micro-op");
  def(o, "LOG_UOP_DEPTH", c.log_uop_buff_depth, "log2 micro-op SRAM depth");
  def(o, "LOG_INP_DEPTH", c.log_inp_buff_depth, "log2 input SRAM depth");
  def(o, "LOG_WGT_DEPTH", c.log_wgt_buff_depth, "log2 weight SRAM depth");
  def(o, "LOG_ACC_DEPTH", c.log_acc_buff_depth, "log2 accumulator (and output) SRAM depth");
  def(o, "BUS_BYTES", c.bus_bytes, "bytes per memory bus beat");
  def(o, "BUS_WIDTH", c.bus_bytes * 8, "bits per memory bus beat");
  def(o, "LOG_BUS_BYTES", clog2(c.bus_bytes), "log2 bytes per beat");
  def(o, "MAX_BURST_BEATS", c.max_burst_beats, "longest burst in beats");
  def(o, "LOG_MAX_BURST_BEATS", clog2(c.max_burst_beats), "log2 of MAX_BURST_BEATS");
  def(o, "BURST_BOUNDARY_BYTES", c.burst_boundary_bytes, "bursts never cross this alignment");
  def(o, "LOG_BURST_BOUNDARY", clog2(c.burst_boundary_bytes), "log2 of the boundary");
  def(o, "INSN_QUEUE_DEPTH", c.insn_queue_depth, "entries of each unit's instruction queue");
  def(o, "LOG_INSN_QUEUE_DEPTH", std::max(1, clog2(c.insn_queue_depth)),
      "address bits of an instruction queue");
  // Fetch reads one burst of instructions into its chunk buffer, then drains it.
  const long chunk = c.fetch_chunk_insns;
  def(o, "FETCH_CHUNK", chunk, "most instructions one fetch burst carries");
  def(o, "LOG_FETCH_BUF", clog2(2 * chunk), "address bits of the two-burst fetch buffer");
  def(o, "DEP_QUEUE_DEPTH", c.dep_queue_depth, "tokens a dependency queue can hold");
  def(o, "DEP_COUNT_BITS", clog2(static_cast<long>(c.dep_queue_depth) + 1), "token counter bits");
}

// Instruction field positions (bit 0 = LSB of word 0) and micro-op field widths.
void render_isa(std::ostream& o, const vta::HwConfig& c) {
  const vta::IsaLayout l = vta::IsaLayout::compute(c.log_uop_buff_depth, c.log_inp_buff_depth,
                                                   c.log_wgt_buff_depth, c.log_acc_buff_depth);
  const auto fields = [&](const char* kind, const std::vector<vta::FieldPos>& fs) {
    for (const auto& f : fs) {
      const std::string name = upper(std::string(kind) + "_" + f.name);
      o << "`define VTA_" << name << "_LO " << f.lo << "\n";
      o << "`define VTA_" << name << "_W " << f.width << "\n";
    }
  };
  o << "// Instruction field positions (bit 0 = LSB of word 0).\n";
  fields("MEM", l.mem);
  fields("GEMM", l.gemm);
  fields("ALU", l.alu);
  def(o, "UOP_DST_W", l.uop_dst_bits, "micro-op dst field bits");
  def(o, "UOP_SRC_W", l.uop_src_bits, "micro-op src field bits");
  def(o, "UOP_WGT_W", l.uop_wgt_bits, "micro-op wgt field bits");
}

// The constants of the timing contract the RTL shares with the cycle model.
void render_contract(std::ostream& o) {
  o << "// Timing contract (vta/sim/contract/timing_constants.h, vta/sim/token_queues.h).\n";
  def(o, "COMPUTE_PIPE_DEPTH", static_cast<long>(vta::kComputePipelineDepth),
      "cycles from the last GEMM/ALU uop issue to the end cycle E");
  for (int k = 0; k < vta::kNumReadClients; ++k) {
    def(o, "CLIENT_" + upper(vta::kReadClientName[k]), k, "read client (memory tag; lowest wins)");
  }
  def(o, "NUM_READ_CLIENTS", vta::kNumReadClients, "read clients of the memory arbiter");
  def(o, "READ_TAG_BITS", std::max(1, clog2(vta::kNumReadClients)), "bits of a read-client tag");
  for (int q = 0; q < static_cast<int>(std::size(vta::kTokenQueueName)); ++q) {
    def(o, "TOKEN_" + upper(vta::kTokenQueueName[q]), q, "token queue (byte of token_counts)");
  }
}

std::string render(const vta::HwConfig& c, const std::string& source) {
  std::ostringstream o;
  o << "// Generated by hw/gen/gen_vta_params from " << source << "; do not edit.\n"
    << "// Regenerate: gen_vta_params <config.json> <out.vh> (the hw/ CMake build does it).\n"
    << "// Config model string: " << c.model_name << "\n"
    << "`ifndef VTA_PARAMS_VH\n`define VTA_PARAMS_VH\n";
  render_config(o, c);
  render_isa(o, c);
  render_contract(o);
  o << "`endif\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_vta_params <config.json> <out.vh>\n";
    return 2;
  }
  try {
    const vta::HwConfig cfg = vta::HwConfig::from_file(argv[1]);
    std::string source = argv[1];
    const auto slash = source.find_last_of('/');
    if (slash != std::string::npos) {
      source = "configs/" + source.substr(slash + 1);
    }
    const std::string text = render(cfg, source);
    // Rewrite only on change so Verilator and the C++ build do not rerun needlessly.
    std::ifstream old(argv[2]);
    std::stringstream cur;
    cur << old.rdbuf();
    if (!old || cur.str() != text) {
      std::ofstream out(argv[2]);
      out << text;
      if (!out) {
        std::cerr << "gen_vta_params: cannot write '" << argv[2] << "'\n";
        return 1;
      }
    }
  } catch (const vta::Error& e) {
    std::cerr << "gen_vta_params: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
