# The interpreter's op-family suites (backends/interpreter/*_test.cc) run a second time on
# "cpu" as <name>_on_cpu: the same binaries with XLA_TEST_PLATFORM=cpu, so both backends must
# give the expected values of every test (issue 6). Included by CMakeLists.txt here once
# xla_cpu_backend exists; the binaries get "cpu" from xla_all_backends.

# Suites that check the interpreter itself, not a backend through the Backend interface:
#  - opcode_coverage_test: the interpreter's handler table has an entry for every opcode.
set(XLA_CPU_SUITES_SKIPPED opcode_coverage_test)

# Tests the cpu backend cannot pass yet would be listed here as gtest negative filters with the
# reason, as set(XLA_CPU_SUITE_EXCLUDED_<suite> Test.Name ...). The list is empty: every suite
# test passes on cpu.

file(GLOB _xla_cpu_suites CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/backends/interpreter/*_test.cc)
foreach(_suite_src ${_xla_cpu_suites})
  get_filename_component(_suite ${_suite_src} NAME_WE)
  if(_suite IN_LIST XLA_CPU_SUITES_SKIPPED OR NOT TARGET ${_suite})
    continue()
  endif()
  set(_env "XLA_TEST_PLATFORM=cpu" "XLA_SHARED_DIR=${PROJECT_SOURCE_DIR}/../shared")
  set(_excluded "${XLA_CPU_SUITE_EXCLUDED_${_suite}}")
  if(_excluded)
    list(JOIN _excluded ":" _filter)
    list(APPEND _env "GTEST_FILTER=-${_filter}")
  endif()
  add_test(NAME ${_suite}_on_cpu COMMAND ${_suite} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${_suite}_on_cpu PROPERTIES ENVIRONMENT "${_env}")
endforeach()
