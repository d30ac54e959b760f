// Tests of .npy reading and writing: round trips over types and shapes, hand-made headers
// (versions, byte orders, fortran order), hostile files, and files written/read by numpy.
#include "client/cli/npy.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace npy {
namespace {

using ::testing::HasSubstr;

Literal L(const std::string& text) {
  auto literal = Literal::Parse(text);
  EXPECT_TRUE(literal.ok()) << text << ": " << literal.status().message();
  return literal.ok() ? *std::move(literal) : Literal();
}

// A .npy file with the given header dict text (padded as numpy does) and raw data.
std::string MakeNpy(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  return out + header + data;
}

std::string Bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

// Values that exercise each type: a ramp with negative values, fractions and extremes.
Literal Sample(PrimitiveType type, std::vector<int64_t> dims) {
  Literal literal = Literal::Create(ShapeUtil::MakeShape(type, dims)).value();
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (type == PRED) {
      literal.SetFromInt64(i, i % 3 == 1);
    } else if (primitive_util::IsComplexType(type)) {
      literal.SetFromComplex(i, {0.5 * i - 1, -0.25 * i});
    } else if (primitive_util::IsFloatingPointType(type)) {
      literal.SetFromDouble(i, 0.5 * i - 2);
    } else {
      literal.SetFromInt64(i, i * 37 - 5);
    }
  }
  return literal;
}

TEST(NpyTest, RoundTripsEveryTypeAndShape) {
  const PrimitiveType types[] = {PRED, S8,  S16, S32, S64,  U8,   U16,      U32,      U64, F16,
                                 F32,  F64, C64, C128, BF16, F8E4M3FN, F8E5M2, S4,  U4,  S2, F4E2M1FN};
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {5}, {2, 3}, {2, 0, 3}, {2, 1, 3, 1, 2}};
  for (PrimitiveType type : types) {
    for (const auto& dims : shapes) {
      Literal literal = Sample(type, dims);
      auto bytes = SerializeNpy(literal);
      ASSERT_TRUE(bytes.ok()) << bytes.status().message();
      EXPECT_EQ(bytes->find("\x93NUMPY\x01"), 0u);
      auto back = ParseNpy(*bytes);
      ASSERT_TRUE(back.ok()) << literal.shape().ToString() << ": " << back.status().message();
      EXPECT_EQ(*back, literal) << literal.ToString() << " vs " << back->ToString();
      EXPECT_EQ(back->shape().element_type(), type);
    }
  }
}

TEST(NpyTest, HeaderIsNumpysAndAligned) {
  std::string bytes = SerializeNpy(L("f32[2] {1, 2}")).value();
  // As numpy writes it: 10-byte prefix, the dict, spaces up to a multiple of 64, '\n'.
  EXPECT_EQ(bytes.size(), 128u + 8u);
  EXPECT_EQ(bytes.substr(10, 57), "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
  EXPECT_EQ(bytes.substr(67, 60), std::string(60, ' '));
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes[8], 118);
  EXPECT_EQ(bytes[9], 0);
  EXPECT_THAT(SerializeNpy(L("pred[] true")).value(), HasSubstr("'descr': '|b1'"));
  EXPECT_THAT(SerializeNpy(L("pred[] true")).value(), HasSubstr("'shape': ()"));
  EXPECT_THAT(SerializeNpy(L("s32[2,3] {{1,2,3},{4,5,6}}")).value(), HasSubstr("'shape': (2, 3)"));
  EXPECT_THAT(SerializeNpy(L("bf16[1] {1}")).value(), HasSubstr("'descr': 'bfloat16'"));
  EXPECT_THAT(SerializeNpy(L("c128[1] {(1, 2)}")).value(), HasSubstr("'descr': '<c16'"));
}

