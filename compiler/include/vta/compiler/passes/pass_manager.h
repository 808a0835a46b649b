// The network compiler's passes and the manager that runs them in one fixed, listed order
// (network_pipeline(); `vtasim network MODEL --list-passes`). A pass does one thing to the IR
// module (ir/module.h) and says whether it changed it; the manager does the cross-cutting work
// once for every pass: printing the IR before / after a pass when asked, verifying the IR after
// each pass (an invariant a pass breaks is an error naming that pass), stopping after a pass.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/ir/module.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

// What the passes read besides the module.
struct PassContext {
  std::string source = "resnet18";  // resnet18, a network JSON file or MODEL.onnx
  int batch = 1;                    // of the built-in resnet18
  QuantOptions quant;               // MODEL.onnx
  std::string input_path;           // MODEL.onnx: raw float32 input file (--input)
  std::optional<HwConfig> config;   // the target's design: pack-layout and schedule need it
  size_t tune_candidates = 0;       // > 0: the runner tunes, schedule leaves the layers alone
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;         // "place"
  virtual std::string description() const = 0;  // one line for --list-passes
  // Runs the pass; true when it changed the module. Throws vta::Error for input it refuses.
  virtual bool run(ir::Module& m, const PassContext& ctx) const = 0;
};

// Printing and stopping: pass names, or "all".
struct PassInstrument {
  std::set<std::string> print_before, print_after;
  std::string stop_after;       // the last pass to run ("" = all)
  std::ostream* out = nullptr;  // where the IR is printed (nullptr: std::cout)
};

class PassManager {
 public:
  void add(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }
  // Throws vta::Error listing the passes for a name that is none of them (also "all" allowed).
  void check_pass_name(const std::string& name, const std::string& option) const;
  // Runs the passes in order on `m` (from an empty module, the first one imports).
  void run(ir::Module& m, const PassContext& ctx, const PassInstrument& inst = {}) const;
  // "1. import: ..." one line per pass.
  std::string list() const;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

// The network pipeline: import, quantize, infer-types, place, schedule, pack-layout.
PassManager network_pipeline();

// Runs the whole network pipeline from ctx.source.
ir::Module compile_network(const PassContext& ctx, const PassInstrument& inst = {});

}  // namespace vta::compiler
