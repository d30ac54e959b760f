// while, conditional and call in gpu plans: building, validation, serialization (any machine),
// and execution on the fake driver (testing/fake_libcuda.cc) with a launch handler standing
// in for the device: it computes each launched kernel's instruction with the interpreter's
// handler, on the fake device memory (host memory). So what these tests check is the
// runtime's part of control flow (the host loop, the predicate and index read back, branch
// selection, buffers passed between sequences), not the kernels' code, which only a GPU runs
// (gpu_device_test.cc, tests/gpu/device_check.sh). The shared curated modules run the same
// way, for the runtime's straight-line bookkeeping.

#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/executable_format.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/loop_trip_count.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/interpreter/device_state.h"
#include "backends/interpreter/evaluator.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using ::xla::testing::L;
using ::xla::testing::LiteralNear;
namespace modules = ::xla::gpu::testing;

int DeviceToHostCopies() { return FakeCudaCount("xla_fake_cuda_device_to_host_copies"); }
using LaunchHandler = int (*)(const char*, void**, void*);
void SetLaunchHandler(LaunchHandler handler, void* context) {
  auto set = FakeCudaHook<void (*)(LaunchHandler, void*)>("xla_fake_cuda_set_launch_handler");
  if (set != nullptr) set(handler, context);
}

std::unique_ptr<backend::Backend> FakeBackend() {
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  EXPECT_TRUE(driver.ok()) << driver.status();
  if (!driver.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(*driver, CompileGpuPlan);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *std::move(b) : nullptr;
}

absl::StatusOr<GpuPlan> Compile(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) return module.status();
  return CompileGpuPlan(*std::move(module), GpuTarget{});
}

// The step of `sequence` computing the instruction of `opcode` (the first one).
const GpuPlanStep* FindStep(const GpuSequence& sequence, HloOpcode opcode) {
  for (const GpuPlanStep& s : sequence.steps) {
    if (s.hlo->opcode() == opcode) return &s;
  }
  return nullptr;
}

// The device, played by the host: the kernels of a plan, by name, computed by the
// interpreter's handlers on the arrays the launch's parameters point to.
struct StandIn {
  GpuPlan plan;  // a copy of the loaded plan (same names), for the kernels' instructions
  absl::flat_hash_map<std::string, const HloInstruction*> kernels;
  interpreter::DeviceState device{0};
  int kernels_run = 0;
  std::string error;
  // Each rng kernel launched: its instruction's name and the key after its output array.
  std::vector<std::pair<std::string, uint64_t>> rng_keys;
};

