#ifndef XLA_BACKENDS_INTERPRETER_OPS_ELEMENTWISE_INTERNAL_H_
#define XLA_BACKENDS_INTERPRETER_OPS_ELEMENTWISE_INTERNAL_H_

// Private helpers of the elementwise op family (ops_elementwise*.cc).
//
// Every element type is computed in one of seven value types, chosen once per op:
//   PRED -> bool; S1..S64 -> int64_t (sign-extended); U1..U64 -> uint64_t;
//   F16, BF16, F8*, F4*, F32 -> float (as XLA computes the narrow types); F64 -> double;
//   C64 -> complex<float>; C128 -> complex<double>.
// Operands are read in logical row-major order into a Values<T> buffer, the op runs on
// the buffer, and Store() writes the result with the default layout, wrapping integers
// to the element width and rounding floats once (nearest even) to the element type.

#include <complex>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape.h"

namespace xla {
namespace interpreter {
namespace elementwise {

using Operands = absl::Span<const Literal* const>;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, c64> || std::is_same_v<T, c128>;
template <typename T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
inline constexpr bool kIsInt = std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;

// A plain heap array (std::vector<bool> is a bitset; this is not).
template <typename T>
class Values {
 public:
  explicit Values(int64_t size) : data_(new T[size > 0 ? size : 1]()), size_(size) {}
  int64_t size() const { return size_; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  T* data() { return data_.get(); }

 private:
  std::unique_ptr<T[]> data_;
  int64_t size_;
};

// The literal with the default (descending) layout: `in` itself when it already has it,
// else a relayouted copy kept in *storage.
absl::StatusOr<const Literal*> RowMajor(const Literal& in, Literal* storage);

// Reads every element of an array literal (any layout) as T; T must be the value type of
// the literal's element type (see above).
template <typename T>
absl::StatusOr<Values<T>> Load(const Literal& literal);

// Writes `values` as an array of `type` with `dims` (default layout).
template <typename T>
absl::StatusOr<Literal> Store(const Values<T>& values, PrimitiveType type,
                              absl::Span<const int64_t> dims);

// The value type tag for an element type, passed to fn as a default-constructed value:
// fn(bool{}), fn(int64_t{}), fn(uint64_t{}), fn(float{}), fn(double{}), fn(c64{}), fn(c128{}).
template <typename Fn>
auto VisitValueType(PrimitiveType type, Fn&& fn) {
  if (type == PRED) return fn(bool{});
  if (primitive_util::IsSignedIntegralType(type)) return fn(int64_t{});
  if (primitive_util::IsUnsignedIntegralType(type)) return fn(uint64_t{});
  if (type == F64) return fn(double{});
  if (type == C64) return fn(c64{});
  if (type == C128) return fn(c128{});
  return fn(float{});  // F32 and the narrow floats; callers check IsArrayType first
}

// Bits of one integral element (8 for PRED); 0 for other types.
int IntegerBits(PrimitiveType type);

// Error helpers (the evaluator prefixes the instruction).
absl::Status UnsupportedType(const HloInstruction& instruction, PrimitiveType type);
// Checks the instruction and its operands are arrays with elements; returns an error
// naming what is wrong otherwise.
absl::Status CheckArrayOperands(const HloInstruction& instruction, Operands operands, int count);

std::string TypeName(PrimitiveType type);

// Registration of the pieces (ops_elementwise_*.cc).
void RegisterUnaryHandlers(HandlerTable* table);
void RegisterBinaryHandlers(HandlerTable* table);
void RegisterConvertHandlers(HandlerTable* table);

}  // namespace elementwise
}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_OPS_ELEMENTWISE_INTERNAL_H_
