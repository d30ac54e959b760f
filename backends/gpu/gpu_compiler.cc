#include "backends/gpu/gpu_compiler.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/passes/operand_forms.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/cpu/passes/pipeline.h"
#include "backends/cpu/passes/single_device_collectives.h"
#include "backends/gpu/gpu_expanders.h"
#include "backends/gpu/gpu_fft_expander.h"
#include "backends/gpu/gpu_update_fusion.h"
#include "hlo/hlo_verifier.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {

namespace {

// Builds the plan's sequences: the entry's first, then one per call site of a while,
// conditional or call (each after its caller's, as ValidateGpuPlan wants).
// `computation`'s instructions in post order, except that each parameter's get-tuple-elements
// (and theirs, for nested tuples) come right after it: a while body's state tuple is then read
// and dropped before any kernel runs, so each element's buffer is held by its get-tuple-element
// alone and an update of it (a KV cache's dynamic-update-slice) may write it in place
// (GpuPlanStep::in_place).
std::vector<const HloInstruction*> StepOrder(const HloComputation& computation) {
  const std::vector<HloInstruction*> post_order = computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  absl::flat_hash_set<const HloInstruction*> early;
  for (const HloInstruction* hlo : post_order) {
    position[hlo] = position.size();
    if (hlo->opcode() != HloOpcode::kGetTupleElement || !hlo->control_predecessors().empty()) continue;
    const HloInstruction* tuple = hlo->operand(0);
    if (tuple->opcode() == HloOpcode::kParameter || early.contains(tuple)) early.insert(hlo);
  }
  std::vector<const HloInstruction*> order;
  std::function<void(const HloInstruction*)> place = [&](const HloInstruction* hlo) {
    order.push_back(hlo);
    std::vector<const HloInstruction*> reads;
    for (const HloInstruction* user : hlo->users()) {
      if (early.contains(user)) reads.push_back(user);
    }
    std::sort(reads.begin(), reads.end(),
              [&](const HloInstruction* a, const HloInstruction* b) { return position.at(a) < position.at(b); });
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (const HloInstruction* read : reads) place(read);
  };
  for (const HloInstruction* hlo : post_order) {
    if (!early.contains(hlo)) place(hlo);
  }
  return order;
}

class PlanBuilder {
 public:
  explicit PlanBuilder(GpuPlan* plan) : plan_(plan) {}

