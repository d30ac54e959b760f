// CompileAheadOfTime and Load through the service core: bytes compiled by one core load in
// another (a restarted server) and compute what Compile's executables do, on cpu (object code,
// runtime calls, constants) and on the interpreter; loads are cached; refusals are precise.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "backends/backend.h"
#include "backends/executable_format.h"
#include "gtest/gtest.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace server {
namespace {

struct Module {
  const char* name;
  const char* hlo;
  std::vector<const char*> args;
};

const std::vector<Module>& Modules() {
  static const auto* modules = new std::vector<Module>{
      {"constants", R"(HloModule constants
ENTRY e {
  p = f32[2,3] parameter(0)
  c = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  m = f32[2,3] multiply(p, c)
  k = s32[3] constant({9, -4, 1})
  ROOT r = (f32[2,3], s32[3]) tuple(m, k)
})",
       {"f32[2,3] {{0.5, -1, 2}, {3, 0, -2.5}}"}},
      {"sort", R"(HloModule sort
gt {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  a = f32[] parameter(2)
  b = f32[] parameter(3)
  ROOT c = pred[] compare(x, y), direction=GT
}
ENTRY e {
  k = s32[7] parameter(0)
  v = f32[7] parameter(1)
  ROOT s = (s32[7], f32[7]) sort(k, v), dimensions={0}, is_stable=true, to_apply=gt
})",
       {"s32[7] {3, 9, -2, 3, 0, 11, 5}", "f32[7] {1, 2, 3, 4, 5, 6, 7}"}},
      {"reduce", R"(HloModule reduce
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[3,4] parameter(0)
  zero = f32[] constant(0)
  r = f32[3] reduce(p, zero), dimensions={1}, to_apply=add
  ROOT t = f32[3] tanh(r)
})",
       {"f32[3,4] {{0.1, 0.2, 0.3, 0.4}, {-1, 0, 1, 0.5}, {0, 0, 0, 0.25}}"}},
  };
  return *modules;
}

ServiceOptions Options(bool allow_load = true) {
  ServiceOptions options;
  options.platforms = HaveCpu() ? std::vector<std::string>{"cpu", "interpreter"}
                                : std::vector<std::string>{"interpreter"};
  options.allow_load = allow_load;
  return options;
}

class AotTest : public CoreTest {
 protected:
  void SetUp() override { Start(Options()); }

  absl::StatusOr<CompileAheadOfTimeResponse> Aot(const std::string& text, int device) {
    CompileAheadOfTimeRequest request;
    request.set_session_id(session_);
    request.set_hlo_text(text);
    request.set_device_ordinal(device);
    return core_->CompileAheadOfTime(request);
  }

  absl::StatusOr<LoadResponse> LoadBytes(const std::string& bytes, int device, const std::string& session = "") {
    LoadRequest request;
    request.set_session_id(session.empty() ? session_ : session);
    request.set_serialized_executable(bytes);
    request.set_device_ordinal(device);
    return core_->Load(request);
  }

  // Runs `executable` on the module's arguments and downloads the result.
  absl::StatusOr<Literal> RunOn(int64_t executable, const Module& module, int device) {
    std::vector<int64_t> handles;
    for (const char* arg : module.args) {
      auto handle = Upload(L(arg), "", device);
      if (!handle.ok()) return handle.status();
      handles.push_back(*handle);
    }
    auto result = Execute(executable, handles);
    if (!result.ok()) return result.status();
    return Download(result->result_handle());
  }

  std::vector<int> Devices() { return HaveCpu() ? std::vector<int>{0, 1} : std::vector<int>{0}; }
};

TEST_F(AotTest, LoadedExecutablesRunLikeCompiledOnes) {
  for (int device : Devices()) {
    for (const Module& module : Modules()) {
      SCOPED_TRACE(absl::StrCat(module.name, " on device ", device));
      CompileRequest compile;
      compile.set_session_id(session_);
      compile.set_hlo_text(module.hlo);
      compile.set_device_ordinal(device);
      auto compiled = core_->Compile(compile);
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      auto expected = RunOn(compiled->execution_handle(), module, device);
      ASSERT_TRUE(expected.ok()) << expected.status();

      auto aot = Aot(module.hlo, device);
      ASSERT_TRUE(aot.ok()) << aot.status();
      EXPECT_TRUE(aot->cache_hit());  // the Compile above filled the cache
      EXPECT_EQ(aot->platform(), device == 0 && HaveCpu() ? "cpu" : "interpreter");
      const std::string bytes = aot->serialized_executable();

      // A new server (nothing shared but the bytes) loads and runs them.
      Start(Options());
      auto loaded = LoadBytes(bytes, device);
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_FALSE(loaded->cache_hit());
      EXPECT_EQ(loaded->program_shape().SerializeAsString(), compiled->program_shape().SerializeAsString());
      auto actual = RunOn(loaded->execution_handle(), module, device);
      ASSERT_TRUE(actual.ok()) << actual.status();
      EXPECT_EQ(actual->ToString(), expected->ToString());

      // Loading the same bytes again (another session) comes from the cache; the handle works.
      const std::string other = Open();
      auto again = LoadBytes(bytes, device, other);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_TRUE(again->cache_hit());
      EXPECT_NE(again->execution_handle(), loaded->execution_handle());
      GetComputationShapeRequest shape;
      shape.set_session_id(session_);
      shape.set_execution_handle(loaded->execution_handle());
      EXPECT_TRUE(core_->GetComputationShape(shape).ok());
      shape.set_session_id(other);  // handles stay per session
      EXPECT_EQ(core_->GetComputationShape(shape).status().code(), absl::StatusCode::kNotFound);
      Start(Options());
    }
  }
}

