// rng-bit-generator on cpu (runtime/rng_bits.cc) against the interpreter, bit-exact: both
// algorithms, u64[2] and u64[3] states, every integer width, non-default layouts, a bits-only
// result, and a state threaded through a while loop.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;

Literal State(int64_t n) {
  auto state = Literal::Create(ShapeUtil::MakeShape(U64, {n}));
  EXPECT_TRUE(state.ok());
  const uint64_t words[] = {0x0123456789abcdefull, 0xfffffffffffffff0ull, 0x00000000ffffffffull};
  for (int64_t i = 0; i < n; ++i) state->SetFromUint64(i, words[i]);
  return *std::move(state);
}

TEST(CpuRngBitGenerator, AlgorithmsTypesAndLayouts) {
  for (const char* algorithm : {"rng_three_fry", "rng_philox", "rng_default"}) {
    for (int64_t state_size : {2, 3}) {
      if (state_size == 3 && std::string(algorithm) == "rng_three_fry") continue;
      for (const char* type : {"u8", "s16", "u32", "s32", "u64", "s64", "s4", "u4"}) {
        for (const char* dims : {"[5,7]{1,0}", "[6,3]{0,1}", "[3,1,9]{0,2,1}", "[]"}) {
          const std::string state = absl::StrCat("u64[", state_size, "]");
          const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  s = ", state, " parameter(0)\n  ROOT g = (",
                                               state, ", ", type, dims, ") rng-bit-generator(s), algorithm=", algorithm,
                                               "\n}\n");
          EXPECT_TRUE(SameOnBothBackends(hlo, {State(state_size)})) << hlo;
        }
      }
    }
  }
}

TEST(CpuRngBitGenerator, StateThreadedThroughALoop) {
  const std::string hlo = R"(HloModule m
cond {
  p = (s32[], u64[2], u32[4,4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], u64[2], u32[4,4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  s = u64[2] get-tuple-element(p), index=1
  acc = u32[4,4] get-tuple-element(p), index=2
  g = (u64[2], u32[4,4]) rng-bit-generator(s), algorithm=rng_philox
  s2 = u64[2] get-tuple-element(g), index=0
  bits = u32[4,4] get-tuple-element(g), index=1
  x = u32[4,4] xor(acc, bits)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], u64[2], u32[4,4]) tuple(i2, s2, x)
}
ENTRY e {
  s = u64[2] parameter(0)
  z = s32[] constant(0)
  zero = u32[] constant(0)
  acc = u32[4,4] broadcast(zero), dimensions={}
  init = (s32[], u64[2], u32[4,4]) tuple(z, s, acc)
  ROOT w = (s32[], u64[2], u32[4,4]) while(init), condition=cond, body=body
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {State(2)}));
}

TEST(CpuRngBitGenerator, BadStatesAreInvalidArguments) {
  testing::RegisterBackendsOnce();
  const std::string hlo = "HloModule m\nENTRY e {\n  s = u64[3] parameter(0)\n  ROOT g = (u64[3], u32[4]) "
                          "rng-bit-generator(s), algorithm=rng_three_fry\n}\n";
  auto result = xla::testing::RunHlo(hlo, {State(3)}, "cpu");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status().message();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
