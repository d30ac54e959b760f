#include "backends/gpu/gpu_expanders.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/blocked_solvers.h"
#include "backends/cpu/passes/fold_transposes_into_dots.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/cpu/passes/reduction_splitter.h"
#include "backends/gpu/gpu_conv_gemm.h"
#include "backends/gpu/gpu_plan.h"
#include "backends/gpu/ptx_bitonic.h"
#include "backends/gpu/ptx_sort.h"
#include "backends/gpu/rewrite_builder.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

// (a, b, index_a, index_b) -> a > b (largest) or a < b, floats in their total order.
HloComputation* TopKComparator(HloModule* module, PrimitiveType type, bool largest) {
  const std::string name = absl::StrCat("topk_compare_", std::string(primitive_util::LowercasePrimitiveTypeName(type)),
                                        largest ? "_gt" : "_lt");
  if (HloComputation* existing = module->GetComputationWithName(name)) return existing;
  auto comparator = std::make_unique<HloComputation>(name);
  std::vector<HloInstruction*> params;
  for (int i = 0; i < 4; ++i) {
    auto p = HloInstruction::Create(HloOpcode::kParameter,
                                    cpu::WithDefaultLayout(ShapeUtil::MakeShape(i < 2 ? type : S32, {})));
    p->mutable_attrs()->set_parameter_number(i);
    p->set_name(absl::StrCat("p", i));
    params.push_back(comparator->AddInstruction(std::move(p)));
  }
  auto compare = HloInstruction::Create(HloOpcode::kCompare, cpu::WithDefaultLayout(ShapeUtil::MakeShape(PRED, {})),
                                        {params[0], params[1]});
  compare->mutable_attrs()->set_comparison_direction(largest ? "GT" : "LT");
  if (primitive_util::IsFloatingPointType(type)) compare->mutable_attrs()->set_comparison_type("TOTALORDER");
  compare->set_name("compare");
  comparator->set_root_instruction(comparator->AddInstruction(std::move(compare)));
  return module->AddEmbeddedComputation(std::move(comparator));
}

// A stable sort of (values, indices) along `dim` with the topk comparator, then the first k
// of each along it.
std::pair<HloInstruction*, HloInstruction*> SortAndKeep(RewriteBuilder& b, HloComputation* comparator,
                                                        HloInstruction* values, HloInstruction* indices, int64_t dim,
                                                        int64_t k) {
  const std::vector<int64_t> dims = RewriteBuilder::Dims(values);
  HloInstructionProto sort_attrs;
  sort_attrs.add_dimensions(dim);
  sort_attrs.set_is_stable(true);
  const Shape values_shape = cpu::WithDefaultLayout(values->shape());
  const Shape indices_shape = cpu::WithDefaultLayout(indices->shape());
  HloInstruction* sort = b.AddShaped(HloOpcode::kSort, ShapeUtil::MakeTupleShape({values_shape, indices_shape}),
                                     {values, indices}, sort_attrs);
  sort->AppendComputation(comparator);
  std::vector<int64_t> kept_dims = dims;
  kept_dims[dim] = k;
  HloInstruction* kept[2];
  for (int64_t i = 0; i < 2; ++i) {
    HloInstructionProto gte_attrs;
    gte_attrs.set_tuple_index(i);
    HloInstruction* sorted = b.AddShaped(HloOpcode::kGetTupleElement, i == 0 ? values_shape : indices_shape, {sort},
                                         gte_attrs);
    kept[i] = b.Slice(sorted, std::vector<int64_t>(dims.size(), 0), kept_dims);
  }
  return {kept[0], kept[1]};
}

// The bitonic network's compare-and-exchange steps over a row of n (padded to a power of two).
double BitonicSteps(int64_t n) {
  const double levels = std::log2(static_cast<double>(PowerOfTwoAtLeast(n)));
  return static_cast<double>(PowerOfTwoAtLeast(n)) * levels * (levels + 1) / 2;
}

}  // namespace

