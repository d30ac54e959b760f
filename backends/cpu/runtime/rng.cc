// __xla_cpu_rng and __xla_cpu_rng_get_and_update_state: the rng op family's values as the
// interpreter defines them (backends/interpreter/ops_rng.cc states the scheme): Philox bits
// under the key
//   SplitMix64(seed ^ SplitMix64(FNV-1a-64(instruction name))) ^ (n == 0 ? 0 : SplitMix64(n))
// for the execution's n-th rng draw, turned into values as XLA's RngExpander does (uniform:
// mantissa bits scaled, times (b - a), plus a; normal: Box-Muller on pairs of the halved
// shape; integers: a + bits mod (b - a)). Floats narrower than f32 compute in f32 and round
// once. Same arithmetic in the same order, so bit-exact with the interpreter.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "backends/interpreter/device_state.h"
#include "backends/interpreter/ops_rng_bits.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace cpu {
namespace {

namespace rng = interpreter::rng;

constexpr int64_t kChunk = 4096;

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A scalar integer operand as 64 bits, sign-extended when signed.
uint64_t ReadInteger(const void* p, PrimitiveType type) {
  const int bytes = primitive_util::ByteWidth(type);
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes);
  if (primitive_util::IsSignedIntegralType(type) && bytes < 8) {
    const int unused = 64 - 8 * bytes;
    bits = static_cast<uint64_t>(static_cast<int64_t>(bits << unused) >> unused);
  }
  return bits;
}

// [0, 1) from the top mantissa bits of each Philox word of F's width.
template <typename F>
void UnitUniform(uint64_t key, int64_t begin, absl::Span<F> out, std::vector<uint64_t>& words) {
  constexpr int kWidth = sizeof(F) * 8;
  constexpr int kMantissa = std::is_same_v<F, float> ? 23 : 52;
  words.resize(out.size());
  rng::PhiloxBits(key, 0, 0, kWidth, begin, absl::MakeSpan(words));
  const F scale = static_cast<F>(std::ldexp(1.0, -kMantissa));
  for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<F>(words[k] >> (kWidth - kMantissa)) * scale;
}

template <typename F>
void Uniform(const StridedArray& out, const std::vector<int64_t>& offsets, uint64_t key, F a, F b) {
  const int64_t count = static_cast<int64_t>(offsets.size());
  const F range = b - a;
  std::vector<uint64_t> words;
  std::vector<F> unit(static_cast<size_t>(std::min(count, kChunk)));
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min(kChunk, count - begin);
    absl::Span<F> chunk(unit.data(), static_cast<size_t>(n));
    UnitUniform<F>(key, begin, chunk, words);
    for (int64_t k = 0; k < n; ++k) {
      const F scaled = chunk[k] * range;  // rounded, then the add rounds again (as XLA)
      out.Store(offsets[begin + k], static_cast<double>(static_cast<F>(scaled + a)));
    }
  }
}

template <typename F>
void Normal(const StridedArray& out, const std::vector<int64_t>& offsets, uint64_t key, F mu, F sigma) {
  const rng::HalfSplit split = rng::SplitIntoHalves(out.dims());
  const F two_pi = static_cast<F>(2.0 * M_PI);
  std::vector<uint64_t> words;
  F x[1];
  for (int64_t i = 0; i < static_cast<int64_t>(offsets.size()); ++i) {
    int64_t half;
    int which;
    split.Locate(i, &half, &which);
    const int64_t in = half % split.inner;
    const int64_t pair = half / split.inner;
    UnitUniform<F>(key, (pair * 2) * split.inner + in, absl::MakeSpan(x, 1), words);
    const F x0 = x[0];
    UnitUniform<F>(key, (pair * 2 + 1) * split.inner + in, absl::MakeSpan(x, 1), words);
    const F x1 = x[0];
    const F u1 = std::max(x0, static_cast<F>(1.0e-7f));
    const F v1 = two_pi * x1;
    const F u2 = std::sqrt(static_cast<F>(-2) * std::log(u1));
    const F z = (which == 0 ? std::sin(v1) : std::cos(v1)) * u2;
    const F scaled = sigma * z;
    out.Store(offsets[i], static_cast<double>(static_cast<F>(mu + scaled)));
  }
}

