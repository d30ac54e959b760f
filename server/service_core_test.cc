// The service core without a transport: versions, sessions and leases, isolation, compile
// (errors, cache, single flight), execute (argument checks, devices, donation), handles.

#include "server/service_core.h"

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_convert.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace server {
namespace {

using ::testing::HasSubstr;

TEST_F(CoreTest, VersionAndProtocolMismatch) {
  auto version = core_->GetVersion(GetVersionRequest());
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->min_protocol_version(), 1);
  EXPECT_EQ(version->max_protocol_version(), 1);
  EXPECT_THAT(version->platforms(), ::testing::ElementsAre("interpreter"));
  for (int v : {0, 2, -1}) {
    OpenSessionRequest request;
    request.set_protocol_version(v);
    auto response = core_->OpenSession(request);
    EXPECT_EQ(response.status().code(), absl::StatusCode::kFailedPrecondition) << v;
  }
}

TEST_F(CoreTest, SessionIdsAreRandomAndUnknownOnesAreNotFound) {
  const std::string other = Open();
  EXPECT_EQ(session_.size(), 32u);
  EXPECT_NE(session_, other);
  KeepAliveRequest keep;
  keep.set_session_id("00000000000000000000000000000000");
  EXPECT_EQ(core_->KeepAlive(keep).status().code(), absl::StatusCode::kNotFound);
  ListDevicesRequest list;
  list.set_session_id("nope");
  EXPECT_EQ(core_->ListDevices(list).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Compile(kAddModule, "nope").status().code(), absl::StatusCode::kNotFound);

  CloseSessionRequest close;
  close.set_session_id(other);
  EXPECT_TRUE(core_->CloseSession(close).ok());
  EXPECT_EQ(core_->CloseSession(close).status().code(), absl::StatusCode::kNotFound);
  keep.set_session_id(other);
  EXPECT_EQ(core_->KeepAlive(keep).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CoreTest, DevicesAndDeviceHandles) {
  ServiceOptions options;
  options.platforms = {"interpreter", "interpreter"};
  Start(options);
  ListDevicesRequest list;
  list.set_session_id(session_);
  auto devices = core_->ListDevices(list);
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->devices_size(), 2);
  EXPECT_EQ(devices->devices(1).ordinal(), 1);
  EXPECT_EQ(devices->devices(1).platform(), "interpreter");
  GetDeviceHandlesRequest handles;
  handles.set_session_id(session_);
  handles.set_device_count(2);
  auto response = core_->GetDeviceHandles(handles);
  ASSERT_TRUE(response.ok());
  ASSERT_EQ(response->device_handles_size(), 2);
  EXPECT_EQ(response->device_handles(1).handle(), 1);
  handles.set_device_count(3);
  EXPECT_EQ(core_->GetDeviceHandles(handles).status().code(), absl::StatusCode::kInvalidArgument);
  ResetDeviceRequest reset;
  reset.set_session_id(session_);
  reset.set_device_ordinal(1);
  EXPECT_TRUE(core_->ResetDevice(reset).ok());
  reset.set_device_ordinal(2);
  EXPECT_EQ(core_->ResetDevice(reset).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Status().devices_size(), 2);
}

TEST_F(CoreTest, CompileExecuteAndShapes) {
  auto compiled = Compile(kAddModule);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_FALSE(compiled->cache_hit());
  EXPECT_EQ(compiled->program_shape().parameters_size(), 2);
  auto x = Upload(L("f32[2] {1, 2}"));
  auto y = Upload(L("f32[2] {10, 20}"));
  ASSERT_TRUE(x.ok() && y.ok());
  auto result = Execute(compiled->execution_handle(), {*x, *y});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(result->profile().compilation_cache_hit());  // this handle's Compile compiled it
  EXPECT_GE(result->profile().compute_time_ns(), 0);
  auto value = Download(result->result_handle());
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, L("f32[2] {11, 22}"));

  GetShapeRequest shape;
  shape.set_session_id(session_);
  shape.set_handle(result->result_handle());
  auto shape_response = core_->GetShape(shape);
  ASSERT_TRUE(shape_response.ok());
  EXPECT_EQ(shape_response->shape().dimensions(0), 2);
  shape.set_handle(123456789);
  EXPECT_EQ(core_->GetShape(shape).status().code(), absl::StatusCode::kNotFound);

  GetComputationShapeRequest program;
  program.set_session_id(session_);
  program.set_execution_handle(compiled->execution_handle());
  auto program_shape = core_->GetComputationShape(program);
  ASSERT_TRUE(program_shape.ok());
  EXPECT_EQ(program_shape->program_shape().parameters_size(), 2);
  program.set_execution_handle(*x);  // a data handle is not an executable
  EXPECT_EQ(core_->GetComputationShape(program).status().code(), absl::StatusCode::kNotFound);

  ExecuteAndTransferRequest transfer;
  transfer.set_session_id(session_);
  transfer.set_execution_handle(compiled->execution_handle());
  *transfer.add_arguments() = L("f32[2] {1, 1}").ToProto();
  *transfer.add_arguments() = L("f32[2] {2, 3}").ToProto();
  auto direct = core_->ExecuteAndTransfer(transfer);
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  auto direct_value = Literal::FromProto(direct->result());
  ASSERT_TRUE(direct_value.ok());
  EXPECT_EQ(*direct_value, L("f32[2] {3, 4}"));
  *transfer.mutable_arguments(1) = L("s32[2] {2, 3}").ToProto();
  auto wrong = core_->ExecuteAndTransfer(transfer);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("parameter 'y'"));
}