int RunKernelOnHost(const char* kernel, void** params, void* context) {
  auto* standin = static_cast<StandIn*>(context);
  auto it = standin->kernels.find(kernel);
  if (it == standin->kernels.end()) {
    standin->error = std::string("unknown kernel ") + kernel;
    return 1;
  }
  if (it->second == nullptr) return 0;  // a later launch (GpuPlanStep::phases)
  const HloInstruction& hlo = *it->second;
  if (hlo.opcode() == HloOpcode::kRng) {
    const CUdeviceptr out = *static_cast<CUdeviceptr*>(params[0]);
    uint64_t key = 0;
    std::memcpy(&key, reinterpret_cast<const void*>(out + RngKernelKeyOffset(hlo.shape())), sizeof(key));
    standin->rng_keys.emplace_back(hlo.name(), key);
  }
  // A tuple result (sort, scatter of several operands) has a pointer per element first.
  const int64_t outputs = hlo.shape().IsTuple() ? static_cast<int64_t>(hlo.shape().tuple_shapes().size()) : 1;
  std::vector<Literal> operands;
  std::vector<const Literal*> pointers;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    absl::StatusOr<Literal> operand = Literal::Create(hlo.operand(i)->shape());
    if (!operand.ok()) {
      standin->error = operand.status().ToString();
      return 1;
    }
    const CUdeviceptr address = *static_cast<CUdeviceptr*>(params[i + outputs]);
    if (operand->size_bytes() > 0) {
      std::memcpy(operand->untyped_data(), reinterpret_cast<const void*>(address), operand->size_bytes());
    }
    operands.push_back(*std::move(operand));
  }
  for (const Literal& operand : operands) pointers.push_back(&operand);
  interpreter::Evaluator evaluator(&standin->device);
  interpreter::EvalContext ctx{&evaluator, &standin->device};
  const interpreter::OpHandler* handler = interpreter::GlobalHandlerTable().Find(hlo.opcode());
  absl::StatusOr<Literal> result = absl::UnimplementedError(hlo.name());
  if (handler != nullptr) result = (*handler)(ctx, hlo, pointers);
  if (result.ok() && result->shape().has_layout() && hlo.shape().has_layout() &&
      result->shape().layout().minor_to_major() != hlo.shape().layout().minor_to_major()) {
    result = result->Relayout(hlo.shape().layout());
  }
  if (!result.ok()) {
    standin->error = result.status().ToString();
    return 1;
  }
  for (int64_t o = 0; o < outputs; ++o) {
    const Literal& part = hlo.shape().IsTuple() ? result->tuple_element(o) : *result;
    const CUdeviceptr out = *static_cast<CUdeviceptr*>(params[o]);
    if (part.size_bytes() > 0) std::memcpy(reinterpret_cast<void*>(out), part.untyped_data(), part.size_bytes());
  }
  ++standin->kernels_run;
  return 0;
}

// Compiles `text`, loads it on the fake device 0 through its serialized form and runs it on
// `args` with the host standing in for the kernels.
absl::StatusOr<Literal> RunWithStandIn(backend::Backend& b, const std::string& text, const std::vector<Literal>& args,
                                       StandIn* standin, const backend::ExecuteOptions& options = {}) {
  absl::StatusOr<GpuPlan> plan = Compile(text);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(*plan);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<GpuPlan> copy = DeserializeGpuPlan(*bytes);
  if (!copy.ok()) return copy.status();
  standin->plan = *std::move(copy);
  for (const GpuSequence& q : standin->plan.sequences) {
    for (const GpuPlanStep& s : q.steps) {
      if (s.kind != GpuPlanStep::Kind::kKernel) continue;
      standin->kernels[s.kernel] = s.hlo;
      // The first launch computes the whole value here; the later ones have nothing to add.
      for (size_t p = 1; p <= s.phases.size(); ++p) standin->kernels[PhaseEntry(s.kernel, p)] = nullptr;
    }
  }
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b.DeserializeExecutable(*bytes, 0);
  if (!exe.ok()) return exe.status();
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b.TransferToDevice(arg, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*buffer);
  }
  SetLaunchHandler(&RunKernelOnHost, standin);
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute(buffers, options);
  SetLaunchHandler(nullptr, nullptr);
  if (!standin->error.empty()) return absl::InternalError(standin->error);
  if (!out.ok()) return out.status();
  return b.TransferFromDevice(**out);
}


// The control-flow modules compute sines: libdevice's (ptx_emitter.h).
bool HaveLibdevice() { return std::ifstream(LibdevicePath()).good(); }
#define SKIP_WITHOUT_LIBDEVICE() \
  if (!HaveLibdevice()) GTEST_SKIP() << "no libdevice at " << LibdevicePath()

absl::StatusOr<Literal> Interpret(const std::string& text, const std::vector<Literal>& args) {
  backend::RegisterBuiltinBackends();
  return ::xla::testing::RunHlo(text, args, "interpreter");
}

