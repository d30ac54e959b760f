// input_output_alias and donation on cpu: a result lives in its aliased argument's memory
// only when the caller gave that argument up and nobody else holds it; otherwise arguments
// stay untouched. Also while loops updating their state in place. Values are always
// compared with the interpreter.
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/codegen/buffer_plan.h"
#include "backends/cpu/plan_format.h"
#include "backends/cpu/cpu_test_util.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"

namespace xla {
namespace cpu {
namespace {

using xla::testing::L;

Literal R(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  return testing::RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, /*specials=*/false);
}

// A KV-cache style update: two slices written into the aliased cache.
constexpr char kCacheUpdate[] = R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[64,32] parameter(0)
  u = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  d = f32[64,32] dynamic-update-slice(cache, u, i, z)
  n = f32[1,32] negate(u)
  j = s32[] add(i, i)
  ROOT d2 = f32[64,32] dynamic-update-slice(d, n, j, z)
})";

// A result computed after the aliased parameter's last read (a reduce, then a broadcast).
constexpr char kAfterLastRead[] = R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[256] parameter(0)
  zero = f32[] constant(0)
  s = f32[] reduce(p, zero), dimensions={0}, to_apply=add
  ROOT b = f32[256] broadcast(s), dimensions={}
})";

struct Loaded {
  std::unique_ptr<backend::Backend> backend = CreateCpuBackend();
  std::unique_ptr<backend::Executable> executable;
  std::vector<std::shared_ptr<backend::Buffer>> arguments;
};

Loaded Prepare(const std::string& hlo, const std::vector<Literal>& args) {
  Loaded run;
  auto module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status().message();
  auto executable = run.backend->Compile(*std::move(module), backend::CompileOptions());
  EXPECT_TRUE(executable.ok()) << executable.status().message();
  run.executable = *std::move(executable);
  for (const Literal& arg : args) run.arguments.push_back(*run.backend->TransferToDevice(arg, 0));
  return run;
}

std::shared_ptr<backend::Buffer> Execute(Loaded& run, std::vector<int64_t> donated) {
  backend::ExecuteOptions options;
  options.donated_arguments = std::move(donated);
  auto result = run.executable->Execute(run.arguments, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? *result : nullptr;
}

Literal Expected(const std::string& hlo, const std::vector<Literal>& args) {
  testing::RegisterBackendsOnce();
  auto expected = xla::testing::RunHlo(hlo, args, "interpreter");
  EXPECT_TRUE(expected.ok()) << expected.status().message();
  return *std::move(expected);
}

std::vector<Literal> CacheArgs(int32_t i) {
  std::vector<Literal> args;
  args.push_back(R(F32, {64, 32}));
  args.push_back(R(F32, {1, 32}, 2));
  args.push_back(Literal::CreateR0<int32_t>(i));
  return args;
}

TEST(CpuDonation, PlanUpdatesTheAliasedParameterInPlace) {
  auto module = ParseAndReturnUnverifiedModule(kCacheUpdate);
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const HloComputation* entry = (*module)->entry_computation();
  const ComputationPlan& cp = *(*plan)->entry;
  const int cache = cp.slots(entry->parameter_instruction(0)).at(0);
  EXPECT_EQ(cp.slots(entry->GetInstructionWithName("d")).at(0), cache);
  EXPECT_EQ(cp.slots(entry->GetInstructionWithName("d2")).at(0), cache);
  ASSERT_EQ((*plan)->output_aliases.size(), 1u);
  EXPECT_TRUE((*plan)->output_aliases[0].in_place);
  EXPECT_EQ((*plan)->output_slots, std::vector<int>{cache});
}

TEST(CpuDonation, WithoutTheAliasTheParameterIsNeverWritten) {
  std::string hlo = kCacheUpdate;
  hlo.replace(hlo.find(", input_output_alias"), hlo.find('\n') - hlo.find(", input_output_alias"), "");
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok());
  const HloComputation* entry = (*module)->entry_computation();
  EXPECT_NE((*plan)->entry->slots(entry->GetInstructionWithName("d")),
            (*plan)->entry->slots(entry->parameter_instruction(0)));
  EXPECT_TRUE((*plan)->output_aliases.empty());
}

