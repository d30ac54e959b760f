// Scalar elementwise ops for the cpu backend: types, loads/stores, unary/binary math,
// integer edge cases (as the interpreter: x / 0 == -1, x % 0 == x, INT_MIN / -1 == INT_MIN,
// shifts past the width give 0 or the sign fill), NaN-propagating maximum/minimum,
// compare (including total order), convert with XLA's rounding and saturation, same-width
// bitcast-convert. Sub-byte integers compute in their own width (i4 wraps as s4/u4 do);
// narrow floats in f32 (8- and 4-bit ones decoded through a table, rounded back by
// emit_narrow_float.h, hlo/float_types.h's rounding inline); complex ops live in
// elemental_complex.cc.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/emit_narrow_float.h"
#include "backends/cpu/codegen/emit_reduce_precision.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/comparison_util.h"
#include "hlo/float_types.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {
namespace {

// f16, bf16 and the 8- and 4-bit floats: computed in f32 and rounded back once per op.
bool IsComputedInF32(PrimitiveType t) { return t == F16 || t == BF16 || primitive_util::IsNarrowFloatType(t); }
bool IsRealFloat(PrimitiveType t) { return primitive_util::IsFloatingPointType(t); }
bool IsSubByteInt(PrimitiveType t) { return primitive_util::IsIntegralType(t) && primitive_util::BitWidth(t) < 8; }
// Bits bitcast-convert reinterprets (pred: its byte).
int BitcastWidth(PrimitiveType t) { return t == PRED ? 8 : primitive_util::BitWidth(t); }

absl::Status Unimplemented(const HloInstruction& hlo, PrimitiveType type) {
  return absl::UnimplementedError(absl::StrCat("cpu backend: ", std::string(HloOpcodeString(hlo.opcode())),
                                               " on ", std::string(primitive_util::LowercasePrimitiveTypeName(type)),
                                               " (", hlo.name(), ")"));
}

}  // namespace

bool IsSupportedElementType(PrimitiveType type) { return primitive_util::IsArrayType(type); }

llvm::Type* ElementalEmitter::RegisterType(PrimitiveType type) {
  llvm::LLVMContext& c = module_->getContext();
  switch (type) {
    case PRED: case S1: case U1: return llvm::Type::getInt1Ty(c);
    case S2: case U2: return llvm::Type::getIntNTy(c, 2);
    case S4: case U4: return llvm::Type::getIntNTy(c, 4);
    case S8: case U8: return llvm::Type::getInt8Ty(c);
    case S16: case U16: case BF16: return llvm::Type::getInt16Ty(c);
    case S32: case U32: return llvm::Type::getInt32Ty(c);
    case S64: case U64: return llvm::Type::getInt64Ty(c);
    case F16: return llvm::Type::getHalfTy(c);
    case F32: return llvm::Type::getFloatTy(c);
    case F64: return llvm::Type::getDoubleTy(c);
    case C64: return llvm::Type::getInt64Ty(c);
    case C128: return llvm::Type::getInt128Ty(c);
    default: return primitive_util::IsNarrowFloatType(type) ? llvm::Type::getInt8Ty(c) : nullptr;
  }
}

llvm::Type* ElementalEmitter::StorageType(PrimitiveType type) {
  llvm::LLVMContext& c = module_->getContext();
  // pred and sub-byte integers take a byte each.
  if (type == PRED || IsSubByteInt(type)) return llvm::Type::getInt8Ty(c);
  return RegisterType(type);
}

llvm::Value* ElementalEmitter::StorageOffset(const Shape& shape, const IrIndex& index) {
  if (index.linear != nullptr && index.linear_shape != nullptr &&
      index.linear_shape->dimensions() == shape.dimensions() &&
      index.linear_shape->layout().minor_to_major() == shape.layout().minor_to_major()) {
    return index.linear;
  }
  llvm::Value* offset = I64(0);
  int64_t stride = 1;
  for (int64_t dim : shape.layout().minor_to_major()) {
    llvm::Value* term = b_->CreateMul(index.multi[dim], I64(stride), "", /*HasNUW=*/true, /*HasNSW=*/true);
    offset = b_->CreateAdd(offset, term, "", true, true);
    stride *= shape.dimensions(static_cast<int>(dim));
  }
  return offset;
}