TEST(GpuControlFlowTest, WhileAndConditionalBodiesBecomeSequencesThatSerialize) {
  SKIP_WITHOUT_LIBDEVICE();
  absl::StatusOr<GpuPlan> plan = Compile(modules::kWhileModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // entry, the loop's condition and body, the body's two branches: a sequence each.
  ASSERT_EQ(plan->sequences.size(), 5u);
  const GpuPlanStep* loop = FindStep(plan->entry(), HloOpcode::kWhile);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->kind, GpuPlanStep::Kind::kWhile);
  ASSERT_EQ(loop->callees.size(), 2u);
  EXPECT_EQ(plan->sequences[loop->callees[0]].computation, loop->hlo->while_condition());
  const GpuSequence& body = plan->sequences[loop->callees[1]];
  EXPECT_EQ(body.computation, loop->hlo->while_body());
  const GpuPlanStep* branch = FindStep(body, HloOpcode::kConditional);
  ASSERT_NE(branch, nullptr);
  EXPECT_EQ(branch->kind, GpuPlanStep::Kind::kConditional);
  EXPECT_EQ(branch->callees.size(), 2u);
  int kernels = 0;
  for (const GpuSequence& q : plan->sequences) {
    for (const GpuPlanStep& s : q.steps) kernels += s.kind == GpuPlanStep::Kind::kKernel;
  }
  EXPECT_GE(kernels, 4) << "the condition, the counter, both branches";
  // After the pipeline the loop still reads as counted (10 iterations): the runtime runs its
  // body 10 times without reading the condition back.
  EXPECT_EQ(KnownTripCount(*loop->hlo), 10) << HloModuleToString(*plan->module);
  absl::StatusOr<GpuPlan> data_dependent = Compile(modules::kDataDependentWhileModule);
  ASSERT_TRUE(data_dependent.ok()) << data_dependent.status();
  const GpuPlanStep* until = FindStep(data_dependent->entry(), HloOpcode::kWhile);
  ASSERT_NE(until, nullptr);
  EXPECT_EQ(KnownTripCount(*until->hlo), std::nullopt);

  absl::StatusOr<std::string> bytes = SerializeGpuPlan(*plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->sequences.size(), plan->sequences.size());
  for (size_t q = 0; q < plan->sequences.size(); ++q) {
    EXPECT_EQ(back->sequences[q].computation->name(), plan->sequences[q].computation->name());
    ASSERT_EQ(back->sequences[q].steps.size(), plan->sequences[q].steps.size());
    for (size_t i = 0; i < plan->sequences[q].steps.size(); ++i) {
      EXPECT_EQ(back->sequences[q].steps[i].callees, plan->sequences[q].steps[i].callees);
      EXPECT_EQ(back->sequences[q].steps[i].kind, plan->sequences[q].steps[i].kind);
    }
  }
  absl::StatusOr<std::string> again = SerializeGpuPlan(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);
}

// Each consistency check on control flow refuses a plan broken that way, by name.
TEST(GpuControlFlowTest, InconsistentControlFlowIsRefused) {
  SKIP_WITHOUT_LIBDEVICE();
  auto fresh = [] {
    absl::StatusOr<GpuPlan> plan = Compile(modules::kWhileModule);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  };
  ASSERT_TRUE(ValidateGpuPlan(fresh()).ok());
  auto loop = [](GpuPlan& p) -> GpuPlanStep& { return *const_cast<GpuPlanStep*>(FindStep(p.entry(), HloOpcode::kWhile)); };
  auto branch = [&](GpuPlan& p) -> GpuPlanStep& {
    return *const_cast<GpuPlanStep*>(FindStep(p.sequences[loop(p).callees[1]], HloOpcode::kConditional));
  };
  struct Breakage {
    const char* what;
    std::function<void(GpuPlan&)> apply;
  };
  const std::vector<Breakage> breakages = {
      {"calls sequence 0, which is not a later one", [&](GpuPlan& p) { loop(p).callees[0] = 0; }},
      {"calls sequence 9, which is not a later one", [&](GpuPlan& p) { loop(p).callees[1] = 9; }},
      {"does not call its computations", [&](GpuPlan& p) { std::swap(loop(p).callees[0], loop(p).callees[1]); }},
      {"does not call its computations", [&](GpuPlan& p) { loop(p).callees.pop_back(); }},
      {"is not a while with a pred[] condition", [&](GpuPlan& p) { branch(p).kind = GpuPlanStep::Kind::kWhile; }},
      {"is not a conditional on a pred[] or s32[]", [&](GpuPlan& p) { loop(p).kind = GpuPlanStep::Kind::kConditional; }},
      {"is not a call", [&](GpuPlan& p) { loop(p).kind = GpuPlanStep::Kind::kCall; }},
      {"is called from 0 steps, not one", [](GpuPlan& p) { p.sequences.push_back(p.sequences[1]); }},
      {"runs the entry computation", [](GpuPlan& p) { p.sequences[1].computation = p.module->entry_computation(); }},
      {"step 0 of sequence 1 is not in", [](GpuPlan& p) { p.sequences[1].steps[0].hlo = p.entry().steps[0].hlo; }},
      {"the root of sequence 2 has no step", [](GpuPlan& p) { p.sequences[2].root = 0; }},
  };
  for (const Breakage& b : breakages) {
    GpuPlan plan = fresh();
    b.apply(plan);
    absl::Status s = ValidateGpuPlan(plan);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << b.what << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(b.what)) << s;
  }
}

