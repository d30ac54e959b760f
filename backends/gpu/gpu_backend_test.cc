// The gpu backend on the fake driver (testing/fake_libcuda.cc): devices, memory, transfers,
// compilation to loaded PTX, and executions that need no kernel. Kernels run on a real GPU
// (gpu_device_test.cc, tests/gpu/device_check.sh), and here only in a child process with the
// kernel emulator installed (the rng kernels against the interpreter).
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/gpu_compiler.h"


#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "backends/cpu/runtime/runtime.h"
#include "backends/executable_format.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "backends/testing/hostile_modules.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using testing::L;
using testing::LiteralEqual;

int LiveAllocations() { return FakeCudaCount("xla_fake_cuda_live_allocations"); }
int Launches() { return FakeCudaCount("xla_fake_cuda_launches"); }
std::string LastImage() {
  auto hook = FakeCudaHook<const char* (*)()>("xla_fake_cuda_last_image");
  return hook == nullptr ? "" : hook();
}

// A backend on the fake driver's two devices; `with_compiler` false is a binary without LLVM.
std::unique_ptr<backend::Backend> FakeBackend(bool with_compiler = true) {
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  EXPECT_TRUE(driver.ok()) << driver.status();
  if (!driver.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<backend::Backend>> b =
      CreateGpuBackend(*driver, with_compiler ? GpuCompileFn(CompileGpuPlan) : nullptr);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *std::move(b) : nullptr;
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(GpuBackendTest, NoDevicesIsUnavailable) {
  setenv("XLA_FAKE_CUDA_MODE", "zero_devices", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(driver.ok()) << driver.status();
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(*driver);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(absl::IsUnavailable(b.status())) << b.status();
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("no CUDA device"));
}

TEST(GpuBackendTest, RegisteredAsGpuAndUnavailableWithoutADriver) {
  // The registry's factory loads the default driver: none here ($XLA_GPU_LIBCUDA points
  // nowhere), so asking for "gpu" is a clear UNAVAILABLE, as a server on a GPU-less host sees.
  setenv("XLA_GPU_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  RegisterGpuBackend();
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("gpu");
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(absl::IsUnavailable(b.status())) << b.status();
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("/nonexistent/libcuda.so.1"));
}

TEST(GpuBackendTest, DescribesEveryDevice) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->platform(), "gpu");
  ASSERT_EQ(b->device_count(), 2);
  absl::StatusOr<backend::DeviceDescription> d = b->Describe(1);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->platform, "gpu");
  EXPECT_EQ(d->name, "Fake GPU 1 (sm_90)");
  EXPECT_EQ(d->ordinal, 1);
  EXPECT_EQ(d->memory_bytes, int64_t{1} << 30);
  EXPECT_TRUE(absl::IsInvalidArgument(b->Describe(2).status()));
}

TEST(GpuBackendTest, TransfersRoundTripAndFreeTheirMemory) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  for (const char* text : {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "s8[5] {-1, 2, -3, 4, 127}", "pred[3] {true, false, true}",
                           "(f32[2] {1.5, -2}, s32[] 7)", "f32[0] {}", "bf16[2] {0.5, 3}", "u4[3] {1, 15, 7}"}) {
    Literal value = L(text);
    for (int device : {0, 1}) {
      absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b->TransferToDevice(value, device);
      ASSERT_TRUE(buffer.ok()) << text << ": " << buffer.status();
      EXPECT_EQ((*buffer)->device_ordinal(), device);
      EXPECT_TRUE(LiteralEqual(value, b->TransferFromDevice(**buffer))) << text;
    }
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> zeros = b->Allocate(ShapeUtil::MakeShape(S32, {4}), 0);
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_TRUE(LiteralEqual(L("s32[4] {0, 0, 0, 0}"), b->TransferFromDevice(**zeros)));
  // One pool region per device, whatever the buffers did.
  EXPECT_EQ(LiveAllocations(), 2);
  EXPECT_TRUE(absl::IsInvalidArgument(b->TransferToDevice(L("f32[] 1"), 5).status()));
}

