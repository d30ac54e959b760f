#include "backends/gpu/cuda_driver.h"

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;

// The fake driver (testing/fake_libcuda.cc) reads its mode on every call.
void SetFakeMode(const char* mode) { setenv("XLA_FAKE_CUDA_MODE", mode, 1); }

TEST(CudaDriverTest, MissingLibraryIsUnavailableAndSaysWhat) {
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("/nonexistent/libcuda.so.1"));
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("NVIDIA driver"));
}

TEST(CudaDriverTest, ALibraryThatIsNotADriverIsUnavailable) {
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load("libm.so.6");
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("cuGetProcAddress_v2"));
}

TEST(CudaDriverTest, MissingEntryPointsAreListed) {
  SetFakeMode("missing_entry");
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("cuLaunchKernel"));
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("12.0"));
}

TEST(CudaDriverTest, NoDeviceIsUnavailableWithTheDriversWords) {
  SetFakeMode("no_device");
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("cuInit: CUDA_ERROR_NO_DEVICE"));
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("no CUDA-capable device"));
}

TEST(CudaDriverTest, ResolvesEveryEntryPointAndMapsErrors) {
  SetFakeMode("ok");
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(d.ok()) << d.status();
  const CudaDriver& driver = **d;
  EXPECT_EQ(driver.driver_version(), 12080);
  int count = 0;
  ASSERT_EQ(driver.cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 2);
#define XLA_EXPECT_RESOLVED(name) EXPECT_NE(driver.name, nullptr) << #name;
  XLA_CUDA_DRIVER_ENTRY_POINTS(XLA_EXPECT_RESOLVED)
#undef XLA_EXPECT_RESOLVED
  absl::Status oom = driver.ToStatus(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
  EXPECT_TRUE(absl::IsResourceExhausted(oom)) << oom;
  EXPECT_EQ(oom.message(), "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  absl::Status odd = driver.ToStatus(static_cast<CUresult>(12345), "cuLaunchKernel");
  EXPECT_TRUE(absl::IsInternal(odd)) << odd;
  EXPECT_THAT(std::string(odd.message()), HasSubstr("CUresult 12345"));
}

TEST(CudaDriverTest, TheDefaultDriverLoadsOrSaysWhyNot) {
  // On this machine: whatever is installed. Either way no crash, and the same answer twice.
  absl::StatusOr<const CudaDriver*> first = CudaDriver::Default();
  absl::StatusOr<const CudaDriver*> second = CudaDriver::Default();
  EXPECT_EQ(first.ok(), second.ok());
  if (!first.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(first.status())) << first.status();
    EXPECT_EQ(first.status(), second.status());
  } else {
    EXPECT_EQ(*first, *second);
  }
}

}  // namespace
}  // namespace gpu
}  // namespace xla
