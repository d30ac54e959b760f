// Known answers of the rng-bit-generator cores and of rng-bit-generator itself.
//
// The core functions are checked against Random123's published kat_vectors. The op's
// outputs are checked two ways: states chosen so that the counter words equal a
// Random123 vector (so the answer is the published one, independent of our code), and
// layouts derived by hand from xla/hlo/builder/lib/prng.cc and the core functions.
#include <array>

#include "backends/interpreter/ops_rng_bits.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using interpreter::rng::Philox4x32;
using interpreter::rng::Threefry2x32;
using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

TEST(RngCoreTest, Threefry2x32KnownAnswers) {
  // threefry2x32 20 rounds: counter, key -> output.
  EXPECT_EQ(Threefry2x32({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159u, 0x99ba4efeu}));
  EXPECT_EQ(Threefry2x32({0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (std::array<uint32_t, 2>{0x1cb996fcu, 0xbb002be7u}));
  EXPECT_EQ(Threefry2x32({0x243f6a88u, 0x85a308d3u}, {0x13198a2eu, 0x03707344u}),
            (std::array<uint32_t, 2>{0xc4923a9cu, 0x483df7a0u}));
}

TEST(RngCoreTest, Philox4x32KnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(Philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                       {0xffffffffu, 0xffffffffu}),
            (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(Philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                       {0xa4093822u, 0x299f31d0u}),
            (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

std::string BitGenHlo(const std::string& state, const std::string& bits, const std::string& algorithm) {
  return "HloModule m\nENTRY main {\n  s = " + state + " parameter(0)\n  ROOT r = (" + state + ", " +
         bits + ") rng-bit-generator(s), algorithm=" + algorithm + "\n}";
}

Literal U32s(std::vector<uint32_t> values, std::vector<int64_t> dims) {
  Literal out = Literal::Create(ShapeUtil::MakeShape(U32, dims)).value();
  for (size_t i = 0; i < values.size(); ++i) out.SetFromUint64(i, values[i]);
  return out;
}

Literal U64s(std::vector<uint64_t> values, std::vector<int64_t> dims) {
  Literal out = Literal::Create(ShapeUtil::MakeShape(U64, dims)).value();
  for (size_t i = 0; i < values.size(); ++i) out.SetFromUint64(i, values[i]);
  return out;
}

Literal Pair(Literal a, Literal b) {
  std::vector<Literal> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return Literal::MakeTuple(std::move(v));
}

// Counter words = a Random123 vector: the published outputs come out unchanged.
TEST(RngBitGeneratorTest, ThreeFryPublishedVector) {
  const Literal state = U64s({0x0370734413198a2eull, 0x85a308d3243f6a88ull}, {2});
  // Scalar u32: the first word of one block; the counter advances by 1.
  EXPECT_TRUE(LiteralEqual(Pair(U64s({0x0370734413198a2eull, 0x85a308d3243f6a89ull}, {2}),
                                U32s({0xc4923a9cu}, {})),
                           RunHlo(BitGenHlo("u64[2]", "u32[]", "rng_three_fry"), {state.Clone()})));
  // Scalar u64: both words, the first one low.
  EXPECT_TRUE(LiteralEqual(Pair(U64s({0x0370734413198a2eull, 0x85a308d3243f6a89ull}, {2}),
                                U64s({0x483df7a0c4923a9cull}, {})),
                           RunHlo(BitGenHlo("u64[2]", "u64[]", "rng_three_fry"), {state.Clone()})));
  // u32[2]: one block, its two words.
  EXPECT_TRUE(LiteralEqual(Pair(U64s({0x0370734413198a2eull, 0x85a308d3243f6a89ull}, {2}),
                                U32s({0xc4923a9cu, 0x483df7a0u}, {2})),
                           RunHlo(BitGenHlo("u64[2]", "u32[2]", "rng_three_fry"), {state.Clone()})));
}

TEST(RngBitGeneratorTest, PhiloxPublishedVector) {
  // u64[3] state: key = state[0], counter = (state[1], state[2]) as (low, high).
  const Literal state =
      U64s({0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull}, {3});
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({0x299f31d0a4093822ull, 0x85a308d3243f6a89ull, 0x0370734413198a2eull}, {3}),
           U32s({0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}, {2, 2})),
      RunHlo(BitGenHlo("u64[3]", "u32[2,2]", "rng_philox"), {state.Clone()})));
  // u64 elements: word pairs (0,1) and (2,3), first word low.
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({0x299f31d0a4093822ull, 0x85a308d3243f6a89ull, 0x0370734413198a2eull}, {3}),
           U64s({0x94fdccebd16cfe09ull, 0x24126ea15001e420ull}, {2})),
      RunHlo(BitGenHlo("u64[3]", "u64[2]", "rng_philox"), {state.Clone()})));
  // u64[2] state: XLA reverses it into the counter, so the high word is the key.
  const Literal state2 = U64s({0x0370734413198a2eull, 0x85a308d3243f6a88ull}, {2});
  const auto words = Philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                                {0x13198a2eu, 0x03707344u});
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({0x0370734413198a2eull, 0x85a308d3243f6a89ull}, {2}),
           U32s({words[0], words[1], words[2]}, {3})),
      RunHlo(BitGenHlo("u64[2]", "u32[3]", "rng_philox"), {state2.Clone()})));
}


