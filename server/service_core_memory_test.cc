// Running out of host memory fails the request that needed it, not the server: in a child
// process whose address space is capped, an execution whose intermediate value cannot be
// allocated returns RESOURCE_EXHAUSTED, and the same core then runs the next request and
// still holds the session's earlier data. A backend whose compile or execution throws
// std::bad_alloc shows the same for compiles, including a second compile of the same module
// that waits on the first.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "backends/backend.h"
#include "backends/testing/address_space_cap.h"
#include "gtest/gtest.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace server {
namespace {

// A 512 MiB broadcast summed to a scalar: its result is small, its intermediate is not.
constexpr const char* kHugeIntermediate = R"(HloModule huge
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[] parameter(0)
  big = f32[134217728] broadcast(x), dimensions={}
  zero = f32[] constant(0)
  ROOT sum = f32[] reduce(big, zero), dimensions={0}, to_apply=add
})";

class MemoryTest : public CoreTest {
 public:
  void TestBody() override {}

  // Exit code 0 when the capped execution failed as it should and the core went on serving.
  [[noreturn]] void ExecuteOutOfMemoryThenRecover() {
    SetUp();
    auto huge = Compile(kHugeIntermediate);
    auto add = Compile(kAddModule);
    auto x = Upload(L("f32[] 2"));
    auto a = Upload(L("f32[2] {1, 2}"));
    if (!huge.ok() || !add.ok() || !x.ok() || !a.ok()) std::_Exit(10);
    xla::testing::AddressSpaceCap cap(int64_t{256} << 20);
    if (!cap.ok()) std::_Exit(12);
    auto failed = Execute(huge->execution_handle(), {*x});
    auto served = Execute(add->execution_handle(), {*a, *a});  // still under the cap
    cap.Lift();
    if (failed.ok() || failed.status().code() != absl::StatusCode::kResourceExhausted ||
        failed.status().message() != "the execution ran out of host memory") {
      std::fprintf(stderr, "capped execution: %s\n", failed.status().ToString().c_str());
      std::_Exit(14);
    }
    if (!served.ok()) std::_Exit(15);
    auto sum = Download(served->result_handle());
    auto kept = Download(*a);
    if (!sum.ok() || !kept.ok() || !(*sum == L("f32[2] {2, 4}")) || !(*kept == L("f32[2] {1, 2}"))) std::_Exit(16);
    auto uncapped = Execute(huge->execution_handle(), {*x});
    if (!uncapped.ok()) std::_Exit(17);
    auto total = Download(uncapped->result_handle());
    if (!total.ok() || total->shape().element_type() != F32) std::_Exit(18);
    std::_Exit(0);
  }
};

TEST(ServiceCoreMemoryTest, OutOfHostMemoryFailsTheExecutionNotTheServer) {
  XLA_EXPECT_CAPPED_CHILD_PASSES(MemoryTest().ExecuteOutOfMemoryThenRecover());
}

// The interpreter, except that compiling a module named "compile_oom" throws std::bad_alloc
// (after a pause, so that a second compile of it waits on the first) and executing a module
// named "execute_oom" throws it: platform "oom_interpreter".
class ThrowingExecutable : public backend::Executable {
 public:
  explicit ThrowingExecutable(std::unique_ptr<backend::Executable> inner) : inner_(std::move(inner)) {}
  const HloModule& module() const override { return inner_->module(); }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> Execute(absl::Span<const std::shared_ptr<backend::Buffer>> arguments,
                                                           const backend::ExecuteOptions& options) override {
    if (module().name() == "execute_oom") throw std::bad_alloc();
    return inner_->Execute(arguments, options);
  }

 private:
  std::unique_ptr<backend::Executable> inner_;
};

class ThrowingBackend : public backend::Backend {
 public:
  explicit ThrowingBackend(std::unique_ptr<backend::Backend> inner) : inner_(std::move(inner)) {}
  std::string platform() const override { return "oom_interpreter"; }
  int device_count() const override { return inner_->device_count(); }
  absl::StatusOr<backend::DeviceDescription> Describe(int device) const override { return inner_->Describe(device); }
  absl::StatusOr<std::unique_ptr<backend::Executable>> Compile(std::unique_ptr<HloModule> module,
                                                               const backend::CompileOptions& options) override {
    if (module->name() == "compile_oom") {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      throw std::bad_alloc();
    }
    auto compiled = inner_->Compile(std::move(module), options);
    if (!compiled.ok()) return compiled.status();
    return std::make_unique<ThrowingExecutable>(*std::move(compiled));
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> TransferToDevice(const Literal& literal, int device) override {
    return inner_->TransferToDevice(literal, device);
  }
  absl::StatusOr<Literal> TransferFromDevice(const backend::Buffer& buffer) override {
    return inner_->TransferFromDevice(buffer);
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> Allocate(const Shape& shape, int device) override {
    return inner_->Allocate(shape, device);
  }
  absl::Status TransferToInfeed(int device, const Literal& literal) override {
    return inner_->TransferToInfeed(device, literal);
  }
  absl::StatusOr<Literal> TransferFromOutfeed(int device, const Shape& shape, int64_t timeout_ms) override {
    return inner_->TransferFromOutfeed(device, shape, timeout_ms);
  }

 private:
  std::unique_ptr<backend::Backend> inner_;
};

class ThrowingBackendTest : public CoreTest {
 protected:
  void SetUp() override {
    backend::RegisterBuiltinBackends();
    backend::RegisterBackendFactory("oom_interpreter", []() -> absl::StatusOr<std::unique_ptr<backend::Backend>> {
      auto inner = backend::CreateBackend("interpreter");
      if (!inner.ok()) return inner.status();
      return std::make_unique<ThrowingBackend>(*std::move(inner));
    });
    ServiceOptions options;
    options.platforms = {"oom_interpreter"};
    Start(options);
  }
};

constexpr const char* kCompileOom = R"(HloModule compile_oom
ENTRY main {
  ROOT x = f32[2] parameter(0)
})";

constexpr const char* kExecuteOom = R"(HloModule execute_oom
ENTRY main {
  ROOT x = f32[2] parameter(0)
})";

TEST_F(ThrowingBackendTest, CompilesAndExecutionsOutOfMemoryFailAloneAndWaitersHearOfIt) {
  absl::StatusOr<CompileResponse> first;
  std::thread owner([&] { first = Compile(kCompileOom); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  absl::StatusOr<CompileResponse> waiter = Compile(kCompileOom);  // the same module: waits on the first
  owner.join();
  for (const auto* result : {&first, &waiter}) {
    ASSERT_FALSE(result->ok());
    EXPECT_EQ(result->status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(result->status().message(), "compiling ran out of host memory");
  }
  auto executable = Compile(kExecuteOom);
  auto x = Upload(L("f32[2] {1, 2}"));
  ASSERT_TRUE(executable.ok() && x.ok());
  auto failed = Execute(executable->execution_handle(), {*x});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(failed.status().message(), "the execution ran out of host memory");
  // The core goes on: another module compiles and runs on the argument, still there.
  auto add = Compile(kAddModule);
  ASSERT_TRUE(add.ok()) << add.status();
  auto sum = Execute(add->execution_handle(), {*x, *x});
  ASSERT_TRUE(sum.ok()) << sum.status();
  auto value = Download(sum->result_handle());
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, L("f32[2] {2, 4}"));
}

}  // namespace
}  // namespace server
}  // namespace xla
