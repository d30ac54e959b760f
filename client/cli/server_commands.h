#ifndef XLA_CLIENT_CLI_SERVER_COMMANDS_H_
#define XLA_CLIENT_CLI_SERVER_COMMANDS_H_

// xla-cli's server mode: commands that talk to a running xla-server through the C++ client
// (devices, status, ping, transfer) and `run --server=ADDR`.

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cli/run_command.h"
#include "client/xla_client.h"

namespace xla {
namespace cli {

extern const char kServerUsage[];

// True for devices, status, ping and transfer.
bool IsServerCommand(const std::string& command);

// Removes the connection flags (--server=ADDR, --token-file=PATH, --tls, --tls-ca=PEM,
// --tls-cert=PEM, --tls-key=PEM, --deadline-ms=N) from `flags` and returns the options they
// describe. `*given` is set when --server appeared. Usage errors are InvalidArgument.
absl::StatusOr<client::ClientOptions> ExtractConnectionFlags(std::vector<std::string>* flags,
                                                             bool* given);

// Runs devices / status / ping / transfer with the flags after the command. Returns the exit
// status (0 ok, 1 error, 2 usage).
int RunServerCommand(const std::string& command, std::vector<std::string> flags, std::ostream& out,
                     std::ostream& err);

// `run --server=ADDR`: the run command's arguments, compiled and executed on the server.
// `platform_given`: --platform was passed (otherwise the server's first device is used).
int RunModuleOnServer(const RunOptions& options, bool platform_given,
                      const client::ClientOptions& connection, const ModuleLoader& load,
                      const ErrorReporter& fail, std::ostream& out);

}  // namespace cli
}  // namespace xla

#endif  // XLA_CLIENT_CLI_SERVER_COMMANDS_H_
