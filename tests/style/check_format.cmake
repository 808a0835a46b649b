# Fails if any C/C++ source of the project differs from what clang-format 16 makes of it. Prints
# "style check skipped" (ctest: SKIP_REGULAR_EXPRESSION) when clang-format-16 is missing. The
# sources are found by globbing the layer folders, so no git is needed (a CI clone may lack it).
if(NOT CLANG_FORMAT)
  message("clang-format-16 not found: style check skipped (bash scripts/setup.sh installs it)")
  return()
endif()
set(files)
foreach(dir cli compiler explore hw python runtime sim tests)
  file(GLOB_RECURSE found RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${dir}/*.cc ${SOURCE_DIR}/${dir}/*.h
       ${SOURCE_DIR}/${dir}/*.c)
  list(APPEND files ${found})
endforeach()
list(SORT files)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${files}
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "not formatted (run: bash scripts/lint.sh --fix):\n${err}")
endif()
list(LENGTH files n)
message("${n} files formatted as .clang-format says")