TEST(GpuControlFlowTest, PlansOfAnotherFormatVersionAreRefused) {
  SKIP_WITHOUT_LIBDEVICE();
  absl::StatusOr<GpuPlan> plan = Compile(modules::kConditionalModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(*plan);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<backend::ExecutableFields> fields = backend::ReadExecutableContainer(*bytes);
  ASSERT_TRUE(fields.ok()) << fields.status();
  backend::ExecutableFields newer = *fields;
  newer.Set("plan_version", std::to_string(kGpuPlanFormatVersion + 1));
  absl::StatusOr<GpuPlan> refused = DeserializeGpuPlan(backend::WriteExecutableContainer(newer));
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr(absl::StrCat("version ", kGpuPlanFormatVersion + 1)));
  // Version 2 and 3 plans are newer plans without the newer kinds: still read.
  for (const char* older_version : {"2", "3"}) {
    backend::ExecutableFields v = *fields;
    v.Set("plan_version", older_version);
    EXPECT_TRUE(DeserializeGpuPlan(backend::WriteExecutableContainer(v)).ok()) << older_version;
  }
  // The first plans had no version (and one sequence).
  backend::ExecutableFields older;
  for (const auto& [name, value] : fields->all()) {
    if (name != "plan_version") older.Set(name, value);
  }
  refused = DeserializeGpuPlan(backend::WriteExecutableContainer(older));
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("version 1"));
}

TEST(GpuControlFlowTest, WhileLoopsRunOnTheHostReadingOnePredicatePerIterationUnlessCounted) {
  SKIP_WITHOUT_LIBDEVICE();
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {1000}, 7));
  absl::StatusOr<Literal> expected = Interpret(modules::kWhileModule, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  StandIn standin;
  const int copies = DeviceToHostCopies();
  absl::StatusOr<Literal> actual = RunWithStandIn(*b, modules::kWhileModule, args, &standin);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(LiteralNear(*expected, actual, 1e-6, 1e-6));
  // A counted loop: no predicate read back (nor its kernel run); 10 branch indices and the
  // result.
  EXPECT_EQ(DeviceToHostCopies() - copies, 10 + 1);
  EXPECT_GE(standin.kernels_run, 10 + 10);

  // A trip count that depends on the data: the loop halves x until max |x| <= 0.01.
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<Literal> xs;
    xs.push_back(modules::RandomLiteral(F32, {1000}, seed));
    absl::StatusOr<Literal> want = Interpret(modules::kDataDependentWhileModule, xs);
    ASSERT_TRUE(want.ok()) << want.status();
    StandIn s;
    const int before = DeviceToHostCopies();
    absl::StatusOr<Literal> got = RunWithStandIn(*b, modules::kDataDependentWhileModule, xs, &s);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(LiteralNear(*want, got, 1e-6, 0)) << seed;
    const int64_t iterations = got->tuple_element(1).GetAsInt64(0);
    EXPECT_GT(iterations, 3);
    EXPECT_GE(DeviceToHostCopies() - before, iterations + 1) << "a predicate per test";
  }
  // Zero iterations: the loop's state passes through.
  std::vector<Literal> zeros;
  zeros.push_back(*Literal::Create(ShapeUtil::MakeShape(F32, {1000})));
  StandIn none;
  absl::StatusOr<Literal> same = RunWithStandIn(*b, modules::kDataDependentWhileModule, zeros, &none);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->tuple_element(1).GetAsInt64(0), 0);
}