TEST_F(CoreTest, MalformedModulesAndLimits) {
  auto bad = Compile("HloModule m\nENTRY main {\n  x = f32[2] parameter(0)\n  ROOT r = f32[2] bogus(x)\n}");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), ::testing::MatchesRegex("^4:[0-9]+: .*"));
  // Parses, but fails verification (add of mismatched shapes).
  auto unverified = Compile(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[3] parameter(1)
  ROOT r = f32[2] add(x, y)
})");
  EXPECT_EQ(unverified.status().code(), absl::StatusCode::kInvalidArgument);
  CompileRequest proto;
  proto.set_session_id(session_);
  proto.set_hlo_module_proto("\x01\x02garbage");
  EXPECT_EQ(core_->Compile(proto).status().code(), absl::StatusCode::kInvalidArgument);
  CompileRequest empty;
  empty.set_session_id(session_);
  EXPECT_EQ(core_->Compile(empty).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Compile(kAddModule, "", 7).status().code(), absl::StatusCode::kInvalidArgument);

  ServiceOptions options;
  options.max_module_bytes = 64;
  Start(options);
  EXPECT_EQ(Compile(kAddModule).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(CoreTest, CompilesSerializedProtos) {
  auto module = ParseAndReturnUnverifiedModule(kAddModule);
  ASSERT_TRUE(module.ok());
  CompileRequest request;
  request.set_session_id(session_);
  request.set_hlo_module_proto(HloModuleToProto(**module).SerializeAsString());
  auto compiled = core_->Compile(request);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  auto x = Upload(L("f32[2] {1, 2}"));
  auto result = Execute(compiled->execution_handle(), {*x, *x});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*Download(result->result_handle()), L("f32[2] {2, 4}"));
}

TEST_F(CoreTest, WrongArgumentCountShapeAndDevice) {
  ServiceOptions options;
  options.platforms = {"interpreter", "interpreter"};
  Start(options);
  auto compiled = Compile(kAddModule);
  ASSERT_TRUE(compiled.ok());
  auto x = Upload(L("f32[2] {1, 2}"));
  auto wide = Upload(L("f32[3] {1, 2, 3}"));
  auto elsewhere = Upload(L("f32[2] {1, 2}"), "", /*device=*/1);
  ASSERT_TRUE(x.ok() && wide.ok() && elsewhere.ok());
  auto count = Execute(compiled->execution_handle(), {*x});
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(count.status().message()), HasSubstr("takes 2 arguments, got 1"));
  auto shape = Execute(compiled->execution_handle(), {*x, *wide});
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr("argument 1 (parameter 'y')"));
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr("f32[3]"));
  auto device = Execute(compiled->execution_handle(), {*x, *elsewhere});
  EXPECT_EQ(device.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("device 1"));
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("device 0"));
  auto unknown = Execute(compiled->execution_handle(), {*x, 999999});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  // Compiled for device 1, it runs there.
  auto on1 = Compile(kAddModule, "", 1);
  ASSERT_TRUE(on1.ok());
  EXPECT_FALSE(on1->cache_hit());
  auto result = Execute(on1->execution_handle(), {*elsewhere, *elsewhere});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*Download(result->result_handle()), L("f32[2] {2, 4}"));
}

