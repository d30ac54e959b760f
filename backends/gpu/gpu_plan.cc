#include "backends/gpu/gpu_plan.h"

#include <algorithm>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/executable_format.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

// One line per sequence: its computation's name.
std::string SequencesText(const GpuPlan& plan) {
  std::string text;
  for (const GpuSequence& q : plan.sequences) absl::StrAppend(&text, q.computation->name(), "\n");
  return text;
}

// One line per step: sequence kind instruction index elements rows gemm kernel operands
// callees scratch_bytes phases max_blocks in_place ("-" when none; plans before version 5
// end at callees, those of version 5 at scratch_bytes, of version 6 at phases, of version 7
// at max_blocks).
std::string StepsText(const GpuPlan& plan) {
  std::string text;
  for (size_t q = 0; q < plan.sequences.size(); ++q) {
    for (const GpuPlanStep& s : plan.sequences[q].steps) {
      absl::StrAppend(&text, q, " ", static_cast<int>(s.kind), " ", s.hlo->name(), " ", s.index, " ", s.elements, " ",
                      s.rows, " ", s.gemm ? 1 : 0, " ", s.kernel.empty() ? "-" : s.kernel, " ",
                      s.operands.empty() ? "-" : absl::StrJoin(s.operands, ","), " ",
                      s.callees.empty() ? "-" : absl::StrJoin(s.callees, ","), " ", s.scratch_bytes, " ",
                      s.phases.empty() ? "-" : absl::StrJoin(s.phases, ","), " ", s.max_blocks, " ",
                      s.in_place ? 1 : 0, "\n");
    }
  }
  return text;
}

absl::Status BadPlan(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("serialized gpu executable: ", what));
}

// (absl::string_view here: Debian's absl has its own, not std::string_view.)
absl::Status ParseSequences(absl::string_view text, GpuPlan* plan) {
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    GpuSequence q;
    q.computation = plan->module->GetComputationWithName(std::string(line));
    if (q.computation == nullptr) return BadPlan(absl::StrCat("no computation ", std::string(line)));
    plan->sequences.push_back(std::move(q));
  }
  if (plan->sequences.empty()) return BadPlan("no sequences");
  return absl::OkStatus();
}

template <typename Int>
absl::Status ParseIndices(absl::string_view field, absl::string_view line, std::vector<Int>* out) {
  if (field == "-") return absl::OkStatus();
  for (absl::string_view o : absl::StrSplit(field, ',')) {
    Int v = 0;
    if (!absl::SimpleAtoi(o, &v)) return BadPlan(absl::StrCat("malformed index in '", std::string(line), "'"));
    out->push_back(v);
  }
  return absl::OkStatus();
}

absl::Status ParseSteps(absl::string_view text, int version, GpuPlan* plan) {
  const int newest_kind = static_cast<int>(NewestStepKind(version));
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    int sequence = 0, kind = 0, gemm = 0, region = 0;
    GpuPlanStep step;
    // Before version 5 a line ends at the callees, before version 6 at the scratch bytes,
    // before version 7 at the phases, before version 8 at the block cap; a line with a newer
    // field reads as an older plan only when that field asks for nothing (as with the kinds an
    // older version did not have).
    const bool with_scratch = f.size() >= 11, with_phases = f.size() >= 12, with_cap = f.size() >= 13,
               with_region = f.size() == 14;
    if (f.size() < 10 || f.size() > 14 || (version >= 5 && !with_scratch) || (version >= 6 && !with_phases) ||
        (version >= 7 && !with_cap) || (version >= 8 && !with_region) ||
        (with_region && (!absl::SimpleAtoi(f[13], &region) || region < 0 || region > 1 || (version < 8 && region != 0))) ||
        (with_scratch && (!absl::SimpleAtoi(f[10], &step.scratch_bytes) || (version < 5 && step.scratch_bytes != 0))) ||
        (with_phases && version < 6 && f[11] != "-") ||
        (with_cap && (!absl::SimpleAtoi(f[12], &step.max_blocks) || step.max_blocks < 0 ||
                      (version < 7 && step.max_blocks != 0))) ||
        !absl::SimpleAtoi(f[0], &sequence) || sequence < 0 ||
        sequence >= static_cast<int>(plan->sequences.size()) || !absl::SimpleAtoi(f[1], &kind) || kind < 0 ||
        kind > newest_kind || !absl::SimpleAtoi(f[3], &step.index) ||
        !absl::SimpleAtoi(f[4], &step.elements) || !absl::SimpleAtoi(f[5], &step.rows) ||
        !absl::SimpleAtoi(f[6], &gemm) || gemm < 0 || gemm > 1) {
      return BadPlan(absl::StrCat("malformed step '", std::string(line), "'"));
    }
    GpuSequence& q = plan->sequences[sequence];
    step.kind = static_cast<GpuPlanStep::Kind>(kind);
    step.gemm = gemm == 1;
    step.in_place = region == 1;
    step.hlo = q.computation->GetInstructionWithName(std::string(f[2]));
    if (step.hlo == nullptr) {
      return BadPlan(absl::StrCat("no instruction ", std::string(f[2]), " in ", q.computation->name()));
    }
    if (f[7] != "-") step.kernel = std::string(f[7]);
    RETURN_IF_ERROR(ParseIndices(f[8], line, &step.operands));
    RETURN_IF_ERROR(ParseIndices(f[9], line, &step.callees));
    if (with_phases) RETURN_IF_ERROR(ParseIndices(f[11], line, &step.phases));
    if (step.hlo == q.computation->root_instruction()) q.root = static_cast<int>(q.steps.size());
    q.steps.push_back(std::move(step));
  }
  return absl::OkStatus();
}

}  // namespace