// A fori_loop whose bounds are traced (the caller's start and bound, the bound carried
// through the state): the host reads the two once, not a predicate per iteration.
TEST(GpuControlFlowTest, LoopsWithBoundsInTheirStateReadThemOnce) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  constexpr char kTraced[] = R"(HloModule traced
cond {
  p = (s32[], s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT go = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  x = f32[64] get-tuple-element(p), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  half = f32[] constant(0.5)
  h = f32[64] broadcast(half), dimensions={}
  y = f32[64] multiply(x, h)
  z = f32[64] add(y, h)
  ROOT t = (s32[], s32[], f32[64]) tuple(next, n, z)
}
ENTRY main {
  first = s32[] parameter(0)
  n = s32[] parameter(1)
  x = f32[64] parameter(2)
  init = (s32[], s32[], f32[64]) tuple(first, n, x)
  w = (s32[], s32[], f32[64]) while(init), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=2
})";
  for (const auto& [first, bound] : std::vector<std::pair<int32_t, int32_t>>{{0, 12}, {5, 40}, {7, 7}, {9, -3}}) {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<int32_t>(first));
    args.push_back(Literal::CreateR0<int32_t>(bound));
    args.push_back(modules::RandomLiteral(F32, {64}, 3));
    absl::StatusOr<Literal> expected = Interpret(kTraced, args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    StandIn standin;
    const int copies = DeviceToHostCopies();
    absl::StatusOr<Literal> actual = RunWithStandIn(*b, kTraced, args, &standin);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(LiteralNear(*expected, actual, 1e-6, 1e-6)) << first << " to " << bound;
    EXPECT_EQ(DeviceToHostCopies() - copies, 2 + 1) << "the start and the bound, then the result";
  }
}

TEST(GpuControlFlowTest, ConditionalsRunTheBranchTheirIndexOrPredicatePicks) {
  SKIP_WITHOUT_LIBDEVICE();
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  // k % 3 in -2..2: branches 0, 1, 2, and negative indices (out of range: the last branch).
  for (int k : {0, 1, 2, 4, -1, -5}) {
    for (bool flag : {true, false}) {
      std::vector<Literal> args;
      args.push_back(L("s32[] " + std::to_string(k)));
      args.push_back(modules::RandomLiteral(F32, {1000}, 11));
      args.push_back(L(flag ? "pred[] true" : "pred[] false"));
      absl::StatusOr<Literal> expected = Interpret(modules::kConditionalModule, args);
      ASSERT_TRUE(expected.ok()) << expected.status();
      StandIn standin;
      absl::StatusOr<Literal> actual = RunWithStandIn(*b, modules::kConditionalModule, args, &standin);
      ASSERT_TRUE(actual.ok()) << actual.status();
      EXPECT_TRUE(LiteralNear(*expected, actual, 1e-6, 0)) << "k=" << k << " flag=" << flag;
    }
  }
}