llvm::Value* ElementalEmitter::LoadElement(llvm::Value* base, const Shape& shape, const IrIndex& index) {
  llvm::Type* storage = StorageType(shape.element_type());
  llvm::Value* ptr = b_->CreateInBoundsGEP(storage, base, StorageOffset(shape, index));
  return FromStorage(b_->CreateLoad(storage, ptr), shape.element_type());
}

llvm::Value* ElementalEmitter::FromStorage(llvm::Value* stored, PrimitiveType type) {
  if (type == PRED) return b_->CreateICmpNE(stored, b_->getInt8(0));
  if (IsSubByteInt(type)) return b_->CreateTrunc(stored, RegisterType(type));
  return stored;
}

llvm::Value* ElementalEmitter::ToStorage(llvm::Value* value, PrimitiveType type) {
  llvm::Type* storage = StorageType(type);
  if (type == PRED || primitive_util::IsUnsignedIntegralType(type)) return b_->CreateZExtOrTrunc(value, storage);
  if (IsSubByteInt(type)) return b_->CreateSExt(value, storage);
  return value;
}

void ElementalEmitter::StoreElement(llvm::Value* value, llvm::Value* base, const Shape& shape,
                                    const IrIndex& index) {
  llvm::Type* storage = StorageType(shape.element_type());
  llvm::Value* ptr = b_->CreateInBoundsGEP(storage, base, StorageOffset(shape, index));
  b_->CreateStore(ToStorage(value, shape.element_type()), ptr);
}

llvm::Value* ElementalEmitter::ConstantElement(const void* data, PrimitiveType type) {
  const int bytes = primitive_util::ByteWidth(type);
  uint64_t words[2] = {0, 0};
  std::memcpy(words, data, std::min<size_t>(bytes, sizeof(words)));
  llvm::Constant* bits = llvm::ConstantInt::get(b_->getContext(), llvm::APInt(bytes * 8, llvm::ArrayRef<uint64_t>(words, 2)));
  llvm::Type* storage = StorageType(type);
  if (!storage->isIntegerTy()) return llvm::ConstantExpr::getBitCast(bits, storage);
  if (type == PRED) return b_->getInt1(!bits->isZeroValue());
  return llvm::ConstantExpr::getTruncOrBitCast(bits, RegisterType(type));
}

