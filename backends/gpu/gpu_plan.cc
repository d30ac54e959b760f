#include "backends/gpu/gpu_plan.h"

#include "absl/container/flat_hash_map.h"
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

// One line per step: kind instruction index elements rows gemm kernel operands ("-" when none).
std::string StepsText(const GpuPlan& plan) {
  std::string text;
  for (const GpuPlanStep& s : plan.steps) {
    absl::StrAppend(&text, static_cast<int>(s.kind), " ", s.hlo->name(), " ", s.index, " ", s.elements, " ", s.rows, " ",
                    s.gemm ? 1 : 0, " ",
                    s.kernel.empty() ? "-" : s.kernel, " ",
                    s.operands.empty() ? "-" : absl::StrJoin(s.operands, ","), "\n");
  }
  return text;
}

absl::Status BadPlan(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("serialized gpu executable: ", what));
}

// (absl::string_view here: Debian's absl has its own, not std::string_view.)
absl::Status ParseSteps(absl::string_view text, GpuPlan* plan) {
  const HloComputation& entry = *plan->module->entry_computation();
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    int kind = 0;
    GpuPlanStep step;
    int gemm = 0;
    if (f.size() != 8 || !absl::SimpleAtoi(f[0], &kind) || kind < 0 || kind > 4 ||
        !absl::SimpleAtoi(f[2], &step.index) || !absl::SimpleAtoi(f[3], &step.elements) ||
        !absl::SimpleAtoi(f[4], &step.rows) || !absl::SimpleAtoi(f[5], &gemm) || gemm < 0 || gemm > 1) {
      return BadPlan(absl::StrCat("malformed step '", std::string(line), "'"));
    }
    step.kind = static_cast<GpuPlanStep::Kind>(kind);
    step.gemm = gemm == 1;
    step.hlo = entry.GetInstructionWithName(std::string(f[1]));
    if (step.hlo == nullptr) return BadPlan(absl::StrCat("no instruction ", std::string(f[1])));
    if (f[6] != "-") step.kernel = std::string(f[6]);
    if (f[7] != "-") {
      for (absl::string_view o : absl::StrSplit(f[7], ',')) {
        int operand = 0;
        if (!absl::SimpleAtoi(o, &operand)) return BadPlan(absl::StrCat("malformed operand in '", std::string(line), "'"));
        step.operands.push_back(operand);
      }
    }
    if (step.hlo == entry.root_instruction()) plan->root = static_cast<int>(plan->steps.size());
    plan->steps.push_back(std::move(step));
  }
  return absl::OkStatus();
}

bool RowMajor(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout()) return false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.layout().minor_to_major()[i] != shape.rank() - 1 - i) return false;
  }
  return true;
}

}  // namespace

bool IsCublasGemm(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2) return false;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const Shape& out = dot.shape();
  if (!RowMajor(lhs) || !RowMajor(rhs) || !RowMajor(out) || lhs.rank() != rhs.rank() || lhs.rank() != out.rank()) {
    return false;
  }
  const DotDimensionNumbers& d = dot.attrs().dot_dimension_numbers();
  const int64_t r = lhs.rank();
  if (r == 2) {
    if (d.lhs_batch_dimensions_size() != 0 || d.rhs_batch_dimensions_size() != 0) return false;
  } else if (r == 3) {
    if (d.lhs_batch_dimensions_size() != 1 || d.lhs_batch_dimensions(0) != 0 || d.rhs_batch_dimensions_size() != 1 ||
        d.rhs_batch_dimensions(0) != 0) {
      return false;
    }
  } else {
    return false;
  }
  if (d.lhs_contracting_dimensions_size() != 1 || d.lhs_contracting_dimensions(0) != r - 1 ||
      d.rhs_contracting_dimensions_size() != 1 || d.rhs_contracting_dimensions(0) != r - 2) {
    return false;
  }
  for (const Shape* s : {&lhs, &rhs, &out}) {
    for (int64_t dim : s->dimensions()) {
      if (dim > (int64_t{1} << 31) - 1) return false;
    }
  }
  const PrimitiveType a = lhs.element_type(), b = rhs.element_type(), c = out.element_type();
  if (a != b) return false;
  switch (a) {
    case F32:
    case F64:
      return c == a;
    case BF16:
    case F16:
      return c == a || c == F32;
    default:
      return false;
  }
}

