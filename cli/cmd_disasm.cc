// vtasim disasm: one line per instruction (index and every field) of a raw instruction stream
// (16-byte little-endian instructions) or of a program image, whose LOAD UOP instructions also
// get the micro-ops they load listed underneath.
#include <algorithm>
#include <cstdint>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"

namespace vta::cli {

namespace {

// Where the instruction stream of the file is, once loaded into DRAM.
struct LoadedStream {
  HwConfig cfg;
  uint32_t insn_phys = 0, insn_count = 0;
  bool image = false;  // a program image (whose uop loads can be listed)
};

LoadedStream load_stream(const std::string& file, const CommonOptions& opts, Dram& dram) {
  const std::string& config = opts.config;
  LoadedStream s;
  require_regular_file(file);
  if (ProgramImage::is_image_file(file)) {
    const ProgramImage img = ProgramImage::load(file);
    s.cfg = image_config(img, config, opts.sets, file).config;
    img.load_into(dram);
    s.insn_phys = img.insn_phys;
    s.insn_count = img.insn_count;
    s.image = true;
    return s;
  }
  const std::vector<uint8_t> data = read_regular_file(file, Dram::kPhysBytes);
  if (data.empty() || data.size() % kInsnBytes != 0) {
    throw Error(fmt::format("'{}' has {} bytes, not a positive multiple of the 16-byte instruction",
                            file, data.size()));
  }
  s.cfg = resolve_config(config, opts.sets).config;
  s.insn_count = static_cast<uint32_t>(data.size() / kInsnBytes);
  if (s.insn_count > 0) {
    void* p = dram.alloc(data.size());
    std::copy(data.begin(), data.end(), static_cast<uint8_t*>(p));
    s.insn_phys = dram.phys_addr(p);
  }
  return s;
}

// Micro-op lines listed per LOAD UOP unless --all-uops: a LOAD UOP can bring in x_size x
// y_size (up to 4.3e9) micro-ops.
constexpr uint64_t kUopListLimit = 64;

// Lists the micro-ops a LOAD UOP brings in, by their uop SRAM index: the first `limit`, then
// one line counting the rest.
void print_loaded_uops(const Insn& i, const Dram& dram, const IsaCodec& codec, uint64_t limit) {
  const uint64_t total = uint64_t{i.x_size} * i.y_size;
  if (total > limit) {
    // Rows of the listed prefix only; the remaining count is computed, not listed.
    Insn head = i;
    head.y_size = static_cast<uint32_t>(std::max<uint64_t>(1, limit / std::max(1u, i.x_size)));
    head.x_size = static_cast<uint32_t>(std::min<uint64_t>(i.x_size, limit));
    print_loaded_uops(head, dram, codec, UINT64_MAX);
    const uint64_t shown = uint64_t{head.x_size} * head.y_size;
    std::cout << fmt::format("        ... {} more micro-ops (--all-uops lists them)\n",
                             total - shown);
    return;
  }
  for (uint32_t y = 0; y < i.y_size; ++y) {
    const uint64_t row = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * kUopBytes;
    const uint8_t* p = dram.checked_ptr(row, static_cast<uint64_t>(i.x_size) * kUopBytes);
    for (uint32_t x = 0; x < i.x_size; ++x) {
      const uint32_t sram =
          i.sram_base + (i.y_pad_0 + y) * (i.x_pad_0 + i.x_size + i.x_pad_1) + i.x_pad_0 + x;
      if (p == nullptr) {
        std::cout << fmt::format("        uop[{}] = <DRAM {:#x} not in the image>\n", sram,
                                 row + x * kUopBytes);
        continue;
      }
      uint32_t word = 0;
      for (int b = 0; b < kUopBytes; ++b) {
        word |= static_cast<uint32_t>(p[x * kUopBytes + b]) << (8 * b);
      }
      std::cout << fmt::format("        uop[{}] = {}\n", sram, disassemble(codec.decode_uop(word)));
    }
  }
}

// Prints every instruction of the stream (and up to `uop_limit` micro-ops of each LOAD UOP of an
// image); returns the instructions' text.
nlohmann::ordered_json print_listing(const std::string& file, const LoadedStream& s,
                                     const Dram& dram, uint64_t uop_limit) {
  const uint8_t* insns =
      dram.checked_ptr(s.insn_phys, static_cast<uint64_t>(s.insn_count) * kInsnBytes);
  if (s.insn_count > 0 && insns == nullptr) {
    throw Error(
        fmt::format("{}: the instruction stream at {:#x} ({} instructions) is not in "
                    "the image's segments",
                    file, s.insn_phys, s.insn_count));
  }
  const IsaCodec codec(s.cfg);
  nlohmann::ordered_json listing = nlohmann::ordered_json::array();
  for (uint32_t k = 0; k < s.insn_count; ++k) {
    const Insn i = codec.decode(IsaCodec::load_words(insns + static_cast<size_t>(k) * kInsnBytes));
    std::cout << fmt::format("{:6}: {}\n", k, disassemble(i));
    listing.push_back(disassemble(i));
    if (s.image && uop_limit > 0 && i.opcode == kOpLoad && i.memory_type == kMemUop &&
        i.x_size > 0) {
      print_loaded_uops(i, dram, codec, uop_limit);
    }
  }
  return listing;
}

}  // namespace

int cmd_disasm(int argc, char** argv) {
  return guarded([&]() {
    CommonOptions opts;
    std::string file;
    bool no_uops = false;
    bool all_uops = false, quiet = false, progress = false;
    po::options_description desc("disasm options");
    add_progress_option(desc, progress);  // accepted as everywhere; disasm has nothing to show
    add_quiet_option(desc, quiet);
    std::string json_path;
    add_json_summary_option(desc, json_path,
                            "write the listing (JSON: the config's model and each instruction's "
                            "text) to this file");
    auto add = desc.add_options();
    add("help,h", "show this help");
    add("config,c", po::value(&opts.config),
        "field layout of this config (preset or JSON); default: the image's, else $VTA_CONFIG "
        "or pynq");
    add_set_option(desc, opts.sets);
    add("file", po::value(&file), "raw instruction stream or program image");
    add("no-uops", po::bool_switch(&no_uops), "do not list the micro-ops of LOAD UOP (images)");
    add("all-uops", po::bool_switch(&all_uops),
        fmt::format("list every micro-op of a LOAD UOP (default: the first {})", kUopListLimit)
            .c_str());
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    const std::string usage = "vtasim disasm FILE [--config C] [--json FILE]";
    if (!parse_args(argc, argv, usage, desc, pos, vm)) {
      return 0;
    }
    if (file.empty()) {
      throw UsageError("missing FILE (usage: " + usage + ")");
    }
    Dram dram;
    const LoadedStream s = load_stream(file, opts, dram);
    nlohmann::ordered_json listing =
        print_listing(file, s, dram, no_uops ? 0 : (all_uops ? UINT64_MAX : kUopListLimit));
    write_json_summary(json_path, {{"command", "disasm"},
                                   {"file", file},
                                   {"model", s.cfg.model_name},
                                   {"instruction_count", s.insn_count},
                                   {"instructions", std::move(listing)}});
    return 0;
  });
}

}  // namespace vta::cli
