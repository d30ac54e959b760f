#ifndef XLA_HLO_LITERAL_INTERNAL_H_
#define XLA_HLO_LITERAL_INTERNAL_H_

// Helpers shared by literal*.cc: element load/store per primitive type and the
// mapping from logical row-major indexes to storage (layout-order) indexes.
// Not part of the public contract; include only from literal*.cc and tests.

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/shape.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace literal_internal {

// Largest total byte size (all tuple leaves together) a literal may have: every
// allocation driven by text or protos is checked against it first.
inline constexpr int64_t kMaxLiteralBytes = int64_t{1} << 34;

// Bytes per element in a literal's dense, unpacked storage; 0 for non-array types.
int ElementBytes(PrimitiveType type);

// Sum of the dense bytes of every array leaf, or an error when the shape is invalid,
// opaque, overflows, or exceeds kMaxLiteralBytes.
absl::StatusOr<int64_t> CheckedTotalBytes(const Shape& shape);

// Storage stride (in elements) of each logical dimension of an array shape, following
// the shape's layout (descending when the shape has none). Empty for rank 0.
std::vector<int64_t> StorageStrides(const Shape& shape);
// True when storage order equals logical row-major order.
bool IsRowMajorStorage(const Shape& shape);

// Walks all elements in logical row-major order, calling fn(storage_index) for each.
template <typename Fn>
void ForEachStorageIndex(const std::vector<int64_t>& dims,
                         const std::vector<int64_t>& strides, Fn&& fn) {
  const size_t rank = dims.size();
  for (int64_t d : dims)
    if (d == 0) return;
  if (rank == 0) {
    fn(int64_t{0});
    return;
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t pos = 0;
  while (true) {
    fn(pos);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++idx[d] < dims[d]) {
        pos += strides[d];
        break;
      }
      pos -= strides[d] * (dims[d] - 1);
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

// --- element load/store on raw storage (p points at the element) ---
// Integral value of a PRED or integral element: signed types sign-extended.
int64_t LoadInt(PrimitiveType type, const uint8_t* p);
// Same bits, read as unsigned (zero-extended for unsigned types).
uint64_t LoadUint(PrimitiveType type, const uint8_t* p);
// Exact value of a floating-point element (F16..F64, F8*, F4).
double LoadFloat(PrimitiveType type, const uint8_t* p);
// Complex element; real types give (value, 0).
std::complex<double> LoadComplex(PrimitiveType type, const uint8_t* p);

// Stores an integer, wrapping to the element width (two's complement; sub-byte
// signed types kept sign-extended in their byte, unsigned masked). PRED: v != 0.
void StoreIntBits(PrimitiveType type, uint8_t* p, uint64_t v);
// Stores a real value rounded once to nearest-even into a floating-point element.
void StoreFloat(PrimitiveType type, uint8_t* p, double v);
void StoreComplex(PrimitiveType type, uint8_t* p, std::complex<double> v);

// Converts one element with XLA `convert` semantics. Complex -> real must be
// rejected by the caller.
void ConvertElement(PrimitiveType src_type, const uint8_t* src, PrimitiveType dst_type,
                    uint8_t* dst);

// Normalizes one stored element in place (PRED to 0/1, sub-byte ints sign-extended
// or masked, F4E2M1FN masked) so that equality and printing see canonical bytes.
void NormalizeElement(PrimitiveType type, uint8_t* p);

// One element in XLA's text form (literal_print.cc); PRED as 1/0 when pred_as_digit.
std::string FormatElement(PrimitiveType type, const uint8_t* p, bool pred_as_digit);

}  // namespace literal_internal
}  // namespace xla

#endif  // XLA_HLO_LITERAL_INTERNAL_H_
