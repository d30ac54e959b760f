// __xla_cpu_rng_bit_generator: rng-bit-generator's bits and new state. The words come from
// the counter-based generators in backends/interpreter/ops_rng_bits.h: pure functions
// (Threefry2x32, Philox4x32 and XLA's mapping of key and counter to elements), shared so
// that there is one definition of "XLA's bits", checked there against published vectors.
// Elements narrower than a word keep its low bits (sub-byte types one per byte, signed ones
// sign-extended, as literals store them).
#include <algorithm>
#include <vector>

#include "absl/types/span.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "backends/interpreter/ops_rng_bits.h"
#include "hlo/primitive_util.h"

namespace {

constexpr int64_t kChunk = 4096;

}  // namespace

static void RngBitGenerator(const uint64_t* state, int64_t state_size, int64_t algorithm, void* bits,
                            const int64_t* bits_descriptor, uint64_t* new_state) {
  namespace rng = xla::interpreter::rng;
  const xla::cpu::StridedArray out(bits, bits_descriptor);
  const auto type = static_cast<xla::PrimitiveType>(out.type());
  const int bit_width = xla::primitive_util::BitWidth(type);
  const std::vector<int64_t> dims = out.dims();
  const int64_t count = out.element_count();
  // Everything is read before anything is written: the outputs may reuse the state's buffer.
  const uint64_t key = state[0];
  const uint64_t counter = state[1];
  const uint64_t high = state_size == 3 ? state[2] : state[0];
  const std::vector<int64_t> offsets = out.RowMajorOffsets();
  std::vector<uint64_t> words(static_cast<size_t>(std::min(count, kChunk)));
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min(kChunk, count - begin);
    absl::Span<uint64_t> chunk(words.data(), static_cast<size_t>(n));
    if (algorithm == 1) {
      rng::ThreeFryBits(key, counter, dims, bit_width, begin, chunk);
    } else {
      rng::PhiloxBits(key, counter, high, bit_width, begin, chunk);
    }
    for (int64_t k = 0; k < n; ++k) out.StoreBits(offsets[begin + k], chunk[k]);
  }
  if (new_state == nullptr) return;
  new_state[0] = key;
  if (algorithm == 1) {
    new_state[1] = rng::ThreeFryNewCounter(counter, dims, bit_width);
    return;
  }
  uint64_t new_low = 0, new_high = 0;
  rng::PhiloxNewCounter(counter, high, count, bit_width, &new_low, &new_high);
  new_state[1] = new_low;
  if (state_size == 3) new_state[2] = new_high;
}

extern "C" void __xla_cpu_rng_bit_generator(const uint64_t* state, int64_t state_size, int64_t algorithm, void* bits,
                                            const int64_t* bits_descriptor, uint64_t* new_state) {
  xla::cpu::RunRoutine("rng-bit-generator",
                       [&] { RngBitGenerator(state, state_size, algorithm, bits, bits_descriptor, new_state); });
}
