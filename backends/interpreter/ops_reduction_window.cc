// reduce-window (variadic) and select-and-scatter, following XLA's HloEvaluator:
//  * a window placed at output position o covers base positions
//    o*stride + w*window_dilation - padding_low (w = window index, row-major); a position
//    that falls on padding or a base-dilation hole is skipped (the accumulator simply
//    keeps its value, which starts at the init value), so padding never calls the
//    reducer;
//  * window_reversal does not change which elements a window covers, and the evaluator
//    ignores it: so does this interpreter;
//  * select-and-scatter: the first valid element of a window is the initial selection;
//    each later element e replaces the selection s when select(s, e) is false (so with
//    GE the first of equal maxima wins); then the output at the selection becomes
//    scatter(source, output), the output starting at the init value. A window with no
//    valid element scatters nothing.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/interpreter/evaluator.h"
#include "backends/window_congruence.h"
#include "backends/interpreter/ops_reduction_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using Operands = absl::Span<const Literal* const>;

// Output size of a window dimension over an operand dimension of size `n`.
int64_t WindowOutputSize(const WindowDim& w, int64_t n) {
  const int64_t dilated = n == 0 ? 0 : (n - 1) * w.base_dilation + 1;
  const int64_t padded = dilated + w.padding_low + w.padding_high;
  const int64_t effective = (w.size - 1) * w.window_dilation + 1;
  if (w.size == 0 || padded < effective) return 0;
  return (padded - effective) / w.stride + 1;
}

absl::Status CheckWindowOutput(const std::vector<WindowDim>& window, const Shape& operand,
                               absl::Span<const int64_t> output_dims, const char* what) {
  bool ok = static_cast<int64_t>(output_dims.size()) == operand.rank();
  for (int64_t d = 0; ok && d < operand.rank(); ++d) {
    ok = output_dims[d] == WindowOutputSize(window[d], operand.dimensions(d));
  }
  if (!ok) {
    std::vector<int64_t> expected;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      expected.push_back(WindowOutputSize(window[d], operand.dimensions(d)));
    }
    return absl::InvalidArgumentError(absl::StrCat(what, " has dimensions [", absl::StrJoin(output_dims, ","),
                                                   "] but the window over ", operand.ToString(), " gives [",
                                                   absl::StrJoin(expected, ","), "]"));
  }
  return absl::OkStatus();
}

// The operand positions, in window order, that window dimension `w` placed at output
// position `origin` covers on an operand dimension of `n` elements: window index k covers
// dilated position p = origin * stride - padding_low + k * window_dilation, an operand
// element when 0 <= p <= (n - 1) * base_dilation and base_dilation divides p. The k that
// qualify are solved for (a range, then a congruence) rather than tried one by one, so the
// cost is the positions found (at most n), however large the window and its padding.
void ValidPositions(const WindowDim& w, int64_t origin, int64_t n, std::vector<int64_t>* out) {
  out->clear();
  if (n <= 0 || w.size <= 0) return;
  using Wide = __int128;
  const Wide start = Wide{origin} * w.stride - w.padding_low;
  const Wide last = Wide{n - 1} * w.base_dilation;
  const int64_t wd = w.window_dilation, bd = w.base_dilation;
  // k_lo = ceil(-start / wd) (at least 0), k_hi = floor((last - start) / wd) (at most size - 1).
  Wide k_lo = start >= 0 ? Wide{0} : (-start + wd - 1) / wd;
  if (last - start < 0) return;
  Wide k_hi = (last - start) / wd;
  if (k_hi > w.size - 1) k_hi = w.size - 1;
  if (k_lo > k_hi) return;
  // start + k * wd == 0 (mod bd): k == r (mod m), when solvable (window_congruence.h).
  const backend::WindowCongruence solved =
      backend::SolveWindowCongruence(static_cast<int64_t>(((start % bd) + bd) % bd), wd, bd);
  if (!solved.solvable) return;
  const int64_t m = solved.modulus, r = solved.residue;
  Wide k = k_lo + ((Wide{r} - k_lo % m) % m + m) % m;
  for (; k <= k_hi; k += m) out->push_back(static_cast<int64_t>((start + k * wd) / bd));
}

// Calls f(operand_index) for every window position at `origin` that lands on an operand
// element, window positions in row-major order (XLA's IterateThroughWindow). The valid
// positions of each dimension are listed first, so padding and holes cost nothing in
// the product loop.
class WindowIterator {
 public:
  WindowIterator(const std::vector<WindowDim>& window, absl::Span<const int64_t> operand_dims)
      : window_(window), operand_dims_(operand_dims.begin(), operand_dims.end()) {
    valid_.resize(window.size());
    counts_.resize(window.size());
    counter_.resize(window.size());
    base_index_.resize(window.size());
  }

