// Sessions (leases, reaper), the per-session handle table and memory accounting.

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {
namespace {

constexpr int64_t kMaxLeaseMs = int64_t{24} * 3600 * 1000;
constexpr auto kReaperPeriod = std::chrono::milliseconds(50);

std::string RandomSessionId() {
  std::random_device device;  // /dev/urandom on Linux
  std::string id;
  for (int i = 0; i < 4; ++i) absl::StrAppendFormat(&id, "%08x", static_cast<uint32_t>(device()));
  return id;
}

absl::Status UnknownSession(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("unknown or expired session '", id.substr(0, 8),
                                          id.size() > 8 ? "...'" : "'"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<Session>> ServiceCore::Impl::FindSession(const std::string& id) {
  std::shared_ptr<Session> session;
  {
    absl::MutexLock lock(&mu);
    auto it = sessions.find(id);
    if (it == sessions.end()) return UnknownSession(id);
    session = it->second;
  }
  bool expired = false;
  {
    absl::MutexLock lock(&session->mu);
    if (session->closed) return UnknownSession(id);
    const Clock::time_point now = Clock::now();
    if (session->Expired(now)) {
      expired = true;
    } else {
      session->deadline = now + std::chrono::milliseconds(session->lease_ms);
    }
  }
  if (expired) {
    DropSession(session);
    return UnknownSession(id);
  }
  return session;
}

void ServiceCore::Impl::DropSession(const std::shared_ptr<Session>& session) {
  std::vector<std::shared_ptr<Upload>> dropped_uploads;
  {
    absl::MutexLock lock(&mu);
    auto it = sessions.find(session->id);
    if (it != sessions.end() && it->second == session) sessions.erase(it);
    for (auto it = uploads.begin(); it != uploads.end();) {
      if (it->second->session == session) {
        dropped_uploads.push_back(it->second);
        it = uploads.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Free outside the locks (buffers may be large).
  std::map<int64_t, std::shared_ptr<GlobalData>> data;
  std::map<int64_t, SessionExecutable> executables;
  {
    absl::MutexLock lock(&session->mu);
    session->closed = true;
    session->dropped = true;
    data.swap(session->data);
    executables.swap(session->executables);
    session->donated.clear();
    session->memory_bytes = 0;
  }
  for (auto& upload : dropped_uploads) {
    std::lock_guard<std::mutex> lock(upload->mu);
    upload->literal = Literal();
    upload->writer = LeafWriter();
  }
}

void ServiceCore::Impl::ReapExpired() {
  std::vector<std::shared_ptr<Session>> expired;
  {
    absl::MutexLock lock(&mu);
    const Clock::time_point now = Clock::now();
    for (auto& [id, session] : sessions) {
      absl::MutexLock session_lock(&session->mu);
      if (session->Expired(now)) expired.push_back(session);
    }
  }
  for (auto& session : expired) DropSession(session);
}

void ServiceCore::Impl::ReaperLoop() {
  std::unique_lock<std::mutex> lock(reaper_mu);
  while (!stopping) {
    reaper_cv.wait_for(lock, kReaperPeriod, [&] { return stopping; });
    if (stopping) break;
    lock.unlock();
    ReapExpired();
    lock.lock();
  }
}

absl::Status ServiceCore::Impl::CheckQuota(int64_t used, int64_t extra) const {
  if (options.max_session_memory_bytes > 0 && used + extra > options.max_session_memory_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "session memory quota exceeded: ", used, " bytes in use + ", extra, " requested > limit ",
        options.max_session_memory_bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<GlobalData>> ServiceCore::Impl::LookupData(Session& session,
                                                                          int64_t handle) {
  absl::MutexLock lock(&session.mu);
  auto it = session.data.find(handle);
  if (it != session.data.end()) return it->second;
  if (session.donated.count(handle)) {
    return absl::FailedPreconditionError(
        absl::StrCat("global data handle ", handle, " was donated to an execution and is no longer valid"));
  }
  return absl::NotFoundError(absl::StrCat("unknown global data handle ", handle));
}

absl::StatusOr<SessionExecutable> ServiceCore::Impl::LookupProgram(Session& session,
                                                                   int64_t handle) {
  absl::MutexLock lock(&session.mu);
  auto it = session.executables.find(handle);
  if (it == session.executables.end()) {
    return absl::NotFoundError(absl::StrCat("unknown execution handle ", handle));
  }
  return it->second;
}

absl::StatusOr<int64_t> ServiceCore::Impl::RegisterData(Session& session,
                                                        std::shared_ptr<backend::Buffer> buffer,
                                                        const Shape& shape, int device,
                                                        bool check_quota) {
  auto data = std::make_shared<GlobalData>();
  data->buffer = std::move(buffer);
  data->shape = shape;
  data->device = device;
  data->bytes = StorageBytes(shape);
  absl::MutexLock lock(&session.mu);
  if (session.closed) return UnknownSession(session.id);
  if (check_quota) RETURN_IF_ERROR(CheckQuota(session.memory_bytes, data->bytes));
  const int64_t handle = NewHandle();
  session.memory_bytes += data->bytes;
  session.data.emplace(handle, std::move(data));
  return handle;
}

absl::StatusOr<OpenSessionResponse> ServiceCore::OpenSession(const OpenSessionRequest& request) {
  if (request.protocol_version() < kMinProtocolVersion ||
      request.protocol_version() > kMaxProtocolVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "protocol version ", request.protocol_version(), " is not supported; this server speaks [",
        kMinProtocolVersion, ", ", kMaxProtocolVersion, "]"));
  }
  if (request.lease_ms() < 0) return absl::InvalidArgumentError("lease_ms must be >= 0");
  auto session = std::make_shared<Session>();
  session->client_name = request.client_name().substr(0, 256);
  session->lease_ms = request.lease_ms() > 0 ? std::min(request.lease_ms(), kMaxLeaseMs)
                                             : impl_->options.default_lease_ms;
  {
    absl::MutexLock lock(&session->mu);
    session->deadline = Clock::now() + std::chrono::milliseconds(session->lease_ms);
  }
  {
    absl::MutexLock lock(&impl_->mu);
    do {
      session->id = RandomSessionId();
    } while (impl_->sessions.count(session->id));
    impl_->sessions.emplace(session->id, session);
  }
  OpenSessionResponse response;
  response.set_session_id(session->id);
  response.set_lease_ms(session->lease_ms);
  return response;
}

absl::StatusOr<CloseSessionResponse> ServiceCore::CloseSession(const CloseSessionRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  impl_->DropSession(session);
  return CloseSessionResponse();
}

absl::StatusOr<KeepAliveResponse> ServiceCore::KeepAlive(const KeepAliveRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  KeepAliveResponse response;
  response.set_lease_ms(session->lease_ms);
  return response;
}

absl::StatusOr<GetShapeResponse> ServiceCore::GetShape(const GetShapeRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ASSIGN_OR_RETURN(auto data, impl_->LookupData(*session, request.handle()));
  GetShapeResponse response;
  if (data->pending != nullptr) {
    // The layout is the one the backend produces: wait for it.
    ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> buffer, data->Ready());
    *response.mutable_shape() = buffer->shape().ToProto();
    return response;
  }
  *response.mutable_shape() = data->shape.ToProto();
  return response;
}

absl::StatusOr<GetComputationShapeResponse> ServiceCore::GetComputationShape(
    const GetComputationShapeRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ASSIGN_OR_RETURN(auto program, impl_->LookupProgram(*session, request.execution_handle()));
  GetComputationShapeResponse response;
  *response.mutable_program_shape() = program.program->program_shape.ToProto();
  return response;
}

absl::StatusOr<DeconstructTupleResponse> ServiceCore::DeconstructTuple(
    const DeconstructTupleRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ASSIGN_OR_RETURN(auto data, impl_->LookupData(*session, request.handle()));
  if (!data->shape.IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat("global data handle ", request.handle(),
                                                   " is not a tuple: ", data->shape.ToString()));
  }
  // Views of the tuple's element buffers (shared, refcounted as XLA's allocation tracker).
  ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> tuple, data->Ready());
  std::vector<std::shared_ptr<backend::Buffer>> elements = tuple->tuple_elements();
  if (static_cast<int64_t>(elements.size()) != tuple->shape().tuple_shapes_size()) {
    return absl::InternalError("backend returned a wrong number of tuple elements");
  }
  DeconstructTupleResponse response;
  for (size_t i = 0; i < elements.size(); ++i) {
    ASSIGN_OR_RETURN(int64_t handle,
                     impl_->RegisterData(*session, std::move(elements[i]),
                                         tuple->shape().tuple_shapes(static_cast<int>(i)), data->device,
                                         /*check_quota=*/false));
    response.add_element_handles(handle);
  }
  return response;
}

absl::StatusOr<UnregisterResponse> ServiceCore::Unregister(const UnregisterRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  // As XLA: every known handle is released; unknown ones are reported together.
  std::vector<std::shared_ptr<GlobalData>> released;
  std::vector<int64_t> unknown;
  {
    absl::MutexLock lock(&session->mu);
    for (int64_t handle : request.handles()) {
      auto it = session->data.find(handle);
      if (it == session->data.end()) {
        unknown.push_back(handle);
        continue;
      }
      session->memory_bytes -= it->second->bytes;
      released.push_back(std::move(it->second));
      session->data.erase(it);
    }
  }
  released.clear();
  if (!unknown.empty()) {
    std::string list;
    for (int64_t h : unknown) absl::StrAppend(&list, list.empty() ? "" : ", ", h);
    return absl::NotFoundError(absl::StrCat("unknown global data handle(s): ", list));
  }
  return UnregisterResponse();
}

}  // namespace server
}  // namespace xla
