// The README's C++ quick start, compiled and run so that the README stays true.
#include "backends/backend.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"

namespace {

TEST(ReadmeExampleTest, ParseVerifyPrintConvertAndRun) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
})";
  auto module = xla::ParseAndReturnUnverifiedModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  absl::Status ok = xla::VerifyHloModule(**module);
  ASSERT_TRUE(ok.ok());
  std::string canonical = xla::HloModuleToString(**module);
  EXPECT_NE(canonical.find("ROOT %y = f32[2]{0} add(%x, %x)"), std::string::npos);
  xla::HloModuleProto proto = xla::HloModuleToProto(**module);
  EXPECT_EQ(proto.computations_size(), 1);

  auto backend = xla::backend::CreateBackend("interpreter");
  ASSERT_TRUE(backend.ok());
  auto executable = (*backend)->Compile(*std::move(module), {});
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  auto arg = (*backend)->TransferToDevice(*xla::Literal::Parse("f32[2] {1, 2}"), /*device=*/0);
  ASSERT_TRUE(arg.ok());
  auto result = (*executable)->Execute({*arg}, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  xla::Literal value = *(*backend)->TransferFromDevice(**result);
  EXPECT_EQ(value, *xla::Literal::Parse("f32[2] {2, 4}"));
}

}  // namespace
