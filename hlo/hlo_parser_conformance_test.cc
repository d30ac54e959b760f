// Every conformance HLO file (XLA's own parser tests and import tests) must parse.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace {

std::string SharedDir() {
  const char* d = std::getenv("XLA_SHARED_DIR");
  return d ? d : "/work/shared";
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// file name -> replica_count from INDEX.tsv notes ("test config replica_count=N").
std::map<std::string, int64_t> ReplicaCounts() {
  std::map<std::string, int64_t> out;
  std::ifstream in(SharedDir() + "/conformance/INDEX.tsv");
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    size_t rc = line.find("replica_count=");
    if (tab == std::string::npos || rc == std::string::npos) continue;
    std::string file = line.substr(0, tab);
    file = file.substr(file.rfind('/') + 1);
    out[file] = std::atoll(line.c_str() + rc + 14);
  }
  return out;
}

TEST(HloParserConformanceTest, EveryFileParses) {
  auto replicas = ReplicaCounts();
  int parsed = 0;
  for (const char* sub : {"parser_roundtrip", "parse_only"}) {
    std::filesystem::path dir = std::filesystem::path(SharedDir()) / "conformance" / sub;
    ASSERT_TRUE(std::filesystem::exists(dir)) << dir;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".hlo") continue;
      HloModuleConfig config;
      auto it = replicas.find(entry.path().filename().string());
      if (it != replicas.end()) config.replica_count = it->second;
      auto module = ParseAndReturnUnverifiedModule(ReadFile(entry.path()), config);
      EXPECT_TRUE(module.ok()) << entry.path().filename() << ": " << module.status();
      if (module.ok()) ++parsed;
    }
  }
  EXPECT_EQ(parsed, 168 + 75);
  std::cout << "parsed " << parsed << " conformance files\n";
}

}  // namespace
}  // namespace xla
