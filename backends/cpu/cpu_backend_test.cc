// The cpu backend end to end: shape ops, reductions, dot, control flow, fusions, layouts,
// errors; every module compared with the interpreter.
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;
using xla::testing::L;

Literal R(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, /*specials=*/false);
}

TEST(CpuBackend, DescribesTheHost) {
  auto backend = CreateCpuBackend();
  EXPECT_EQ(backend->platform(), "cpu");
  EXPECT_EQ(backend->device_count(), 1);
  auto d = backend->Describe(0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->platform, "cpu");
  EXPECT_NE(d->name.find("host CPU"), std::string::npos);
  EXPECT_FALSE(backend->Describe(1).ok());
}

// A bitcast whose operand and result are not as many bytes here (sub-byte types are stored a
// byte per element; the verifier leaves them unchecked) is not a view of its operand: it is
// refused with the reason (found by hlo_compile_fuzz: the view read past its buffer).
TEST(CpuBackend, BitcastsViewOnlyBuffersOfTheirSize) {
  testing::RegisterBackendsOnce();
  const absl::StatusOr<Literal> refused = xla::testing::RunHlo(R"(HloModule m
ENTRY e {
  p = s32[2,3]{1,0} parameter(0)
  ROOT b = s2[3,32]{0,1} bitcast(p)
})", {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")}, "cpu");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.status().message()).find("element counts differ"), std::string::npos)
      << refused.status();
}

TEST(CpuBackend, RegistersUnderCpu) {
  testing::RegisterBackendsOnce();
  auto backend = backend::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  EXPECT_EQ((*backend)->platform(), "cpu");
}

TEST(CpuBackend, TransfersRoundTripTuples) {
  auto backend = CreateCpuBackend();
  std::vector<Literal> inner;
  inner.push_back(L("s8[] -4"));
  inner.push_back(L("pred[2] {true, false}"));
  std::vector<Literal> outer;
  outer.push_back(L("f32[3] {1, 2, 3}"));
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  Literal value = Literal::MakeTuple(std::move(outer));
  auto buffer = backend->TransferToDevice(value, 0);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ((*buffer)->tuple_elements().size(), 2u);
  auto back = backend->TransferFromDevice(**buffer);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, value);
  auto zeros = backend->Allocate(ShapeUtil::MakeShape(F32, {4}), 0);
  ASSERT_TRUE(zeros.ok());
  EXPECT_EQ(*backend->TransferFromDevice(**zeros), L("f32[4] {0, 0, 0, 0}"));
}

TEST(CpuBackend, InfeedOutfeedQueues) {
  auto backend = CreateCpuBackend();
  ASSERT_TRUE(backend->TransferToInfeed(0, L("f32[2] {1, 2}")).ok());
  auto none = backend->TransferFromOutfeed(0, ShapeUtil::MakeShape(F32, {2}), 10);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(CpuBackend, UnsupportedOpIsUnimplementedAtCompile) {
  auto backend = CreateCpuBackend();
  auto module = ParseAndReturnUnverifiedModule(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  t = token[] after-all()
  s = (f32[4], u32[], token[]) send(a, t), channel_id=3
  ROOT d = token[] send-done(s), channel_id=3
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = backend->Compile(*std::move(module), {});
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnimplemented);
  // send has no peer on one device (the interpreter does not implement it either).
  EXPECT_NE(exe.status().message().find("send"), std::string::npos) << exe.status().message();
}

TEST(CpuBackend, WrongArgumentsAreErrors) {
  auto backend = CreateCpuBackend();
  auto module = ParseAndReturnUnverifiedModule("HloModule m\nENTRY e {\n a = f32[2] parameter(0)\n ROOT n = f32[2] negate(a)\n}\n");
  ASSERT_TRUE(module.ok());
  auto exe = backend->Compile(*std::move(module), {});
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_FALSE((*exe)->Execute({}, {}).ok());
  auto wrong = backend->TransferToDevice(L("f32[3] {1, 2, 3}"), 0);
  EXPECT_FALSE((*exe)->Execute({*wrong}, {}).ok());
  auto right = backend->TransferToDevice(L("f32[2] {1, -2}"), 0);
  auto result = (*exe)->Execute({*right}, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*backend->TransferFromDevice(**result), L("f32[2] {-1, 2}"));
}

TEST(CpuBackend, ShapeOps) {
  const char* kModule = R"(HloModule m
ENTRY e {
  a = f32[4,6] parameter(0)
  b = f32[6] parameter(1)
  i = s32[] parameter(2)
  bc = f32[4,6] broadcast(b), dimensions={1}
  t = f32[6,4] transpose(a), dimensions={1,0}
  r = f32[24] reshape(t)
  s = f32[2,3] slice(a), slice={[1:4:2], [0:6:2]}
  ds = f32[2,2] dynamic-slice(a, i, i), dynamic_slice_sizes={2,2}
  dus = f32[4,6] dynamic-update-slice(a, ds, i, i)
  cat = f32[4,12] concatenate(a, bc), dimensions={1}
  z = f32[] constant(-7)
  p = f32[7,14] pad(a, z), padding=1_2x2_1_1
  io = s32[4,6] iota(), iota_dimension=1
  rv = f32[4,6] reverse(a), dimensions={0,1}
  ROOT tup = (f32[24], f32[2,3], f32[2,2], f32[4,6], f32[4,12], f32[7,14], s32[4,6], f32[4,6]) tuple(r, s, ds, dus, cat, p, io, rv)
})";
  for (int i : {-3, 0, 1, 2, 9}) {
    EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {4, 6}), R(F32, {6}, 2), Literal::CreateR0<int32_t>(i)})) << i;
  }
}