// A plan written by hand for `entry {p = parameter(0); ROOT call(p)}` calling `callee`, whose
// parameters are `params` and whose root is a tuple of those parameters' steps `root` (the
// pipeline inlines calls, so no compiled plan has one). No kernel.
GpuPlan HandWrittenCallPlan(std::unique_ptr<HloModule> module, const std::string& callee_name,
                            const std::vector<std::string>& params, const std::vector<int>& root) {
  GpuPlan plan;
  plan.module = std::move(module);
  const HloComputation* entry = plan.module->entry_computation();
  const HloComputation* called = plan.module->GetComputationWithName(callee_name);
  EXPECT_NE(called, nullptr);
  GpuSequence main;
  main.computation = entry;
  main.steps.push_back({GpuPlanStep::Kind::kParameter, entry->GetInstructionWithName("p"), {}, 0});
  GpuPlanStep call{GpuPlanStep::Kind::kCall, entry->root_instruction(), {0}};
  call.callees = {1};
  main.steps.push_back(call);
  main.root = 1;
  GpuSequence callee;
  callee.computation = called;
  for (size_t i = 0; i < params.size(); ++i) {
    callee.steps.push_back(
        {GpuPlanStep::Kind::kParameter, called->GetInstructionWithName(params[i]), {}, static_cast<int64_t>(i)});
  }
  callee.steps.push_back({GpuPlanStep::Kind::kTuple, called->root_instruction(), root});
  callee.root = static_cast<int>(params.size());
  plan.sequences = {main, callee};
  return plan;
}

TEST(GpuControlFlowTest, CallsRunTheirComputation) {
  // The pipeline inlines calls, so this plan is written by hand: entry {p, c = call(p)}
  // and the callee's {q, t = tuple(q, q)}; no kernel.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule call
twice {
  q = f32[4] parameter(0)
  ROOT t = (f32[4], f32[4]) tuple(q, q)
}
ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = (f32[4], f32[4]) call(p), to_apply=twice
})");
  ASSERT_TRUE(module.ok()) << module.status();
  GpuPlan plan = HandWrittenCallPlan(*std::move(module), "twice", {"q"}, {0, 0});
  const HloComputation* entry = plan.module->entry_computation();
  ASSERT_TRUE(ValidateGpuPlan(plan).ok()) << ValidateGpuPlan(plan);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();

  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->DeserializeExecutable(*bytes, 0);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> arg = b->TransferToDevice(L("f32[4] {1, 2, 3, 4}"), 0);
  ASSERT_TRUE(arg.ok());
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute({*arg}, backend::ExecuteOptions());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(::xla::testing::LiteralEqual(L("(f32[4] {1, 2, 3, 4}, f32[4] {1, 2, 3, 4})"), b->TransferFromDevice(**out)));

  // A call of the wrong computation is refused.
  plan.sequences[1].computation = entry;
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateGpuPlan(plan)));
}

TEST(GpuControlFlowTest, ACalleeMustTakeWhatTheStepPasses) {
  // Modules are read without the verifier: a serialized one may call a computation with the
  // wrong number of parameters, which the runtime would index past its arguments.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule call
two {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = (f32[4], f32[4]) call(p), to_apply=two
})");
  ASSERT_TRUE(module.ok()) << module.status();
  GpuPlan plan = HandWrittenCallPlan(*std::move(module), "two", {"a", "b"}, {0, 1});
  absl::Status s = ValidateGpuPlan(plan);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("passes 1 values to two, which has 2 parameters"));
}

TEST(GpuControlFlowTest, CuratedModulesRunThroughTheRuntimeWithTheHostStandingIn) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  const std::string softmax = modules::SoftmaxModule(16, 40), gelu = modules::GeluModule("64,8");
  for (const char* text : {modules::kReductionsModule, modules::kContractionsModule, modules::kMixedModule,
                           modules::kIntegersModule, softmax.c_str(), gelu.c_str(), modules::kSortModule,
                           modules::kLongSortModule, modules::kScatterModule, modules::kSelectAndScatterModule,
                           modules::kCollectivesModule, modules::kVariadicReduceModule}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> args;
    uint64_t state = 17;
    for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
      args.push_back(*Literal::Create(p->shape()));
      modules::FillRandom(&args.back(), p->shape(), &state);
    }
    absl::StatusOr<Literal> expected = Interpret(text, args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    StandIn standin;
    absl::StatusOr<Literal> actual = RunWithStandIn(*b, text, args, &standin);
    ASSERT_TRUE(actual.ok()) << (*module)->name() << ": " << actual.status();
    EXPECT_TRUE(LiteralNear(*expected, actual, 1e-5, 1e-5)) << (*module)->name();
    EXPECT_GT(standin.kernels_run, 0);
  }
}

