#include "backends/cpu/cpu_backend.h"

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "backends/cpu/codegen/jit.h"
#include "backends/cpu/host_memory_pool.h"
#include "backends/cpu/plan_format.h"
#include "backends/executable_format.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/interpreter/device_state.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

#if __has_include("backends/cpu/passes/pipeline.h")
#include "backends/cpu/codegen/gemm_plan.h"
#include "backends/cpu/passes/fold_transposes_into_dots.h"
#include "backends/cpu/passes/operand_forms.h"
#include "backends/cpu/passes/pipeline.h"
#include "backends/cpu/passes/single_device_collectives.h"
#define XLA_CPU_HAS_PIPELINE 1
#endif

namespace xla {
namespace cpu {
namespace {

using backend::Buffer;

// An array in pooled host memory, or a tuple owning its elements.
class CpuBuffer : public Buffer {
 public:
  CpuBuffer(Shape shape, std::shared_ptr<void> memory, int64_t bytes)
      : shape_(std::move(shape)), memory_(std::move(memory)), bytes_(bytes) {}
  CpuBuffer(Shape shape, std::vector<std::shared_ptr<Buffer>> elements)
      : shape_(std::move(shape)), elements_(std::move(elements)) {}

  const Shape& shape() const override { return shape_; }
  int device_ordinal() const override { return 0; }
  int64_t size_bytes() const override { return bytes_; }
  std::vector<std::shared_ptr<Buffer>> tuple_elements() const override { return elements_; }
  void* data() const { return memory_.get(); }
  void* host_data() const override { return shape_.IsArray() ? memory_.get() : nullptr; }
  const std::shared_ptr<void>& memory() const { return memory_; }

 private:
  const Shape shape_;
  const std::shared_ptr<void> memory_;
  const int64_t bytes_ = 0;
  const std::vector<std::shared_ptr<Buffer>> elements_;
};

absl::StatusOr<std::shared_ptr<CpuBuffer>> AllocateArray(HostMemoryPool* pool, const Shape& shape) {
  const int64_t bytes = ShapeUtil::ByteSizeOf(shape);
  std::shared_ptr<void> memory = pool->Allocate(bytes);
  if (memory == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("out of host memory allocating ", bytes, " bytes"));
  }
  return std::make_shared<CpuBuffer>(shape, std::move(memory), bytes);
}

// Array leaves of a (tuple) buffer in depth-first order.
absl::Status FlattenLeaves(const std::shared_ptr<Buffer>& buffer, std::vector<const CpuBuffer*>* out) {
  if (buffer->shape().IsTuple()) {
    for (const auto& element : buffer->tuple_elements()) RETURN_IF_ERROR(FlattenLeaves(element, out));
    return absl::OkStatus();
  }
  if (!buffer->shape().IsArray()) return absl::OkStatus();
  const auto* cpu = dynamic_cast<const CpuBuffer*>(buffer.get());
  if (cpu == nullptr) return absl::InvalidArgumentError("not a cpu buffer");
  out->push_back(cpu);
  return absl::OkStatus();
}

// Marks the array leaves of `buffer` (depth-first) whose memory nobody else can reach: every
// buffer from the argument down is held only by its parent (`refs`: the references the
// caller and this walk hold) and no other buffer shares the memory. Only such memory of a
// donated argument may become a result.
void MarkSoleLeaves(const std::shared_ptr<Buffer>& buffer, bool sole, long refs, std::vector<bool>* out) {
  sole = sole && buffer.use_count() == refs;
  if (buffer->shape().IsTuple()) {
    // The element vector is a copy: each element is held by the tuple and by it.
    for (const auto& element : buffer->tuple_elements()) MarkSoleLeaves(element, sole, 2, out);
    return;
  }
  if (!buffer->shape().IsArray()) return;
  const auto* cpu = dynamic_cast<const CpuBuffer*>(buffer.get());
  out->push_back(sole && cpu != nullptr && cpu->memory().use_count() == 1);
}

class CpuExecutable : public backend::Executable {
 public:
  // `device` (the backend's; outlives its executables) holds the rng state and feeds.
  // `constants` own the data of the plan's constant slots when the plan was loaded (a
  // compiled plan points into the module's constants instead).
  CpuExecutable(std::unique_ptr<HloModule> module, std::unique_ptr<BufferPlan> plan,
                std::unique_ptr<CompiledProgram> program, std::shared_ptr<HostMemoryPool> pool,
                interpreter::DeviceState* device, std::vector<std::unique_ptr<Literal>> constants = {})
      : module_(std::move(module)),
        plan_(std::move(plan)),
        program_(std::move(program)),
        pool_(std::move(pool)),
        device_(device),
        constants_(std::move(constants)),
        alias_of_(plan_->slots.size(), nullptr) {
    for (const OutputAlias& a : plan_->output_aliases) alias_of_[a.parameter_slot] = &a;
  }

