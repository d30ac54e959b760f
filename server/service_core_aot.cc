// CompileAheadOfTime and Load (XLA's LocalClient::CompileAheadOfTime / Load): compile through
// the cache and serialize the executable; load serialized bytes into an execution handle.
// Loads go through the compile cache too, keyed by the bytes' fingerprint and the device, so
// loading the same bytes again (from any session) links them once.

#include "absl/strings/str_cat.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {

absl::StatusOr<CompileAheadOfTimeResponse> ServiceCore::CompileAheadOfTime(
    const CompileAheadOfTimeRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  CompileRequest compile;
  compile.set_device_ordinal(request.device_ordinal());
  switch (request.module_case()) {
    case CompileAheadOfTimeRequest::kHloText:
      compile.set_hlo_text(request.hlo_text());
      break;
    case CompileAheadOfTimeRequest::kHloModuleProto:
      compile.set_hlo_module_proto(request.hlo_module_proto());
      break;
    default:
      return absl::InvalidArgumentError("the compile request carries no module");
  }
  *compile.mutable_argument_layouts() = request.argument_layouts();
  if (request.has_result_layout()) *compile.mutable_result_layout() = request.result_layout();
  ASSIGN_OR_RETURN(Impl::CompileResult compiled, impl_->CompileCached(compile));
  ASSIGN_OR_RETURN(const DeviceSlot* device, impl_->Device(request.device_ordinal()));
  ASSIGN_OR_RETURN(std::string bytes, device->backend->SerializeExecutable(*compiled.program->executable));
  CompileAheadOfTimeResponse response;
  response.set_serialized_executable(std::move(bytes));
  *response.mutable_program_shape() = compiled.program->program_shape.ToProto();
  response.set_cache_hit(compiled.cache_hit);
  response.set_compile_ms(compiled.compile_ms);
  response.set_platform(device->info.platform());
  return response;
}

absl::StatusOr<LoadResponse> ServiceCore::Load(const LoadRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  if (!impl_->options.allow_load) {
    return absl::PermissionDeniedError(
        "this server does not load serialized executables (they run native code from the request); "
        "start it with --allow-load");
  }
  ASSIGN_OR_RETURN(const DeviceSlot* device, impl_->Device(request.device_ordinal()));
  const int64_t size = static_cast<int64_t>(request.serialized_executable().size());
  if (size > impl_->options.max_module_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("serialized executable of ", size,
                                                     " bytes exceeds the module limit of ",
                                                     impl_->options.max_module_bytes));
  }
  const Clock::time_point start = Clock::now();
  const std::string key = absl::StrCat("load/", Fingerprint(request.serialized_executable()),
                                       "/device=", request.device_ordinal());
  auto [entry, owner] = impl_->cache.Lookup(key);
  if (owner) {
    impl_->compile_slots.Acquire();
    auto loaded = OutOfMemoryAsError("loading", [&] {
      return device->backend->DeserializeExecutable(request.serialized_executable(), device->local_ordinal);
    });
    impl_->compile_slots.Release();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!loaded.ok()) {
      impl_->cache.Complete(key, entry, loaded.status(), nullptr, ms);
    } else {
      auto program = std::make_shared<CompiledProgram>();
      program->device = request.device_ordinal();
      const HloComputation& computation = *(*loaded)->module().entry_computation();
      program->program_shape = computation.ComputeProgramShape();
      for (const HloInstruction* parameter : computation.parameter_instructions()) {
        program->parameter_names.push_back(parameter->name());
      }
      program->executable = std::shared_ptr<backend::Executable>(std::move(loaded).value());
      impl_->cache.Complete(key, entry, absl::OkStatus(), std::move(program), ms);
    }
  } else {
    CompileCache::Wait(*entry);
  }
  RETURN_IF_ERROR(entry->status);
  const double load_ms = owner ? entry->compile_ms
                               : std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ASSIGN_OR_RETURN(int64_t handle, impl_->RegisterExecutable(*session, entry->program, !owner, load_ms));
  LoadResponse response;
  response.set_execution_handle(handle);
  *response.mutable_program_shape() = entry->program->program_shape.ToProto();
  response.set_cache_hit(!owner);
  response.set_load_ms(load_ms);
  return response;
}

}  // namespace server
}  // namespace xla