  // Appends the sequence of `computation` (and those it calls); returns its index.
  int Build(const HloComputation* computation) {
    const int index = static_cast<int>(plan_->sequences.size());
    plan_->sequences.emplace_back().computation = computation;
    GpuSequence sequence;  // filled here: the callees' sequences grow plan_->sequences meanwhile
    sequence.computation = computation;
    absl::flat_hash_map<const HloInstruction*, int> position;
    for (const HloInstruction* hlo : StepOrder(*computation)) {
      GpuPlanStep step;
      step.hlo = hlo;
      for (const HloInstruction* operand : hlo->operands()) step.operands.push_back(position.at(operand));
      switch (hlo->opcode()) {
        case HloOpcode::kParameter:
          step.kind = GpuPlanStep::Kind::kParameter;
          step.index = hlo->parameter_number();
          break;
        case HloOpcode::kConstant:
          step.kind = GpuPlanStep::Kind::kConstant;
          break;
        case HloOpcode::kTuple:
          step.kind = GpuPlanStep::Kind::kTuple;
          break;
        case HloOpcode::kGetTupleElement:
          step.kind = GpuPlanStep::Kind::kGetTupleElement;
          step.index = hlo->tuple_index();
          break;
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          step.kind = hlo->opcode() == HloOpcode::kWhile         ? GpuPlanStep::Kind::kWhile
                      : hlo->opcode() == HloOpcode::kConditional ? GpuPlanStep::Kind::kConditional
                                                                 : GpuPlanStep::Kind::kCall;
          for (const HloComputation* callee : StepCallees(*hlo)) step.callees.push_back(Build(callee));
          break;
        case HloOpcode::kAfterAll:
          step.kind = GpuPlanStep::Kind::kToken;
          break;
        // The host's data (gpu_plan.h): the device's rng state, its feed queues.
        case HloOpcode::kRngGetAndUpdateState:
          step.kind = GpuPlanStep::Kind::kRngState;
          break;
        case HloOpcode::kInfeed:
          step.kind = GpuPlanStep::Kind::kInfeed;
          break;
        case HloOpcode::kOutfeed:
          step.kind = GpuPlanStep::Kind::kOutfeed;
          break;
        case HloOpcode::kSend:
        case HloOpcode::kRecv:
          // As the interpreter and the cpu backend: one device, no peer and no host channels.
          refusals_.push_back(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " on channel ",
                                           hlo->attrs().channel_id(),
                                           hlo->attrs().is_host_transfer() ? " (host transfer)" : "",
                                           " needs a peer device or host; the gpu backend has one device and no "
                                           "host channels"));
          break;
        default:
          if (IsAlias(*hlo)) {
            step.kind = GpuPlanStep::Kind::kAlias;
          } else if (IsKernelCandidate(*hlo)) {
            step.kind = GpuPlanStep::Kind::kKernel;
            kernels_.push_back(hlo);
            kernel_steps_.emplace_back(index, static_cast<int>(sequence.steps.size()));
          } else {
            unsupported_.push_back(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " (", hlo->name(), ")"));
          }
      }
      if (hlo == computation->root_instruction()) sequence.root = static_cast<int>(sequence.steps.size());
      position[hlo] = static_cast<int>(sequence.steps.size());
      sequence.steps.push_back(std::move(step));
    }
    plan_->sequences[index] = std::move(sequence);
    return index;
  }

  const std::vector<const HloInstruction*>& kernels() const { return kernels_; }
  // Where kernels()[k]'s step is: {sequence, step}.
  const std::vector<std::pair<int, int>>& kernel_steps() const { return kernel_steps_; }
  const std::vector<std::string>& unsupported() const { return unsupported_; }
  const std::vector<std::string>& refusals() const { return refusals_; }

 private:
  GpuPlan* const plan_;
  std::vector<const HloInstruction*> kernels_;
  std::vector<std::pair<int, int>> kernel_steps_;
  std::vector<std::string> unsupported_;
  std::vector<std::string> refusals_;  // ops no single-device backend runs, with the reason
};

// rng-bit-generator's state and algorithm as the interpreter checks them (ops_rng.cc), with
// its error codes; RNG_DEFAULT is Philox.
absl::StatusOr<RandomAlgorithm> CheckBitGenerator(const HloInstruction& hlo) {
  const Shape& state = hlo.operand(0)->shape();
  if (!state.IsArray() || state.element_type() != U64 || state.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo.name(),
                                                   ": the state must be u64[2] or u64[3], got ", state.ToString()));
  }
  const int64_t size = state.dimensions(0);
  RandomAlgorithm algorithm = hlo.attrs().rng_algorithm();
  if (algorithm == RNG_DEFAULT) algorithm = RNG_PHILOX;
  if (algorithm == RNG_THREE_FRY && size != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator ", hlo.name(), ": three-fry needs a u64[2] state, got ", state.ToString()));
  }
  if (algorithm == RNG_PHILOX && size != 2 && size != 3) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo.name(),
                                                   ": philox needs a u64[2] or u64[3] state, got ", state.ToString()));
  }
  if (algorithm != RNG_THREE_FRY && algorithm != RNG_PHILOX) {
    return absl::UnimplementedError(absl::StrCat("rng algorithm ", RandomAlgorithm_Name(algorithm), " is not supported"));
  }
  return algorithm;
}

