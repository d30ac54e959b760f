// The dot generator: each output element is its contraction, summed in an inner loop in the
// accumulator type the interpreter uses (split from elemental_generators.cc).
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {

absl::StatusOr<Generator> ElementalEmitter::MakeDotGenerator(const HloInstruction* hlo, const OperandGenerator& operand) {
  const DotDimensionNumbers& dnums = hlo->attrs().dot_dimension_numbers();
  const Shape lhs = hlo->operand(0)->shape(), rhs = hlo->operand(1)->shape();
  const PrimitiveType out_type = hlo->shape().element_type();
  // As the interpreter: f8/f4 sums in f64 and c64 sums in c128, rounded once at the end;
  // f16/bf16 sums in f32 (within the reassociated-sum bound of the interpreter's f64).
  PrimitiveType acc_type = out_type;
  if (out_type == F16 || out_type == BF16) acc_type = F32;
  if (primitive_util::IsNarrowFloatType(out_type)) acc_type = F64;
  if (out_type == C64) acc_type = C128;
  ASSIGN_OR_RETURN(Generator lg, operand(0));
  ASSIGN_OR_RETURN(Generator rg, operand(1));
  auto is_in = [](const auto& list, int64_t d) {
    for (int64_t x : list) if (x == d) return true;
    return false;
  };
  std::vector<int64_t> lhs_free, rhs_free;
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!is_in(dnums.lhs_batch_dimensions(), d) && !is_in(dnums.lhs_contracting_dimensions(), d)) lhs_free.push_back(d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!is_in(dnums.rhs_batch_dimensions(), d) && !is_in(dnums.rhs_contracting_dimensions(), d)) rhs_free.push_back(d);
  }
  if (dnums.lhs_contracting_dimensions_size() != dnums.rhs_contracting_dimensions_size() ||
      dnums.lhs_batch_dimensions_size() != dnums.rhs_batch_dimensions_size()) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", hlo->name(), ": mismatched dimension numbers"));
  }
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type();
  // A multiply-add in the accumulator type, built from the ops' own emitters.
  auto mul = HloInstruction::Create(HloOpcode::kMultiply, ShapeUtil::MakeShape(acc_type, {}));
  auto add = HloInstruction::Create(HloOpcode::kAdd, ShapeUtil::MakeShape(acc_type, {}));
  std::shared_ptr<HloInstruction> mul_op(mul.release()), add_op(add.release());
  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(acc_type));
    llvm::Value* zero = llvm::Constant::getNullValue(RegisterType(acc_type));
    b_->CreateStore(zero, acc);
    IrIndex li, ri;
    li.multi.assign(lhs.rank(), nullptr);
    ri.multi.assign(rhs.rank(), nullptr);
    int64_t k = 0;
    for (int i = 0; i < dnums.lhs_batch_dimensions_size(); ++i, ++k) {
      li.multi[dnums.lhs_batch_dimensions(i)] = out.multi[k];
      ri.multi[dnums.rhs_batch_dimensions(i)] = out.multi[k];
    }
    for (int64_t d : lhs_free) li.multi[d] = out.multi[k++];
    for (int64_t d : rhs_free) ri.multi[d] = out.multi[k++];
    std::function<absl::Status(int)> level = [&](int j) -> absl::Status {
      if (j == dnums.lhs_contracting_dimensions_size()) {
        ASSIGN_OR_RETURN(llvm::Value* a, lg(li));
        ASSIGN_OR_RETURN(llvm::Value* c, rg(ri));
        ASSIGN_OR_RETURN(a, EmitConvert(a, lt, acc_type));
        ASSIGN_OR_RETURN(c, EmitConvert(c, rt, acc_type));
        ASSIGN_OR_RETURN(llvm::Value* p, EmitBinary(*mul_op, a, c, acc_type));
        llvm::Value* sum = b_->CreateLoad(RegisterType(acc_type), acc);
        ASSIGN_OR_RETURN(llvm::Value* s, EmitBinary(*add_op, sum, p, acc_type));
        b_->CreateStore(s, acc);
        return absl::OkStatus();
      }
      const int64_t ld = dnums.lhs_contracting_dimensions(j), rd = dnums.rhs_contracting_dimensions(j);
      return EmitForLoop(b_, I64(0), I64(lhs.dimensions(static_cast<int>(ld))), "k", [&](llvm::Value* i) {
        li.multi[ld] = i;
        ri.multi[rd] = i;
        return level(j + 1);
      });
    };
    ClearCache();
    llvm::FastMathFlags saved = b_->getFastMathFlags();
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    b_->setFastMathFlags(fmf);
    absl::Status status = level(0);
    b_->setFastMathFlags(saved);
    RETURN_IF_ERROR(status);
    ClearCache();
    llvm::Value* result = b_->CreateLoad(RegisterType(acc_type), acc);
    return EmitConvert(result, acc_type, out_type);
  });
}

}  // namespace cpu
}  // namespace xla