std::optional<TopKChunks> PlanTopKChunks(int64_t n, int64_t k, PrimitiveType type) {
  const bool integer = primitive_util::IsIntegralType(type) && primitive_util::BitWidth(type) >= 8;
  if (k < 1 || !(integer || type == F16 || type == BF16 || type == F32 || type == F64)) return std::nullopt;
  // The longest row whose tile keeps each entry's position (4 bytes), value and s32 index in
  // shared memory (ptx_sort.cc); longer rows compare through memory, counted 4 times over.
  const int64_t entry_bytes = 8 + primitive_util::ByteWidth(type);
  int64_t fits = 64;
  while (2 * fits <= kLongestSharedMemorySort && 2 * fits * entry_bytes <= kSortSharedMemoryBytes) fits *= 2;
  const double whole = BitonicSteps(n) * (PowerOfTwoAtLeast(n) > fits ? 4 : 1);
  std::optional<TopKChunks> best;
  double best_steps = 0.75 * whole;  // worth a second launch only for a clear saving
  for (int64_t chunk = 64; chunk <= fits && chunk < n; chunk *= 2) {
    const int64_t count = (n + chunk - 1) / chunk;
    if (chunk < 2 * k || PowerOfTwoAtLeast(count * k) > fits) continue;
    const double steps = static_cast<double>(count) * BitonicSteps(chunk) + BitonicSteps(count * k);
    if (steps < best_steps) {
      best = TopKChunks{chunk, count};
      best_steps = steps;
    }
  }
  return best;
}

namespace {

// A scalar constant of `type` that sorts after every value in topk's order (the smallest in
// the total order for largest, the largest otherwise), so that padding is never among the k
// (a value equal to it keeps its lower index first).
HloInstruction* LastInTopKOrder(RewriteBuilder& b, PrimitiveType type, bool largest) {
  const int64_t bits = primitive_util::BitWidth(type);
  const uint64_t ones = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  uint64_t pattern;
  if (primitive_util::IsUnsignedIntegralType(type)) {
    pattern = largest ? 0 : ones;
  } else if (primitive_util::IsSignedIntegralType(type)) {
    pattern = largest ? sign : ones ^ sign;
  } else {  // a NaN of the largest payload, negative for largest: the ends of the total order
    pattern = largest ? ones : ones ^ sign;
  }
  Literal literal = *Literal::Create(cpu::WithDefaultLayout(ShapeUtil::MakeShape(type, {})));
  std::memcpy(literal.untyped_data(), &pattern, static_cast<size_t>(primitive_util::ByteWidth(type)));  // little-endian
  return b.Constant(std::move(literal));
}

absl::Status ExpandTopK(HloModule* module, HloComputation* computation, HloInstruction* topk) {
  RewriteBuilder b(computation);
  HloInstruction* x = topk->mutable_operand(0);
  const Shape& in = x->shape();
  const int64_t last = in.rank() - 1;
  const int64_t k = topk->attrs().k();
  const int64_t n = in.dimensions(last);
  const PrimitiveType type = in.element_type();
  const bool largest = topk->attrs().largest();
  HloComputation* comparator = TopKComparator(module, type, largest);
  HloInstruction* parts[2];
  if (const std::optional<TopKChunks> chunks = PlanTopKChunks(n, k, type)) {
    // Rows of n padded to `count` chunks; each chunk sorted and its first k kept (an element
    // among a row's first k is among its chunk's first k); the candidates, in chunk order,
    // sorted again. Ties keep the lower index first both times, so the result is the
    // whole row's stable order.
    const int64_t rows = ShapeUtil::ElementsIn(in) / n;  // n >= k >= 1 here
    const int64_t padded = chunks->count * chunks->chunk;
    HloInstruction* values = b.Reshape(x, {rows, n});
    if (padded > n) {
      HloInstructionProto pad_attrs;
      pad_attrs.mutable_padding_config()->add_dimensions();
      pad_attrs.mutable_padding_config()->add_dimensions()->set_edge_padding_high(padded - n);
      values = b.Add(HloOpcode::kPad, type, {rows, padded}, {values, LastInTopKOrder(b, type, largest)}, pad_attrs);
    }
    HloInstructionProto iota_attrs;
    iota_attrs.add_dimensions(1);
    HloInstruction* indices = b.Add(HloOpcode::kIota, S32, {rows, padded}, {}, iota_attrs);
    auto [chunk_values, chunk_indices] =
        SortAndKeep(b, comparator, b.Reshape(values, {rows, chunks->count, chunks->chunk}),
                    b.Reshape(indices, {rows, chunks->count, chunks->chunk}), 2, k);
    auto [kept_values, kept_indices] =
        SortAndKeep(b, comparator, b.Reshape(chunk_values, {rows, chunks->count * k}),
                    b.Reshape(chunk_indices, {rows, chunks->count * k}), 1, k);
    parts[0] = kept_values;
    parts[1] = kept_indices;
  } else {
    HloInstructionProto iota_attrs;
    iota_attrs.add_dimensions(last);
    HloInstruction* iota = b.Add(HloOpcode::kIota, S32, RewriteBuilder::Dims(x), {}, iota_attrs);
    std::tie(parts[0], parts[1]) = SortAndKeep(b, comparator, x, iota, last, k);
  }
  // In topk's own shapes (a layout other than the default through a copy).
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& shape = topk->shape().tuple_shapes(static_cast<int>(i));
    parts[i] = b.Reshape(parts[i], std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end()));
    if (shape.has_layout() && !ShapeUtil::Equal(parts[i]->shape(), shape)) {
      parts[i] = b.AddShaped(HloOpcode::kCopy, shape, {parts[i]});
    }
  }
  HloInstruction* tuple = b.AddShaped(HloOpcode::kTuple, topk->shape(), {parts[0], parts[1]});
  RETURN_IF_ERROR(topk->ReplaceAllUsesWith(tuple));
  if (computation->root_instruction() == topk) computation->set_root_instruction(tuple);
  return computation->RemoveInstruction(topk);
}

