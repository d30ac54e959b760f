// Server plumbing: config validation, bearer-token auth, TLS / mutual TLS, health service.

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <fstream>
#include <sstream>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "server/grpc_test_util.h"

namespace xla::server {
namespace {

using testing::Context;
using testing::LocalConfig;
using testing::MakeStub;
using testing::TempDir;

TEST(ServerConfigTest, LoopbackAddresses) {
  EXPECT_TRUE(IsLoopbackListenAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackListenAddress("127.1.2.3:0"));
  EXPECT_TRUE(IsLoopbackListenAddress("localhost:1"));
  EXPECT_TRUE(IsLoopbackListenAddress("[::1]:50051"));
  EXPECT_FALSE(IsLoopbackListenAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackListenAddress("[::]:50051"));
  EXPECT_FALSE(IsLoopbackListenAddress(":50051"));
  EXPECT_FALSE(IsLoopbackListenAddress("10.0.0.7:50051"));
  EXPECT_FALSE(IsLoopbackListenAddress("127.0.0.1.example.com:1"));
}

TEST(ServerConfigTest, NonLoopbackNeedsTokenTlsOrInsecure) {
  ServerConfig config;
  config.listen = "0.0.0.0:50051";
  absl::Status status = ValidateServerConfig(config);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("--insecure"), std::string::npos) << status;

  config.insecure = true;
  EXPECT_TRUE(ValidateServerConfig(config).ok());
  config.insecure = false;
  config.auth_token_file = "/some/token";
  EXPECT_TRUE(ValidateServerConfig(config).ok());
  config.auth_token_file.clear();
  config.tls_cert_file = "cert.pem";
  config.tls_key_file = "key.pem";
  EXPECT_TRUE(ValidateServerConfig(config).ok());

