# The exploration layer's models (area, energy): SystemC-free, above the compiler and runtime.
# The area model's calibrated coefficients are explore/area_data/coefficients.json, compiled in.
set(VTA_AREA_COEFFICIENTS ${CMAKE_CURRENT_SOURCE_DIR}/area_data/coefficients.json)
file(READ ${VTA_AREA_COEFFICIENTS} VTA_AREA_COEFFICIENTS_JSON)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VTA_AREA_COEFFICIENTS})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/area_coefficients.cc.in
  "// Generated from explore/area_data/coefficients.json by explore/models.cmake; do not edit.\n"
  "namespace vta::explore { extern const char* const kAreaCoefficientsJson; "
  "const char* const kAreaCoefficientsJson = R\"vtajson(@VTA_AREA_COEFFICIENTS_JSON@)vtajson\"; }\n")
configure_file(${CMAKE_CURRENT_BINARY_DIR}/area_coefficients.cc.in
  ${CMAKE_CURRENT_BINARY_DIR}/area_coefficients.cc @ONLY)

# The device table (budgets, memory ports, DRAM, published clocks), compiled in the same way.
set(VTA_DEVICES ${CMAKE_CURRENT_SOURCE_DIR}/device_data/devices.json)
file(READ ${VTA_DEVICES} VTA_DEVICES_JSON)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VTA_DEVICES})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/devices.cc.in
  "// Generated from explore/device_data/devices.json by explore/models.cmake; do not edit.\n"
  "namespace vta::explore { extern const char* const kDevicesJson; "
  "const char* const kDevicesJson = R\"vtajson(@VTA_DEVICES_JSON@)vtajson\"; }\n")
configure_file(${CMAKE_CURRENT_BINARY_DIR}/devices.cc.in ${CMAKE_CURRENT_BINARY_DIR}/devices.cc
  @ONLY)

set(VTA_EXPLORE_MODEL_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/src/area_model.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/src/energy_model.cc ${CMAKE_CURRENT_SOURCE_DIR}/src/fpga_device.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/src/design_verdict.cc ${CMAKE_CURRENT_SOURCE_DIR}/src/report_verdicts.cc)
add_library(vta_explore_models STATIC ${VTA_EXPLORE_MODEL_SOURCES}
  ${CMAKE_CURRENT_BINARY_DIR}/area_coefficients.cc ${CMAKE_CURRENT_BINARY_DIR}/devices.cc)
target_include_directories(vta_explore_models PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(vta_explore_models PUBLIC vta_sim_core PRIVATE vta_warnings)

# Regenerates coefficients.json from the Yosys reports (scripts/calibrate_area.sh runs it).
add_executable(fit_area_model tools/fit_area_model.cc)
target_link_libraries(fit_area_model PRIVATE vta_explore_models vta_warnings)
