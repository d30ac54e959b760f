// Complex elementwise ops for the cpu backend. A c64/c128 register is the element's storage
// bits (i64/i128, real part in the low half). add, subtract, negate, real, imag, complex,
// compare and convert are emitted inline; the rest (multiply, divide, power, atan2 and the
// transcendental functions) call __xla_cpu_complex_c64/c128 (runtime/scalar_math.cc), which
// compute them with std::complex as the interpreter does, so results match it to the bit,
// including the C library's handling of infinities and NaNs.
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {

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
      // |x| has the component type.
      return ComplexParts(CallComplexRuntime(op, x, nullptr, in), in).first;
    default:
      break;
  }
  if (op != HloOpcode::kMultiply && op != HloOpcode::kDivide && IsComplexRuntimeOpcode(op)) {
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
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
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
