// __xla_cpu_topk: along the last dimension, the k largest (or smallest) values and their
// indices, as XLA decomposes topk: a stable sort with a total-order comparator, so floats
// order as -NaN < -inf < ... < -0 < +0 < ... < inf < NaN and equal values keep increasing
// index order (the interpreter's semantics, backends/interpreter/ops_reduction_sort.cc).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "hlo/primitive_util.h"

namespace {

// A signed key whose order is the total order of the element at `p` of type `type`.
int64_t OrderKey(const void* p, xla::PrimitiveType type, int64_t bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes);
  if (type == xla::PRED) return bits != 0;
  if (xla::primitive_util::IsSignedIntegralType(type)) {
    const int unused = 64 - 8 * static_cast<int>(bytes);  // stored sign-extended to its bytes
    return static_cast<int64_t>(bits << unused) >> unused;
  }
  if (xla::primitive_util::IsUnsignedIntegralType(type)) return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  if (type == xla::F8E8M0FNU) return static_cast<int64_t>(bits & 0xFF);  // unsigned exponents
  const int width = xla::primitive_util::BitWidth(type);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude - 1 : magnitude;  // -0 just below +0
}

}  // namespace

static void Topk(void* in, const int64_t* in_descriptor, void* values, const int64_t* values_descriptor,
                 void* indices, const int64_t* indices_descriptor, int64_t k, int64_t largest) {
  const xla::cpu::StridedArray input(in, in_descriptor), top(values, values_descriptor),
      index(indices, indices_descriptor);
  const int64_t rank = input.rank();
  const int64_t length = input.dim(rank - 1);
  if (k <= 0 || length <= 0) return;
  const auto type = static_cast<xla::PrimitiveType>(input.type());
  const int64_t bytes = input.element_bytes();
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= input.dim(d);
  std::vector<int64_t> row(rank - 1, 0), keys(length), order(length);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t in_base = 0, top_base = 0, index_base = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      in_base += row[d] * input.stride(d);
      top_base += row[d] * top.stride(d);
      index_base += row[d] * index.stride(d);
    }
    const int64_t in_step = input.stride(rank - 1);
    for (int64_t j = 0; j < length; ++j) keys[j] = OrderKey(input.address(in_base + j * in_step), type, bytes);
    std::iota(order.begin(), order.end(), 0);
    if (largest != 0) {
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] > keys[b]; });
    } else {
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    }
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(top.address(top_base + j * top.stride(rank - 1)), input.address(in_base + order[j] * in_step), bytes);
      index.StoreBits(index_base + j * index.stride(rank - 1), static_cast<uint64_t>(order[j]));
    }
    for (int64_t d = rank - 2; d >= 0; --d) {  // next row, row-major
      if (++row[d] < input.dim(d)) break;
      row[d] = 0;
    }
  }
}

extern "C" void __xla_cpu_topk(void* in, const int64_t* in_descriptor, void* values, const int64_t* values_descriptor,
                               void* indices, const int64_t* indices_descriptor, int64_t k, int64_t largest) {
  xla::cpu::RunRoutine("topk",
                       [&] { Topk(in, in_descriptor, values, values_descriptor, indices, indices_descriptor, k, largest); });
}
