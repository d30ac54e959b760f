#ifndef XLA_BACKENDS_INTERPRETER_OPS_RNG_BITS_H_
#define XLA_BACKENDS_INTERPRETER_OPS_RNG_BITS_H_

// Counter-based bit generators of the rng op family, matching XLA bit for bit.
//
// XLA lowers rng-bit-generator with RngBitGeneratorExpander into the XlaBuilder code of
// xla/hlo/builder/lib/prng.cc; these functions compute the same words directly:
//  - Threefry2x32 with 20 rounds and Philox4x32 with 10 rounds (Salmon et al., SC'11,
//    "Parallel random numbers: as easy as 1, 2, 3"; checked against Random123's
//    known-answer vectors in ops_rng_test.cc);
//  - how XLA turns a u64 key and a u64/u128 counter into one word per element of a shape
//    (ThreeFryBits, PhiloxBits below).

#include <array>
#include <cstdint>

#include "absl/types/span.h"

namespace xla {
namespace interpreter {
namespace rng {

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// How XLA's SplitShapeIntoHalves pairs the elements of a shape: the split dimension
// (the first even dimension, else the first largest one) of extent `extent` is viewed as
// [ceil(extent / 2), 2], so logical element (outer, s, inner) is half element
// (outer, s / 2, inner) and picks half number s % 2. A scalar is one pair whose first
// half is used.
struct HalfSplit {
  int64_t outer = 1;   // product of the dimensions before the split one
  int64_t extent = 1;  // the split dimension
  int64_t inner = 1;   // product of the dimensions after it
  int64_t half_extent() const { return (extent + 1) / 2; }
  int64_t half_count() const { return outer * half_extent() * inner; }
  // For a row-major linear index of the shape: the half element and which half (0/1).
  void Locate(int64_t linear, int64_t* half_index, int* which) const {
    const int64_t in = linear % inner;
    const int64_t s = (linear / inner) % extent;
    const int64_t out = linear / (inner * extent);
    *half_index = (out * half_extent() + s / 2) * inner + in;
    *which = static_cast<int>(s % 2);
  }
};
HalfSplit SplitIntoHalves(absl::Span<const int64_t> dims);

// rng-bit-generator with RNG_THREE_FRY: key = state[0], counter = state[1]. Writes to
// out[k] the value of element begin + k (row-major) of an array of `dims`: a 32-bit word
// for bit widths <= 32 (narrower types keep its low bits), a 64-bit word for 64. Elements
// are independent, so callers may generate in chunks.
void ThreeFryBits(uint64_t key, uint64_t counter, absl::Span<const int64_t> dims, int bit_width,
                  int64_t begin, absl::Span<uint64_t> out);
// The counter XLA writes back into state[1] after ThreeFryBits over all of `dims`.
uint64_t ThreeFryNewCounter(uint64_t counter, absl::Span<const int64_t> dims, int bit_width);

// rng-bit-generator with RNG_PHILOX (and RNG_DEFAULT, which XLA's CPU and GPU compilers
// expand as Philox): a 128-bit counter (low, high) incremented once per 4 words; same
// output convention as ThreeFryBits. For a u64[3] state, key = state[0], counter =
// (state[1], state[2]); for a u64[2] state XLA takes counter = (state[1], state[0]).
void PhiloxBits(uint64_t key, uint64_t counter_low, uint64_t counter_high, int bit_width,
                int64_t begin, absl::Span<uint64_t> out);
// The counter after PhiloxBits over `count` elements.
void PhiloxNewCounter(uint64_t counter_low, uint64_t counter_high, int64_t count, int bit_width,
                      uint64_t* new_low, uint64_t* new_high);

}  // namespace rng
}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_OPS_RNG_BITS_H_