TEST(GpuBackendTest, OutOfDeviceMemoryIsResourceExhausted) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::shared_ptr<backend::Buffer>> huge = b->Allocate(ShapeUtil::MakeShape(F32, {1 << 29}), 0);
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(huge.status())) << huge.status();
  EXPECT_THAT(std::string(huge.status().message()), HasSubstr("CUDA_ERROR_OUT_OF_MEMORY"));
  EXPECT_TRUE(b->Allocate(ShapeUtil::MakeShape(F32, {1024}), 0).ok()) << "the device is still usable";
}

TEST(GpuBackendTest, ExecutionsWithoutKernelsPassBuffersThrough) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule pass
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  x = f32[2] get-tuple-element(p), index=0
  c = s32[3] constant({4, 5, 6})
  ROOT t = (s32[3], f32[2]) tuple(c, x)
})"),
                                                                         backend::CompileOptions{1});
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> arg = b->TransferToDevice(L("(f32[2] {1, 2}, s32[] 3)"), 1);
  ASSERT_TRUE(arg.ok());
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute({*arg}, backend::ExecuteOptions());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(LiteralEqual(L("(s32[3] {4, 5, 6}, f32[2] {1, 2})"), b->TransferFromDevice(**out)));
  // Arguments are checked.
  EXPECT_TRUE(absl::IsInvalidArgument((*exe)->Execute({}, backend::ExecuteOptions()).status()));
  absl::StatusOr<std::shared_ptr<backend::Buffer>> wrong = b->TransferToDevice(L("(f32[3] {1, 2, 3}, s32[] 3)"), 1);
  EXPECT_THAT(std::string((*exe)->Execute({*wrong}, backend::ExecuteOptions()).status().message()),
              HasSubstr("the parameter wants"));
  absl::StatusOr<std::shared_ptr<backend::Buffer>> elsewhere = b->TransferToDevice(L("(f32[2] {1, 2}, s32[] 3)"), 0);
  EXPECT_THAT(std::string((*exe)->Execute({*elsewhere}, backend::ExecuteOptions()).status().message()),
              HasSubstr("not on device 1"));
}

TEST(GpuBackendTest, KernelsAreEmittedLoadedAndLaunched) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  ROOT r = f32[1000] add(ax, y)
})"),
                                                                         backend::CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(LastImage(), HasSubstr(".target sm_90"));
  EXPECT_THAT(LastImage(), HasSubstr(".visible .entry"));
  std::vector<std::shared_ptr<backend::Buffer>> args;
  args.push_back(*b->TransferToDevice(L("f32[] 2"), 0));
  for (int i = 0; i < 2; ++i) args.push_back(*b->Allocate(ShapeUtil::MakeShape(F32, {1000}), 0));
  const int before = Launches();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute(args, backend::ExecuteOptions());
  // The fake driver refuses to run device code: the launch is attempted and its error is ours.
  EXPECT_EQ(Launches(), before + 1);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("cuLaunchKernel"));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("CUDA_ERROR_NOT_SUPPORTED"));
}

TEST(GpuBackendTest, UnsupportedOpsAreNamedAtCompile) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  // A custom-call target no backend here knows has no kernel: refused at compile, named.
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule custom
ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] custom-call(p), custom_call_target="my_fused_kernel"
})"),
                                                                         backend::CompileOptions{});
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(absl::IsUnimplemented(exe.status())) << exe.status();
  EXPECT_THAT(std::string(exe.status().message()), HasSubstr("my_fused_kernel"));
  EXPECT_TRUE(absl::IsInvalidArgument(b->Compile(Parse("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}"),
                                                 backend::CompileOptions{7})
                                          .status()));
}

constexpr char kAxpy[] = R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  c = f32[2] constant({7, 8})
  ROOT r = (f32[1000], f32[2]) tuple(add(ax, y), c)
})";

