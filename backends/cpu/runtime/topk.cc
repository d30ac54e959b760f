// __xla_cpu_topk: along the last dimension, the k largest (or smallest) values and their
// indices, as XLA decomposes topk: a stable sort with a total-order comparator, so floats
// order as -NaN < -inf < ... < -0 < +0 < ... < inf < NaN and equal values keep increasing
// index order (the interpreter's semantics, backends/interpreter/ops_reduction_sort.cc).
// Each row is selected in one pass rather than sorted, rows over the runtime's threads; a few
// long rows are each split over the threads instead.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "hlo/primitive_util.h"

namespace {

// An element as a signed key whose order is the total order, and its position in the row.
// a goes before b in the result when Better(a, b): the larger key (keys of topk's smallest
// are complemented), then the smaller position. A strict total order, so any selection
// algorithm gives the stable sort's first k.
struct Candidate {
  int64_t key, position;
};
inline bool Better(const Candidate& a, const Candidate& b) {
  return a.key > b.key || (a.key == b.key && a.position < b.position);
}

struct TopkJob {
  const xla::cpu::StridedArray *input, *top, *index;
  int64_t k;
  bool largest;
};

// The k best of a row in one pass: a candidate is kept only when its key beats the k-th best
// kept so far (a later position never wins a tie), and the kept ones are cut back to the k
// best whenever they reach 2k. A row of random values keeps about k log(n / k) candidates.
// The row's elements here are positions [offset, offset + length) of the whole row.
template <typename Word, typename KeyOf>
void SelectRow(const char* row, int64_t step_bytes, int64_t length, int64_t offset, const TopkJob& job, KeyOf key_of,
               std::vector<Candidate>& kept) {
  const int64_t k = job.k;
  const size_t capacity = static_cast<size_t>(std::max<int64_t>(2 * k, 64));
  kept.clear();
  kept.reserve(capacity);
  const int64_t flip = job.largest ? 0 : -1;  // smallest: the complemented key's largest
  bool full = false;
  int64_t threshold = 0;  // with `full`, the k-th best key kept
  auto cut = [&] {
    std::nth_element(kept.begin(), kept.begin() + (k - 1), kept.end(), Better);
    kept.resize(static_cast<size_t>(k));
    threshold = kept.back().key;
    full = true;
  };
  for (int64_t j = 0; j < length; ++j) {
    Word bits;
    std::memcpy(&bits, row + j * step_bytes, sizeof(Word));
    const int64_t key = key_of(bits) ^ flip;
    if (full && key <= threshold) continue;
    kept.push_back(Candidate{key, offset + j});
    if (kept.size() == capacity) cut();
  }
  if (static_cast<int64_t>(kept.size()) > k) cut();
  std::sort(kept.begin(), kept.end(), Better);
}

// SelectRow with the key of `type`, stored in Words.
template <typename Word>
void SelectTyped(xla::PrimitiveType type, const char* row, int64_t step_bytes, int64_t length, int64_t offset,
                 const TopkJob& job, std::vector<Candidate>& kept) {
  using Signed = std::make_signed_t<Word>;
  if (type == xla::PRED) {
    SelectRow<Word>(row, step_bytes, length, offset, job, [](Word b) { return static_cast<int64_t>(b != 0); }, kept);
  } else if (xla::primitive_util::IsSignedIntegralType(type)) {  // stored sign-extended to its bytes
    SelectRow<Word>(
        row, step_bytes, length, offset, job, [](Word b) { return static_cast<int64_t>(static_cast<Signed>(b)); },
        kept);
  } else if (xla::primitive_util::IsUnsignedIntegralType(type) || type == xla::F8E8M0FNU) {
    // Unsigned (F8E8M0FNU holds exponents only): u64 with its top bit flipped to stay ordered.
    const uint64_t top = sizeof(Word) == 8 ? uint64_t{1} << 63 : 0;
    SelectRow<Word>(
        row, step_bytes, length, offset, job, [top](Word b) { return static_cast<int64_t>(b ^ top); }, kept);
  } else {  // sign and magnitude in the low `width` bits; -0 just below +0
    const int width = xla::primitive_util::BitWidth(type);
    const uint64_t mask = width < 64 ? (uint64_t{1} << width) - 1 : ~uint64_t{0};
    const uint64_t sign = uint64_t{1} << (width - 1);
    SelectRow<Word>(row, step_bytes, length, offset, job,
                    [mask, sign](Word b) {
                      const uint64_t bits = static_cast<uint64_t>(b) & mask;
                      const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
                      return (bits & sign) != 0 ? -magnitude - 1 : magnitude;
                    },
                    kept);
  }
}

// Where row r (row-major over the leading dimensions) starts in the input and the outputs.
struct RowStart {
  int64_t in = 0, top = 0, index = 0;
};
RowStart StartOf(const TopkJob& job, int64_t r) {
  const xla::cpu::StridedArray &input = *job.input, &top = *job.top, &index = *job.index;
  RowStart start;
  for (int64_t d = input.rank() - 2, rest = r; d >= 0; --d) {
    const int64_t i = rest % input.dim(d);
    rest /= input.dim(d);
    start.in += i * input.stride(d);
    start.top += i * top.stride(d);
    start.index += i * index.stride(d);
  }
  return start;
}

// The k best of positions [begin, end) of the row at input offset `in`, in order.
void SelectRange(const TopkJob& job, int64_t in, int64_t begin, int64_t end, std::vector<Candidate>& kept) {
  const xla::cpu::StridedArray& input = *job.input;
  const auto type = static_cast<xla::PrimitiveType>(input.type());
  const int64_t step_bytes = input.stride(input.rank() - 1) * input.element_bytes();
  const char* row = static_cast<const char*>(input.address(in)) + begin * step_bytes;
  switch (input.element_bytes()) {
    case 1: SelectTyped<uint8_t>(type, row, step_bytes, end - begin, begin, job, kept); break;
    case 2: SelectTyped<uint16_t>(type, row, step_bytes, end - begin, begin, job, kept); break;
    case 4: SelectTyped<uint32_t>(type, row, step_bytes, end - begin, begin, job, kept); break;
    default: SelectTyped<uint64_t>(type, row, step_bytes, end - begin, begin, job, kept); break;
  }
}

// Writes the row's k best (kept, in order) and their positions.
void WriteRow(const TopkJob& job, const RowStart& start, const std::vector<Candidate>& kept) {
  const xla::cpu::StridedArray &input = *job.input, &top = *job.top, &index = *job.index;
  const int64_t last = input.rank() - 1, bytes = input.element_bytes();
  for (int64_t j = 0; j < job.k; ++j) {
    const int64_t position = kept[static_cast<size_t>(j)].position;
    std::memcpy(top.address(start.top + j * top.stride(last)), input.address(start.in + position * input.stride(last)),
                bytes);
    index.StoreBits(start.index + j * index.stride(last), static_cast<uint64_t>(position));
  }
}

// Rows [begin, end), each on its own.
void TopkRows(void** slots, int64_t begin, int64_t end) {
  const TopkJob& job = *static_cast<const TopkJob*>(slots[0]);
  thread_local std::vector<Candidate> kept;
  const int64_t length = job.input->dim(job.input->rank() - 1);
  for (int64_t r = begin; r < end; ++r) {
    const RowStart start = StartOf(job, r);
    SelectRange(job, start.in, 0, length, kept);
    WriteRow(job, start, kept);
  }
  if (kept.capacity() > (size_t{1} << 16)) std::vector<Candidate>().swap(kept);
}

// Rows split over the threads (runtime.h SplitLines), one after another: each part of a row
// selects its k best, then the row's k best are the best of those (Better is a total order,
// so the result is the same).
void TopkSplitRows(const TopkJob& job, int64_t rows) {
  const int64_t length = job.input->dim(job.input->rank() - 1);
  const xla::cpu::LineParts parts = xla::cpu::SplitLine(length);
  std::vector<std::vector<Candidate>> part_kept(static_cast<size_t>(parts.count));
  std::vector<Candidate> best;
  for (int64_t r = 0; r < rows; ++r) {
    const RowStart start = StartOf(job, r);
    xla::cpu::ForEachPart(parts, [&](int64_t part) {
      SelectRange(job, start.in, parts.Begin(part), parts.End(part, length), part_kept[static_cast<size_t>(part)]);
    });
    best.clear();
    for (const std::vector<Candidate>& kept : part_kept) best.insert(best.end(), kept.begin(), kept.end());
    std::nth_element(best.begin(), best.begin() + (job.k - 1), best.end(), Better);
    best.resize(static_cast<size_t>(job.k));
    std::sort(best.begin(), best.end(), Better);
    WriteRow(job, start, best);
  }
}

}  // namespace

static void Topk(void* in, const int64_t* in_descriptor, void* values, const int64_t* values_descriptor,
                 void* indices, const int64_t* indices_descriptor, int64_t k, int64_t largest) {
  const xla::cpu::StridedArray input(in, in_descriptor), top(values, values_descriptor),
      index(indices, indices_descriptor);
  const int64_t rank = input.rank();
  const int64_t length = input.dim(rank - 1);
  if (k <= 0 || length <= 0) return;
  k = std::min(k, length);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= input.dim(d);
  TopkJob job{&input, &top, &index, k, largest != 0};
  if (xla::cpu::SplitLines(rows, length) && k <= length / 16) return TopkSplitRows(job, rows);
  void* slots[] = {&job};
  xla::cpu::ParallelFor(&TopkRows, slots, rows, length + k * 8);
}

extern "C" void __xla_cpu_topk(void* in, const int64_t* in_descriptor, void* values, const int64_t* values_descriptor,
                               void* indices, const int64_t* indices_descriptor, int64_t k, int64_t largest) {
  xla::cpu::RunRoutine("topk",
                       [&] { Topk(in, in_descriptor, values, values_descriptor, indices, indices_descriptor, k, largest); });
}