TEST(NpyTest, NonDefaultLayoutIsWrittenInLogicalOrder) {
  Literal column_major = L("s32[2,3]{0,1} { { 0, 1, 2 }, { 3, 4, 5 } }");
  std::string bytes = SerializeNpy(column_major).value();
  std::string data = bytes.substr(128);
  ASSERT_EQ(data.size(), 24u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(static_cast<int>(data[4 * i]), i);
  EXPECT_EQ(ParseNpy(bytes).value(), column_major);
}

TEST(NpyTest, TuplesAndTokensAreNotArrays) {
  EXPECT_FALSE(SerializeNpy(L("(f32[], s32[]) (1, 2)")).ok());
  EXPECT_FALSE(SerializeNpy(Literal::Create(Shape::MakeToken()).value()).ok());
}

TEST(NpyTest, ReadsBigEndianAndOtherVersions) {
  Literal expected = L("s32[2] {1, -2}");
  std::string big = Bytes({0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe});
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", big)).value(), expected);
  std::string little = Bytes({1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff});
  for (int major : {1, 2, 3}) {
    auto parsed = ParseNpy(MakeNpy("{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2,)}", little, major));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(*parsed, expected);
  }
  // Big-endian f8 and c8 (each component swapped).
  std::string f8 = Bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0});  // 1.0
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '>f8', 'fortran_order': False, 'shape': (), }", f8)).value(), L("f64[] 1"));
  std::string c8 = Bytes({0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0});  // (1, -2)
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", c8)).value(),
            L("c64[1] {(1, -2)}"));
  std::string f2 = Bytes({0x3c, 0x00});  // f16 1.0
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }", f2)).value(),
            L("f16[1] {1}"));
}

TEST(NpyTest, ReadsFortranOrder) {
  // Logical [[0, 1, 2], [3, 4, 5]] stored column-major: 0 3 1 4 2 5.
  std::string data;
  for (int v : {0, 3, 1, 4, 2, 5}) data += Bytes({v, 0, 0, 0});
  auto parsed = ParseNpy(MakeNpy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", data));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(*parsed, L("s32[2,3] { { 0, 1, 2 }, { 3, 4, 5 } }"));
  EXPECT_EQ(parsed->data<int32_t>()[1], 1);  // default (row-major) layout
  // Rank 3, fortran: element (i,j,k) at i + 2j + 4k.
  std::string data3;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) data3.push_back(static_cast<char>(100 * i + 10 * j + k));
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 2), }", data3)).value(),
            L("u8[2,2,2] { { {0, 1}, {10, 11} }, { {100, 101}, {110, 111} } }"));
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3), }", "")).value(),
            L("f32[0,3] {}"));
}

TEST(NpyTest, DtypeSpellings) {
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': 'bool', 'fortran_order': False, 'shape': (3,), }", Bytes({0, 1, 2})))
                .value(),
            L("pred[3] {false, true, true}"));  // any non-zero byte is true
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", Bytes({1}))).value(),
            L("pred[1] {true}"));
  EXPECT_EQ(
      ParseNpy(MakeNpy("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (1,), }", Bytes({0x80, 0x3f})))
          .value(),
      L("bf16[1] {1}"));
  EXPECT_EQ(ParseNpy(MakeNpy("{'descr': 'int4', 'fortran_order': False, 'shape': (2,), }", Bytes({0x0f, 0x07})))
                .value(),
            L("s4[2] {-1, 7}"));
  // '<u2' is uint16, never bf16; void is rejected with a hint.
  auto u2 = ParseNpy(MakeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", Bytes({0x80, 0x3f})));
  ASSERT_TRUE(u2.ok());
  EXPECT_EQ(u2->shape().element_type(), U16);
  auto v2 = ParseNpy(MakeNpy("{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", Bytes({0x80, 0x3f})));
  ASSERT_FALSE(v2.ok());
  EXPECT_THAT(std::string(v2.status().message()), HasSubstr("bfloat16"));
  for (const char* bad : {"'<f16'", "'<i3'", "'O'", "'<U4'", "''", "'<'", "'|f4'"}) {
    EXPECT_FALSE(ParseNpy(MakeNpy(std::string("{'descr': ") + bad + ", 'fortran_order': False, 'shape': (1,), }",
                                  std::string(16, '\0')))
                     .ok())
        << bad;
  }
}