bool RowMajor(const Shape& shape) {
  return shape.IsArray() && shape.has_layout() && ShapeUtil::HasDescendingLayout(shape);
}

namespace {

// A dynamic-update-slice of scalar start indices.
bool ScalarStarts(const HloInstruction& dus) {
  if (dus.opcode() != HloOpcode::kDynamicUpdateSlice || !dus.shape().IsArray() ||
      dus.operand_count() != 2 + dus.shape().rank() || !dus.operand(1)->shape().IsArray()) {
    return false;
  }
  for (int64_t i = 2; i < dus.operand_count(); ++i) {
    if (!ShapeUtil::IsScalar(dus.operand(i)->shape())) return false;
  }
  return true;
}

}  // namespace

const HloInstruction* UpdatedSlice(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kDynamicUpdateSlice) return ScalarStarts(hlo) ? &hlo : nullptr;
  if (hlo.opcode() != HloOpcode::kFusion || hlo.to_apply() == nullptr) return nullptr;
  const HloInstruction* root = hlo.to_apply()->root_instruction();
  if (!ScalarStarts(*root) || root->operand(0)->opcode() != HloOpcode::kParameter) return nullptr;
  // Operand 0 is read by nothing but the update's write, and is not the update or a start.
  const HloInstruction* target = root->operand(0);
  if (target->users().size() != 1 || std::count(root->operands().begin(), root->operands().end(), target) != 1 ||
      target->parameter_number() >= hlo.operand_count()) {
    return nullptr;
  }
  return root;
}

int64_t InPlaceOperand(const HloInstruction& hlo, int64_t output) {
  if (hlo.opcode() == HloOpcode::kFusion) {
    const HloInstruction* dus = UpdatedSlice(hlo);
    return dus == nullptr ? -1 : dus->operand(0)->parameter_number();
  }
  return output;
}

bool UpdatesInPlace(const HloInstruction& hlo) {
  const std::vector<const Shape*> outputs = KernelOutputs(hlo.shape());
  const int64_t n = static_cast<int64_t>(outputs.size());
  if (hlo.opcode() == HloOpcode::kDynamicUpdateSlice || hlo.opcode() == HloOpcode::kFusion) {
    const HloInstruction* dus = UpdatedSlice(hlo);
    if (n != 1 || dus == nullptr || !ShapeUtil::Equal(dus->shape(), hlo.shape())) return false;
  } else if (hlo.opcode() != HloOpcode::kScatter || n == 0 || hlo.operand_count() != 2 * n + 1) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& operand = hlo.operand(InPlaceOperand(hlo, i))->shape();
    if (!operand.IsArray() || !operand.has_layout() || !outputs[i]->has_layout() || !ShapeUtil::Equal(operand, *outputs[i])) {
      return false;
    }
  }
  return true;
}

