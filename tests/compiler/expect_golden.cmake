# Runs CMD (a ;-list) in SOURCE_DIR, requires exit status 0 and stdout equal to the file GOLDEN.
# Usage: cmake -DCMD=... -DSOURCE_DIR=... -DGOLDEN=... -P expect_golden.cmake
execute_process(COMMAND ${CMD} WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got '${rc}'\nstderr: ${err}")
endif()
file(READ ${GOLDEN} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "stdout differs from ${GOLDEN}; review the difference, then regenerate "
                      "with scripts/update_lowered_goldens.sh\nstdout:\n${out}")
endif()
