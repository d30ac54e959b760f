#ifndef XLA_BACKENDS_CPU_RUNTIME_STRIDED_ARRAY_H_
#define XLA_BACKENDS_CPU_RUNTIME_STRIDED_ARRAY_H_

// How the runtime's linear-algebra and FFT routines see an array that generated code hands
// them: a base pointer and a descriptor the code generator emitted as a constant,
//   { element type (xla::PrimitiveType), rank, dims[rank], element strides[rank] },
// strides per logical dimension, so any layout works without a relayout copy first.
// The routines compute in double / complex<double> and round once on store, as the
// interpreter does (backends/interpreter/ops_linalg_*.cc), which keeps them bit-exact with it.

#include <complex>
#include <cstdint>
#include <vector>

namespace xla {
namespace cpu {

class StridedArray {
 public:
  StridedArray(void* data, const int64_t* descriptor) : data_(static_cast<char*>(data)), descriptor_(descriptor) {}

  int32_t type() const { return static_cast<int32_t>(descriptor_[0]); }
  int64_t rank() const { return descriptor_[1]; }
  int64_t dim(int64_t d) const { return descriptor_[2 + d]; }
  int64_t stride(int64_t d) const { return descriptor_[2 + rank() + d]; }
  std::vector<int64_t> dims() const { return std::vector<int64_t>(descriptor_ + 2, descriptor_ + 2 + rank()); }
  int64_t element_count() const;
  bool is_complex() const;

  // Element at storage offset `offset` (in elements); real types give a zero imaginary part.
  std::complex<double> Load(int64_t offset) const;
  // Stores `v` rounded once to the element type (real types keep the real part).
  void Store(int64_t offset, std::complex<double> v) const;

  // Elements first + i * step for i < count: loaded into out[i], or stored from in[i] (as
  // Load and Store do, with the element type looked at once for the whole line).
  void LoadLine(int64_t first, int64_t step, int64_t count, std::complex<double>* out) const;
  void StoreLine(int64_t first, int64_t step, int64_t count, const std::complex<double>* in) const;

  // Stores the low bits of `word` in an integer element (sub-byte types one per byte,
  // signed ones sign-extended, as literals store them).
  void StoreBits(int64_t offset, uint64_t word) const;

  int64_t element_bytes() const;
  void* address(int64_t offset) const { return data_ + offset * element_bytes(); }

  // Storage offsets of every element in row-major logical order.
  std::vector<int64_t> RowMajorOffsets() const;
  // Storage offset of the first element of row `row` along the last dimension (its other
  // indices being `row` in row-major order).
  int64_t RowStart(int64_t row) const { return OuterStart(row, rank() - 1); }
  // Storage offset of the element whose first `axes` indices are `index` in row-major order
  // and whose others are 0.
  int64_t OuterStart(int64_t index, int64_t axes) const;
 private:
  char* data_;
  const int64_t* descriptor_;
};

// The whole array in row-major logical order (into `values`, resized), and back, rows over
// the runtime's threads when `parallel`.
void Read(const StridedArray& a, std::vector<std::complex<double>>& values, bool parallel = true);
std::vector<std::complex<double>> ReadComplex(const StridedArray& a);
std::vector<double> ReadReal(const StridedArray& a);
void Write(const StridedArray& a, const std::vector<std::complex<double>>& values, bool parallel = true);
void Write(const StridedArray& a, const std::vector<double>& values, bool parallel = true);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_RUNTIME_STRIDED_ARRAY_H_
