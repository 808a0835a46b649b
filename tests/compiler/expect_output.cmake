# Runs CMD (a ;-list), requires exit status 0 and stdout matching EXPECT (a passing regex alone
# would ignore the exit status).
# Usage: cmake -DCMD=... -DEXPECT=... -P expect_output.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "stdout does not match '${EXPECT}':\n${out}")
endif()
