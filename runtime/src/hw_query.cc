// The C queries of vta/hw_query.h over the runtime's active config (runtime_config()).
#include "vta/hw_query.h"

#include <string>

#include <nlohmann/json.hpp>

#include "runtime_context.h"
#include "vta/runtime_cpp.h"

using vta::c_api;

namespace {

template <typename F>
uint32_t config_value(const char* api, F&& field) {
  return c_api(api, [&] { return static_cast<uint32_t>(field(vta::runtime_config())); });
}

}  // namespace

const char* VTAHwConfigJSON(void) {
  return c_api("VTAHwConfigJSON", [] {
    static std::string json;  // kept until the next call (the config may change in between)
    nlohmann::json j = vta::runtime_config().to_json();
    j["model"] = vta::runtime_config().model_name;
    json = j.dump();
    return json.c_str();
  });
}

const char* VTAHwBackendName(void) {
  return c_api("VTAHwBackendName", [] { return vta::runtime_backend_name().c_str(); });
}

uint32_t VTAHwBatch(void) {
  return config_value("VTAHwBatch", [](const vta::HwConfig& c) { return c.batch; });
}
uint32_t VTAHwBlockIn(void) {
  return config_value("VTAHwBlockIn", [](const vta::HwConfig& c) { return c.block_in; });
}
uint32_t VTAHwBlockOut(void) {
  return config_value("VTAHwBlockOut", [](const vta::HwConfig& c) { return c.block_out; });
}
uint32_t VTAHwInpWidth(void) {
  return config_value("VTAHwInpWidth", [](const vta::HwConfig& c) { return c.inp_width; });
}
uint32_t VTAHwWgtWidth(void) {
  return config_value("VTAHwWgtWidth", [](const vta::HwConfig& c) { return c.wgt_width; });
}
uint32_t VTAHwAccWidth(void) {
  return config_value("VTAHwAccWidth", [](const vta::HwConfig& c) { return c.acc_width; });
}
uint32_t VTAHwOutWidth(void) {
  return config_value("VTAHwOutWidth", [](const vta::HwConfig& c) { return c.out_width; });
}
uint32_t VTAHwUopBuffDepth(void) {
  return config_value("VTAHwUopBuffDepth", [](const vta::HwConfig& c) { return c.uop_buff_depth; });
}
uint32_t VTAHwInpBuffDepth(void) {
  return config_value("VTAHwInpBuffDepth", [](const vta::HwConfig& c) { return c.inp_buff_depth; });
}
uint32_t VTAHwWgtBuffDepth(void) {
  return config_value("VTAHwWgtBuffDepth", [](const vta::HwConfig& c) { return c.wgt_buff_depth; });
}
uint32_t VTAHwAccBuffDepth(void) {
  return config_value("VTAHwAccBuffDepth", [](const vta::HwConfig& c) { return c.acc_buff_depth; });
}
uint32_t VTAHwOutBuffDepth(void) {
  return config_value("VTAHwOutBuffDepth", [](const vta::HwConfig& c) { return c.out_buff_depth; });
}
uint32_t VTAHwBusBytes(void) {
  return config_value("VTAHwBusBytes", [](const vta::HwConfig& c) { return c.bus_bytes; });
}
double VTAHwClockMHz(void) {
  return c_api("VTAHwClockMHz", [] { return vta::runtime_config().clock_mhz; });
}