  const HloModule& module() const override { return *module_; }
  const BufferPlan& plan() const { return *plan_; }
  const CompiledProgram& program() const { return *program_; }

  absl::StatusOr<std::shared_ptr<Buffer>> Execute(absl::Span<const std::shared_ptr<Buffer>> arguments,
                                                  const backend::ExecuteOptions& options) override {
    if (arguments.size() != plan_->parameter_shapes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("the computation takes ", plan_->parameter_shapes.size(),
                                                     " arguments, got ", arguments.size()));
    }
    for (int64_t donated : options.donated_arguments) {
      if (donated < 0 || donated >= static_cast<int64_t>(arguments.size())) {
        return absl::InvalidArgumentError(absl::StrCat("donated argument ", donated, " does not exist"));
      }
    }
    if (options.should_cancel && options.should_cancel()) return absl::CancelledError("execution cancelled");
    // Arguments: array leaves, relaid out when their layout is not the compiled one.
    std::vector<const CpuBuffer*> leaves;
    std::vector<std::shared_ptr<CpuBuffer>> relaid;
    // Per argument leaf: donated and held by nobody else (only looked at for aliased leaves).
    std::vector<bool> donated(arguments.size(), false), leaf_given;
    for (int64_t d : options.donated_arguments) donated[d] = true;
    const bool reuse = !plan_->output_aliases.empty() && !options.donated_arguments.empty();
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (arguments[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat("argument ", i, " is null"));
      if (!ShapeUtil::Compatible(arguments[i]->shape(), plan_->parameter_shapes[i])) {
        return absl::InvalidArgumentError(absl::StrCat("argument ", i, " has shape ", arguments[i]->shape().ToString(),
                                                       ", the parameter is ", plan_->parameter_shapes[i].ToString()));
      }
      std::vector<const CpuBuffer*> own;
      RETURN_IF_ERROR(FlattenLeaves(arguments[i], &own));
      leaves.insert(leaves.end(), own.begin(), own.end());
      if (reuse) MarkSoleLeaves(arguments[i], donated[i], 1, &leaf_given);
    }
    if (static_cast<int64_t>(leaves.size()) != plan_->parameter_leaf_count) {
      return absl::InternalError("argument leaves do not match the parameters");
    }
    std::vector<void*> table(plan_->slots.size(), nullptr);
    std::vector<std::shared_ptr<CpuBuffer>> outputs(plan_->output_slots.size());
    std::shared_ptr<void> arena = pool_->Allocate(plan_->arena_bytes);
    if (arena == nullptr) return absl::ResourceExhaustedError("out of host memory for temporaries");
    for (size_t s = 0; s < plan_->slots.size(); ++s) {
      const Slot& slot = plan_->slots[s];
      switch (slot.kind) {
        case SlotKind::kParameter: {
          const CpuBuffer* leaf = leaves[slot.index];
          const Shape& have = leaf->shape();
          std::shared_ptr<CpuBuffer> copy;
          if (have.has_layout() && have.layout().minor_to_major() != slot.shape.layout().minor_to_major() &&
              ShapeUtil::ElementsIn(have) > 1) {
            ASSIGN_OR_RETURN(copy, Relayout(*leaf, slot.shape));
          }
          if (alias_of_[s] != nullptr) {
            const bool given = reuse && leaf_given[slot.index];
            RETURN_IF_ERROR(BindAliasedParameter(*alias_of_[s], *leaf, std::move(copy), given, &table, &outputs));
          } else if (copy != nullptr) {
            table[s] = copy->data();
            relaid.push_back(std::move(copy));
          } else {
            table[s] = leaf->data();
          }
          break;
        }
        case SlotKind::kConstant:
          table[s] = const_cast<void*>(slot.constant->untyped_data());
          break;
        case SlotKind::kTemp:
          table[s] = static_cast<char*>(arena.get()) + slot.offset;
          break;
        case SlotKind::kOutput: {
          ASSIGN_OR_RETURN(outputs[slot.index], AllocateArray(pool_.get(), slot.shape));
          table[s] = outputs[slot.index]->data();
          break;
        }
        case SlotKind::kShared:
          break;  // bound with its parameter below
      }
    }
    for (const OutputAlias& a : plan_->output_aliases) {
      if (!a.in_place) table[a.result_slot] = outputs[a.output_leaf]->data();
    }
    RunContext run_context;
    run_context.should_cancel = options.should_cancel ? &options.should_cancel : nullptr;
    run_context.owner = std::this_thread::get_id();
    if (options.rng_seed != 0) run_context.rng_seed = options.rng_seed;
    run_context.device = device_;
    // Nonzero: cancelled (1), or stopped by a runtime routine that failed the execution (its
    // error in run_context: a feed, a check, a routine out of memory; runtime.h).
    int32_t rc;
    {
      ScopedExecution current(&run_context);
      rc = program_->entry()(table.data(), &run_context);
    }
    if (run_context.failed()) return run_context.error();
    if (rc != 0) return absl::CancelledError("execution cancelled");
    size_t next = 0;
    return BuildResult(plan_->result_shape, outputs, &next);
  }

