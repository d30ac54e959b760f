// Compile: parse (HLO text or serialized proto), verify, and compile through a single-flight
// LRU cache keyed by the canonical printed module, the layouts asked for and the device.

#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"
#include "server/service_core_internal.h"

namespace xla {
namespace server {

std::pair<std::shared_ptr<CompileCache::Entry>, bool> CompileCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
    hits_.fetch_add(1);
    return {it->second.entry, false};
  }
  auto entry = std::make_shared<Entry>();
  lru_.push_front(key);
  entries_.emplace(key, Slot{entry, lru_.begin()});
  // Evict the least recently used finished entries past the capacity (sessions keep their
  // executables alive through their own references).
  for (auto pos = std::prev(lru_.end());
       static_cast<int64_t>(entries_.size()) > capacity_ && pos != lru_.begin();) {
    auto victim = entries_.find(*pos);
    auto prev = std::prev(pos);
    bool done;
    {
      std::lock_guard<std::mutex> entry_lock(victim->second.entry->mu);
      done = victim->second.entry->done;
    }
    if (done) {
      entries_.erase(victim);
      lru_.erase(pos);
    }
    pos = prev;
  }
  return {entry, true};
}

void CompileCache::Complete(const std::string& key, const std::shared_ptr<Entry>& entry,
                            absl::Status status, std::shared_ptr<const CompiledProgram> program,
                            double compile_ms) {
  {
    std::lock_guard<std::mutex> lock(entry->mu);
    entry->done = true;
    entry->status = std::move(status);
    entry->program = std::move(program);
    entry->compile_ms = compile_ms;
  }
  entry->cv.notify_all();
  if (!entry->status.ok()) {  // failures are not cached: a later try compiles again
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.entry == entry) {
      lru_.erase(it->second.lru_pos);
      entries_.erase(it);
    }
  }
}

void CompileCache::Wait(Entry& entry) {
  std::unique_lock<std::mutex> lock(entry.mu);
  entry.cv.wait(lock, [&] { return entry.done; });
}

std::shared_ptr<const CompiledProgram> CompileCache::FindExact(const std::string& request_key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto known = exact_.find(request_key);
  if (known == exact_.end()) return nullptr;
  auto it = entries_.find(known->second);
  if (it == entries_.end()) return nullptr;  // evicted
  {
    std::lock_guard<std::mutex> entry_lock(it->second.entry->mu);
    if (!it->second.entry->done || !it->second.entry->status.ok()) return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
  hits_.fetch_add(1);
  return it->second.entry->program;
}

void CompileCache::RememberExact(const std::string& request_key, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (static_cast<int64_t>(exact_.size()) >= 4 * capacity_ + 64) exact_.clear();
  exact_[request_key] = key;
}

int64_t CompileCache::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(entries_.size());
}

namespace {

absl::Status ApplyLayouts(const CompileRequest& request, HloModule& module, std::string* key) {
  const HloComputation& entry = *module.entry_computation();
  if (request.argument_layouts_size() == 0 && !request.has_result_layout()) return absl::OkStatus();
  ProgramShape layout = entry.ComputeProgramShape();
  if (request.argument_layouts_size() > 0) {
    if (request.argument_layouts_size() != entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat("argument_layouts has ", request.argument_layouts_size(),
                                                     " shapes; the computation takes ",
                                                     entry.num_parameters(), " parameters"));
    }
    for (int i = 0; i < request.argument_layouts_size(); ++i) {
      ASSIGN_OR_RETURN(Shape shape, Shape::FromProto(request.argument_layouts(i)));
      if (!ShapeUtil::Compatible(shape, layout.parameters()[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument_layouts[", i, "] (parameter '", entry.parameter_instruction(i)->name(), "') is ",
            shape.ToString(), ", the parameter is ", layout.parameters()[i].ToString()));
      }
      layout.parameters()[i] = shape;
    }
  }
  if (request.has_result_layout()) {
    ASSIGN_OR_RETURN(Shape shape, Shape::FromProto(request.result_layout()));
    if (!ShapeUtil::Compatible(shape, layout.result())) {
      return absl::InvalidArgumentError(absl::StrCat("result_layout ", shape.ToString(),
                                                     " does not fit the result ", layout.result().ToString()));
    }
    layout.result() = shape;
  }
  absl::StrAppend(key, "\nlayout=", layout.ToString(/*print_layout=*/true));
  module.mutable_config()->entry_computation_layout = std::move(layout);
  return absl::OkStatus();
}

// Fingerprint of everything in the request that decides the executable, without copying
// the module: its bytes' fingerprint, their kind, the device and the layouts asked for.
std::string ExactRequestKey(const CompileRequest& request) {
  std::string key = Fingerprint(request.module_case() == CompileRequest::kHloText
                                    ? absl::string_view(request.hlo_text())
                                    : absl::string_view(request.hlo_module_proto()));
  absl::StrAppend(&key, request.module_case() == CompileRequest::kHloText ? "/text" : "/proto",
                  "/device=", request.device_ordinal());
  for (const ShapeProto& layout : request.argument_layouts()) {
    absl::StrAppend(&key, "/arg=", Fingerprint(layout.SerializeAsString()));
  }
  if (request.has_result_layout()) {
    absl::StrAppend(&key, "/result=", Fingerprint(request.result_layout().SerializeAsString()));
  }
  return key;
}

}  // namespace

