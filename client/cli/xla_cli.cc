// xla-cli: command-line access to the HLO core.
//   xla-cli parse FILE                    parse, verify, print canonical HLO text
//   xla-cli convert --to=proto|text IN OUT  convert between HLO text and HloModuleProto
//   xla-cli run FILE [flags]              compile and run in-process (client/cli/run_command.h),
//                                         or on xla-server with --server=ADDR
//   xla-cli compile --aot OUT FILE        compile ahead of time; `run --executable OUT` runs it
//   xla-cli devices|status|ping|transfer  talk to a running xla-server (client/cli/server_commands.h)
// Errors print as FILE:LINE:COL: message (LINE:COL when known) and exit with status 1.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/cli/run_command.h"
#ifdef XLA_CLI_SERVER_MODE
#include "client/cli/server_commands.h"
#endif
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"
#include "hlo/status_macros.h"

namespace {

const std::string kUsage = std::string(
    "usage:\n"
    "  xla-cli parse [--no-verify] [--short] FILE\n"
    "      Parse HLO text (or a binary HloModuleProto/HloProto), verify it and print it\n"
    "      in XLA's canonical text form. --short prints the short parsable form.\n"
    "  xla-cli convert --to=proto|text [--no-verify] IN OUT\n"
    "      Convert between HLO text and binary HloModuleProto ('-' for OUT = stdout).\n") +
    xla::cli::kRunUsage + xla::cli::kCompileUsage +
#ifdef XLA_CLI_SERVER_MODE
    xla::cli::kServerUsage +
#endif
    "Errors are printed as FILE:LINE:COL: message (FILE: message without a position) with\n"
    "exit status 1; usage errors exit with status 2.\n";

constexpr int64_t kMaxInputBytes = int64_t{1} << 31;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open file");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError("cannot determine file size");
  if (size > kMaxInputBytes) return absl::InvalidArgumentError("file larger than 2 GiB");
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), size);
  if (!in) return absl::DataLossError("short read");
  return data;
}

// Binary protos contain control bytes that HLO text never does.
bool LooksLikeBinaryProto(const std::string& path, std::string_view data) {
  if (absl::EndsWith(path, ".pb") || absl::EndsWith(path, ".binpb")) return true;
  if (absl::EndsWith(path, ".hlo") || absl::EndsWith(path, ".txt")) return false;
  for (unsigned char c : data.substr(0, 4096)) {
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return true;
  }
  return false;
}

struct Options {
  bool verify = true;
  bool short_form = false;
  std::string to;
  std::vector<std::string> positional;
};

absl::StatusOr<std::unique_ptr<xla::HloModule>> Load(const std::string& path, const Options& options) {
  ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  std::unique_ptr<xla::HloModule> module;
  if (LooksLikeBinaryProto(path, data)) {
    ASSIGN_OR_RETURN(module, xla::HloModuleFromSerializedProto(data));
  } else {
    ASSIGN_OR_RETURN(module, xla::ParseAndReturnUnverifiedModule(data));
  }
  if (options.verify) RETURN_IF_ERROR(xla::VerifyHloModule(*module));
  return module;
}

// Messages that already start with "LINE:COL:" get "FILE:" prepended directly; others
// get "FILE: ".
std::string Prefixed(const absl::Status& status) {
  std::string message(status.message());
  size_t colon = message.find(':');
  bool has_location = colon != std::string::npos && colon > 0 &&
                      std::isdigit(static_cast<unsigned char>(message[0]));
  return has_location ? message : " " + message;
}

int Fail(const std::string& file, const absl::Status& status) {
  std::cerr << file << ":" << Prefixed(status) << "\n";
  return 1;
}

xla::HloPrintOptions PrintOptionsFor(const Options& options) {
  return options.short_form ? xla::HloPrintOptions::ShortParsable() : xla::HloPrintOptions::Default();
}

int RunParse(const Options& options) {
  if (options.positional.size() != 1) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& file = options.positional[0];
  auto module = Load(file, options);
  if (!module.ok()) return Fail(file, module.status());
  std::cout << xla::HloModuleToString(**module, PrintOptionsFor(options));
  return 0;
}

int RunConvert(const Options& options) {
  if (options.positional.size() != 2 || (options.to != "proto" && options.to != "text")) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& in = options.positional[0];
  const std::string& out = options.positional[1];
  auto module = Load(in, options);
  if (!module.ok()) return Fail(in, module.status());
  std::string bytes;
  if (options.to == "proto") {
    if (!xla::HloModuleToProto(**module).SerializeToString(&bytes)) {
      return Fail(out, absl::InternalError("proto serialization failed"));
    }
  } else {
    bytes = xla::HloModuleToString(**module, PrintOptionsFor(options));
  }
  if (out == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return 0;
  }
  std::ofstream os(out, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!os) return Fail(out, absl::DataLossError("cannot write output file"));
  return 0;
}

int RunRun(int argc, char** argv) {
  std::vector<std::string> flags(argv + 2, argv + argc);
#ifdef XLA_CLI_SERVER_MODE
  bool on_server = false;
  auto connection = xla::cli::ExtractConnectionFlags(&flags, &on_server);
  if (!connection.ok()) {
    std::cerr << "xla-cli run: " << connection.status().message() << "\n" << kUsage;
    return 2;
  }
  const bool platform_given =
      std::any_of(flags.begin(), flags.end(), [](const std::string& f) { return absl::StartsWith(f, "--platform="); });
#endif
  auto run_options = xla::cli::ParseRunFlags(flags);
  if (!run_options.ok()) {
    std::cerr << "xla-cli run: " << run_options.status().message() << "\n" << kUsage;
    return 2;
  }
  auto load = [](const std::string& path, bool verify) {
    Options options;
    options.verify = verify;
    return Load(path, options);
  };
#ifdef XLA_CLI_SERVER_MODE
  if (on_server) {
    return xla::cli::RunModuleOnServer(*run_options, platform_given, *connection, load, Fail, std::cout);
  }
#endif
  return xla::cli::RunModuleCommand(*run_options, load, Fail, std::cout);
}

int RunCompile(int argc, char** argv) {
  std::string out_path;
  auto options = xla::cli::ParseCompileFlags(std::vector<std::string>(argv + 2, argv + argc), &out_path);
  if (!options.ok()) {
    std::cerr << "xla-cli compile: " << options.status().message() << "\n" << kUsage;
    return 2;
  }
  auto load = [](const std::string& path, bool verify) {
    Options load_options;
    load_options.verify = verify;
    return Load(path, load_options);
  };
  return xla::cli::CompileAotCommand(*options, out_path, load, Fail, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  if (command == "run") return RunRun(argc, argv);
  if (command == "compile") return RunCompile(argc, argv);
#ifdef XLA_CLI_SERVER_MODE
  if (xla::cli::IsServerCommand(command)) {
    return xla::cli::RunServerCommand(command, std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                      std::cerr);
  }
#endif
  Options options;
  for (int i = 2; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--no-verify") {
      options.verify = false;
    } else if (arg == "--short") {
      options.short_form = true;
    } else if (absl::StartsWith(arg, "--to=")) {
      options.to = std::string(arg.substr(5));
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      std::cerr << "xla-cli: unknown flag " << arg << "\n" << kUsage;
      return 2;
    } else {
      options.positional.emplace_back(arg);
    }
  }
  if (command == "parse") return RunParse(options);
  if (command == "convert") return RunConvert(options);
  std::cerr << "xla-cli: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