template <typename U>
void UniformInteger(const StridedArray& out, const std::vector<int64_t>& offsets, uint64_t key, uint64_t a_bits,
                    uint64_t b_bits) {
  const int64_t count = static_cast<int64_t>(offsets.size());
  const U a = static_cast<U>(a_bits);
  const U range = static_cast<U>(static_cast<U>(b_bits) - a);
  std::vector<uint64_t> words(static_cast<size_t>(std::min(count, kChunk)));
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min(kChunk, count - begin);
    rng::PhiloxBits(key, 0, 0, sizeof(U) * 8, begin, absl::MakeSpan(words.data(), static_cast<size_t>(n)));
    for (int64_t k = 0; k < n; ++k) {
      const U bits = static_cast<U>(words[k]);
      const U dist = range == 0 ? bits : static_cast<U>(bits % range);  // x mod 0 = x, as XLA
      const U half = static_cast<U>(dist >> 1);
      out.StoreBits(offsets[begin + k], static_cast<U>(a + half + static_cast<U>(dist - half)));
    }
  }
}

}  // namespace

uint64_t RngNameMix(const std::string& name) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a-64
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return SplitMix64(hash);
}

}  // namespace cpu
}  // namespace xla

static void Rng(void* run_context, uint64_t name_mix, int64_t distribution, const void* a, const void* b,
                void* out, const int64_t* out_descriptor) {
  using namespace xla::cpu;  // NOLINT: this file's helpers
  auto* context = static_cast<RunContext*>(run_context);
  const uint64_t draw = context->rng_draws++;
  const uint64_t key = SplitMix64(context->rng_seed ^ name_mix) ^ (draw == 0 ? 0 : SplitMix64(draw));
  const StridedArray result(out, out_descriptor);
  const auto type = static_cast<xla::PrimitiveType>(result.type());
  const std::vector<int64_t> offsets = result.RowMajorOffsets();
  if (xla::primitive_util::IsFloatingPointType(type)) {
    // The bounds have the result's type: read them through a one-element view of it.
    const int64_t scalar[2] = {result.type(), 0};
    const double lo = StridedArray(const_cast<void*>(a), scalar).Load(0).real();
    const double hi = StridedArray(const_cast<void*>(b), scalar).Load(0).real();
    const bool normal = distribution == xla::RNG_NORMAL;
    if (type == xla::F64) {
      normal ? Normal<double>(result, offsets, key, lo, hi) : Uniform<double>(result, offsets, key, lo, hi);
    } else {
      normal ? Normal<float>(result, offsets, key, static_cast<float>(lo), static_cast<float>(hi))
             : Uniform<float>(result, offsets, key, static_cast<float>(lo), static_cast<float>(hi));
    }
    return;
  }
  const uint64_t lo = ReadInteger(a, type), hi = ReadInteger(b, type);
  if (xla::primitive_util::BitWidth(type) == 64) {
    UniformInteger<uint64_t>(result, offsets, key, lo, hi);
  } else {
    UniformInteger<uint32_t>(result, offsets, key, lo, hi);
  }
}

extern "C" void __xla_cpu_rng(void* run_context, uint64_t name_mix, int64_t distribution, const void* a, const void* b,
                              void* out, const int64_t* out_descriptor) {
  xla::cpu::RunRoutine("rng", [&] { Rng(run_context, name_mix, distribution, a, b, out, out_descriptor); });
}

extern "C" void __xla_cpu_rng_get_and_update_state(void* run_context, int64_t delta, uint64_t* out) {
  auto* context = static_cast<xla::cpu::RunContext*>(run_context);
  out[0] = context->device->GetAndUpdateRngState(delta);
  out[1] = 0;
}
