// RtlVcd: the VCD of an rtl backend. The Verilated cores of one backend live in one Verilator
// context, which this owns, so that one VerilatedVcdC can trace them all (Verilator traces
// several models into one file only if they share their context): each core's signals are under
// its model's scope, "vta_core" for a lone core, "core0", "core1", ... for the cores of a system
// (docs/multicore.md, "Traces"). The backend dumps once per half cycle, when every core it
// clocks has evaluated that half.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rtl_model.h"

namespace vta::rtl {

class RtlVcd {
 public:
  RtlVcd();
  ~RtlVcd();
  RtlVcd(const RtlVcd&) = delete;
  RtlVcd& operator=(const RtlVcd&) = delete;

  // The context every model of the backend is made in (tracing on).
  VerilatedContext& context() { return *m_context; }

  // Traces `models` into `path` from the next dump on (replaces an open file); false if the
  // models were built without tracing, an Error if the file cannot be written.
  bool open(const std::string& path, const std::vector<RtlModel*>& models);
  // Dumps are written only while active (the --vcd-window).
  void set_active(bool on) { m_active = on; }
  // The signals of every traced model at VCD time `time` (increasing).
  void dump(uint64_t time);
  void close();

 private:
  struct File;  // the open VerilatedVcdC (nothing in a build without tracing)

  std::unique_ptr<VerilatedContext> m_context;
  std::unique_ptr<File> m_file;
  bool m_active = false;
};

}  // namespace vta::rtl