// How far rng-bit-generator advances the counter for `bits` (ops_rng_bits.h): Threefry by a
// block per element (64-bit) or per pair of the halved shape; Philox by a block per four
// 32-bit or two 64-bit elements.
uint64_t CounterAdvance(RandomAlgorithm algorithm, const Shape& bits) {
  const int64_t count = ShapeUtil::ElementsIn(bits);
  const bool wide = primitive_util::BitWidth(bits.element_type()) == 64;
  if (algorithm == RNG_PHILOX) {
    const int64_t per_block = wide ? 2 : 4;
    return static_cast<uint64_t>((count + per_block - 1) / per_block);
  }
  if (wide || count == 0) return static_cast<uint64_t>(count);
  // The pairs of the halved shape: the split dimension (the first even one, else the first
  // largest) rounded up to even, halved.
  const absl::Span<const int64_t> dims = bits.dimensions();
  if (dims.empty()) return 1;
  size_t split = dims.size();
  for (size_t i = 0; i < dims.size() && split == dims.size(); ++i) {
    if (dims[i] % 2 == 0) split = i;
  }
  if (split == dims.size()) {
    split = 0;
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] > dims[split]) split = i;
    }
  }
  return static_cast<uint64_t>(count / dims[split] * ((dims[split] + 1) / 2));
}

// (new state, bits) = rng-bit-generator(state) -> (state + advance, rng-bit-generator(state)
// with the bits alone): the bits become a kernel (ptx_rng.cc), the new state a few
// elementwise ops. A u64[3] Philox state carries the low counter word into the high one; a
// u64[2] one writes back only the low word, as XLA does.
absl::Status SplitBitGenerator(HloComputation* computation, HloInstruction* hlo, RandomAlgorithm algorithm) {
  HloInstruction* state = hlo->mutable_operand(0);
  const Shape& state_shape = state->shape();
  const int64_t size = state_shape.dimensions(0);
  const Shape& bits_shape = hlo->shape().tuple_shapes(1);
  HloInstruction* bits = cpu::AddWithShape(computation, HloOpcode::kRngBitGenerator, bits_shape, {state}, hlo->attrs());
  Literal advance = Literal::Create(ShapeUtil::MakeShape(U64, {size})).value();
  advance.SetFromUint64(1, CounterAdvance(algorithm, bits_shape));
  HloInstruction* added = cpu::AddWithShape(computation, HloOpcode::kAdd, state_shape,
                                            {state, cpu::AddConstant(computation, std::move(advance))});
  HloInstruction* new_state = added;
  if (size == 3) {
    // carry = (added[1] < state[1]) into element 2: concatenate({0, 0}, convert(lt[1:2])).
    HloInstructionProto compare_attrs;
    compare_attrs.set_comparison_direction("LT");
    Shape pred_shape = state_shape;
    pred_shape.set_element_type(PRED);
    HloInstruction* wrapped = cpu::AddWithShape(computation, HloOpcode::kCompare, pred_shape, {added, state}, compare_attrs);
    HloInstructionProto slice_attrs;
    auto* dim = slice_attrs.add_slice_dimensions();
    dim->set_start(1);
    dim->set_limit(2);
    dim->set_stride(1);
    HloInstruction* carried = cpu::AddWithShape(computation, HloOpcode::kSlice,
                                                cpu::WithDefaultLayout(ShapeUtil::MakeShape(PRED, {1})), {wrapped},
                                                slice_attrs);
    HloInstruction* carry = cpu::AddWithShape(computation, HloOpcode::kConvert,
                                              cpu::WithDefaultLayout(ShapeUtil::MakeShape(U64, {1})), {carried});
    Literal zeros = Literal::Create(ShapeUtil::MakeShape(U64, {2})).value();
    HloInstructionProto concat_attrs;
    concat_attrs.add_dimensions(0);
    HloInstruction* shifted = cpu::AddWithShape(computation, HloOpcode::kConcatenate, state_shape,
                                                {cpu::AddConstant(computation, std::move(zeros)), carry}, concat_attrs);
    new_state = cpu::AddWithShape(computation, HloOpcode::kAdd, state_shape, {added, shifted});
  }
  HloInstruction* tuple = cpu::AddWithShape(computation, HloOpcode::kTuple, hlo->shape(), {new_state, bits});
  RETURN_IF_ERROR(hlo->ReplaceAllUsesWith(tuple));
  if (computation->root_instruction() == hlo) computation->set_root_instruction(tuple);
  return computation->RemoveInstruction(hlo);
}

