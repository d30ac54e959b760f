// Random numbers: rng, rng-bit-generator, rng-get-and-update-state.
//
// rng-bit-generator is bit-exact with XLA (see ops_rng_bits.h): RNG_THREE_FRY and
// RNG_PHILOX, and RNG_DEFAULT as Philox, which is what XLA's CPU and GPU compilers pick
// (RngBitGeneratorExpander(RNG_PHILOX)).
//
// rng's bits are backend-defined in XLA. Ours: the values XLA's RngExpander would compute
// (Philox bits, prng.cc's uniform/normal conversions) with
//   key   = SplitMix64(seed ^ SplitMix64(FNV-1a-64(instruction name))) ^ draw_mix
//   state = (0, 0)
// where seed is the execution's rng seed (ExecuteOptions::rng_seed, else 42) and draw_mix
// is 0 for the execution's first rng draw and SplitMix64(n) for its n-th. So an rng gives
// the same values on every run with the same seed, two rng instructions of a module
// differ, and an rng inside a while body gets fresh values on every iteration. F16, BF16 and the F8/F4 types are
// computed in F32 and rounded once, as XLA does for F16/BF16; the narrow integer types,
// which XLA rejects, are computed in 32 bits (the result lies in [a, b) either way).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_rng_bits.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using Operands = absl::Span<const Literal* const>;

// Elements generated per step: bounds the scratch memory.
constexpr int64_t kChunk = 4096;

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t Fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string TypeName(PrimitiveType type) {
  return absl::AsciiStrToLower(PrimitiveType_Name(type));
}

// ---- rng-bit-generator ----

absl::StatusOr<Literal> RngBitGenerator(EvalContext&, const HloInstruction& instruction,
                                        Operands operands) {
  const Literal& state = *operands[0];
  const Shape& state_shape = state.shape();
  if (!state_shape.IsArray() || state_shape.element_type() != U64 || state_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the state must be u64[2] or u64[3], got ", state_shape.ToString()));
  }
  const Shape& shape = instruction.shape();
  const bool with_state = shape.IsTuple();
  if (with_state && shape.tuple_shapes_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("the result must be (state, bits), got ", shape.ToString()));
  }
  const Shape& bits_shape = with_state ? shape.tuple_shapes(1) : shape;
  const PrimitiveType type = bits_shape.element_type();
  if (!bits_shape.IsArray() || !primitive_util::IsIntegralType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the generated bits must be an integral array, got ", bits_shape.ToString()));
  }
  const int bit_width = primitive_util::BitWidth(type);
  const int64_t state_size = state_shape.dimensions(0);
  RandomAlgorithm algorithm = instruction.attrs().rng_algorithm();
  if (algorithm == RNG_DEFAULT) algorithm = RNG_PHILOX;
  const std::vector<int64_t>& dims = bits_shape.dimensions();
  const int64_t count = ShapeUtil::ElementsIn(bits_shape);
  const uint64_t key = state.GetAsUint64(0);
  ASSIGN_OR_RETURN(Literal new_state, Literal::Create(ShapeUtil::MakeShape(U64, {state_size})));
  new_state.SetFromUint64(0, key);
  // Fills words for elements [begin, begin + out.size()).
  std::function<void(int64_t, absl::Span<uint64_t>)> generate;
  if (algorithm == RNG_THREE_FRY) {
    if (state_size != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("three-fry needs a u64[2] state, got ", state_shape.ToString()));
    }
    const uint64_t counter = state.GetAsUint64(1);
    generate = [&, counter](int64_t begin, absl::Span<uint64_t> out) {
      rng::ThreeFryBits(key, counter, dims, bit_width, begin, out);
    };
    new_state.SetFromUint64(1, rng::ThreeFryNewCounter(counter, dims, bit_width));
  } else if (algorithm == RNG_PHILOX) {
    if (state_size != 2 && state_size != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("philox needs a u64[2] or u64[3] state, got ", state_shape.ToString()));
    }
    // XLA's counter: (state[1], state[2]), or (state[1], state[0]) for a u64[2] state, of
    // which only the low word is written back.
    const uint64_t low = state.GetAsUint64(1);
    const uint64_t high = state.GetAsUint64(state_size == 3 ? 2 : 0);
    generate = [&, low, high](int64_t begin, absl::Span<uint64_t> out) {
      rng::PhiloxBits(key, low, high, bit_width, begin, out);
    };
    uint64_t new_low = 0, new_high = 0;
    rng::PhiloxNewCounter(low, high, count, bit_width, &new_low, &new_high);
    new_state.SetFromUint64(1, new_low);
    if (state_size == 3) new_state.SetFromUint64(2, new_high);
  } else {
    return absl::UnimplementedError(
        absl::StrCat("rng algorithm ", RandomAlgorithm_Name(algorithm), " is not supported"));
  }
  ASSIGN_OR_RETURN(Literal bits, Literal::Create(ShapeUtil::MakeShape(type, dims)));
  // In chunks, so memory stays that of the result. Narrower types keep the low bits of
  // each 32-bit word (XLA converts u32 -> uN).
  std::vector<uint64_t> words(static_cast<size_t>(std::min<int64_t>(count, kChunk)));
  char* data = static_cast<char*>(bits.untyped_data());
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min<int64_t>(kChunk, count - begin);
    absl::Span<uint64_t> chunk(words.data(), static_cast<size_t>(n));
    generate(begin, chunk);
    if (type == U32 || type == S32) {
      for (int64_t k = 0; k < n; ++k) {
        const uint32_t w = static_cast<uint32_t>(chunk[k]);
        std::memcpy(data + 4 * (begin + k), &w, 4);
      }
    } else if (type == U64 || type == S64) {
      std::memcpy(data + 8 * begin, chunk.data(), 8 * n);
    } else {
      for (int64_t k = 0; k < n; ++k) bits.SetFromUint64(begin + k, chunk[k]);
    }
  }
  if (!with_state) return bits;
  std::vector<Literal> elements;
  elements.push_back(std::move(new_state));
  elements.push_back(std::move(bits));
  return Literal::MakeTuple(std::move(elements));
}

