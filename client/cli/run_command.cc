#include "client/cli/run_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/backend.h"
#include "backends/executable_format.h"
#include "client/cli/npy.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cli {

std::string DefaultPlatform() {
  backend::RegisterBuiltinBackends();
  for (const std::string& platform : backend::RegisteredPlatforms()) {
    if (platform == "cpu") return platform;
  }
  return "interpreter";
}

const char kRunUsage[] =
    "  xla-cli run FILE [--platform=NAME] [--arg=LITERAL | --arg=@FILE.npy]... [--random-args]\n"
    "              [--seed=N] [--repeat=N] [--json] [--output-dir=DIR] [--no-verify] [--executable]\n"
    "      Compile FILE (HLO text or binary HloModuleProto) on a backend (default: cpu when built)\n"
    "      and run it in-process. Give one --arg per entry parameter, in order: an XLA literal\n"
    "      (--arg='f32[2] {1, 2}') or a .npy file (--arg=@x.npy; the dtype and shape must match\n"
    "      exactly; bf16/f8 need ml_dtypes' descr names such as 'bfloat16'). --random-args\n"
    "      fills every parameter with seeded random values (floats in [-1,1), small ints;\n"
    "      --seed, default 0). The result prints as an XLA literal. --repeat=N executes N times;\n"
    "      --json prints {\"compile_ms\", \"execute_ms\": {min, median, max}, \"repeat\", \"platform\",\n"
    "      \"result_shape\"} instead (execute time is Execute alone). --output-dir=DIR writes the\n"
    "      result as DIR/0.npy, 1.npy, ...: one file per array leaf of the result, nested tuples\n"
    "      flattened depth-first in order, tokens skipped; an array result is DIR/0.npy.\n"
    "      --executable: FILE is a serialized executable from `xla-cli compile --aot`, run without\n"
    "      compiling (on the platform it was compiled for; \"compile_ms\" is then the load time).\n";

const char kCompileUsage[] =
    "  xla-cli compile --aot OUT [--platform=NAME] [--no-verify] FILE\n"
    "      Compile FILE ahead of time (default platform: cpu when built) and write the serialized\n"
    "      executable (object code, buffer plan, optimized module; it loads only on the same\n"
    "      xla-server version and host CPU) to OUT; `xla-cli run --executable OUT` runs it.\n";

