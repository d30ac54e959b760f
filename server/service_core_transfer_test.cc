// Chunked uploads and downloads (every element type, tuples, several MiB), the chunk codec's
// validation, memory accounting and quotas, aborted uploads, infeed and outfeed.

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "server/service_core.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace server {
namespace {

// A literal of `shape` whose storage bytes are a deterministic pattern valid for the type
// (sub-byte and PRED values stay in range).
Literal Pattern(PrimitiveType type, int64_t n, uint32_t seed) {
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type)) {
      literal.SetFromDouble(i, static_cast<double>((i * 7 + seed) % 13) - 6);
    } else if (type == PRED) {
      literal.SetFromInt64(i, (i + seed) % 2);
    } else {
      literal.SetFromInt64(i, static_cast<int64_t>((i * 5 + seed) % 7));
    }
  }
  return literal;
}

TEST_F(CoreTest, RoundTripEveryElementTypeInSmallChunks) {
  std::vector<PrimitiveType> types;
  for (int t = PrimitiveType_MIN; t <= PrimitiveType_MAX; ++t) {
    if (PrimitiveType_IsValid(t) && primitive_util::IsArrayType(static_cast<PrimitiveType>(t))) {
      types.push_back(static_cast<PrimitiveType>(t));
    }
  }
  ASSERT_GE(types.size(), 20u);
  std::vector<Literal> all;
  for (PrimitiveType type : types) {
    Literal value = Pattern(type, 37, static_cast<uint32_t>(type));
    auto handle = Upload(value, "", 0, /*chunk_bytes=*/16);
    ASSERT_TRUE(handle.ok()) << PrimitiveType_Name(type) << ": " << handle.status().message();
    auto back = Download(*handle, "", /*chunk_bytes=*/24);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, value) << PrimitiveType_Name(type);
    all.push_back(std::move(value));
  }
  // All of them in one nested tuple.
  std::vector<Literal> inner;
  inner.push_back(all[0].Clone());
  inner.push_back(all[1].Clone());
  all.push_back(Literal::MakeTuple(std::move(inner)));
  Literal tuple = Literal::MakeTuple(std::move(all));
  auto handle = Upload(tuple, "", 0, 100);
  ASSERT_TRUE(handle.ok()) << handle.status().message();
  auto back = Download(*handle, "", 77);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, tuple);
}

TEST_F(CoreTest, SeveralMiBInOneMiBChunks) {
  const int64_t n = 3 * (1 << 20) / 4 + 123;  // ~3 MiB of f32
  Literal big = *Literal::Create(ShapeUtil::MakeShape(F32, {n}));
  auto data = big.data<float>();
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(i % 1000) * 0.5f;
  std::vector<Literal> parts;
  parts.push_back(big.Clone());
  parts.push_back(Literal::CreateR1<int32_t>({1, 2, 3}));
  Literal tuple = Literal::MakeTuple(std::move(parts));
  int chunks = 0;
  ForEachChunk(tuple, 1 << 20, [&](TransferChunk&& chunk) {
    EXPECT_LE(chunk.data().size(), size_t{1} << 20);
    EXPECT_EQ(chunk.has_shape(), chunks == 0);
    ++chunks;
    return true;
  });
  EXPECT_EQ(chunks, 4);
  auto handle = Upload(tuple);
  ASSERT_TRUE(handle.ok()) << handle.status().message();
  EXPECT_EQ(SessionMemory(), n * 4 + 12);
  auto back = Download(*handle);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, tuple);
}

TEST_F(CoreTest, ChunkCodecRejectsWrongSizes) {
  std::vector<TransferChunk> chunks;
  ForEachChunk(L("f32[3] {1, 2, 3}"), 4, [&](TransferChunk&& chunk) {
    chunks.push_back(std::move(chunk));
    return true;
  });
  ASSERT_EQ(chunks.size(), 3u);
  auto ok = LiteralFromChunks(chunks);
  ASSERT_TRUE(ok.ok());
  chunks.pop_back();
  EXPECT_EQ(LiteralFromChunks(chunks).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LiteralFromChunks({}).status().code(), absl::StatusCode::kInvalidArgument);
  // A huge shape with no data is rejected before allocating.
  TransferChunk huge;
  *huge.mutable_shape() = ShapeUtil::MakeShape(F32, {int64_t{1} << 40}).ToProto();
  EXPECT_FALSE(LiteralFromChunks({huge}).ok());
  // Stopping early.
  int seen = 0;
  ForEachChunk(L("f32[3] {1, 2, 3}"), 4, [&](TransferChunk&&) { return ++seen < 2; });
  EXPECT_EQ(seen, 2);
  // An empty array still yields one chunk with the shape.
  seen = 0;
  ForEachChunk(L("f32[0] {}"), 4, [&](TransferChunk&& c) {
    EXPECT_TRUE(c.has_shape());
    return ++seen > 0;
  });
  EXPECT_EQ(seen, 1);
}

