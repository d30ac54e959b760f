// Execute, ExecuteAndTransfer and ExecuteParallel: argument checks (count, shapes naming the
// parameter, devices), donation, result registration and XLA's ExecutionProfile.

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {
namespace {

absl::Status CheckArgumentCount(const CompiledProgram& program, int64_t count) {
  const int64_t expected = static_cast<int64_t>(program.program_shape.parameters().size());
  if (count != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("the computation takes ", expected, " arguments, got ", count));
  }
  return absl::OkStatus();
}

absl::Status CheckArgumentShape(const CompiledProgram& program, int64_t i, const Shape& shape) {
  const Shape& parameter = program.program_shape.parameters()[i];
  if (!ShapeUtil::Compatible(shape, parameter)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", i, " (parameter '", program.parameter_names[i], "') has shape ", shape.ToString(),
        ", expected ", parameter.ToString()));
  }
  return absl::OkStatus();
}

// Holds an execute slot for its lifetime.
class ExecuteSlot {
 public:
  explicit ExecuteSlot(ServiceCore::Impl& impl) : impl_(impl) { impl_.execute_slots.Acquire(); }
  ~ExecuteSlot() { impl_.execute_slots.Release(); }

 private:
  ServiceCore::Impl& impl_;
};

// Counts an execution (queued or running) in the status' executions_in_flight.
class InFlight {
 public:
  explicit InFlight(ServiceCore::Impl& impl) : impl_(&impl) { impl_->executions_in_flight.fetch_add(1); }
  InFlight(InFlight&& other) noexcept : impl_(other.impl_) { other.impl_ = nullptr; }
  InFlight(const InFlight&) = delete;
  ~InFlight() {
    if (impl_ != nullptr) impl_->executions_in_flight.fetch_sub(1);
  }

 private:
  ServiceCore::Impl* impl_;
};

// How the handle's Compile obtained the executable (nothing is compiled at execution).
void SetCompileProfile(const SessionExecutable& executable, ExecutionProfile* profile) {
  profile->set_compilation_cache_hit(executable.cache_hit);
  profile->set_compile_time_ms(executable.compile_ms);
}

int64_t ElapsedNs(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

constexpr absl::Duration kWaitPoll = absl::Milliseconds(10);

}  // namespace

void PendingValue::Finish(absl::StatusOr<std::shared_ptr<backend::Buffer>> result, ExecutionProfile profile) {
  absl::MutexLock lock(&mu_);
  if (result.ok()) {
    buffer_ = std::move(result).value();
  } else {
    status_ = result.status();
  }
  profile_ = std::move(profile);
  done_ = true;
}

absl::StatusOr<std::shared_ptr<backend::Buffer>> PendingValue::Wait(const std::function<bool()>& should_cancel) {
  absl::MutexLock lock(&mu_);
  while (!done_) {
    if (should_cancel && should_cancel()) return absl::CancelledError("wait for an asynchronous execution cancelled");
    mu_.AwaitWithTimeout(absl::Condition(&done_), kWaitPoll);
  }
  if (!status_.ok()) {
    return absl::Status(status_.code(),
                        absl::StrCat("its asynchronous execution failed: ", status_.message()));
  }
  return buffer_;
}

absl::StatusOr<PreparedExecution> ServiceCore::Impl::PrepareExecution(const ExecuteRequest& request) {
  PreparedExecution prepared;
  ASSIGN_OR_RETURN(prepared.session, FindSession(request.session_id()));
  Session& session = *prepared.session;
  ASSIGN_OR_RETURN(prepared.executable, LookupProgram(session, request.execution_handle()));
  const CompiledProgram& program = *prepared.executable.program;
  RETURN_IF_ERROR(CheckArgumentCount(program, request.arguments_size()));
  for (int i = 0; i < request.arguments_size(); ++i) {
    ASSIGN_OR_RETURN(auto argument, LookupData(session, request.arguments(i)));
    RETURN_IF_ERROR(CheckArgumentShape(program, i, argument->shape));
    if (argument->device != program.device) {
      return absl::FailedPreconditionError(absl::StrCat(
          "argument ", i, " (handle ", request.arguments(i), ") lives on device ", argument->device,
          " but the executable was compiled for device ", program.device));
    }
    prepared.arguments.push_back(std::move(argument));
  }
  prepared.options.rng_seed = request.rng_seed();
  std::set<int64_t> donated_handles;
  for (int64_t index : request.donated_arguments()) {
    if (index < 0 || index >= request.arguments_size()) {
      return absl::InvalidArgumentError(absl::StrCat("donated argument index ", index,
                                                     " is out of range [0, ", request.arguments_size(), ")"));
    }
    if (!donated_handles.insert(request.arguments(index)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("handle ", request.arguments(index), " is donated twice"));
    }
    prepared.options.donated_arguments.push_back(index);
  }
  if (donated_handles.empty()) return prepared;
  // Donation gives the buffers up now: they leave the handle table before running, so no
  // concurrent call can use them; a handle used twice in one call cannot be donated.
  for (int i = 0; i < request.arguments_size(); ++i) {
    if (donated_handles.count(request.arguments(i))) {
      int uses = 0;
      for (int64_t h : request.arguments()) uses += h == request.arguments(i);
      if (uses > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "handle ", request.arguments(i), " is donated but passed ", uses, " times"));
      }
    }
  }
  absl::MutexLock lock(&session.mu);
  for (int64_t handle : donated_handles) {
    if (session.data.find(handle) == session.data.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("global data handle ", handle, " was donated or released concurrently"));
    }
  }
  for (int64_t handle : donated_handles) {
    auto it = session.data.find(handle);
    session.memory_bytes -= it->second->bytes;
    session.data.erase(it);
    session.donated.insert(handle);
  }
  return prepared;
}

