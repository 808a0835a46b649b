# Run by ctest at the top of every test directory's CTestTestfile.cmake (tests/CMakeLists.txt puts
# it first in each directory's TEST_INCLUDE_FILES), before the directory's tests, including the
# ones catch_discover_tests finds, are defined. It wraps add_test and set_tests_properties so
# that every test
# - has a TIMEOUT (a hang fails the test instead of stalling the suite), unless it sets its own;
# - runs without the user's VTA_CONFIG, VTA_BACKEND, VTA_TEST_SEED, VTA_DUMP_PROGRAM and
#   TVM_INSN_DUMP_FILE (they select the config, backend, seed or dump files of libvta, vtasim and
#   the tests), except those the test sets itself in its ENVIRONMENT (or sets again in its own
#   ENVIRONMENT_MODIFICATION, which comes after these unsets).
# Test properties can only be set in the directory that defines the test (CMake 3.25), hence this
# hook instead of a loop over all tests at configure time.
if(COMMAND _vta_hermetic_loaded)
  return()  # already wrapped: wrapping twice would make the wrappers call themselves
endif()
function(_vta_hermetic_loaded)
endfunction()

set(_vta_hermetic_vars VTA_CONFIG VTA_BACKEND VTA_TEST_SEED VTA_DUMP_PROGRAM TVM_INSN_DUMP_FILE)
set(_vta_default_timeout 300)

# The wrappers forward their arguments one by one as bracket arguments: ${ARGV} would split the
# arguments that contain ';'.
function(add_test)
  set(call "_add_test(")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 0 ${last})
    string(APPEND call " [==[${ARGV${i}}]==]")
  endforeach()
  cmake_language(EVAL CODE "${call})")
  set(name "${ARGV0}")
  if(name STREQUAL "NAME")
    set(name "${ARGV1}")
  endif()
  set(mods)
  foreach(var IN LISTS _vta_hermetic_vars)
    list(APPEND mods "${var}=unset:")
  endforeach()
  _set_tests_properties("${name}" PROPERTIES TIMEOUT ${_vta_default_timeout}
                        ENVIRONMENT_MODIFICATION "${mods}")
endfunction()

function(set_tests_properties)
  set(call "_set_tests_properties(")
  math(EXPR last "${ARGC} - 1")
  set(tests)
  set(in_props FALSE)
  set(key "")
  set(env "")
  foreach(i RANGE 0 ${last})
    set(arg "${ARGV${i}}")
    string(APPEND call " [==[${arg}]==]")
    if(NOT in_props)
      if(arg STREQUAL "PROPERTIES")
        set(in_props TRUE)
      else()
        list(APPEND tests "${arg}")
      endif()
    elseif(key STREQUAL "")
      set(key "${arg}")
    else()
      if(key STREQUAL "ENVIRONMENT")
        set(env "${arg}")
      endif()
      set(key "")
    endif()
  endforeach()
  cmake_language(EVAL CODE "${call})")
  # ENVIRONMENT_MODIFICATION accumulates over calls; "reset:" undoes the unset of a variable the
  # test sets in ENVIRONMENT (ctest applies ENVIRONMENT first, then the modifications).
  set(mods)
  foreach(entry IN LISTS env)
    foreach(var IN LISTS _vta_hermetic_vars)
      if(entry MATCHES "^${var}=")
        list(APPEND mods "${var}=reset:")
      endif()
    endforeach()
  endforeach()
  if(mods)
    foreach(test IN LISTS tests)
      _set_tests_properties("${test}" PROPERTIES ENVIRONMENT_MODIFICATION "${mods}")
    endforeach()
  endif()
endfunction()