TEST(CpuBackend, Reductions) {
  const char* kModule = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] maximum(x, y)
}
ENTRY e {
  a = f32[33,70] parameter(0)
  z = f32[] constant(0)
  m = f32[] constant(-inf)
  rows = f32[33] reduce(a, z), dimensions={1}, to_apply=add
  cols = f32[70] reduce(a, z), dimensions={0}, to_apply=add
  all = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
  mx = f32[33] reduce(a, m), dimensions={1}, to_apply=max
  ROOT t = (f32[33], f32[70], f32[], f32[33]) tuple(rows, cols, all, mx)
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {33, 70})}, 1e-5, 1e-5));
}

TEST(CpuBackend, MaxMinReducePropagateNaN) {
  const char* kModule = R"(HloModule m
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] maximum(x, y)
}
min {
  x = f64[] parameter(0)
  y = f64[] parameter(1)
  ROOT s = f64[] minimum(x, y)
}
ENTRY e {
  a = f32[4,37] parameter(0)
  b = f64[4,37] parameter(1)
  m = f32[] constant(-inf)
  p = f64[] constant(inf)
  mx = f32[4] reduce(a, m), dimensions={1}, to_apply=max
  mn = f64[4] reduce(b, p), dimensions={1}, to_apply=min
  ROOT t = (f32[4], f64[4]) tuple(mx, mn)
})";
  Literal a = R(F32, {4, 37});
  Literal b = R(F64, {4, 37}, 2);
  a.SetFromDouble(37 + 5, NAN);         // row 1 has a NaN
  a.SetFromDouble(2 * 37 + 36, INFINITY);  // row 2 has +inf last
  b.SetFromDouble(3 * 37, NAN);
  b.SetFromDouble(2, -INFINITY);
  EXPECT_TRUE(SameOnBothBackends(kModule, {a.Clone(), b.Clone()}, 0, 0));
}

TEST(CpuBackend, NarrowFloatSumsAccumulateInF32) {
  const char* kModule = R"(HloModule m
add {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
}
ENTRY e {
  a = f16[3] parameter(0)
  z = f16[] constant(0)
  ROOT r = f16[] reduce(a, z), dimensions={0}, to_apply=add
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {L("f16[3] {2048, 1, 1}")}));
  testing::RegisterBackendsOnce();
  EXPECT_TRUE(xla::testing::LiteralEqual(L("f16[] 2050"), xla::testing::RunHlo(kModule, {L("f16[3] {2048, 1, 1}")}, "cpu")));
}

TEST(CpuBackend, BitcastsKeepTheBytesUnderTheirLayout) {
  EXPECT_TRUE(SameOnBothBackends(R"(HloModule m
ENTRY e {
  p = s32[2,3]{1,0} parameter(0)
  ROOT b = s32[3,2]{0,1} bitcast(p)
})", {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")}));
  EXPECT_TRUE(SameOnBothBackends(R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  i = u64[] parameter(1)
  ROOT d = s32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}
})", {L("s32[5] {0, 1, 2, 3, 4}"), L("u64[] 18446744073709551615")}));
}

TEST(CpuBackend, VariadicArgmaxReduce) {
  const char* kModule = R"(HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  a = f32[9,17] parameter(0)
  io = s32[9,17] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(-1)
  ROOT r = (f32[9], s32[9]) reduce(a, io, m, z), dimensions={1}, to_apply=argmax
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {9, 17})}));
}

TEST(CpuBackend, IntegerReduceBitExact) {
  const char* kModule = R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  a = s32[5,8,3] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[8] reduce(a, z), dimensions={0,2}, to_apply=add
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {R(S32, {5, 8, 3})}));
}