  // StartServer refuses too (it validates before binding).
  ServerConfig refused;
  refused.listen = "0.0.0.0:0";
  EXPECT_EQ(StartServer(refused).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ServerConfigTest, InconsistentTlsAndBadAddressesRejected) {
  ServerConfig config = LocalConfig();
  EXPECT_TRUE(ValidateServerConfig(config).ok());
  config.tls_cert_file = "cert.pem";
  EXPECT_EQ(ValidateServerConfig(config).code(), absl::StatusCode::kInvalidArgument);
  config.tls_cert_file.clear();
  config.tls_client_ca_file = "ca.pem";
  EXPECT_EQ(ValidateServerConfig(config).code(), absl::StatusCode::kInvalidArgument);
  config.tls_client_ca_file.clear();
  config.listen = "127.0.0.1";
  EXPECT_EQ(ValidateServerConfig(config).code(), absl::StatusCode::kInvalidArgument);
  config.listen = "127.0.0.1:99999";
  EXPECT_EQ(ValidateServerConfig(config).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ServerAuthTest, BearerTokenRequiredWhenConfigured) {
  TempDir dir;
  ServerConfig config = LocalConfig();
  config.auth_token_file = dir.Write("token", "s3cret-token\n");
  auto server = StartServer(config);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = MakeStub((*server)->address());

  GetVersionResponse response;
  EXPECT_EQ(stub->GetVersion(Context().get(), GetVersionRequest(), &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(stub->GetVersion(Context("wrong").get(), GetVersionRequest(), &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(stub->GetVersion(Context("s3cret-token-longer").get(), GetVersionRequest(), &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  grpc::Status ok = stub->GetVersion(Context("s3cret-token").get(), GetVersionRequest(), &response);
  EXPECT_TRUE(ok.ok()) << ok.error_message();

  // Streams are guarded too.
  auto context = Context();
  TransferToClientRequest request;
  auto reader = stub->TransferToClient(context.get(), request);
  TransferChunk chunk;
  while (reader->Read(&chunk)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST(ServerAuthTest, MissingOrEmptyTokenFileFailsToStart) {
  TempDir dir;
  ServerConfig config = LocalConfig();
  config.auth_token_file = dir.path() + "/absent";
  EXPECT_FALSE(StartServer(config).ok());
  config.auth_token_file = dir.Write("empty", "  \n");
  EXPECT_EQ(StartServer(config).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ServerHealthTest, ReportsServing) {
  auto server = StartServer(LocalConfig());
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  // grpc.health.v1.HealthCheckRequest{service=""} is the empty message; the reply
  // HealthCheckResponse{status=SERVING(1)} encodes as 08 01.
  grpc::ByteBuffer request, reply;
  grpc::Slice empty("", 0);
  request = grpc::ByteBuffer(&empty, 1);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  generic.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &reply,
                    [&](grpc::Status s) {
                      std::lock_guard<std::mutex> lock(mu);
                      status = s;
                      done = true;
                      cv.notify_all();
                    });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(reply.Dump(&slices).ok());
  std::string bytes;
  for (const auto& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
}

bool HaveOpenssl() { return std::system("openssl version >/dev/null 2>&1") == 0; }

// Self-signed cert for CN=localhost with SAN localhost and 127.0.0.1.
bool MakeCert(const TempDir& dir, const std::string& name) {
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                    "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout '" +
                    dir.path() + "/" + name + ".key' -out '" + dir.path() + "/" + name +
                    ".pem' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

grpc::ChannelArguments LocalhostTarget() {
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  return args;
}

TEST(ServerTlsTest, TlsAndMutualTls) {
  if (!HaveOpenssl()) GTEST_SKIP() << "openssl not installed";
  TempDir dir;
  ASSERT_TRUE(MakeCert(dir, "server"));
  ASSERT_TRUE(MakeCert(dir, "client"));

  // Server-side TLS.
  ServerConfig config = LocalConfig();
  config.tls_cert_file = dir.path() + "/server.pem";
  config.tls_key_file = dir.path() + "/server.key";
  auto server = StartServer(config);
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::SslCredentialsOptions trust;
  trust.pem_root_certs = Slurp(config.tls_cert_file);
  auto stub = MakeStub((*server)->address(), grpc::SslCredentials(trust), LocalhostTarget());
  GetVersionResponse response;
  grpc::Status status = stub->GetVersion(Context().get(), GetVersionRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  // A plaintext client cannot talk to it.
  auto plain = MakeStub((*server)->address());
  auto short_context = Context();
  short_context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
  EXPECT_FALSE(plain->GetVersion(short_context.get(), GetVersionRequest(), &response).ok());
  (*server)->Shutdown(std::chrono::system_clock::now());

  // Mutual TLS: the client certificate must verify against --tls-client-ca.
  config.tls_client_ca_file = dir.path() + "/client.pem";
  auto mtls = StartServer(config);
  ASSERT_TRUE(mtls.ok()) << mtls.status();
  grpc::SslCredentialsOptions with_cert = trust;
  with_cert.pem_private_key = Slurp(dir.path() + "/client.key");
  with_cert.pem_cert_chain = Slurp(dir.path() + "/client.pem");
  auto mtls_stub = MakeStub((*mtls)->address(), grpc::SslCredentials(with_cert), LocalhostTarget());
  status = mtls_stub->GetVersion(Context().get(), GetVersionRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();

  auto no_cert_stub = MakeStub((*mtls)->address(), grpc::SslCredentials(trust), LocalhostTarget());
  auto no_cert_context = Context();
  no_cert_context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
  EXPECT_FALSE(no_cert_stub->GetVersion(no_cert_context.get(), GetVersionRequest(), &response).ok());
}

TEST(ServerLifecycleTest, PortZeroPicksDistinctPortsAndShutdownIsIdempotent) {
  auto a = StartServer(LocalConfig());
  auto b = StartServer(LocalConfig());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->port(), (*b)->port());
  (*a)->Shutdown(std::chrono::system_clock::now());
  (*a)->Shutdown(std::chrono::system_clock::now());
  // Binding an occupied port fails with a clear error instead of crashing.
  ServerConfig taken = LocalConfig();
  taken.listen = "127.0.0.1:" + std::to_string((*b)->port());
  EXPECT_FALSE(StartServer(taken).ok());
}

}  // namespace
}  // namespace xla::server
