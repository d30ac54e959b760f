// End-to-end tests of `xla-cli run`: literal and .npy arguments, printed results, --json,
// --output-dir, --random-args, --repeat, errors and usage errors.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#define XLA_CLI_TEST_PREFIX "xla_cli_run_test_"
#include "client/cli/cli_test_util.h"
#include "client/cli/npy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/literal.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using xla_cli_test::ReadFile;
using xla_cli_test::Result;
using xla_cli_test::RunCli;
using xla_cli_test::TempPath;
using xla_cli_test::WriteFile;

xla::Literal L(const std::string& text) { return xla::Literal::Parse(text).value(); }

std::string NpyArg(const std::string& name, const xla::Literal& literal) {
  std::string path = TempPath(name);
  EXPECT_TRUE(xla::npy::WriteNpyFile(path, literal).ok());
  return "--arg=@" + path;
}

bool HaveNumpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

// f32[2] and s32[] parameters; returns (a, (b, 3)).
constexpr char kTupleModule[] = R"(HloModule tuple_module
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  c = f32[] constant(3)
  inner = (s32[], f32[]) tuple(b, c)
  ROOT t = (f32[2], (s32[], f32[])) tuple(a, inner)
}
)";

// Conditional through a call: returns element 0 of the tuple when p, else element 1.
constexpr char kSelectModule[] = R"(HloModule select_module
on_true {
  t = (s32[3], s32[3]) parameter(0)
  ROOT x = s32[3] get-tuple-element(t), index=0
}
on_false {
  f = (s32[3], s32[3]) parameter(0)
  ROOT y = s32[3] get-tuple-element(f), index=1
}
pick {
  p = pred[] parameter(0)
  xs = (s32[3], s32[3]) parameter(1)
  ROOT r = s32[3] conditional(p, xs, xs), true_computation=on_true, false_computation=on_false
}
ENTRY main {
  p = pred[] parameter(0)
  u = s32[3] parameter(1)
  v = s32[3] constant({7, 8, 9})
  xs = (s32[3], s32[3]) tuple(u, v)
  ROOT r = s32[3] call(p, xs), to_apply=pick
}
)";