TEST(CpuDonation, DonatedCacheIsUpdatedInItsOwnMemory) {
  for (int32_t i : {0, 5, 31, 63, 100, -3}) {
    const std::vector<Literal> args = CacheArgs(i);
    Loaded run = Prepare(kCacheUpdate, args);
    const void* memory = run.arguments[0]->host_data();
    auto result = Execute(run, {0});
    ASSERT_NE(result, nullptr);
    EXPECT_EQ(result->host_data(), memory) << "the donated cache was copied";
    run.arguments.clear();  // the caller lets go of the donated buffer: the result lives on
    EXPECT_EQ(*run.backend->TransferFromDevice(*result), Expected(kCacheUpdate, args)) << i;
  }
}

TEST(CpuDonation, UndonatedArgumentIsLeftUntouched) {
  const std::vector<Literal> args = CacheArgs(7);
  Loaded run = Prepare(kCacheUpdate, args);
  auto result = Execute(run, {});
  ASSERT_NE(result, nullptr);
  EXPECT_NE(result->host_data(), run.arguments[0]->host_data());
  EXPECT_EQ(*run.backend->TransferFromDevice(*result), Expected(kCacheUpdate, args));
  EXPECT_EQ(*run.backend->TransferFromDevice(*run.arguments[0]), args[0]);
}

TEST(CpuDonation, DonatedArgumentSomeoneStillHoldsIsLeftUntouched) {
  const std::vector<Literal> args = CacheArgs(9);
  Loaded run = Prepare(kCacheUpdate, args);
  std::shared_ptr<backend::Buffer> reader = run.arguments[0];  // e.g. a download in flight
  auto result = Execute(run, {0});
  ASSERT_NE(result, nullptr);
  EXPECT_NE(result->host_data(), reader->host_data());
  EXPECT_EQ(*run.backend->TransferFromDevice(*result), Expected(kCacheUpdate, args));
  EXPECT_EQ(*run.backend->TransferFromDevice(*reader), args[0]);
}

TEST(CpuDonation, ResultAfterTheLastReadTakesTheDonatedMemory) {
  auto module = ParseAndReturnUnverifiedModule(kAfterLastRead);
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ((*plan)->output_aliases.size(), 1u);
  EXPECT_FALSE((*plan)->output_aliases[0].in_place);
  EXPECT_EQ((*plan)->slots[(*plan)->output_aliases[0].result_slot].kind, SlotKind::kShared);

  std::vector<Literal> args;
  args.push_back(R(F32, {256}));
  const Literal expected = Expected(kAfterLastRead, args);
  Loaded donated = Prepare(kAfterLastRead, args);
  const void* memory = donated.arguments[0]->host_data();
  auto result = Execute(donated, {0});
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->host_data(), memory);
  EXPECT_TRUE(xla::testing::LiteralNear(expected, *donated.backend->TransferFromDevice(*result), 1e-5, 1e-5));
  Loaded kept = Prepare(kAfterLastRead, args);
  result = Execute(kept, {});
  ASSERT_NE(result, nullptr);
  EXPECT_NE(result->host_data(), kept.arguments[0]->host_data());
  EXPECT_TRUE(xla::testing::LiteralNear(expected, *kept.backend->TransferFromDevice(*result), 1e-5, 1e-5));
  EXPECT_EQ(*kept.backend->TransferFromDevice(*kept.arguments[0]), args[0]);
}

