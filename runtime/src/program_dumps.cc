#include "program_dumps.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "uop_kernel.h"
#include "vta/sim/error.h"
#include "vta/sim/program_image.h"

namespace vta {

void write_program_image(const std::string& path_pattern, uint64_t program_index,
                         const HwConfig& cfg, const Dram& dram, const ProgramLocation& loc) {
  // The stream, the uop image and every data allocation, as `vtasim run` replays them.
  ProgramImage img;
  img.config_json = cfg.to_json().dump();
  img.insn_phys = loc.insn_phys;
  img.insn_count = static_cast<uint32_t>(loc.insn_count);
  img.add_segment(dram, loc.insn_phys, static_cast<uint32_t>(loc.insn_count * kInsnBytes));
  if (loc.uop_count > 0) {
    img.add_segment(dram, loc.uop_phys, static_cast<uint32_t>(loc.uop_count * kUopBytes));
  }
  for (const auto& [phys, bytes] : dram.allocations()) {
    if (phys != loc.insn_phys && phys != loc.uop_phys) {
      img.add_segment(dram, phys, static_cast<uint32_t>(bytes));
    }
  }
  std::string path = path_pattern;
  const size_t at = path.find("%d");
  if (at != std::string::npos) {
    path.replace(at, 2, std::to_string(program_index));
  }
  img.save(path);
}

void write_insn_log(const std::vector<Insn>& insns) {
  const char* env = std::getenv("TVM_INSN_DUMP_FILE");
  const std::string path = (env != nullptr && *env != '\0') ? env : "insn.json";
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const Insn& in : insns) {
    arr.push_back(to_json(in));
  }
  std::ofstream out(path);
  if (!out) {
    throw Error(fmt::format("VTA_DEBUG_LOG_INSN: cannot write {}", path));
  }
  out << arr.dump(2) << "\n";
}

void print_program(const std::vector<Insn>& insns, size_t uop_count) {
  std::fprintf(stderr, "vta: program of %zu instructions, %zu micro-ops\n", insns.size(),
               uop_count);
  for (size_t i = 0; i < insns.size(); ++i) {
    std::fprintf(stderr, "  [%zu] %s\n", i, disassemble(insns[i]).c_str());
  }
}

void print_uop_kernel(const UopKernel& k) {
  std::fprintf(stderr, "vta: micro-op kernel (%s, %zu uops, %zu loops)\n",
               k.mode() == 0 ? "GEMM" : "ALU", k.size(), k.loops().size());
  for (const UopLoop& l : k.loops()) {
    std::fprintf(stderr, "  loop extent=%u dst_factor=%u src_factor=%u wgt_factor=%u\n", l.extent,
                 l.dst_factor, l.src_factor, l.wgt_factor);
  }
  for (size_t i = 0; i < k.size(); ++i) {
    std::fprintf(stderr, "  [%zu] %s\n", i, disassemble(k.uops()[i]).c_str());
  }
}

}  // namespace vta
