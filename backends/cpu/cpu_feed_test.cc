// infeed and outfeed on cpu (runtime/feeds.cc) against the interpreter: the same queued
// values give the same results and outfeed values, with non-default layouts, tuples, and
// feeds inside a while loop; a value of the wrong shape stops the execution with the
// interpreter's error; send and recv, which have no peer on one device, are UNIMPLEMENTED.
#include <string>
#include <vector>

#include "backends/cpu/cpu_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using xla::testing::L;

struct FeedRun {
  absl::StatusOr<Literal> result;
  std::vector<Literal> outfed;
};

// Queues `infeed`, runs `hlo` once on `platform`, and pops `outfeed_shapes` afterwards.
FeedRun RunWithFeeds(const std::string& platform, const std::string& hlo, const std::vector<Literal>& infeed,
                 const std::vector<Shape>& outfeed_shapes) {
  testing::RegisterBackendsOnce();
  FeedRun run{absl::UnknownError("not run"), {}};
  auto backend = backend::CreateBackend(platform);
  auto module = ParseAndReturnUnverifiedModule(hlo);
  if (!backend.ok() || !module.ok()) return run;
  for (const Literal& value : infeed) EXPECT_TRUE((*backend)->TransferToInfeed(0, value.Clone()).ok());
  auto executable = (*backend)->Compile(*std::move(module), backend::CompileOptions());
  if (!executable.ok()) {
    run.result = executable.status();
    return run;
  }
  auto buffer = (*executable)->Execute({}, backend::ExecuteOptions());
  if (!buffer.ok()) {
    run.result = buffer.status();
    return run;
  }
  run.result = (*backend)->TransferFromDevice(**buffer);
  for (const Shape& shape : outfeed_shapes) {
    auto value = (*backend)->TransferFromOutfeed(0, shape, 1000);
    EXPECT_TRUE(value.ok()) << platform << ": " << value.status().message();
    if (value.ok()) run.outfed.push_back(*std::move(value));
  }
  return run;
}

TEST(CpuFeeds, LoopOfInfeedsAndOutfeedsMatchesTheInterpreter) {
  const std::string hlo = R"(HloModule m
cond {
  p = (s32[], f32[2,3]{0,1}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[2,3]{0,1}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[2,3]{0,1} get-tuple-element(p), index=1
  t = token[] after-all()
  in = ((f32[2,3]{0,1}, u8[2]), token[]) infeed(t)
  data = (f32[2,3]{0,1}, u8[2]) get-tuple-element(in), index=0
  x = f32[2,3]{0,1} get-tuple-element(data), index=0
  sum = f32[2,3]{0,1} add(acc, x)
  t2 = token[] get-tuple-element(in), index=1
  out = token[] outfeed(data, t2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[2,3]{0,1}) tuple(i2, sum)
}
ENTRY e {
  z = s32[] constant(0)
  zero = f32[] constant(0)
  acc = f32[2,3]{0,1} broadcast(zero), dimensions={}
  init = (s32[], f32[2,3]{0,1}) tuple(z, acc)
  w = (s32[], f32[2,3]{0,1}) while(init), condition=cond, body=body
  s = f32[2,3]{0,1} get-tuple-element(w), index=1
  t = token[] after-all()
  o = token[] outfeed(s, t)
  ROOT rs = f32[2,3]{0,1} copy(s)
})";
  std::vector<Literal> infeed;
  infeed.push_back(L("(f32[2,3], u8[2]) ({{1, 2, 3}, {4, 5, 6}}, {1, 2})"));
  infeed.push_back(L("(f32[2,3], u8[2]) ({{-1, 0.5, 8}, {nan, -0, 1e30}}, {3, 255})"));
  infeed.push_back(L("(f32[2,3], u8[2]) ({{0, 0, 0}, {0, 0, 1}}, {0, 9})"));
  const Shape row = *ParseShape("(f32[2,3], u8[2])");
  const std::vector<Shape> outfeed = {row, row, row, ShapeUtil::MakeShape(F32, {2, 3})};
  FeedRun expected = RunWithFeeds("interpreter", hlo, infeed, outfeed);
  FeedRun actual = RunWithFeeds("cpu", hlo, infeed, outfeed);
  ASSERT_TRUE(expected.result.ok()) << expected.result.status().message();
  EXPECT_TRUE(xla::testing::LiteralEqual(*expected.result, actual.result));
  ASSERT_EQ(expected.outfed.size(), actual.outfed.size());
  for (size_t i = 0; i < expected.outfed.size(); ++i) {
    EXPECT_TRUE(xla::testing::LiteralEqual(expected.outfed[i], actual.outfed[i].Clone())) << "outfeed " << i;
  }
}

TEST(CpuFeeds, WrongInfeedShapeStopsTheExecution) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  t = token[] after-all()
  in = (s32[4], token[]) infeed(t)
  ROOT v = s32[4] get-tuple-element(in), index=0
})";
  std::vector<Literal> infeed;
  infeed.push_back(L("s32[3] {1, 2, 3}"));
  FeedRun expected = RunWithFeeds("interpreter", hlo, infeed, {});
  FeedRun actual = RunWithFeeds("cpu", hlo, infeed, {});
  ASSERT_FALSE(actual.result.ok());
  EXPECT_EQ(actual.result.status().code(), expected.result.status().code());
  // The interpreter prefixes the instruction's name.
  EXPECT_THAT(std::string(expected.result.status().message()),
              ::testing::HasSubstr(std::string(actual.result.status().message())));
  EXPECT_THAT(std::string(actual.result.status().message()), ::testing::HasSubstr("infeed value has shape s32[3]"));
}

TEST(CpuFeeds, SendAndRecvNameTheirChannelAsTheInterpreter) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  t = token[] after-all()
  r = (f32[], u32[], token[]) recv(t), channel_id=9, is_host_transfer=true
  d = (f32[], token[]) recv-done(r), channel_id=9, is_host_transfer=true
  ROOT v = f32[] get-tuple-element(d), index=0
})";
  FeedRun expected = RunWithFeeds("interpreter", hlo, {}, {});
  FeedRun actual = RunWithFeeds("cpu", hlo, {}, {});
  ASSERT_FALSE(actual.result.ok());
  EXPECT_EQ(actual.result.status().code(), expected.result.status().code());
  EXPECT_THAT(std::string(actual.result.status().message()), ::testing::HasSubstr("recv on channel 9 (host transfer)"));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