TEST_F(CoreTest, UploadErrors) {
  TransferChunk first;
  first.set_session_id(session_);
  *first.mutable_shape() = ShapeUtil::MakeShape(F32, {2}).ToProto();
  // Too many bytes.
  first.set_data(std::string(12, '\0'));
  EXPECT_EQ(core_->BeginUpload(first).status().code(), absl::StatusCode::kInvalidArgument);
  // Too few bytes.
  first.set_data(std::string(4, '\0'));
  auto id = core_->BeginUpload(first);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(core_->FinishUpload(*id).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(core_->FinishUpload(*id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(core_->AppendUpload(*id, "x").code(), absl::StatusCode::kNotFound);
  // No shape, unknown session, unknown device.
  TransferChunk no_shape;
  no_shape.set_session_id(session_);
  EXPECT_EQ(core_->BeginUpload(no_shape).status().code(), absl::StatusCode::kInvalidArgument);
  first.set_session_id("unknown");
  EXPECT_EQ(core_->BeginUpload(first).status().code(), absl::StatusCode::kNotFound);
  first.set_session_id(session_);
  first.set_device_ordinal(3);
  EXPECT_EQ(core_->BeginUpload(first).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SessionMemory(), 0);
}

TEST_F(CoreTest, QuotaAndLiteralLimit) {
  ServiceOptions options;
  options.max_session_memory_bytes = 1000;
  options.max_literal_bytes = 800;
  Start(options);
  EXPECT_EQ(Upload(Pattern(F32, 201, 1)).status().code(), absl::StatusCode::kResourceExhausted);
  auto a = Upload(Pattern(F32, 150, 1));  // 600 bytes
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(SessionMemory(), 600);
  auto b = Upload(Pattern(F32, 150, 2));  // 1200 > 1000
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(SessionMemory(), 600);
  // Another session has its own quota.
  const std::string other = Open();
  EXPECT_TRUE(Upload(Pattern(F32, 150, 3), other).ok());
  // Execution results count too.
  auto compiled = Compile(R"(HloModule m
ENTRY main {
  x = f32[150] parameter(0)
  ROOT r = f32[150] add(x, x)
})");
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(Execute(compiled->execution_handle(), {*a}).status().code(),
            absl::StatusCode::kResourceExhausted);
  UnregisterRequest unregister;
  unregister.set_session_id(session_);
  unregister.add_handles(*a);
  ASSERT_TRUE(core_->Unregister(unregister).ok());
  EXPECT_EQ(SessionMemory(), 0);
}

TEST_F(CoreTest, AbortedAndOrphanedUploadsFreeMemory) {
  TransferChunk first;
  first.set_session_id(session_);
  *first.mutable_shape() = ShapeUtil::MakeShape(U8, {1 << 20}).ToProto();
  first.set_data(std::string(1000, 'a'));
  auto id = core_->BeginUpload(first);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(core_->AppendUpload(*id, std::string(5000, 'b')).ok());
  EXPECT_EQ(SessionMemory(), 6000);
  core_->AbortUpload(*id);
  core_->AbortUpload(*id);  // unknown ids are ignored
  EXPECT_EQ(SessionMemory(), 0);
  EXPECT_EQ(core_->FinishUpload(*id).status().code(), absl::StatusCode::kNotFound);
  // An upload whose session closes mid-stream dies with it.
  auto orphan = core_->BeginUpload(first);
  ASSERT_TRUE(orphan.ok());
  CloseSessionRequest close;
  close.set_session_id(session_);
  ASSERT_TRUE(core_->CloseSession(close).ok());
  EXPECT_EQ(core_->AppendUpload(*orphan, "x").code(), absl::StatusCode::kNotFound);
}

TEST_F(CoreTest, InfeedAndOutfeed) {
  auto compiled = Compile(R"(HloModule feed
ENTRY main {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  v = f32[2] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(v, t2)
  ROOT r = f32[2] add(v, v)
})");
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  TransferToInfeedRequest infeed;
  infeed.set_session_id(session_);
  *infeed.mutable_literal() = L("f32[2] {1.5, -2}").ToProto();
  ASSERT_TRUE(core_->TransferToInfeed(infeed).ok());
  auto result = Execute(compiled->execution_handle(), {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*Download(result->result_handle()), L("f32[2] {3, -4}"));
  TransferFromOutfeedRequest outfeed;
  outfeed.set_session_id(session_);
  *outfeed.mutable_shape() = ShapeUtil::MakeShape(F32, {2}).ToProto();
  outfeed.set_timeout_ms(1000);
  auto out = core_->TransferFromOutfeed(outfeed);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*Literal::FromProto(out->literal()), L("f32[2] {1.5, -2}"));
  outfeed.set_timeout_ms(20);
  EXPECT_EQ(core_->TransferFromOutfeed(outfeed).status().code(), absl::StatusCode::kDeadlineExceeded);
  infeed.set_device_ordinal(5);
  EXPECT_EQ(core_->TransferToInfeed(infeed).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CoreTest, LeaseDoesNotLapseDuringALongCall) {
  const std::string short_lived = Open(/*lease_ms=*/150);
  TransferFromOutfeedRequest outfeed;
  outfeed.set_session_id(short_lived);
  *outfeed.mutable_shape() = ShapeUtil::MakeShape(F32, {2}).ToProto();
  outfeed.set_timeout_ms(500);  // longer than the lease; nothing is queued
  EXPECT_EQ(core_->TransferFromOutfeed(outfeed).status().code(), absl::StatusCode::kDeadlineExceeded);
  KeepAliveRequest keep;
  keep.set_session_id(short_lived);
  EXPECT_TRUE(core_->KeepAlive(keep).ok());
}

}  // namespace
}  // namespace server
}  // namespace xla
