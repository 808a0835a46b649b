#include "py_programs.h"

#include <fmt/format.h>

#include "py_common.h"
#include "py_config.h"
#include "vta/backend_factory.h"
#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"
#include "vta/sim/isa.h"
#include "vta/sim/program_image.h"
#include "vta/sim/run_progress.h"

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

struct RunResult {
  RunStatus status = RunStatus::kOk;
  Stats stats;
  std::string outputs;
};

// One run on a fresh DRAM and backend; wait_cycles (0 = none) bounds it on every backend (fsim:
// in its work units).
RunResult run_once(const ProgramImage& img, const std::string& backend, const HwConfig& cfg,
                   uint64_t wait_cycles) {
  Dram dram;
  img.load_into(dram);
  auto be = make_backend(backend.empty() ? backend_name_from_env() : backend, cfg, dram);
  if (auto* fsim = dynamic_cast<FsimBackend*>(be.get())) {
    fsim->set_work_limit(wait_cycles);
  }
  RunResult r;
  r.status = be->run(img.insn_phys, img.insn_count, wait_cycles);
  r.stats = be->stats();
  r.outputs = img.check_outputs(dram);
  return r;
}

pyb::dict run(const ProgramImage& img, const std::string& backend, const pyb::object& config,
              uint64_t wait_cycles) {
  const HwConfig cfg = image_config(img, config);
  // Its own DRAM and backend: no lock needed.
  const RunResult r = interruptible([&] { return run_once(img, backend, cfg, wait_cycles); });
  if (r.status == RunStatus::kTimeout) {
    throw Error(fmt::format("program did not finish within wait_cycles={} ({})", wait_cycles,
                            r.stats.timed ? "cycles"
                                          : "fsim work units: instructions plus "
                                            "GEMM/ALU micro-op iterations"));
  }
  pyb::dict d;
  d["status"] = "ok";
  d["cycles"] = r.stats.timed ? pyb::object(pyb::int_(r.stats.cycles)) : pyb::object(pyb::none());
  d["stats"] = to_python(r.stats.to_json());
  d["outputs_match"] = r.outputs.empty();
  d["first_difference"] = r.outputs;
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
           "image's expected outputs match. wait_cycles (0 = none) bounds the run (fsim: in "
           "work units) and raises vtasim.Error past it; Ctrl-C raises KeyboardInterrupt.");
}

}  // namespace vta::py
