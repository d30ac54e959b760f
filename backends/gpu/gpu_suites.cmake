# The interpreter's op-family suites (backends/interpreter/*_test.cc) run a third time, on
# "gpu" with no GPU, as <name>_on_gpu_emulated: the gpu backend compiles each module as for a
# device (PTX for sm_90, cuBLAS absent so dots are kernels), the fake libcuda stands in for the
# driver, and the kernel emulator (testing/kernel_emulator.h) runs the kernels' IR on the host.
# Included by CMakeLists.txt here once xla_gpu_codegen exists.

set(XLA_GPU_SUITES_SKIPPED opcode_coverage_test)

# Tests the gpu backend does not pass yet would be listed here as gtest negative filters,
# each with its reason: set(XLA_GPU_SUITE_EXCLUDED_<suite> Test.Name ...). None today.

file(GLOB _xla_gpu_suites CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/backends/interpreter/*_test.cc)
foreach(_suite_src ${_xla_gpu_suites})
  get_filename_component(_suite ${_suite_src} NAME_WE)
  if(_suite IN_LIST XLA_GPU_SUITES_SKIPPED OR NOT TARGET ${_suite})
    continue()
  endif()
  target_link_libraries(${_suite} PRIVATE xla_gpu_emulator_autoinstall)
  add_dependencies(${_suite} xla_fake_libcuda)
  set(_env "XLA_TEST_PLATFORM=gpu" "XLA_GPU_EMULATE=1" "XLA_GPU_LIBCUDA=$<TARGET_FILE:xla_fake_libcuda>"
           "XLA_GPU_LIBCUBLAS=/nonexistent/libcublas.so" "XLA_FAKE_CUDA_STREAMS=deferred"
           "XLA_SHARED_DIR=${PROJECT_SOURCE_DIR}/../shared")
  set(_excluded "${XLA_GPU_SUITE_EXCLUDED_${_suite}}")
  if(_excluded)
    list(JOIN _excluded ":" _filter)
    list(APPEND _env "GTEST_FILTER=-${_filter}")
  endif()
  add_test(NAME ${_suite}_on_gpu_emulated COMMAND ${_suite} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${_suite}_on_gpu_emulated PROPERTIES ENVIRONMENT "${_env}")
endforeach()