TEST(GpuBackendTest, ExecutablesSerializeAndLoadWithoutACompiler) {
  std::unique_ptr<backend::Backend> compiler = FakeBackend();
  ASSERT_NE(compiler, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = compiler->Compile(Parse(kAxpy), backend::CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::string compiled_ptx = LastImage();
  absl::StatusOr<std::string> bytes = compiler->SerializeExecutable(**exe);
  ASSERT_TRUE(bytes.ok()) << bytes.status();

  // A binary without LLVM cannot compile, but loads the bytes: same kernels, same module.
  std::unique_ptr<backend::Backend> runner = FakeBackend(/*with_compiler=*/false);
  ASSERT_NE(runner, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> none = runner->Compile(Parse(kAxpy), backend::CompileOptions{});
  EXPECT_TRUE(absl::IsUnimplemented(none.status())) << none.status();
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("no gpu compiler"));
  absl::StatusOr<std::unique_ptr<backend::Executable>> loaded = runner->DeserializeExecutable(*bytes, 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(LastImage(), compiled_ptx);
  EXPECT_EQ((*loaded)->module().entry_computation()->num_parameters(), 3);
  absl::StatusOr<std::string> again = runner->SerializeExecutable(**loaded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes) << "serializing a loaded executable gives the same bytes";

  // Damaged bytes are INVALID_ARGUMENT at every truncation and on flipped bytes, never a crash.
  for (size_t n = 0; n < bytes->size(); n += std::max<size_t>(1, bytes->size() / 97)) {
    absl::StatusOr<std::unique_ptr<backend::Executable>> cut = runner->DeserializeExecutable(bytes->substr(0, n), 0);
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_TRUE(absl::IsInvalidArgument(cut.status())) << n << ": " << cut.status();
  }
  std::string flipped = *bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  EXPECT_TRUE(absl::IsInvalidArgument(runner->DeserializeExecutable(flipped, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(runner->DeserializeExecutable(*bytes, 3).status())) << "no device 3";
}

TEST(GpuBackendTest, KernelsForANewerGpuAreRefused) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(kAxpy);
  ASSERT_TRUE(module.ok());
  GpuTarget newer;
  newer.sm = 100;  // the fake devices are sm_90
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), newer);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> loaded = b->DeserializeExecutable(*SerializeGpuPlan(*plan), 0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(loaded.status())) << loaded.status();
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("sm_100"));
}

// Bytes that pass the checksum but describe an impossible plan are refused by name (the
// checksum catches accidents, not a plan written wrong).
TEST(GpuBackendTest, InconsistentPlansAreRefused) {
  auto fresh = [] {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(kAxpy);
    EXPECT_TRUE(module.ok());
    absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget{});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  };
  ASSERT_TRUE(ValidateGpuPlan(fresh()).ok());
  auto kernel_step = [](GpuPlan& plan) -> GpuPlanStep& {
    for (GpuPlanStep& s : plan.entry().steps) {
      if (s.kind == GpuPlanStep::Kind::kKernel) return s;
    }
    return plan.entry().steps.front();
  };
  struct Breakage {
    const char* what;
    std::function<void(GpuPlan&)> apply;
  };
  const std::vector<Breakage> breakages = {
      {"operand", [&](GpuPlan& p) { kernel_step(p).operands[0] = static_cast<int>(p.entry().steps.size()); }},
      {"not a kernel of its shape", [&](GpuPlan& p) { kernel_step(p).elements += 1; }},
      {"not a kernel of its shape", [&](GpuPlan& p) { kernel_step(p).rows = 5; }},
      {"not a cuBLAS gemm", [&](GpuPlan& p) { kernel_step(p).gemm = true; }},
      {"is not parameter", [](GpuPlan& p) { p.entry().steps[0].index = 7; }},
      {"the root of sequence 0 has no step", [](GpuPlan& p) { p.entry().root = 0; }},
      {"has two steps", [](GpuPlan& p) { p.entry().steps.push_back(p.entry().steps.back()); }},
      {"calls sequences but is no control flow", [&](GpuPlan& p) { kernel_step(p).callees = {0}; }},
      {"the first sequence is not the entry", [](GpuPlan& p) { p.sequences.clear(); }},
  };
  for (const Breakage& b : breakages) {
    GpuPlan plan = fresh();
    b.apply(plan);
    absl::Status s = ValidateGpuPlan(plan);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << b.what << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(b.what)) << s;
  }
}