namespace {

bool IsElementwiseOp(const HloInstruction& hlo) {
  return HloOpcodeCategoryOf(hlo.opcode()) != HloOpcodeCategory::kOther && hlo.shape().IsArray();
}

// True when every user of `value` in its computation, and every user of theirs, is an
// elementwise op of dimensions `dims`: each reads `value` at its own element's position only.
// With `row_reductions`, a reduce taking such a value as its input is allowed too (its
// result, a value per row, is not followed further): a row kernel finishes its row's
// reductions, behind a barrier, before it writes any of the row's outputs.
bool ReadAtOwnPositions(const HloInstruction* value, absl::Span<const int64_t> dims, bool row_reductions) {
  std::vector<const HloInstruction*> work = {value};
  absl::flat_hash_set<const HloInstruction*> seen = {value};
  while (!work.empty()) {
    const HloInstruction* next = work.back();
    work.pop_back();
    for (const HloInstruction* user : next->users()) {
      if (row_reductions && user->opcode() == HloOpcode::kReduce && user->operand_count() == 2 &&
          user->operand(0) == next && user->operand(1) != next) {
        continue;
      }
      if (!IsElementwiseOp(*user) || !absl::c_equal(user->shape().dimensions(), dims)) return false;
      if (seen.insert(user).second) work.push_back(user);
    }
  }
  return true;
}

}  // namespace

std::vector<int64_t> ElementwiseReuseOperands(const HloInstruction& hlo, bool row_kernel) {
  const Shape& out = hlo.shape();
  std::vector<int64_t> found;
  if (!out.IsArray() || !out.has_layout()) return found;
  auto fits = [&out](const Shape& operand) {
    return operand.IsArray() && operand.has_layout() && absl::c_equal(operand.dimensions(), out.dimensions()) &&
           operand.layout() == out.layout() && ShapeUtil::ByteSizeOf(operand) == ShapeUtil::ByteSizeOf(out);
  };
  if (IsElementwiseOp(hlo) && !row_kernel) {
    for (int64_t i = 0; i < hlo.operand_count(); ++i) {
      if (fits(hlo.operand(i)->shape())) found.push_back(i);
    }
    return found;
  }
  if (hlo.opcode() != HloOpcode::kFusion || hlo.to_apply() == nullptr) return found;
  for (const HloInstruction* p : hlo.to_apply()->parameter_instructions()) {
    const int64_t i = p->parameter_number();
    if (i < hlo.operand_count() && fits(hlo.operand(i)->shape()) && ReadAtOwnPositions(p, out.dimensions(), row_kernel)) {
      found.push_back(i);
    }
  }
  return found;
}

std::string PhaseEntry(const std::string& kernel, size_t phase) { return absl::StrCat(kernel, "_p", phase); }

GpuPlanStep::Kind NewestStepKind(int version) {
  if (version <= 2) return GpuPlanStep::Kind::kCall;
  if (version == 3) return GpuPlanStep::Kind::kToken;
  return GpuPlanStep::Kind::kOutfeed;
}

int64_t RngKernelKeyOffset(const Shape& out) {
  const int64_t bytes = out.IsArray() ? ShapeUtil::ByteSizeOf(out) : 0;
  return (bytes + 7) / 8 * 8;
}

namespace {
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

uint64_t RngKernelKey(uint64_t seed, const std::string& name, uint64_t draw) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a-64
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return SplitMix64(seed ^ SplitMix64(hash)) ^ (draw == 0 ? 0 : SplitMix64(draw));
}

