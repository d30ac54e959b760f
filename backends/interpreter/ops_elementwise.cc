// Interpreter handlers for the elementwise op family: this file holds the shared
// load/store helpers (ops_elementwise_internal.h) and the registration; the ops live in
// ops_elementwise_unary.cc, ops_elementwise_binary.cc and ops_elementwise_convert.cc.
#include <cstring>

#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_elementwise_internal.h"
#include "hlo/float_types.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace elementwise {
namespace {

template <typename S>
S LoadRaw(const uint8_t* base, int64_t i) {
  S v;
  std::memcpy(&v, base + i * static_cast<int64_t>(sizeof(S)), sizeof(S));
  return v;
}

template <typename S>
void StoreRaw(uint8_t* base, int64_t i, S v) {
  std::memcpy(base + i * static_cast<int64_t>(sizeof(S)), &v, sizeof(S));
}

absl::Status WrongValueType(PrimitiveType type) {
  return absl::InternalError(
      absl::StrCat("elementwise: wrong value type for element type ", TypeName(type)));
}

}  // namespace

std::string TypeName(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

int IntegerBits(PrimitiveType type) {
  if (type == PRED) return 8;
  if (primitive_util::IsIntegralType(type)) return primitive_util::BitWidth(type);
  return 0;
}

absl::Status UnsupportedType(const HloInstruction& instruction, PrimitiveType type) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(HloOpcodeString(instruction.opcode())),
                                                 " does not accept element type ", TypeName(type)));
}