TEST_F(CoreTest, SessionsAreIsolated) {
  const std::string other = Open();
  auto compiled = Compile(kAddModule);
  auto x = Upload(L("f32[2] {1, 2}"));
  ASSERT_TRUE(compiled.ok() && x.ok());
  EXPECT_EQ(Download(*x, other).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Execute(compiled->execution_handle(), {*x, *x}, {}, other).status().code(),
            absl::StatusCode::kNotFound);
  UnregisterRequest unregister;
  unregister.set_session_id(other);
  unregister.add_handles(*x);
  EXPECT_EQ(core_->Unregister(unregister).status().code(), absl::StatusCode::kNotFound);
  DeconstructTupleRequest deconstruct;
  deconstruct.set_session_id(other);
  deconstruct.set_handle(*x);
  EXPECT_EQ(core_->DeconstructTuple(deconstruct).status().code(), absl::StatusCode::kNotFound);
  // The owner still has it, intact.
  EXPECT_EQ(*Download(*x), L("f32[2] {1, 2}"));
}

TEST_F(CoreTest, LeaseExpiryFreesTheSession) {
  const std::string short_lived = Open(/*lease_ms=*/200);
  auto x = Upload(L("f32[4] {1, 2, 3, 4}"), short_lived);
  ASSERT_TRUE(x.ok());
  auto has_session = [&] {
    const GetStatusResponse status = Status();
    for (const SessionStatus& s : status.sessions()) {
      if (s.session_id() == short_lived.substr(0, 8)) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_session());
  // Calls renew the lease.
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    KeepAliveRequest keep;
    keep.set_session_id(short_lived);
    ASSERT_TRUE(core_->KeepAlive(keep).ok()) << i;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_FALSE(has_session());  // the reaper freed it without any call
  EXPECT_EQ(Download(*x, short_lived).status().code(), absl::StatusCode::kNotFound);
  KeepAliveRequest keep;
  keep.set_session_id(session_);
  EXPECT_TRUE(core_->KeepAlive(keep).ok());  // the default lease is long
}

TEST_F(CoreTest, CompileCacheHitsAndSingleFlight) {
  auto first = Compile(kAddModule);
  auto second = Compile(kAddModule);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE(first->cache_hit());
  EXPECT_TRUE(second->cache_hit());
  EXPECT_NE(first->execution_handle(), second->execution_handle());
  EXPECT_EQ(Status().cache_hits(), 1);
  auto x = Upload(L("f32[2] {1, 2}"));
  ASSERT_TRUE(x.ok());
  auto run = Execute(second->execution_handle(), {*x, *x});
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->profile().compilation_cache_hit());
  EXPECT_EQ(run->profile().compile_time_ms(), static_cast<int64_t>(second->compile_ms()));

  const std::string module = R"(HloModule concurrent
ENTRY main {
  x = f32[8] parameter(0)
  ROOT r = f32[8] multiply(x, x)
})";
  std::atomic<int> misses{0}, failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto response = Compile(module);
      if (!response.ok()) {
        failures++;
      } else if (!response->cache_hit()) {
        misses++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(misses.load(), 1);
  EXPECT_EQ(Status().cache_hits(), 8);
  EXPECT_EQ(Status().cache_entries(), 2);
  // Errors are not cached and never poison the cache.
  EXPECT_FALSE(Compile("HloModule broken\nENTRY {").ok());
  EXPECT_EQ(Status().cache_entries(), 2);
}