absl::StatusOr<std::string> SerializeGpuPlan(const GpuPlan& plan) {
  backend::ExecutableFields fields = backend::NewExecutableFields("gpu");
  RETURN_IF_ERROR(backend::SetModuleField(*plan.module, &fields));
  fields.Set("ptx", plan.ptx);
  fields.Set("sm", std::to_string(plan.sm));
  fields.Set("steps", StepsText(plan));
  return backend::WriteExecutableContainer(fields);
}

absl::StatusOr<GpuPlan> DeserializeGpuPlan(std::string_view bytes) {
  ASSIGN_OR_RETURN(backend::ExecutableFields fields, backend::ReadExecutableContainer(bytes));
  RETURN_IF_ERROR(backend::CheckExecutableOrigin(fields, "gpu"));
  GpuPlan plan;
  ASSIGN_OR_RETURN(plan.module, backend::GetModuleField(fields));
  ASSIGN_OR_RETURN(std::string_view ptx, fields.Get("ptx"));
  plan.ptx = std::string(ptx);
  ASSIGN_OR_RETURN(std::string_view sm, fields.Get("sm"));
  if (!absl::SimpleAtoi(absl::string_view(sm.data(), sm.size()), &plan.sm)) return BadPlan("malformed sm");
  ASSIGN_OR_RETURN(std::string_view steps, fields.Get("steps"));
  RETURN_IF_ERROR(ParseSteps(absl::string_view(steps.data(), steps.size()), &plan));
  RETURN_IF_ERROR(ValidateGpuPlan(plan));
  return plan;
}

absl::Status ValidateGpuPlan(const GpuPlan& plan) {
  if (plan.module == nullptr) return BadPlan("no module");
  const HloComputation& entry = *plan.module->entry_computation();
  absl::flat_hash_map<const HloInstruction*, int> position;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const GpuPlanStep& s = plan.steps[i];
    if (s.hlo == nullptr || s.hlo->parent() != &entry) return BadPlan(absl::StrCat("step ", i, " is not in the entry"));
    if (s.operands.size() != static_cast<size_t>(s.hlo->operand_count())) {
      return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") has ", s.operands.size(), " operands"));
    }
    for (size_t k = 0; k < s.operands.size(); ++k) {
      auto it = position.find(s.hlo->operand(k));
      if (it == position.end() || it->second != s.operands[k]) {
        return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), "): operand ", k, " is not step ", s.operands[k]));
      }
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
      case GpuPlanStep::Kind::kKernel:
        if (s.kernel.empty() || !s.hlo->shape().IsArray() || s.elements != ShapeUtil::ElementsIn(s.hlo->shape()) ||
            s.rows < 0 || (s.rows > 0 && (s.hlo->shape().rank() == 0 || s.rows != s.hlo->shape().dimensions(0)))) {
          return BadPlan(absl::StrCat("step ", i, " (", s.hlo->name(), ") is not a kernel of its shape"));
        }
        for (const HloInstruction* operand : s.hlo->operands()) {
          if (!operand->shape().IsArray()) return BadPlan(absl::StrCat("kernel step ", i, " reads a tuple"));
        }
        if (s.gemm && !IsCublasGemm(*s.hlo)) return BadPlan(absl::StrCat("step ", i, " is not a cuBLAS gemm"));
        break;
    }
    if (!position.emplace(s.hlo, static_cast<int>(i)).second) {
      return BadPlan(absl::StrCat("instruction ", s.hlo->name(), " has two steps"));
    }
  }
  auto root = position.find(entry.root_instruction());
  if (root == position.end() || root->second != plan.root) return BadPlan("the root has no step");
  if (entry.num_parameters() > 0) {
    for (const HloInstruction* p : entry.parameter_instructions()) {
      if (!position.contains(p)) return BadPlan(absl::StrCat("parameter ", p->name(), " has no step"));
    }
  }
  return absl::OkStatus();
}

}  // namespace gpu
}  // namespace xla
