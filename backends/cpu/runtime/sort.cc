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
// stably by each packed key, the least significant first (a radix key of up to 32 bits moves
// through the passes in one word with its element's position). A line with an unordered key
// (a NaN under a float comparison) goes through the comparator.
//
// A sort of fewer lines than threads whose lines are long (runtime.h SplitLines) splits each
// line instead: its keys are computed, each radix pass counted and scattered, and its
// operands permuted by all the threads, each over its own contiguous part of the line (a pass
// scatters part by part in order, so it stays stable). The comparator's sort of such a line
// stays on one thread: it must make the interpreter's comparisons.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backends/cpu/host_memory_pool.h"
#include "backends/cpu/runtime/runtime.h"

namespace {

using xla::cpu::ForEachPart;
using xla::cpu::LineParts;
using xla::cpu::SplitLine;

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

// What a radix pass moves: a key and the position of its element in the line. Keys of up to
// 32 bits in lines of fewer than 2^32 elements go as one word, the key above the position (8
// bytes an element a pass, one store); wider ones as a pair.
struct PackedItem {
  uint64_t word;
  static PackedItem Make(uint64_t key, int64_t position) {
    return PackedItem{key << 32 | static_cast<uint64_t>(position)};
  }
  int64_t Position() const { return static_cast<int64_t>(word & 0xFFFFFFFFu); }
  unsigned Digit(int shift) const { return static_cast<unsigned>(word >> (32 + shift)) & 0xFF; }
  uint64_t Key() const { return word >> 32; }
};
struct WideItem {
  uint64_t key;
  int64_t position;
  static WideItem Make(uint64_t key, int64_t position) { return WideItem{key, position}; }
  int64_t Position() const { return position; }
  unsigned Digit(int shift) const { return static_cast<unsigned>(key >> shift) & 0xFF; }
  uint64_t Key() const { return key; }
};

// Scratch of one thread, kept between lines and calls up to kKeptScratch elements.
struct Scratch {
  Buffer<int64_t> order;  // order[j]: the element that goes to position j
  Buffer<PackedItem> packed, other_packed;
  Buffer<WideItem> wide, other_wide;
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

using Counts = std::array<int64_t, 256>;

// Moves positions [begin, end) of one radix pass: the item in position j goes to position
// next[its digit]++ of `to`.
template <typename Item>
void ScatterPass(const Item* from, int64_t begin, int64_t end, int shift, Counts& next, Item* to) {
  for (int64_t j = begin; j < end; ++j) {
    const Item item = from[j];
    to[next[item.Digit(shift)]++] = item;
  }
}

// Stable LSD radix sort of items[0, n) by key (ascending, `bits` significant bits), 8 bits a
// pass; passes whose digit is the same for every key are skipped. The sorted items end in
// `items` (the buffers may swap).
template <typename Item>
void RadixSort(int64_t n, int64_t bits, Buffer<Item>& items, Buffer<Item>& other) {
  constexpr int64_t kShort = 64;
  if (n < kShort) {  // short lines: a comparison sort of the keys is cheaper
    std::stable_sort(items.data(), items.data() + n, [](const Item& a, const Item& b) { return a.Key() < b.Key(); });
    return;
  }
  const int passes = static_cast<int>((bits + 7) / 8);  // at most 8 (keys of up to 64 bits)
  std::array<Counts, 8> counts{};
  for (int64_t j = 0; j < n; ++j) {
    for (int p = 0; p < passes; ++p) ++counts[p][items[j].Digit(8 * p)];
  }
  other.Resize(n);
  for (int p = 0; p < passes; ++p) {
    Counts& c = counts[p];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;  // one digit for all
    int64_t start = 0;
    for (int64_t& v : c) {
      const int64_t here = v;
      v = start;
      start += here;
    }
    ScatterPass(items.data(), 0, n, 8 * p, c, other.data());
    std::swap(items, other);
  }
}

// RadixSort of a split line: each pass counts every part's digits, then scatters the parts
// side by side, part p's items of a digit after those of parts before it.
template <typename Item>
void SplitRadixSort(int64_t n, int64_t bits, Buffer<Item>& items, Buffer<Item>& other) {
  const LineParts parts = SplitLine(n);
  std::vector<Counts> counts(parts.count);
  other.Resize(n);
  const int passes = static_cast<int>((bits + 7) / 8);
  for (int p = 0; p < passes; ++p) {
    const int shift = 8 * p;
    ForEachPart(parts, [&](int64_t part) {
      Counts& c = counts[part];
      c.fill(0);
      const Item* from = items.data();
      for (int64_t j = parts.Begin(part), end = parts.End(part, n); j < end; ++j) ++c[from[j].Digit(shift)];
    });
    bool one_digit = false;
    int64_t start = 0;
    for (int digit = 0; digit < 256; ++digit) {
      const int64_t first = start;
      for (Counts& c : counts) {
        const int64_t here = c[digit];
        c[digit] = start;
        start += here;
      }
      one_digit = one_digit || start - first == n;
    }
    if (one_digit) continue;
    ForEachPart(parts, [&](int64_t part) {
      ScatterPass(items.data(), parts.Begin(part), parts.End(part, n), shift, counts[part], other.data());
    });
    std::swap(items, other);
  }
}

// items[j] for j in [begin, end): group g's packed key of the line's element order[j], and
// that element's position; false when a key is unordered. Key by key, most significant
// first, each later one shifted in below the ones before.
template <typename Item>
bool GroupKeys(const SortJob& job, const KeyGroup& g, int64_t first, const int64_t* order, int64_t begin, int64_t end,
               Item* items) {
  for (int64_t c = g.begin; c < g.end; ++c) {
    const int64_t operand = job.key_operands[c], w = job.widths[operand];
    const char* base = static_cast<const char*>(job.data[operand]) + first * w;
    const int64_t step = job.inner * w, shift = job.key_bits[c];  // shift: below 64 after the first key
    const XlaCpuSortKey f = job.keys[c];
    for (int64_t j = begin; j < end; ++j) {
      uint64_t key = 0;
      if (f(base + order[j] * step, &key) != 0) return false;
      items[j] = c == g.begin ? Item::Make(key, order[j]) : Item::Make(items[j].Key() << shift | key, order[j]);
    }
  }
  return true;
}

// body(part) for each of `parts`: over the threads when `split`, else here (one part).
template <typename F>
void RunParts(const LineParts& parts, bool split, F&& body) {
  if (split) return ForEachPart(parts, body);
  for (int64_t part = 0; part < parts.count; ++part) body(part);
}

// Orders a line by the group's keys (a stable radix sort of its items); false when a key is
// unordered.
template <typename Item>
bool OrderByGroup(const SortJob& job, const KeyGroup& g, int64_t first, bool split, Buffer<Item>& items,
                  Buffer<Item>& other, Scratch& s) {
  const int64_t n = job.length;
  const LineParts parts = split ? SplitLine(n) : LineParts{1, n};
  items.Resize(n);
  int64_t* order = s.order.data();
  std::atomic<bool> ordered{true};
  RunParts(parts, split, [&](int64_t part) {
    if (!GroupKeys(job, g, first, order, parts.Begin(part), parts.End(part, n), items.data())) {
      ordered.store(false, std::memory_order_relaxed);
    }
  });
  if (!ordered.load(std::memory_order_relaxed)) return false;
  if (split) {
    SplitRadixSort(n, g.bits, items, other);
  } else {
    RadixSort(n, g.bits, items, other);
  }
  RunParts(parts, split, [&](int64_t part) {
    for (int64_t j = parts.Begin(part), end = parts.End(part, n); j < end; ++j) order[j] = items[j].Position();
  });
  return true;
}

// Orders a line by the job's keys, the least significant group first (each radix sort is
// stable); false when a key is unordered.
bool OrderByKeys(const SortJob& job, int64_t first, bool split, Scratch& s) {
  for (auto g = job.groups.rbegin(); g != job.groups.rend(); ++g) {
    const bool packs = g->bits <= 32 && job.length <= (int64_t{1} << 32);
    const bool ordered = packs ? OrderByGroup(job, *g, first, split, s.packed, s.other_packed, s)
                               : OrderByGroup(job, *g, first, split, s.wide, s.other_wide, s);
    if (!ordered) return false;
  }
  return true;
}

// Calls f with std::integral_constant<int64_t, W>: W is `width` where that is a common element
// size (copies of W bytes then compile to plain moves), else 0.
template <typename F>
void WithWidth(int64_t width, F&& f) {
  switch (width) {
    case 1: return f(std::integral_constant<int64_t, 1>());
    case 2: return f(std::integral_constant<int64_t, 2>());
    case 4: return f(std::integral_constant<int64_t, 4>());
    case 8: return f(std::integral_constant<int64_t, 8>());
    default: return f(std::integral_constant<int64_t, 0>());
  }
}

// Copies element order[j] of a line (of elements of `width` bytes, W: WithWidth) to tmp[j], for
// j in [begin, end).
template <int64_t W>
void GatherLine(const char* base, int64_t width, int64_t first, int64_t inner, const int64_t* order, int64_t begin,
                int64_t end, char* tmp) {
  const int64_t w = W != 0 ? W : width;
  for (int64_t j = begin; j < end; ++j) std::memcpy(tmp + j * w, base + (first + order[j] * inner) * w, w);
}

// Copies tmp[j] back to position j of the line, for j in [begin, end).
template <int64_t W>
void StoreLine(char* base, int64_t width, int64_t first, int64_t inner, int64_t begin, int64_t end, const char* tmp) {
  const int64_t w = W != 0 ? W : width;
  for (int64_t j = begin; j < end; ++j) std::memcpy(base + (first + j * inner) * w, tmp + j * w, w);
}

// Puts element s.order[j] of every operand's line in position j.
void PermuteLines(const SortJob& job, int64_t first, bool split, Scratch& s) {
  const int64_t n = job.length;
  const LineParts parts = split ? SplitLine(n) : LineParts{1, n};
  for (int64_t k = 0; k < job.count; ++k) {
    char* base = static_cast<char*>(job.data[k]);
    const int64_t w = job.widths[k];
    s.line.Resize(n * w);
    WithWidth(w, [&](auto width) {
      constexpr int64_t W = decltype(width)::value;
      const auto gather = [&](int64_t part) {
        GatherLine<W>(base, w, first, job.inner, s.order.data(), parts.Begin(part), parts.End(part, n), s.line.data());
      };
      const auto store = [&](int64_t part) {
        StoreLine<W>(base, w, first, job.inner, parts.Begin(part), parts.End(part, n), s.line.data());
      };
      RunParts(parts, split, gather);
      RunParts(parts, split, store);
    });
  }
}

// Sorts the line that starts at element `first`, split over the threads when `split`.
void SortLine(const SortJob& job, int64_t first, bool split, Scratch& s) {
  s.order.Resize(job.length);
  std::iota(s.order.data(), s.order.data() + job.length, 0);
  if (job.groups.empty() || !OrderByKeys(job, first, split, s)) {
    std::iota(s.order.data(), s.order.data() + job.length, 0);
    OrderByComparator(job, first, s);
  }
  PermuteLines(job, first, split, s);
}

void ReleaseScratch(Scratch& s) {
  s.order.Release();
  s.packed.Release();
  s.other_packed.Release();
  s.wide.Release();
  s.other_wide.Release();
  s.line.Release();
}

int64_t FirstElement(const SortJob& job, int64_t line) {
  return (line / job.inner) * job.length * job.inner + line % job.inner;
}

// Sorts lines [begin, end) of the job in slots[0], one thread a line.
void SortLines(void** slots, int64_t begin, int64_t end) {
  const SortJob& job = *static_cast<const SortJob*>(slots[0]);
  thread_local Scratch s;
  for (int64_t line = begin; line < end; ++line) SortLine(job, FirstElement(job, line), /*split=*/false, s);
  if (job.length > kKeptScratch) ReleaseScratch(s);  // a long line's scratch is not kept
}

void Sort(int64_t outer, int64_t length, int64_t inner, const SortJob& job) {
  if (outer <= 0 || length <= 1 || inner <= 0) return;
  const int64_t lines = outer * inner;
  if (xla::cpu::SplitLines(lines, length)) {
    Scratch s;
    for (int64_t line = 0; line < lines; ++line) SortLine(job, FirstElement(job, line), /*split=*/true, s);
    return;
  }
  void* slots[1] = {const_cast<SortJob*>(&job)};
  // About length * log2(length) steps a line.
  int64_t log2 = 1;
  while ((int64_t{1} << log2) < length) ++log2;
  xla::cpu::ParallelFor(&SortLines, slots, lines, length * log2);
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