namespace {

absl::Status UsageError(const std::string& message) { return absl::InvalidArgumentError(message); }

// splitmix64: a tiny portable generator, so --seed gives the same values everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) with 53 random bits.
  double Signed() { return -1.0 + static_cast<double>(Next() >> 11) * 0x1p-52; }
  int64_t Between(int64_t lo, int64_t hi) {  // inclusive; hi - lo is small
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

absl::StatusOr<Literal> RandomLiteralImpl(const Shape& shape, Random& rng) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      ASSIGN_OR_RETURN(Literal literal, RandomLiteralImpl(element, rng));
      elements.push_back(std::move(literal));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  ASSIGN_OR_RETURN(Literal literal, Literal::Create(shape));
  if (!shape.IsArray()) return literal;  // token
  const PrimitiveType type = shape.element_type();
  const int64_t n = literal.element_count();
  if (type == PRED) {
    for (int64_t i = 0; i < n; ++i) literal.SetFromInt64(i, static_cast<int64_t>(rng.Next() >> 63));
  } else if (primitive_util::IsComplexType(type)) {
    for (int64_t i = 0; i < n; ++i) {
      double re = rng.Signed();
      literal.SetFromComplex(i, {re, rng.Signed()});
    }
  } else if (primitive_util::IsFloatingPointType(type)) {
    // Narrow types may round values near 1 up to 1 (kept in range by flipping the sign);
    // F8E8M0FNU has no sign or zero (powers of two only): it gets |value| in (0, 1].
    const bool unsigned_float = type == F8E8M0FNU;
    for (int64_t i = 0; i < n; ++i) {
      const double value = rng.Signed();
      literal.SetFromDouble(i, unsigned_float ? std::fabs(value) : value);
      if (!unsigned_float && literal.GetAsDouble(i) >= 1.0) literal.SetFromDouble(i, -value);
    }
  } else if (primitive_util::IsIntegralType(type)) {
    const int bits = primitive_util::BitWidth(type);
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    int64_t lo = 0, hi = 15;
    if (is_signed) {
      lo = bits >= 5 ? -8 : -(int64_t{1} << (bits - 1));
      hi = bits >= 5 ? 8 : (int64_t{1} << (bits - 1)) - 1;
    } else if (bits < 4) {
      hi = (int64_t{1} << bits) - 1;
    }
    for (int64_t i = 0; i < n; ++i) literal.SetFromInt64(i, rng.Between(lo, hi));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("cannot make random values of ", shape.ToString()));
  }
  return literal;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string ShortText(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

// One literal per entry parameter, checked against the parameter's shape (layout ignored).
absl::StatusOr<std::vector<Literal>> BuildArguments(const RunOptions& options, const HloComputation& entry,
                                                    const ErrorReporter& fail, int* exit_status) {
  const int64_t count = entry.num_parameters();
  std::vector<const HloInstruction*> params(count);
  for (int64_t i = 0; i < count; ++i) {
    params[i] = entry.parameter_instruction(i);
    if (params[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat("entry parameter ", i, " is missing"));
  }
  std::vector<Literal> literals;
  if (options.random_args) {
    for (int64_t i = 0; i < count; ++i) {
      // Each parameter has its own stream so adding a parameter does not change the others.
      ASSIGN_OR_RETURN(Literal literal, RandomLiteral(params[i]->shape(), options.seed + 0x1000003ull * i));
      literals.push_back(std::move(literal));
    }
    return literals;
  }
  if (static_cast<int64_t>(options.args.size()) != count) {
    std::string expected;
    for (int64_t i = 0; i < count; ++i) {
      absl::StrAppend(&expected, i == 0 ? "" : ", ", params[i]->name(), ": ",
                      ShapeUtil::HumanString(params[i]->shape()));
    }
    return absl::InvalidArgumentError(absl::StrCat("the entry computation takes ", count, " argument",
                                                   count == 1 ? "" : "s", " (", expected, "), got ",
                                                   options.args.size(), " --arg"));
  }
  for (int64_t i = 0; i < count; ++i) {
    const std::string& arg = options.args[i];
    const std::string what = absl::StrCat("argument ", i, " (parameter '", params[i]->name(), "')");
    absl::StatusOr<Literal> literal;
    if (absl::StartsWith(arg, "@")) {
      const std::string path = arg.substr(1);
      literal = npy::ReadNpyFile(path);
      if (!literal.ok()) {
        // Errors in the .npy are about that file.
        *exit_status = fail(path, absl::Status(literal.status().code(),
                                               absl::StrCat(what, ": ", literal.status().message())));
        return absl::CancelledError("reported");
      }
    } else {
      literal = Literal::Parse(arg);
      if (!literal.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(what, ": cannot parse literal '", ShortText(arg),
                                                       "': ", literal.status().message()));
      }
    }
    const Shape& expected = params[i]->shape();
    if (!ShapeUtil::Compatible(literal->shape(), expected)) {
      return absl::InvalidArgumentError(absl::StrCat(what, " expects ", ShapeUtil::HumanString(expected), ", got ",
                                                     ShapeUtil::HumanString(literal->shape()),
                                                     absl::StartsWith(arg, "@") ? absl::StrCat(" from ", arg) : ""));
    }
    literals.push_back(*std::move(literal));
  }
  return literals;
}

void CollectArrayLeaves(const Literal& literal, std::vector<const Literal*>* leaves) {
  if (literal.IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) CollectArrayLeaves(literal.tuple_element(i), leaves);
  } else if (literal.shape().IsArray()) {
    leaves->push_back(&literal);
  }
}

absl::Status WriteOutputs(const std::string& dir, const Literal& result) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot create directory ", dir, ": ", ec.message()));
  std::vector<const Literal*> leaves;
  CollectArrayLeaves(result, &leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    RETURN_IF_ERROR(npy::WriteNpyFile(absl::StrCat(dir, "/", i, ".npy"), *leaves[i]));
  }
  return absl::OkStatus();
}

double Milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

absl::StatusOr<std::vector<Literal>> BuildRunArguments(const RunOptions& options, const HloComputation& entry,
                                                       const ErrorReporter& fail, int* exit_status) {
  return BuildArguments(options, entry, fail, exit_status);
}

absl::Status WriteRunOutputs(const std::string& dir, const Literal& result) { return WriteOutputs(dir, result); }

absl::StatusOr<Literal> RandomLiteral(const Shape& shape, uint64_t seed) {
  Random rng(seed);
  return RandomLiteralImpl(shape, rng);
}