TEST(XlaCliRunTest, PrintsArrayResultAsXlaLiteral) {
  std::string path = WriteFile("identity.hlo",
                               "HloModule m\nENTRY main {\n  ROOT a = f32[2,2] parameter(0)\n}\n");
  Result r = RunCli("run " + path + " --arg='f32[2,2] {{1, 2.5}, {-inf, nan}}'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "f32[2,2] {\n  { 1, 2.5 },\n  { -inf, nan }\n}\n");
}

TEST(XlaCliRunTest, PrintsTuplesAsXlaDoes) {
  std::string path = WriteFile("tuple.hlo", kTupleModule);
  Result r = RunCli("run " + path + " --arg='f32[2] {1, -0}' --arg='s32[] 7'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "(\nf32[2] {1, -0},\n(\ns32[] 7,\nf32[] 3\n)\n)\n");
  EXPECT_EQ(L(r.output), L("(f32[2], (s32[], f32[])) ({1, -0}, (7, 3))"));
}

TEST(XlaCliRunTest, CallAndConditional) {
  std::string path = WriteFile("select.hlo", kSelectModule);
  Result t = RunCli("run " + path + " --arg='pred[] true' --arg='s32[3] {1, -2, 2147483647}'");
  EXPECT_EQ(t.exit_code, 0) << t.output;
  EXPECT_EQ(t.output, "s32[3] {1, -2, 2147483647}\n");
  Result f = RunCli("run " + path + " --arg='pred[] false' --arg='s32[3] {1, 2, 3}'");
  EXPECT_EQ(f.exit_code, 0) << f.output;
  EXPECT_EQ(f.output, "s32[3] {7, 8, 9}\n");
}

TEST(XlaCliRunTest, RunsBinaryProtoModules) {
  std::string text = WriteFile("proto_src.hlo", kSelectModule);
  std::string proto = TempPath("select.pb");
  ASSERT_EQ(RunCli("convert --to=proto " + text + " " + proto).exit_code, 0);
  Result r = RunCli("run " + proto + " --arg='pred[] false' --arg='s32[3] {0, 0, 0}'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "s32[3] {7, 8, 9}\n");
}

TEST(XlaCliRunTest, NpyArguments) {
  std::string path = WriteFile("npy_args.hlo", kTupleModule);
  std::string a = NpyArg("a.npy", L("f32[2] {0.5, -inf}"));
  std::string b = NpyArg("b.npy", L("s32[] -3"));
  Result r = RunCli("run " + path + " " + a + " " + b);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(L(r.output), L("(f32[2], (s32[], f32[])) ({0.5, -inf}, (-3, 3))"));
  // Literal and .npy arguments mix.
  EXPECT_EQ(RunCli("run " + path + " " + a + " --arg='s32[] 1'").exit_code, 0);
}

TEST(XlaCliRunTest, FortranOrderNpyArgument) {
  if (!HaveNumpy()) GTEST_SKIP() << "no numpy in /usr/bin/python3";
  std::string npy = TempPath("fortran.npy");
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"import numpy as np; np.save('" + npy +
                         "', np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], dtype='>i4')))\"")
                            .c_str()),
            0);
  std::string path = WriteFile("fortran.hlo", "HloModule m\nENTRY main {\n  ROOT a = s32[2,3] parameter(0)\n}\n");
  Result r = RunCli("run " + path + " --arg=@" + npy);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(L(r.output), L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
}

TEST(XlaCliRunTest, ArgumentMismatchesNameTheParameter) {
  std::string path = WriteFile("mismatch.hlo", kTupleModule);
  Result count = RunCli("run " + path + " --arg='f32[2] {1, 2}'");
  EXPECT_EQ(count.exit_code, 1);
  EXPECT_THAT(count.output, StartsWith(path + ": the entry computation takes 2 arguments (a: f32[2], b: s32[]), got 1"));
  Result shape = RunCli("run " + path + " --arg='f32[2] {1, 2}' --arg='s32[1] {7}'");
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_THAT(shape.output, StartsWith(path + ": argument 1 (parameter 'b') expects s32[], got s32[1]"));
  // A convertible dtype is still an error, not a silent conversion.
  std::string f64 = NpyArg("f64.npy", L("f64[2] {1, 2}"));
  Result dtype = RunCli("run " + path + " " + f64 + " --arg='s32[] 7'");
  EXPECT_EQ(dtype.exit_code, 1);
  EXPECT_THAT(dtype.output, HasSubstr("argument 0 (parameter 'a') expects f32[2], got f64[2] from @"));
  Result literal = RunCli("run " + path + " --arg='f32[2] {1, 2' --arg='s32[] 7'");
  EXPECT_EQ(literal.exit_code, 1);
  EXPECT_THAT(literal.output, StartsWith(path + ": argument 0 (parameter 'a'): cannot parse literal"));
  // Errors in an .npy file are reported against that file.
  std::string truncated = WriteFile("truncated.npy", std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 18));
  Result bad_npy = RunCli("run " + path + " --arg=@" + truncated + " --arg='s32[] 7'");
  EXPECT_EQ(bad_npy.exit_code, 1);
  EXPECT_THAT(bad_npy.output, StartsWith(truncated + ": argument 0 (parameter 'a'): npy header length 64 exceeds"));
  Result missing = RunCli("run " + path + " --arg=@/nonexistent.npy --arg='s32[] 7'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, StartsWith("/nonexistent.npy: argument 0 (parameter 'a'): cannot open file"));
}

TEST(XlaCliRunTest, ModuleAndBackendErrors) {
  std::string bad = WriteFile("syntax.hlo", "HloModule m\nENTRY main {\n  ROOT a = f32[2 parameter(0)\n}\n");
  Result syntax = RunCli("run " + bad + " --arg='f32[2] {1, 2}'");
  EXPECT_EQ(syntax.exit_code, 1);
  EXPECT_THAT(syntax.output, StartsWith(bad + ":3:"));
  std::string path = WriteFile("platform.hlo", kTupleModule);
  Result platform = RunCli("run " + path + " --random-args --platform=nosuch");
  EXPECT_EQ(platform.exit_code, 1);
  EXPECT_THAT(platform.output, HasSubstr("nosuch"));
  EXPECT_THAT(platform.output, HasSubstr("interpreter"));
  std::string custom = WriteFile("custom.hlo",
                                 "HloModule m\nENTRY main {\n  a = f32[2] parameter(0)\n"
                                 "  ROOT c = f32[2] custom-call(a), custom_call_target=\"no_such_target\"\n}\n");
  Result unimplemented = RunCli("run " + custom + " --arg='f32[2] {1, 2}'");
  EXPECT_EQ(unimplemented.exit_code, 1);
  EXPECT_THAT(unimplemented.output, StartsWith(custom + ": "));
}

TEST(XlaCliRunTest, OutputDirWritesOneNpyPerLeaf) {
  std::string path = WriteFile("outdir.hlo", kTupleModule);
  std::string dir = TempPath("out/nested");
  std::system(("rm -rf " + TempPath("out")).c_str());
  Result r = RunCli("run " + path + " --arg='f32[2] {1.5, 2}' --arg='s32[] -7' --output-dir=" + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(xla::npy::ReadNpyFile(dir + "/0.npy").value(), L("f32[2] {1.5, 2}"));
  EXPECT_EQ(xla::npy::ReadNpyFile(dir + "/1.npy").value(), L("s32[] -7"));
  EXPECT_EQ(xla::npy::ReadNpyFile(dir + "/2.npy").value(), L("f32[] 3"));
  struct stat st;
  EXPECT_NE(stat((dir + "/3.npy").c_str(), &st), 0);
  if (HaveNumpy()) {
    std::string check = "/usr/bin/python3 -c \"import numpy as np; d='" + dir +
                        "'; a = np.load(d + '/0.npy'); assert a.dtype == np.float32 and a.tolist() == [1.5, 2.0]; "
                        "b = np.load(d + '/1.npy'); assert b.dtype == np.int32 and b.shape == () and b == -7\"";
    EXPECT_EQ(std::system(check.c_str()), 0);
  }
  // An array result is 0.npy.
  std::string identity = WriteFile("outdir_array.hlo", "HloModule m\nENTRY main {\n  ROOT a = u8[0,3] parameter(0)\n}\n");
  std::string dir2 = TempPath("out/array");
  ASSERT_EQ(RunCli("run " + identity + " --arg='u8[0,3] {}' --output-dir=" + dir2).exit_code, 0);
  EXPECT_EQ(xla::npy::ReadNpyFile(dir2 + "/0.npy").value(), L("u8[0,3] {}"));
}

TEST(XlaCliRunTest, JsonReportsTimings) {
  std::string path = WriteFile("json.hlo", kSelectModule);
  Result r = RunCli("run " + path + " --random-args --repeat=3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, StartsWith("{\"compile_ms\": "));
  EXPECT_THAT(r.output, HasSubstr("\"repeat\": 3"));
  EXPECT_THAT(r.output, HasSubstr("\"platform\": \"" XLA_CLI_DEFAULT_PLATFORM "\""));
  EXPECT_THAT(r.output, HasSubstr("\"result_shape\": \"s32[3]\""));
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1);  // one line
  if (HaveNumpy()) {
    std::string json_file = WriteFile("out.json", r.output);
    std::string check =
        "/usr/bin/python3 -c \"import json, sys; o = json.load(open(sys.argv[1])); e = o['execute_ms']; "
        "assert set(o) == {'compile_ms', 'execute_ms', 'repeat', 'platform', 'result_shape'}, o; "
        "assert o['compile_ms'] >= 0 and 0 <= e['min'] <= e['median'] <= e['max'] and o['repeat'] == 3\" " +
        json_file;
    EXPECT_EQ(std::system(check.c_str()), 0) << r.output;
  }
}

TEST(XlaCliRunTest, RandomArgsAreSeededAndInRange) {
  std::string path = WriteFile("random.hlo",
                               "HloModule m\nENTRY main {\n  a = f32[64] parameter(0)\n  b = s8[64] parameter(1)\n"
                               "  c = (pred[64], u4[8]) parameter(2)\n  ROOT t = (f32[64], s8[64], (pred[64], u4[8])) "
                               "tuple(a, b, c)\n}\n");
  Result first = RunCli("run " + path + " --random-args --seed=42");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(RunCli("run " + path + " --random-args --seed=42").output, first.output);
  EXPECT_NE(RunCli("run " + path + " --random-args --seed=43").output, first.output);
  EXPECT_EQ(RunCli("run " + path + " --random-args").output, RunCli("run " + path + " --random-args --seed=0").output);
  xla::Literal result = L(first.output);
  const xla::Literal& floats = result.tuple_element(0);
  const xla::Literal& ints = result.tuple_element(1);
  const xla::Literal& bools = result.tuple_element(2).tuple_element(0);
  int trues = 0;
  bool distinct = false;
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_GE(floats.GetAsDouble(i), -1.0);
    EXPECT_LT(floats.GetAsDouble(i), 1.0);
    distinct |= floats.GetAsDouble(i) != floats.GetAsDouble(0);
    EXPECT_GE(ints.GetAsInt64(i), -8);
    EXPECT_LE(ints.GetAsInt64(i), 8);
    trues += static_cast<int>(bools.GetAsInt64(i));
  }
  EXPECT_TRUE(distinct);
  EXPECT_GT(trues, 8);
  EXPECT_LT(trues, 56);
}