// Tokens and values passed on unchanged need no kernel; a token result comes back as one.
TEST(GpuControlFlowTest, TokensAndAliasesAreStepsWithoutKernels) {
  constexpr char kText[] = R"(HloModule aliases
ENTRY main {
  p = f32[4,6] parameter(0)
  t = token[] after-all()
  d = f32[4,6] add-dependency(p, t)
  b = f32[24] bitcast(d)
  ROOT r = (f32[24], token[]) tuple(b, t)
})";
  absl::StatusOr<GpuPlan> plan = Compile(kText);
  ASSERT_TRUE(plan.ok()) << plan.status();
  int kernels = 0, aliases = 0, tokens = 0;
  for (const GpuPlanStep& s : plan->entry().steps) {
    kernels += s.kind == GpuPlanStep::Kind::kKernel;
    aliases += s.kind == GpuPlanStep::Kind::kAlias;
    tokens += s.kind == GpuPlanStep::Kind::kToken;
  }
  EXPECT_EQ(kernels, 0);
  EXPECT_EQ(tokens, 1);
  EXPECT_EQ(plan->ptx, "");
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {4, 6}, 3));
  StandIn standin;
  absl::StatusOr<Literal> out = RunWithStandIn(*b, kText, args, &standin);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(standin.kernels_run, 0);
  ASSERT_TRUE(out->shape().IsTuple());
  EXPECT_TRUE(out->tuple_element(1).shape().IsToken());
  const Literal& bits = out->tuple_element(0);  // the parameter's bytes, viewed as f32[24]
  ASSERT_EQ(bits.size_bytes(), args[0].size_bytes());
  EXPECT_EQ(std::memcmp(bits.untyped_data(), args[0].untyped_data(), bits.size_bytes()), 0);
  GTEST_LOG_(INFO) << aliases << " alias steps after the pipeline";
}

// copy-start/copy-done on one device (to another memory space too): a copy of a value
// nothing writes, which the pipeline folds away; no step but the negate's kernel.
TEST(GpuControlFlowTest, CopyStartAndDoneAreTheValueItself) {
  constexpr char kText[] = R"(HloModule copies
ENTRY main {
  p = f32[8,3] parameter(0)
  started = (f32[8,3]{1,0:S(5)}, f32[8,3], u32[]) copy-start(p)
  done = f32[8,3]{1,0:S(5)} copy-done(started)
  ROOT n = f32[8,3] negate(done)
})";
  absl::StatusOr<GpuPlan> plan = Compile(kText);
  ASSERT_TRUE(plan.ok()) << plan.status();
  int others = 0;
  for (const GpuPlanStep& s : plan->entry().steps) {
    others += s.kind != GpuPlanStep::Kind::kParameter && s.kind != GpuPlanStep::Kind::kKernel;
  }
  EXPECT_EQ(others, 0);
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {8, 3}, 5));
  absl::StatusOr<Literal> expected = Interpret(kText, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  StandIn standin;
  absl::StatusOr<Literal> out = RunWithStandIn(*b, kText, args, &standin);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(standin.kernels_run, 1);  // the negate
  EXPECT_TRUE(LiteralNear(*expected, out, 0, 0));
}

