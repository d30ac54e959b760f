#ifndef XLA_BACKENDS_TESTING_HOSTILE_MODULES_H_
#define XLA_BACKENDS_TESTING_HOSTILE_MODULES_H_

// HLO modules a few dozen lines long that took the cpu and gpu compilers exponential time or
// unbounded recursion before their limits (backends/cpu/passes/call_expansion.h,
// backends/cpu/codegen/ir_emitter.h): for the backends' tests.

#include <string>

#include "absl/strings/str_cat.h"

namespace xla {
namespace testing {
namespace hostile {

// `count` lines `  {name}{k} = {type} {op}({name}{k-1}, {name}{k-1})` for k = 1..count.
inline std::string Doubling(const std::string& name, const std::string& type, const std::string& op, int count) {
  std::string lines;
  for (int k = 1; k <= count; ++k) {
    absl::StrAppend(&lines, "  ", name, k, " = ", type, " ", op, "(", name, k - 1, ", ", name, k - 1, ")\n");
  }
  return lines;
}

// An entry computation doubling its parameter of `type` `levels` times (x_k = x_{k-1} +
// x_{k-1}), negated at the end.
inline std::string DoublingModule(const std::string& type, int levels) {
  return absl::StrCat("HloModule chain\nENTRY e {\n  x0 = ", type, " parameter(0)\n",
                      Doubling("x", type, "add", levels), "  ROOT r = ", type, " negate(x", levels, ")\n}\n");
}

// Rows of f32[16,8] reduced with `red`: x0 = a + b, then `body`, then a reduce of a
// broadcast of `result`, so that `red` has arrays inside and its values are generators
// evaluated once per binding of its parameters.
inline std::string ReducerWithArrays(const std::string& body, const std::string& result) {
  return absl::StrCat(R"(HloModule reducer
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  x0 = f32[] add(a, b)
)",
                      body, "  bx = f32[1] broadcast(", result, R"(), dimensions={}
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(bx, zero), dimensions={0}, to_apply=add
}
ENTRY e {
  x = f32[16,8] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[16] reduce(x, zero), dimensions={1}, to_apply=red
}
)");
}

// Conditionals whose two branches are one computation, `levels` deep: 2^levels copies when
// each call site is emitted.
inline std::string SharedBranches(int levels) {
  std::string hlo = "HloModule cond\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(p, p)\n}\n";
  for (int k = 1; k <= levels + 1; ++k) {
    const bool entry = k == levels + 1;
    absl::StrAppend(&hlo, entry ? "ENTRY e" : absl::StrCat("c", k),
                    " {\n  p = f32[] parameter(0)\n  z = f32[] constant(0)\n  t = pred[] compare(p, z), direction=GT\n"
                    "  ROOT r = f32[] conditional(t, p, p), true_computation=c",
                    k - 1, ", false_computation=c", k - 1, "\n}\n");
  }
  return hlo;
}

// Calls nested `levels` deep (c_k calls c_{k-1}).
inline std::string NestedCalls(int levels) {
  std::string hlo = "HloModule calls\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n";
  for (int k = 1; k <= levels + 1; ++k) {
    absl::StrAppend(&hlo, k == levels + 1 ? "ENTRY e" : absl::StrCat("c", k),
                    " {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c", k - 1, "\n}\n");
  }
  return hlo;
}

// A reducer whose result is a chain of `length` values each computed from the one before:
// its generators call one another that deep.
inline std::string LongReducerChain(int length) {
  std::string chain;
  for (int k = 1; k <= length; ++k) absl::StrAppend(&chain, "  x", k, " = f32[] maximum(x", k - 1, ", b)\n");
  return ReducerWithArrays(chain, absl::StrCat("x", length));
}

// Forward differences through slices of f32[64], `levels` deep: each level reads the one
// before at two indices.
inline std::string ForwardDifferences(int levels) {
  std::string hlo = "HloModule diff\nENTRY e {\n  x0 = f32[64] parameter(0)\n";
  for (int k = 1; k <= levels; ++k) {
    const int m = 64 - k;
    absl::StrAppend(&hlo, "  a", k, " = f32[", m, "] slice(x", k - 1, "), slice={[0:", m, "]}\n  b", k, " = f32[", m,
                    "] slice(x", k - 1, "), slice={[1:", m + 1, "]}\n  ", k == levels ? "ROOT " : "", "x", k,
                    " = f32[", m, "] subtract(b", k, ", a", k, ")\n");
  }
  return hlo + "}\n";
}

}  // namespace hostile
}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_HOSTILE_MODULES_H_
