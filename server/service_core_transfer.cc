// Transfers: chunked uploads (TransferToServer) and downloads (TransferToClient), the chunk
// codec shared with clients, and infeed / outfeed.

#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {
namespace {

// Points the upload's leaves at its destination: for an array on a backend whose buffers
// are host memory, the device buffer itself (its bytes arrive exactly once, into memory the
// backend pools); otherwise a literal, transferred to the device when the upload finishes.
absl::Status PrepareUploadTarget(ServiceCore::Impl& impl, const Shape& shape, Upload* upload) {
  const DeviceSlot& device = impl.devices[upload->device];
  if (shape.IsArray() && upload->expected > 0) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer =
        device.backend->Allocate(shape, device.local_ordinal);
    if (buffer.ok() && (*buffer)->host_data() != nullptr &&
        (*buffer)->size_bytes() == upload->expected &&
        ShapeUtil::Equal((*buffer)->shape(), shape)) {
      upload->writer = LeafWriter({{static_cast<char*>((*buffer)->host_data()), upload->expected}});
      upload->buffer = *std::move(buffer);
      return absl::OkStatus();
    }
  }
  ASSIGN_OR_RETURN(upload->literal, Literal::Create(shape));
  std::vector<std::pair<char*, int64_t>> leaves;
  CollectLeaves(upload->literal, &leaves);
  upload->writer = LeafWriter(std::move(leaves));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> ServiceCore::BeginUpload(const TransferChunk& first_chunk) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(first_chunk.session_id()));
  ASSIGN_OR_RETURN(const DeviceSlot* device, impl_->Device(first_chunk.device_ordinal()));
  (void)device;
  if (!first_chunk.has_shape()) return absl::InvalidArgumentError("the first chunk carries no shape");
  ASSIGN_OR_RETURN(Shape shape, ValidatedShape(first_chunk.shape()));
  const int64_t expected = StorageBytes(shape);
  if (expected > impl_->options.max_literal_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("a literal of shape ", shape.ToString(), " (", expected,
                                                     " bytes) exceeds the limit of ",
                                                     impl_->options.max_literal_bytes, " bytes"));
  }
  {
    absl::MutexLock lock(&session->mu);
    RETURN_IF_ERROR(impl_->CheckQuota(session->memory_bytes, expected));
  }
  auto upload = std::make_shared<Upload>();
  upload->session = session;
  upload->device = first_chunk.device_ordinal();
  upload->expected = expected;
  upload->shape = shape;
  RETURN_IF_ERROR(PrepareUploadTarget(*impl_, shape, upload.get()));
  const int64_t id = impl_->NewHandle();
  {
    absl::MutexLock lock(&impl_->mu);
    impl_->uploads.emplace(id, upload);
  }
  if (!first_chunk.data().empty()) {
    absl::Status appended = AppendUpload(id, first_chunk.data());
    if (!appended.ok()) return appended;
  }
  return id;
}

absl::Status ServiceCore::AppendUpload(int64_t upload_id, absl::string_view data) {
  std::shared_ptr<Upload> upload;
  {
    absl::MutexLock lock(&impl_->mu);
    auto it = impl_->uploads.find(upload_id);
    if (it == impl_->uploads.end()) return absl::NotFoundError(absl::StrCat("unknown upload ", upload_id));
    upload = it->second;
  }
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(upload->mu);
    Session& session = *upload->session;
    {
      absl::MutexLock session_lock(&session.mu);
      const Clock::time_point now = Clock::now();
      if (session.closed || session.Expired(now)) {
        status = absl::NotFoundError("the upload's session closed or expired");
      } else {
        session.deadline = now + std::chrono::milliseconds(session.lease_ms);
        status = impl_->CheckQuota(session.memory_bytes, data.size());
        if (status.ok() && upload->received + static_cast<int64_t>(data.size()) > upload->expected) {
          status = absl::InvalidArgumentError(absl::StrCat(
              "the upload sends more than the ", upload->expected, " bytes its shape ",
              upload->shape.ToString(), " holds"));
        }
        if (status.ok()) session.memory_bytes += data.size();
      }
    }
    if (status.ok()) {
      upload->writer.Write(data);  // the size was checked above
      upload->received += data.size();
    }
  }
  if (!status.ok()) AbortUpload(upload_id);
  return status;
}

void ServiceCore::AbortUpload(int64_t upload_id) {
  std::shared_ptr<Upload> upload;
  {
    absl::MutexLock lock(&impl_->mu);
    auto it = impl_->uploads.find(upload_id);
    if (it == impl_->uploads.end()) return;
    upload = it->second;
    impl_->uploads.erase(it);
  }
  std::lock_guard<std::mutex> lock(upload->mu);
  {
    absl::MutexLock session_lock(&upload->session->mu);
    if (!upload->session->closed) upload->session->memory_bytes -= upload->received;
  }
  upload->received = 0;
  upload->literal = Literal();
  upload->buffer.reset();
  upload->writer = LeafWriter();
}

