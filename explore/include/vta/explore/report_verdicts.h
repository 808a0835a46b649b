// ReportVerdicts: the verdicts of a sweep's designs on the devices a report is asked about,
// recomputed from each row's stored resources, bus width, GEMM size and clock, so that a report
// for another device never shows the verdict the sweep computed for the row's own device.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/explore/fpga_device.h"

namespace vta::explore {

// The devices of `list` ("zcu104", "pynq,zcu104"; boards or parts); an empty list means the
// device the rows were judged against (the pynq's when they name none). Throws vta::Error
// naming an unknown device, or when the rows were judged against several devices and no list
// says which one to report.
std::vector<const FpgaDevice*> report_devices(const std::string& list,
                                              const std::vector<nlohmann::ordered_json>& rows);

// {"count_clock": b, "clock_model": {...}, "devices": [device...],
//  "verdicts": {point_id: {part: verdict}}} for the ok summary rows.
nlohmann::ordered_json report_verdicts(const std::vector<nlohmann::ordered_json>& rows,
                                       const std::vector<const FpgaDevice*>& devices,
                                       bool count_clock);

}  // namespace vta::explore