absl::StatusOr<std::shared_ptr<backend::Buffer>> ServiceCore::Impl::RunPrepared(PreparedExecution& prepared,
                                                                              ExecutionProfile* profile) {
  const std::function<bool()>& should_cancel = prepared.options.should_cancel;
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (size_t i = 0; i < prepared.arguments.size(); ++i) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = prepared.arguments[i]->Ready(should_cancel);
    if (!buffer.ok()) {
      return absl::Status(buffer.status().code(),
                          absl::StrCat("argument ", i, ": ", buffer.status().message()));
    }
    buffers.push_back(std::move(buffer).value());
  }
  // A donated argument's entry left the handle table in PrepareExecution; letting go of it
  // here leaves `buffers` the only holder, so the backend may reuse the memory for results
  // (backend.h). An entry someone still holds (a transfer in flight) keeps its data intact.
  for (int64_t i : prepared.options.donated_arguments) {
    if (prepared.arguments[i].use_count() == 1) prepared.arguments[i].reset();
  }
  const CompiledProgram& program = *prepared.executable.program;
  std::shared_ptr<backend::Buffer> result;
  const Clock::time_point start = Clock::now();
  {
    ExecuteSlot slot(*this);
    ASSIGN_OR_RETURN(result, OutOfMemoryAsError("the execution", [&] {
                       return program.executable->Execute(buffers, prepared.options);
                     }));
  }
  const int64_t compute_ns = ElapsedNs(start);
  SetCompileProfile(prepared.executable, profile);
  profile->set_compute_time_ns(compute_ns);
  profile->set_compute_and_transfer_time_ns(compute_ns);
  return result;
}

absl::StatusOr<ExecuteResponse> ServiceCore::Impl::ExecuteOne(const ExecuteRequest& request,
                                                              const std::function<bool()>& should_cancel) {
  InFlight in_flight(*this);
  ASSIGN_OR_RETURN(PreparedExecution prepared, PrepareExecution(request));
  const std::shared_ptr<Session> session = prepared.session;
  const int device = prepared.executable.program->device;
  ExecuteResponse response;
  if (!request.run_async()) {
    SessionUse use(session);
    prepared.options.should_cancel = should_cancel;
    ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> result,
                     RunPrepared(prepared, response.mutable_profile()));
    prepared.arguments.clear();
    const Shape result_shape = result->shape();  // with the layout the backend produced
    ASSIGN_OR_RETURN(int64_t handle, RegisterData(*session, std::move(result), result_shape, device,
                                                  /*check_quota=*/true));
    response.set_result_handle(handle);
    return response;
  }
  // Asynchronous: the handle exists (and counts against the quota) from now on.
  auto pending = std::make_shared<PendingValue>();
  auto data = std::make_shared<GlobalData>();
  data->pending = pending;
  data->shape = prepared.executable.program->program_shape.result();
  data->device = device;
  data->bytes = StorageBytes(data->shape);
  {
    absl::MutexLock lock(&session->mu);
    if (session->closed) return absl::NotFoundError("session closed");
    RETURN_IF_ERROR(CheckQuota(session->memory_bytes, data->bytes));
    const int64_t handle = NewHandle();
    session->memory_bytes += data->bytes;
    session->data.emplace(handle, std::move(data));
    response.set_result_handle(handle);
  }
  prepared.options.should_cancel = [this, session = session.get()] {
    return shutting_down.load() || session->dropped.load();
  };
  auto task = [this, prepared = std::move(prepared), pending, in_flight = std::move(in_flight)]() mutable {
    ExecutionProfile profile;
    absl::StatusOr<std::shared_ptr<backend::Buffer>> result = RunPrepared(prepared, &profile);
    prepared.arguments.clear();
    pending->Finish(std::move(result), std::move(profile));
    pending.reset();  // the handle's entry is then the value's only holder (donation reuses it)
  };
  device_queues[device]->Schedule(
      [task = std::make_shared<decltype(task)>(std::move(task))] { (*task)(); });
  return response;
}