absl::StatusOr<TransferToServerResponse> ServiceCore::FinishUpload(int64_t upload_id) {
  std::shared_ptr<Upload> upload;
  {
    absl::MutexLock lock(&impl_->mu);
    auto it = impl_->uploads.find(upload_id);
    if (it == impl_->uploads.end()) return absl::NotFoundError(absl::StrCat("unknown upload ", upload_id));
    upload = it->second;
    impl_->uploads.erase(it);
  }
  std::lock_guard<std::mutex> lock(upload->mu);
  Session& session = *upload->session;
  auto release = [&] {
    absl::MutexLock session_lock(&session.mu);
    if (!session.closed) session.memory_bytes -= upload->received;
    upload->received = 0;
  };
  if (upload->received != upload->expected) {
    release();
    return absl::InvalidArgumentError(absl::StrCat("the upload ended after ", upload->received,
                                                   " bytes; its shape ", upload->shape.ToString(),
                                                   " holds ", upload->expected));
  }
  const DeviceSlot& device = impl_->devices[upload->device];
  absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = std::move(upload->buffer);
  if (*buffer == nullptr) buffer = device.backend->TransferToDevice(upload->literal, device.local_ordinal);
  upload->literal = Literal();
  upload->writer = LeafWriter();
  if (!buffer.ok()) {
    release();
    return buffer.status();
  }
  auto data = std::make_shared<GlobalData>();
  data->buffer = std::move(buffer).value();
  data->shape = data->buffer->shape();
  data->device = upload->device;
  data->bytes = upload->expected;
  absl::MutexLock session_lock(&session.mu);
  if (session.closed) return absl::NotFoundError("the upload's session closed");
  // The bytes were counted as they arrived; they now belong to the handle.
  const int64_t handle = impl_->NewHandle();
  session.data.emplace(handle, std::move(data));
  TransferToServerResponse response;
  response.set_handle(handle);
  return response;
}

absl::StatusOr<OutgoingValue> ServiceCore::BeginDownload(
    const TransferToClientRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ASSIGN_OR_RETURN(auto data, impl_->LookupData(*session, request.handle()));
  const DeviceSlot& device = impl_->devices[data->device];
  ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> buffer, data->Ready());
  if (buffer->host_data() != nullptr && buffer->shape().IsArray()) {
    // Straight from the device buffer, which stays alive and unchanged while we read it.
    OutgoingValue value;
    value.shape = buffer->shape();
    if (buffer->size_bytes() > 0) {
      value.leaves.emplace_back(static_cast<const char*>(buffer->host_data()), buffer->size_bytes());
    }
    value.keep_alive = std::move(buffer);
    return value;
  }
  ASSIGN_OR_RETURN(Literal literal, device.backend->TransferFromDevice(*buffer));
  auto owned = std::make_shared<const Literal>(std::move(literal));
  OutgoingValue value = Outgoing(*owned);
  value.keep_alive = std::move(owned);
  return value;
}

absl::StatusOr<TransferToInfeedResponse> ServiceCore::TransferToInfeed(
    const TransferToInfeedRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  ASSIGN_OR_RETURN(const DeviceSlot* device, impl_->Device(request.device_ordinal()));
  ASSIGN_OR_RETURN(Literal literal, Literal::FromProto(request.literal()));
  if (StorageBytes(literal.shape()) > impl_->options.max_literal_bytes) {
    return absl::ResourceExhaustedError("the infeed literal exceeds the literal size limit");
  }
  RETURN_IF_ERROR(device->backend->TransferToInfeed(device->local_ordinal, literal));
  return TransferToInfeedResponse();
}

absl::StatusOr<TransferFromOutfeedResponse> ServiceCore::TransferFromOutfeed(
    const TransferFromOutfeedRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  ASSIGN_OR_RETURN(const DeviceSlot* device, impl_->Device(request.device_ordinal()));
  ASSIGN_OR_RETURN(Shape shape, ValidatedShape(request.shape()));
  // 0 = the session's lease (a bounded wait: the caller can always retry).
  const int64_t timeout_ms = request.timeout_ms() > 0 ? request.timeout_ms() : session->lease_ms;
  ASSIGN_OR_RETURN(Literal literal,
                   device->backend->TransferFromOutfeed(device->local_ordinal, shape, timeout_ms));
  TransferFromOutfeedResponse response;
  *response.mutable_literal() = literal.ToProto();
  return response;
}

}  // namespace server
}  // namespace xla