TEST(CpuDonation, ParameterReturnedAsIsCostsNoCopy) {
  constexpr char kPassThrough[] = R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  p = f32[128] parameter(0)
  q = f32[128] parameter(1)
  n = f32[128] negate(q)
  ROOT t = (f32[128], f32[128]) tuple(p, n)
})";
  std::vector<Literal> args;
  args.push_back(R(F32, {128}));
  args.push_back(R(F32, {128}, 2));
  Loaded run = Prepare(kPassThrough, args);
  const void* memory = run.arguments[0]->host_data();
  auto result = Execute(run, {0});
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->tuple_elements()[0]->host_data(), memory);
  EXPECT_EQ(*run.backend->TransferFromDevice(*result), Expected(kPassThrough, args));
}

// Aliases the planner must not use (or only partly), checked for values and for arguments
// left intact when not donated.
TEST(CpuDonation, UnusableAliasesStillGiveTheRightValues) {
  const std::vector<std::pair<std::string, std::vector<Literal>>> cases = [] {
    std::vector<std::pair<std::string, std::vector<Literal>>> out;
    std::vector<Literal> two;
    two.push_back(R(F32, {16}));
    two.push_back(R(F32, {16}, 2));
    // Swapped results, each aliasing the other's argument.
    out.emplace_back(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  ROOT t = (f32[16], f32[16]) tuple(b, a)
})", std::move(two));
    // The parameter read and written by one elementwise op, and also returned.
    std::vector<Literal> one;
    one.push_back(R(F32, {16}));
    out.emplace_back(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  a = f32[16] parameter(0)
  s = f32[16] add(a, a)
  ROOT t = (f32[16], f32[16]) tuple(s, a)
})", std::move(one));
    // A tuple parameter: its second leaf updated in place, the first passed through.
    std::vector<Literal> tuple;
    std::vector<Literal> leaves;
    leaves.push_back(R(S32, {4}));
    leaves.push_back(R(F32, {8, 4}, 3));
    tuple.push_back(Literal::MakeTuple(std::move(leaves)));
    tuple.push_back(R(F32, {1, 4}, 4));
    out.emplace_back(R"(HloModule m, input_output_alias={ {0}: (0, {0}, may-alias), {1}: (0, {1}, must-alias) }
ENTRY e {
  p = (s32[4], f32[8,4]) parameter(0)
  u = f32[1,4] parameter(1)
  a = s32[4] get-tuple-element(p), index=0
  c = f32[8,4] get-tuple-element(p), index=1
  i = s32[] constant(6)
  z = s32[] constant(0)
  d = f32[8,4] dynamic-update-slice(c, u, i, z)
  ROOT t = (s32[4], f32[8,4]) tuple(a, d)
})", std::move(tuple));
    // The cache read again after the update: the update cannot go in place.
    std::vector<Literal> reread = CacheArgs(3);
    out.emplace_back(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[64,32] parameter(0)
  u = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  d = f32[64,32] dynamic-update-slice(cache, u, i, z)
  n = f32[64,32] negate(cache)
  ROOT t = (f32[64,32], f32[64,32]) tuple(d, n)
})", std::move(reread));
    return out;
  }();
  for (const auto& [hlo, args] : cases) {
    const Literal expected = Expected(hlo, args);
    for (bool donate : {false, true}) {
      Loaded run = Prepare(hlo, args);
      std::vector<int64_t> donated;
      if (donate) {
        for (size_t i = 0; i < args.size(); ++i) donated.push_back(static_cast<int64_t>(i));
      }
      auto result = Execute(run, donated);
      ASSERT_NE(result, nullptr) << hlo;
      if (!donate) {
        for (size_t i = 0; i < args.size(); ++i) {
          EXPECT_EQ(*run.backend->TransferFromDevice(*run.arguments[i]), args[i]) << hlo;
        }
      }
      run.arguments.clear();
      EXPECT_EQ(*run.backend->TransferFromDevice(*result), expected) << hlo << " donated: " << donate;
    }
  }
}

