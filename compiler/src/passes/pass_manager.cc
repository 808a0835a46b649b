#include "vta/compiler/passes/pass_manager.h"

#include <iostream>

#include <fmt/format.h>

#include "vta/compiler/passes/passes.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

bool wanted(const std::set<std::string>& names, const std::string& pass) {
  return names.count("all") || names.count(pass);
}

}  // namespace

void PassManager::add(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
}

void PassManager::check_pass_name(const std::string& name, const std::string& option) const {
  std::string known;
  for (const auto& p : passes_) {
    if (p->name() == name) {
      return;
    }
    known += (known.empty() ? "" : ", ") + p->name();
  }
  if (name != "all" || option == "--stop-after") {
    throw Error(fmt::format("{} '{}' names no pass (passes: {})", option, name, known));
  }
}

std::string PassManager::list() const {
  std::string s;
  for (size_t i = 0; i < passes_.size(); ++i) {
    s += fmt::format("{:>2}. {:<12} {}\n", i + 1, passes_[i]->name(), passes_[i]->description());
  }
  return s;
}

void PassManager::run(ir::Module& m, const PassContext& ctx, const PassInstrument& inst) const {
  std::ostream& out = inst.out ? *inst.out : std::cout;
  for (const auto& pass : passes_) {
    const std::string name = pass->name();
    if (wanted(inst.print_before, name)) {
      out << fmt::format("// ---- IR before pass '{}' ----\n", name) << ir::print_module(m);
    }
    const bool changed = pass->run(m, ctx);
    try {
      ir::verify_module(m);
    } catch (const Error& ex) {
      throw Error(fmt::format("IR check after pass '{}': {}", name, ex.what()));
    }
    if (wanted(inst.print_after, name)) {
      out << fmt::format("// ---- IR after pass '{}'{} ----\n", name, changed ? "" : " (unchanged)")
          << ir::print_module(m);
    }
    if (inst.stop_after == name) {
      return;
    }
  }
}

PassManager network_pipeline() {
  PassManager pm;
  pm.add(make_import_pass());
  pm.add(make_quantize_pass());
  pm.add(make_infer_types_pass());
  pm.add(make_place_pass());
  pm.add(make_schedule_pass());
  pm.add(make_pack_layout_pass());
  pm.add(make_lower_pass());
  return pm;
}

ir::Module compile_network(const PassContext& ctx, const PassInstrument& inst) {
  ir::Module m;
  network_pipeline().run(m, ctx, inst);
  return m;
}

}  // namespace vta::compiler
