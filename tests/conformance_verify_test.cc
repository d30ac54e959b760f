// Every conformance module must pass VerifyHloModule, except the few that XLA's own
// verifier would reject too (they come from parser/import tests that never run them).
// The list is explicit so that a new false positive, or a known-bad file that starts to
// pass, fails the test.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

std::string ConformanceDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return std::string(env != nullptr ? env : "../shared") + "/conformance";
}

// file -> the text the verifier's message must contain, and why XLA rejects it too.
const std::map<std::string, std::string>& KnownInvalid() {
  static const auto* kInvalid = new std::map<std::string, std::string>{
      // window size=3x3 on a 2x2 kernel
      {"import_all_ops.hlo", "window size 3 in spatial dimension 0 does not match the kernel"},
      // recv-done declares f32[128,21] for a recv of f32[128,32]
      {"import_async_14.hlo", "the result shape should be (f32[128,32], token[])"},
      // entry_computation_layout says f32 for an f16 parameter
      {"import_layouts_and_names_01.hlo", "entry_computation_layout parameter 0 is f32"},
      // HLO broadcast cannot stretch a size-1 dimension (XLA's ShapeVerifier::HandleBroadcast)
      {"import_while.hlo", "operand dimension 0 (size 1) must equal result dimension 0 (size 3)"},
  };
  return *kInvalid;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ConformanceVerifyTest, EveryValidModuleVerifies) {
  int verified = 0, rejected_as_expected = 0, files = 0;
  for (const char* sub : {"parser_roundtrip", "parse_only"}) {
    for (const auto& entry : fs::directory_iterator(ConformanceDir() + "/" + sub)) {
      if (entry.path().extension() != ".hlo") continue;
      ++files;
      const std::string name = entry.path().filename().string();
      auto module = ParseAndReturnUnverifiedModule(ReadFile(entry.path()));
      ASSERT_TRUE(module.ok()) << name << ": " << module.status().message();
      absl::Status status = VerifyHloModule(**module);
      auto known = KnownInvalid().find(name);
      if (known == KnownInvalid().end()) {
        EXPECT_TRUE(status.ok()) << name << ": " << status.message();
        if (status.ok()) ++verified;
      } else {
        ASSERT_FALSE(status.ok()) << name << " now verifies: remove it from KnownInvalid()";
        EXPECT_NE(std::string(status.message()).find(known->second), std::string::npos)
            << name << ": " << status.message();
        ++rejected_as_expected;
      }
    }
  }
  std::printf("[conformance] verify: %d of %d modules verify; %d rejected as XLA would\n", verified,
              files, rejected_as_expected);
  EXPECT_EQ(files, 243);
}

}  // namespace
}  // namespace xla
