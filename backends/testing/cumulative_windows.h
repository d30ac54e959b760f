#ifndef XLA_BACKENDS_TESTING_CUMULATIVE_WINDOWS_H_
#define XLA_BACKENDS_TESTING_CUMULATIVE_WINDOWS_H_

// Cumulative reduce-windows (as JAX lowers cumsum, cumprod, cummax, cummin, logcumsumexp) for
// the cpu and gpu backends' scan tests (cumulative_window.h).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace testing {

// The window attribute of a cumulative reduce-window of [dims]: along `axis` a window of the
// whole dimension with padding before it (or after, `reverse`), elsewhere windows of one.
inline std::string CumulativeWindowAttr(const std::vector<int64_t>& dims, int64_t axis, bool reverse) {
  std::vector<std::string> sizes, pads;
  for (size_t d = 0; d < dims.size(); ++d) {
    const bool along = static_cast<int64_t>(d) == axis;
    sizes.push_back(std::to_string(along ? dims[d] : 1));
    pads.push_back(!along ? "0_0" : reverse ? absl::StrCat("0_", dims[d] - 1) : absl::StrCat(dims[d] - 1, "_0"));
  }
  return absl::StrCat("window={size=", absl::StrJoin(sizes, "x"), " pad=", absl::StrJoin(pads, "x"), "}");
}

// A reduce-window of T[dims] by `reducer` (the body of a computation of a and b) from init
// `init`, cumulative along `axis` (CumulativeWindowAttr); `window` replaces the window
// attribute when set.
inline std::string CumulativeWindowModule(const std::string& t, const std::vector<int64_t>& dims, int64_t axis, bool reverse,
                       const std::string& reducer, const std::string& init = "0", const std::string& window = "") {
  const std::string shape = absl::StrCat(t, "[", absl::StrJoin(dims, ","), "]");
  const std::string attr = window.empty() ? CumulativeWindowAttr(dims, axis, reverse) : window;
  return absl::StrCat("HloModule cumulative\nreduce {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                      "[] parameter(1)\n  ROOT r = ", t, "[] ", reducer, "\n}\nENTRY e {\n  x = ", shape,
                      " parameter(0)\n  init = ", t, "[] constant(", init, ")\n  ROOT s = ", shape,
                      " reduce-window(x, init), ", attr, ", to_apply=reduce\n}\n");
}

// logcumsumexp of f32[4,300] along its last dimension: the reducer is log(exp(a) + exp(b))
// in its stable form, from -inf.
inline constexpr char kLogCumSumExpModule[] = R"(HloModule logcumsumexp
reduce {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] maximum(a, b)
  da = f32[] subtract(a, m)
  db = f32[] subtract(b, m)
  ea = f32[] exponential(da)
  eb = f32[] exponential(db)
  s = f32[] add(ea, eb)
  l = f32[] log(s)
  ROOT r = f32[] add(m, l)
}
ENTRY e {
  x = f32[4,300] parameter(0)
  init = f32[] constant(-inf)
  ROOT s = f32[4,300] reduce-window(x, init), window={size=1x300 pad=0_0x299_0}, to_apply=reduce
})";

// `reduce`: a variadic reduce-window's reducer of (f32 value, s32 position) pairs keeping the
// larger value and its position, the earlier one on ties (an argmax).
inline constexpr char kMaxWithPositionReducer[] = R"(reduce {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  keep = pred[] compare(a, b), direction=GE
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
)";

// A running maximum of f32[dims] along `axis` with the position where it was first reached
// (two operands).
inline std::string CumMaxWithPositionModule(const std::vector<int64_t>& dims, int64_t axis) {
  const std::string d = absl::StrJoin(dims, ",");
  return absl::StrCat("HloModule cummax\n", kMaxWithPositionReducer, R"(ENTRY e {
  x = f32[)", d, "] parameter(0)\n  ids = s32[", d, "] iota(), iota_dimension=", axis,
                      "\n  lowest = f32[] constant(-inf)\n  none = s32[] constant(-1)\n  ROOT s = (f32[", d,
                      "], s32[", d, "]) reduce-window(x, ids, lowest, none), ", CumulativeWindowAttr(dims, axis, false),
                      ", to_apply=reduce\n}\n");
}

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_CUMULATIVE_WINDOWS_H_
