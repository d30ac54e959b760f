#include "backends/cpu/runtime/strided_array.h"

#include <cstring>
#include <optional>

#include "backends/cpu/runtime/runtime.h"
#include "hlo/float_types.h"
#include "hlo/primitive_util.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace cpu {
namespace {

template <typename T>
T Read(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Put(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

int64_t StridedArray::element_count() const {
  int64_t n = 1;
  for (int64_t d = 0; d < rank(); ++d) n *= dim(d);
  return n;
}

int64_t StridedArray::element_bytes() const { return primitive_util::ByteWidth(static_cast<PrimitiveType>(type())); }

void StridedArray::StoreBits(int64_t offset, uint64_t word) const {
  const auto t = static_cast<PrimitiveType>(type());
  const int bit_width = primitive_util::BitWidth(t);
  char* p = data_ + offset * element_bytes();
  if (bit_width >= 8) {
    std::memcpy(p, &word, bit_width / 8);  // little-endian: the low bytes
    return;
  }
  const int shift = 8 - bit_width;
  const uint8_t low = static_cast<uint8_t>(word << shift);
  const uint8_t v = primitive_util::IsSignedIntegralType(t) ? static_cast<uint8_t>(static_cast<int8_t>(low) >> shift)
                                                            : static_cast<uint8_t>(low >> shift);
  std::memcpy(p, &v, 1);
}

bool StridedArray::is_complex() const { return type() == C64 || type() == C128; }

std::complex<double> StridedArray::Load(int64_t offset) const {
  switch (type()) {
    case F16: return DecodeFloat(FloatFormatKind::kF16, Read<uint16_t>(data_ + 2 * offset));
    case BF16: return DecodeFloat(FloatFormatKind::kBF16, Read<uint16_t>(data_ + 2 * offset));
    case F32: return Read<float>(data_ + 4 * offset);
    case F64: return Read<double>(data_ + 8 * offset);
    case C64: {
      const char* p = data_ + 8 * offset;
      return {Read<float>(p), Read<float>(p + 4)};
    }
    case C128: {
      const char* p = data_ + 16 * offset;
      return {Read<double>(p), Read<double>(p + 8)};
    }
    default: {
      // 8- and 4-bit floats: one per byte.
      const std::optional<FloatFormatKind> format = primitive_util::NarrowFloatFormat(static_cast<PrimitiveType>(type()));
      if (!format.has_value()) return {0, 0};  // the code generator passes float types only
      return DecodeFloat(*format, Read<uint8_t>(data_ + offset));
    }
  }
}

void StridedArray::Store(int64_t offset, std::complex<double> v) const {
  switch (type()) {
    case F16: Put<uint16_t>(data_ + 2 * offset, static_cast<uint16_t>(EncodeFloat(FloatFormatKind::kF16, v.real()))); return;
    case BF16: Put<uint16_t>(data_ + 2 * offset, static_cast<uint16_t>(EncodeFloat(FloatFormatKind::kBF16, v.real()))); return;
    case F32: Put<float>(data_ + 4 * offset, static_cast<float>(v.real())); return;
    case F64: Put<double>(data_ + 8 * offset, v.real()); return;
    case C64:
      Put<float>(data_ + 8 * offset, static_cast<float>(v.real()));
      Put<float>(data_ + 8 * offset + 4, static_cast<float>(v.imag()));
      return;
    case C128:
      Put<double>(data_ + 16 * offset, v.real());
      Put<double>(data_ + 16 * offset + 8, v.imag());
      return;
    default: {
      const std::optional<FloatFormatKind> format = primitive_util::NarrowFloatFormat(static_cast<PrimitiveType>(type()));
      if (format.has_value()) Put<uint8_t>(data_ + offset, static_cast<uint8_t>(EncodeFloat(*format, v.real())));
      return;
    }
  }
}

void StridedArray::LoadLine(int64_t first, int64_t step, int64_t count, std::complex<double>* out) const {
  const auto load = [&](auto element) {  // element(p): the value at byte address p
    const int64_t bytes = element_bytes();
    for (int64_t i = 0; i < count; ++i) out[i] = element(data_ + (first + i * step) * bytes);
  };
  switch (type()) {
    case F32: return load([](const char* p) { return std::complex<double>(Read<float>(p)); });
    case F64: return load([](const char* p) { return std::complex<double>(Read<double>(p)); });
    case C64: return load([](const char* p) { return std::complex<double>(Read<float>(p), Read<float>(p + 4)); });
    case C128: return load([](const char* p) { return std::complex<double>(Read<double>(p), Read<double>(p + 8)); });
    default:
      for (int64_t i = 0; i < count; ++i) out[i] = Load(first + i * step);
  }
}

void StridedArray::StoreLine(int64_t first, int64_t step, int64_t count, const std::complex<double>* in) const {
  const auto store = [&](auto element) {  // element(p, v): stores v at byte address p
    const int64_t bytes = element_bytes();
    for (int64_t i = 0; i < count; ++i) element(data_ + (first + i * step) * bytes, in[i]);
  };
  switch (type()) {
    case F32: return store([](char* p, std::complex<double> v) { Put<float>(p, static_cast<float>(v.real())); });
    case F64: return store([](char* p, std::complex<double> v) { Put<double>(p, v.real()); });
    case C64:
      return store([](char* p, std::complex<double> v) {
        Put<float>(p, static_cast<float>(v.real()));
        Put<float>(p + 4, static_cast<float>(v.imag()));
      });
    case C128:
      return store([](char* p, std::complex<double> v) {
        Put<double>(p, v.real());
        Put<double>(p + 8, v.imag());
      });
    default:
      for (int64_t i = 0; i < count; ++i) Store(first + i * step, in[i]);
  }
}

std::vector<int64_t> StridedArray::RowMajorOffsets() const {
  const int64_t n = element_count();
  std::vector<int64_t> offsets;
  offsets.reserve(n);
  std::vector<int64_t> index(rank(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    offsets.push_back(offset);
    // Advance the row-major counter, keeping the storage offset in step.
    for (int64_t d = rank() - 1; d >= 0; --d) {
      offset += stride(d);
      if (++index[d] < dim(d)) break;
      offset -= stride(d) * dim(d);
      index[d] = 0;
    }
  }
  return offsets;
}

int64_t StridedArray::OuterStart(int64_t index, int64_t axes) const {
  int64_t first = 0;
  for (int64_t d = axes - 1; d >= 0; --d) {
    first += (index % dim(d)) * stride(d);
    index /= dim(d);
  }
  return first;
}

namespace {

// fn(row, first, step, count) for the rows of `a` along its last dimension (row r holds
// row-major elements r * count ...), ranges of rows over the runtime's threads when `parallel`.
template <typename F>
void ForEachRow(const StridedArray& a, bool parallel, F&& fn) {
  const int64_t rank = a.rank(), count = rank == 0 ? 1 : a.dim(rank - 1), step = rank == 0 ? 0 : a.stride(rank - 1);
  if (count == 0 || a.element_count() == 0) return;
  const int64_t rows = a.element_count() / count;
  const auto range = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) fn(r, a.RowStart(r), step, count);
  };
  if (!parallel) return range(0, rows);
  ParallelRanges(rows, 4 * count, range);
}

}  // namespace

void Read(const StridedArray& a, std::vector<std::complex<double>>& values, bool parallel) {
  values.resize(static_cast<size_t>(a.element_count()));
  ForEachRow(a, parallel, [&](int64_t r, int64_t first, int64_t step, int64_t count) {
    a.LoadLine(first, step, count, values.data() + r * count);
  });
}

std::vector<std::complex<double>> ReadComplex(const StridedArray& a) {
  std::vector<std::complex<double>> values;
  Read(a, values);
  return values;
}

std::vector<double> ReadReal(const StridedArray& a) {
  std::vector<double> values(static_cast<size_t>(a.element_count()));
  ForEachRow(a, true, [&](int64_t r, int64_t first, int64_t step, int64_t count) {
    static thread_local std::vector<std::complex<double>> row;  // reused row to row
    row.resize(static_cast<size_t>(count));
    a.LoadLine(first, step, count, row.data());
    for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(r * count + i)] = row[static_cast<size_t>(i)].real();
  });
  return values;
}

void Write(const StridedArray& a, const std::vector<std::complex<double>>& values, bool parallel) {
  ForEachRow(a, parallel, [&](int64_t r, int64_t first, int64_t step, int64_t count) {
    if (static_cast<size_t>((r + 1) * count) > values.size()) return;  // callers pass every element
    a.StoreLine(first, step, count, values.data() + r * count);
  });
}

void Write(const StridedArray& a, const std::vector<double>& values, bool parallel) {
  ForEachRow(a, parallel, [&](int64_t r, int64_t first, int64_t step, int64_t count) {
    if (static_cast<size_t>((r + 1) * count) > values.size()) return;
    static thread_local std::vector<std::complex<double>> row;  // reused row to row
    row.assign(values.begin() + r * count, values.begin() + (r + 1) * count);
    a.StoreLine(first, step, count, row.data());
  });
}

}  // namespace cpu
}  // namespace xla

static void Copy(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor) {
  const xla::cpu::StridedArray from(in, in_descriptor), to(out, out_descriptor);
  const std::vector<int64_t> source = from.RowMajorOffsets(), target = to.RowMajorOffsets();
  const int64_t bytes = to.element_bytes();
  if (from.element_bytes() != bytes) return;  // the code generator passes equal types
  for (size_t i = 0; i < source.size() && i < target.size(); ++i) {
    std::memcpy(to.address(target[i]), from.address(source[i]), bytes);
  }
}

extern "C" void __xla_cpu_copy(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor) {
  xla::cpu::RunRoutine("copy", [&] { Copy(in, in_descriptor, out, out_descriptor); });
}
