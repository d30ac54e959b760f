#ifndef XLA_HLO_LITERAL_H_
#define XLA_HLO_LITERAL_H_

// Literal: a host value of any shape (dense array of any primitive type, or a tuple
// of literals). Storage of an array is dense and follows the shape's layout (the default
// descending layout when the shape has none). Element storage per type:
//   PRED: 1 byte (0/1); S1/S2/S4/U1/U2/U4 and F4E2M1FN: one element per byte (low bits);
//   F16/BF16: uint16 bit pattern; F8*: uint8 bit pattern; C64: 2 floats; C128: 2 doubles;
//   other types: their native C++ type.
// Signed sub-byte elements are stored sign-extended in their byte (S4 -3 is 0xFD), so
// data<int8_t>() reads them directly; unsigned sub-byte and F4E2M1FN are zero-extended.
// Sub-byte layouts with element_size_in_bits and tiled layouts are stored unpacked and
// untiled (minor_to_major order only). A token literal holds no data.
// Literal is movable (a moved-from literal is an empty tuple); copy with Clone().

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/shape.h"
#include "proto/xla_data.pb.h"

namespace xla {

class Literal {
 public:
  Literal();  // empty tuple
  // Zero-filled (false / 0 / +0.0) value of `shape`. Shape must be valid (ValidateShape).
  static absl::StatusOr<Literal> Create(const Shape& shape);
  // Copies `size` bytes laid out as described above (and in the shape's layout).
  static absl::StatusOr<Literal> CreateFromBuffer(const Shape& shape, const void* data, int64_t size);
  // A value of `shape` whose array bytes are unspecified until written: for a producer that
  // writes every byte of every array at once (a device's download), sparing a zero fill.
  static absl::StatusOr<Literal> CreateForOverwrite(const Shape& shape);
  static Literal MakeTuple(std::vector<Literal> elements);

  // Convenience for tests and builders (native C++ element types: bool, int8..int64,
  // uint8..uint64, float, double, std::complex<float>, std::complex<double>).
  template <typename T> static Literal CreateR0(T value);
  template <typename T> static Literal CreateR1(absl::Span<const T> values);
  template <typename T> static Literal CreateR2(std::initializer_list<std::initializer_list<T>> values);
  // Same, for types without a C++ type (F16, BF16, F8...): values converted from double.
  static absl::StatusOr<Literal> CreateFromDoubles(const Shape& shape, absl::Span<const double> values);

  Literal(Literal&&) noexcept;
  Literal& operator=(Literal&&) noexcept;
  ~Literal();
  Literal Clone() const;

  const Shape& shape() const;
  bool IsTuple() const { return shape().IsTuple(); }

  // --- arrays ---
  int64_t element_count() const;
  const void* untyped_data() const;
  void* untyped_data();
  int64_t size_bytes() const;
  // Typed views; T must match the element storage type above (checked, empty span on mismatch).
  template <typename T> absl::Span<const T> data() const;
  template <typename T> absl::Span<T> data();

  // Generic element access by linear index in *logical row-major order* (not storage order);
  // works for every array type via conversion.
  double GetAsDouble(int64_t linear_index) const;           // real part for complex
  std::complex<double> GetAsComplex(int64_t linear_index) const;
  int64_t GetAsInt64(int64_t linear_index) const;            // integral/pred types
  uint64_t GetAsUint64(int64_t linear_index) const;
  void SetFromDouble(int64_t linear_index, double value);   // rounds to the element type (RNE for floats)
  void SetFromComplex(int64_t linear_index, std::complex<double> value);
  void SetFromInt64(int64_t linear_index, int64_t value);   // wraps to the element width
  void SetFromUint64(int64_t linear_index, uint64_t value);
  // Multi-dimensional index variants.
  double GetAsDouble(absl::Span<const int64_t> index) const;
  void SetFromDouble(absl::Span<const int64_t> index, double value);

  // --- tuples ---
  int64_t tuple_element_count() const;
  const Literal& tuple_element(int64_t i) const;
  Literal& tuple_element(int64_t i);
  // Moves the elements out; the literal becomes an empty tuple.
  std::vector<Literal> DecomposeTuple();

  // Element-type conversion with XLA's convert semantics (float->int saturates and NaN->0,
  // int->float rounds to nearest even, narrow floats via hlo/float_types.h, pred is x != 0).
  absl::StatusOr<Literal> Convert(PrimitiveType type) const;
  // Same values in another layout (dims must match).
  absl::StatusOr<Literal> Relayout(const Layout& layout) const;

  // Equality of shape (ignoring layout) and values. Floats compare bitwise-equal values
  // as equal, NaN equals NaN of same bits.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

  // XLA literal text, e.g. "f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}" — as xla::Literal::ToString().
  std::string ToString() const;
  // The value part only, exactly as inside HLO constant(...) instructions, on one line
  // (xla ToStringWithoutShapeOneline): "{ { 1, 2 }, { 3, 4 } }", "{1, 2}", "( {1}, 2 )".
  std::string ToStringWithoutShape() const;
  // One element in XLA's text form (e.g. "1.5", "inf", "-nan", "(1, 2)" for complex, "true").
  std::string ElementToString(int64_t linear_index) const;
  // Parses XLA literal text ("f32[2] {1, 2}", "(s32[], f32[]) (1, 2.5)", "pred[] true").
  // Also accepts ToString()'s output (tuples as "(\nf32[] 1,\ns32[2] {1, 2}\n)").
  static absl::StatusOr<Literal> Parse(std::string_view text);

  // --- additions (literal owner) ---
  // Largest total byte size of a literal built from text, protos or Create().
  static constexpr int64_t kMaxBytes = int64_t{1} << 34;
  // ToString() on one line: "f32[2,2] { { 1, 2 }, { 3, 4 } }" (xla ToStringOneline).
  std::string ToStringOneline() const;
  // Parses only the value part (what ToStringWithoutShape() prints, i.e. the text inside
  // HLO constant(...)) for a known shape: "{1, 2}", "( {1}, 2 )", "true", "(1, 2)".
  // /*...*/ comments are skipped. Errors carry the 1-based column within value_text.
  static absl::StatusOr<Literal> ParseWithShape(const Shape& shape, std::string_view value_text);
  // Position in storage (in elements, i.e. index into data<T>()) of a logical row-major
  // linear index; -1 when out of range or not an array.
  int64_t StorageIndex(int64_t linear_index) const;

  LiteralProto ToProto() const;
  // Validates the shape and that array fields hold exactly the right number of values.
  static absl::StatusOr<Literal> FromProto(const LiteralProto& proto);

 private:
  friend struct LiteralAccess;  // literal*.cc internals
  struct Rep;
  explicit Literal(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace xla

#endif  // XLA_HLO_LITERAL_H_