 private:
  // Binds an aliased parameter slot and makes its result leaf's buffer. The result takes the
  // argument's memory when the caller gave it up (or when it is already a private relaid
  // copy); otherwise the argument is left untouched: an in-place result starts as a copy
  // of it, a result computed into a shared slot just gets its own memory.
  absl::Status BindAliasedParameter(const OutputAlias& alias, const CpuBuffer& leaf, std::shared_ptr<CpuBuffer> copy,
                                    bool given, std::vector<void*>* table,
                                    std::vector<std::shared_ptr<CpuBuffer>>* outputs) {
    const Shape& shape = plan_->slots[alias.parameter_slot].shape;
    std::shared_ptr<CpuBuffer>& out = (*outputs)[alias.output_leaf];
    if (copy != nullptr) {
      out = std::move(copy);
    } else if (given) {
      out = std::make_shared<CpuBuffer>(shape, leaf.memory(), leaf.size_bytes());
    } else if (alias.in_place) {
      ASSIGN_OR_RETURN(out, AllocateArray(pool_.get(), shape));
      if (out->size_bytes() > 0) std::memcpy(out->data(), leaf.data(), static_cast<size_t>(out->size_bytes()));
    } else {
      ASSIGN_OR_RETURN(out, AllocateArray(pool_.get(), shape));
      (*table)[alias.parameter_slot] = leaf.data();
      return absl::OkStatus();
    }
    (*table)[alias.parameter_slot] = out->data();
    return absl::OkStatus();
  }

  absl::StatusOr<std::shared_ptr<CpuBuffer>> Relayout(const CpuBuffer& buffer, const Shape& target) {
    ASSIGN_OR_RETURN(Literal literal, Literal::CreateFromBuffer(buffer.shape(), buffer.data(), buffer.size_bytes()));
    ASSIGN_OR_RETURN(Literal relaid, literal.Relayout(target.layout()));
    ASSIGN_OR_RETURN(auto out, AllocateArray(pool_.get(), target));
    if (relaid.size_bytes() > 0) std::memcpy(out->data(), relaid.untyped_data(), relaid.size_bytes());
    return out;
  }