TEST(XlaCliRunTest, RandomNarrowFloatsStayInRange) {
  std::string path = WriteFile("random_narrow.hlo",
                               "HloModule m\nENTRY main {\n  a = bf16[256] parameter(0)\n  b = f8e4m3fn[256] parameter(1)\n"
                               "  c = f16[256] parameter(2)\n  d = f4e2m1fn[256] parameter(3)\n"
                               "  e = c64[4] parameter(4)\n  f = s4[64] parameter(5)\n"
                               "  ROOT t = (bf16[256], f8e4m3fn[256], f16[256], f4e2m1fn[256], c64[4], s4[64]) "
                               "tuple(a, b, c, d, e, f)\n}\n");
  Result r = RunCli("run " + path + " --random-args --seed=7");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  xla::Literal result = L(r.output);
  for (int64_t e = 0; e < 4; ++e) {
    const xla::Literal& values = result.tuple_element(e);
    bool negative = false;
    for (int64_t i = 0; i < values.element_count(); ++i) {
      EXPECT_GE(values.GetAsDouble(i), -1.0) << e;
      EXPECT_LT(values.GetAsDouble(i), 1.0) << e << ": " << values.ToString();
      negative |= values.GetAsDouble(i) < 0;
    }
    EXPECT_TRUE(negative) << e;
  }
  const xla::Literal& complex = result.tuple_element(4);
  EXPECT_NE(complex.GetAsComplex(0).imag(), 0);
  const xla::Literal& s4 = result.tuple_element(5);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_GE(s4.GetAsInt64(i), -8);
    EXPECT_LE(s4.GetAsInt64(i), 7);
  }
}