TEST(GpuBackendTest, DotsCuBlasCanComputeAreMarkedAndKeepTheirKernel) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule dots
ENTRY main {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  ba = bf16[3,8,16] parameter(2)
  bb = bf16[3,16,4] parameter(3)
  ia = s32[8,16] parameter(4)
  ib = s32[16,4] parameter(5)
  f = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,8] dot(b, a), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  bf = f32[3,8,4] dot(ba, bb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  i = s32[8,4] dot(ia, ib), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[8,4], f32[4,8], f32[3,8,4], s32[8,4]) tuple(f, t, bf, i)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  int gemms = 0, integer_dots = 0;
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.hlo->opcode() != HloOpcode::kDot) continue;
    EXPECT_FALSE(step.kernel.empty()) << "every dot keeps its kernel, for machines without cuBLAS";
    if (step.hlo->shape().element_type() == S32) {
      EXPECT_FALSE(step.gemm) << "cuBLAS has no s32 gemm here";
      ++integer_dots;
    } else {
      EXPECT_TRUE(step.gemm) << step.hlo->name() << " is canonical after the pipeline";
      ++gemms;
    }
  }
  EXPECT_EQ(gemms, 3);
  EXPECT_EQ(integer_dots, 1);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(*plan);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  for (size_t i = 0; i < plan->entry().steps.size(); ++i) {
    EXPECT_EQ(back->entry().steps[i].gemm, plan->entry().steps[i].gemm) << i;
  }
}

// rng-get-and-update-state, infeed and outfeed: steps that move the host's data, no kernel.
constexpr char kHostDataModule[] = R"(HloModule host_data
ENTRY main {
  t = token[] after-all()
  in = ((f32[2,3]{0,1}, s32[]), token[]) infeed(t)
  d = (f32[2,3]{0,1}, s32[]) get-tuple-element(in), index=0
  it = token[] get-tuple-element(in), index=1
  o = token[] outfeed(d, it)
  s = u64[2] rng-get-and-update-state(), delta=5
  ROOT r = (u64[2], token[]) tuple(s, o)
})";

const GpuPlanStep* StepOfKind(const GpuPlan& plan, GpuPlanStep::Kind kind) {
  for (const GpuPlanStep& s : plan.entry().steps) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

TEST(GpuBackendTest, HostDataStepsValidateAndSerialize) {
  auto fresh = [] {
    absl::StatusOr<GpuPlan> plan = CompileGpuPlan(Parse(kHostDataModule), GpuTarget{});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  };
  GpuPlan plan = fresh();
  ASSERT_NE(StepOfKind(plan, GpuPlanStep::Kind::kRngState), nullptr);
  ASSERT_NE(StepOfKind(plan, GpuPlanStep::Kind::kInfeed), nullptr);
  ASSERT_NE(StepOfKind(plan, GpuPlanStep::Kind::kOutfeed), nullptr);
  EXPECT_TRUE(plan.ptx.empty()) << "no kernel moves feed data or the rng state";
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->entry().steps.size(), plan.entry().steps.size());
  for (size_t i = 0; i < plan.entry().steps.size(); ++i) {
    EXPECT_EQ(back->entry().steps[i].kind, plan.entry().steps[i].kind) << i;
    EXPECT_EQ(back->entry().steps[i].hlo->name(), plan.entry().steps[i].hlo->name()) << i;
  }
  EXPECT_EQ(*SerializeGpuPlan(*back), *bytes);
  // Version 3 had no such kinds: a plan claiming it with them is damaged.
  absl::StatusOr<backend::ExecutableFields> fields = backend::ReadExecutableContainer(*bytes);
  ASSERT_TRUE(fields.ok()) << fields.status();
  fields->Set("plan_version", "3");
  absl::StatusOr<GpuPlan> v3 = DeserializeGpuPlan(backend::WriteExecutableContainer(*fields));
  EXPECT_TRUE(absl::IsInvalidArgument(v3.status())) << v3.status();
  EXPECT_THAT(std::string(v3.status().message()), HasSubstr("malformed step"));

  auto step = [](GpuPlan& p, GpuPlanStep::Kind kind) -> GpuPlanStep& {
    return *const_cast<GpuPlanStep*>(StepOfKind(p, kind));
  };
  struct Breakage {
    const char* what;
    std::function<void(GpuPlan&)> apply;
  };
  using Kind = GpuPlanStep::Kind;
  const std::vector<Breakage> breakages = {
      {"is not rng-get-and-update-state", [&](GpuPlan& p) { step(p, Kind::kInfeed).kind = Kind::kRngState; }},
      {"is not an infeed", [&](GpuPlan& p) { step(p, Kind::kOutfeed).kind = Kind::kInfeed; }},
      {"is not an outfeed", [&](GpuPlan& p) { step(p, Kind::kRngState).kind = Kind::kOutfeed; }},
      {"moves host data but names a kernel", [&](GpuPlan& p) { step(p, Kind::kRngState).kernel = "k0_s"; }},
      {"moves host data but names a kernel", [&](GpuPlan& p) { step(p, Kind::kInfeed).elements = 6; }},
  };
  for (const Breakage& b : breakages) {
    GpuPlan broken = fresh();
    b.apply(broken);
    absl::Status s = ValidateGpuPlan(broken);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << b.what << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(b.what)) << s;
  }
}