absl::StatusOr<int64_t> ServiceCore::Impl::RegisterExecutable(Session& session,
                                                               std::shared_ptr<const CompiledProgram> program,
                                                               bool cache_hit, double compile_ms) {
  SessionExecutable executable;
  executable.program = std::move(program);
  executable.cache_hit = cache_hit;
  executable.compile_ms = static_cast<int64_t>(compile_ms);
  const int64_t handle = NewHandle();
  absl::MutexLock lock(&session.mu);
  if (session.closed) return absl::NotFoundError("the session closed during the compile");
  session.executables.emplace(handle, std::move(executable));
  return handle;
}

absl::StatusOr<ServiceCore::Impl::CompileResult> ServiceCore::Impl::CompileCached(const CompileRequest& request) {
  ASSIGN_OR_RETURN(const DeviceSlot* device, Device(request.device_ordinal()));
  const Clock::time_point start = Clock::now();
  const int64_t module_bytes = static_cast<int64_t>(
      request.module_case() == CompileRequest::kHloText ? request.hlo_text().size()
                                                        : request.hlo_module_proto().size());
  if (module_bytes > options.max_module_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("module of ", module_bytes,
                                                     " bytes exceeds the limit of ",
                                                     options.max_module_bytes));
  }
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };

  const std::string request_key = ExactRequestKey(request);
  if (request.module_case() != CompileRequest::MODULE_NOT_SET) {
    if (auto program = cache.FindExact(request_key);
        program != nullptr && program->device == request.device_ordinal()) {
      return CompileResult{std::move(program), /*cache_hit=*/true, elapsed_ms()};
    }
  }

  std::unique_ptr<HloModule> module;
  switch (request.module_case()) {
    case CompileRequest::kHloText: {
      ASSIGN_OR_RETURN(module, ParseAndReturnUnverifiedModule(request.hlo_text()));
      break;
    }
    case CompileRequest::kHloModuleProto: {
      ASSIGN_OR_RETURN(module, HloModuleFromSerializedProto(request.hlo_module_proto()));
      break;
    }
    default:
      return absl::InvalidArgumentError("the compile request carries no module");
  }
  if (module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  {
    absl::Status verified = VerifyHloModule(*module);
    if (!verified.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("invalid module: ", verified.message()));
    }
  }

  // The key: the canonical text (ShortParsable round-trips, so equal text = equal module),
  // the layouts asked for and the device; only its fingerprint is kept.
  std::string text = HloModuleToString(*module, HloPrintOptions::ShortParsable());
  absl::StrAppend(&text, "\ndevice=", request.device_ordinal());
  RETURN_IF_ERROR(ApplyLayouts(request, *module, &text));
  const std::string key = Fingerprint(text);
  text.clear();
  text.shrink_to_fit();

  auto [entry, owner] = cache.Lookup(key);
  if (owner) {
    auto program = std::make_shared<CompiledProgram>();
    program->device = request.device_ordinal();
    program->program_shape = module->entry_computation()->ComputeProgramShape();
    for (HloInstruction* parameter : module->entry_computation()->parameter_instructions()) {
      program->parameter_names.push_back(parameter->name());
    }
    backend::CompileOptions compile_options;
    compile_options.device_ordinal = device->local_ordinal;
    compile_slots.Acquire();
    auto compiled = OutOfMemoryAsError(
        "compiling", [&] { return device->backend->Compile(std::move(module), compile_options); });
    compile_slots.Release();
    const double ms = elapsed_ms();
    if (!compiled.ok()) {
      cache.Complete(key, entry, compiled.status(), nullptr, ms);
    } else {
      program->executable = std::shared_ptr<backend::Executable>(std::move(compiled).value());
      cache.Complete(key, entry, absl::OkStatus(), program, ms);
    }
  } else {
    CompileCache::Wait(*entry);
  }
  RETURN_IF_ERROR(entry->status);
  cache.RememberExact(request_key, key);
  return CompileResult{entry->program, /*cache_hit=*/!owner, owner ? entry->compile_ms : elapsed_ms()};
}

absl::StatusOr<CompileResponse> ServiceCore::Compile(const CompileRequest& request) {
  ASSIGN_OR_RETURN(auto session, impl_->FindSession(request.session_id()));
  SessionUse use(session);
  ASSIGN_OR_RETURN(Impl::CompileResult compiled, impl_->CompileCached(request));
  ASSIGN_OR_RETURN(int64_t handle, impl_->RegisterExecutable(*session, compiled.program, compiled.cache_hit,
                                                             compiled.compile_ms));
  CompileResponse response;
  response.set_cache_hit(compiled.cache_hit);
  response.set_compile_ms(compiled.compile_ms);
  response.set_execution_handle(handle);
  *response.mutable_program_shape() = compiled.program->program_shape.ToProto();
  return response;
}

}  // namespace server
}  // namespace xla
