// The rng family on cpu (runtime/rng_bits.cc, runtime/rng.cc) against the interpreter,
// bit-exact. rng-bit-generator: both algorithms, u64[2] and u64[3] states, every integer
// width, non-default layouts, a state threaded through a while loop. rng: uniform and normal
// over float and integer types and layouts, two instructions differing, fresh draws per loop
// iteration, and rng-get-and-update-state's device state.
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

TEST(CpuRng, UniformAndNormalEveryTypeAndLayout) {
  struct Case {
    const char* type;
    const char* distribution;
    const char* a;
    const char* b;
  };
  const Case cases[] = {
      {"f32", "rng_uniform", "-2", "3"},     {"f64", "rng_uniform", "0", "1"},    {"f16", "rng_uniform", "-1", "1"},
      {"bf16", "rng_uniform", "1", "9"},     {"s8", "rng_uniform", "-100", "90"}, {"u32", "rng_uniform", "5", "4000000000"},
      {"s64", "rng_uniform", "-7", "7"},     {"u16", "rng_uniform", "3", "3"},    {"f32", "rng_normal", "1", "2"},
      {"f64", "rng_normal", "-3", "0.5"},    {"f16", "rng_normal", "0", "1"},
  };
  for (const Case& c : cases) {
    for (const char* dims : {"[3,5]{1,0}", "[4,3]{0,1}", "[]", "[7]"}) {
      const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", c.type, "[] constant(", c.a, ")\n  b = ",
                                           c.type, "[] constant(", c.b, ")\n  x = ", c.type, dims, " rng(a, b), distribution=",
                                           c.distribution, "\n  y = ", c.type, dims, " rng(a, b), distribution=",
                                           c.distribution, "\n  ROOT t = (", c.type, dims, ", ", c.type, dims,
                                           ") tuple(x, y)\n}\n");
      EXPECT_TRUE(SameOnBothBackends(hlo, {})) << hlo;
    }
  }
}

TEST(CpuRng, FreshDrawsInALoopAndStateUpdates) {
  const std::string hlo = R"(HloModule m
cond {
  p = (s32[], f32[8], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[8] get-tuple-element(p), index=1
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[8] rng(lo, hi), distribution=rng_uniform
  x = f32[8] add(acc, r)
  s = u64[2] rng-get-and-update-state(), delta=3
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[8], u64[2]) tuple(i2, x, s)
}
ENTRY e {
  z = s32[] constant(0)
  zero = f32[] constant(0)
  acc = f32[8] broadcast(zero), dimensions={}
  s = u64[2] rng-get-and-update-state(), delta=1
  init = (s32[], f32[8], u64[2]) tuple(z, acc, s)
  ROOT w = (s32[], f32[8], u64[2]) while(init), condition=cond, body=body
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {}));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
