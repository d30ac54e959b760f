// __xla_cpu_sort and __xla_cpu_sort_by_keys: the sort op's runtime routines. Generated code
// copies the operands into the outputs and calls one of them on the outputs. Each line along
// the sort dimension is ordered stably, whatever is_stable says, as the interpreter: the
// stable order is a valid result and reproducible. Lines are shared out over the runtime's
// threads; then every operand's line is permuted.
//
// With the comparator alone, a line is ordered by std::stable_sort of an index permutation
// calling the comparator compiled from the HLO (std::stable_sort stays in bounds with
// comparators that are not strict weak orders, and makes the interpreter's comparisons, so
// it gives the interpreter's order even then). With key functions too (emit_sort.cc: the
// comparator compares f(one operand's elements) by LT or GT, so it orders by an unsigned key
// of f's value, or several such keys lexicographically), a line whose keys are all ordered is
// radix-sorted by them instead: the order is then a strict weak one, whose stable order is
// unique. Consecutive keys are packed into radix keys of up to 64 bits, and a line is sorted
// stably by each packed key, the least significant first. A line with an unordered key (a NaN
// under a float comparison) goes through the comparator.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <vector>

#include "backends/cpu/host_memory_pool.h"
#include "backends/cpu/runtime/runtime.h"

namespace {

// Keys [begin, end) of a job packed into one radix key of `bits` (at most 64) bits.
struct KeyGroup {
  int64_t begin, end, bits;
};

struct SortJob {
  int64_t length, inner, count;
  void** data;
  const int64_t* widths;
  XlaCpuComparator comparator;
  const XlaCpuSortKey* keys;  // key_bits.size() of them, most significant first
  const int64_t* key_operands;
  std::vector<int64_t> key_bits;
  std::vector<KeyGroup> groups;  // empty: the comparator orders every line
};

// Scratch memory of every sort, kept once freed (up to 256 MiB in all): fresh pages cost far
// more to write than reused ones (host_memory_pool.h).
xla::cpu::HostMemoryPool& ScratchPool() {
  static auto* pool = new xla::cpu::HostMemoryPool(int64_t{256} << 20);
  return *pool;
}

// An array of uninitialized elements from ScratchPool, reallocated only to grow (every
// element is written before it is read).
template <typename T>
class Buffer {
 public:
  T* data() { return static_cast<T*>(block_.get()); }
  T& operator[](int64_t i) { return data()[i]; }
  void Resize(int64_t n) {
    if (n <= capacity_) return;
    block_ = ScratchPool().Allocate(n * static_cast<int64_t>(sizeof(T)));
    if (block_ == nullptr) throw std::bad_alloc();
    capacity_ = n;
  }
  void Release() {
    block_.reset();
    capacity_ = 0;
  }

 private:
  std::shared_ptr<void> block_;
  int64_t capacity_ = 0;
};

// Scratch of one thread, kept between lines and calls up to kKeptScratch elements.
struct Scratch {
  Buffer<int64_t> order, other;  // order[j]: the element that goes to position j
  Buffer<uint64_t> keys, other_keys;
  Buffer<uint32_t> keys32, other_keys32;
  Buffer<char> line;
  std::vector<void*> elements;
};
constexpr int64_t kKeptScratch = int64_t{1} << 16;

void OrderByComparator(const SortJob& job, int64_t first, Scratch& s) {
  s.elements.resize(2 * job.count);
  std::stable_sort(s.order.data(), s.order.data() + job.length, [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < job.count; ++k) {
      char* base = static_cast<char*>(job.data[k]);
      s.elements[2 * k] = base + (first + a * job.inner) * job.widths[k];
      s.elements[2 * k + 1] = base + (first + b * job.inner) * job.widths[k];
    }
    return job.comparator(s.elements.data()) != 0;
  });
}

