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

# vta_embed_json(<json file> <namespace> <name>): compiles the text of a JSON data file in, as
# `const char* const <namespace>::<name>`, in ${CMAKE_CURRENT_BINARY_DIR}/<name>.cc (returned in
# VTA_EMBEDDED_SOURCE); CMake re-configures when the file changes. Data files are found this way
# at run time, whatever the install or working directory.
function(vta_embed_json json ns name)
  file(READ ${json} VTA_EMBEDDED_TEXT)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${json})
  get_filename_component(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.. ABSOLUTE)
  file(RELATIVE_PATH rel ${root} ${json})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.cc)
  file(WRITE ${out}.in "// Generated from ${rel} by vta_embed_json (sim/core.cmake); do not edit.\n"
    "namespace ${ns} { extern const char* const ${name}; "
    "const char* const ${name} = R\"vtajson(@VTA_EMBEDDED_TEXT@)vtajson\"; }\n")
  configure_file(${out}.in ${out} @ONLY)
  set(VTA_EMBEDDED_SOURCE ${out} PARENT_SCOPE)
endfunction()

# The built-in default configuration is configs/pynq.json itself, compiled in (one source).
vta_embed_json(${VTA_SIM_CONFIG_DIR}/pynq.json vta kDefaultConfigJson)
set(VTA_SIM_EMBEDDED_SOURCES ${VTA_EMBEDDED_SOURCE})
# The board table (board_facts.h): every fact about each board, once.
vta_embed_json(${VTA_SIM_DIR}/board_data/boards.json vta kBoardsJson)
list(APPEND VTA_SIM_EMBEDDED_SOURCES ${VTA_EMBEDDED_SOURCE})

add_library(vta_sim_core STATIC ${VTA_SIM_CORE_SOURCES} ${VTA_SIM_EMBEDDED_SOURCES})
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
