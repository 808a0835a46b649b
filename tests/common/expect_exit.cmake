# Runs CMD (a ;-list) and pins its outcome: the exit status must equal STATUS, stderr must match
# EXPECT (if given) and stdout must match EXPECT_STDOUT (if given). PASS_REGULAR_EXPRESSION alone
# ignores the exit status and WILL_FAIL accepts any failure; this checks both.
# Usage: cmake -DCMD=... -DSTATUS=1 [-DEXPECT=...] [-DEXPECT_STDOUT=...] -P expect_exit.cmake
if(NOT DEFINED CMD OR NOT DEFINED STATUS)
  message(FATAL_ERROR "expect_exit.cmake: CMD and STATUS are required")
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL STATUS)
  message(FATAL_ERROR "expected exit status ${STATUS}, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED EXPECT AND NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  message(FATAL_ERROR "stdout does not match '${EXPECT_STDOUT}':\n${out}")
endif()
