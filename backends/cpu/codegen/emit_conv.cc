// The convolution generator: each output element loops over its window (spatial dims in
// row-major order) and, inside, over the kernel's input features, as the interpreter does.
// Operands are converted to the result type first; floats accumulate in f64 and round once,
// integers in i64 (wrapping) and saturate when the result is narrower than 32 bits, pred
// is "any product set". Same types, same order: the result is bit-exact with the
// interpreter. Positions on padding or base-dilation holes are skipped by a select (loads
// use clamped indices), so the inner loop stays branch-free.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {
namespace {

struct ConvSpatial {
  int64_t input = 0, kernel = 0;
  int64_t stride = 1, pad_low = 0, base_dilation = 1, window_dilation = 1;
  bool reversal = false;
  int64_t input_dim = 0, kernel_dim = 0, output_dim = 0;  // dimension numbers
};

}  // namespace

absl::StatusOr<Generator> ElementalEmitter::MakeConvolutionGenerator(const HloInstruction* hlo,
                                                                     const OperandGenerator& operand) {
  const ConvolutionDimensionNumbers& dn = hlo->attrs().convolution_dimension_numbers();
  const Shape& lhs = hlo->operand(0)->shape();
  const Shape& rhs = hlo->operand(1)->shape();
  const Shape& out = hlo->shape();
  const int64_t rank = dn.input_spatial_dimensions_size();
  if (dn.kernel_spatial_dimensions_size() != rank || dn.output_spatial_dimensions_size() != rank ||
      hlo->attrs().window().dimensions_size() != rank || lhs.rank() != rank + 2 || rhs.rank() != rank + 2 ||
      out.rank() != rank + 2) {
    return absl::InvalidArgumentError(absl::StrCat("convolution ", hlo->name(), ": malformed dimension numbers"));
  }
  std::vector<ConvSpatial> spatial;
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = hlo->attrs().window().dimensions(static_cast<int>(d));
    ConvSpatial s;
    s.input_dim = dn.input_spatial_dimensions(static_cast<int>(d));
    s.kernel_dim = dn.kernel_spatial_dimensions(static_cast<int>(d));
    s.output_dim = dn.output_spatial_dimensions(static_cast<int>(d));
    s.input = lhs.dimensions(static_cast<int>(s.input_dim));
    s.kernel = rhs.dimensions(static_cast<int>(s.kernel_dim));
    s.stride = std::max<int64_t>(1, w.stride());
    s.base_dilation = std::max<int64_t>(1, w.base_dilation());
    s.window_dilation = std::max<int64_t>(1, w.window_dilation());
    s.pad_low = w.padding_low();
    s.reversal = w.window_reversal();
    spatial.push_back(s);
  }
  const int64_t feature_groups = std::max<int64_t>(1, hlo->attrs().feature_group_count());
  const int64_t batch_groups = std::max<int64_t>(1, hlo->attrs().batch_group_count());
  const int64_t input_batch = lhs.dimensions(static_cast<int>(dn.input_batch_dimension()));
  const int64_t kif = rhs.dimensions(static_cast<int>(dn.kernel_input_feature_dimension()));
  const int64_t of = rhs.dimensions(static_cast<int>(dn.kernel_output_feature_dimension()));
  if (of % feature_groups != 0 || of % batch_groups != 0 || input_batch % batch_groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat("convolution ", hlo->name(), ": bad group counts"));
  }
  const int64_t of_per_feature_group = of / feature_groups;
  const int64_t of_per_batch_group = of / batch_groups;
  const int64_t batch_group_size = input_batch / batch_groups;

  const PrimitiveType type = out.element_type();
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type();
  const bool is_float = primitive_util::IsFloatingPointType(type);
  // Complex products and sums in c128 (as the interpreter), through the complex emitters.
  const bool is_complex = primitive_util::IsComplexType(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int bits = primitive_util::BitWidth(type);
  ASSIGN_OR_RETURN(Generator lg, operand(0));
  ASSIGN_OR_RETURN(Generator rg, operand(1));

  return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Type* acc_type = is_complex ? RegisterType(C128) : is_float ? b_->getDoubleTy() : b_->getInt64Ty();
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* acc = entry.CreateAlloca(acc_type);
    b_->CreateStore(llvm::Constant::getNullValue(acc_type), acc);
    llvm::Value* ob = index.multi[dn.output_batch_dimension()];
    llvm::Value* o = index.multi[dn.output_feature_dimension()];
    llvm::Value* feature_group = b_->CreateUDiv(o, I64(of_per_feature_group));
    llvm::Value* ib = b_->CreateAdd(ob, b_->CreateMul(b_->CreateUDiv(o, I64(of_per_batch_group)), I64(batch_group_size)));
    IrIndex li, ri;
    li.multi.assign(rank + 2, nullptr);
    ri.multi.assign(rank + 2, nullptr);
    li.multi[dn.input_batch_dimension()] = ib;
    ri.multi[dn.kernel_output_feature_dimension()] = o;
    llvm::Value* feature_base = b_->CreateMul(feature_group, I64(kif));
    // Whether every window coordinate so far lands on an input element.
    std::vector<llvm::Value*> inside(rank + 1, nullptr);
    inside[0] = b_->getTrue();
    auto widen = [&](llvm::Value* v, PrimitiveType from) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(v, EmitConvert(v, from, type));
      if (is_complex) return EmitConvert(v, type, C128);
      if (is_float) return EmitConvert(v, type, F64);
      return type == PRED || !is_signed ? b_->CreateZExt(v, b_->getInt64Ty()) : b_->CreateSExt(v, b_->getInt64Ty());
    };
    std::function<absl::Status(int64_t)> level = [&](int64_t d) -> absl::Status {
      if (d == rank) {
        return EmitForLoop(b_, I64(0), I64(kif), "ci", [&](llvm::Value* i) -> absl::Status {
          li.multi[dn.input_feature_dimension()] = b_->CreateAdd(feature_base, i);
          ri.multi[dn.kernel_input_feature_dimension()] = i;
          ASSIGN_OR_RETURN(llvm::Value* x, lg(li));
          ASSIGN_OR_RETURN(llvm::Value* w, rg(ri));
          ASSIGN_OR_RETURN(x, widen(x, lt));
          ASSIGN_OR_RETURN(w, widen(w, rt));
          llvm::Value* sum = b_->CreateLoad(acc_type, acc);
          llvm::Value* next;
          if (is_complex) next = EmitComplexBinary(HloOpcode::kAdd, sum, EmitComplexBinary(HloOpcode::kMultiply, x, w, C128), C128);
          else next = is_float ? b_->CreateFAdd(sum, b_->CreateFMul(x, w)) : b_->CreateAdd(sum, b_->CreateMul(x, w));
          b_->CreateStore(b_->CreateSelect(inside[rank], next, sum), acc);
          return absl::OkStatus();
        });
      }
      const ConvSpatial& s = spatial[d];
      return EmitForLoop(b_, I64(0), I64(s.kernel), "kw", [&](llvm::Value* k) -> absl::Status {
        llvm::Value* dilated = b_->CreateAdd(b_->CreateMul(index.multi[s.output_dim], I64(s.stride)),
                                             b_->CreateSub(b_->CreateMul(k, I64(s.window_dilation)), I64(s.pad_low)));
        llvm::Value* ok = inside[d];
        llvm::Value* pos = dilated;
        if (s.base_dilation != 1) {
          ok = b_->CreateAnd(ok, b_->CreateICmpEQ(b_->CreateSRem(dilated, I64(s.base_dilation)), I64(0)));
          pos = b_->CreateSDiv(dilated, I64(s.base_dilation));
        }
        ok = b_->CreateAnd(ok, b_->CreateAnd(b_->CreateICmpSGE(pos, I64(0)), b_->CreateICmpSLT(pos, I64(s.input))));
        inside[d + 1] = ok;
        // Clamped so that skipped positions still load from inside the input.
        llvm::Value* lo = b_->CreateSelect(b_->CreateICmpSLT(pos, I64(0)), I64(0), pos);
        li.multi[s.input_dim] =
            b_->CreateSelect(b_->CreateICmpSGT(lo, I64(std::max<int64_t>(0, s.input - 1))), I64(std::max<int64_t>(0, s.input - 1)), lo);
        ri.multi[s.kernel_dim] = s.reversal ? b_->CreateSub(I64(s.kernel - 1), k) : k;
        return level(d + 1);
      });
    };
    // An empty input dimension: no window position is valid (and nothing may be loaded).
    bool empty = kif == 0;
    for (const ConvSpatial& s : spatial) empty = empty || s.input == 0 || s.kernel == 0;
    if (!empty) {
      ClearCache();
      RETURN_IF_ERROR(level(0));
      ClearCache();
    }
    llvm::Value* sum = b_->CreateLoad(acc_type, acc);
    if (is_complex) return EmitConvert(sum, C128, type);
    if (is_float) return EmitConvert(sum, F64, type);
    if (type == PRED) return b_->CreateICmpNE(sum, I64(0));
    if (bits < 32) {
      // Saturate as XLA's evaluator does for narrow integer convolutions.
      const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
      if (is_signed) {
        const int64_t lo = -hi - 1;
        sum = b_->CreateBinaryIntrinsic(llvm::Intrinsic::smax, sum, I64(lo));
        sum = b_->CreateBinaryIntrinsic(llvm::Intrinsic::smin, sum, I64(hi));
      } else {
        sum = b_->CreateBinaryIntrinsic(llvm::Intrinsic::umin, sum, I64(hi));
      }
    }
    return b_->CreateTrunc(sum, RegisterType(type));
  });
}

}  // namespace cpu
}  // namespace xla
