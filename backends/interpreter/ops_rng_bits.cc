#include "backends/interpreter/ops_rng_bits.h"

namespace xla {
namespace interpreter {
namespace rng {
namespace {

inline uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

inline uint32_t Low32(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t High32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
inline uint64_t Join(uint32_t low, uint32_t high) {
  return static_cast<uint64_t>(low) | (static_cast<uint64_t>(high) << 32);
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  // The key schedule: two key words and their parity with the Threefish constant.
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  // 20 rounds = 5 groups of 4; a key injection follows each group.
  for (int group = 0; group < 5; ++group) {
    const int* rotations = kRotations + (group % 2) * 4;
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = RotateLeft(x1, rotations[r]);
      x1 ^= x0;
    }
    const int injection = group + 1;
    x0 += ks[injection % 3];
    x1 += ks[(injection + 1) % 3] + static_cast<uint32_t>(injection);
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
  constexpr uint32_t kW32A = 0x9E3779B9u;
  constexpr uint32_t kW32B = 0xBB67AE85u;
  constexpr uint64_t kM4x32A = 0xD2511F53u;
  constexpr uint64_t kM4x32B = 0xCD9E8D57u;
  std::array<uint32_t, 4> x = counter;
  uint32_t k0 = key[0];
  uint32_t k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kM4x32A * x[0];
    const uint64_t p1 = kM4x32B * x[2];
    x = {High32(p1) ^ x[1] ^ k0, Low32(p1), High32(p0) ^ x[3] ^ k1, Low32(p0)};
    k0 += kW32A;
    k1 += kW32B;
  }
  return x;
}

HalfSplit SplitIntoHalves(absl::Span<const int64_t> dims) {
  HalfSplit split;
  if (dims.empty()) return split;  // scalar: one pair
  int64_t dim = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) {
      dim = static_cast<int64_t>(i);
      break;
    }
  }
  if (dim < 0) {
    dim = 0;
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] > dims[dim]) dim = static_cast<int64_t>(i);
    }
  }
  for (int64_t i = 0; i < dim; ++i) split.outer *= dims[i];
  split.extent = dims[dim];
  for (size_t i = dim + 1; i < dims.size(); ++i) split.inner *= dims[i];
  return split;
}

void ThreeFryBits(uint64_t key, uint64_t counter, absl::Span<const int64_t> dims, int bit_width,
                  int64_t begin, absl::Span<uint64_t> out) {
  const std::array<uint32_t, 2> key32 = {Low32(key), High32(key)};
  const int64_t n = static_cast<int64_t>(out.size());
  if (bit_width == 64) {
    // One block per element: its counter is state + the row-major index; the two words
    // form the value, first word low.
    for (int64_t k = 0; k < n; ++k) {
      const uint64_t c = counter + static_cast<uint64_t>(begin + k);
      const auto words = Threefry2x32({Low32(c), High32(c)}, key32);
      out[k] = Join(words[0], words[1]);
    }
    return;
  }
  // 32 bits and narrower: one block per pair of elements (see HalfSplit); the counter is
  // state + the row-major index in the half shape.
  const HalfSplit split = SplitIntoHalves(dims);
  for (int64_t k = 0; k < n; ++k) {
    int64_t half;
    int which;
    split.Locate(begin + k, &half, &which);
    const uint64_t c = counter + static_cast<uint64_t>(half);
    out[k] = Threefry2x32({Low32(c), High32(c)}, key32)[which];
  }
}

uint64_t ThreeFryNewCounter(uint64_t counter, absl::Span<const int64_t> dims, int bit_width) {
  if (bit_width == 64) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return counter + static_cast<uint64_t>(count);
  }
  return counter + static_cast<uint64_t>(SplitIntoHalves(dims).half_count());
}

namespace {

// Block j of Philox: counter + j as a 128-bit add.
std::array<uint32_t, 4> PhiloxBlock(uint64_t key, uint64_t low, uint64_t high, int64_t j) {
  const uint64_t l = low + static_cast<uint64_t>(j);
  const uint64_t h = high + (l < low ? 1 : 0);
  return Philox4x32({Low32(l), High32(l), Low32(h), High32(h)}, {Low32(key), High32(key)});
}

}  // namespace

void PhiloxBits(uint64_t key, uint64_t counter_low, uint64_t counter_high, int bit_width,
                int64_t begin, absl::Span<uint64_t> out) {
  // Each block yields 4 words; 32-bit elements take them in order (element 4j + k is word
  // k), 64-bit elements take word pairs (0,1), (2,3), first word low.
  const int per_block = bit_width == 64 ? 2 : 4;
  const int64_t n = static_cast<int64_t>(out.size());
  int64_t current = -1;
  std::array<uint32_t, 4> words{};
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = begin + k;
    const int64_t j = i / per_block;
    if (j != current) {
      words = PhiloxBlock(key, counter_low, counter_high, j);
      current = j;
    }
    const int w = static_cast<int>(i % per_block);
    out[k] = per_block == 4 ? words[w] : Join(words[2 * w], words[2 * w + 1]);
  }
}

void PhiloxNewCounter(uint64_t counter_low, uint64_t counter_high, int64_t count, int bit_width,
                      uint64_t* new_low, uint64_t* new_high) {
  const int per_block = bit_width == 64 ? 2 : 4;
  const int64_t blocks = (count + per_block - 1) / per_block;
  *new_low = counter_low + static_cast<uint64_t>(blocks);
  *new_high = counter_high + (*new_low < counter_low ? 1 : 0);
}

}  // namespace rng
}  // namespace interpreter
}  // namespace xla