TEST(CpuDonation, RelaidOutDonatedArgumentIsStillRight) {
  constexpr char kColumnMajor[] = R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  c = f32[8,4]{1,0} parameter(0)
  u = f32[1,4] parameter(1)
  i = s32[] constant(2)
  z = s32[] constant(0)
  ROOT d = f32[8,4]{1,0} dynamic-update-slice(c, u, i, z)
})";
  std::vector<Literal> args;
  args.push_back(*R(F32, {8, 4}).Relayout(Layout({0, 1})));
  args.push_back(R(F32, {1, 4}, 2));
  Loaded run = Prepare(kColumnMajor, args);
  auto result = Execute(run, {0});
  ASSERT_NE(result, nullptr);
  run.arguments.clear();
  EXPECT_TRUE(xla::testing::LiteralEqual(Expected(kColumnMajor, args), *run.backend->TransferFromDevice(*result)));
}

TEST(CpuDonation, SerializedPlanKeepsItsAliases) {
  const std::vector<Literal> args = CacheArgs(4);
  Loaded run = Prepare(kCacheUpdate, args);
  auto bytes = run.backend->SerializeExecutable(*run.executable);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto loaded = run.backend->DeserializeExecutable(*bytes, 0);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  run.executable = *std::move(loaded);
  const void* memory = run.arguments[0]->host_data();
  auto result = Execute(run, {0});
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->host_data(), memory);
  run.arguments.clear();
  EXPECT_EQ(*run.backend->TransferFromDevice(*result), Expected(kCacheUpdate, args));
}

// Serialized plans whose aliases do not hang together are refused by name: each breakage of
// a good plan's alias or shared slot.
TEST(CpuDonation, MalformedSerializedAliasesAreRefused) {
  auto module = ParseAndReturnUnverifiedModule(kAfterLastRead);
  ASSERT_TRUE(module.ok());
  auto good = PlanBuffers(**module);
  ASSERT_TRUE(good.ok());
  ASSERT_EQ((*good)->output_aliases.size(), 1u);
  ASSERT_TRUE(DecodeRuntimePlan(EncodeRuntimePlan(**good)).ok());
  const int shared = (*good)->output_aliases[0].result_slot;
  const std::pair<const char*, std::function<void(BufferPlan*)>> breakages[] = {
      {"output alias 0 is malformed", [](BufferPlan* p) { p->output_aliases[0].in_place = true; }},
      {"output alias 0 is malformed", [](BufferPlan* p) { p->output_aliases[0].output_leaf = 1; }},
      {"aliased result leaf 3 is out of range", [](BufferPlan* p) { p->output_aliases[0].output_leaf = 3; }},
      {"output alias 1 is malformed", [](BufferPlan* p) { p->output_aliases.push_back(p->output_aliases[0]); }},
      {"shared slot", [shared](BufferPlan* p) { p->slots[shared].index = shared; }},
      {"result leaf 0 has no output slot", [](BufferPlan* p) { p->output_aliases.clear(); }},
  };
  for (const auto& [message, breakage] : breakages) {
    auto plan = PlanBuffers(**module);
    ASSERT_TRUE(plan.ok());
    breakage(plan->get());
    auto decoded = DecodeRuntimePlan(EncodeRuntimePlan(**plan));
    ASSERT_FALSE(decoded.ok()) << message;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(decoded.status().message()).find(message), std::string::npos) << decoded.status();
  }
}

TEST(CpuDonation, VerifierRefusesConflictingAliases) {
  const std::pair<const char*, const char*> cases[] = {
      {"{0}: (0, {}, may-alias), {1}: (0, {}, may-alias)", "parameter 0 index {} is aliased more than once"},
      {"{0}: (0, {}, may-alias), {0}: (1, {}, may-alias)", "output {0} is aliased more than once"},
      {"{1}: (2, {}, may-alias)", "differ in size"},
  };
  for (const auto& [aliases, message] : cases) {
    const std::string hlo = absl::StrCat("HloModule m, input_output_alias={ ", aliases, R"( }
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[5] parameter(2)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
})");
    auto module = ParseAndReturnUnverifiedModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status().message();
    absl::Status status = VerifyHloModule(**module);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << aliases;
    EXPECT_NE(std::string(status.message()).find(message), std::string::npos) << status.message();
  }
}

