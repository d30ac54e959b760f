// Complex elementwise ops for the cpu backend. A c64/c128 register is the element's storage
// bits (i64/i128, real part in the low half). add, subtract, multiply, negate, real, imag,
// complex, compare and convert are emitted inline (multiply as C's Annex G defines it, which is
// what std::complex computes, with its recovery of infinities as selects, so it vectorizes);
// so are abs (hypot, which is what std::abs of a std::complex computes) and sign (z / |z|, as
// the interpreter divides), which are bit-identical with the interpreter that way. On the
// host, the rest (divide, power, atan2 and the transcendental functions) call
// __xla_cpu_complex_c64/c128 (runtime/scalar_math.cc), which compute them with std::complex
// as the interpreter does, so results match it to the bit, including the C library's
// handling of infinities and NaNs. Device code (NVPTX modules, which the gpu backend builds
// with this emitter) cannot call host routines: there every op is inline IR
// (elemental_complex_math.cc), within a few ulps of std::complex with its special values.
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {

// (a + bi)(c + di) as C99 Annex G: (ac - bd) + (ad + bc)i, and where both parts are NaN,
// infinities recovered: an infinite factor is "boxed" to +-1/+-0 with NaNs in the other
// factor made +-0, or, when a product overflowed, every NaN made +-0; then the parts are
// recomputed and scaled by infinity. The recovery is computed for every element and
// selected, so the loop has no branch or call.
std::pair<llvm::Value*, llvm::Value*> AnnexGMultiply(llvm::IRBuilder<>* b, llvm::Value* a, llvm::Value* bi,
                                                     llvm::Value* c, llvm::Value* d) {
  llvm::Type* t = a->getType();
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  auto is_inf = [&](llvm::Value* v) {
    return b->CreateFCmpOEQ(b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), inf);
  };
  auto is_nan = [&](llvm::Value* v) { return b->CreateFCmpUNO(v, v); };
  auto copysign = [&](llvm::Value* magnitude, llvm::Value* sign) {
    return b->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  };
  auto boxed = [&](llvm::Value* v) { return copysign(b->CreateSelect(is_inf(v), one, zero), v); };
  auto nan_to_zero = [&](llvm::Value* v) { return b->CreateSelect(is_nan(v), copysign(zero, v), v); };
  auto pick = [&](llvm::Value* cond, llvm::Value* yes, llvm::Value* no) { return b->CreateSelect(cond, yes, no); };
  llvm::Value* ac = b->CreateFMul(a, c);
  llvm::Value* bd = b->CreateFMul(bi, d);
  llvm::Value* ad = b->CreateFMul(a, d);
  llvm::Value* bc = b->CreateFMul(bi, c);
  llvm::Value* x = b->CreateFSub(ac, bd);
  llvm::Value* y = b->CreateFAdd(ad, bc);
  // The first factor infinite.
  llvm::Value* first = b->CreateOr(is_inf(a), is_inf(bi));
  llvm::Value* a1 = pick(first, boxed(a), a);
  llvm::Value* b1 = pick(first, boxed(bi), bi);
  llvm::Value* c1 = pick(first, nan_to_zero(c), c);
  llvm::Value* d1 = pick(first, nan_to_zero(d), d);
  // The second factor infinite.
  llvm::Value* second = b->CreateOr(is_inf(c1), is_inf(d1));
  llvm::Value* c2 = pick(second, boxed(c1), c1);
  llvm::Value* d2 = pick(second, boxed(d1), d1);
  llvm::Value* a2 = pick(second, nan_to_zero(a1), a1);
  llvm::Value* b2 = pick(second, nan_to_zero(b1), b1);
  // Neither, but a product overflowed.
  llvm::Value* boxed_any = b->CreateOr(first, second);
  llvm::Value* overflow = b->CreateAnd(
      b->CreateNot(boxed_any), b->CreateOr(b->CreateOr(is_inf(ac), is_inf(bd)), b->CreateOr(is_inf(ad), is_inf(bc))));
  llvm::Value* a3 = pick(overflow, nan_to_zero(a2), a2);
  llvm::Value* b3 = pick(overflow, nan_to_zero(b2), b2);
  llvm::Value* c3 = pick(overflow, nan_to_zero(c2), c2);
  llvm::Value* d3 = pick(overflow, nan_to_zero(d2), d2);
  llvm::Value* x3 = b->CreateFMul(inf, b->CreateFSub(b->CreateFMul(a3, c3), b->CreateFMul(b3, d3)));
  llvm::Value* y3 = b->CreateFMul(inf, b->CreateFAdd(b->CreateFMul(a3, d3), b->CreateFMul(b3, c3)));
  llvm::Value* recover = b->CreateAnd(b->CreateAnd(is_nan(x), is_nan(y)), b->CreateOr(boxed_any, overflow));
  return {pick(recover, x3, x), pick(recover, y3, y)};
}

std::pair<llvm::Value*, llvm::Value*> ElementalEmitter::ComplexParts(llvm::Value* v, PrimitiveType type) {
  const int half = type == C64 ? 32 : 64;
  llvm::Type* part = type == C64 ? b_->getFloatTy() : b_->getDoubleTy();
  llvm::Type* half_int = b_->getIntNTy(half);
  llvm::Value* re = b_->CreateBitCast(b_->CreateTrunc(v, half_int), part);
  llvm::Value* im = b_->CreateBitCast(b_->CreateTrunc(b_->CreateLShr(v, half), half_int), part);
  return {re, im};
}

