#ifndef XLA_BACKENDS_CPU_PASSES_PASS_TEST_UTIL_H_
#define XLA_BACKENDS_CPU_PASSES_PASS_TEST_UTIL_H_

// Test helpers for the CPU passes: parse HLO text, run a pass with verification, run a
// module on the reference interpreter with random arguments, and compare a module's
// results before and after a rewrite bit for bit.

#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/passes/pass.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_verifier.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace cpu {
namespace testing {

inline std::unique_ptr<HloModule> ParseOrNull(const std::string& text) {
  auto module = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  return *std::move(module);
}

// Short text of the module (names kept) for expectations.
inline std::string ToText(const HloModule& module) {
  return HloModuleToString(module, HloPrintOptions::ShortParsable());
}

// Runs `pass`, then verifies; the result is whether the pass changed the module.
inline absl::StatusOr<bool> RunPassVerified(HloPass& pass, HloModule* module) {
  absl::StatusOr<bool> changed = pass.Run(module);
  if (!changed.ok()) return changed.status();
  absl::Status verified = VerifyHloModule(*module);
  if (!verified.ok()) {
    return absl::InternalError(absl::StrCat("does not verify after ", std::string(pass.name()), ": ",
                                            verified.message(), "\n", ToText(*module)));
  }
  return *changed;
}

// A random value of every array leaf of `shape`: small integers, floats in [-3, 3]
// (with a few exact values so that rewrites around 0 and 1 are exercised), random preds.
inline Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) elements.push_back(RandomLiteral(element, rng));
    return Literal::MakeTuple(std::move(elements));
  }
  absl::StatusOr<Literal> created = Literal::Create(shape);
  if (!created.ok()) return Literal();
  Literal literal = *std::move(created);
  if (!shape.IsArray()) return literal;
  const PrimitiveType type = shape.element_type();
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  std::uniform_int_distribution<int> small(-5, 5);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (type == PRED) {
      literal.SetFromInt64(i, small(rng) > 0 ? 1 : 0);
    } else if (primitive_util::IsComplexType(type)) {
      literal.SetFromComplex(i, {real(rng), real(rng)});
    } else if (primitive_util::IsFloatingPointType(type)) {
      int pick = small(rng);
      literal.SetFromDouble(i, pick == 0 ? 0.0 : pick == 1 ? 1.0 : real(rng));
    } else if (primitive_util::IsUnsignedIntegralType(type)) {
      literal.SetFromInt64(i, small(rng) + 5);
    } else {
      literal.SetFromInt64(i, small(rng));
    }
  }
  return literal;
}

inline std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  const HloComputation* entry = module.entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(RandomLiteral(entry->parameter_instruction(i)->shape(), rng));
  }
  return args;
}

// Runs the module on the interpreter (through its text, which also checks that the
// rewritten module prints and parses back).
inline absl::StatusOr<Literal> RunOnInterpreter(const HloModule& module, absl::Span<const Literal> args) {
  return xla::testing::RunHlo(HloModuleToString(module, HloPrintOptions::Long()), args, "interpreter");
}

// Bit-exact comparison of two modules' results on the same arguments.
inline ::testing::AssertionResult SameResults(const HloModule& before, const HloModule& after,
                                              uint64_t seed = 1) {
  std::vector<Literal> args = RandomArguments(before, seed);
  absl::StatusOr<Literal> expected = RunOnInterpreter(before, args);
  if (!expected.ok()) return ::testing::AssertionFailure() << "before: " << expected.status();
  absl::StatusOr<Literal> actual = RunOnInterpreter(after, args);
  if (!actual.ok()) return ::testing::AssertionFailure() << "after: " << actual.status() << "\n" << ToText(after);
  if (!(*expected == *actual)) {
    return ::testing::AssertionFailure() << "results differ\n  before " << expected->ToString()
                                         << "\n  after  " << actual->ToString() << "\n" << ToText(after);
  }
  return ::testing::AssertionSuccess();
}

// Parses `text`, runs `pass` (verified), checks results are unchanged; returns the
// rewritten module (null on failure, with the failure recorded) and whether it changed.
struct PassResult {
  std::unique_ptr<HloModule> module;
  bool changed = false;
};
inline PassResult RunAndCompare(HloPass& pass, const std::string& text, uint64_t seed = 1) {
  PassResult result;
  std::unique_ptr<HloModule> before = ParseOrNull(text);
  std::unique_ptr<HloModule> after = ParseOrNull(text);
  if (before == nullptr || after == nullptr) return result;
  absl::StatusOr<bool> changed = RunPassVerified(pass, after.get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  if (!changed.ok()) return result;
  EXPECT_TRUE(SameResults(*before, *after, seed));
  result.changed = *changed;
  result.module = std::move(after);
  return result;
}

// Counts instructions of `opcode` in the entry computation.
inline int64_t CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int64_t n = 0;
  for (const auto& instruction : computation.instructions()) n += instruction->opcode() == opcode;
  return n;
}

}  // namespace testing
}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_PASS_TEST_UTIL_H_
