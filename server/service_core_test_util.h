#ifndef XLA_SERVER_SERVICE_CORE_TEST_UTIL_H_
#define XLA_SERVER_SERVICE_CORE_TEST_UTIL_H_

// Helpers for the service core tests: a core with one open session, uploads and downloads
// through the chunk codec.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "backends/backend.h"
#include "hlo/literal.h"
#include "server/service_core.h"

namespace xla {
namespace server {

// Whether this build has the cpu backend (LLVM 16 found).
inline bool HaveCpu() {
  backend::RegisterBuiltinBackends();
  const auto platforms = backend::RegisteredPlatforms();
  return std::find(platforms.begin(), platforms.end(), "cpu") != platforms.end();
}

inline Literal L(const std::string& text) {
  auto literal = Literal::Parse(text);
  EXPECT_TRUE(literal.ok()) << literal.status().message();
  return literal.ok() ? std::move(literal).value() : Literal();
}

class CoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(ServiceOptions()); }

  void Start(const ServiceOptions& options) {
    core_.reset();
    auto core = ServiceCore::Create(options);
    ASSERT_TRUE(core.ok()) << core.status().message();
    core_ = std::move(core).value();
    session_ = Open();
  }

  std::string Open(int64_t lease_ms = 0) {
    OpenSessionRequest request;
    request.set_protocol_version(1);
    request.set_client_name("test");
    request.set_lease_ms(lease_ms);
    auto response = core_->OpenSession(request);
    EXPECT_TRUE(response.ok()) << response.status().message();
    return response.ok() ? response->session_id() : "";
  }

  absl::StatusOr<CompileResponse> Compile(const std::string& text, const std::string& session = "",
                                          int device = 0) {
    CompileRequest request;
    request.set_session_id(session.empty() ? session_ : session);
    request.set_hlo_text(text);
    request.set_device_ordinal(device);
    return core_->Compile(request);
  }

  absl::StatusOr<int64_t> Upload(const Literal& literal, const std::string& session = "",
                                 int device = 0, size_t chunk_bytes = 1 << 20) {
    std::vector<TransferChunk> chunks;
    ForEachChunk(literal, chunk_bytes, [&](TransferChunk&& chunk) {
      chunks.push_back(std::move(chunk));
      return true;
    });
    chunks[0].set_session_id(session.empty() ? session_ : session);
    chunks[0].set_device_ordinal(device);
    auto id = core_->BeginUpload(chunks[0]);
    if (!id.ok()) return id.status();
    for (size_t i = 1; i < chunks.size(); ++i) {
      absl::Status status = core_->AppendUpload(*id, chunks[i].data());
      if (!status.ok()) return status;
    }
    auto response = core_->FinishUpload(*id);
    if (!response.ok()) return response.status();
    return response->handle();
  }

  absl::StatusOr<Literal> Download(int64_t handle, const std::string& session = "",
                                   size_t chunk_bytes = 1 << 20) {
    TransferToClientRequest request;
    request.set_session_id(session.empty() ? session_ : session);
    request.set_handle(handle);
    auto value = core_->BeginDownload(request);
    if (!value.ok()) return value.status();
    std::vector<TransferChunk> chunks;
    ForEachChunk(*value, chunk_bytes, [&](TransferChunk&& chunk) {
      chunks.push_back(std::move(chunk));
      return true;
    });
    return LiteralFromChunks(chunks);
  }

  absl::StatusOr<ExecuteResponse> Execute(int64_t executable, std::vector<int64_t> arguments,
                                          std::vector<int64_t> donated = {},
                                          const std::string& session = "") {
    ExecuteRequest request;
    request.set_session_id(session.empty() ? session_ : session);
    request.set_execution_handle(executable);
    for (int64_t a : arguments) request.add_arguments(a);
    for (int64_t d : donated) request.add_donated_arguments(d);
    return core_->Execute(request);
  }

  GetStatusResponse Status() {
    auto status = core_->GetStatus(GetStatusRequest());
    EXPECT_TRUE(status.ok());
    return status.ok() ? *status : GetStatusResponse();
  }

  int64_t SessionMemory() {
    GetStatusResponse status = Status();
    for (const SessionStatus& s : status.sessions()) {
      if (session_.substr(0, 8) == s.session_id()) return s.memory_bytes();
    }
    return -1;
  }

  std::unique_ptr<ServiceCore> core_;
  std::string session_;
};

inline constexpr const char* kAddModule = R"(HloModule add
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT r = f32[2] add(x, y)
})";

}  // namespace server
}  // namespace xla

#endif  // XLA_SERVER_SERVICE_CORE_TEST_UTIL_H_
