// Linear algebra family: dot, convolution, fft, cholesky, triangular-solve and the
// batch-norm ops. Each lives in its own ops_linalg_*.cc; this file holds the shared
// read/write helpers (ops_linalg_internal.h) and the family registration.
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/float_types.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

// True when storage order equals logical row-major order, so data<T>() can be read directly.
bool RowMajorStorage(const Literal& literal) { return ShapeUtil::HasDescendingLayout(literal.shape()); }

template <typename T, typename U, typename F>
bool ReadTyped(const Literal& literal, std::vector<U>* out, F convert) {
  absl::Span<const T> data = literal.data<T>();
  if (data.size() != out->size()) return false;
  for (size_t i = 0; i < data.size(); ++i) (*out)[i] = convert(data[i]);
  return true;
}

}  // namespace

AccumKind AccumKindOf(PrimitiveType type) {
  if (type == PRED) return AccumKind::kPred;
  if (primitive_util::IsComplexType(type)) return AccumKind::kComplex;
  if (primitive_util::IsIntegralType(type)) return AccumKind::kInt;
  return AccumKind::kFloat;
}

void ReadValues(const Literal& literal, std::vector<double>* out) {
  const int64_t n = literal.element_count();
  out->assign(n, 0.0);
  if (RowMajorStorage(literal)) {
    auto same = [](auto v) { return static_cast<double>(v); };
    switch (literal.shape().element_type()) {
      case F32:
        if (ReadTyped<float>(literal, out, same)) return;
        break;
      case F64:
        if (ReadTyped<double>(literal, out, same)) return;
        break;
      case F16:
        if (ReadTyped<uint16_t>(literal, out, [](uint16_t h) { return double{HalfToFloat(h)}; })) return;
        break;
      case BF16:
        if (ReadTyped<uint16_t>(literal, out, [](uint16_t h) { return double{Bfloat16ToFloat(h)}; })) {
          return;
        }
        break;
      default:
        break;
    }
  }
  for (int64_t i = 0; i < n; ++i) (*out)[i] = literal.GetAsDouble(i);
}

void ReadValues(const Literal& literal, std::vector<Complex>* out) {
  const int64_t n = literal.element_count();
  out->assign(n, Complex(0, 0));
  if (RowMajorStorage(literal)) {
    auto widen = [](auto v) { return Complex(v.real(), v.imag()); };
    switch (literal.shape().element_type()) {
      case C64:
        if (ReadTyped<std::complex<float>>(literal, out, widen)) return;
        break;
      case C128:
        if (ReadTyped<std::complex<double>>(literal, out, widen)) return;
        break;
      default:
        break;
    }
  }
  for (int64_t i = 0; i < n; ++i) (*out)[i] = literal.GetAsComplex(i);
}

void ReadValues(const Literal& literal, std::vector<uint64_t>* out) {
  const int64_t n = literal.element_count();
  out->assign(n, 0);
  const PrimitiveType type = literal.shape().element_type();
  if (RowMajorStorage(literal)) {
    auto extend = [](auto v) { return static_cast<uint64_t>(static_cast<int64_t>(v)); };
    switch (type) {
      case S32:
        if (ReadTyped<int32_t>(literal, out, extend)) return;
        break;
      case S64:
        if (ReadTyped<int64_t>(literal, out, extend)) return;
        break;
      case S8:
        if (ReadTyped<int8_t>(literal, out, extend)) return;
        break;
      case U8:
        if (ReadTyped<uint8_t>(literal, out, extend)) return;
        break;
      case U32:
        if (ReadTyped<uint32_t>(literal, out, extend)) return;
        break;
      default:
        break;
    }
  }
  const bool is_unsigned = primitive_util::IsUnsignedIntegralType(type);
  for (int64_t i = 0; i < n; ++i) {
    (*out)[i] = is_unsigned ? literal.GetAsUint64(i) : static_cast<uint64_t>(literal.GetAsInt64(i));
  }
}

namespace {

absl::StatusOr<Literal> CreateRowMajor(const Shape& shape) {
  Shape plain = shape;
  plain.clear_layout();
  return Literal::Create(plain);
}

}  // namespace

absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<double>& values) {
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(shape));
  if (static_cast<int64_t>(values.size()) != result.element_count()) {
    return absl::InternalError("result value count does not match the shape");
  }
  const PrimitiveType type = shape.element_type();
  if (type == F32) {
    absl::Span<float> data = result.data<float>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<float>(values[i]);
    return result;
  }
  if (type == F64) {
    absl::Span<double> data = result.data<double>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
    return result;
  }
  if (type == PRED) {
    for (size_t i = 0; i < values.size(); ++i) result.SetFromInt64(i, values[i] != 0 ? 1 : 0);
    return result;
  }
  for (size_t i = 0; i < values.size(); ++i) result.SetFromDouble(i, values[i]);
  return result;
}

absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<Complex>& values) {
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(shape));
  if (static_cast<int64_t>(values.size()) != result.element_count()) {
    return absl::InternalError("result value count does not match the shape");
  }
  if (shape.element_type() == C64) {
    absl::Span<std::complex<float>> data = result.data<std::complex<float>>();
    for (size_t i = 0; i < values.size(); ++i) {
      data[i] = std::complex<float>(static_cast<float>(values[i].real()),
                                    static_cast<float>(values[i].imag()));
    }
    return result;
  }
  for (size_t i = 0; i < values.size(); ++i) result.SetFromComplex(i, values[i]);
  return result;
}

absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<uint64_t>& values) {
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(shape));
  if (static_cast<int64_t>(values.size()) != result.element_count()) {
    return absl::InternalError("result value count does not match the shape");
  }
  const PrimitiveType type = shape.element_type();
  if (type == S32) {
    absl::Span<int32_t> data = result.data<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<int32_t>(values[i]);
    return result;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == PRED) {
      result.SetFromInt64(i, values[i] != 0 ? 1 : 0);
    } else {
      result.SetFromInt64(i, static_cast<int64_t>(values[i]));
    }
  }
  return result;
}

absl::StatusOr<Literal> ConvertedTo(const Literal& literal, PrimitiveType type) {
  if (literal.shape().element_type() == type) return literal.Clone();
  return literal.Convert(type);
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

int64_t ElementCount(absl::Span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) return -1;
    count *= d;
  }
  return count;
}

absl::Status CheckDimensions(absl::Span<const int64_t> dims, int64_t rank, const char* what) {
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(what, " dimension ", d, " out of range for rank ", rank));
    }
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(absl::StrCat(what, " dimension ", d, " repeated"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckArrayOperands(Operands operands, size_t count) {
  if (operands.size() != count) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", count, " operands, got ", operands.size()));
  }
  for (const Literal* operand : operands) {
    if (operand == nullptr || !operand->shape().IsArray()) {
      return absl::InvalidArgumentError("operands must be arrays");
    }
  }
  return absl::OkStatus();
}

}  // namespace linalg

void RegisterLinalgHandlers(HandlerTable* table) {
  linalg::RegisterDotHandlers(table);
  linalg::RegisterConvolutionHandlers(table);
  linalg::RegisterFftHandlers(table);
  linalg::RegisterSolveHandlers(table);
  linalg::RegisterBatchNormHandlers(table);
  linalg::RegisterRaggedAndScaledDotHandlers(table);
}

}  // namespace interpreter
}  // namespace xla