  std::shared_ptr<Buffer> BuildResult(const Shape& shape, const std::vector<std::shared_ptr<CpuBuffer>>& outputs,
                                      size_t* next) {
    if (shape.IsTuple()) {
      std::vector<std::shared_ptr<Buffer>> elements;
      for (const Shape& element : shape.tuple_shapes()) elements.push_back(BuildResult(element, outputs, next));
      return std::make_shared<CpuBuffer>(shape, std::move(elements));
    }
    if (!shape.IsArray()) return std::make_shared<CpuBuffer>(shape, std::vector<std::shared_ptr<Buffer>>{});
    return outputs[(*next)++];
  }

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<BufferPlan> plan_;
  std::unique_ptr<CompiledProgram> program_;
  std::shared_ptr<HostMemoryPool> pool_;
  interpreter::DeviceState* device_;
  std::vector<std::unique_ptr<Literal>> constants_;
  std::vector<const OutputAlias*> alias_of_;  // per slot: the output alias of a parameter slot
};

// FAILED_PRECONDITION naming what differs when the executable's target is not this host's.
absl::Status CheckTarget(const backend::ExecutableFields& fields, const HostTarget& host) {
  ASSIGN_OR_RETURN(std::string_view triple_field, fields.Get("target_triple"));
  ASSIGN_OR_RETURN(std::string_view cpu_field, fields.Get("host_cpu"));
  ASSIGN_OR_RETURN(std::string_view features_field, fields.Get("host_cpu_features"));
  const std::string triple = absl::CHexEscape(std::string(triple_field));
  const std::string cpu = absl::CHexEscape(std::string(cpu_field));
  const std::string features(features_field);
  if (triple_field != host.triple) {
    return absl::FailedPreconditionError(absl::StrCat("the executable was compiled for target ", triple,
                                                      ", this host is ", host.triple));
  }
  if (cpu_field != host.cpu) {
    return absl::FailedPreconditionError(absl::StrCat("the executable was compiled for CPU ", cpu,
                                                      ", this host's CPU is ", host.cpu, ": compile it again here"));
  }
  // As sets: the feature string's order comes from a hash map.
  const std::vector<std::string> theirs = absl::StrSplit(absl::CHexEscape(features), ',', absl::SkipEmpty());
  const std::vector<std::string> ours = absl::StrSplit(host.features, ',', absl::SkipEmpty());
  const std::set<std::string> their_set(theirs.begin(), theirs.end()), our_set(ours.begin(), ours.end());
  if (their_set != our_set) {
    std::vector<std::string> only_theirs, only_ours;
    for (const auto& f : their_set) if (!our_set.count(f)) only_theirs.push_back(f);
    for (const auto& f : our_set) if (!their_set.count(f)) only_ours.push_back(f);
    return absl::FailedPreconditionError(absl::StrCat(
        "the executable was compiled for other CPU features (", cpu, "); compiled with but not here: [",
        absl::StrJoin(only_theirs, ","), "], here but not compiled with: [", absl::StrJoin(only_ours, ","),
        "]: compile it again here"));
  }
  return absl::OkStatus();
}

class CpuBackend : public backend::Backend {
 public:
  CpuBackend() : pool_(std::make_shared<HostMemoryPool>()), device_(0) {}
  std::string platform() const override { return "cpu"; }
  int device_count() const override { return 1; }