std::optional<CublasGemmForm> CublasGemm(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2) return std::nullopt;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const Shape& out = dot.shape();
  if (!RowMajor(lhs) || !RowMajor(rhs) || !RowMajor(out) || lhs.rank() != rhs.rank() || lhs.rank() != out.rank()) {
    return std::nullopt;
  }
  const DotDimensionNumbers& d = dot.attrs().dot_dimension_numbers();
  const int64_t r = lhs.rank();
  if (r == 2) {
    if (d.lhs_batch_dimensions_size() != 0 || d.rhs_batch_dimensions_size() != 0) return std::nullopt;
  } else if (r == 3) {
    if (d.lhs_batch_dimensions_size() != 1 || d.lhs_batch_dimensions(0) != 0 || d.rhs_batch_dimensions_size() != 1 ||
        d.rhs_batch_dimensions(0) != 0) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (d.lhs_contracting_dimensions_size() != 1 || d.rhs_contracting_dimensions_size() != 1) return std::nullopt;
  const int64_t lc = d.lhs_contracting_dimensions(0), rc = d.rhs_contracting_dimensions(0);
  if ((lc != r - 1 && lc != r - 2) || (rc != r - 2 && rc != r - 1)) return std::nullopt;
  for (const Shape* s : {&lhs, &rhs, &out}) {
    for (int64_t dim : s->dimensions()) {
      if (dim > (int64_t{1} << 31) - 1) return std::nullopt;
    }
  }
  const PrimitiveType a = lhs.element_type(), b = rhs.element_type(), c = out.element_type();
  bool types = false;
  if (a == b) {
    switch (a) {
      case F32:
      case F64:
        types = c == a;
        break;
      case BF16:
      case F16:
        types = c == a || c == F32;
        break;
      default:
        break;
    }
  }
  if (!types) return std::nullopt;
  return CublasGemmForm{lc == r - 2, rc == r - 1};
}

bool IsCublasGemm(const HloInstruction& dot) { return CublasGemm(dot).has_value(); }

absl::StatusOr<std::string> SerializeGpuPlan(const GpuPlan& plan) {
  backend::ExecutableFields fields = backend::NewExecutableFields("gpu");
  RETURN_IF_ERROR(backend::SetModuleField(*plan.module, &fields));
  fields.Set("ptx", plan.ptx);
  fields.Set("sm", std::to_string(plan.sm));
  fields.Set("plan_version", std::to_string(kGpuPlanFormatVersion));
  fields.Set("sequences", SequencesText(plan));
  fields.Set("steps", StepsText(plan));
  return backend::WriteExecutableContainer(fields);
}

absl::StatusOr<GpuPlan> DeserializeGpuPlan(std::string_view bytes) {
  ASSIGN_OR_RETURN(backend::ExecutableFields fields, backend::ReadExecutableContainer(bytes));
  RETURN_IF_ERROR(backend::CheckExecutableOrigin(fields, "gpu"));
  // The first plans (one sequence, no control flow) had no version field.
  std::string version = "1";
  if (fields.Has("plan_version")) version = std::string(*fields.Get("plan_version"));
  int version_number = 0;
  if (!absl::SimpleAtoi(absl::string_view(version.data(), version.size()), &version_number) ||
      version_number < kGpuPlanFormatOldestRead || version_number > kGpuPlanFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat("serialized gpu executable: its plan format is version ", version,
                                                      ", this server reads versions ", kGpuPlanFormatOldestRead, " to ",
                                                      kGpuPlanFormatVersion,
                                                      "; compile the module again"));
  }
  GpuPlan plan;
  ASSIGN_OR_RETURN(plan.module, backend::GetModuleField(fields));
  ASSIGN_OR_RETURN(std::string_view ptx, fields.Get("ptx"));
  plan.ptx = std::string(ptx);
  ASSIGN_OR_RETURN(std::string_view sm, fields.Get("sm"));
  if (!absl::SimpleAtoi(absl::string_view(sm.data(), sm.size()), &plan.sm)) return BadPlan("malformed sm");
  ASSIGN_OR_RETURN(std::string_view sequences, fields.Get("sequences"));
  RETURN_IF_ERROR(ParseSequences(absl::string_view(sequences.data(), sequences.size()), &plan));
  ASSIGN_OR_RETURN(std::string_view steps, fields.Get("steps"));
  RETURN_IF_ERROR(ParseSteps(absl::string_view(steps.data(), steps.size()), version_number, &plan));
  RETURN_IF_ERROR(ValidateGpuPlan(plan));
  return plan;
}