// Needs add and compare, implemented by the elementwise family.
TEST(XlaCliRunTest, WhileLoop) {
  std::string path = WriteFile("while.hlo", R"(HloModule loop
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[2] add(x, x)
  ROOT r = (s32[], f32[2]) tuple(j, y)
}
ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(w), index=1
}
)");
  Result r = RunCli("run " + path + " --arg='f32[2] {1, -0.5}'");
  if (r.exit_code == 1 && r.output.find("does not implement") != std::string::npos) {
    GTEST_SKIP() << "add/compare not implemented yet: " << r.output;
  }
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "f32[2] {32, -16}\n");
}

TEST(XlaCliRunTest, UsageErrors) {
  std::string path = WriteFile("usage.hlo", kTupleModule);
  EXPECT_EQ(RunCli("run").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " " + path).exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --frobnicate").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --random-args --repeat=0").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --random-args --repeat=x").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --random-args --seed=-1x").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --random-args --arg='s32[] 1'").exit_code, 2);
  EXPECT_EQ(RunCli("run " + path + " --random-args --platform=").exit_code, 2);
  Result help = RunCli("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.output, HasSubstr("xla-cli run FILE"));
  EXPECT_THAT(help.output, HasSubstr("--output-dir=DIR"));
}

// compile --aot writes a serialized executable that run --executable runs without compiling,
// with the same result; damaged files and usage errors are reported.
TEST(XlaCliRun, CompileAheadOfTimeAndRunTheExecutable) {
  const std::string hlo = WriteFile("aot.hlo", R"(HloModule aot
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}
ENTRY main {
  a = f32[5] parameter(0)
  offset = f32[5] constant({1, -1, 0.5, 0, 2})
  shifted = f32[5] add(a, offset)
  ROOT s = f32[5] sort(shifted), dimensions={0}, to_apply=lt
}
)");
  const std::string exe = TempPath("aot.xlaexe");
  Result compiled = RunCli("compile --aot " + exe + " " + hlo);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("platform " XLA_CLI_DEFAULT_PLATFORM));
  const std::string arg = " --arg='f32[5] {3, 1, 4, -1, 5}'";
  Result direct = RunCli("run " + hlo + arg);
  ASSERT_EQ(direct.exit_code, 0) << direct.output;
  EXPECT_EQ(direct.output, "f32[5] {-1, 0, 4, 4.5, 7}\n");
  Result loaded = RunCli("run --executable " + exe + arg);
  ASSERT_EQ(loaded.exit_code, 0) << loaded.output;
  EXPECT_EQ(loaded.output, direct.output);
  Result json = RunCli("run --executable " + exe + arg + " --json --repeat=2");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"platform\": \"" XLA_CLI_DEFAULT_PLATFORM "\""));

  // Damaged or foreign files.
  std::string bytes = ReadFile(exe);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() - 7] ^= 0x22;
  const std::string damaged = WriteFile("aot_damaged.xlaexe", bytes);
  Result corrupted = RunCli("run --executable " + damaged + arg);
  EXPECT_EQ(corrupted.exit_code, 1) << corrupted.output;
  EXPECT_THAT(corrupted.output, HasSubstr("checksum"));
  Result truncated = RunCli("run --executable " + WriteFile("aot_short.xlaexe", bytes.substr(0, 50)) + arg);
  EXPECT_EQ(truncated.exit_code, 1) << truncated.output;
  EXPECT_THAT(truncated.output, HasSubstr("truncated"));
  Result module_as_executable = RunCli("run --executable " + hlo + arg);
  EXPECT_EQ(module_as_executable.exit_code, 1) << module_as_executable.output;
  EXPECT_THAT(module_as_executable.output, HasSubstr("bad magic"));
  Result wrong_args = RunCli("run --executable " + exe + " --arg='f32[2] {1, 2}'");
  EXPECT_EQ(wrong_args.exit_code, 1) << wrong_args.output;
  EXPECT_THAT(wrong_args.output, HasSubstr("expects f32[5]"));

  // Usage errors.
  EXPECT_EQ(RunCli("compile " + hlo).exit_code, 2);
  EXPECT_EQ(RunCli("compile --aot").exit_code, 2);
  EXPECT_EQ(RunCli("compile --aot " + exe + " --bogus " + hlo).exit_code, 2);
  Result bad_module = RunCli("compile --aot " + exe + " " + WriteFile("aot_bad.hlo", "HloModule m\nENTRY e {\n"));
  EXPECT_EQ(bad_module.exit_code, 1) << bad_module.output;
}

}  // namespace
