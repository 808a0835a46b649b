#include "vta/sim/program_image.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

namespace {

constexpr char kMagic[8] = {'V', 'T', 'A', 'I', 'M', 'G', '0', '1'};
constexpr uint32_t kVersion = 1;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int k = 0; k < 4; ++k) {
    out.push_back(static_cast<uint8_t>(v >> (8 * k)));
  }
}

void put_bytes(std::vector<uint8_t>& out, const uint8_t* p, size_t n) {
  out.insert(out.end(), p, p + n);
}

// Sequential reader that names what it was reading when the data ends early.
class Reader {
 public:
  Reader(const std::vector<uint8_t>& d, const std::string& source) : m_d(d), m_source(source) {}
  const uint8_t* take(size_t n, const char* what) {
    if (n > m_d.size() - m_pos) {
      throw Error(
          fmt::format("{}: truncated program image while reading {} (offset {}, {} bytes "
                      "needed, {} left)",
                      m_source, what, m_pos, n, m_d.size() - m_pos));
    }
    const uint8_t* p = m_d.data() + m_pos;
    m_pos += n;
    return p;
  }
  uint32_t u32(const char* what) {
    const uint8_t* p = take(4, what);
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
  }
  bool at_end() const { return m_pos == m_d.size(); }
  size_t pos() const { return m_pos; }

 private:
  const std::vector<uint8_t>& m_d;
  const std::string& m_source;
  size_t m_pos = 0;
};

// The format's rules on regions: every segment is non-empty, inside the physical space (above
// the null page) and overlaps no other; every output region lies inside the physical space.
void check_regions(const ProgramImage& img, const std::string& source) {
  std::vector<std::pair<uint64_t, size_t>> order;  // (phys, segment index)
  for (size_t k = 0; k < img.segments.size(); ++k) {
    const ImageSegment& s = img.segments[k];
    const uint64_t n = s.bytes.size();
    if (n == 0) {
      throw Error(fmt::format("{}: segment {} at {:#x} is empty", source, k, s.phys));
    }
    if (s.phys + n > Dram::kPhysBytes || s.phys < Dram::kPageBytes) {
      throw Error(fmt::format("{}: segment {} at {:#x} ({} bytes) is outside the physical space",
                              source, k, s.phys, n));
    }
    order.emplace_back(s.phys, k);
  }
  std::sort(order.begin(), order.end());
  for (size_t k = 1; k < order.size(); ++k) {
    const ImageSegment& prev = img.segments[order[k - 1].second];
    if (prev.phys + uint64_t{prev.bytes.size()} > order[k].first) {
      throw Error(fmt::format(
          "{}: segments {} [{:#x}, {:#x}) and {} [{:#x}, {:#x}) overlap", source,
          order[k - 1].second, prev.phys, prev.phys + uint64_t{prev.bytes.size()}, order[k].second,
          order[k].first, order[k].first + uint64_t{img.segments[order[k].second].bytes.size()}));
    }
  }
  for (size_t k = 0; k < img.outputs.size(); ++k) {
    const ImageOutput& o = img.outputs[k];
    if (uint64_t{o.phys} + o.bytes > Dram::kPhysBytes) {
      throw Error(
          fmt::format("{}: output {} '{}' at {:#x} ({} bytes) is outside the physical "
                      "space",
                      source, k, o.name, o.phys, o.bytes));
    }
  }
}

}  // namespace

ProgramImage ProgramImage::capture(const Dram& dram, uint32_t insn_phys, uint32_t insn_count,
                                   const std::string& config_json) {
  ProgramImage img;
  img.config_json = config_json;
  img.insn_phys = insn_phys;
  img.insn_count = insn_count;
  for (const auto& [phys, bytes] : dram.allocations()) {
    img.add_segment(dram, phys, static_cast<uint32_t>(bytes));
  }
  return img;
}

void ProgramImage::add_segment(const Dram& dram, uint32_t phys, uint32_t bytes) {
  const uint8_t* p = dram.checked_ptr(phys, bytes);
  if (p == nullptr) {
    throw Error(fmt::format("program image segment [{:#x}, {:#x}) is not allocated DRAM", phys,
                            static_cast<uint64_t>(phys) + bytes));
  }
  segments.push_back(ImageSegment{phys, std::vector<uint8_t>(p, p + bytes)});
}

std::vector<uint8_t> ProgramImage::serialize() const {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  put_u32(out, kVersion);
  put_u32(out, insn_phys);
  put_u32(out, insn_count);
  put_u32(out, static_cast<uint32_t>(config_json.size()));
  put_bytes(out, reinterpret_cast<const uint8_t*>(config_json.data()), config_json.size());
  put_u32(out, static_cast<uint32_t>(segments.size()));
  for (const ImageSegment& s : segments) {
    put_u32(out, s.phys);
    put_u32(out, static_cast<uint32_t>(s.bytes.size()));
    put_bytes(out, s.bytes.data(), s.bytes.size());
  }
  put_u32(out, static_cast<uint32_t>(outputs.size()));
  for (const ImageOutput& o : outputs) {
    put_u32(out, static_cast<uint32_t>(o.name.size()));
    put_bytes(out, reinterpret_cast<const uint8_t*>(o.name.data()), o.name.size());
    put_u32(out, o.phys);
    put_u32(out, o.bytes);
    out.push_back(o.expected.empty() ? 0 : 1);
    if (!o.expected.empty()) {
      put_bytes(out, o.expected.data(), o.expected.size());
    }
  }
  return out;
}