namespace {

bool IsScalarOf(const Shape& shape, PrimitiveType type) {
  return shape.IsArray() && shape.rank() == 0 && shape.element_type() == type;
}

// The control-flow step `s` (in sequence `q`) calls later sequences of its computations.
absl::Status ValidateCallees(const GpuPlan& plan, int q, size_t i, const GpuPlanStep& s) {
  const HloInstruction& hlo = *s.hlo;
  const std::vector<const HloComputation*> called = StepCallees(hlo);
  bool matches = called.size() == s.callees.size();
  for (size_t c = 0; matches && c < s.callees.size(); ++c) {
    const int callee = s.callees[c];
    if (callee <= q || callee >= static_cast<int>(plan.sequences.size())) {
      return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") of sequence ", q, " calls sequence ", callee,
                                  ", which is not a later one"));
    }
    matches = plan.sequences[callee].computation == called[c];
  }
  if (!matches) return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") does not call its computations"));
  // The runtime passes a while's and a branch's computation one value, a call's its operands.
  const int64_t passed = s.kind == GpuPlanStep::Kind::kCall ? hlo.operand_count() : 1;
  for (const HloComputation* c : called) {
    if (c->num_parameters() != passed) {
      return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") passes ", passed, " values to ", c->name(),
                                  ", which has ", c->num_parameters(), " parameters"));
    }
  }
  switch (s.kind) {
    case GpuPlanStep::Kind::kWhile:
      // The runtime reads one byte back per iteration.
      if (hlo.opcode() != HloOpcode::kWhile || called.size() != 2 || called[0] == nullptr ||
          hlo.operand_count() != 1 || !IsScalarOf(called[0]->root_instruction()->shape(), PRED)) {
        return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") is not a while with a pred[] condition"));
      }
      break;
    case GpuPlanStep::Kind::kConditional: {
      const Shape& selector = hlo.operand(0)->shape();
      const bool by_pred = IsScalarOf(selector, PRED) && called.size() == 2;
      if (hlo.opcode() != HloOpcode::kConditional || called.empty() ||
          hlo.operand_count() != static_cast<int64_t>(called.size()) + 1 || !(by_pred || IsScalarOf(selector, S32))) {
        return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") is not a conditional on a pred[] or s32[]"));
      }
      break;
    }
    default:
      if (hlo.opcode() != HloOpcode::kCall || called.size() != 1) {
        return BadPlan(absl::StrCat("step ", i, " (", hlo.name(), ") is not a call"));
      }
  }
  return absl::OkStatus();
}

// The rows a row kernel of `hlo` (first output `out`) takes a block each for: a sort's rows
// along its dimension, else the output's first dimension; -1 when it has none.
int64_t KernelRows(const HloInstruction& hlo, const Shape& out) {
  if (out.rank() == 0) return hlo.opcode() == HloOpcode::kSort ? 1 : -1;
  if (hlo.opcode() != HloOpcode::kSort) return hlo.shape().IsArray() ? out.dimensions(0) : -1;
  if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 || hlo.dimensions(0) >= out.rank()) return -1;
  const int64_t length = out.dimensions(static_cast<int>(hlo.dimensions(0)));
  return length == 0 ? 0 : ShapeUtil::ElementsIn(out) / length;
}

