#include "py_design.h"

#include "py_common.h"
#include "vta/explore/area_model.h"
#include "vta/explore/design_verdict.h"
#include "vta/explore/energy_model.h"

namespace vta::py {

namespace pyb = pybind11;

void add_design_figures(pyb::dict& d, const HwConfig& cfg, const compiler::LayerRun& run) {
  const bool timed = run.stats.timed;
  d["time_s"] =
      timed
          ? pyb::object(pyb::float_(static_cast<double>(run.stats.cycles) / (cfg.clock_mhz * 1e6)))
          : pyb::object(pyb::none());
  d["cycles_over_bound"] = timed && run.gemm_bound > 0
                               ? pyb::object(pyb::float_(static_cast<double>(run.stats.cycles) /
                                                         static_cast<double>(run.gemm_bound)))
                               : pyb::object(pyb::none());
  d["energy"] = to_python(explore::estimate_energy(cfg, run.stats).to_json());
  const explore::AreaEstimate area = explore::estimate_area(cfg);
  nlohmann::ordered_json a = area.to_json();
  if (const explore::FpgaDevice* dev = explore::find_device(cfg.target)) {
    const explore::DesignVerdict v =
        explore::judge_design(explore::design_traits(cfg, area.total), *dev);
    a["device"] = dev->part;
    a["fits"] = v.fits;
    a["verdict"] = v.to_json();
  }
  d["area"] = to_python(a);
}

}  // namespace vta::py