// cholesky or triangular-solve on a type narrower than f64/c128: the same op on operands
// converted to f64 (c128 for complex), its result converted back, so the value is rounded
// once from double as the interpreter rounds it.
absl::Status WidenSolver(HloComputation* computation, HloInstruction* hlo) {
  const PrimitiveType type = hlo->shape().element_type();
  const PrimitiveType wide = primitive_util::IsComplexType(type) ? C128 : F64;
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : hlo->operands()) {
    Shape shape = operand->shape();
    shape.set_element_type(wide);
    operands.push_back(cpu::AddWithShape(computation, HloOpcode::kConvert, shape, {operand}));
  }
  Shape wide_shape = hlo->shape();
  wide_shape.set_element_type(wide);
  HloInstruction* widened = cpu::AddWithShape(computation, hlo->opcode(), wide_shape, operands, hlo->attrs());
  HloInstruction* back = cpu::AddWithShape(computation, HloOpcode::kConvert, hlo->shape(), {widened});
  RETURN_IF_ERROR(hlo->ReplaceAllUsesWith(back));
  if (computation->root_instruction() == hlo) computation->set_root_instruction(back);
  return computation->RemoveInstruction(hlo);
}

bool NeedsWidening(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kCholesky && hlo.opcode() != HloOpcode::kTriangularSolve) return false;
  if (!hlo.shape().IsArray()) return false;
  const PrimitiveType type = hlo.shape().element_type();
  return (primitive_util::IsFloatingPointType(type) && type != F64) || type == C64;
}

}  // namespace

absl::StatusOr<bool> ExpandForGpu(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (NeedsWidening(*hlo)) {
        RETURN_IF_ERROR(WidenSolver(computation, hlo));
        changed = true;
        continue;
      }
      if (hlo->opcode() != HloOpcode::kTopk) continue;
      const Shape& in = hlo->operand(0)->shape();
      const int64_t k = hlo->attrs().k();
      if (!in.IsArray() || in.rank() < 1 || k < 0 || k > in.dimensions(in.rank() - 1) || !hlo->shape().IsTuple() ||
          hlo->shape().tuple_shapes_size() != 2) {
        return absl::InvalidArgumentError(absl::StrCat("topk ", hlo->name(), ": k=", k, " of ", in.ToString(true)));
      }
      RETURN_IF_ERROR(ExpandTopK(module, computation, hlo));
      changed = true;
    }
  }
  // After widening: large solvers as loops of small ones and dots, in double.
  ASSIGN_OR_RETURN(bool blocked, cpu::BlockSolvers(module, kGpuSolverBlock));
  ASSIGN_OR_RETURN(bool convolutions, RewriteConvolutionsAsGemm(module));
  // Reductions with few outputs: a block per chunk of a reduction to a scalar, and enough
  // partial outputs for the rest (a thread each), instead of a few threads reading it all.
  ASSIGN_OR_RETURN(bool to_scalar, cpu::ReductionSplitter(kGpuScalarReductionChunks).Run(module));
  ASSIGN_OR_RETURN(bool few_outputs, cpu::FewOutputReductionSplitter(kGpuMinReductionOutputs, kGpuScalarReductionChunks).Run(module));
  return changed || blocked || convolutions || to_scalar || few_outputs;
}


absl::StatusOr<bool> FoldTransposesIntoGemms(HloModule* module) {
  return cpu::FoldTransposesIntoDots(module, [](const HloInstruction& dot) { return CublasGemm(dot).has_value(); });
}

}  // namespace gpu
}  // namespace xla