llvm::Value* ElementalEmitter::MakeComplex(llvm::Value* re, llvm::Value* im, PrimitiveType type) {
  const int half = type == C64 ? 32 : 64;
  llvm::Type* whole = RegisterType(type);
  llvm::Value* lo = b_->CreateZExt(b_->CreateBitCast(re, b_->getIntNTy(half)), whole);
  llvm::Value* hi = b_->CreateZExt(b_->CreateBitCast(im, b_->getIntNTy(half)), whole);
  return b_->CreateOr(lo, b_->CreateShl(hi, half));
}

llvm::Value* ElementalEmitter::CallComplexRuntime(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type) {
  llvm::Type* part = type == C64 ? b_->getFloatTy() : b_->getDoubleTy();
  llvm::FunctionCallee f = module_->getOrInsertFunction(
      type == C64 ? "__xla_cpu_complex_c64" : "__xla_cpu_complex_c128",
      llvm::FunctionType::get(b_->getVoidTy(), {b_->getInt32Ty(), part, part, part, part, b_->getPtrTy()}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setOnlyAccessesArgMemory();
  }
  llvm::Function* function = b_->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::AllocaInst* out = entry.CreateAlloca(part, entry.getInt32(2));
  auto [ar, ai] = ComplexParts(a, type);
  llvm::Value* zero = llvm::ConstantFP::get(part, 0.0);
  llvm::Value* cr = zero;
  llvm::Value* ci = zero;
  if (c != nullptr) std::tie(cr, ci) = ComplexParts(c, type);
  b_->CreateCall(f, {b_->getInt32(static_cast<int32_t>(op)), ar, ai, cr, ci, out});
  llvm::Value* re = b_->CreateLoad(part, out);
  llvm::Value* im = b_->CreateLoad(part, b_->CreateConstInBoundsGEP1_64(part, out, 1));
  return MakeComplex(re, im, type);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitComplexUnary(const HloInstruction& hlo, llvm::Value* x,
                                                                PrimitiveType in) {
  const HloOpcode op = hlo.opcode();
  switch (op) {
    case HloOpcode::kNegate: {
      auto [re, im] = ComplexParts(x, in);
      return MakeComplex(b_->CreateFNeg(re), b_->CreateFNeg(im), in);
    }
    case HloOpcode::kReal:
      return ComplexParts(x, in).first;
    case HloOpcode::kImag:
      return ComplexParts(x, in).second;
    case HloOpcode::kAbs:
    case HloOpcode::kSign:
      // |x| has the component type.
      return EmitInlineComplexOp(op, x, nullptr, in);
    default:
      break;
  }
  if (op != HloOpcode::kMultiply && op != HloOpcode::kDivide && IsComplexRuntimeOpcode(op)) {
    if (InlineComplexMath()) {
      if (llvm::Value* v = EmitInlineComplexOp(op, x, nullptr, in)) return v;
    }
    return CallComplexRuntime(op, x, nullptr, in);
  }
  return absl::UnimplementedError(absl::StrCat(std::string(HloOpcodeString(op)), " is not defined on ",
                                               std::string(primitive_util::LowercasePrimitiveTypeName(in)), " (",
                                               hlo.name(), ")"));
}

llvm::Value* ElementalEmitter::EmitComplexBinary(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract: {
      auto [ar, ai] = ComplexParts(a, type);
      auto [cr, ci] = ComplexParts(c, type);
      if (op == HloOpcode::kAdd) return MakeComplex(b_->CreateFAdd(ar, cr), b_->CreateFAdd(ai, ci), type);
      return MakeComplex(b_->CreateFSub(ar, cr), b_->CreateFSub(ai, ci), type);
    }
    case HloOpcode::kMultiply: {
      auto [ar, ai] = ComplexParts(a, type);
      auto [cr, ci] = ComplexParts(c, type);
      auto [re, im] = AnnexGMultiply(b_, ar, ai, cr, ci);
      return MakeComplex(re, im, type);
    }
    case HloOpcode::kDivide:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
      if (InlineComplexMath()) {
        if (llvm::Value* v = EmitInlineComplexOp(op, a, c, type)) return v;
      }
      return CallComplexRuntime(op, a, c, type);
    default:
      return nullptr;
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitComplexConvert(llvm::Value* x, PrimitiveType from,
                                                                  PrimitiveType to) {
  if (primitive_util::IsComplexType(from)) {
    // As XLA: a complex value converts only to a complex type (real/imag take the parts).
    if (!primitive_util::IsComplexType(to)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot convert from complex type ", std::string(primitive_util::LowercasePrimitiveTypeName(from)),
          " to non-complex type ", std::string(primitive_util::LowercasePrimitiveTypeName(to)), "; use real() or imag()"));
    }
    const PrimitiveType part = primitive_util::ComplexComponentType(from);
    const PrimitiveType to_part = primitive_util::ComplexComponentType(to);
    auto [re, im] = ComplexParts(x, from);
    ASSIGN_OR_RETURN(llvm::Value* r, EmitConvert(re, part, to_part));
    ASSIGN_OR_RETURN(llvm::Value* i, EmitConvert(im, part, to_part));
    return MakeComplex(r, i, to);
  }
  const PrimitiveType to_part = primitive_util::ComplexComponentType(to);
  ASSIGN_OR_RETURN(llvm::Value* re, EmitConvert(x, from, to_part));
  return MakeComplex(re, llvm::ConstantFP::get(re->getType(), 0.0), to);
}

}  // namespace cpu
}  // namespace xla
