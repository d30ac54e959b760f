// Running out of host memory fails the request that needed it, not the server: in a child
// process whose address space is capped, an execution whose intermediate value cannot be
// allocated returns RESOURCE_EXHAUSTED, and the same core then runs the next request and
// still holds the session's earlier data.
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace
}  // namespace server
}  // namespace xla