TEST(GpuBackendTest, FeedsAndTheRngStateMoveThroughTheHostQueues) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(kHostDataModule), backend::CompileOptions{1});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Literal value = L("(f32[2,3] {{1, 2, 3}, {4, 5, 6}}, s32[] -7)");
  std::vector<uint64_t> states;
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(b->TransferToInfeed(1, value).ok());
    absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute({}, backend::ExecuteOptions());
    ASSERT_TRUE(out.ok()) << out.status();
    absl::StatusOr<Literal> result = b->TransferFromDevice(**out);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->tuple_element(0).GetAsUint64(1), 0u);
    states.push_back(result->tuple_element(0).GetAsUint64(0));
    // The value went to the device (laid out {0,1}) and back, whole.
    EXPECT_TRUE(LiteralEqual(value, b->TransferFromOutfeed(1, value.shape(), 1000))) << run;
  }
  EXPECT_EQ(states[1], states[0] + 5) << "the state advances by delta per execution";
  // Device 0 has queues of its own.
  EXPECT_TRUE(absl::IsDeadlineExceeded(b->TransferFromOutfeed(0, value.shape(), 10).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(b->TransferToInfeed(4, value)));
  // A value of another shape is refused by the execution.
  ASSERT_TRUE(b->TransferToInfeed(1, L("f32[] 1")).ok());
  absl::StatusOr<std::shared_ptr<backend::Buffer>> wrong = (*exe)->Execute({}, backend::ExecuteOptions());
  EXPECT_TRUE(absl::IsInvalidArgument(wrong.status())) << wrong.status();
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("infeed value has shape"));
}

