// Built against xla_client alone (no service core, no gRPC server code): a C++ program that
// talks to a remote xla-server links nothing of the server. If the client library grows a
// dependency on the server, this test stops linking.

#include <gtest/gtest.h>

#include <vector>

#include "client/xla_client.h"
#include "hlo/literal.h"
#include "server/transfer_codec.h"

namespace xla::client {
namespace {

TEST(StandaloneClientTest, ConnectReportsAnUnreachableServer) {
  ClientOptions options;
  options.target = "127.0.0.1:1";  // nothing listens on port 1
  options.max_retries = 0;
  options.deadline_ms = 2000;
  auto client = Client::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kUnavailable) << client.status();
}

TEST(StandaloneClientTest, ChunkCodecRoundTripsATuple) {
  std::vector<Literal> elements;
  elements.push_back(Literal::CreateR1<float>({1.5f, -2, 3}));
  elements.push_back(Literal::CreateR0<int32_t>(7));
  Literal tuple = Literal::MakeTuple(std::move(elements));
  server::ChunkAssembler assembler;
  int chunks = 0;
  server::ForEachChunk(tuple, 5, [&](server::TransferChunk&& chunk) {
    ++chunks;
    return assembler.Add(chunk).ok();
  });
  EXPECT_EQ(chunks, 4);  // 16 bytes in chunks of 5
  auto back = assembler.Finish();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, tuple);
}

}  // namespace
}  // namespace xla::client
