#ifndef XLA_BACKENDS_GPU_TESTING_FAKE_CUDA_HOOKS_H_
#define XLA_BACKENDS_GPU_TESTING_FAKE_CUDA_HOOKS_H_

// The fake libcuda's counters and controls (testing/fake_libcuda.cc), for tests that CMake
// builds with XLA_FAKE_LIBCUDA (the library's path) and that have already loaded it.

#include <dlfcn.h>

#include "gtest/gtest.h"

namespace xla {
namespace gpu {

// The fake driver's exported function `name` as an F; a missing library or function fails
// the test and gives null.
// `library`: another loaded fake (the fake cuBLAS) instead of the driver.
template <typename F>
F FakeCudaHook(const char* name, const char* library = XLA_FAKE_LIBCUDA) {
  void* lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(lib, nullptr) << library << " is not loaded";
  F hook = lib == nullptr ? nullptr : reinterpret_cast<F>(dlsym(lib, name));
  EXPECT_NE(hook, nullptr) << name;
  return hook;
}

// Calls counter `name` (no arguments); -1 when it is missing (the test has failed then).
template <typename R = int>
R FakeCudaCount(const char* name) {
  auto hook = FakeCudaHook<R (*)()>(name);
  return hook == nullptr ? R{-1} : hook();
}

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_FAKE_CUDA_HOOKS_H_