// Layouts from prng.cc: 32-bit values pair up along the first even dimension (else the
// largest), each pair one Threefry block whose counter is state + the index in the
// half shape; the counter advances by the number of pairs.
TEST(RngBitGeneratorTest, ThreeFryLayouts) {
  auto block = [](uint64_t counter) {
    return Threefry2x32({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)},
                        {7, 0});
  };
  const Literal state = U64s({7, 100}, {2});
  // u32[3,2]: split dim 1 -> row r = block(100 + r).
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({7, 103}, {2}), U32s({block(100)[0], block(100)[1], block(101)[0], block(101)[1],
                                      block(102)[0], block(102)[1]},
                                     {3, 2})),
      RunHlo(BitGenHlo("u64[2]", "u32[3,2]", "rng_three_fry"), {state.Clone()})));
  // u32[2,3]: split dim 0 -> row 0 = first words of blocks 100..102, row 1 = second words.
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({7, 103}, {2}), U32s({block(100)[0], block(101)[0], block(102)[0], block(100)[1],
                                      block(101)[1], block(102)[1]},
                                     {2, 3})),
      RunHlo(BitGenHlo("u64[2]", "u32[2,3]", "rng_three_fry"), {state.Clone()})));
  // u32[3]: no even dimension: pairs (0,1), (2,-); the counter advances by 2.
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({7, 102}, {2}), U32s({block(100)[0], block(100)[1], block(101)[0]}, {3})),
      RunHlo(BitGenHlo("u64[2]", "u32[3]", "rng_three_fry"), {state.Clone()})));
  // u64[2,2]: one block per element, counter = state + row-major index.
  const uint64_t w0 = block(100)[0] | (uint64_t{block(100)[1]} << 32);
  const uint64_t w3 = block(103)[0] | (uint64_t{block(103)[1]} << 32);
  auto wide = RunHlo(BitGenHlo("u64[2]", "u64[2,2]", "rng_three_fry"), {state.Clone()});
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_EQ(wide->tuple_element(0), U64s({7, 104}, {2}));
  EXPECT_EQ(wide->tuple_element(1).GetAsUint64(0), w0);
  EXPECT_EQ(wide->tuple_element(1).GetAsUint64(3), w3);
  // Zero elements: nothing generated, the counter stays.
  EXPECT_TRUE(LiteralEqual(Pair(U64s({7, 100}, {2}), U32s({}, {0, 3})),
                           RunHlo(BitGenHlo("u64[2]", "u32[0,3]", "rng_three_fry"), {state.Clone()})));
}

// XLA's own output for state {0, 0}, u32[3,2], three-fry (printed by the r-xla/anvil
// documentation, run on PJRT CPU): 1.7973e9 2.5791e9 / 1.3515e9 3.2358e9 / 1.6886e9
// 4.2293e9, new state {0, 3}.
TEST(RngBitGeneratorTest, ThreeFryMatchesXlaCpuOutput) {
  auto result = RunHlo(BitGenHlo("u64[2]", "u32[3,2]", "rng_three_fry"), {U64s({0, 0}, {2})});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), U64s({0, 3}, {2}));
  const double xla[6] = {1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(static_cast<double>(result->tuple_element(1).GetAsUint64(i)), xla[i], 0.00006e9) << i;
  }
}

TEST(RngBitGeneratorTest, PhiloxLayoutsAndCarry) {
  const uint64_t key = 0x0123456789abcdefull;
  auto block = [&](uint64_t low, uint64_t high) {
    return Philox4x32({static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32),
                       static_cast<uint32_t>(high), static_cast<uint32_t>(high >> 32)},
                      {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
  };
  // The low counter word wraps: the second block carries into the high word.
  const Literal state = U64s({key, ~uint64_t{0}, 5}, {3});
  const auto b0 = block(~uint64_t{0}, 5);
  const auto b1 = block(0, 6);
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({key, 1, 6}, {3}), U32s({b0[0], b0[1], b0[2], b0[3], b1[0]}, {5})),
      RunHlo(BitGenHlo("u64[3]", "u32[5]", "rng_philox"), {state.Clone()})));
  // RNG_DEFAULT is Philox, as on XLA's CPU and GPU backends.
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({key, 1, 6}, {3}), U32s({b0[0], b0[1], b0[2], b0[3], b1[0]}, {5})),
      RunHlo(BitGenHlo("u64[3]", "u32[5]", "rng_default"), {state.Clone()})));
  // u64[3]: blocks of two elements.
  auto wide = RunHlo(BitGenHlo("u64[3]", "u64[3]", "rng_philox"), {state.Clone()});
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_EQ(wide->tuple_element(0), U64s({key, 1, 6}, {3}));
  EXPECT_EQ(wide->tuple_element(1).GetAsUint64(1), b0[2] | (uint64_t{b0[3]} << 32));
  EXPECT_EQ(wide->tuple_element(1).GetAsUint64(2), b1[0] | (uint64_t{b1[1]} << 32));
}