// A decoding loop: each iteration writes one row of the cache (twice: a chain of updates).
constexpr char kDecodeLoop[] = R"(HloModule m
cond {
  s = (s32[], f32[16,8], f32[1,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16,8], f32[1,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  cache = f32[16,8] get-tuple-element(s), index=1
  x = f32[1,8] get-tuple-element(s), index=2
  z = s32[] constant(0)
  d = f32[16,8] dynamic-update-slice(cache, x, i, z)
  y = f32[1,8] negate(x)
  d2 = f32[16,8] dynamic-update-slice(d, y, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = f32[] constant(0.5)
  cb = f32[1,8] broadcast(c), dimensions={}
  x2 = f32[1,8] add(x, cb)
  ROOT t = (s32[], f32[16,8], f32[1,8]) tuple(i2, d2, x2)
}
ENTRY e {
  cache = f32[16,8] parameter(0)
  x = f32[1,8] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[16,8], f32[1,8]) tuple(z, cache, x)
  ROOT w = (s32[], f32[16,8], f32[1,8]) while(init), condition=cond, body=body
})";

TEST(CpuInPlace, WhileBodyUpdatesItsStateInPlace) {
  auto module = ParseAndReturnUnverifiedModule(kDecodeLoop);
  ASSERT_TRUE(module.ok());
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const HloInstruction* w = (*module)->entry_computation()->root_instruction();
  const ComputationPlan& body = *(*plan)->entry->callees.at(w).at(1);
  const HloComputation* b = w->while_body();
  const int state = (*plan)->entry->slots(w).at(1);
  EXPECT_EQ(body.slots(b->GetInstructionWithName("d")).at(0), state);
  EXPECT_EQ(body.slots(b->GetInstructionWithName("d2")).at(0), state);
  std::vector<Literal> args;
  args.push_back(R(F32, {16, 8}));
  args.push_back(R(F32, {1, 8}, 2));
  EXPECT_TRUE(testing::SameOnBothBackends(kDecodeLoop, args));
}

// Bodies that use the state leaf otherwise must not update it in place.
TEST(CpuInPlace, WhileStateReadElsewhereIsCopied) {
  const std::pair<const char*, const char*> variants[] = {
      // The old cache is read after the update.
      {"ROOT t = (s32[], f32[16,8], f32[1,8]) tuple(i2, d2, x2)",
       "r = f32[1,8] slice(cache), slice={[3:4], [0:8]}\n  x3 = f32[1,8] add(x2, r)\n"
       "  ROOT t = (s32[], f32[16,8], f32[1,8]) tuple(i2, d2, x3)"},
      // The updated cache goes to no state leaf of its own.
      {"ROOT t = (s32[], f32[16,8], f32[1,8]) tuple(i2, d2, x2)",
       "ROOT t = (s32[], f32[16,8], f32[1,8]) tuple(i2, cache, x2)\n  unused = f32[16,8] negate(d2)"},
  };
  for (const auto& [from, to] : variants) {
    std::string hlo = kDecodeLoop;
    hlo.replace(hlo.find(from), std::string(from).size(), to);
    auto module = ParseAndReturnUnverifiedModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status().message() << hlo;
    auto plan = PlanBuffers(**module);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const HloInstruction* w = (*module)->entry_computation()->root_instruction();
    const ComputationPlan& body = *(*plan)->entry->callees.at(w).at(1);
    EXPECT_NE(body.slots(w->while_body()->GetInstructionWithName("d")).at(0), (*plan)->entry->slots(w).at(1)) << hlo;
    std::vector<Literal> args;
    args.push_back(R(F32, {16, 8}));
    args.push_back(R(F32, {1, 8}, 2));
    EXPECT_TRUE(testing::SameOnBothBackends(hlo, args)) << hlo;
  }
}

// Temporaries inside loop bodies and branches share arena bytes by their live ranges within
// one iteration; the loop state (read in every iteration) stays live through the loop.
constexpr char kLoopTemporaries[] = R"(HloModule m
less {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT lt = pred[] compare(p0, p1), direction=LT
}
inner_cond {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
inner_body {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[1024] get-tuple-element(s), index=1
  a = f32[1024] abs(v)
  b = f32[1024] add(a, v)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[1024]) tuple(i2, b)
}
neg {
  p = f32[1024] parameter(0)
  q = f32[1024] negate(p)
  ROOT r = f32[1024] maximum(p, q)
}
same {
  p = f32[1024] parameter(0)
  ROOT r = f32[1024] subtract(p, p)
}
cond {
  s = (s32[], f32[1024], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1024], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1024] get-tuple-element(s), index=1
  y = f32[1024] get-tuple-element(s), index=2
  a = f32[1024] negate(x)
  b = f32[1024] sort(a), dimensions={0}, to_apply=less
  c = f32[1024] multiply(b, y)
  zero = s32[] constant(0)
  init = (s32[], f32[1024]) tuple(zero, c)
  w = (s32[], f32[1024]) while(init), condition=inner_cond, body=inner_body
  d = f32[1024] get-tuple-element(w), index=1
  two = s32[] constant(2)
  r = s32[] remainder(i, two)
  e = f32[1024] conditional(r, d, d), branch_computations={neg, same}
  f = f32[1024] add(e, e)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[1024], f32[1024]) tuple(i2, f, x)
}
ENTRY e {
  x = f32[1024] parameter(0)
  y = f32[1024] parameter(1)
  before = f32[1024] negate(x)
  z = s32[] constant(0)
  init = (s32[], f32[1024], f32[1024]) tuple(z, before, y)
  w = (s32[], f32[1024], f32[1024]) while(init), condition=cond, body=body
  o = f32[1024] get-tuple-element(w), index=1
  after = f32[1024] multiply(o, o)
  ROOT out = f32[1024] add(after, y)
})";