absl::Status ValidateSequence(const GpuPlan& plan, int q) {
  const GpuSequence& sequence = plan.sequences[q];
  const HloComputation* computation = sequence.computation;
  if (computation == nullptr) return BadPlan(absl::StrCat("sequence ", q, " has no computation"));
  absl::flat_hash_map<const HloInstruction*, int> position;
  for (size_t i = 0; i < sequence.steps.size(); ++i) {
    const GpuPlanStep& s = sequence.steps[i];
    if (s.hlo == nullptr || s.hlo->parent() != computation) {
      return BadPlan(absl::StrCat("step ", i, " of sequence ", q, " is not in ", computation->name()));
    }
    if (s.operands.size() != static_cast<size_t>(s.hlo->operand_count())) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") has ", s.operands.size(), " operands"));
    }
    for (size_t k = 0; k < s.operands.size(); ++k) {
      auto it = position.find(s.hlo->operand(k));
      if (it == position.end() || it->second != s.operands[k]) {
        return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), "): operand ", k, " is not step ", s.operands[k]));
      }
    }
    const bool control = s.kind == GpuPlanStep::Kind::kWhile || s.kind == GpuPlanStep::Kind::kConditional ||
                         s.kind == GpuPlanStep::Kind::kCall;
    if (!control && !s.callees.empty()) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") calls sequences but is no control flow"));
    }
    switch (s.kind) {
      case GpuPlanStep::Kind::kParameter:
        if (s.hlo->opcode() != HloOpcode::kParameter || s.index != s.hlo->parameter_number()) {
          return BadPlan(absl::StrCat("step ", i, " is not parameter ", s.index));
        }
        break;
      case GpuPlanStep::Kind::kConstant:
        if (s.hlo->opcode() != HloOpcode::kConstant || !s.hlo->has_literal()) {
          return BadPlan(absl::StrCat("step ", i, " is not a constant"));
        }
        break;
      case GpuPlanStep::Kind::kTuple:
        if (s.hlo->opcode() != HloOpcode::kTuple) return BadPlan(absl::StrCat("step ", i, " is not a tuple"));
        break;
      case GpuPlanStep::Kind::kGetTupleElement:
        if (s.hlo->opcode() != HloOpcode::kGetTupleElement || s.index != s.hlo->tuple_index() ||
            !s.hlo->operand(0)->shape().IsTuple() || s.index < 0 ||
            s.index >= ShapeUtil::TupleElementCount(s.hlo->operand(0)->shape())) {
          return BadPlan(absl::StrCat("step ", i, " is not get-tuple-element ", s.index));
        }
        break;
      case GpuPlanStep::Kind::kKernel: {
        const std::vector<const Shape*> outputs = KernelOutputs(s.hlo->shape());
        if (s.kernel.empty() || outputs.empty() || s.elements != ShapeUtil::ElementsIn(*outputs[0]) || s.rows < 0 ||
            (s.rows > 0 && s.rows != KernelRows(*s.hlo, *outputs[0]))) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not a kernel of its shape"));
        }
        for (const HloInstruction* operand : s.hlo->operands()) {
          if (!operand->shape().IsArray()) return BadPlan(absl::StrCat("kernel step ", i, " reads a tuple"));
        }
        if (s.gemm && !IsCublasGemm(*s.hlo)) return BadPlan(absl::StrCat("step ", i, " is not a cuBLAS gemm"));
        if (s.in_place && (!UpdatesInPlace(*s.hlo) || s.rows != 0 || s.gemm ||
                           (UpdatedSlice(*s.hlo) != nullptr && (!s.phases.empty() || s.scratch_bytes != 0)))) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is no update in place"));
        }
        break;
      }
      case GpuPlanStep::Kind::kAlias:
        if (!IsAlias(*s.hlo)) return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not an alias"));
        break;
      case GpuPlanStep::Kind::kToken:
        if (s.hlo->opcode() != HloOpcode::kAfterAll || !s.hlo->shape().IsToken()) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not after-all"));
        }
        break;
      case GpuPlanStep::Kind::kWhile:
      case GpuPlanStep::Kind::kConditional:
      case GpuPlanStep::Kind::kCall:
        RETURN_IF_ERROR(ValidateCallees(plan, q, i, s));
        break;
      case GpuPlanStep::Kind::kRngState: {
        const Shape& shape = s.hlo->shape();
        if (s.hlo->opcode() != HloOpcode::kRngGetAndUpdateState || !shape.IsArray() || shape.element_type() != U64 ||
            ShapeUtil::ElementsIn(shape) != 2) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not rng-get-and-update-state of u64[2]"));
        }
        break;
      }
      case GpuPlanStep::Kind::kInfeed: {
        const Shape& shape = s.hlo->shape();
        if (s.hlo->opcode() != HloOpcode::kInfeed || !shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
            !shape.tuple_shapes(1).IsToken()) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not an infeed of (data, token)"));
        }
        break;
      }
      case GpuPlanStep::Kind::kOutfeed:
        if (s.hlo->opcode() != HloOpcode::kOutfeed || s.hlo->operand_count() != 2 || !s.hlo->shape().IsToken()) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not an outfeed of (data, token)"));
        }
        break;
    }
    const bool host_data = s.kind == GpuPlanStep::Kind::kRngState || s.kind == GpuPlanStep::Kind::kInfeed ||
                           s.kind == GpuPlanStep::Kind::kOutfeed;
    if (s.scratch_bytes < 0 || (s.scratch_bytes > 0 && s.kind != GpuPlanStep::Kind::kKernel)) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") asks for ", s.scratch_bytes,
                                  " bytes of scratch memory"));
    }
    if (s.max_blocks < 0 || (s.max_blocks > 0 && s.kind != GpuPlanStep::Kind::kKernel)) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") caps its launch at ", s.max_blocks, " blocks"));
    }
    for (int64_t items : s.phases) {
      if (items < 0 || s.kind != GpuPlanStep::Kind::kKernel) {
        return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") has a later launch over ", items, " items"));
      }
    }
    if (s.in_place && s.kind != GpuPlanStep::Kind::kKernel) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") updates in place but is no kernel"));
    }
    if (host_data && (!s.kernel.empty() || s.elements != 0 || s.rows != 0 || s.gemm)) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") moves host data but names a kernel"));
    }
    if (!position.emplace(s.hlo, static_cast<int>(i)).second) {
      return BadPlan(absl::StrCat("instruction ", s.hlo->name(), " has two steps"));
    }
  }
  auto root = position.find(computation->root_instruction());
  if (root == position.end() || root->second != sequence.root) {
    return BadPlan(absl::StrCat("the root of sequence ", q, " has no step"));
  }
  for (const HloInstruction* p : computation->parameter_instructions()) {
    if (!position.contains(p)) return BadPlan(absl::StrCat("parameter ", p->name(), " has no step"));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<const Shape*> KernelOutputs(const Shape& shape) {
  if (shape.IsArray()) return {&shape};
  std::vector<const Shape*> outputs;
  if (!shape.IsTuple() || shape.tuple_shapes().empty()) return outputs;
  for (const Shape& element : shape.tuple_shapes()) {
    if (!element.IsArray() || element.dimensions() != shape.tuple_shapes(0).dimensions()) return {};
    outputs.push_back(&element);
  }
  return outputs;
}

bool IsAlias(const HloInstruction& hlo) {
  if (hlo.operand_count() < 1) return false;
  const Shape& from = hlo.operand(0)->shape();
  switch (hlo.opcode()) {
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptBarrier:
    case HloOpcode::kDomain:
      return ShapeUtil::Equal(from, hlo.shape());
    case HloOpcode::kBitcast:
      return hlo.operand_count() == 1 && from.IsArray() && hlo.shape().IsArray() && from.has_layout() &&
             hlo.shape().has_layout() && ShapeUtil::ByteSizeOf(from) == ShapeUtil::ByteSizeOf(hlo.shape());
    case HloOpcode::kReshape:  // between row-major arrays: the same bytes in the same order
      return hlo.operand_count() == 1 && RowMajor(from) && RowMajor(hlo.shape()) &&
             from.element_type() == hlo.shape().element_type() &&
             ShapeUtil::ElementsIn(from) == ShapeUtil::ElementsIn(hlo.shape());
    default:
      return false;
  }
}

std::vector<const HloComputation*> StepCallees(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kWhile) return {hlo.while_condition(), hlo.while_body()};
  return {hlo.called_computations().begin(), hlo.called_computations().end()};
}

