#ifndef XLA_CLIENT_CLI_CLI_TEST_UTIL_H_
#define XLA_CLIENT_CLI_CLI_TEST_UTIL_H_

// Shared by the xla-cli end-to-end tests: run the binary, capture its output.

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

// Each test binary names its temporary files with its own prefix (they run in parallel).
#ifndef XLA_CLI_TEST_PREFIX
#define XLA_CLI_TEST_PREFIX "xla_cli_test_"
#endif

namespace xla_cli_test {

struct Result {
  int exit_code;
  std::string output;  // stdout + stderr
};

inline Result RunCli(const std::string& args) {
  std::string command = std::string(XLA_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  Result result{-1, ""};
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" XLA_CLI_TEST_PREFIX + name;
}

inline std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace xla_cli_test

#endif  // XLA_CLIENT_CLI_CLI_TEST_UTIL_H_
