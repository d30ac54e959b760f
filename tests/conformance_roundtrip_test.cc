// Round trips of XLA's own parser test cases (/work/shared/conformance, see its README):
//   long_*.hlo   parse, print with operand shapes + large constants: byte-identical;
//   short_*.hlo  parse (replica_count from INDEX.tsv), print ShortParsable: byte-identical;
//   nonrt_*.hlo  parse, print ShortParsable: equals nonrt_*.expected.txt, whitespace-trimmed;
//   parse_only/  parse, print (default options).
// Every printed text must parse again into a module Equal to the first parse. Byte
// mismatches fail unless the file is in kKnownMismatches below (each with its reason).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

// Files whose printed bytes are known to differ, with why. Keep this short and empty it.
const std::map<std::string, std::string>& KnownMismatches() {
  static const auto* known = new std::map<std::string, std::string>{};
  return *known;
}

std::string ConformanceDir() {
  const char* shared = std::getenv("XLA_SHARED_DIR");
  return std::string(shared != nullptr ? shared : "/work/shared") + "/conformance";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// file name -> replica_count, from INDEX.tsv notes such as "test config replica_count=4".
std::map<std::string, int64_t> ReplicaCounts() {
  std::map<std::string, int64_t> out;
  std::istringstream index(ReadFile(ConformanceDir() + "/INDEX.tsv"));
  std::string line;
  while (std::getline(index, line)) {
    const size_t pos = line.find("replica_count=");
    if (pos == std::string::npos) continue;
    const std::string file = line.substr(0, line.find('\t'));
    out[fs::path(file).filename().string()] = std::stoll(line.substr(pos + 14));
  }
  return out;
}

std::vector<fs::path> FilesIn(const std::string& dir, const std::string& prefix,
                              const std::string& suffix) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "line N: expected `...` got `...`" for the first differing line.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool he = static_cast<bool>(std::getline(e, el));
    const bool ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha) return "only trailing bytes differ";
    if (!he || !ha || el != al) {
      return "line " + std::to_string(line) + ":\n  expected: " + (he ? el : "<end>") +
             "\n  printed:  " + (ha ? al : "<end>");
    }
  }
}

struct Counts {
  int files = 0;
  int byte_exact = 0;
  int known_mismatch = 0;
};

// Parses, prints, checks the bytes against `expected` (trimmed when `trim`), re-parses and
// checks Equal. Returns whether the bytes matched.
bool CheckOne(const fs::path& path, const std::string& expected, const HloPrintOptions& options,
              const HloModuleConfig& config, bool trim, bool check_bytes, Counts* counts) {
  const std::string name = path.filename().string();
  ++counts->files;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndReturnUnverifiedModule(ReadFile(path), config);
  if (!module.ok()) {
    ADD_FAILURE() << name << ": parse failed: " << module.status().message();
    return false;
  }
  const std::string printed = HloModuleToString(**module, options);
  bool exact = true;
  if (check_bytes) {
    exact = trim ? Trim(printed) == Trim(expected) : printed == expected;
    const bool known = KnownMismatches().count(name) != 0;
    if (exact) {
      ++counts->byte_exact;
      if (known) ADD_FAILURE() << name << " now prints byte-exact: remove it from kKnownMismatches";
    } else if (known) {
      ++counts->known_mismatch;
    } else {
      ADD_FAILURE() << name << ": printed text differs at " << FirstDifference(expected, printed);
    }
  }
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed =
      ParseAndReturnUnverifiedModule(printed, config);
  if (!reparsed.ok()) {
    ADD_FAILURE() << name << ": printed text does not parse: " << reparsed.status().message()
                  << "\n--- printed ---\n" << printed;
    return exact;
  }
  std::string difference;
  if (!(*module)->Equal(**reparsed, &difference)) {
    ADD_FAILURE() << name << ": re-parsed module differs: " << difference;
  }
  return exact;
}

void Report(const std::string& category, const Counts& c) {
  std::printf("[conformance] %s: %d/%d byte-exact (%d known mismatches)\n", category.c_str(),
              c.byte_exact, c.files, c.known_mismatch);
}

TEST(ConformanceRoundTripTest, LongForm) {
  Counts counts;
  for (const fs::path& path : FilesIn(ConformanceDir() + "/parser_roundtrip", "long_", ".hlo")) {
    CheckOne(path, ReadFile(path), HloPrintOptions::Long(), HloModuleConfig(), /*trim=*/false,
             /*check_bytes=*/true, &counts);
  }
  Report("long", counts);
  EXPECT_EQ(counts.files, 103);
}

TEST(ConformanceRoundTripTest, ShortParsableForm) {
  Counts counts;
  const auto replicas = ReplicaCounts();
  for (const fs::path& path : FilesIn(ConformanceDir() + "/parser_roundtrip", "short_", ".hlo")) {
    HloModuleConfig config;
    auto it = replicas.find(path.filename().string());
    if (it != replicas.end()) config.replica_count = it->second;
    CheckOne(path, ReadFile(path), HloPrintOptions::ShortParsable(), config, /*trim=*/false,
             /*check_bytes=*/true, &counts);
  }
  Report("short", counts);
  EXPECT_EQ(counts.files, 60);
}

TEST(ConformanceRoundTripTest, NestedInstructions) {
  Counts counts;
  for (const fs::path& path : FilesIn(ConformanceDir() + "/parser_roundtrip", "nonrt_", ".hlo")) {
    fs::path expected = path;
    expected.replace_extension(".expected.txt");
    CheckOne(path, ReadFile(expected), HloPrintOptions::ShortParsable(), HloModuleConfig(),
             /*trim=*/true, /*check_bytes=*/true, &counts);
  }
  Report("nonrt", counts);
  EXPECT_EQ(counts.files, 5);
}

TEST(ConformanceRoundTripTest, ParseOnlyModulesRoundTrip) {
  Counts counts;
  for (const fs::path& path : FilesIn(ConformanceDir() + "/parse_only", "", ".hlo")) {
    // The async syntax sugar (`custom-call-start(...)`) drops the wrapped computation's
    // name, as in XLA, so equality after re-parsing is checked on the explicit form.
    // Large constants are printed in full so that the values survive.
    CheckOne(path, "",
             HloPrintOptions::Default().set_syntax_sugar_async_ops(false).set_print_large_constants(true),
             HloModuleConfig(), /*trim=*/false, /*check_bytes=*/false, &counts);
  }
  std::printf("[conformance] parse_only: %d files parsed, printed and re-parsed\n", counts.files);
  EXPECT_EQ(counts.files, 75);
}

}  // namespace
}  // namespace xla