TEST_F(CoreTest, RepeatedRequestsHitWithoutParsingAndEquivalentTextStillHits) {
  auto first = Compile(kAddModule);
  ASSERT_TRUE(first.ok()) << first.status();
  // The same bytes: the exact-request path.
  auto same = Compile(kAddModule);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(same->cache_hit());
  // Different bytes, same module (a comment and other spacing): the canonical path.
  auto spaced = Compile(std::string("// the same computation\n") + kAddModule + "\n\n");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_TRUE(spaced->cache_hit());
  EXPECT_EQ(Status().cache_entries(), 1);
  // Asked-for layouts are part of the request: the same text compiled with explicit argument
  // layouts is another cache entry, on the exact path as on the canonical one.
  CompileRequest with_layout;
  with_layout.set_session_id(session_);
  with_layout.set_hlo_text(kAddModule);
  const ProgramShape shape = ProgramShape::FromProto(first->program_shape()).value();
  for (const Shape& parameter : shape.parameters()) *with_layout.add_argument_layouts() = parameter.ToProto();
  auto laid_out = core_->Compile(with_layout);
  ASSERT_TRUE(laid_out.ok()) << laid_out.status();
  EXPECT_FALSE(laid_out->cache_hit());
  auto laid_out_again = core_->Compile(with_layout);
  ASSERT_TRUE(laid_out_again.ok()) << laid_out_again.status();
  EXPECT_TRUE(laid_out_again->cache_hit());
  EXPECT_EQ(Status().cache_entries(), 2);
  EXPECT_EQ(Status().cache_hits(), 3);
}

TEST_F(CoreTest, CacheIsBoundedButHandlesSurviveEviction) {
  ServiceOptions options;
  options.cache_entries = 2;
  Start(options);
  std::vector<int64_t> handles;
  for (int i = 0; i < 4; ++i) {
    auto compiled = Compile(absl::StrCat("HloModule m", i, R"(
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[2] add(x, x)
})"));
    ASSERT_TRUE(compiled.ok());
    handles.push_back(compiled->execution_handle());
  }
  EXPECT_LE(Status().cache_entries(), 2);
  auto x = Upload(L("f32[2] {1, 2}"));
  auto result = Execute(handles[0], {*x});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*Download(result->result_handle()), L("f32[2] {2, 4}"));
}

TEST_F(CoreTest, DeconstructTupleAndUnregister) {
  auto tuple = Upload(L("(f32[2], s32[]) ({1, 2}, 7)"));
  ASSERT_TRUE(tuple.ok());
  DeconstructTupleRequest request;
  request.set_session_id(session_);
  request.set_handle(*tuple);
  auto elements = core_->DeconstructTuple(request);
  ASSERT_TRUE(elements.ok()) << elements.status().message();
  ASSERT_EQ(elements->element_handles_size(), 2);
  EXPECT_EQ(*Download(elements->element_handles(0)), L("f32[2] {1, 2}"));
  EXPECT_EQ(*Download(elements->element_handles(1)), L("s32[] 7"));
  request.set_handle(elements->element_handles(0));
  EXPECT_EQ(core_->DeconstructTuple(request).status().code(), absl::StatusCode::kInvalidArgument);

  UnregisterRequest unregister;
  unregister.set_session_id(session_);
  unregister.add_handles(*tuple);
  unregister.add_handles(elements->element_handles(0));
  ASSERT_TRUE(core_->Unregister(unregister).ok());
  // The views outlive the tuple's handle.
  EXPECT_EQ(*Download(elements->element_handles(1)), L("s32[] 7"));
  EXPECT_EQ(Download(*tuple).status().code(), absl::StatusCode::kNotFound);
  // Again: both unknown now; a known one in the batch is still released.
  unregister.add_handles(elements->element_handles(1));
  auto again = core_->Unregister(unregister);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Download(elements->element_handles(1)).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(SessionMemory(), 0);
}