TEST(CpuBackend, DotThroughGemmAndLoops) {
  const std::string f32 = R"(HloModule m
ENTRY e {
  a = f32[31,17] parameter(0)
  b = f32[17,23] parameter(1)
  c = f32[23,17] parameter(2)
  v = f32[17] parameter(3)
  ab = f32[31,23] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  act = f32[31,23] dot(a, c), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  atb = f32[17,17] dot(a, a), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  av = f32[31] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[31,23], f32[31,23], f32[17,17], f32[31]) tuple(ab, act, atb, av)
})";
  EXPECT_TRUE(SameOnBothBackends(f32, {R(F32, {31, 17}), R(F32, {17, 23}, 2), R(F32, {23, 17}, 3), R(F32, {17}, 4)},
                                 1e-4, 1e-4));
  const std::string f64 = R"(HloModule m
ENTRY e {
  a = f64[8,5] parameter(0)
  b = f64[5,3] parameter(1)
  ROOT ab = f64[8,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  EXPECT_TRUE(SameOnBothBackends(f64, {R(F64, {8, 5}), R(F64, {5, 3}, 2)}, 1e-12, 1e-12));
  const std::string batch = R"(HloModule m
ENTRY e {
  a = s32[3,4,5] parameter(0)
  b = s32[3,5,2] parameter(1)
  ROOT ab = s32[3,4,2] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})";
  EXPECT_TRUE(SameOnBothBackends(batch, {R(S32, {3, 4, 5}), R(S32, {3, 5, 2}, 2)}));
}

TEST(CpuBackend, WhileConditionalCall) {
  const char* kModule = R"(HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[4] broadcast(h), dimensions={}
  v2 = f32[4] add(v, hb)
  ROOT r = (s32[], f32[4]) tuple(i2, v2)
}
double {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}
negate {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
ENTRY e {
  v = f32[4] parameter(0)
  p = pred[] parameter(1)
  k = s32[] parameter(2)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, v)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  wv = f32[4] get-tuple-element(w), index=1
  c = f32[4] conditional(p, wv, wv), true_computation=double, false_computation=negate
  c2 = f32[4] conditional(k, wv, c, v), branch_computations={double, negate, double}
  cl = f32[4] call(c2), to_apply=negate
  ROOT t = (f32[4], f32[4], f32[4], s32[]) tuple(c, c2, cl, k)
})";
  for (bool p : {true, false}) {
    for (int k : {-1, 0, 1, 2, 5}) {
      EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {4}), Literal::CreateR0<bool>(p), Literal::CreateR0<int32_t>(k)}));
    }
  }
}

TEST(CpuBackend, WhileSwappingStateElements) {
  const char* kModule = R"(HloModule m
cond {
  s = (s32[], s32[3], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[3], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = s32[3] get-tuple-element(s), index=1
  b = s32[3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], s32[3], s32[3]) tuple(i2, b, a)
}
ENTRY e {
  a = s32[3] parameter(0)
  b = s32[3] parameter(1)
  z = s32[] constant(0)
  init = (s32[], s32[3], s32[3]) tuple(z, a, b)
  ROOT w = (s32[], s32[3], s32[3]) while(init), condition=cond, body=body
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {L("s32[3] {1, 2, 3}"), L("s32[3] {4, 5, 6}")}));
}

TEST(CpuBackend, LoopAndInputFusions) {
  const char* kModule = R"(HloModule m
fused_gelu {
  x = f32[64,96] parameter(0)
  b = f32[96] parameter(1)
  bb = f32[64,96] broadcast(b), dimensions={1}
  y = f32[64,96] add(x, bb)
  h = f32[] constant(0.5)
  hb = f32[64,96] broadcast(h), dimensions={}
  t = f32[64,96] tanh(y)
  one = f32[] constant(1)
  ob = f32[64,96] broadcast(one), dimensions={}
  s = f32[64,96] add(t, ob)
  hs = f32[64,96] multiply(hb, s)
  ROOT r = f32[64,96] multiply(y, hs)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fused_rowsum {
  x = f32[64,96] parameter(0)
  e = f32[64,96] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[64,96] parameter(0)
  b = f32[96] parameter(1)
  g = f32[64,96] fusion(x, b), kind=kLoop, calls=fused_gelu
  s = f32[64] fusion(g), kind=kInput, calls=fused_rowsum
  ROOT t = (f32[64,96], f32[64]) tuple(g, s)
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {64, 96}), R(F32, {96}, 2)}, 1e-5, 1e-6));
}

TEST(CpuBackend, NonDefaultLayouts) {
  const char* kModule = R"(HloModule m, entry_computation_layout={(f32[3,5]{0,1}, f32[5,3]{1,0})->f32[3,5]{0,1}}
ENTRY e {
  a = f32[3,5]{0,1} parameter(0)
  b = f32[5,3]{1,0} parameter(1)
  t = f32[3,5]{1,0} transpose(b), dimensions={1,0}
  ROOT s = f32[3,5]{0,1} add(a, t)
})";
  EXPECT_TRUE(SameOnBothBackends(kModule, {R(F32, {3, 5}), R(F32, {5, 3}, 2)}));
}

