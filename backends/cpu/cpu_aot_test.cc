// Ahead-of-time compilation on cpu: SerializeExecutable / DeserializeExecutable round trips
// give executables that compute what the compiled ones do (in another backend instance, so
// nothing is shared but the bytes), and bytes for another target, version or platform, or
// damaged ones, are refused with a clear error, never a crash.

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/executable_format.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using xla::testing::L;

absl::StatusOr<Literal> RunOn(backend::Backend& backend, backend::Executable& executable,
                            absl::Span<const Literal> args) {
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    auto buffer = backend.TransferToDevice(arg, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  auto result = executable.Execute(buffers, backend::ExecuteOptions());
  if (!result.ok()) return result.status();
  return backend.TransferFromDevice(**result);
}

std::unique_ptr<backend::Executable> CompileText(backend::Backend& backend, const std::string& hlo) {
  auto module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  auto executable = backend.Compile(*std::move(module), backend::CompileOptions());
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? *std::move(executable) : nullptr;
}

struct Case {
  const char* name;
  const char* hlo;
  std::vector<Literal> args;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({"constants", R"(HloModule constants
ENTRY e {
  p = f32[4,3] parameter(0)
  c = f32[4,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}})
  m = f32[4,3] multiply(p, c)
  k = s32[5] constant({7, -1, 3, 3, 0})
  sum = f32[4,3] add(m, p)
  ROOT r = (f32[4,3], s32[5]) tuple(sum, k)
}
)", {}});
  cases.back().args.push_back(L("f32[4,3] {{1, -2, 3.5}, {0, 1, 2}, {-1, -1, 8}, {0.25, 4, 9}}"));
  cases.push_back({"sort (runtime call)", R"(HloModule sort
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}
ENTRY e {
  a = f32[12] parameter(0)
  ROOT s = f32[12] sort(a), dimensions={0}, to_apply=lt
}
)", {}});
  cases.back().args.push_back(L("f32[12] {5, -1, 3, 9, 0, 2, 2, -7, 11, 4, 1, 8}"));
  cases.push_back({"while, reduce, tuple result", R"(HloModule loop
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
cond {
  t = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  t = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  v = f32[8] get-tuple-element(t), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[8] add(v, v)
  ROOT r = (s32[], f32[8]) tuple(j, w)
}
ENTRY e {
  p = f32[8] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8]) tuple(z, p)
  w = (s32[], f32[8]) while(t), condition=cond, body=body
  v = f32[8] get-tuple-element(w), index=1
  zero = f32[] constant(0)
  total = f32[] reduce(v, zero), dimensions={0}, to_apply=add
  ROOT r = (f32[8], f32[]) tuple(v, total)
}
)", {}});
  cases.back().args.push_back(L("f32[8] {1, 2, 3, 4, -5, 6, 7, 0.5}"));
  cases.push_back({"dot and exp, non-default layout", R"(HloModule dot
ENTRY e {
  a = f32[4,6]{0,1} parameter(0)
  b = f32[6,3] parameter(1)
  d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT x = f32[4,3] exponential(d)
}
)", {}});
  std::mt19937_64 rng(7);
  cases.back().args.push_back(testing::RandomLiteral(ShapeUtil::MakeShape(F32, {4, 6}), &rng, false));
  cases.back().args.push_back(testing::RandomLiteral(ShapeUtil::MakeShape(F32, {6, 3}), &rng, false));
  for (Literal& arg : cases.back().args) {
    for (int64_t i = 0; i < ShapeUtil::ElementsIn(arg.shape()); ++i) arg.SetFromDouble(i, arg.GetAsDouble(i) / 8);
  }
  return cases;
}