// Types narrower than 32 bits keep the low bits of the 32-bit words; signed types hold
// the same bits.
TEST(RngBitGeneratorTest, NarrowAndSignedTypes) {
  const Literal state = U64s({0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull}, {3});
  EXPECT_TRUE(LiteralEqual(
      L("u8[4] {9, 235, 32, 161}"),
      RunHlo("HloModule m\nENTRY main {\n s = u64[3] parameter(0)\n g = (u64[3], u8[4]) "
             "rng-bit-generator(s), algorithm=rng_philox\n ROOT b = u8[4] get-tuple-element(g), index=1\n}",
             {state.Clone()})));
  auto s16 = RunHlo(BitGenHlo("u64[3]", "s16[2,2]", "rng_philox"), {state.Clone()});
  ASSERT_TRUE(s16.ok()) << s16.status().message();
  EXPECT_EQ(s16->tuple_element(1), L("s16[2,2] { { -503, -13077 }, { -7136, 28321 } }"));
  auto u4 = RunHlo(BitGenHlo("u64[3]", "u4[4]", "rng_philox"), {state.Clone()});
  ASSERT_TRUE(u4.ok()) << u4.status().message();
  EXPECT_EQ(u4->tuple_element(1), L("u4[4] {9, 11, 0, 1}"));
  auto s32 = RunHlo(BitGenHlo("u64[3]", "s32[4]", "rng_philox"), {state.Clone()});
  ASSERT_TRUE(s32.ok()) << s32.status().message();
  EXPECT_EQ(s32->tuple_element(1).GetAsInt64(0), static_cast<int32_t>(0xd16cfe09u));
  // Non-default layout of the bits: same logical values.
  auto col = RunHlo(BitGenHlo("u64[3]", "u32[2,2]{0,1}", "rng_philox"), {state.Clone()});
  EXPECT_TRUE(LiteralEqual(
      Pair(U64s({0x299f31d0a4093822ull, 0x85a308d3243f6a89ull, 0x0370734413198a2eull}, {3}),
           U32s({0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}, {2, 2})),
      col));
}

// Past the generator's internal chunk size (4096 elements) the layout continues.
TEST(RngBitGeneratorTest, LargeArrays) {
  const uint64_t key = 99;
  auto philox = RunHlo(BitGenHlo("u64[3]", "u32[5000]", "rng_philox"), {U64s({key, 0, 0}, {3})});
  ASSERT_TRUE(philox.ok()) << philox.status().message();
  EXPECT_EQ(philox->tuple_element(0), U64s({key, 1250, 0}, {3}));
  EXPECT_EQ(philox->tuple_element(1).GetAsUint64(4097), Philox4x32({1024, 0, 0, 0}, {99, 0})[1]);
  EXPECT_EQ(philox->tuple_element(1).GetAsUint64(4999), Philox4x32({1249, 0, 0, 0}, {99, 0})[3]);
  auto threefry = RunHlo(BitGenHlo("u64[2]", "u32[5000]", "rng_three_fry"), {U64s({key, 10}, {2})});
  ASSERT_TRUE(threefry.ok()) << threefry.status().message();
  EXPECT_EQ(threefry->tuple_element(0), U64s({key, 2510}, {2}));
  EXPECT_EQ(threefry->tuple_element(1).GetAsUint64(4097), Threefry2x32({10 + 2048, 0}, {99, 0})[1]);
}

TEST(RngBitGeneratorTest, Errors) {
  auto threefry3 = RunHlo(BitGenHlo("u64[3]", "u32[2]", "rng_three_fry"), {U64s({1, 2, 3}, {3})});
  ASSERT_FALSE(threefry3.ok());
  EXPECT_THAT(std::string(threefry3.status().message()), ::testing::HasSubstr("u64[2] state"));
  auto philox4 = RunHlo(BitGenHlo("u64[4]", "u32[2]", "rng_philox"), {U64s({1, 2, 3, 4}, {4})});
  ASSERT_FALSE(philox4.ok());
  EXPECT_EQ(philox4.status().code(), absl::StatusCode::kInvalidArgument);
  auto s32_state = RunHlo(BitGenHlo("s32[2]", "u32[2]", "rng_philox"), {L("s32[2] {1, 2}")});
  ASSERT_FALSE(s32_state.ok());
}

}  // namespace
}  // namespace xla
