#include "vta/explore/report_verdicts.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/explore/design_verdict.h"
#include "vta/sim/error.h"

namespace vta::explore {

namespace {

bool is_ok_summary(const nlohmann::ordered_json& r) {
  return r.value("row_kind", "") == "summary" && r.value("status", "") == "ok";
}

const FpgaDevice* named_device(const std::string& name) {
  const FpgaDevice* d = find_device(name);
  if (d == nullptr) {
    throw Error(fmt::format("unknown device '{}' (one of {})", name, device_names()));
  }
  return d;
}

}  // namespace

std::vector<const FpgaDevice*> report_devices(const std::string& list,
                                              const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<const FpgaDevice*> out;
  size_t start = 0;
  while (start < list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    if (name.empty()) {
      throw Error(fmt::format("--device '{}' has an empty device name", list));
    }
    const FpgaDevice* d = named_device(name);
    if (std::find(out.begin(), out.end(), d) == out.end()) {
      out.push_back(d);
    }
    start = comma + 1;
  }
  if (!out.empty()) {
    return out;
  }
  std::set<std::string> judged;
  for (const auto& r : rows) {
    if (is_ok_summary(r) && r.contains("device") && r["device"].is_string()) {
      judged.insert(r["device"].get<std::string>());
    }
  }
  if (judged.size() > 1) {
    throw Error(
        fmt::format("the database holds designs judged against {} devices ({}); name the "
                    "one(s) to report with --device",
                    judged.size(), fmt::join(judged, ", ")));
  }
  return {named_device(judged.empty() ? "pynq" : *judged.begin())};
}

nlohmann::ordered_json report_verdicts(const std::vector<nlohmann::ordered_json>& rows,
                                       const std::vector<const FpgaDevice*>& devices,
                                       bool count_clock) {
  nlohmann::ordered_json j;
  j["count_clock"] = count_clock;
  const ClockModelParams& cm = clock_model_params();
  j["clock_model"] = {{"reference_macs", cm.reference_macs},
                      {"period_growth_per_doubling", cm.period_growth_per_doubling},
                      {"source", cm.source}};
  j["devices"] = nlohmann::ordered_json::array();
  for (const FpgaDevice* d : devices) {
    j["devices"].push_back(d->to_json());
  }
  auto& verdicts = j["verdicts"];
  verdicts = nlohmann::ordered_json::object();
  for (const auto& r : rows) {
    DesignTraits traits;
    if (!is_ok_summary(r) || !design_traits_of_row(r, traits)) {
      continue;
    }
    auto& per_device = verdicts[r.at("point_id").get<std::string>()];
    for (const FpgaDevice* d : devices) {
      per_device[d->part] = judge_design(traits, *d, count_clock).to_json();
    }
  }
  return j;
}

}  // namespace vta::explore