TEST(CpuInPlace, LoopTemporariesShareTheArena) {
  auto module = ParseAndReturnUnverifiedModule(kLoopTemporaries);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto plan = PlanBuffers(**module);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  int64_t temporaries = 0;
  for (const Slot& slot : (*plan)->slots) temporaries += slot.kind == SlotKind::kTemp ? 1 : 0;
  // Each 4 KiB temporary its own bytes would take temporaries x 4 KiB; by live ranges the
  // loop's body needs a handful at once.
  EXPECT_GE(temporaries, 12);
  EXPECT_LE((*plan)->arena_bytes, 8 * 4096) << temporaries << " temporaries";
  // The loop state is read in every iteration: no value of the body shares its bytes.
  const HloInstruction* w = (*module)->entry_computation()->GetInstructionWithName("w");
  const ComputationPlan& body = *(*plan)->entry->callees.at(w).at(1);
  const auto& state = (*plan)->entry->slots(w);
  auto overlap = [&](int a, int b) {
    const Slot& x = (*plan)->slots[a];
    const Slot& y = (*plan)->slots[b];
    return x.kind == SlotKind::kTemp && y.kind == SlotKind::kTemp && x.offset < y.offset + y.bytes &&
           y.offset < x.offset + x.bytes;
  };
  for (const auto& [hlo, slots] : body.values) {
    for (int s : slots) {
      if (std::find(state.begin(), state.end(), s) != state.end()) continue;
      for (int t : state) EXPECT_FALSE(overlap(s, t)) << hlo->name() << " shares bytes with the loop state";
    }
  }
  std::vector<Literal> args;
  args.push_back(R(F32, {1024}));
  args.push_back(R(F32, {1024}, 2));
  EXPECT_TRUE(testing::SameOnBothBackends(kLoopTemporaries, args));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