TEST_F(CoreTest, DonationInvalidatesTheHandle) {
  auto compiled = Compile(kAddModule);
  auto x = Upload(L("f32[2] {1, 2}"));
  auto y = Upload(L("f32[2] {3, 4}"));
  ASSERT_TRUE(compiled.ok() && x.ok() && y.ok());
  auto result = Execute(compiled->execution_handle(), {*x, *y}, /*donated=*/{0});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*Download(result->result_handle()), L("f32[2] {4, 6}"));
  auto reuse = Execute(compiled->execution_handle(), {*x, *y});
  EXPECT_EQ(reuse.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(reuse.status().message()), HasSubstr("donated"));
  EXPECT_EQ(Download(*x).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(*Download(*y), L("f32[2] {3, 4}"));
  EXPECT_EQ(Execute(compiled->execution_handle(), {*y, *y}, {0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Execute(compiled->execution_handle(), {*y, *y}, {5}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A cache updated step after step, each step donating the last result, in synchronous and
// asynchronous executions (on cpu the update then happens in the donated memory).
TEST_F(CoreTest, DonatedResultsChainThroughAliasedUpdates) {
  ServiceOptions options;
  options.platforms = {HaveCpu() ? "cpu" : "interpreter"};
  Start(options);
  auto compiled = Compile(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = s32[6] parameter(0)
  u = s32[1] parameter(1)
  i = s32[] parameter(2)
  ROOT d = s32[6] dynamic-update-slice(cache, u, i)
})");
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  auto cache = Upload(L("s32[6] {0, 0, 0, 0, 0, 0}"));
  ASSERT_TRUE(cache.ok());
  const int64_t first = *cache;
  int64_t current = first;
  for (int32_t step = 0; step < 6; ++step) {
    auto u = Upload(L(absl::StrCat("s32[1] {", step + 10, "}")));
    auto i = Upload(Literal::CreateR0<int32_t>(step));
    ASSERT_TRUE(u.ok() && i.ok());
    ExecuteRequest request;
    request.set_session_id(session_);
    request.set_execution_handle(compiled->execution_handle());
    for (int64_t a : {current, *u, *i}) request.add_arguments(a);
    request.add_donated_arguments(0);
    request.set_run_async(step % 2 == 1);
    auto result = core_->Execute(request);
    ASSERT_TRUE(result.ok()) << result.status().message();
    current = result->result_handle();
  }
  EXPECT_EQ(*Download(current), L("s32[6] {10, 11, 12, 13, 14, 15}"));
  EXPECT_EQ(Download(first).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(CoreTest, ExecuteParallel) {
  auto compiled = Compile(kAddModule);
  auto x = Upload(L("f32[2] {1, 2}"));
  ASSERT_TRUE(compiled.ok() && x.ok());
  ExecuteParallelRequest request;
  for (int i = 0; i < 3; ++i) {
    ExecuteRequest* one = request.add_requests();
    one->set_session_id(session_);
    one->set_execution_handle(compiled->execution_handle());
    one->add_arguments(*x);
    one->add_arguments(*x);
  }
  auto response = core_->ExecuteParallel(request);
  ASSERT_TRUE(response.ok()) << response.status().message();
  ASSERT_EQ(response->responses_size(), 3);
  for (const ExecuteResponse& r : response->responses()) {
    EXPECT_EQ(*Download(r.result_handle()), L("f32[2] {2, 4}"));
  }
  request.mutable_requests(1)->set_execution_handle(424242);
  auto failed = core_->ExecuteParallel(request);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("execution 1"));
}

TEST_F(CoreTest, ManyThreadsMixedCalls) {
  auto compiled = Compile(kAddModule);
  ASSERT_TRUE(compiled.ok());
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const std::string session = (t % 2 == 0) ? session_ : Open();
      // Executables belong to a session: each session compiles (a cache hit) for itself.
      auto own = Compile(kAddModule, session);
      if (!own.ok() || !own->cache_hit()) errors++;
      const int64_t executable = own.ok() ? own->execution_handle() : -1;
      for (int i = 0; i < 50; ++i) {
        const float a = static_cast<float>(t * 100 + i);
        auto x = Upload(Literal::CreateR1<float>({a, 1}), session);
        if (!x.ok()) { errors++; continue; }
        switch (i % 3) {
          case 0: {
            auto r = Execute(executable, {*x, *x}, {}, session);
            if (!r.ok() || *Download(r->result_handle(), session) != Literal::CreateR1<float>({2 * a, 2})) errors++;
            break;
          }
          case 1: {
            auto c = Compile(kAddModule, session);
            if (!c.ok() || !c->cache_hit()) errors++;
            break;
          }
          default: {
            auto back = Download(*x, session);
            if (!back.ok() || *back != Literal::CreateR1<float>({a, 1})) errors++;
            UnregisterRequest unregister;
            unregister.set_session_id(session);
            unregister.add_handles(*x);
            if (!core_->Unregister(unregister).ok()) errors++;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(Status().executions_in_flight(), 0);
}

}  // namespace
}  // namespace server
}  // namespace xla