TEST(NpyTest, HostileFilesAreErrors) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string good = MakeNpy(ok_dict, std::string(8, '\0'));
  ASSERT_TRUE(ParseNpy(good).ok());
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(ParseNpy(good.substr(0, n)).ok()) << n;
  // Trailing bytes are an error too (a wrong descr or shape would otherwise go unnoticed).
  EXPECT_THAT(std::string(ParseNpy(good + "x").status().message()), HasSubstr("needs 8"));
  // Wrong magic / version.
  std::string bad_magic = good;
  bad_magic[1] = 'M';
  EXPECT_FALSE(ParseNpy(bad_magic).ok());
  std::string v4 = good;
  v4[6] = 4;
  EXPECT_THAT(std::string(ParseNpy(v4).status().message()), HasSubstr("version 4.0"));
  // Header length beyond the file.
  std::string long_header = good;
  long_header[8] = '\xff';
  long_header[9] = '\xff';
  EXPECT_THAT(std::string(ParseNpy(long_header).status().message()), HasSubstr("exceeds the file size"));
  std::string huge_v2 = MakeNpy(ok_dict, std::string(8, '\0'), 2);
  huge_v2[11] = '\x7f';
  EXPECT_FALSE(ParseNpy(huge_v2).ok());
  // Absurd shapes never allocate.
  for (const char* shape : {"(4611686018427387904, 4611686018427387904)", "(1000000000000,)",
                            "(99999999999999999999999,)", "(-1,)", "(2, -3)", "(1.5,)", "(2",
                            "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)"}) {
    EXPECT_FALSE(
        ParseNpy(MakeNpy(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }", "x"))
            .ok())
        << shape;
  }
  // Malformed dictionaries.
  for (const char* dict : {"", "{", "{}", "[]", "{'descr': '<f4', 'shape': (2,), }",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
                           "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                           "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
                           "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
                           "{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,)}",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing",
                           "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}"}) {
    EXPECT_FALSE(ParseNpy(MakeNpy(dict, std::string(8, '\0'))).ok()) << dict;
  }
  // Bit flips anywhere in the header never crash.
  for (size_t i = 0; i < 64; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = good;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      (void)ParseNpy(flipped);
    }
  }
  EXPECT_FALSE(ReadNpyFile("/nonexistent/x.npy").ok());
}

TEST(NpyTest, RandomMutationsNeverCrash) {
  const std::string seeds[] = {
      SerializeNpy(L("f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }")).value(),
      SerializeNpy(L("c128[] (1, 2)")).value(),
      SerializeNpy(L("pred[0,4] {}")).value(),
      MakeNpy("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 2), }", std::string(8, '\1'), 2),
  };
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  int accepted = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    std::string bytes = seeds[iteration % 4];
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = next() % bytes.size();
      switch (next() % 3) {
        case 0: bytes[pos] = static_cast<char>(next()); break;
        case 1: bytes.erase(pos, 1 + next() % 8); break;
        default: bytes.insert(pos, 1, "0123456789(),' "[next() % 15]); break;
      }
      if (bytes.empty()) bytes = "x";
    }
    auto parsed = ParseNpy(bytes);
    if (parsed.ok()) {
      ++accepted;
      // Whatever is accepted is consistent: the data exactly fills the literal.
      EXPECT_LE(parsed->size_bytes(), static_cast<int64_t>(bytes.size()));
    }
  }
  EXPECT_LT(accepted, 4000);
}

// --- interoperability with numpy (skipped where /usr/bin/python3 lacks numpy) ---
bool HaveNumpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/npy_test_tmp";
}