// The single-device meaning stops where it would be wrong: more devices, unknown targets.
TEST(GpuControlFlowTest, CollectivesOfSeveralDevicesAndUnknownCustomCallsAreRefused) {
  absl::StatusOr<GpuPlan> plan = Compile(R"(HloModule two_devices
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
})");
  EXPECT_TRUE(absl::IsInvalidArgument(plan.status())) << plan.status();
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("needs 2 devices"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("the gpu backend has one"));
  plan = Compile(R"(HloModule unknown_target
ENTRY main {
  p = f32[8] parameter(0)
  ROOT r = f32[8] custom-call(p), custom_call_target="my_kernel"
})");
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("my_kernel"));
}

// The runtime writes each rng kernel's key after its output: the interpreter's key for the
// execution's seed (42 by default) and its count of rng draws, which a loop keeps counting.
TEST(GpuControlFlowTest, RngKernelsGetTheirExecutionsKeyAfterTheirOutput) {
  SKIP_WITHOUT_LIBDEVICE();
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  const char* text = R"(HloModule rng_loop
cond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[5] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[], f32[5]) tuple(next, r)
}
ENTRY main {
  zero = s32[] constant(0)
  zeros = f32[5] constant({0, 0, 0, 0, 0})
  init = (s32[], f32[5]) tuple(zero, zeros)
  w = (s32[], f32[5]) while(init), condition=cond, body=body
  nine = s32[] constant(9)
  e = s32[3] rng(zero, nine), distribution=rng_uniform
  ROOT out = ((s32[], f32[5]), s32[3]) tuple(w, e)
})";
  for (uint64_t seed : {uint64_t{0}, uint64_t{77}}) {
    StandIn standin;
    backend::ExecuteOptions options;
    options.rng_seed = seed;
    absl::StatusOr<Literal> out = RunWithStandIn(*b, text, {}, &standin, options);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(standin.rng_keys.size(), 4u);
    int in_loop = 0;
    for (size_t draw = 0; draw < standin.rng_keys.size(); ++draw) {
      const auto& [name, key] = standin.rng_keys[draw];
      EXPECT_EQ(key, RngKernelKey(seed == 0 ? 42 : seed, name, draw)) << name << " draw " << draw;
      in_loop += name == "r";
    }
    EXPECT_EQ(in_loop, 3);
  }
}

// Ten sorts in a chain, each result 128 MiB, on the fake's 1 GiB device (kernels stand in
// as no-ops): kept to the end they would need 1.4 GiB; released once the next sort has read
// them, they need the live three.
TEST(GpuControlFlowTest, ValuesAreReleasedOnceNoLaterStepReadsThem) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  std::string text = "HloModule chain\nless {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                     "  ROOT lt = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n  s0 = f32[4194304,8] parameter(0)\n";
  for (int i = 1; i <= 10; ++i) {
    absl::StrAppend(&text, i == 10 ? "  ROOT " : "  ", "s", i, " = f32[4194304,8] sort(s", i - 1,
                    "), dimensions={1}, to_apply=less\n");
  }
  absl::StrAppend(&text, "}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(*std::move(module), backend::CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> x = b->Allocate(ShapeUtil::MakeShape(F32, {4194304, 8}), 0);
  ASSERT_TRUE(x.ok()) << x.status();
  SetLaunchHandler([](const char*, void**, void*) { return 0; }, nullptr);
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute({*x}, backend::ExecuteOptions());
  SetLaunchHandler(nullptr, nullptr);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)->shape().dimensions(0), 4194304);
}

TEST(GpuControlFlowTest, ALoopIsCancelledBetweenIterations) {
  SKIP_WITHOUT_LIBDEVICE();
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {1000}, 7));
  int polls = 0;
  backend::ExecuteOptions options;
  options.should_cancel = [&polls] { return ++polls > 6; };
  StandIn standin;
  absl::StatusOr<Literal> out = RunWithStandIn(*b, modules::kWhileModule, args, &standin, options);
  EXPECT_TRUE(absl::IsCancelled(out.status())) << out.status();
}

}  // namespace
}  // namespace gpu
}  // namespace xla
