// ServiceCore: creation, versions, devices and status. Sessions, compile, execute and
// transfers live in service_core_{sessions,compile,execute,transfer}.cc.

#include "server/service_core.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "backends/executable_format.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {

std::string Fingerprint(absl::string_view text) {
  uint64_t fnv = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : text) {
    fnv ^= c;
    fnv *= 1099511628211ull;
  }
  const uint64_t seeded = absl::Hash<absl::string_view>{}(text);
  return absl::StrCat(absl::Hex(fnv, absl::kZeroPad16), absl::Hex(seeded, absl::kZeroPad16),
                      "/", text.size());
}

ServiceCore::ServiceCore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

absl::StatusOr<std::unique_ptr<ServiceCore>> ServiceCore::Create(const ServiceOptions& options) {
  if (options.platforms.empty()) return absl::InvalidArgumentError("no platforms given");
  if (options.default_lease_ms <= 0) return absl::InvalidArgumentError("default_lease_ms must be > 0");
  if (options.cache_entries < 1) return absl::InvalidArgumentError("cache_entries must be >= 1");
  backend::RegisterBuiltinBackends();
  auto impl = std::make_unique<Impl>(options);
  for (const std::string& platform : options.platforms) {
    ASSIGN_OR_RETURN(std::unique_ptr<backend::Backend> backend, backend::CreateBackend(platform));
    for (int local = 0; local < backend->device_count(); ++local) {
      ASSIGN_OR_RETURN(backend::DeviceDescription description, backend->Describe(local));
      DeviceSlot slot;
      slot.backend = backend.get();
      slot.local_ordinal = local;
      slot.info.set_ordinal(static_cast<int32_t>(impl->devices.size()));
      slot.info.set_platform(description.platform);
      slot.info.set_name(description.name);
      slot.info.set_memory_bytes(description.memory_bytes);
      impl->devices.push_back(std::move(slot));
    }
    impl->backends.push_back(std::move(backend));
  }
  if (impl->devices.empty()) return absl::FailedPreconditionError("the platforms have no devices");
  for (size_t i = 0; i < impl->devices.size(); ++i) {
    impl->device_queues.push_back(std::make_unique<WorkerPool>(1));
  }
  Impl* raw = impl.get();
  impl->reaper = std::thread([raw] { raw->ReaperLoop(); });
  return std::unique_ptr<ServiceCore>(new ServiceCore(std::move(impl)));
}

ServiceCore::~ServiceCore() {
  // Queued asynchronous executions stop (CANCELLED) and their queues drain before anything
  // they use is freed.
  impl_->shutting_down = true;
  impl_->device_queues.clear();
  {
    std::lock_guard<std::mutex> lock(impl_->reaper_mu);
    impl_->stopping = true;
  }
  impl_->reaper_cv.notify_all();
  if (impl_->reaper.joinable()) impl_->reaper.join();
  std::vector<std::shared_ptr<Session>> sessions;
  {
    absl::MutexLock lock(&impl_->mu);
    for (auto& [id, session] : impl_->sessions) sessions.push_back(session);
  }
  for (auto& session : sessions) impl_->DropSession(session);
}

absl::StatusOr<const DeviceSlot*> ServiceCore::Impl::Device(int64_t ordinal) const {
  if (ordinal < 0 || ordinal >= static_cast<int64_t>(devices.size())) {
    return absl::InvalidArgumentError(absl::StrCat("device ", ordinal, " does not exist (the server has ",
                                                   devices.size(), " devices)"));
  }
  return &devices[ordinal];
}

absl::StatusOr<GetVersionResponse> ServiceCore::GetVersion(const GetVersionRequest&) {
  GetVersionResponse response;
  response.set_min_protocol_version(kMinProtocolVersion);
  response.set_max_protocol_version(kMaxProtocolVersion);
  response.set_server_version(absl::StrCat("xla-server ", backend::kXlaServerVersion));
  for (const std::string& platform : impl_->options.platforms) response.add_platforms(platform);
  return response;
}

absl::StatusOr<ListDevicesResponse> ServiceCore::ListDevices(const ListDevicesRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ListDevicesResponse response;
  for (const DeviceSlot& slot : impl_->devices) *response.add_devices() = slot.info;
  return response;
}

absl::StatusOr<GetDeviceHandlesResponse> ServiceCore::GetDeviceHandles(
    const GetDeviceHandlesRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  const int64_t available = static_cast<int64_t>(impl_->devices.size());
  if (request.device_count() < 1 || request.device_count() > available) {
    return absl::InvalidArgumentError(absl::StrCat("requested ", request.device_count(),
                                                   " devices; the server has ", available));
  }
  GetDeviceHandlesResponse response;
  for (int64_t i = 0; i < request.device_count(); ++i) {
    DeviceHandle* handle = response.add_device_handles();
    handle->set_handle(i);
    handle->set_device_count(1);
  }
  return response;
}

absl::StatusOr<ResetDeviceResponse> ServiceCore::ResetDevice(const ResetDeviceRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  // Devices are shared by sessions: resetting never touches other sessions' buffers.
  ASSIGN_OR_RETURN(const DeviceSlot* slot, impl_->Device(request.device_ordinal()));
  (void)slot;
  return ResetDeviceResponse();
}

absl::StatusOr<GetStatusResponse> ServiceCore::GetStatus(const GetStatusRequest&) {
  GetStatusResponse response;
  for (const DeviceSlot& slot : impl_->devices) *response.add_devices() = slot.info;
  std::vector<std::shared_ptr<Session>> sessions;
  {
    absl::MutexLock lock(&impl_->mu);
    for (auto& [id, session] : impl_->sessions) sessions.push_back(session);
  }
  for (const auto& session : sessions) {
    absl::MutexLock lock(&session->mu);
    if (session->closed) continue;
    SessionStatus* status = response.add_sessions();
    // Only a prefix: the full id is the session's credential.
    status->set_session_id(session->id.substr(0, 8));
    status->set_client_name(session->client_name);
    status->set_memory_bytes(session->memory_bytes);
    status->set_handles(static_cast<int64_t>(session->data.size()));
    status->set_executables(static_cast<int64_t>(session->executables.size()));
  }
  response.set_cache_entries(impl_->cache.size());
  response.set_cache_hits(impl_->cache.hits());
  response.set_executions_in_flight(impl_->executions_in_flight.load());
  return response;
}

}  // namespace server
}  // namespace xla