// Stable LSD radix sort of s.order by `keys` (ascending, `bits` significant bits), 8 bits a
// pass; passes whose digit is the same for every key are skipped.
// keys[j] is the key of element s.order[j].
template <typename K>
void RadixOrder(int64_t n, int64_t bits, Buffer<K>& keys, Buffer<K>& other_keys, Scratch& s) {
  constexpr int64_t kShort = 64;
  if (n < kShort) {  // short lines: a comparison sort of the keys is cheaper
    std::array<std::pair<K, int64_t>, kShort> pairs;
    for (int64_t j = 0; j < n; ++j) pairs[j] = {keys[j], s.order[j]};
    std::stable_sort(pairs.begin(), pairs.begin() + n, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int64_t j = 0; j < n; ++j) s.order[j] = pairs[j].second;
    return;
  }
  const int passes = static_cast<int>((bits + 7) / 8);  // at most 8 (keys of up to 64 bits)
  std::array<std::array<int64_t, 256>, 8> counts{};
  for (int64_t j = 0; j < n; ++j) {
    const K key = keys[j];
    for (int p = 0; p < passes; ++p) ++counts[p][(key >> (8 * p)) & 0xFF];
  }
  s.other.Resize(n);
  other_keys.Resize(n);
  // order[j] is the element in position j, keys[j] its key (moved with it).
  for (int p = 0; p < passes; ++p) {
    std::array<int64_t, 256>& c = counts[p];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;  // one digit for all
    int64_t start = 0;
    for (int64_t& v : c) {
      const int64_t here = v;
      v = start;
      start += here;
    }
    const int shift = 8 * p;
    const int64_t* order = s.order.data();
    int64_t* to = s.other.data();
    const K* from_keys = keys.data();
    K* to_keys = other_keys.data();
    for (int64_t j = 0; j < n; ++j) {
      const K key = from_keys[j];
      const int64_t at = c[(key >> shift) & 0xFF]++;
      to[at] = order[j];
      to_keys[at] = key;
    }
    std::swap(s.order, s.other);
    std::swap(keys, other_keys);
  }
}

// keys[j]: group g's packed key of the line's element s.order[j]; false when a key is
// unordered.
template <typename K>
bool GroupKeys(const SortJob& job, const KeyGroup& g, int64_t first, Buffer<K>& keys, Scratch& s) {
  keys.Resize(job.length);
  const int64_t* order = s.order.data();
  for (int64_t c = g.begin; c < g.end; ++c) {
    const char* base = static_cast<const char*>(job.data[job.key_operands[c]]);
    const int64_t w = job.widths[job.key_operands[c]];
    const XlaCpuSortKey f = job.keys[c];
    const int64_t shift = job.key_bits[c];  // below 64 where a key is before it
    for (int64_t j = 0; j < job.length; ++j) {
      uint64_t key = 0;
      if (f(base + (first + order[j] * job.inner) * w, &key) != 0) return false;
      keys[j] = static_cast<K>(c == g.begin ? key : (static_cast<uint64_t>(keys[j]) << shift) | key);
    }
  }
  return true;
}

// Orders a line by the job's keys, the least significant group first (each radix sort is
// stable); false when a key is unordered.
bool OrderByKeys(const SortJob& job, int64_t first, Scratch& s) {
  for (auto g = job.groups.rbegin(); g != job.groups.rend(); ++g) {
    // Keys of up to 32 bits sort as uint32_t (half the memory traffic of uint64_t).
    if (g->bits <= 32) {
      if (!GroupKeys(job, *g, first, s.keys32, s)) return false;
      RadixOrder(job.length, g->bits, s.keys32, s.other_keys32, s);
    } else {
      if (!GroupKeys(job, *g, first, s.keys, s)) return false;
      RadixOrder(job.length, g->bits, s.keys, s.other_keys, s);
    }
  }
  return true;
}

