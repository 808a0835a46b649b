#include "vta/explore/design_verdict.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace vta::explore {

FitVerdict check_fit(const FpgaResources& used, const FpgaDevice& device) {
  FitVerdict v;
  v.lut = (used.lut + used.lutram) / device.budget.lut;  // LUT-RAM cells use LUTs too
  v.ff = used.ff / device.budget.ff;
  v.dsp = used.dsp / device.budget.dsp;
  v.bram36 = used.bram36 / device.budget.bram36;
  const std::pair<const char*, double> shares[] = {
      {"lut", v.lut}, {"ff", v.ff}, {"dsp", v.dsp}, {"bram36", v.bram36}};
  double worst = -1;
  for (const auto& [name, share] : shares) {
    if (share > worst) {
      worst = share;
      v.binding = name;
    }
  }
  v.fits = worst <= 1.0;
  return v;
}

PortVerdict check_ports(int bus_bits, const FpgaDevice& device) {
  PortVerdict v;
  v.bus_bits = bus_bits;
  v.port_width_bits = device.ports.width_bits;
  v.fits = bus_bits <= device.ports.width_bits;
  return v;
}

double achievable_clock_mhz(const FpgaDevice& device, double macs) {
  const ClockModelParams& m = clock_model_params();
  const double doublings = std::max(0.0, std::log2(macs / m.reference_macs));
  return device.reference_clock_mhz / (1.0 + m.period_growth_per_doubling * doublings);
}

bool clock_estimate_extrapolated(double macs) {
  return macs != clock_model_params().reference_macs;
}

DesignTraits design_traits(const HwConfig& c, const FpgaResources& used) {
  DesignTraits d;
  d.used = used;
  d.bus_bits = c.bus_bytes * 8;
  d.macs = static_cast<double>(c.batch) * c.block_in * c.block_out;
  d.clock_mhz = c.clock_mhz;
  return d;
}

bool design_traits_of_row(const nlohmann::json& r, DesignTraits& d) {
  for (const char* key : {"area_lut", "area_lutram", "area_ff", "area_dsp", "area_bram36",
                          "bus_bits", "gemm_macs", "CLOCK_MHZ"}) {
    if (!r.contains(key) || !r[key].is_number()) {
      return false;
    }
  }
  d.used = {r["area_lut"].get<double>(), r["area_lutram"].get<double>(), r["area_ff"].get<double>(),
            r["area_dsp"].get<double>(), r["area_bram36"].get<double>()};
  d.bus_bits = r["bus_bits"].get<int>();
  d.macs = r["gemm_macs"].get<double>();
  d.clock_mhz = r["CLOCK_MHZ"].get<double>();
  return true;
}

namespace {

double share_of(const FitVerdict& f, const std::string& name) {
  return name == "lut" ? f.lut : name == "ff" ? f.ff : name == "dsp" ? f.dsp : f.bram36;
}

std::string why_not_of(const DesignVerdict& v, double clock_mhz) {
  if (!v.resources.fits) {
    return fmt::format("{} {:.0f}% of the {}", v.resources.binding,
                       100 * share_of(v.resources, v.resources.binding), v.device);
  }
  if (!v.port.fits) {
    return fmt::format("{}-bit bus wider than the {}'s {}-bit memory ports", v.port.bus_bits,
                       v.device, v.port.port_width_bits);
  }
  if (!v.clock_ok && v.clock_counted) {
    return fmt::format("{:g} MHz above the {}'s estimated {:.0f} MHz", clock_mhz, v.device,
                       v.clock_estimate_mhz);
  }
  return "";
}

}  // namespace

DesignVerdict judge_design(const DesignTraits& d, const FpgaDevice& device, bool count_clock) {
  DesignVerdict v;
  v.device = device.part;
  v.resources = check_fit(d.used, device);
  v.port = check_ports(d.bus_bits, device);
  v.clock_estimate_mhz = achievable_clock_mhz(device, d.macs);
  // A design at the published clock of its own array size is never refused by rounding.
  v.clock_ok = d.clock_mhz <= v.clock_estimate_mhz + 1e-9;
  v.clock_extrapolated = clock_estimate_extrapolated(d.macs);
  v.clock_counted = count_clock;
  v.fits = v.resources.fits && v.port.fits && (v.clock_ok || !count_clock);
  v.why_not = why_not_of(v, d.clock_mhz);
  return v;
}

nlohmann::ordered_json DesignVerdict::to_json() const {
  return {{"device", device},
          {"fits", fits},
          {"why_not", why_not.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(why_not)},
          {"fits_resources", resources.fits},
          {"fit_binding", resources.binding},
          {"util_lut", resources.lut},
          {"util_ff", resources.ff},
          {"util_dsp", resources.dsp},
          {"util_bram36", resources.bram36},
          {"port_ok", port.fits},
          {"port_width_bits", port.port_width_bits},
          {"clock_estimate_mhz", clock_estimate_mhz},
          {"clock_ok", clock_ok},
          {"clock_extrapolated", clock_extrapolated},
          {"clock_counted", clock_counted}};
}

}  // namespace vta::explore