TEST(NpyTest, ReadsFilesWrittenByNumpy) {
  if (!HaveNumpy()) GTEST_SKIP() << "no numpy in /usr/bin/python3";
  const std::string dir = TempDir();
  std::string script =
      "import numpy as np, os, sys\n"
      "d = sys.argv[1]\n"
      "os.makedirs(d, exist_ok=True)\n"
      "np.save(d + '/f32.npy', np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)\n"
      "np.save(d + '/be_i8.npy', np.array([1, -2, 2**40], dtype='>i8'))\n"
      "np.save(d + '/bool.npy', np.array([[True, False], [False, True]]))\n"
      "np.save(d + '/fortran.npy', np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)))\n"
      "np.save(d + '/empty.npy', np.zeros((0, 3), dtype=np.float64))\n"
      "np.save(d + '/scalar.npy', np.float64(-0.0))\n"
      "np.save(d + '/c64.npy', np.array([1+2j, -3.5j], dtype=np.complex64))\n"
      "np.save(d + '/f16.npy', np.array([np.inf, -1.5, 65504], dtype='>f2'))\n"
      "np.save(d + '/u1.npy', np.array([0, 255], dtype=np.uint8))\n"
      "np.save(d + '/c128.npy', np.array([[1e300+1j]], dtype=np.complex128))\n"
      "np.save(d + '/exact.npy', np.array([[1, 2, 3]], dtype=np.float32))\n";
  std::ofstream(dir + ".py") << script;
  ASSERT_EQ(std::system(("/usr/bin/python3 " + dir + ".py " + dir).c_str()), 0);
  const std::pair<const char*, const char*> cases[] = {
      {"f32", "f32[2,3] { { -2.5, -1.5, -0.5 }, { 0.5, 1.5, 2.5 } }"},
      {"be_i8", "s64[3] {1, -2, 1099511627776}"},
      {"bool", "pred[2,2] { { true, false }, { false, true } }"},
      {"fortran", "s16[2,3] { { 0, 1, 2 }, { 3, 4, 5 } }"},
      {"empty", "f64[0,3] {}"},
      {"scalar", "f64[] -0"},
      {"c64", "c64[2] {(1, 2), (-0, -3.5)}"},  // Python's -3.5j is (-0-3.5j)
      {"f16", "f16[3] {inf, -1.5, 65504}"},
      {"u1", "u8[2] {0, 255}"},
      {"c128", "c128[1,1] { { (1e+300, 1) } }"},
  };
  // Our writer produces numpy's bytes exactly.
  std::ifstream exact(dir + "/exact.npy", std::ios::binary);
  std::string exact_bytes((std::istreambuf_iterator<char>(exact)), std::istreambuf_iterator<char>());
  EXPECT_EQ(SerializeNpy(L("f32[1,3] { { 1, 2, 3 } }")).value(), exact_bytes);
  for (const auto& [name, expected] : cases) {
    auto literal = ReadNpyFile(dir + "/" + name + ".npy");
    ASSERT_TRUE(literal.ok()) << name << ": " << literal.status().message();
    Literal want = L(expected);
    EXPECT_EQ(*literal, want) << name << ": " << literal->ToString();
    if (std::string(name) == "scalar") {  // -0 kept
      EXPECT_TRUE(std::signbit(literal->GetAsDouble(0)));
    }
  }
}

TEST(NpyTest, NumpyReadsWhatWeWrite) {
  if (!HaveNumpy()) GTEST_SKIP() << "no numpy in /usr/bin/python3";
  const std::string dir = TempDir() + "_out";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  ASSERT_TRUE(WriteNpyFile(dir + "/a.npy", L("f32[2,3]{0,1} { { 1, 2, 3 }, { 4, 5, -inf } }")).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/b.npy", L("pred[] true")).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/c.npy", L("c128[1] {(1, -2)}")).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/d.npy", L("s8[0,2] {}")).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/e.npy", L("u64[2] {0, 18446744073709551615}")).ok());
  std::string check =
      "/usr/bin/python3 -c \"import numpy as np, sys; d = sys.argv[1]\n"
      "a = np.load(d + '/a.npy'); assert a.dtype == np.float32 and a.tolist() == [[1, 2, 3], [4, 5, -np.inf]], a\n"
      "b = np.load(d + '/b.npy'); assert b.dtype == bool and b.shape == () and b\n"
      "c = np.load(d + '/c.npy'); assert c.dtype == np.complex128 and c.tolist() == [1-2j], c\n"
      "e = np.load(d + '/d.npy'); assert e.dtype == np.int8 and e.shape == (0, 2)\n"
      "f = np.load(d + '/e.npy'); assert f.dtype == np.uint64 and f.tolist() == [0, 2**64 - 1]\n\" " +
      dir;
  EXPECT_EQ(std::system(check.c_str()), 0);
}

}  // namespace
}  // namespace npy
}  // namespace xla
