// A TransferToServer whose value cannot be allocated fails with RESOURCE_EXHAUSTED and the
// server goes on: in a death-test child whose address space is capped, a 512 MiB upload to
// the interpreter device fails, then a small one and its download succeed on the same
// server, session and connection.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "backends/testing/address_space_cap.h"
#include "hlo/shape_util.h"
#include "server/grpc_test_util.h"

namespace xla::server::testing {
namespace {

[[noreturn]] void UploadOutOfMemoryThenRecover() {
  ServerConfig config = LocalConfig();
  config.service.platforms = {"interpreter"};  // its values are host literals
  auto server = StartServer(config);
  if (!server.ok()) std::_Exit(10);
  auto stub = MakeStub((*server)->address());
  std::string session;
  if (!OpenSession(*stub, &session).ok()) std::_Exit(11);
  auto big = Literal::Create(ShapeUtil::MakeShape(F32, {int64_t{1} << 27}));
  auto small = Literal::Parse("f32[3] {1, 2, 3}");
  if (!big.ok() || !small.ok()) std::_Exit(12);
  int64_t handle = -1;
  if (!Upload(*stub, session, *small, &handle).ok()) std::_Exit(13);  // the server's threads start
  xla::testing::AddressSpaceCap cap(int64_t{256} << 20);  // room for new threads, not for 512 MiB
  if (!cap.ok()) std::_Exit(14);
  grpc::Status failed = Upload(*stub, session, *big, &handle);
  int64_t second = -1;
  grpc::Status served = Upload(*stub, session, *small, &second);
  cap.Lift();
  if (failed.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED ||
      failed.error_message() != "TransferToServer ran out of host memory") {
    std::fprintf(stderr, "capped upload: %d %s\n", static_cast<int>(failed.error_code()),
                 failed.error_message().c_str());
    std::_Exit(15);
  }
  Literal back;
  if (!served.ok() || !Download(*stub, session, second, &back).ok() || !(back == *small)) std::_Exit(16);
  std::_Exit(0);
}

TEST(GrpcMemoryTest, UploadOutOfHostMemoryFailsTheTransferNotTheServer) {
  XLA_EXPECT_CAPPED_CHILD_PASSES(UploadOutOfMemoryThenRecover());
}

}  // namespace
}  // namespace xla::server::testing
