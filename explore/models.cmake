# The exploration layer's models (area, energy): SystemC-free, above the compiler and runtime.
# The area model's calibrated coefficients (explore/area_data/coefficients.json) and the
# achievable-clock model's constants (explore/device_data/clock_model.json), compiled in
# (vta_embed_json, sim/core.cmake). The boards' facts are sim/board_data/boards.json.
vta_embed_json(${CMAKE_CURRENT_SOURCE_DIR}/area_data/coefficients.json vta::explore
               kAreaCoefficientsJson)
set(VTA_EXPLORE_EMBEDDED_SOURCES ${VTA_EMBEDDED_SOURCE})
vta_embed_json(${CMAKE_CURRENT_SOURCE_DIR}/device_data/clock_model.json vta::explore
               kClockModelJson)
list(APPEND VTA_EXPLORE_EMBEDDED_SOURCES ${VTA_EMBEDDED_SOURCE})

set(VTA_EXPLORE_MODEL_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/src/area_model.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/src/energy_model.cc ${CMAKE_CURRENT_SOURCE_DIR}/src/fpga_device.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/src/design_verdict.cc ${CMAKE_CURRENT_SOURCE_DIR}/src/report_verdicts.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/src/system_area.cc ${CMAKE_CURRENT_SOURCE_DIR}/src/system_energy.cc)
add_library(vta_explore_models STATIC ${VTA_EXPLORE_MODEL_SOURCES}
  ${VTA_EXPLORE_EMBEDDED_SOURCES})
target_include_directories(vta_explore_models PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(vta_explore_models PUBLIC vta_sim_core PRIVATE vta_warnings)

# Regenerates coefficients.json from the Yosys reports (scripts/calibrate_area.sh runs it).
add_executable(fit_area_model tools/fit_area_model.cc)
target_link_libraries(fit_area_model PRIVATE vta_explore_models vta_warnings)