// rng-bit-generator's (state, bits) becomes a bits kernel and the state's arithmetic; rng a
// kernel; bad states are refused as the interpreter refuses them.
TEST(GpuBackendTest, RandomNumberOpsBecomeKernels) {
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(Parse(R"(HloModule rng
ENTRY main {
  s = u64[3] parameter(0)
  g = (u64[3], u32[5,2]) rng-bit-generator(s), algorithm=rng_philox
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[7] rng(a, b), distribution=rng_uniform
  ROOT t = ((u64[3], u32[5,2]), f32[7]) tuple(g, r)
})"),
                                                GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  int bit_kernels = 0, rng_kernels = 0;
  for (const GpuPlanStep& s : plan->entry().steps) {
    if (s.hlo->opcode() == HloOpcode::kRngBitGenerator) {
      EXPECT_EQ(s.kind, GpuPlanStep::Kind::kKernel);
      EXPECT_TRUE(s.hlo->shape().IsArray()) << "the bits alone";
      EXPECT_EQ(s.elements, 10);
      ++bit_kernels;
    }
    if (s.hlo->opcode() == HloOpcode::kRng) {
      EXPECT_EQ(s.kind, GpuPlanStep::Kind::kKernel);
      EXPECT_EQ(s.elements, 7);
      ++rng_kernels;
    }
  }
  EXPECT_EQ(bit_kernels, 1);
  EXPECT_EQ(rng_kernels, 1);
  EXPECT_EQ(RngKernelKeyOffset(ShapeUtil::MakeShape(F32, {7})), 32);
  EXPECT_EQ(RngKernelKeyOffset(ShapeUtil::MakeShape(U8, {16})), 16);
  // The interpreter's key: SplitMix64(seed ^ name mix) ^ SplitMix64(draw), the name mix as the
  // cpu backend's runtime computes it.
  auto split_mix = [](uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  EXPECT_EQ(RngKernelKey(42, "r", 0), split_mix(42 ^ cpu::RngNameMix("r")));
  EXPECT_EQ(RngKernelKey(7, "x.1", 3), split_mix(7 ^ cpu::RngNameMix("x.1")) ^ split_mix(3));

  auto compile = [](const std::string& state, const std::string& algorithm) {
    return CompileGpuPlan(Parse("HloModule m\nENTRY main {\n  s = " + state + " parameter(0)\n  ROOT r = (" + state +
                                ", u32[2]) rng-bit-generator(s), algorithm=" + algorithm + "\n}"),
                          GpuTarget{})
        .status();
  };
  absl::Status threefry3 = compile("u64[3]", "rng_three_fry");
  EXPECT_TRUE(absl::IsInvalidArgument(threefry3)) << threefry3;
  EXPECT_THAT(std::string(threefry3.message()), HasSubstr("u64[2] state"));
  EXPECT_TRUE(absl::IsInvalidArgument(compile("u64[4]", "rng_philox")));
  EXPECT_TRUE(absl::IsInvalidArgument(compile("s32[2]", "rng_philox")));
}

// Runs `text` with `seed` on `b` (device 0), with `args`.
absl::StatusOr<Literal> RunSeeded(backend::Backend& b, const std::string& text, const std::vector<Literal>& args,
                                  uint64_t seed) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b.Compile(*std::move(module), backend::CompileOptions{});
  if (!exe.ok()) return exe.status();
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b.TransferToDevice(arg, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  backend::ExecuteOptions options;
  options.rng_seed = seed;
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute(buffers, options);
  if (!out.ok()) return out.status();
  return b.TransferFromDevice(**out);
}

// The rng kernels run by the kernel emulator against the interpreter, bit for bit: 0 when
// every module matches, else the number of mismatches (each printed).
int CompareRngWithInterpreter() {
  if (!InstallKernelEmulator(XLA_FAKE_LIBCUDA).ok()) return 100;
  std::unique_ptr<backend::Backend> gpu = FakeBackend();
  backend::RegisterBuiltinBackends();
  absl::StatusOr<std::unique_ptr<backend::Backend>> interpreter = backend::CreateBackend("interpreter");
  if (gpu == nullptr || !interpreter.ok()) return 101;
  auto bit_generator = [](const std::string& state, const std::string& bits, const std::string& algorithm) {
    return "HloModule g\nENTRY main {\n  s = " + state + " parameter(0)\n  ROOT r = (" + state + ", " + bits +
           ") rng-bit-generator(s), algorithm=" + algorithm + "\n}";
  };
  auto rng = [](const std::string& type, const std::string& dims, const std::string& a, const std::string& b,
                const std::string& distribution) {
    return "HloModule r\nENTRY main {\n  a = " + type + "[] constant(" + a + ")\n  b = " + type + "[] constant(" + b +
           ")\n  ROOT r = " + type + dims + " rng(a, b), distribution=" + distribution + "\n}";
  };
  const Literal state2 = L("u64[2] {81985529216486895, 18446744073709551610}");
  const Literal state3 = L("u64[3] {12345, 18446744073709551614, 7}");
  struct Case {
    std::string text;
    std::vector<Literal> args;
  };
  std::vector<Case> cases;
  cases.push_back({bit_generator("u64[2]", "u32[3,5]", "rng_three_fry"), {}});
  cases.push_back({bit_generator("u64[2]", "u32[5,3]{0,1}", "rng_three_fry"), {}});
  cases.push_back({bit_generator("u64[2]", "s64[3,3]", "rng_three_fry"), {}});
  cases.push_back({bit_generator("u64[2]", "u8[]", "rng_three_fry"), {}});
  cases.push_back({bit_generator("u64[3]", "u32[13]", "rng_philox"), {}});
  cases.push_back({bit_generator("u64[3]", "u64[2,3]{0,1}", "rng_default"), {}});
  cases.push_back({bit_generator("u64[2]", "s16[2,5]", "rng_philox"), {}});
  cases.push_back({bit_generator("u64[3]", "u4[9]", "rng_philox"), {}});
  for (Case& c : cases) {
    const bool wide = c.text.find("u64[3] parameter") != std::string::npos;
    c.args.push_back(wide ? state3.Clone() : state2.Clone());
  }
  cases.push_back({rng("f32", "[4,5]{0,1}", "-2", "3", "rng_uniform"), {}});
  cases.push_back({rng("f64", "[9]", "-1", "0.5", "rng_uniform"), {}});
  cases.push_back({rng("bf16", "[6]", "0", "10", "rng_uniform"), {}});
  cases.push_back({rng("f16", "[3,3]", "-1", "1", "rng_uniform"), {}});
  cases.push_back({rng("s32", "[17]", "-5", "5", "rng_uniform"), {}});
  cases.push_back({rng("u8", "[11]", "250", "255", "rng_uniform"), {}});
  cases.push_back({rng("s64", "[2,3]", "-3", "3", "rng_uniform"), {}});
  cases.push_back({rng("u16", "[5]", "7", "7", "rng_uniform"), {}});
  cases.push_back({rng("f32", "[5,3]", "10", "2", "rng_normal"), {}});
  cases.push_back({rng("f32", "[]", "0", "1", "rng_normal"), {}});
  cases.push_back({rng("f64", "[3,3]", "-1", "0.5", "rng_normal"), {}});
  cases.push_back({rng("f16", "[7]", "0", "1", "rng_normal"), {}});
  cases.push_back({rng("f8e4m3fn", "[12]", "-2", "2", "rng_uniform"), {}});
  cases.push_back({rng("f8e5m2", "[3,2]", "1", "0.5", "rng_normal"), {}});
  // Draws count across instructions and loop iterations as in the interpreter.
  cases.push_back({R"(HloModule draws
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[3] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[], f32[3]) tuple(next, r)
}
ENTRY main {
  a = f32[] constant(0)
  b = f32[] constant(1)
  x = f32[4] rng(a, b), distribution=rng_uniform
  y = f32[4] rng(a, b), distribution=rng_normal
  zero = s32[] constant(0)
  init = (s32[], f32[3]) tuple(zero, f32[3] constant({0, 0, 0}))
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  ROOT t = (f32[4], f32[4], (s32[], f32[3])) tuple(x, y, w)
})", {}});
  int mismatches = 0;
  for (const Case& c : cases) {
    absl::StatusOr<Literal> want = RunSeeded(**interpreter, c.text, c.args, 9);
    absl::StatusOr<Literal> got = RunSeeded(*gpu, c.text, c.args, 9);
    const ::testing::AssertionResult same =
        want.ok() ? LiteralEqual(*want, got) : ::testing::AssertionFailure() << want.status();
    if (!same) {
      ++mismatches;
      std::fprintf(stderr, "MISMATCH %s\n%s\n", c.text.c_str(), same.message());
    }
  }
  return mismatches;
}

// In a child process: the emulator, once installed, runs every later launch of the process.
TEST(GpuBackendTest, RandomNumberKernelsMatchTheInterpreterBitForBit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(CompareRngWithInterpreter()), ::testing::ExitedWithCode(0), "");
}

// Modules built to hang or crash a compile (backends/testing/hostile_modules.h): the gpu
// compiler shares the cpu pipeline's limits and generators, so each compiles at once or is
// refused with an error.
TEST(GpuBackendTest, HostileModulesCompileQuicklyOrAreRefused) {
  namespace hostile = ::xla::testing::hostile;
  const auto compile = [](const std::string& hlo) -> absl::Status {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
    if (!module.ok()) return module.status();
    return CompileGpuPlan(*std::move(module), GpuTarget()).status();
  };
  EXPECT_TRUE(compile(hostile::DoublingModule("f32[]", 60)).ok());
  EXPECT_TRUE(compile(hostile::DoublingModule("f32[64]", 60)).ok());
  EXPECT_EQ(compile(hostile::SharedBranches(30)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(compile(hostile::NestedCalls(250)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(compile(hostile::ForwardDifferences(30)).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(compile(hostile::LongReducerChain(100000)).code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
