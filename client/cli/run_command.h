#ifndef XLA_CLIENT_CLI_RUN_COMMAND_H_
#define XLA_CLIENT_CLI_RUN_COMMAND_H_

// `xla-cli run`: compiles an HLO module on a backend (in-process, through backends/backend.h),
// runs it on arguments given as literals, .npy files or seeded random values, and prints the
// result as an XLA literal, or timings as JSON, and/or writes the result as .npy files.

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_module.h"
#include "hlo/literal.h"

namespace xla {
namespace cli {

extern const char kRunUsage[];

// "cpu" when this binary has the cpu backend (LLVM 16 was found at build time), else
// "interpreter".
std::string DefaultPlatform();

struct RunOptions {
  std::string file;
  // --executable: `file` holds a serialized executable (xla-cli compile --aot), loaded
  // without compiling; its platform is the one it was compiled for unless --platform says.
  bool executable = false;
  bool platform_given = false;
  std::string platform = DefaultPlatform();
  std::vector<std::string> args;  // "LITERAL" or "@file.npy", one per entry parameter
  bool random_args = false;
  uint64_t seed = 0;
  int64_t repeat = 1;
  bool json = false;
  std::string output_dir;
  bool verify = true;
};

// Parses the flags after "run". A usage error (exit status 2) is InvalidArgument.
absl::StatusOr<RunOptions> ParseRunFlags(const std::vector<std::string>& flags);

// Seeded random value of `shape`: floats uniform in [-1, 1) (rounded to the type, never
// reaching 1; F8E8M0FNU, which has no sign, gets magnitudes rounded to powers of two), complex
// parts likewise, integers small (signed in [-8, 8], unsigned in [0, 15], narrowed to the
// type's range), random bools; tuples recursively; tokens empty. Deterministic per seed on
// every platform (own generator, no std distributions).
absl::StatusOr<Literal> RandomLiteral(const Shape& shape, uint64_t seed);

using ModuleLoader = std::function<absl::StatusOr<std::unique_ptr<HloModule>>(const std::string& path,
                                                                             bool verify)>;
// Reports an error about `file` and returns the exit status (1).
using ErrorReporter = std::function<int(const std::string& file, const absl::Status& status)>;

// Runs the command; returns the exit status (0 ok, 1 error).
// With options.executable the module is not loaded: the executable's own module gives the
// parameters, and "compile_ms" in --json is the load time.
int RunModuleCommand(const RunOptions& options, const ModuleLoader& load, const ErrorReporter& fail,
                     std::ostream& out);

// The pieces `run --server` shares (client/cli/server_commands.cc): the entry's arguments as
// --arg / --random-args describe them (exit_status set when an error was already reported),
// and --output-dir's .npy files.
absl::StatusOr<std::vector<Literal>> BuildRunArguments(const RunOptions& options, const HloComputation& entry,
                                                       const ErrorReporter& fail, int* exit_status);
absl::Status WriteRunOutputs(const std::string& dir, const Literal& result);

// `xla-cli compile --aot OUT FILE`: compiles FILE on options.platform and writes the
// serialized executable (Backend::SerializeExecutable) to OUT. Reads only options.file,
// options.platform and options.verify.
extern const char kCompileUsage[];
absl::StatusOr<RunOptions> ParseCompileFlags(const std::vector<std::string>& flags, std::string* aot_out);
int CompileAotCommand(const RunOptions& options, const std::string& out_path, const ModuleLoader& load,
                      const ErrorReporter& fail, std::ostream& out);

// The bytes of a file (at most 2 GiB).
absl::StatusOr<std::string> ReadBinaryFile(const std::string& path);

}  // namespace cli
}  // namespace xla

#endif  // XLA_CLIENT_CLI_RUN_COMMAND_H_