ProgramImage ProgramImage::parse(const std::vector<uint8_t>& data, const std::string& source) {
  Reader r(data, source);
  if (std::memcmp(r.take(sizeof(kMagic), "the magic"), kMagic, sizeof(kMagic)) != 0) {
    throw Error(source + ": not a VTA program image (bad magic; expected \"VTAIMG01\")");
  }
  const uint32_t version = r.u32("the version");
  if (version != kVersion) {
    throw Error(fmt::format("{}: program image version {} is not supported (expected {})", source,
                            version, kVersion));
  }
  ProgramImage img;
  img.insn_phys = r.u32("insn_phys");
  img.insn_count = r.u32("insn_count");
  const uint32_t cfg_len = r.u32("the config length");
  const uint8_t* cfg = r.take(cfg_len, "the config JSON");
  img.config_json.assign(reinterpret_cast<const char*>(cfg), cfg_len);
  const uint32_t nseg = r.u32("the segment count");
  for (uint32_t k = 0; k < nseg; ++k) {
    ImageSegment s;
    s.phys = r.u32("a segment address");
    const uint32_t n = r.u32("a segment size");
    const uint8_t* p = r.take(n, "segment data");
    s.bytes.assign(p, p + n);
    img.segments.push_back(std::move(s));
  }
  const uint32_t nout = r.u32("the output count");
  for (uint32_t k = 0; k < nout; ++k) {
    ImageOutput o;
    const uint32_t len = r.u32("an output name length");
    const uint8_t* name = r.take(len, "an output name");
    o.name.assign(reinterpret_cast<const char*>(name), len);
    o.phys = r.u32("an output address");
    o.bytes = r.u32("an output size");
    if (*r.take(1, "an output flag") != 0) {
      const uint8_t* p = r.take(o.bytes, "expected output data");
      o.expected.assign(p, p + o.bytes);
    }
    img.outputs.push_back(std::move(o));
  }
  if (!r.at_end()) {
    throw Error(fmt::format("{}: {} unexpected bytes after the program image", source,
                            data.size() - r.pos()));
  }
  check_regions(img, source);
  return img;
}

void ProgramImage::save(const std::string& path) const {
  const std::vector<uint8_t> data = serialize();
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!f) {
    throw Error("cannot write program image '" + path + "'");
  }
}

ProgramImage ProgramImage::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    throw Error("cannot open program image '" + path + "'");
  }
  const std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
  return parse(data, path);
}

bool ProgramImage::is_image_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[sizeof(kMagic)] = {};
  f.read(magic, sizeof(magic));
  return f && std::memcmp(magic, kMagic, sizeof(kMagic)) == 0;
}

namespace {

std::string widths_of(const HwConfig& c) {
  return fmt::format("int{} inputs, int{} weights and int{} accumulators", c.inp_width, c.wgt_width,
                     c.acc_width);
}

}  // namespace

void ProgramImage::check_widths(const HwConfig& cfg, const std::string& source) const {
  if (config_json.empty()) {
    return;
  }
  const HwConfig built = HwConfig::from_json_text(config_json, source + " (embedded config)");
  if (built.log_inp_width != cfg.log_inp_width || built.log_wgt_width != cfg.log_wgt_width ||
      built.log_acc_width != cfg.log_acc_width) {
    throw Error(fmt::format(
        "{} was built for {} ({}), but the config {} has {}: a program runs only at the element "
        "widths it was built for",
        source, widths_of(built), built.model_name, cfg.model_name, widths_of(cfg)));
  }
}

void ProgramImage::load_into(Dram& dram) const {
  // Page ranges of the segments, merged where they touch the same pages, then allocated.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [first page, last page]
  for (const ImageSegment& s : segments) {
    const uint64_t end = static_cast<uint64_t>(s.phys) + std::max<size_t>(s.bytes.size(), 1);
    ranges.emplace_back(s.phys >> Dram::kPageBits, (end - 1) >> Dram::kPageBits);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  for (const auto& [first, last] : merged) {
    dram.alloc_at(first << Dram::kPageBits, (last - first + 1) << Dram::kPageBits);
  }
  for (const ImageSegment& s : segments) {
    if (!s.bytes.empty()) {
      std::memcpy(dram.host_ptr(s.phys), s.bytes.data(), s.bytes.size());
    }
  }
}

std::string ProgramImage::check_outputs(const Dram& dram) const {
  for (const ImageOutput& o : outputs) {
    if (o.expected.empty()) {
      continue;
    }
    const uint8_t* p = dram.checked_ptr(o.phys, o.bytes);
    if (p == nullptr) {
      return fmt::format("output '{}' at {:#x} is not allocated", o.name, o.phys);
    }
    for (uint32_t k = 0; k < o.bytes; ++k) {
      if (p[k] != o.expected[k]) {
        return fmt::format("output '{}' differs at byte {}: expected {} got {}", o.name, k,
                           static_cast<int8_t>(o.expected[k]), static_cast<int8_t>(p[k]));
      }
    }
  }
  return "";
}

}  // namespace vta