TEST(CpuAot, LoadedExecutablesComputeWhatCompiledOnesDo) {
  for (Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    auto compiling = CreateCpuBackend();
    auto compiled = CompileText(*compiling, c.hlo);
    ASSERT_NE(compiled, nullptr);
    auto expected = RunOn(*compiling, *compiled, c.args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    auto bytes = compiling->SerializeExecutable(*compiled);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    compiled.reset();
    compiling.reset();

    auto loading = CreateCpuBackend();  // nothing shared with the compiling one but the bytes
    auto loaded = loading->DeserializeExecutable(*bytes, 0);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    auto actual = RunOn(*loading, **loaded, c.args);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(xla::testing::LiteralEqual(*expected, actual));
    // And the interpreter agrees.
    EXPECT_TRUE(testing::SameOnBothBackends(c.hlo, c.args, 1e-5, 1e-6));
    // Loading twice gives independent executables (each links its own copy of the code).
    auto again = loading->DeserializeExecutable(*bytes, 0);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ((*again)->module().entry_computation()->num_parameters(),
              static_cast<int64_t>(c.args.size()));
    loaded->reset();
    auto still = RunOn(*loading, **again, c.args);
    ASSERT_TRUE(still.ok()) << still.status();
    EXPECT_TRUE(xla::testing::LiteralEqual(*expected, still));
  }
}

std::string SerializedSort() {
  auto backend = CreateCpuBackend();
  auto executable = CompileText(*backend, Cases()[1].hlo);
  auto bytes = backend->SerializeExecutable(*executable);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

// The bytes with one field replaced (and the checksum recomputed).
std::string WithField(const std::string& bytes, const std::string& name, std::string value) {
  auto fields = backend::ReadExecutableContainer(bytes);
  EXPECT_TRUE(fields.ok()) << fields.status();
  fields->Set(name, std::move(value));
  return backend::WriteExecutableContainer(*fields);
}

void ExpectRefused(const std::string& bytes, absl::StatusCode code, const std::string& words) {
  auto backend = CreateCpuBackend();
  auto loaded = backend->DeserializeExecutable(bytes, 0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), code) << loaded.status();
  EXPECT_TRUE(absl::StrContains(loaded.status().message(), words)) << loaded.status();
}

TEST(CpuAot, RefusesOtherTargetsVersionsAndPlatforms) {
  const std::string bytes = SerializedSort();
  ASSERT_FALSE(bytes.empty());
  ExpectRefused(WithField(bytes, "host_cpu", "pentium4"), absl::StatusCode::kFailedPrecondition, "CPU pentium4");
  auto fields = backend::ReadExecutableContainer(bytes);
  ASSERT_TRUE(fields.ok());
  std::string features(*fields->Get("host_cpu_features"));
  ASSERT_FALSE(features.empty());
  ExpectRefused(WithField(bytes, "host_cpu_features", features + ",+madeup"), absl::StatusCode::kFailedPrecondition,
                "compiled with but not here: [+madeup]");
  // The same features in another order are the same target.
  std::vector<std::string> listed = absl::StrSplit(features, ',');
  std::reverse(listed.begin(), listed.end());
  auto reordered = CreateCpuBackend()->DeserializeExecutable(
      WithField(bytes, "host_cpu_features", absl::StrJoin(listed, ",")), 0);
  EXPECT_TRUE(reordered.ok()) << reordered.status();
  ExpectRefused(WithField(bytes, "target_triple", "aarch64-unknown-linux-gnu"), absl::StatusCode::kFailedPrecondition,
                "aarch64");
  ExpectRefused(WithField(bytes, "xla_server_version", "0.0-old"), absl::StatusCode::kFailedPrecondition,
                "xla-server 0.0-old");
  ExpectRefused(WithField(bytes, "platform", "interpreter"), absl::StatusCode::kFailedPrecondition,
                "platform 'interpreter'");
  // The format version in the header (bytes 8-11).
  std::string newer = bytes;
  newer[8] = static_cast<char>(backend::kExecutableFormatVersion + 1);
  ExpectRefused(newer, absl::StatusCode::kFailedPrecondition,
                absl::StrCat("format version ", backend::kExecutableFormatVersion + 1));
  // An interpreter executable is not a cpu one.
  auto interpreter = backend::CreateBackend("interpreter");
  ASSERT_TRUE(interpreter.ok());
  auto interpreted = CompileText(**interpreter, Cases()[0].hlo);
  auto interpreted_bytes = (*interpreter)->SerializeExecutable(*interpreted);
  ASSERT_TRUE(interpreted_bytes.ok()) << interpreted_bytes.status();
  ExpectRefused(*interpreted_bytes, absl::StatusCode::kFailedPrecondition, "platform 'interpreter'");
  // Not an executable at all; another device.
  ExpectRefused("HloModule m", absl::StatusCode::kInvalidArgument, "bad magic");
  auto backend = CreateCpuBackend();
  EXPECT_EQ(backend->DeserializeExecutable(bytes, 1).status().code(), absl::StatusCode::kInvalidArgument);
}

// Feed code carries its shapes in the object code: a loaded executable (another backend, as
// in a restarted server) reads its own device's infeed and writes its outfeed.
TEST(CpuAot, FeedExecutablesSerialize) {
  auto compiling = CreateCpuBackend();
  auto executable = CompileText(*compiling, R"(HloModule feed
ENTRY e {
  t = token[] after-all()
  in = ((f32[2], s32[3]{0}), token[]) infeed(t)
  v = (f32[2], s32[3]) get-tuple-element(in), index=0
  a = f32[2] get-tuple-element(v), index=0
  d = f32[2] add(a, a)
  t2 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(v, t2)
  ROOT r = f32[2] negate(d)
}
)");
  ASSERT_NE(executable, nullptr);
  auto bytes = compiling->SerializeExecutable(*executable);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  compiling.reset();
  auto loading = CreateCpuBackend();
  auto loaded = loading->DeserializeExecutable(*bytes, 0);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Literal value = xla::testing::L("(f32[2] {1.5, -2}, s32[3] {7, 8, 9})");
  ASSERT_TRUE(loading->TransferToInfeed(0, value).ok());
  auto result = (*loaded)->Execute({}, backend::ExecuteOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*loading->TransferFromDevice(**result), xla::testing::L("f32[2] {-3, 4}"));
  auto out = loading->TransferFromOutfeed(0, value.shape(), 1000);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, value);
}