absl::StatusOr<ExecuteResponse> ServiceCore::Execute(const ExecuteRequest& request,
                                                     std::function<bool()> should_cancel) {
  return impl_->ExecuteOne(request, should_cancel);
}

absl::StatusOr<AwaitResponse> ServiceCore::Await(const AwaitRequest& request,
                                                 std::function<bool()> should_cancel) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  AwaitResponse response;
  for (int64_t handle : request.handles()) {
    ASSIGN_OR_RETURN(auto data, impl_->LookupData(*session, handle));
    absl::StatusOr<std::shared_ptr<backend::Buffer>> ready = data->Ready(should_cancel);
    if (!ready.ok()) {
      return absl::Status(ready.status().code(),
                          absl::StrCat("handle ", handle, ": ", ready.status().message()));
    }
    *response.add_profiles() = data->pending ? data->pending->profile() : ExecutionProfile();
  }
  return response;
}

absl::StatusOr<ExecuteParallelResponse> ServiceCore::ExecuteParallel(
    const ExecuteParallelRequest& request, std::function<bool()> should_cancel) {
  if (request.requests_size() == 0) return absl::InvalidArgumentError("no executions requested");
  // A bounded set of workers (never one thread per request) takes requests in order.
  const int n = request.requests_size();
  std::vector<absl::StatusOr<ExecuteResponse>> results(n, absl::UnknownError("not run"));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      results[i] = impl_->ExecuteOne(request.requests(i), should_cancel);
    }
  };
  const int workers = std::min(n, std::max(1, impl_->options.execute_threads));
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  ExecuteParallelResponse response;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      return absl::Status(results[i].status().code(),
                          absl::StrCat("execution ", i, ": ", results[i].status().message()));
    }
    *response.add_responses() = std::move(results[i]).value();
  }
  return response;
}

absl::StatusOr<ExecuteAndTransferResponse> ServiceCore::ExecuteAndTransfer(
    const ExecuteAndTransferRequest& request, std::function<bool()> should_cancel) {
  const Clock::time_point start = Clock::now();
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  ASSIGN_OR_RETURN(SessionExecutable executable,
                   impl_->LookupProgram(*session, request.execution_handle()));
  const std::shared_ptr<const CompiledProgram>& program = executable.program;
  RETURN_IF_ERROR(CheckArgumentCount(*program, request.arguments_size()));
  const DeviceSlot& device = impl_->devices[program->device];
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (int i = 0; i < request.arguments_size(); ++i) {
    ASSIGN_OR_RETURN(Literal literal, Literal::FromProto(request.arguments(i)));
    RETURN_IF_ERROR(CheckArgumentShape(*program, i, literal.shape()));
    if (StorageBytes(literal.shape()) > impl_->options.max_literal_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat("argument ", i, " exceeds the literal size limit of ",
                                                       impl_->options.max_literal_bytes, " bytes"));
    }
    ASSIGN_OR_RETURN(auto buffer, device.backend->TransferToDevice(literal, device.local_ordinal));
    buffers.push_back(std::move(buffer));
  }
  backend::ExecuteOptions options;
  options.rng_seed = request.rng_seed();
  options.should_cancel = should_cancel;
  std::shared_ptr<backend::Buffer> result;
  InFlight in_flight(*impl_);
  const Clock::time_point compute_start = Clock::now();
  {
    ExecuteSlot slot(*impl_);
    ASSIGN_OR_RETURN(result, OutOfMemoryAsError("the execution",
                                                [&] { return program->executable->Execute(buffers, options); }));
  }
  const int64_t compute_ns = ElapsedNs(compute_start);
  buffers.clear();
  ASSIGN_OR_RETURN(Literal value, device.backend->TransferFromDevice(*result));
  ExecuteAndTransferResponse response;
  *response.mutable_result() = value.ToProto();
  SetCompileProfile(executable, response.mutable_profile());
  response.mutable_profile()->set_compute_time_ns(compute_ns);
  response.mutable_profile()->set_compute_and_transfer_time_ns(ElapsedNs(start));
  return response;
}

}  // namespace server
}  // namespace xla