constexpr char kInPlaceModule[] = R"(HloModule m
ENTRY e {
  x = f32[8,8] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  a = f32[8,8] add(x, x)
  d = f32[8,8] dynamic-update-slice(a, u, i, i)
  n = f32[8,8] negate(d)
  d2 = f32[8,8] dynamic-update-slice(x, u, i, i)
  ROOT t = (f32[8,8], f32[8,8]) tuple(n, d2)
})";

TEST(CpuBufferPlan, UpdatesInPlaceAndReusesTemporaries) {
  auto module = ParseAndReturnUnverifiedModule(kInPlaceModule);
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const HloComputation* entry = (*module)->entry_computation();
  const ComputationPlan& cp = *(*plan)->entry;
  // d writes into a's temporary; d2 must not write into the parameter x.
  EXPECT_EQ(cp.slots(entry->GetInstructionWithName("d")), cp.slots(entry->GetInstructionWithName("a")));
  EXPECT_NE(cp.slots(entry->GetInstructionWithName("d2")), cp.slots(entry->GetInstructionWithName("x")));
  // n and d2 are outputs; a/d is the only temporary: one 256-byte block.
  EXPECT_EQ((*plan)->arena_bytes, 256);
  for (int i : {-5, 0, 3, 7}) {
    EXPECT_TRUE(SameOnBothBackends(kInPlaceModule, {R(F32, {8, 8}), R(F32, {2, 3}, 2), Literal::CreateR0<int32_t>(i)}))
        << i;
  }
}

TEST(CpuBufferPlan, DisjointLifetimesShareArenaBytes) {
  auto module = ParseAndReturnUnverifiedModule(R"(HloModule m
ENTRY e {
  x = f32[256] parameter(0)
  a = f32[256] exponential(x)
  b = f32[256] negate(a)
  c = f32[256] exponential(b)
  d = f32[256] negate(c)
  ROOT r = f32[256] exponential(d)
})");
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok());
  // Four 1 KiB temporaries, at most two live at once.
  EXPECT_EQ((*plan)->arena_bytes, 2048);
}

TEST(CpuBackend, CancelStopsARunawayLoop) {
  auto backend = CreateCpuBackend();
  auto module = ParseAndReturnUnverifiedModule(R"(HloModule m
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})");
  ASSERT_TRUE(module.ok());
  auto exe = backend->Compile(*std::move(module), {});
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::atomic<int> polls{0};
  backend::ExecuteOptions options;
  options.should_cancel = [&polls] { return ++polls > 1000; };
  auto result = (*exe)->Execute({}, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_GT(polls.load(), 1000);
}

// Kernels and routines ask whether to stop between parts of a long op, not only between ops
// and loop iterations: a cancelled execution ends within one part (a chunk of an elementwise
// loop, a panel of a large GEMM) and says CANCELLED. The cpu backend polls once before the
// run, so the second poll is the op's own.
TEST(CpuBackend, CancelStopsALongOpMidway) {
  testing::RegisterBackendsOnce();
  xla::testing::ExpectCancelledInsideTheOp("cpu", R"(HloModule m
ENTRY e {
  a = f32[2048,2048] parameter(0)
  b = f32[2048,2048] parameter(1)
  ROOT d = f32[2048,2048] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                                           2);
  xla::testing::ExpectCancelledInsideTheOp("cpu", R"(HloModule m
ENTRY e {
  a = f32[16777216] parameter(0)
  s = f32[16777216] sine(a)
  c = f32[16777216] cosine(s)
  t = f32[16777216] tanh(c)
  ROOT l = f32[16777216] log-plus-one(t)
})",
                                           2);
}

TEST(CpuBackend, ReusesArenaAndRunsRepeatedly) {
  auto backend = CreateCpuBackend();
  auto module = ParseAndReturnUnverifiedModule(R"(HloModule m
ENTRY e {
  a = f32[1024] parameter(0)
  b = f32[1024] exponential(a)
  c = f32[1024] negate(b)
  d = f32[1024] exponential(c)
  ROOT e = f32[1024] negate(d)
})");
  ASSERT_TRUE(module.ok());
  auto exe = backend->Compile(*std::move(module), {});
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal input = R(F32, {1024});
  auto arg = backend->TransferToDevice(input, 0);
  absl::StatusOr<Literal> first;
  for (int i = 0; i < 5; ++i) {
    auto result = (*exe)->Execute({*arg}, {});
    ASSERT_TRUE(result.ok());
    auto literal = backend->TransferFromDevice(**result);
    if (i == 0) first = std::move(literal);
    else EXPECT_EQ(*literal, *first);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
