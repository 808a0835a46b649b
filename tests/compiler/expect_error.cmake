# Runs CMD (a ;-list), requires exit status EXPECT_RC (default 1) and stderr, without its
# trailing newline, matching EXPECT (so "^...$" pins the whole message).
# Usage: cmake -DCMD=... -DEXPECT=... [-DEXPECT_RC=2] -P expect_error.cmake
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 1)
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
string(STRIP "${err}" err)
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
