# vta_sim_core: the SystemC-free core of the sim layer. ISA, hardware configuration, simulated
# DRAM, statistics, fsim and the timing contract (src/*.cc, src/contract/*.cc); links fmt and
# nlohmann_json only. Included by sim/CMakeLists.txt and by hw/gen/host (the configure-time
# build of the RTL parameter generator), so its sources are listed here only.
# Needs: find_package(fmt) and find_package(nlohmann_json) done by the includer; links the
# includer's vta_warnings target if it has one.
set(VTA_SIM_DIR ${CMAKE_CURRENT_LIST_DIR})
get_filename_component(VTA_SIM_CONFIG_DIR ${VTA_SIM_DIR}/../configs ABSOLUTE)
file(GLOB VTA_SIM_CORE_SOURCES CONFIGURE_DEPENDS ${VTA_SIM_DIR}/src/*.cc
     ${VTA_SIM_DIR}/src/contract/*.cc)

# The built-in default configuration is configs/pynq.json itself, compiled in (one source).
file(READ ${VTA_SIM_CONFIG_DIR}/pynq.json VTA_DEFAULT_CONFIG_JSON)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VTA_SIM_CONFIG_DIR}/pynq.json)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/default_config.cc.in
  "// Generated from configs/pynq.json by sim/core.cmake; do not edit.\n"
  "namespace vta { extern const char* const kDefaultConfigJson; "
  "const char* const kDefaultConfigJson = R\"vtajson(@VTA_DEFAULT_CONFIG_JSON@)vtajson\"; }\n")
configure_file(${CMAKE_CURRENT_BINARY_DIR}/default_config.cc.in
  ${CMAKE_CURRENT_BINARY_DIR}/default_config.cc @ONLY)

add_library(vta_sim_core STATIC ${VTA_SIM_CORE_SOURCES} ${CMAKE_CURRENT_BINARY_DIR}/default_config.cc)
target_include_directories(vta_sim_core PUBLIC ${VTA_SIM_DIR}/include)
target_link_libraries(vta_sim_core PUBLIC nlohmann_json::nlohmann_json fmt::fmt)
# Where preset names (--config pynq, "base": "pynq", VTA_CONFIG=pynq) are found in a build tree.
target_compile_definitions(vta_sim_core PRIVATE VTA_PRESET_CONFIG_DIR="${VTA_SIM_CONFIG_DIR}")
# The version reports record: git describe of the source tree at configure time.
execute_process(COMMAND git describe --always --dirty WORKING_DIRECTORY ${VTA_SIM_DIR}
                OUTPUT_VARIABLE VTA_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE VTA_GIT_RESULT ERROR_QUIET)
if(VTA_GIT_RESULT EQUAL 0 AND VTA_GIT_DESCRIBE)
  set(VTA_VERSION_STRING "${VTA_GIT_DESCRIBE}")
elseif(PROJECT_VERSION)
  set(VTA_VERSION_STRING "${PROJECT_VERSION}-unknown")
else()
  set(VTA_VERSION_STRING "unknown")
endif()
set_source_files_properties(${VTA_SIM_DIR}/src/version.cc PROPERTIES COMPILE_DEFINITIONS
                            "VTA_VERSION_STRING=\"${VTA_VERSION_STRING}\"")
if(TARGET vta_warnings)
  target_link_libraries(vta_sim_core PRIVATE vta_warnings)
endif()
