// libFuzzer target: HLO text -> parse -> verify -> compile and run on the interpreter and on
// cpu, each on the same random arguments. Whatever a client sends, the server must answer with
// a status: no crash, hang, leak or sanitizer report on either backend. Modules are kept small
// (every value at most kMaxElements elements) so that each input runs in milliseconds; ops that
// wait on the host (infeed, send/recv) or fill a queue nothing drains (outfeed) are skipped.
//
// XLA_FUZZ_VERBOSE=1 prints each admitted module's outcome on both backends.
// XLA_FUZZ_COMPARE=1 also checks agreement: where both backends succeed on a module whose
// values are all integers or pred (no float rounding, no unordered sums), their results must be
// equal, and a backend that refuses what the other ran is reported (abort in both cases).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/testing/random_values.h"
#include "backends/testing/run_hlo.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 12;
constexpr int64_t kMaxLeaves = 64;
constexpr int64_t kMaxInstructions = 400;
constexpr std::chrono::seconds kDeadline(3);

// Counts a shape's array leaves into *leaves; false when one is too large.
bool SmallShape(const xla::Shape& shape, int64_t* leaves) {
  if (shape.IsTuple()) {
    for (const xla::Shape& element : shape.tuple_shapes()) {
      if (!SmallShape(element, leaves)) return false;
    }
    return true;
  }
  if (!shape.IsArray()) return true;
  if (++*leaves > kMaxLeaves) return false;
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0 || d > kMaxElements) return false;
    n *= d;
    if (n > kMaxElements) return false;
  }
  return true;
}

// Small, self-contained modules only; `*integral` says whether every value is an integer or pred.
bool Admissible(const xla::HloModule& module, bool* integral) {
  int64_t count = 0;
  *integral = true;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      if (++count > kMaxInstructions) return false;
      switch (instruction->opcode()) {
        case xla::HloOpcode::kInfeed:
        case xla::HloOpcode::kOutfeed:
        case xla::HloOpcode::kSend:
        case xla::HloOpcode::kSendDone:
        case xla::HloOpcode::kRecv:
        case xla::HloOpcode::kRecvDone:
          return false;
        default:
          break;
      }
      // Results that the semantics leave open differ between correct backends.
      if (instruction->opcode() == xla::HloOpcode::kRng || instruction->opcode() == xla::HloOpcode::kSort ||
          instruction->opcode() == xla::HloOpcode::kCustomCall) {
        *integral = false;
      }
      int64_t leaves = 0;
      if (!SmallShape(instruction->shape(), &leaves)) return false;
      xla::ShapeUtil::ForEachSubshape(instruction->shape(), [&](const xla::Shape& leaf, const xla::ShapeIndex&) {
        if (leaf.IsArray() && !xla::primitive_util::IsIntegralType(leaf.element_type()) &&
            leaf.element_type() != xla::PRED) {
          *integral = false;
        }
      });
    }
  }
  return true;
}

// Deterministic arguments from the input's bytes (edge-case integers, float specials).
absl::StatusOr<std::vector<xla::Literal>> Arguments(const xla::HloModule& module, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<xla::Literal> args;
  for (const xla::HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    absl::StatusOr<xla::Literal> literal = xla::testing::RandomValues(parameter->shape(), &rng);
    if (!literal.ok()) return literal.status();
    args.push_back(*std::move(literal));
  }
  return args;
}

// Compiles and runs `text` on `backend`, cancelled kDeadline from now.
absl::StatusOr<xla::Literal> RunOn(xla::backend::Backend& backend, std::string_view text,
                                   const std::vector<xla::Literal>& args) {
  xla::backend::ExecuteOptions options;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  options.should_cancel = [deadline] { return std::chrono::steady_clock::now() > deadline; };
  return xla::testing::RunHloOn(backend, text, args, options);
}

struct Backends {
  std::unique_ptr<xla::backend::Backend> interpreter;
  std::unique_ptr<xla::backend::Backend> cpu;
};

Backends& Shared() {
  static Backends* backends = [] {
    xla::backend::RegisterBuiltinBackends();
    xla::cpu::RegisterCpuBackend();
    auto* b = new Backends;
    auto interpreter = xla::backend::CreateBackend("interpreter");
    auto cpu = xla::backend::CreateBackend("cpu");
    if (!interpreter.ok() || !cpu.ok()) {
      std::fprintf(stderr, "hlo_compile_fuzz: cannot create the backends\n");
      std::abort();
    }
    b->interpreter = *std::move(interpreter);
    b->cpu = *std::move(cpu);
    return b;
  }();
  return *backends;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{1} << 16)) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xla::ParseAndReturnUnverifiedModule(text);
  if (!module.ok() || !xla::VerifyHloModule(**module).ok()) return 0;
  bool integral = false;
  if (!Admissible(**module, &integral)) return 0;
  uint64_t seed = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) seed = (seed ^ data[i]) * 1099511628211ull;
  auto args = Arguments(**module, seed);
  if (!args.ok()) return 0;
  Backends& backends = Shared();
  absl::StatusOr<xla::Literal> expected = RunOn(*backends.interpreter, text, *args);
  absl::StatusOr<xla::Literal> actual = RunOn(*backends.cpu, text, *args);
  static const bool verbose = std::getenv("XLA_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "hlo_compile_fuzz: %s: interpreter %s; cpu %s\n", (*module)->name().c_str(),
                 expected.ok() ? "ok" : std::string(expected.status().message()).substr(0, 160).c_str(),
                 actual.ok() ? "ok" : std::string(actual.status().message()).substr(0, 160).c_str());
  }
  static const bool compare = std::getenv("XLA_FUZZ_COMPARE") != nullptr;
  if (!compare) return 0;
  const bool cancelled = (!expected.ok() && absl::IsCancelled(expected.status())) ||
                         (!actual.ok() && absl::IsCancelled(actual.status()));
  if (cancelled) return 0;
  if (expected.ok() != actual.ok()) {
    std::fprintf(stderr, "hlo_compile_fuzz: interpreter %s, cpu %s\n%.*s\n",
                 expected.ok() ? "ok" : std::string(expected.status().message()).c_str(),
                 actual.ok() ? "ok" : std::string(actual.status().message()).c_str(), static_cast<int>(size),
                 text.data());
    std::abort();
  }
  if (expected.ok() && integral && !(*expected == *actual)) {
    std::fprintf(stderr, "hlo_compile_fuzz: results differ\ninterpreter %s\ncpu %s\n%.*s\n",
                 expected->ToString().c_str(), actual->ToString().c_str(), static_cast<int>(size), text.data());
    std::abort();
  }
  return 0;
}