absl::Status ValidateGpuPlan(const GpuPlan& plan) {
  if (plan.module == nullptr) return BadPlan("no module");
  if (plan.sequences.empty() || plan.sequences[0].computation != plan.module->entry_computation()) {
    return BadPlan("the first sequence is not the entry computation's");
  }
  for (size_t q = 1; q < plan.sequences.size(); ++q) {
    if (plan.sequences[q].computation == plan.module->entry_computation()) {
      return BadPlan(absl::StrCat("sequence ", q, " runs the entry computation"));
    }
  }
  for (size_t q = 0; q < plan.sequences.size(); ++q) RETURN_IF_ERROR(ValidateSequence(plan, static_cast<int>(q)));
  // A sequence per call site: each but the entry's is called from exactly one step.
  std::vector<int> calls(plan.sequences.size(), 0);
  for (const GpuSequence& q : plan.sequences) {
    for (const GpuPlanStep& s : q.steps) {
      for (int callee : s.callees) ++calls[callee];
    }
  }
  for (size_t q = 1; q < plan.sequences.size(); ++q) {
    if (calls[q] != 1) return BadPlan(absl::StrCat("sequence ", q, " is called from ", calls[q], " steps, not one"));
  }
  return absl::OkStatus();
}

}  // namespace gpu
}  // namespace xla
