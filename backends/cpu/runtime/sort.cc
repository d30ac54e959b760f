// __xla_cpu_sort: the sort op's runtime routine. Generated code copies the operands into
// the outputs and calls it with a comparator compiled from the HLO comparator; each line
// along the sort dimension is ordered by std::stable_sort of an index permutation (stable
// whatever is_stable says, as the interpreter: the stable order is a valid result and
// reproducible, and std::stable_sort stays in bounds with comparators that are not strict
// weak orders), then every operand's line is permuted.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "backends/cpu/runtime/runtime.h"

extern "C" void __xla_cpu_sort(int64_t outer, int64_t length, int64_t inner, int64_t count, void** data,
                               const int64_t* widths, XlaCpuComparator comparator) {
  if (outer <= 0 || length <= 1 || inner <= 0) return;
  std::vector<int64_t> permutation(length);
  std::vector<void*> elements(2 * count);
  std::vector<char> line;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t first = o * length * inner + i;  // element index of the line's start
      std::iota(permutation.begin(), permutation.end(), 0);
      std::stable_sort(permutation.begin(), permutation.end(), [&](int64_t a, int64_t b) {
        for (int64_t k = 0; k < count; ++k) {
          char* base = static_cast<char*>(data[k]);
          elements[2 * k] = base + (first + a * inner) * widths[k];
          elements[2 * k + 1] = base + (first + b * inner) * widths[k];
        }
        return comparator(elements.data()) != 0;
      });
      for (int64_t k = 0; k < count; ++k) {
        const int64_t w = widths[k];
        char* base = static_cast<char*>(data[k]);
        line.resize(length * w);
        for (int64_t j = 0; j < length; ++j) std::memcpy(&line[j * w], base + (first + permutation[j] * inner) * w, w);
        for (int64_t j = 0; j < length; ++j) std::memcpy(base + (first + j * inner) * w, &line[j * w], w);
      }
    }
  }
}