absl::StatusOr<RunOptions> ParseRunFlags(const std::vector<std::string>& flags) {
  RunOptions options;
  std::vector<std::string> positional;
  for (const std::string& flag : flags) {
    auto value_of = [&](absl::string_view name) -> std::optional<std::string> {
      std::string prefix = absl::StrCat(std::string(name), "=");
      if (!absl::StartsWith(flag, prefix)) return std::nullopt;
      return flag.substr(prefix.size());
    };
    if (auto v = value_of("--platform")) {
      if (v->empty()) return UsageError("--platform needs a name");
      options.platform = *v;
      options.platform_given = true;
    } else if (auto v = value_of("--arg")) {
      options.args.push_back(*v);
    } else if (auto v = value_of("--seed")) {
      if (!absl::SimpleAtoi(*v, &options.seed)) return UsageError(absl::StrCat("bad --seed '", *v, "'"));
    } else if (auto v = value_of("--repeat")) {
      if (!absl::SimpleAtoi(*v, &options.repeat) || options.repeat < 1 || options.repeat > 1000000) {
        return UsageError(absl::StrCat("bad --repeat '", *v, "' (1 to 1000000)"));
      }
    } else if (auto v = value_of("--output-dir")) {
      if (v->empty()) return UsageError("--output-dir needs a directory");
      options.output_dir = *v;
    } else if (flag == "--random-args") {
      options.random_args = true;
    } else if (flag == "--json") {
      options.json = true;
    } else if (flag == "--no-verify") {
      options.verify = false;
    } else if (flag == "--executable") {
      options.executable = true;
    } else if (flag.size() > 1 && flag[0] == '-') {
      return UsageError(absl::StrCat("unknown flag ", flag));
    } else {
      positional.push_back(flag);
    }
  }
  if (positional.size() != 1) return UsageError("run takes exactly one FILE");
  if (options.random_args && !options.args.empty()) return UsageError("--random-args and --arg exclude each other");
  options.file = positional[0];
  return options;
}

absl::StatusOr<std::string> ReadBinaryFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError("cannot determine file size");
  if (size > (std::streamoff{1} << 31)) return absl::InvalidArgumentError("file larger than 2 GiB");
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), size);
  if (!in) return absl::DataLossError("short read");
  return data;
}

namespace {

// The executable of `options.file`: compiled from the module, or loaded (--executable).
struct Prepared {
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<backend::Executable> executable;
  std::string platform;
  double compile_ms = 0;
};

absl::StatusOr<Prepared> LoadExecutable(const RunOptions& options) {
  ASSIGN_OR_RETURN(std::string bytes, ReadBinaryFile(options.file));
  Prepared prepared;
  prepared.platform = options.platform;
  if (!options.platform_given) {
    ASSIGN_OR_RETURN(backend::ExecutableFields fields, backend::ReadExecutableContainer(bytes));
    ASSIGN_OR_RETURN(std::string_view platform, fields.Get("platform"));
    prepared.platform = std::string(platform);
  }
  ASSIGN_OR_RETURN(prepared.backend, backend::CreateBackend(prepared.platform));
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(prepared.executable, prepared.backend->DeserializeExecutable(bytes, 0));
  prepared.compile_ms = Milliseconds(std::chrono::steady_clock::now() - start);
  return prepared;
}

}  // namespace

absl::StatusOr<RunOptions> ParseCompileFlags(const std::vector<std::string>& flags, std::string* aot_out) {
  RunOptions options;
  std::vector<std::string> positional;
  aot_out->clear();
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& flag = flags[i];
    if (flag == "--aot") {
      if (i + 1 >= flags.size()) return UsageError("--aot needs an output file");
      *aot_out = flags[++i];
    } else if (absl::StartsWith(flag, "--aot=")) {
      *aot_out = flag.substr(6);
    } else if (absl::StartsWith(flag, "--platform=")) {
      options.platform = flag.substr(11);
      options.platform_given = true;
      if (options.platform.empty()) return UsageError("--platform needs a name");
    } else if (flag == "--no-verify") {
      options.verify = false;
    } else if (flag.size() > 1 && flag[0] == '-') {
      return UsageError(absl::StrCat("unknown flag ", flag));
    } else {
      positional.push_back(flag);
    }
  }
  if (aot_out->empty()) return UsageError("compile needs --aot OUT (the serialized executable's file)");
  if (positional.size() != 1) return UsageError("compile takes exactly one FILE");
  options.file = positional[0];
  return options;
}