absl::Status CheckArrayOperands(const HloInstruction& instruction, Operands operands, int count) {
  if (static_cast<int>(operands.size()) != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", count, " operands, got ", operands.size()));
  }
  if (!instruction.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("result shape must be an array, got ", instruction.shape().ToString()));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("operand ", i, " must be an array, got ",
                                                     operands[i]->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const Literal*> RowMajor(const Literal& in, Literal* storage) {
  if (!in.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an array, got ", in.shape().ToString()));
  }
  if (ShapeUtil::HasDescendingLayout(in.shape())) return &in;
  ASSIGN_OR_RETURN(*storage, in.Relayout(ShapeUtil::MakeDescendingLayout(in.shape().rank())));
  return storage;
}

template <typename T>
absl::StatusOr<Values<T>> Load(const Literal& literal) {
  Literal storage;
  ASSIGN_OR_RETURN(const Literal* rm, RowMajor(literal, &storage));
  const PrimitiveType type = rm->shape().element_type();
  const int64_t n = rm->element_count();
  const auto* base = static_cast<const uint8_t*>(rm->untyped_data());
  Values<T> out(n);
  if constexpr (std::is_same_v<T, bool>) {
    if (type != PRED) return WrongValueType(type);
    for (int64_t i = 0; i < n; ++i) out[i] = base[i] != 0;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!primitive_util::IsSignedIntegralType(type)) return WrongValueType(type);
    switch (primitive_util::ByteWidth(type)) {
      case 1: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<int8_t>(base, i); break;
      case 2: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<int16_t>(base, i); break;
      case 4: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<int32_t>(base, i); break;
      default: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<int64_t>(base, i); break;
    }
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (!primitive_util::IsUnsignedIntegralType(type)) return WrongValueType(type);
    switch (primitive_util::ByteWidth(type)) {
      case 1: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<uint8_t>(base, i); break;
      case 2: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<uint16_t>(base, i); break;
      case 4: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<uint32_t>(base, i); break;
      default: for (int64_t i = 0; i < n; ++i) out[i] = LoadRaw<uint64_t>(base, i); break;
    }
  } else if constexpr (std::is_same_v<T, float>) {
    if (type == F32) {
      if (n > 0) std::memcpy(out.data(), base, n * sizeof(float));
    } else if (type == F16) {
      for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(LoadRaw<uint16_t>(base, i));
    } else if (type == BF16) {
      for (int64_t i = 0; i < n; ++i) out[i] = Bfloat16ToFloat(LoadRaw<uint16_t>(base, i));
    } else if (auto kind = primitive_util::NarrowFloatFormat(type)) {
      // Every 8- and 4-bit float value is exactly a float: decode through a table.
      float table[256];
      for (int b = 0; b < 256; ++b) table[b] = static_cast<float>(DecodeFloat(*kind, b));
      for (int64_t i = 0; i < n; ++i) out[i] = table[base[i]];
    } else {
      return WrongValueType(type);
    }
  } else if constexpr (std::is_same_v<T, double>) {
    if (type != F64) return WrongValueType(type);
    if (n > 0) std::memcpy(out.data(), base, n * sizeof(double));
  } else {
    if ((std::is_same_v<T, c64> && type != C64) || (std::is_same_v<T, c128> && type != C128)) {
      return WrongValueType(type);
    }
    if (n > 0) std::memcpy(static_cast<void*>(out.data()), base, n * sizeof(T));
  }
  return out;
}

template <typename T>
absl::StatusOr<Literal> Store(const Values<T>& values, PrimitiveType type,
                              absl::Span<const int64_t> dims) {
  ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(type, dims)));
  const int64_t n = out.element_count();
  if (n != values.size()) {
    return absl::InternalError(absl::StrCat("elementwise: ", values.size(),
                                            " values for a result of ", n, " elements"));
  }
  auto* base = static_cast<uint8_t*>(out.untyped_data());
  if constexpr (std::is_same_v<T, bool>) {
    if (type != PRED) return WrongValueType(type);
    for (int64_t i = 0; i < n; ++i) base[i] = values[i] ? 1 : 0;
  } else if constexpr (kIsInt<T>) {
    if (!primitive_util::IsIntegralType(type)) return WrongValueType(type);
    const int bits = primitive_util::BitWidth(type);
    if (bits < 8) {
      // Sub-byte elements live one per byte: signed ones sign-extended, unsigned masked.
      const bool is_signed = primitive_util::IsSignedIntegralType(type);
      const int shift = 8 - bits;
      for (int64_t i = 0; i < n; ++i) {
        const auto low = static_cast<uint8_t>(static_cast<uint64_t>(values[i]) << shift);
        base[i] = is_signed ? static_cast<uint8_t>(static_cast<int8_t>(low) >> shift)
                            : static_cast<uint8_t>(low >> shift);
      }
    } else {
      switch (bits) {
        case 8: for (int64_t i = 0; i < n; ++i) StoreRaw<uint8_t>(base, i, static_cast<uint8_t>(values[i])); break;
        case 16: for (int64_t i = 0; i < n; ++i) StoreRaw<uint16_t>(base, i, static_cast<uint16_t>(values[i])); break;
        case 32: for (int64_t i = 0; i < n; ++i) StoreRaw<uint32_t>(base, i, static_cast<uint32_t>(values[i])); break;
        default: for (int64_t i = 0; i < n; ++i) StoreRaw<uint64_t>(base, i, static_cast<uint64_t>(values[i])); break;
      }
    }
  } else if constexpr (std::is_same_v<T, float>) {
    if (type == F32) {
      if (n > 0) std::memcpy(base, &values[0], n * sizeof(float));
    } else if (type == F16) {
      for (int64_t i = 0; i < n; ++i) StoreRaw<uint16_t>(base, i, FloatToHalf(values[i]));
    } else if (type == BF16) {
      for (int64_t i = 0; i < n; ++i) StoreRaw<uint16_t>(base, i, FloatToBfloat16(values[i]));
    } else if (auto kind = primitive_util::NarrowFloatFormat(type)) {
      for (int64_t i = 0; i < n; ++i) base[i] = static_cast<uint8_t>(EncodeFloat(*kind, values[i]));
    } else {
      return WrongValueType(type);
    }
  } else {
    const bool ok = (std::is_same_v<T, double> && type == F64) ||
                    (std::is_same_v<T, c64> && type == C64) ||
                    (std::is_same_v<T, c128> && type == C128);
    if (!ok) return WrongValueType(type);
    if (n > 0) std::memcpy(base, static_cast<const void*>(&values[0]), n * sizeof(T));
  }
  return out;
}

#define XLA_ELEMENTWISE_INSTANTIATE(T)                                              \
  template absl::StatusOr<Values<T>> Load<T>(const Literal&);                       \
  template absl::StatusOr<Literal> Store<T>(const Values<T>&, PrimitiveType,        \
                                            absl::Span<const int64_t>);
XLA_ELEMENTWISE_INSTANTIATE(bool)
XLA_ELEMENTWISE_INSTANTIATE(int64_t)
XLA_ELEMENTWISE_INSTANTIATE(uint64_t)
XLA_ELEMENTWISE_INSTANTIATE(float)
XLA_ELEMENTWISE_INSTANTIATE(double)
XLA_ELEMENTWISE_INSTANTIATE(c64)
XLA_ELEMENTWISE_INSTANTIATE(c128)
#undef XLA_ELEMENTWISE_INSTANTIATE

}  // namespace elementwise

void RegisterElementwiseHandlers(HandlerTable* table) {
  elementwise::RegisterUnaryHandlers(table);
  elementwise::RegisterBinaryHandlers(table);
  elementwise::RegisterConvertHandlers(table);
}

}  // namespace interpreter
}  // namespace xla
