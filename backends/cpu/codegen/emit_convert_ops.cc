// Generators of the converts that are not one element in, one element out:
// bitcast-convert between element widths (XLA: the wider side has one more, minor,
// dimension holding the narrow elements, least significant first; sub-byte elements pack
// the same way) and stochastic-convert (a float rounded toward zero or away from it by
// comparing its fraction with random bits; saturating; NaN -> 0), both as the interpreter.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {
namespace {

int BitcastWidth(PrimitiveType type) { return type == PRED ? 8 : primitive_util::BitWidth(type); }

}  // namespace

absl::StatusOr<Generator> ElementalEmitter::MakeBitcastConvertGenerator(const HloInstruction* hlo,
                                                                        const OperandGenerator& operand) {
  const Shape& in_shape = hlo->operand(0)->shape();
  const Shape& out_shape = hlo->shape();
  const PrimitiveType in_type = in_shape.element_type(), out_type = out_shape.element_type();
  const int in_bits = BitcastWidth(in_type), out_bits = BitcastWidth(out_type);
  const Shape& wide = in_bits > out_bits ? in_shape : out_shape;
  const Shape& narrow = in_bits > out_bits ? out_shape : in_shape;
  const int ratio = in_bits > out_bits ? in_bits / out_bits : out_bits / in_bits;
  bool ok = primitive_util::IsComplexType(in_type) == primitive_util::IsComplexType(out_type) &&
            std::max(in_bits, out_bits) % std::min(in_bits, out_bits) == 0 && narrow.rank() == wide.rank() + 1 &&
            narrow.dimensions(narrow.rank() - 1) == ratio;
  for (int64_t d = 0; ok && d < wide.rank(); ++d) ok = wide.dimensions(d) == narrow.dimensions(d);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot bitcast-convert ", in_shape.ToString(), " to ",
                                                   out_shape.ToString()));
  }
  ASSIGN_OR_RETURN(Generator g, operand(0));
  if (in_bits > out_bits) {
    // Output element j of the minor dimension: bits [j * out_bits, (j + 1) * out_bits).
    return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      IrIndex in;
      in.multi.assign(index.multi.begin(), index.multi.end() - 1);
      ASSIGN_OR_RETURN(llvm::Value* v, g(in));
      llvm::Value* bits = ToBits(v, in_type);
      llvm::Value* shift = b_->CreateMul(index.multi.back(), I64(out_bits));
      llvm::Value* part = b_->CreateLShr(bits, b_->CreateZExtOrTrunc(shift, bits->getType()));
      return FromBits(b_->CreateTrunc(part, b_->getIntNTy(out_bits)), out_type);
    });
  }
  return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Type* word = b_->getIntNTy(out_bits);
    llvm::Value* result = llvm::ConstantInt::get(word, 0);
    for (int j = 0; j < ratio; ++j) {
      IrIndex in;
      in.multi = index.multi;
      in.multi.push_back(I64(j));
      ASSIGN_OR_RETURN(llvm::Value* v, g(in));
      llvm::Value* part = b_->CreateZExt(ToBits(v, in_type), word);
      result = b_->CreateOr(result, b_->CreateShl(part, static_cast<uint64_t>(j) * in_bits));
    }
    return FromBits(result, out_type);
  });
}

absl::StatusOr<Generator> ElementalEmitter::MakeStochasticConvertGenerator(const HloInstruction* hlo,
                                                                           const OperandGenerator& operand) {
  const PrimitiveType in_type = hlo->operand(0)->shape().element_type();
  const PrimitiveType random_type = hlo->operand(1)->shape().element_type();
  const PrimitiveType out_type = hlo->shape().element_type();
  if (!primitive_util::IsFloatingPointType(in_type) || !primitive_util::IsUnsignedIntegralType(random_type) ||
      primitive_util::BitWidth(random_type) != primitive_util::BitWidth(in_type) ||
      !primitive_util::IsIntegralType(out_type) || hlo->operand(0)->shape().dimensions() != hlo->shape().dimensions() ||
      hlo->operand(1)->shape().dimensions() != hlo->shape().dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stochastic-convert ", hlo->name(), " needs a float operand, unsigned random bits of its width and an ",
        "integer result of the same dimensions"));
  }
  ASSIGN_OR_RETURN(Generator xg, operand(0));
  ASSIGN_OR_RETURN(Generator rg, operand(1));
  const int out_bits = primitive_util::BitWidth(out_type);
  const int random_bits = primitive_util::BitWidth(random_type);
  const bool is_signed = primitive_util::IsSignedIntegralType(out_type);
  const uint64_t max_value = is_signed ? (uint64_t{1} << (out_bits - 1)) - 1
                                       : (out_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << out_bits) - 1);
  const int64_t min_value = is_signed ? -static_cast<int64_t>(max_value) - 1 : 0;
  return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    ASSIGN_OR_RETURN(llvm::Value* x, xg(index));
    ASSIGN_OR_RETURN(llvm::Value* random, rg(index));
    ASSIGN_OR_RETURN(llvm::Value* v, EmitConvert(x, in_type, F64));
    llvm::Type* f64 = b_->getDoubleTy();
    llvm::Type* i64 = b_->getInt64Ty();
    auto to_u64 = [&](llvm::Value* d) {
      return b_->CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {i64, f64}, {d});
    };
    llvm::Value* negative = b_->CreateICmpSLT(b_->CreateBitCast(v, i64), I64(0));
    llvm::Value* magnitude = b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    llvm::Value* truncated = to_u64(magnitude);
    llvm::Value* fraction = b_->CreateFSub(magnitude, b_->CreateUIToFP(truncated, f64));
    // fraction * 2^random_bits, exact (a power of two), below 2^random_bits.
    llvm::Value* fixed = to_u64(b_->CreateFMul(fraction, llvm::ConstantFP::get(f64, std::ldexp(1.0, random_bits))));
    llvm::Value* round_up = b_->CreateICmpULT(b_->CreateZExt(random, i64), fixed);
    // Only a negative value just above the minimum rounds up onto max_value + 1: the minimum.
    llvm::Value* wrapped = b_->CreateAnd(round_up, b_->CreateICmpEQ(truncated, I64(static_cast<int64_t>(max_value))));
    llvm::Value* rounded = b_->CreateAdd(truncated, b_->CreateZExt(round_up, i64));
    llvm::Value* r = b_->CreateSelect(negative, b_->CreateSub(I64(0), rounded), rounded);
    llvm::Value* min = I64(min_value);
    llvm::Value* max = I64(static_cast<int64_t>(max_value));
    r = b_->CreateSelect(wrapped, min, r);
    r = b_->CreateSelect(b_->CreateFCmpOLE(v, llvm::ConstantFP::get(f64, static_cast<double>(min_value))), min, r);
    r = b_->CreateSelect(b_->CreateFCmpOGE(v, llvm::ConstantFP::get(f64, static_cast<double>(max_value))), max, r);
    r = b_->CreateSelect(b_->CreateFCmpUNO(v, v), I64(0), r);
    return b_->CreateTrunc(r, RegisterType(out_type));
  });
}

}  // namespace cpu
}  // namespace xla
