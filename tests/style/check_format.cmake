# Fails if any tracked .cc/.h/.c file differs from what clang-format 16 makes of it; exits 77
# (ctest: skipped) when clang-format-16 or git is missing.
if(NOT CLANG_FORMAT)
  message("clang-format-16 not found: style check skipped (bash scripts/setup.sh installs it)")
  cmake_language(EXIT 77)
endif()
find_program(GIT git)
execute_process(COMMAND ${GIT} ls-files *.cc *.h *.c WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE files RESULT_VARIABLE rc)
if(NOT GIT OR NOT rc EQUAL 0)
  message("not a git checkout: style check skipped")
  cmake_language(EXIT 77)
endif()
cmake_policy(SET CMP0007 NEW)
string(REPLACE "\n" ";" files "${files}")
list(FILTER files EXCLUDE REGEX "^$")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${files}
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "not formatted (run: bash scripts/lint.sh --fix):\n${err}")
endif()