TEST_F(AotTest, RefusesDamagedForeignAndUnallowedBytes) {
  const int device = 0;
  auto aot = Aot(Modules()[1].hlo, device);
  ASSERT_TRUE(aot.ok()) << aot.status();
  const std::string bytes = aot->serialized_executable();

  auto truncated = LoadBytes(bytes.substr(0, bytes.size() / 2), device);
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kInvalidArgument) << truncated.status();
  std::string flipped = bytes;
  flipped[flipped.size() - 10] ^= 0x40;
  auto corrupted = LoadBytes(flipped, device);
  EXPECT_EQ(corrupted.status().code(), absl::StatusCode::kInvalidArgument) << corrupted.status();
  EXPECT_TRUE(absl::StrContains(corrupted.status().message(), "checksum")) << corrupted.status();

  auto fields = backend::ReadExecutableContainer(bytes);
  ASSERT_TRUE(fields.ok());
  fields->Set("xla_server_version", "99.0");
  auto old = LoadBytes(backend::WriteExecutableContainer(*fields), device);
  EXPECT_EQ(old.status().code(), absl::StatusCode::kFailedPrecondition) << old.status();
  EXPECT_TRUE(absl::StrContains(old.status().message(), "xla-server 99.0")) << old.status();
  if (HaveCpu()) {
    fields = backend::ReadExecutableContainer(bytes);
    fields->Set("host_cpu", "another-cpu");
    auto other_cpu = LoadBytes(backend::WriteExecutableContainer(*fields), device);
    EXPECT_EQ(other_cpu.status().code(), absl::StatusCode::kFailedPrecondition) << other_cpu.status();
    EXPECT_TRUE(absl::StrContains(other_cpu.status().message(), "another-cpu")) << other_cpu.status();
    // cpu bytes on the interpreter device.
    auto wrong_platform = LoadBytes(bytes, 1);
    EXPECT_EQ(wrong_platform.status().code(), absl::StatusCode::kFailedPrecondition) << wrong_platform.status();
  }
  // Failed loads are not cached: the good bytes still load.
  auto good = LoadBytes(bytes, device);
  EXPECT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(LoadBytes(bytes, 7).status().code(), absl::StatusCode::kInvalidArgument);

  Start(Options(/*allow_load=*/false));
  auto denied = LoadBytes(bytes, device);
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "--allow-load")) << denied.status();
  // Compiling ahead of time needs no permission.
  EXPECT_TRUE(Aot(Modules()[0].hlo, device).ok());
}

TEST_F(AotTest, CompileErrorsAndSessions) {
  auto bad = Aot("HloModule m\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n", 0);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  CompileAheadOfTimeRequest empty;
  empty.set_session_id(session_);
  EXPECT_EQ(core_->CompileAheadOfTime(empty).status().code(), absl::StatusCode::kInvalidArgument);
  CompileAheadOfTimeRequest no_session;
  no_session.set_hlo_text(kAddModule);
  EXPECT_EQ(core_->CompileAheadOfTime(no_session).status().code(), absl::StatusCode::kNotFound);
  auto aot = Aot(kAddModule, 0);
  ASSERT_TRUE(aot.ok()) << aot.status();
  EXPECT_EQ(LoadBytes(aot->serialized_executable(), 0, "no-such-session").status().code(),
            absl::StatusCode::kNotFound);
  // A loaded executable dies with its session like a compiled one.
  const std::string other = Open();
  auto loaded = LoadBytes(aot->serialized_executable(), 0, other);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  CloseSessionRequest close;
  close.set_session_id(other);
  ASSERT_TRUE(core_->CloseSession(close).ok());
  GetComputationShapeRequest shape;
  shape.set_session_id(session_);
  shape.set_execution_handle(loaded->execution_handle());
  EXPECT_EQ(core_->GetComputationShape(shape).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace server
}  // namespace xla