TEST(CpuAot, EveryTruncationIsRefused) {
  const std::string bytes = SerializedSort();
  ASSERT_FALSE(bytes.empty());
  auto backend = CreateCpuBackend();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto loaded = backend->DeserializeExecutable(std::string_view(bytes).substr(0, n), 0);
    ASSERT_FALSE(loaded.ok()) << "length " << n;
    ASSERT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << n << ": " << loaded.status();
  }
}

// Random flips anywhere are caught (the checksum changes with any single byte); flips inside
// the module and the plan with the checksum recomputed reach their decoders, which must refuse
// them or give an executable that runs without crashing (a flipped constant computes other
// values: only the checksum can tell).
TEST(CpuAot, RandomByteFlipsNeverCrash) {
  const std::string bytes = SerializedSort();
  ASSERT_FALSE(bytes.empty());
  const Case sort = std::move(Cases()[1]);
  auto backend = CreateCpuBackend();
  auto expected = RunOn(*backend, **backend->DeserializeExecutable(bytes, 0), sort.args);
  ASSERT_TRUE(expected.ok());
  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    auto loaded = backend->DeserializeExecutable(damaged, 0);
    if (loaded.ok()) {
      auto actual = RunOn(*backend, **loaded, sort.args);
      ASSERT_TRUE(actual.ok() && xla::testing::LiteralEqual(*expected, actual)) << "trial " << trial;
    }
  }
  auto fields = backend::ReadExecutableContainer(bytes);
  ASSERT_TRUE(fields.ok());
  google::protobuf::LogSilencer quiet;  // damaged strings in the module proto
  int refused = 0, loaded_count = 0;
  for (const char* name : {"module", "plan"}) {
    const std::string original(*fields->Get(name));
    for (int trial = 0; trial < 300; ++trial) {
      std::string damaged = original;
      damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
      auto loaded = backend->DeserializeExecutable(WithField(bytes, name, damaged), 0);
      if (!loaded.ok()) {
        ++refused;
        continue;
      }
      ++loaded_count;
      (void)RunOn(*backend, **loaded, sort.args);
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(CpuAot, InterpreterSerializesItsModule) {
  auto interpreter = backend::CreateBackend("interpreter");
  ASSERT_TRUE(interpreter.ok());
  Case c = std::move(Cases()[2]);
  auto compiled = CompileText(**interpreter, c.hlo);
  auto bytes = (*interpreter)->SerializeExecutable(*compiled);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = (*interpreter)->DeserializeExecutable(*bytes, 0);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto expected = RunOn(**interpreter, *compiled, c.args);
  auto actual = RunOn(**interpreter, **loaded, c.args);
  ASSERT_TRUE(expected.ok() && actual.ok());
  EXPECT_TRUE(xla::testing::LiteralEqual(*expected, actual));
  // A cpu executable is not an interpreter one.
  auto cpu = CreateCpuBackend();
  auto cpu_bytes = cpu->SerializeExecutable(*CompileText(*cpu, c.hlo));
  ASSERT_TRUE(cpu_bytes.ok());
  auto refused = (*interpreter)->DeserializeExecutable(*cpu_bytes, 0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
