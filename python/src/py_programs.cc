#include "py_programs.h"

#include <fmt/format.h>

#include "py_common.h"
#include "py_config.h"
#include "vta/backend_factory.h"
#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"

namespace vta::py {

namespace {

HwConfig image_config(const ProgramImage& img, const pyb::object& config) {
  if (!config.is_none()) {
    return config_arg(config);
  }
  if (img.config_json.empty()) {
    throw ConfigError("program image has no embedded config: pass config=...");
  }
  return HwConfig::from_json_text(img.config_json, "program image (embedded config)");
}

// The image's instructions decoded, one line each (at most `limit`, 0 = all).
pyb::list disassemble(const ProgramImage& img, const pyb::object& config, size_t limit) {
  const HwConfig cfg = image_config(img, config);
  Dram dram;
  img.load_into(dram);
  if (!dram.is_allocated(img.insn_phys, uint64_t(img.insn_count) * kInsnBytes)) {
    throw ProgramError("program image: the instruction stream lies outside its segments");
  }
  const IsaCodec codec(cfg);
  pyb::list out;
  const size_t n = limit == 0 ? img.insn_count : std::min<size_t>(limit, img.insn_count);
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* p = dram.host_ptr(img.insn_phys + k * kInsnBytes);
    out.append(disassemble(codec.decode(IsaCodec::load_words(p))));
  }
  return out;
}

pyb::dict run(const ProgramImage& img, const std::string& backend, const pyb::object& config,
              uint64_t wait_cycles) {
  const HwConfig cfg = image_config(img, config);
  RunStatus status = RunStatus::kOk;
  Stats stats;
  std::string outputs;
  {
    pyb::gil_scoped_release nogil;  // its own DRAM and backend: no lock needed
    Dram dram;
    img.load_into(dram);
    auto be = make_backend(backend.empty() ? backend_name_from_env() : backend, cfg, dram);
    status = be->run(img.insn_phys, img.insn_count, wait_cycles);
    stats = be->stats();
    outputs = img.check_outputs(dram);
  }
  pyb::dict d;
  d["status"] = status == RunStatus::kOk ? "ok" : "timeout";
  d["cycles"] = stats.timed ? pyb::object(pyb::int_(stats.cycles)) : pyb::object(pyb::none());
  d["stats"] = to_python(stats.to_json());
  d["outputs_match"] = outputs.empty();
  d["first_difference"] = outputs;
  return d;
}

}  // namespace

void bind_programs(pyb::module_& m) {
  using pyb::arg;
  pyb::class_<ProgramImage>(m, "Program", R"doc(
An instruction-stream image as written by conv2d(..., dump_program=PATH) or `vtasim ...
--dump-program`: the DRAM segments, the instruction stream's location and the config it was built
for. Program.load(path), .save(path), .disassemble(), .run(backend).)doc")
      .def_static("load", &ProgramImage::load, arg("path"), "Reads an image file.")
      .def("save", &ProgramImage::save, arg("path"))
      .def_readonly("insn_count", &ProgramImage::insn_count)
      .def_readonly("insn_phys", &ProgramImage::insn_phys)
      .def_property_readonly(
          "config",
          [](const ProgramImage& img) -> pyb::object {
            if (img.config_json.empty()) {
              return pyb::none();
            }
            return pyb::cast(HwConfig::from_json_text(img.config_json, "program image"));
          },
          "The embedded Config, or None.")
      .def_property_readonly(
          "segments",
          [](const ProgramImage& img) {
            pyb::list l;
            for (const ImageSegment& s : img.segments) {
              l.append(pyb::make_tuple(s.phys, s.bytes.size()));
            }
            return l;
          },
          "(physical address, bytes) of each DRAM segment.")
      .def("disassemble", &disassemble, arg("config") = pyb::none(), arg("limit") = 0,
           "One line per instruction (the first `limit`, 0 = all).")
      .def("run", &run, arg("backend") = "", arg("config") = pyb::none(), arg("wait_cycles") = 0,
           "Runs the program on a fresh DRAM; returns status, cycles, stats and whether the "
           "image's expected outputs match.");
}

}  // namespace vta::py