  absl::StatusOr<backend::DeviceDescription> Describe(int device_ordinal) const override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    backend::DeviceDescription d;
    d.platform = "cpu";
    d.name = absl::StrCat("host CPU ", HostCpuDescription());
    d.ordinal = device_ordinal;
    return d;
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> Compile(std::unique_ptr<HloModule> module,
                                                               const backend::CompileOptions& options) override {
    RETURN_IF_ERROR(CheckDevice(options.device_ordinal));
    if (module == nullptr) return absl::InvalidArgumentError("no module");
    RETURN_IF_ERROR(VerifyHloModule(*module));
#ifdef XLA_CPU_HAS_PIPELINE
    // One device: collectives and allowlisted custom-calls become plain HLO, and a module
    // built for more devices (or an unknown custom-call target) fails here with the reason.
    // Not part of RunCpuPipeline, which keeps modules it cannot run as they are.
    RETURN_IF_ERROR(SingleDeviceCollectives().Run(module.get()).status());
    RETURN_IF_ERROR(OperandFormNormalizer().Run(module.get()).status());
    RETURN_IF_ERROR(RunCpuPipeline(module.get()));
    // x . w^T: the GEMM reads w as stored (a trans flag) instead of after a transposing pass.
    RETURN_IF_ERROR(FoldTransposesIntoDots(module.get(), [](const HloInstruction& dot) {
                      const std::optional<DotCall> call =
                          PlanDotCall(dot, dot.operand(0)->shape(), dot.operand(1)->shape(), dot.shape());
                      return call.has_value() && PreferDotCall(*call);
                    }).status());
#endif
    ASSIGN_OR_RETURN(std::unique_ptr<BufferPlan> plan, PlanBuffers(*module));
    ASSIGN_OR_RETURN(std::unique_ptr<CompiledProgram> program, CompiledProgram::Compile(*module, *plan));
    return std::unique_ptr<backend::Executable>(
        std::make_unique<CpuExecutable>(std::move(module), std::move(plan), std::move(program), pool_,
                                        &device_));
  }

  // Fields: platform, xla_server_version, target_triple, host_cpu, host_cpu_features (all
  // checked at load), module (the optimized HloModuleProtoWithConfig), plan (plan_format.h),
  // object (the relocatable object file the executable runs), entry (its entry symbol).
  absl::StatusOr<std::string> SerializeExecutable(const backend::Executable& executable) override {
    const auto* cpu = dynamic_cast<const CpuExecutable*>(&executable);
    if (cpu == nullptr) return absl::InvalidArgumentError("not a cpu executable");
    ASSIGN_OR_RETURN(HostTarget target, DetectHostTarget());
    backend::ExecutableFields fields = backend::NewExecutableFields(platform());
    fields.Set("target_triple", target.triple);
    fields.Set("host_cpu", target.cpu);
    fields.Set("host_cpu_features", target.features);
    RETURN_IF_ERROR(backend::SetModuleField(cpu->module(), &fields));
    fields.Set("plan", EncodeRuntimePlan(cpu->plan()));
    fields.Set("object", cpu->program().object_file());
    fields.Set("entry", cpu->program().entry_name());
    return backend::WriteExecutableContainer(fields);
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> DeserializeExecutable(std::string_view bytes,
                                                                             int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    ASSIGN_OR_RETURN(backend::ExecutableFields fields, backend::ReadExecutableContainer(bytes));
    RETURN_IF_ERROR(backend::CheckExecutableOrigin(fields, platform()));
    ASSIGN_OR_RETURN(HostTarget host, DetectHostTarget());
    RETURN_IF_ERROR(CheckTarget(fields, host));
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, backend::GetModuleField(fields));
    ASSIGN_OR_RETURN(std::string_view plan_bytes, fields.Get("plan"));
    ASSIGN_OR_RETURN(DecodedPlan plan, DecodeRuntimePlan(plan_bytes));
    const HloComputation& entry = *module->entry_computation();
    if (entry.num_parameters() != static_cast<int64_t>(plan.plan->parameter_shapes.size())) {
      return absl::InvalidArgumentError("serialized executable: the module and the buffer plan disagree on the parameters");
    }
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      if (!ShapeUtil::Compatible(entry.parameter_instruction(i)->shape(), plan.plan->parameter_shapes[i])) {
        return absl::InvalidArgumentError(absl::StrCat("serialized executable: parameter ", i,
                                                       " of the module does not match the buffer plan"));
      }
    }
    if (!ShapeUtil::Compatible(entry.root_instruction()->shape(), plan.plan->result_shape)) {
      return absl::InvalidArgumentError("serialized executable: the module's result does not match the buffer plan");
    }
    ASSIGN_OR_RETURN(std::string_view object, fields.Get("object"));
    ASSIGN_OR_RETURN(std::string_view entry_name, fields.Get("entry"));
    ASSIGN_OR_RETURN(std::unique_ptr<CompiledProgram> program,
                     CompiledProgram::Load(object, std::string(entry_name)));
    return std::unique_ptr<backend::Executable>(std::make_unique<CpuExecutable>(
        std::move(module), std::move(plan.plan), std::move(program), pool_, &device_, std::move(plan.constants)));
  }

