#ifndef XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_
#define XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_

// Sort comparators as frameworks emit them, for the backends' sort tests and the benchmarks.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace xla {
namespace testing {

// The body of JAX's comparator for jnp.sort / jnp.argsort of f32 over parameters x and y:
// -0 to +0 and every NaN to one NaN, then a total-order less-than (root `c`).
inline constexpr char kJaxFloatLessBody[] = R"(  zero = f32[] constant(0)
  nan = f32[] constant(nan)
  xz = pred[] compare(x, zero), direction=EQ
  x0 = f32[] select(xz, zero, x)
  xn = pred[] compare(x, x), direction=NE
  x1 = f32[] select(xn, nan, x0)
  yz = pred[] compare(y, zero), direction=EQ
  y0 = f32[] select(yz, zero, y)
  yn = pred[] compare(y, y), direction=NE
  y1 = f32[] select(yn, nan, y0)
  ROOT c = pred[] compare(x1, y1), direction=LT, type=TOTALORDER
)";

// JAX's canonicalization of float key k (parameters xk and yk of type t: -0 to +0, every
// NaN to one NaN) into instructions xk_ and yk_.
inline std::string JaxCanonicalFloat(int k, const std::string& t) {
  return absl::StrReplaceAll(R"(  zK = T[] constant(0)
  nanK = T[] constant(nan)
  xzK = pred[] compare(xK, zK), direction=EQ
  x0K = T[] select(xzK, zK, xK)
  xnK = pred[] compare(xK, xK), direction=NE
  xK_ = T[] select(xnK, nanK, x0K)
  yzK = pred[] compare(yK, zK), direction=EQ
  y0K = T[] select(yzK, zK, yK)
  ynK = pred[] compare(yK, yK), direction=NE
  yK_ = T[] select(ynK, nanK, y0K)
)",
                             {{"K", absl::StrCat(k)}, {"T", t}});
}

// One key of JaxLexicographic: the instructions compared, and whether they are floats (JAX
// compares floats in their total order).
struct JaxKey {
  std::string a, b;
  bool floating = true;
};

// JAX's lexicographic comparator over `keys`, most significant first:
// lt0 | (eq0 & (lt1 | (eq1 & ...))).
inline std::string JaxLexicographic(const std::vector<JaxKey>& keys) {
  std::string body, rest;
  for (size_t k = keys.size(); k-- > 0;) {
    const std::string& a = keys[k].a;
    const std::string& b = keys[k].b;
    const char* type = keys[k].floating ? ", type=TOTALORDER" : "";
    absl::StrAppend(&body, "  lt", k, " = pred[] compare(", a, ", ", b, "), direction=LT", type, "\n");
    if (rest.empty()) {
      rest = absl::StrCat("lt", k);
      continue;
    }
    absl::StrAppend(&body, "  eq", k, " = pred[] compare(", a, ", ", b, "), direction=EQ", type, "\n  and", k,
                    " = pred[] and(eq", k, ", ", rest, ")\n  or", k, " = pred[] or(lt", k, ", and", k, ")\n");
    rest = absl::StrCat("or", k);
  }
  const size_t newline = body.rfind('\n', body.size() - 2);  // the last line is the root
  body.insert(newline == std::string::npos ? 2 : newline + 3, "ROOT ");
  return body;
}

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_