  template <typename F>
  absl::Status ForEach(absl::Span<const int64_t> origin, F&& f) {
    const size_t rank = window_.size();
    for (size_t d = 0; d < rank; ++d) {
      const WindowDim& w = window_[d];
      ValidPositions(w, origin[d], operand_dims_[d], &valid_[d]);
      if (valid_[d].empty()) return absl::OkStatus();
      counts_[d] = static_cast<int64_t>(valid_[d].size());
      counter_[d] = 0;
      base_index_[d] = valid_[d][0];
    }
    do {
      for (size_t d = 0; d < rank; ++d) base_index_[d] = valid_[d][counter_[d]];
      RETURN_IF_ERROR(f(absl::Span<const int64_t>(base_index_)));
    } while (NextIndex(counts_, absl::MakeSpan(counter_)));
    return absl::OkStatus();
  }

 private:
  const std::vector<WindowDim>& window_;
  std::vector<int64_t> operand_dims_;
  std::vector<std::vector<int64_t>> valid_;  // per dimension: operand positions in window order
  std::vector<int64_t> counts_;
  std::vector<int64_t> counter_;
  std::vector<int64_t> base_index_;
};

absl::StatusOr<Literal> ReduceWindow(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  if (operands.size() < 2 || operands.size() % 2 != 0) {
    return absl::InvalidArgumentError("reduce-window takes N inputs followed by N init values");
  }
  const int64_t n = static_cast<int64_t>(operands.size()) / 2;
  const Shape& input_shape = operands[0]->shape();
  if (!input_shape.IsArray()) return absl::InvalidArgumentError("reduce-window inputs must be arrays");
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = operands[i]->shape();
    const Shape& init = operands[n + i]->shape();
    if (!in.IsArray() || in.dimensions() != input_shape.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("reduce-window input ", i, " has shape ", in.ToString(),
                                                     ", expected the dimensions of ", input_shape.ToString()));
    }
    if (!init.IsArray() || init.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("reduce-window init value ", i, " must be a scalar, is ",
                                                     init.ToString()));
    }
  }
  ASSIGN_OR_RETURN(std::vector<WindowDim> window, ReadWindow(instruction, input_shape.rank()));
  const Shape& shape = instruction.shape();
  const bool tuple_result = shape.IsTuple();
  if ((tuple_result && shape.tuple_shapes_size() != n) || (!tuple_result && n != 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-window of ", n, " inputs cannot produce ", shape.ToString()));
  }
  std::vector<Literal> outputs;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out_shape = tuple_result ? shape.tuple_shapes(i) : shape;
    if (!out_shape.IsArray()) return absl::InvalidArgumentError("reduce-window outputs must be arrays");
    RETURN_IF_ERROR(CheckWindowOutput(window, input_shape, out_shape.dimensions(), "reduce-window output"));
    ASSIGN_OR_RETURN(Literal out,
                     Literal::Create(ShapeUtil::MakeShape(out_shape.element_type(), out_shape.dimensions())));
    outputs.push_back(std::move(out));
  }
  auto finish = [&]() -> Literal {
    if (!tuple_result) return std::move(outputs[0]);
    return Literal::MakeTuple(std::move(outputs));
  };
  ASSIGN_OR_RETURN(ScalarCaller caller, ScalarCaller::Create(ctx, instruction.to_apply(), 2 * n, n, "reducer"));
  const int64_t out_count = outputs[0].element_count();
  if (out_count == 0) return finish();

  std::vector<ArrayView> in_views, init_views, out_views;
  for (int64_t i = 0; i < n; ++i) {
    in_views.push_back(ArrayView::Of(*operands[i]));
    init_views.push_back(ArrayView::Of(*operands[n + i]));
    out_views.push_back(ArrayView::Of(outputs[i]));
  }
  WindowIterator iterator(window, input_shape.dimensions());
  const std::vector<int64_t>& out_dims = outputs[0].shape().dimensions();
  std::vector<int64_t> out_index(out_dims.size(), 0);
  for (int64_t o = 0; o < out_count; ++o) {
    for (int64_t i = 0; i < n; ++i) caller.SetArg(i, init_views[i].data, init_views[i].type);
    RETURN_IF_ERROR(iterator.ForEach(out_index, [&](absl::Span<const int64_t> index) -> absl::Status {
      for (int64_t i = 0; i < n; ++i) {
        caller.SetArg(n + i, in_views[i].At(in_views[i].Offset(index)), in_views[i].type);
      }
      RETURN_IF_ERROR(caller.Call());
      for (int64_t i = 0; i < n; ++i) caller.GetResult(i, caller.arg(i), caller.param_type(i));
      return absl::OkStatus();
    }));
    for (int64_t i = 0; i < n; ++i) {
      CopyElement(caller.arg(i), caller.param_type(i), out_views[i].MutableAt(out_views[i].Offset(out_index)),
                  out_views[i].type);
    }
    NextIndex(out_dims, absl::MakeSpan(out_index));
  }
  return finish();
}