// Every rng-bit-generator checked; those that return their new state split (SplitBitGenerator).
absl::Status SplitBitGenerators(HloModule* module) {
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (hlo->opcode() != HloOpcode::kRngBitGenerator) continue;
      ASSIGN_OR_RETURN(RandomAlgorithm algorithm, CheckBitGenerator(*hlo));
      const Shape& shape = hlo->shape();
      if (!shape.IsTuple()) continue;
      if (shape.tuple_shapes_size() != 2 || !ShapeUtil::Compatible(shape.tuple_shapes(0), hlo->operand(0)->shape()) ||
          !shape.tuple_shapes(1).IsArray() || !primitive_util::IsIntegralType(shape.tuple_shapes(1).element_type())) {
        return absl::InvalidArgumentError(
            absl::StrCat("rng-bit-generator ", hlo->name(), ": the result must be (state, bits), got ", shape.ToString()));
      }
      RETURN_IF_ERROR(SplitBitGenerator(computation, hlo, algorithm));
    }
  }
  return absl::OkStatus();
}

// The single-device pass names the cpu backend in its errors (the one device it speaks of
// is the executable's, here a GPU's).
absl::Status ForThisBackend(absl::Status status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrReplaceAll(status.message(), {{"cpu backend", "gpu backend"}}));
}

}  // namespace

absl::StatusOr<GpuPlan> CompileGpuPlan(std::unique_ptr<HloModule> module, const GpuTarget& target) {
  if (module == nullptr) return absl::InvalidArgumentError("gpu: no module");
  RETURN_IF_ERROR(VerifyHloModule(*module));
  // One device, as the cpu backend: collectives and the allowlisted custom-calls become plain
  // HLO (a module built for more devices, or an unknown custom-call target, fails here).
  RETURN_IF_ERROR(ForThisBackend(cpu::SingleDeviceCollectives().Run(module.get()).status()));
  // The forms the emitters read, before the gpu's own expansions (which split reductions).
  RETURN_IF_ERROR(ForThisBackend(cpu::OperandFormNormalizer().Run(module.get()).status()));
  RETURN_IF_ERROR(ExpandForGpu(module.get()).status());
  RETURN_IF_ERROR(ExpandFftsForGpu(module.get()).status());
  RETURN_IF_ERROR(SplitBitGenerators(module.get()));
  RETURN_IF_ERROR(cpu::RunCpuPipeline(module.get()));
  RETURN_IF_ERROR(FuseUpdatesIntoSlices(module.get()).status());
  RETURN_IF_ERROR(FoldTransposesIntoGemms(module.get()).status());
  GpuPlan plan;
  plan.sm = target.sm;
  PlanBuilder builder(&plan);
  builder.Build(module->entry_computation());
  if (!builder.refusals().empty()) return absl::UnimplementedError(absl::StrJoin(builder.refusals(), "; "));
  if (!builder.unsupported().empty()) {
    return absl::UnimplementedError(
        absl::StrCat("gpu backend does not run these ops yet: ", absl::StrJoin(builder.unsupported(), ", ")));
  }
  const std::vector<const HloInstruction*>& kernels = builder.kernels();
  if (!kernels.empty()) {
    ASSIGN_OR_RETURN(PtxModule ptx, EmitPtx(kernels, module->name(), target));
    for (size_t k = 0; k < kernels.size(); ++k) {
      const auto [sequence, index] = builder.kernel_steps()[k];
      GpuPlanStep& step = plan.sequences[sequence].steps[index];
      step.kernel = ptx.kernels[k].name;
      step.elements = ptx.kernels[k].elements;
      step.rows = ptx.kernels[k].rows;
      step.phases = ptx.kernels[k].phases;
      step.max_blocks = ptx.kernels[k].max_blocks;
      step.gemm = IsCublasGemm(*kernels[k]);
      step.scratch_bytes = ptx.kernels[k].scratch_bytes;
      step.in_place = ptx.kernels[k].in_place;
    }
    plan.ptx = std::move(ptx.ptx);
  }
  plan.module = std::move(module);
  RETURN_IF_ERROR(ValidateGpuPlan(plan));
  return plan;
}

void RegisterGpuBackend() {
  backend::RegisterBackendFactory("gpu", []() -> absl::StatusOr<std::unique_ptr<backend::Backend>> {
    ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::Default());
    return CreateGpuBackend(driver, CompileGpuPlan);
  });
}

}  // namespace gpu
}  // namespace xla
