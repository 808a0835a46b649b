# cmake -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DBACKENDS= -DCONFIG= -P install_consumer.cmake
# Installs the build into WORK_DIR/prefix, builds upstream_gemm.c against it twice (a CMake
# project with find_package(vta), and cc with pkg-config --cflags --libs vta) and a C++ consumer
# of runtime_cpp.h (find_package(vta COMPONENTS cpp), vta::vta_cpp), and runs them all on
# every backend with VTA_CONFIG = CONFIG (the config of the installed hw_spec_const.h). Fails on
# the first step that does.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/vtasim share/vta/configs/pynq.json share/vta/networks/resnet18.json
          include/vta/hw_spec.h include/vta/hw_spec_const.h lib/pkgconfig/vta.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
run_step("installed vtasim with a preset" ${prefix}/bin/vtasim demo --config small --backend fsim)

run_step("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/build
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
         -DUPSTREAM_GEMM_SOURCE=${SOURCE_DIR}/upstream_gemm.c)
run_step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

run_step("configure the C++ consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer_cpp
         -B ${WORK_DIR}/build_cpp -DCMAKE_PREFIX_PATH=${prefix})
run_step("build the C++ consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build_cpp)

set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run_step("pkg-config" pkg-config --cflags --libs vta)
separate_arguments(flags UNIX_COMMAND "${step_output}")
run_step("cc with pkg-config" cc -std=c99 -Wall -Wextra -Werror -o ${WORK_DIR}/upstream_gemm_pc
         ${SOURCE_DIR}/upstream_gemm.c ${flags})

set(ENV{VTA_CONFIG} ${CONFIG})
foreach(b ${BACKENDS})
  set(ENV{VTA_BACKEND} ${b})
  run_step("find_package consumer on ${b}" ${WORK_DIR}/build/upstream_gemm_cmake)
  run_step("pkg-config consumer on ${b}" ${WORK_DIR}/upstream_gemm_pc)
  run_step("C++ consumer on ${b}" ${WORK_DIR}/build_cpp/runtime_cpp_consumer)
endforeach()