absl::StatusOr<Literal> SelectAndScatter(EvalContext& ctx, const HloInstruction& instruction,
                                         Operands operands) {
  if (operands.size() != 3) return absl::InvalidArgumentError("select-and-scatter takes 3 operands");
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  if (!operand.shape().IsArray() || !source.shape().IsArray() || !init.shape().IsArray() ||
      init.shape().rank() != 0) {
    return absl::InvalidArgumentError("select-and-scatter takes two arrays and a scalar init value");
  }
  const Shape& shape = instruction.shape();
  if (!shape.IsArray() || shape.dimensions() != operand.shape().dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("select-and-scatter result ", shape.ToString(),
                                                   " must have the operand's dimensions"));
  }
  ASSIGN_OR_RETURN(std::vector<WindowDim> window, ReadWindow(instruction, operand.shape().rank()));
  RETURN_IF_ERROR(CheckWindowOutput(window, operand.shape(), source.shape().dimensions(), "the source"));
  ASSIGN_OR_RETURN(ScalarCaller select, ScalarCaller::Create(ctx, instruction.select(), 2, 1, "select"));
  ASSIGN_OR_RETURN(ScalarCaller scatter, ScalarCaller::Create(ctx, instruction.scatter(), 2, 1, "scatter"));
  if (select.result_type(0) != PRED) {
    return absl::InvalidArgumentError("the select computation must return pred");
  }

  ASSIGN_OR_RETURN(Literal result, Literal::Create(ShapeUtil::MakeShape(shape.element_type(), shape.dimensions())));
  const ArrayView operand_view = ArrayView::Of(operand);
  const ArrayView source_view = ArrayView::Of(source);
  const ArrayView init_view = ArrayView::Of(init);
  const ArrayView out_view = ArrayView::Of(result);
  const int64_t out_count = result.element_count();
  {
    std::vector<int64_t> index(shape.rank(), 0);
    for (int64_t o = 0; o < out_count; ++o) {
      CopyElement(init_view.data, init_view.type, out_view.MutableAt(out_view.Offset(index)), out_view.type);
      NextIndex(shape.dimensions(), absl::MakeSpan(index));
    }
  }
  const int64_t source_count = source.element_count();
  if (source_count == 0 || out_count == 0) return result;

  WindowIterator iterator(window, operand.shape().dimensions());
  const std::vector<int64_t>& source_dims = source.shape().dimensions();
  std::vector<int64_t> source_index(source_dims.size(), 0);
  for (int64_t s = 0; s < source_count; ++s) {
    bool have_selection = false;
    int64_t selected_offset = 0;   // in the operand
    std::vector<int64_t> selected;  // operand index
    RETURN_IF_ERROR(iterator.ForEach(source_index, [&](absl::Span<const int64_t> index) -> absl::Status {
      const int64_t offset = operand_view.Offset(index);
      if (have_selection) {
        select.SetArg(0, operand_view.At(selected_offset), operand_view.type);
        select.SetArg(1, operand_view.At(offset), operand_view.type);
        RETURN_IF_ERROR(select.Call());
        if (select.ResultAsBool()) return absl::OkStatus();
      }
      have_selection = true;
      selected_offset = offset;
      selected.assign(index.begin(), index.end());
      return absl::OkStatus();
    }));
    if (have_selection) {
      uint8_t* target = out_view.MutableAt(out_view.Offset(selected));
      scatter.SetArg(0, source_view.At(source_view.Offset(source_index)), source_view.type);
      scatter.SetArg(1, target, out_view.type);
      RETURN_IF_ERROR(scatter.Call());
      scatter.GetResult(0, target, out_view.type);
    }
    NextIndex(source_dims, absl::MakeSpan(source_index));
  }
  return result;
}

}  // namespace

void RegisterReduceWindowHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kReduceWindow, ReduceWindow);
  table->Register(HloOpcode::kSelectAndScatter, SelectAndScatter);
}

}  // namespace interpreter
}  // namespace xla