// Puts element order[j] of a line of n elements of `width` bytes in position j. Width W
// (when not 0) is the same as `width`, known at compile time, so the copies are plain moves.
template <int64_t W>
void PermuteLine(char* base, int64_t width, int64_t first, int64_t inner, const int64_t* order, int64_t n,
                 Buffer<char>& line) {
  const int64_t w = W != 0 ? W : width;
  line.Resize(n * w);
  char* tmp = line.data();
  for (int64_t j = 0; j < n; ++j) std::memcpy(tmp + j * w, base + (first + order[j] * inner) * w, w);
  for (int64_t j = 0; j < n; ++j) std::memcpy(base + (first + j * inner) * w, tmp + j * w, w);
}

// Sorts lines [begin, end) of the job in slots[0].
void SortLines(void** slots, int64_t begin, int64_t end) {
  const SortJob& job = *static_cast<const SortJob*>(slots[0]);
  thread_local Scratch s;
  for (int64_t line = begin; line < end; ++line) {
    const int64_t first = (line / job.inner) * job.length * job.inner + line % job.inner;  // its first element
    s.order.Resize(job.length);
    std::iota(s.order.data(), s.order.data() + job.length, 0);
    if (job.groups.empty() || !OrderByKeys(job, first, s)) {
      std::iota(s.order.data(), s.order.data() + job.length, 0);
      OrderByComparator(job, first, s);
    }
    for (int64_t k = 0; k < job.count; ++k) {
      char* base = static_cast<char*>(job.data[k]);
      const int64_t w = job.widths[k];
      const int64_t* order = s.order.data();
      switch (w) {
        case 1: PermuteLine<1>(base, w, first, job.inner, order, job.length, s.line); break;
        case 2: PermuteLine<2>(base, w, first, job.inner, order, job.length, s.line); break;
        case 4: PermuteLine<4>(base, w, first, job.inner, order, job.length, s.line); break;
        case 8: PermuteLine<8>(base, w, first, job.inner, order, job.length, s.line); break;
        default: PermuteLine<0>(base, w, first, job.inner, order, job.length, s.line); break;
      }
    }
  }
  if (job.length > kKeptScratch) {  // a long line's scratch is not kept
    s.order.Release();
    s.other.Release();
    s.keys.Release();
    s.other_keys.Release();
    s.keys32.Release();
    s.other_keys32.Release();
    s.line.Release();
  }
}

void Sort(int64_t outer, int64_t length, int64_t inner, const SortJob& job) {
  if (outer <= 0 || length <= 1 || inner <= 0) return;
  void* slots[1] = {const_cast<SortJob*>(&job)};
  // About length * log2(length) steps a line.
  int64_t log2 = 1;
  while ((int64_t{1} << log2) < length) ++log2;
  xla::cpu::ParallelFor(&SortLines, slots, outer * inner, length * log2);
}

}  // namespace

extern "C" void __xla_cpu_sort(int64_t outer, int64_t length, int64_t inner, int64_t count, void** data,
                               const int64_t* widths, XlaCpuComparator comparator) {
  xla::cpu::RunRoutine("sort", [&] {
    Sort(outer, length, inner, SortJob{length, inner, count, data, widths, comparator, nullptr, nullptr, {}, {}});
  });
}

extern "C" void __xla_cpu_sort_by_keys(int64_t outer, int64_t length, int64_t inner, int64_t count, void** data,
                                       const int64_t* widths, XlaCpuComparator comparator, int64_t key_count,
                                       const XlaCpuSortKey* keys, const int64_t* key_operands,
                                       const int64_t* key_bits) {
  xla::cpu::RunRoutine("sort", [&] {
    SortJob job{length, inner, count, data, widths, comparator, keys, key_operands,
                std::vector<int64_t>(key_bits, key_bits + key_count), {}};
    // Greedy packing from the most significant key: a group ends where the next key would
    // take it past 64 bits.
    for (int64_t c = 0; c < key_count; ++c) {
      if (job.groups.empty() || job.groups.back().bits + key_bits[c] > 64) {
        job.groups.push_back(KeyGroup{c, c, 0});
      }
      job.groups.back().end = c + 1;
      job.groups.back().bits += key_bits[c];
    }
    Sort(outer, length, inner, job);
  });
}
