// reduce-precision on the element's own bits, as the interpreter
// (backends/interpreter/ops_elementwise_convert.cc): the mantissa rounds to nearest even at
// mantissa_bits, then exponents beyond exponent_bits' range become signed infinity and
// those below it signed zero; a NaN stays the input NaN, or +inf when no mantissa bit is left.
#include "backends/cpu/codegen/emit_reduce_precision.h"

#include "absl/strings/str_cat.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace cpu {

absl::StatusOr<llvm::Value*> EmitReducePrecision(llvm::IRBuilder<>* b, const HloInstruction& hlo, llvm::Value* x,
                                                 llvm::Value* narrow_is_nan) {
  const PrimitiveType type = hlo.shape().element_type();
  const bool narrow = primitive_util::IsNarrowFloatType(type);
  // Formats laid out as sign, exponent, mantissa (f8e8m0fnu has no sign bit: refused, as the
  // interpreter refuses it).
  if ((type != F16 && type != BF16 && type != F32 && type != F64 && !narrow) ||
      primitive_util::BitWidth(type) != 1 + primitive_util::ExponentWidth(type) + primitive_util::MantissaWidth(type) ||
      (narrow && narrow_is_nan == nullptr)) {
    return absl::UnimplementedError(absl::StrCat("cpu backend: reduce-precision on ",
                                                 std::string(primitive_util::LowercasePrimitiveTypeName(type))));
  }
  const int64_t e = hlo.attrs().exponent_bits();
  const int64_t m = hlo.attrs().mantissa_bits();
  if (e < 1 || m < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got ", e, " and ", m));
  }
  const int nbits = primitive_util::BitWidth(type);
  const int src_e = primitive_util::ExponentWidth(type);
  const int src_m = primitive_util::MantissaWidth(type);
  // 8- and 4-bit floats are i8 registers (4-bit ones in the low bits).
  llvm::IntegerType* int_type = narrow ? b->getInt8Ty() : b->getIntNTy(nbits);
  auto constant = [&](uint64_t v) { return llvm::ConstantInt::get(int_type, v); };
  auto mask = [](int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; };
  llvm::Value* original = type == BF16 || narrow ? x : b->CreateBitCast(x, int_type);
  const uint64_t exp_mask = mask(src_e) << src_m;
  const uint64_t sign_mask = uint64_t{1} << (nbits - 1);
  llvm::Value* is_nan = narrow_is_nan;
  if (!narrow) {
    // NaN: all exponent bits set and a nonzero mantissa.
    llvm::Value* magnitude = b->CreateAnd(original, constant(~sign_mask & mask(nbits)));
    is_nan = b->CreateICmpUGT(magnitude, constant(exp_mask));
  }
  llvm::Value* bits = original;
  if (m < src_m) {
    const uint64_t last_bit = uint64_t{1} << (src_m - m);
    const uint64_t base_bias = (last_bit >> 1) - 1;
    llvm::Value* x_last = b->CreateLShr(b->CreateAnd(bits, constant(last_bit)), constant(src_m - m));
    bits = b->CreateAnd(b->CreateAdd(b->CreateAdd(bits, x_last), constant(base_bias)), constant(~(last_bit - 1) & mask(nbits)));
  }
  if (e < src_e) {
    const uint64_t bias = mask(src_e - 1);
    const uint64_t reduced_bias = mask(static_cast<int>(e) - 1);
    const uint64_t max_exponent = bias + reduced_bias;
    const uint64_t min_exponent = bias - reduced_bias;
    llvm::Value* exponent = b->CreateAnd(bits, constant(exp_mask));
    llvm::Value* signed_zero = b->CreateAnd(bits, constant(sign_mask));
    bits = b->CreateSelect(b->CreateICmpUGT(exponent, constant(max_exponent << src_m)),
                           b->CreateOr(signed_zero, constant(exp_mask)), bits);
    bits = b->CreateSelect(b->CreateICmpULE(exponent, constant(min_exponent << src_m)), signed_zero, bits);
  }
  if (narrow) bits = b->CreateAnd(bits, constant(mask(nbits)));
  bits = b->CreateSelect(is_nan, m > 0 ? original : constant(exp_mask), bits);
  return type == BF16 || narrow ? bits : b->CreateBitCast(bits, x->getType());
}

}  // namespace cpu
}  // namespace xla