// ---- rng ----

// Stores a value computed in float (or double) into element i, rounding once.
template <typename F>
inline void StoreFloat(Literal* result, PrimitiveType type, int64_t i, F value) {
  if (type == F32 && std::is_same<F, float>::value) {
    result->data<float>()[i] = static_cast<float>(value);
  } else if (type == F64 && std::is_same<F, double>::value) {
    result->data<double>()[i] = static_cast<double>(value);
  } else {
    result->SetFromDouble(i, static_cast<double>(value));
  }
}

// prng.cc's ConvertRandomBitsToUniformFloatingPoint for [0, 1): the top mantissa-width
// bits of each Philox word, scaled; elements [begin, begin + out.size()).
template <typename F>
void UnitUniform(uint64_t key, int64_t begin, absl::Span<F> out, std::vector<uint64_t>* words) {
  constexpr int kWidth = sizeof(F) * 8;
  constexpr int kMantissa = std::is_same<F, float>::value ? 23 : 52;
  words->resize(out.size());
  rng::PhiloxBits(key, 0, 0, kWidth, begin, absl::MakeSpan(*words));
  const F scale = static_cast<F>(std::ldexp(1.0, -kMantissa));
  for (size_t k = 0; k < out.size(); ++k) {
    out[k] = static_cast<F>((*words)[k] >> (kWidth - kMantissa)) * scale;
  }
}

template <typename F>
void FillUniform(Literal* result, uint64_t key, F a, F b) {
  const PrimitiveType type = result->shape().element_type();
  const int64_t count = result->element_count();
  const F range = b - a;
  std::vector<uint64_t> words;
  std::vector<F> unit(static_cast<size_t>(std::min<int64_t>(count, kChunk)));
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min<int64_t>(kChunk, count - begin);
    absl::Span<F> chunk(unit.data(), static_cast<size_t>(n));
    UnitUniform<F>(key, begin, chunk, &words);
    for (int64_t k = 0; k < n; ++k) {
      const F scaled = chunk[k] * range;  // two roundings, as XLA's multiply then add
      StoreFloat<F>(result, type, begin + k, scaled + a);
    }
  }
}

// prng.cc's NormalFloatingPointDistribution: uniform values over the shape split in
// halves ([.., half_extent, 2, ..] in row-major order), Box-Muller on each pair, then
// mu + sigma * z.
template <typename F>
void FillNormal(Literal* result, uint64_t key, F mu, F sigma) {
  const PrimitiveType type = result->shape().element_type();
  const rng::HalfSplit split = rng::SplitIntoHalves(result->shape().dimensions());
  const int64_t count = result->element_count();
  const F two_pi = static_cast<F>(2.0 * M_PI);
  std::vector<uint64_t> words;
  F x[1];
  for (int64_t i = 0; i < count; ++i) {
    int64_t half;
    int which;
    split.Locate(i, &half, &which);
    const int64_t in = half % split.inner;
    const int64_t pair = half / split.inner;  // (outer, s / 2)
    UnitUniform<F>(key, (pair * 2 + 0) * split.inner + in, absl::MakeSpan(x, 1), &words);
    const F x0 = x[0];
    UnitUniform<F>(key, (pair * 2 + 1) * split.inner + in, absl::MakeSpan(x, 1), &words);
    const F x1 = x[0];
    const F u1 = std::max(x0, static_cast<F>(1.0e-7f));
    const F v1 = two_pi * x1;
    const F u2 = std::sqrt(static_cast<F>(-2) * std::log(u1));
    const F z = (which == 0 ? std::sin(v1) : std::cos(v1)) * u2;
    const F scaled = sigma * z;
    StoreFloat<F>(result, type, i, mu + scaled);
  }
}