  absl::StatusOr<std::shared_ptr<Buffer>> TransferToDevice(const Literal& literal, int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    return FromLiteral(literal);
  }

  absl::StatusOr<Literal> TransferFromDevice(const Buffer& buffer) override {
    if (buffer.shape().IsTuple()) {
      std::vector<Literal> elements;
      for (const auto& element : buffer.tuple_elements()) {
        ASSIGN_OR_RETURN(Literal l, TransferFromDevice(*element));
        elements.push_back(std::move(l));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    const auto* cpu = dynamic_cast<const CpuBuffer*>(&buffer);
    if (cpu == nullptr) return absl::InvalidArgumentError("not a cpu buffer");
    if (!buffer.shape().IsArray()) return Literal::Create(buffer.shape());
    return Literal::CreateFromBuffer(buffer.shape(), cpu->data(), cpu->size_bytes());
  }

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(const Shape& shape, int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    if (shape.IsArray()) {  // straight from the pool: no Literal, no fresh pages
      Shape array = shape;
      ShapeUtil::SetDefaultLayoutsIfMissing(&array);
      ASSIGN_OR_RETURN(auto buffer, AllocateArray(pool_.get(), array));
      std::memset(buffer->data(), 0, buffer->size_bytes());
      return std::shared_ptr<Buffer>(buffer);
    }
    ASSIGN_OR_RETURN(Literal zeros, Literal::Create(shape));
    return FromLiteral(zeros);
  }

  absl::Status TransferToInfeed(int device_ordinal, const Literal& literal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    device_.PushInfeed(literal.Clone());
    return absl::OkStatus();
  }

  absl::StatusOr<Literal> TransferFromOutfeed(int device_ordinal, const Shape& shape, int64_t timeout_ms) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    return device_.PopOutfeed(timeout_ms, shape);
  }

 private:
  absl::StatusOr<std::shared_ptr<Buffer>> FromLiteral(const Literal& literal) {
    if (literal.IsTuple()) {
      std::vector<std::shared_ptr<Buffer>> elements;
      for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
        ASSIGN_OR_RETURN(auto element, FromLiteral(literal.tuple_element(i)));
        elements.push_back(std::move(element));
      }
      return std::shared_ptr<Buffer>(std::make_shared<CpuBuffer>(literal.shape(), std::move(elements)));
    }
    Shape shape = literal.shape();
    if (!shape.IsArray()) return std::shared_ptr<Buffer>(std::make_shared<CpuBuffer>(shape, std::vector<std::shared_ptr<Buffer>>{}));
    ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
    ASSIGN_OR_RETURN(auto buffer, AllocateArray(pool_.get(), shape));
    if (literal.size_bytes() > 0) std::memcpy(buffer->data(), literal.untyped_data(), literal.size_bytes());
    return std::shared_ptr<Buffer>(buffer);
  }

  absl::Status CheckDevice(int ordinal) const {
    if (ordinal != 0) {
      return absl::InvalidArgumentError(absl::StrCat("the cpu backend has one device (0); device ", ordinal,
                                                     " does not exist"));
    }
    return absl::OkStatus();
  }

  std::shared_ptr<HostMemoryPool> pool_;
  interpreter::DeviceState device_;
};

}  // namespace

std::unique_ptr<backend::Backend> CreateCpuBackend() { return std::make_unique<CpuBackend>(); }

void RegisterCpuBackend() {
  backend::RegisterBackendFactory("cpu", []() -> absl::StatusOr<std::unique_ptr<backend::Backend>> {
    return CreateCpuBackend();
  });
}

}  // namespace cpu
}  // namespace xla