int CompileAotCommand(const RunOptions& options, const std::string& out_path, const ModuleLoader& load,
                      const ErrorReporter& fail, std::ostream& out) {
  const std::string& file = options.file;
  auto module = load(file, options.verify);
  if (!module.ok()) return fail(file, module.status());
  auto backend = backend::CreateBackend(options.platform);
  if (!backend.ok()) return fail(file, backend.status());
  const auto start = std::chrono::steady_clock::now();
  auto executable = (*backend)->Compile(*std::move(module), backend::CompileOptions());
  if (!executable.ok()) return fail(file, executable.status());
  auto bytes = (*backend)->SerializeExecutable(**executable);
  if (!bytes.ok()) return fail(file, bytes.status());
  const double ms = Milliseconds(std::chrono::steady_clock::now() - start);
  std::ofstream os(out_path, std::ios::binary | std::ios::trunc);
  os.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  os.close();
  if (!os) return fail(out_path, absl::DataLossError("cannot write the executable"));
  out << absl::StrFormat("%s: %d bytes, platform %s, compiled in %.1f ms\n", out_path, bytes->size(),
                         options.platform, ms);
  return 0;
}

int RunModuleCommand(const RunOptions& options, const ModuleLoader& load, const ErrorReporter& fail,
                     std::ostream& out) {
  const std::string& file = options.file;
  Prepared prepared;
  std::vector<Literal> arguments;
  int reported = 0;
  if (options.executable) {
    auto loaded = LoadExecutable(options);
    if (!loaded.ok()) return fail(file, loaded.status());
    prepared = *std::move(loaded);
    const HloComputation* entry = prepared.executable->module().entry_computation();
    if (entry == nullptr) return fail(file, absl::InvalidArgumentError("module has no entry computation"));
    auto built = BuildArguments(options, *entry, fail, &reported);
    if (!built.ok()) return reported != 0 ? reported : fail(file, built.status());
    arguments = *std::move(built);
  } else {
    auto module = load(file, options.verify);
    if (!module.ok()) return fail(file, module.status());
    const HloComputation* entry = (*module)->entry_computation();
    if (entry == nullptr) return fail(file, absl::InvalidArgumentError("module has no entry computation"));
    auto built = BuildArguments(options, *entry, fail, &reported);
    if (!built.ok()) return reported != 0 ? reported : fail(file, built.status());
    arguments = *std::move(built);
    auto backend = backend::CreateBackend(options.platform);
    if (!backend.ok()) return fail(file, backend.status());
    prepared.backend = *std::move(backend);
    prepared.platform = options.platform;
    const auto compile_start = std::chrono::steady_clock::now();
    auto executable = prepared.backend->Compile(*std::move(module), backend::CompileOptions());
    prepared.compile_ms = Milliseconds(std::chrono::steady_clock::now() - compile_start);
    if (!executable.ok()) return fail(file, executable.status());
    prepared.executable = *std::move(executable);
  }
  backend::Backend* const device = prepared.backend.get();
  const double compile_ms = prepared.compile_ms;
  auto& executable = prepared.executable;

  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& literal : arguments) {
    auto buffer = device->TransferToDevice(literal, 0);
    if (!buffer.ok()) return fail(file, buffer.status());
    buffers.push_back(*std::move(buffer));
  }

  std::vector<double> execute_ms;
  std::shared_ptr<backend::Buffer> result_buffer;
  for (int64_t i = 0; i < options.repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto result = executable->Execute(buffers, backend::ExecuteOptions());
    execute_ms.push_back(Milliseconds(std::chrono::steady_clock::now() - start));
    if (!result.ok()) return fail(file, result.status());
    result_buffer = *std::move(result);
  }
  auto result = device->TransferFromDevice(*result_buffer);
  if (!result.ok()) return fail(file, result.status());

  if (!options.output_dir.empty()) {
    absl::Status written = WriteOutputs(options.output_dir, *result);
    if (!written.ok()) return fail(options.output_dir, written);
  }
  if (options.json) {
    std::vector<double> sorted = execute_ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    out << absl::StrFormat(
        "{\"compile_ms\": %.6f, \"execute_ms\": {\"min\": %.6f, \"median\": %.6f, \"max\": %.6f}, "
        "\"repeat\": %d, \"platform\": %s, \"result_shape\": %s}\n",
        compile_ms, sorted.front(), median, sorted.back(), options.repeat, JsonString(prepared.platform),
        JsonString(ShapeUtil::HumanString(result->shape())));
  } else {
    out << result->ToString() << "\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace xla