template <typename F>
void FillFloat(Literal* result, RandomDistribution distribution, uint64_t key, double a, double b) {
  if (distribution == RNG_NORMAL) {
    FillNormal<F>(result, key, static_cast<F>(a), static_cast<F>(b));
  } else {
    FillUniform<F>(result, key, static_cast<F>(a), static_cast<F>(b));
  }
}

// prng.cc's ConvertRandomBitsToUniformInt: a + (bits mod (b - a)) computed in the
// unsigned type of the word width (x mod 0 = x, as XLA's remainder defines it).
template <typename U>
void FillInt(Literal* result, uint64_t key, uint64_t a_bits, uint64_t b_bits) {
  const int64_t count = result->element_count();
  const U a = static_cast<U>(a_bits);
  const U range = static_cast<U>(static_cast<U>(b_bits) - a);
  std::vector<uint64_t> words(static_cast<size_t>(std::min<int64_t>(count, kChunk)));
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t n = std::min<int64_t>(kChunk, count - begin);
    rng::PhiloxBits(key, 0, 0, sizeof(U) * 8, begin, absl::MakeSpan(words.data(), n));
    for (int64_t k = 0; k < n; ++k) {
      const U bits = static_cast<U>(words[k]);
      const U dist = range == 0 ? bits : static_cast<U>(bits % range);
      const U half = static_cast<U>(dist >> 1);
      result->SetFromUint64(begin + k, static_cast<U>(a + half + static_cast<U>(dist - half)));
    }
  }
}

absl::StatusOr<Literal> Rng(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  if (operands.size() != 2) return absl::InvalidArgumentError("rng takes two operands");
  const Shape& shape = instruction.shape();
  if (!shape.IsArray()) return absl::InvalidArgumentError("rng must produce an array");
  const PrimitiveType type = shape.element_type();
  const RandomDistribution distribution = instruction.attrs().distribution();
  const uint64_t draw = ctx.evaluator->NextRngDraw();
  const uint64_t key = SplitMix64(ctx.evaluator->rng_seed() ^ SplitMix64(Fnv1a64(instruction.name()))) ^
                       (draw == 0 ? 0 : SplitMix64(draw));
  ASSIGN_OR_RETURN(Literal result, Literal::Create(ShapeUtil::MakeShape(type, shape.dimensions())));
  if (distribution != RNG_UNIFORM && distribution != RNG_NORMAL) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported distribution ",
                                                   RandomDistribution_Name(distribution)));
  }
  if (primitive_util::IsFloatingPointType(type)) {
    const double a = operands[0]->GetAsDouble(0);
    const double b = operands[1]->GetAsDouble(0);
    if (type == F64) {
      FillFloat<double>(&result, distribution, key, a, b);
    } else {
      FillFloat<float>(&result, distribution, key, a, b);
    }
    return result;
  }
  if (distribution == RNG_NORMAL) {
    return absl::InvalidArgumentError(
        absl::StrCat("the normal distribution needs a floating-point type, got ", TypeName(type)));
  }
  if (!primitive_util::IsIntegralType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the uniform distribution needs an integral or floating-point type, got ",
                     TypeName(type)));
  }
  // Signed bounds are sign-extended, so a + dist wraps back into [a, b) when truncated.
  const uint64_t a = primitive_util::IsSignedIntegralType(type)
                         ? static_cast<uint64_t>(operands[0]->GetAsInt64(0))
                         : operands[0]->GetAsUint64(0);
  const uint64_t b = primitive_util::IsSignedIntegralType(type)
                         ? static_cast<uint64_t>(operands[1]->GetAsInt64(0))
                         : operands[1]->GetAsUint64(0);
  if (primitive_util::BitWidth(type) == 64) {
    FillInt<uint64_t>(&result, key, a, b);
  } else {
    FillInt<uint32_t>(&result, key, a, b);
  }
  return result;
}

// ---- rng-get-and-update-state ----

// u64[2] {state, 0}: XLA's 128-bit state as (low, high) words; the device keeps 64 bits.
absl::StatusOr<Literal> RngGetAndUpdateState(EvalContext& ctx, const HloInstruction& instruction,
                                             Operands) {
  const int64_t delta = instruction.attrs().delta();
  const uint64_t state = ctx.device->GetAndUpdateRngState(delta);
  ASSIGN_OR_RETURN(Literal result, Literal::Create(ShapeUtil::MakeShape(U64, {2})));
  result.SetFromUint64(0, state);
  result.SetFromUint64(1, 0);
  return result;
}

}  // namespace

void RegisterRngHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kRng, Rng);
  table->Register(HloOpcode::kRngBitGenerator, RngBitGenerator);
  table->Register(HloOpcode::kRngGetAndUpdateState, RngGetAndUpdateState);
}

}  // namespace interpreter
}  // namespace xla