llvm::Value* ElementalEmitter::WidenToF32(llvm::Value* v, PrimitiveType type) {
  if (type == F16) return b_->CreateFPExt(v, b_->getFloatTy());
  if (std::optional<FloatFormatKind> kind = primitive_util::NarrowFloatFormat(type); kind && type != BF16) {
    // Every 8- and 4-bit float is exactly an f32: a table of the 256 byte values.
    const std::string name = absl::StrCat("__xla_decode.", std::string(primitive_util::LowercasePrimitiveTypeName(type)));
    llvm::GlobalVariable* table = module_->getNamedGlobal(name);
    if (table == nullptr) {
      const uint32_t mask = (1u << GetFloatFormat(*kind).total_bits) - 1;
      std::vector<float> values(256);
      for (uint32_t i = 0; i < 256; ++i) values[i] = static_cast<float>(DecodeFloat(*kind, i & mask));
      llvm::Constant* init = llvm::ConstantDataArray::get(b_->getContext(), values);
      table = new llvm::GlobalVariable(*module_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
    }
    llvm::Value* ptr = b_->CreateInBoundsGEP(b_->getFloatTy(), table, b_->CreateZExt(v, b_->getInt64Ty()));
    return b_->CreateLoad(b_->getFloatTy(), ptr);
  }
  // bf16: the high half of an f32.
  llvm::Value* bits = b_->CreateShl(b_->CreateZExt(v, b_->getInt32Ty()), 16);
  return b_->CreateBitCast(bits, b_->getFloatTy());
}

llvm::Value* ElementalEmitter::NarrowFromF64(llvm::Value* v, PrimitiveType type) {
  if (type == F64) return v;
  if (type == F16 || type == BF16 || type == F32) return NarrowFromF32(b_->CreateFPTrunc(v, b_->getFloatTy()), type);
  // 8- and 4-bit floats: EncodeFloat's rounding, inline (no host call, so it vectorizes and
  // runs in gpu kernels too).
  return EmitEncodeNarrowFloat(b_, v, *primitive_util::NarrowFloatFormat(type));
}

llvm::Value* ElementalEmitter::NarrowFromF32(llvm::Value* v, PrimitiveType type) {
  if (type == F32) return v;
  if (type == F16) return b_->CreateFPTrunc(v, b_->getHalfTy());
  // 8- and 4-bit floats straight from the f32 bits: the same bits as from the exact double.
  if (type != BF16) return EmitEncodeNarrowFloat(b_, v, *primitive_util::NarrowFloatFormat(type));
  // bf16, round to nearest even; NaNs stay quiet NaNs.
  llvm::Value* bits = b_->CreateBitCast(v, b_->getInt32Ty());
  llvm::Value* lsb = b_->CreateAnd(b_->CreateLShr(bits, 16), b_->getInt32(1));
  llvm::Value* rounded = b_->CreateAdd(bits, b_->CreateAdd(lsb, b_->getInt32(0x7FFF)));
  llvm::Value* nan = b_->CreateOr(bits, b_->getInt32(0x00400000));
  llvm::Value* is_nan = b_->CreateFCmpUNO(v, v);
  llvm::Value* result = b_->CreateSelect(is_nan, nan, rounded);
  return b_->CreateTrunc(b_->CreateLShr(result, 16), b_->getInt16Ty());
}

llvm::Value* ElementalEmitter::CallLibm(const char* name, llvm::Type* t, absl::Span<llvm::Value* const> args) {
  std::vector<llvm::Type*> types(args.size(), t);
  llvm::FunctionCallee f = module_->getOrInsertFunction(name, llvm::FunctionType::get(t, types, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory();
  }
  return b_->CreateCall(f, llvm::ArrayRef<llvm::Value*>(args.data(), args.size()));
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitFloatUnary(HloOpcode op, llvm::Value* x, llvm::Type* t) {
  const bool f32 = t->isFloatTy();
  auto libm = [&](const char* f, const char* d) { return CallLibm(f32 ? f : d, t, {x}); };
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return b_->CreateUnaryIntrinsic(id, x); };
  switch (op) {
    case HloOpcode::kAbs: return intrinsic(llvm::Intrinsic::fabs);
    case HloOpcode::kNegate: return b_->CreateFNeg(x);
    case HloOpcode::kReal: return x;
    case HloOpcode::kImag: return llvm::ConstantFP::get(t, 0.0);
    case HloOpcode::kSqrt: return intrinsic(llvm::Intrinsic::sqrt);
    case HloOpcode::kRsqrt: return b_->CreateFDiv(llvm::ConstantFP::get(t, 1.0), intrinsic(llvm::Intrinsic::sqrt));
    case HloOpcode::kFloor: return intrinsic(llvm::Intrinsic::floor);
    case HloOpcode::kCeil: return intrinsic(llvm::Intrinsic::ceil);
    case HloOpcode::kRoundNearestAfz: return intrinsic(llvm::Intrinsic::round);
    case HloOpcode::kRoundNearestEven: return intrinsic(llvm::Intrinsic::roundeven);
    case HloOpcode::kSign: {
      llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
      llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
      llvm::Value* r = b_->CreateSelect(b_->CreateFCmpOGT(x, zero), one, x);
      return b_->CreateSelect(b_->CreateFCmpOLT(x, zero), llvm::ConstantFP::get(t, -1.0), r);
    }
    case HloOpcode::kIsFinite:
      return b_->CreateFCmpONE(intrinsic(llvm::Intrinsic::fabs), llvm::ConstantFP::getInfinity(t));
    case HloOpcode::kExponential: return f32 ? EmitExpF32(x) : libm("expf", "exp");
    case HloOpcode::kLog: return f32 ? EmitLogF32(x) : libm("logf", "log");
    case HloOpcode::kTanh: return f32 ? EmitTanhF32(x) : libm("tanhf", "tanh");
    case HloOpcode::kLogistic:
      if (f32) return EmitLogisticF32(x);
      return b_->CreateFDiv(llvm::ConstantFP::get(t, 1.0),
                            b_->CreateFAdd(llvm::ConstantFP::get(t, 1.0), CallLibm("exp", t, {b_->CreateFNeg(x)})));
    case HloOpcode::kExponentialMinusOne: return libm("expm1f", "expm1");
    case HloOpcode::kLogPlusOne: return libm("log1pf", "log1p");
    case HloOpcode::kSine: return libm("sinf", "sin");
    case HloOpcode::kCosine: return libm("cosf", "cos");
    case HloOpcode::kTan: return libm("tanf", "tan");
    case HloOpcode::kSinh: return libm("sinhf", "sinh");
    case HloOpcode::kCosh: return libm("coshf", "cosh");
    case HloOpcode::kAsin: return libm("asinf", "asin");
    case HloOpcode::kAcos: return libm("acosf", "acos");
    case HloOpcode::kAsinh: return libm("asinhf", "asinh");
    case HloOpcode::kAcosh: return libm("acoshf", "acosh");
    case HloOpcode::kAtanh: return libm("atanhf", "atanh");
    case HloOpcode::kCbrt: return libm("cbrtf", "cbrt");
    case HloOpcode::kErf: return libm("erff", "erf");
    default: return nullptr;
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitUnary(const HloInstruction& hlo, llvm::Value* x,
                                                         PrimitiveType in, PrimitiveType out) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kConvert) return EmitConvert(x, in, out);
  if (op == HloOpcode::kCopy) return x;
  if (op == HloOpcode::kBitcastConvert) {
    if (BitcastWidth(in) != BitcastWidth(out)) {
      return absl::InvalidArgumentError(absl::StrCat("bitcast-convert ", hlo.name(), ": element widths differ"));
    }
    return FromBits(ToBits(x, in), out);
  }
  if (primitive_util::IsComplexType(in)) return EmitComplexUnary(hlo, x, in);
  if (IsRealFloat(in)) {
    if (op == HloOpcode::kIsFinite && IsComputedInF32(in)) x = WidenToF32(x, in);
    else if (IsComputedInF32(in)) {
      ASSIGN_OR_RETURN(llvm::Value* r, EmitFloatUnary(op, WidenToF32(x, in), b_->getFloatTy()));
      if (r == nullptr) return Unimplemented(hlo, in);
      return NarrowFromF32(r, in);
    }
    ASSIGN_OR_RETURN(llvm::Value* r, EmitFloatUnary(op, x, x->getType()));
    if (r == nullptr) return Unimplemented(hlo, in);
    return r;
  }
  if (in == PRED) {
    if (op == HloOpcode::kNot) return b_->CreateNot(x);
    if (op == HloOpcode::kAbs || op == HloOpcode::kNegate || op == HloOpcode::kSign) return x;
    return Unimplemented(hlo, in);
  }
  if (primitive_util::IsIntegralType(in)) {
    const bool is_signed = primitive_util::IsSignedIntegralType(in);
    llvm::Value* zero = llvm::ConstantInt::get(x->getType(), 0);
    switch (op) {
      case HloOpcode::kNot: return b_->CreateNot(x);
      case HloOpcode::kNegate: return b_->CreateSub(zero, x);
      case HloOpcode::kAbs:
        return is_signed ? b_->CreateSelect(b_->CreateICmpSLT(x, zero), b_->CreateSub(zero, x), x) : x;
      case HloOpcode::kSign: {
        if (!is_signed) return b_->CreateZExt(b_->CreateICmpNE(x, zero), x->getType());
        llvm::Value* pos = b_->CreateZExt(b_->CreateICmpSGT(x, zero), x->getType());
        llvm::Value* neg = b_->CreateZExt(b_->CreateICmpSLT(x, zero), x->getType());
        return b_->CreateSub(pos, neg);
      }
      case HloOpcode::kPopcnt: return b_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
      case HloOpcode::kCountLeadingZeros:
        return b_->CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b_->getFalse());
      default: return Unimplemented(hlo, in);
    }
  }
  return Unimplemented(hlo, in);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitFloatBinary(HloOpcode op, llvm::Value* a, llvm::Value* c,
                                                               llvm::Type* t) {
  const bool f32 = t->isFloatTy();
  switch (op) {
    case HloOpcode::kAdd: return b_->CreateFAdd(a, c);
    case HloOpcode::kSubtract: return b_->CreateFSub(a, c);
    case HloOpcode::kMultiply: return b_->CreateFMul(a, c);
    case HloOpcode::kDivide: return b_->CreateFDiv(a, c);
    case HloOpcode::kRemainder: return b_->CreateFRem(a, c);
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      // The first NaN operand wins; ties keep lhs.
      llvm::Value* pick_c = op == HloOpcode::kMaximum ? b_->CreateFCmpOLT(a, c) : b_->CreateFCmpOLT(c, a);
      llvm::Value* r = b_->CreateSelect(pick_c, c, a);
      r = b_->CreateSelect(b_->CreateFCmpUNO(c, c), c, r);
      return b_->CreateSelect(b_->CreateFCmpUNO(a, a), a, r);
    }
    case HloOpcode::kPower: {
      llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
      llvm::Value* p = CallLibm(f32 ? "powf" : "pow", t, {a, c});
      llvm::Value* trivial = b_->CreateOr(b_->CreateFCmpOEQ(a, one), b_->CreateFCmpOEQ(c, llvm::ConstantFP::get(t, 0.0)));
      return b_->CreateSelect(trivial, one, p);
    }
    case HloOpcode::kAtan2: return CallLibm(f32 ? "atan2f" : "atan2", t, {a, c});
    default: return nullptr;
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitIntBinary(HloOpcode op, llvm::Value* a, llvm::Value* c,
                                                             bool is_signed, int bits) {
  llvm::Type* t = a->getType();
  auto k = [&](int64_t v) { return llvm::ConstantInt::get(t, v, true); };
  switch (op) {
    case HloOpcode::kAdd: return b_->CreateAdd(a, c);
    case HloOpcode::kSubtract: return b_->CreateSub(a, c);
    case HloOpcode::kMultiply: return b_->CreateMul(a, c);
    case HloOpcode::kAnd: return b_->CreateAnd(a, c);
    case HloOpcode::kOr: return b_->CreateOr(a, c);
    case HloOpcode::kXor: return b_->CreateXor(a, c);
    case HloOpcode::kMaximum:
      return b_->CreateSelect(is_signed ? b_->CreateICmpSLT(a, c) : b_->CreateICmpULT(a, c), c, a);
    case HloOpcode::kMinimum:
      return b_->CreateSelect(is_signed ? b_->CreateICmpSLT(c, a) : b_->CreateICmpULT(c, a), c, a);
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder: {
      const bool div = op == HloOpcode::kDivide;
      llvm::Value* zero_divisor = b_->CreateICmpEQ(c, k(0));
      llvm::Value* minus_one = is_signed ? b_->CreateICmpEQ(c, k(-1)) : b_->getFalse();
      llvm::Value* safe = b_->CreateSelect(b_->CreateOr(zero_divisor, minus_one), k(1), c);
      llvm::Value* q = div ? (is_signed ? b_->CreateSDiv(a, safe) : b_->CreateUDiv(a, safe))
                           : (is_signed ? b_->CreateSRem(a, safe) : b_->CreateURem(a, safe));
      if (is_signed) q = b_->CreateSelect(minus_one, div ? b_->CreateSub(k(0), a) : k(0), q);
      return b_->CreateSelect(zero_divisor, div ? k(-1) : a, q);
    }
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: {
      llvm::Value* too_far = b_->CreateICmpUGE(c, k(bits));
      llvm::Value* amount = b_->CreateSelect(too_far, k(0), c);
      if (op == HloOpcode::kShiftLeft) return b_->CreateSelect(too_far, k(0), b_->CreateShl(a, amount));
      if (op == HloOpcode::kShiftRightLogical) return b_->CreateSelect(too_far, k(0), b_->CreateLShr(a, amount));
      llvm::Value* fill = b_->CreateAShr(a, k(bits - 1));
      return b_->CreateSelect(too_far, fill, b_->CreateAShr(a, amount));
    }
    case HloOpcode::kPower: {
      // Square and multiply over every exponent bit (branch free, so it vectorizes).
      llvm::Value* result = k(1);
      llvm::Value* base = a;
      for (int i = 0; i < bits; ++i) {
        llvm::Value* bit = b_->CreateICmpNE(b_->CreateAnd(c, llvm::ConstantInt::get(t, uint64_t{1} << i)), k(0));
        result = b_->CreateSelect(bit, b_->CreateMul(result, base), result);
        base = b_->CreateMul(base, base);
      }
      if (is_signed) result = b_->CreateSelect(b_->CreateICmpSLT(c, k(0)), k(0), result);
      llvm::Value* trivial = b_->CreateOr(b_->CreateICmpEQ(a, k(1)), b_->CreateICmpEQ(c, k(0)));
      return b_->CreateSelect(trivial, k(1), result);
    }
    default: return nullptr;
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitBinary(const HloInstruction& hlo, llvm::Value* a, llvm::Value* c,
                                                          PrimitiveType type) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kCompare) return EmitCompare(hlo, a, c, type);
  if (op == HloOpcode::kComplex) {
    if (type != F32 && type != F64) return Unimplemented(hlo, type);
    return MakeComplex(a, c, type == F32 ? C64 : C128);
  }
  if (primitive_util::IsComplexType(type)) {
    llvm::Value* r = EmitComplexBinary(op, a, c, type);
    if (r == nullptr) return Unimplemented(hlo, type);
    return r;
  }
  if (IsRealFloat(type)) {
    if (IsComputedInF32(type)) {
      ASSIGN_OR_RETURN(llvm::Value* r, EmitFloatBinary(op, WidenToF32(a, type), WidenToF32(c, type), b_->getFloatTy()));
      if (r == nullptr) return Unimplemented(hlo, type);
      return NarrowFromF32(r, type);
    }
    ASSIGN_OR_RETURN(llvm::Value* r, EmitFloatBinary(op, a, c, a->getType()));
    if (r == nullptr) return Unimplemented(hlo, type);
    return r;
  }
  if (type == PRED) {
    switch (op) {
      case HloOpcode::kAdd: case HloOpcode::kOr: case HloOpcode::kMaximum: return b_->CreateOr(a, c);
      case HloOpcode::kMultiply: case HloOpcode::kAnd: case HloOpcode::kMinimum: return b_->CreateAnd(a, c);
      case HloOpcode::kSubtract: case HloOpcode::kXor: return b_->CreateXor(a, c);
      case HloOpcode::kPower: return b_->CreateOr(a, b_->CreateNot(c));
      default: return Unimplemented(hlo, type);
    }
  }
  if (primitive_util::IsIntegralType(type)) {
    ASSIGN_OR_RETURN(llvm::Value* r, EmitIntBinary(op, a, c, primitive_util::IsSignedIntegralType(type),
                                                   primitive_util::BitWidth(type)));
    if (r == nullptr) return Unimplemented(hlo, type);
    return r;
  }
  return Unimplemented(hlo, type);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitCompare(const HloInstruction& hlo, llvm::Value* a,
                                                           llvm::Value* c, PrimitiveType type) {
  std::optional<ComparisonDirection> dir = StringToComparisonDirection(hlo.attrs().comparison_direction());
  if (!dir.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("compare ", hlo.name(), ": unknown direction '",
                                                   hlo.attrs().comparison_direction(), "'"));
  }
  ComparisonType ct = DefaultComparisonType(type);
  if (!hlo.attrs().comparison_type().empty()) {
    std::optional<ComparisonType> parsed = StringToComparisonType(hlo.attrs().comparison_type());
    if (!parsed.has_value()) return absl::InvalidArgumentError(absl::StrCat("compare ", hlo.name(), ": bad type"));
    ct = *parsed;
  }
  using P = llvm::CmpInst::Predicate;
  auto int_pred = [&](bool is_signed) {
    switch (*dir) {
      case ComparisonDirection::kEq: return P::ICMP_EQ;
      case ComparisonDirection::kNe: return P::ICMP_NE;
      case ComparisonDirection::kLt: return is_signed ? P::ICMP_SLT : P::ICMP_ULT;
      case ComparisonDirection::kLe: return is_signed ? P::ICMP_SLE : P::ICMP_ULE;
      case ComparisonDirection::kGt: return is_signed ? P::ICMP_SGT : P::ICMP_UGT;
      case ComparisonDirection::kGe: return is_signed ? P::ICMP_SGE : P::ICMP_UGE;
    }
    return P::ICMP_EQ;
  };
  if (IsRealFloat(type)) {
    if (ct == ComparisonType::kFloatTotalOrder) {
      // Flip the magnitude bits of negatives: the integers then order like the floats.
      const int bits = primitive_util::BitWidth(type);
      // f8e8m0fnu has no sign: its bits order like its values.
      if (type == F8E8M0FNU) return b_->CreateICmp(int_pred(false), ToBits(a, type), ToBits(c, type));
      auto key = [&](llvm::Value* v) {
        llvm::Value* i = ToBits(v, type);
        llvm::Value* mask = b_->CreateLShr(b_->CreateAShr(i, bits - 1), 1);
        return b_->CreateXor(i, mask);
      };
      return b_->CreateICmp(int_pred(true), key(a), key(c));
    }
    if (IsComputedInF32(type)) {
      a = WidenToF32(a, type);
      c = WidenToF32(c, type);
    }
    switch (*dir) {
      case ComparisonDirection::kEq: return b_->CreateFCmpOEQ(a, c);
      case ComparisonDirection::kNe: return b_->CreateFCmpUNE(a, c);
      case ComparisonDirection::kLt: return b_->CreateFCmpOLT(a, c);
      case ComparisonDirection::kLe: return b_->CreateFCmpOLE(a, c);
      case ComparisonDirection::kGt: return b_->CreateFCmpOGT(a, c);
      case ComparisonDirection::kGe: return b_->CreateFCmpOGE(a, c);
    }
  }
  if (primitive_util::IsComplexType(type)) {
    if (*dir != ComparisonDirection::kEq && *dir != ComparisonDirection::kNe) {
      return absl::InvalidArgumentError(absl::StrCat("compare ", hlo.name(), ": complex numbers only compare with EQ and NE"));
    }
    auto [ar, ai] = ComplexParts(a, type);
    auto [cr, ci] = ComplexParts(c, type);
    llvm::Value* eq = b_->CreateAnd(b_->CreateFCmpOEQ(ar, cr), b_->CreateFCmpOEQ(ai, ci));
    return *dir == ComparisonDirection::kEq ? eq : b_->CreateNot(eq);
  }
  if (type == PRED) return b_->CreateICmp(int_pred(false), a, c);
  if (primitive_util::IsIntegralType(type)) {
    bool is_signed = primitive_util::IsSignedIntegralType(type);
    if (ct == ComparisonType::kSigned) is_signed = true;
    if (ct == ComparisonType::kUnsigned) is_signed = false;
    return b_->CreateICmp(int_pred(is_signed), a, c);
  }
  return Unimplemented(hlo, type);
}

llvm::Value* ElementalEmitter::ToBits(llvm::Value* v, PrimitiveType type) {
  if (type == PRED) return b_->CreateZExt(v, b_->getInt8Ty());
  const int bits = primitive_util::BitWidth(type);
  if (v->getType()->isIntegerTy()) return b_->CreateTrunc(v, b_->getIntNTy(bits));  // f4e2m1fn: the low nibble
  return b_->CreateBitCast(v, b_->getIntNTy(bits));
}

llvm::Value* ElementalEmitter::FromBits(llvm::Value* bits, PrimitiveType type) {
  if (type == PRED) return b_->CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
  llvm::Type* t = RegisterType(type);
  if (t->isIntegerTy()) return b_->CreateZExtOrTrunc(bits, t);
  return b_->CreateBitCast(bits, t);
}

// Convert as XLA (and literals here): float -> int truncates, saturates, NaN -> 0; int -> int
// wraps; int -> f16/bf16 through f32, int -> f8/f4 from the exact double; float -> float
// rounds once from the exact source value, except f64 -> f16/bf16, which goes through f32.
absl::StatusOr<llvm::Value*> ElementalEmitter::EmitConvert(llvm::Value* x, PrimitiveType from, PrimitiveType to) {
  if (from == to) return x;
  if (primitive_util::IsComplexType(from) || primitive_util::IsComplexType(to)) return EmitComplexConvert(x, from, to);
  llvm::Type* out = RegisterType(to);
  if (to == PRED) {
    if (IsRealFloat(from)) {
      if (IsComputedInF32(from)) x = WidenToF32(x, from);
      return b_->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    }
    return b_->CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  if (IsRealFloat(from)) {
    if (IsComputedInF32(from)) {
      x = WidenToF32(x, from);
      from = F32;
    }
    if (IsRealFloat(to)) return from == F64 ? NarrowFromF64(x, to) : (to == F64 ? b_->CreateFPExt(x, out) : NarrowFromF32(x, to));
    // Saturating, NaN -> 0.
    const bool is_signed = primitive_util::IsSignedIntegralType(to);
    return b_->CreateIntrinsic(is_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                               {out, x->getType()}, {x});
  }
  const bool from_signed = primitive_util::IsSignedIntegralType(from);
  if (IsRealFloat(to)) {
    auto int_to = [&](llvm::Type* t) { return from_signed ? b_->CreateSIToFP(x, t) : b_->CreateUIToFP(x, t); };
    if (to == F32 || to == F64) return int_to(out);
    if (to == F16 || to == BF16) return NarrowFromF32(int_to(b_->getFloatTy()), to);
    return NarrowFromF64(int_to(b_->getDoubleTy()), to);
  }
  return from_signed ? b_->CreateSExtOrTrunc(x, out) : b_->CreateZExtOrTrunc(x, out);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitElementwise(const HloInstruction& hlo,
                                                               absl::Span<llvm::Value* const> operands) {
  const PrimitiveType out = hlo.shape().element_type();
  switch (hlo.opcode()) {
    case HloOpcode::kSelect:
      return b_->CreateSelect(operands[0], operands[1], operands[2]);
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(max(x, lo), hi) with NaN checks of lo, x, hi in that order.
      const PrimitiveType t = hlo.operand(1)->shape().element_type();
      llvm::Value* lo = operands[0], *x = operands[1], *hi = operands[2];
      if (IsRealFloat(t)) {
        const bool narrow = IsComputedInF32(t);
        llvm::Value* l = narrow ? WidenToF32(lo, t) : lo;
        llvm::Value* v = narrow ? WidenToF32(x, t) : x;
        llvm::Value* h = narrow ? WidenToF32(hi, t) : hi;
        llvm::Value* raised = b_->CreateSelect(b_->CreateFCmpOLT(v, l), lo, x);
        llvm::Value* rv = b_->CreateSelect(b_->CreateFCmpOLT(v, l), l, v);
        llvm::Value* r = b_->CreateSelect(b_->CreateFCmpOLT(rv, h), raised, hi);
        r = b_->CreateSelect(b_->CreateFCmpUNO(h, h), hi, r);
        r = b_->CreateSelect(b_->CreateFCmpUNO(v, v), x, r);
        return b_->CreateSelect(b_->CreateFCmpUNO(l, l), lo, r);
      }
      if (t == PRED || primitive_util::IsIntegralType(t)) {
        const bool s = primitive_util::IsSignedIntegralType(t);
        llvm::Value* raised = b_->CreateSelect(s ? b_->CreateICmpSLT(x, lo) : b_->CreateICmpULT(x, lo), lo, x);
        return b_->CreateSelect(s ? b_->CreateICmpSLT(raised, hi) : b_->CreateICmpULT(raised, hi), raised, hi);
      }
      return Unimplemented(hlo, t);
    }
    case HloOpcode::kReducePrecision: {
      llvm::Value* narrow_is_nan = nullptr;
      const PrimitiveType type = hlo.shape().element_type();
      if (primitive_util::IsNarrowFloatType(type)) {
        llvm::Value* wide = WidenToF32(operands[0], type);
        narrow_is_nan = b_->CreateFCmpUNO(wide, wide);
      }
      return EmitReducePrecision(b_, hlo, operands[0], narrow_is_nan);
    }
    default:
      break;
  }
  if (operands.size() == 1 && HloOpcodeIsElementwiseUnary(hlo.opcode())) {
    return EmitUnary(hlo, operands[0], hlo.operand(0)->shape().element_type(), out);
  }
  if (operands.size() == 2 && HloOpcodeIsElementwiseBinary(hlo.opcode())) {
    return EmitBinary(hlo, operands[0], operands[1], hlo.operand(0)->shape().element_type());
  }
  return absl::UnimplementedError(
      absl::StrCat("cpu backend: ", std::string(HloOpcodeString(hlo.opcode())), " is not elementwise (", hlo.name(), ")"));
}

}  // namespace cpu
}  // namespace xla
