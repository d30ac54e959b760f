// End-to-end tests of the xla-cli binary: exit codes, FILE:LINE:COL errors, conversions.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "client/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using xla_cli_test::ReadFile;
using xla_cli_test::Result;
using xla_cli_test::RunCli;
using xla_cli_test::TempPath;
using xla_cli_test::WriteFile;

constexpr char kModule[] = R"(HloModule add_module

ENTRY main {
  a = f32[2]{0} parameter(0)
  b = f32[2]{0} parameter(1)
  ROOT sum = f32[2]{0} add(a, b)
}
)";

TEST(XlaCliTest, ParsePrintsCanonicalText) {
  std::string path = WriteFile("ok.hlo", kModule);
  Result r = RunCli("parse " + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, StartsWith("HloModule add_module, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}"));
  EXPECT_THAT(r.output, HasSubstr("ROOT %sum = f32[2]{0} add(%a, %b)"));
  // The printed text parses again and prints identically.
  std::string again = WriteFile("again.hlo", r.output);
  Result r2 = RunCli("parse " + again);
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_EQ(r2.output, r.output);
}

TEST(XlaCliTest, SyntaxErrorReportsFileLineColumn) {
  std::string path = WriteFile("bad.hlo", "HloModule m\n\nENTRY main {\n  a = f32[2 parameter(0)\n}\n");
  Result r = RunCli("parse " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith(path + ":4:"));
}

TEST(XlaCliTest, VerifierErrorReportsFileLineColumn) {
  std::string path = WriteFile("invalid.hlo",
                               "HloModule m\nENTRY main {\n  a = f32[2] parameter(0)\n"
                               "  b = f32[3] parameter(1)\n  ROOT c = f32[2] add(a, b)\n}\n");
  Result r = RunCli("parse " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith(path + ":5:8: in computation 'main', instruction 'c'"));
  // --no-verify accepts it.
  EXPECT_EQ(RunCli("parse --no-verify " + path).exit_code, 0);
}

TEST(XlaCliTest, ConvertTextToProtoAndBack) {
  std::string text = WriteFile("conv.hlo", kModule);
  std::string proto = TempPath("conv.pb");
  Result to_proto = RunCli("convert --to=proto " + text + " " + proto);
  ASSERT_EQ(to_proto.exit_code, 0) << to_proto.output;
  EXPECT_FALSE(ReadFile(proto).empty());
  std::string back = TempPath("back.hlo");
  Result to_text = RunCli("convert --to=text " + proto + " " + back);
  ASSERT_EQ(to_text.exit_code, 0) << to_text.output;
  EXPECT_EQ(ReadFile(back), RunCli("parse " + text).output);
}

TEST(XlaCliTest, CorruptProtoIsAnErrorNotACrash) {
  std::string path = WriteFile("corrupt.pb", std::string("\x0a\xff\xff\xff\xff\x0f garbage", 14));
  Result r = RunCli("convert --to=text " + path + " -");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith(path + ": "));
}

TEST(XlaCliTest, UsageErrors) {
  EXPECT_EQ(RunCli("").exit_code, 2);
  EXPECT_EQ(RunCli("frobnicate x").exit_code, 2);
  EXPECT_EQ(RunCli("convert --to=yaml a b").exit_code, 2);
  EXPECT_EQ(RunCli("--help").exit_code, 0);
  Result missing = RunCli("parse /nonexistent/file.hlo");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("cannot open file"));
}

}  // namespace
