#ifndef XLA_BACKENDS_INTERPRETER_OPS_REDUCTION_UTIL_H_
#define XLA_BACKENDS_INTERPRETER_OPS_REDUCTION_UTIL_H_

// Private helpers of the reduction family (ops_reduction*.cc): raw strided access to
// array literals (elements are copied as bytes, so every element type is handled
// bit-exactly without per-type code) and a caller for scalar computations (reducers,
// comparators, select/scatter) that reuses its argument literals across calls.

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/hlo_computation.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace interpreter {

// Bytes one element of `type` takes in a Literal (see literal.h: sub-byte types use a byte).
int64_t ElementStorageBytes(PrimitiveType type);

// Storage of an array literal addressed by logical multi-index: byte offset =
// sum(index[d] * strides[d]). Works for any layout. A view built from a const literal
// must only be read.
struct ArrayView {
  uint8_t* data = nullptr;
  int64_t width = 0;             // bytes per element
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // bytes per step of each logical dimension

  static ArrayView Of(const Literal& literal);
  int64_t Offset(absl::Span<const int64_t> index) const {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    return offset;
  }
  const uint8_t* At(int64_t offset) const { return data + offset; }
  uint8_t* MutableAt(int64_t offset) const { return data + offset; }
};

// Copies one element, converting with XLA's convert semantics when the types differ.
void CopyElement(const uint8_t* src, PrimitiveType src_type, uint8_t* dst, PrimitiveType dst_type);

// Advances `index` (row-major, last dimension fastest) within `dims`; false after the
// last index.
bool NextIndex(absl::Span<const int64_t> dims, absl::Span<int64_t> index);

// A scalar computation evaluated natively: reads two scalar arguments, writes the result.
using NativeScalarFn = void (*)(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out);
// For `computation` = op(parameter lhs, parameter rhs) with an op whose result is fully
// determined and cheap to compute natively (ops_reduction_native.cc), the function and
// the parameter numbers; nullptr otherwise. *verify says the function must first be
// checked against the handlers (float ops, whose NaN / signed-zero results the
// elementwise family owns); *alternative (may be null) is the same op with the operands
// commuted, to try when the first does not match.
NativeScalarFn FindNativeScalarFn(const HloComputation& computation, int64_t* lhs_param, int64_t* rhs_param,
                                  bool* verify, NativeScalarFn* alternative);

// Calls a computation that takes scalar parameters and returns a scalar or a tuple of
// scalars. The argument literals live here and are reused across calls.
class ScalarCaller {
 public:
  // Checks that `computation` takes `num_params` scalars and returns `num_results`
  // scalars (a scalar, or a tuple of scalars); `what` names it in errors.
  static absl::StatusOr<ScalarCaller> Create(EvalContext& ctx, const HloComputation* computation,
                                             int64_t num_params, int64_t num_results,
                                             const char* what);

  PrimitiveType param_type(int64_t i) const { return param_types_[i]; }
  PrimitiveType result_type(int64_t i) const { return result_types_[i]; }
  // Storage of parameter i's scalar argument.
  uint8_t* arg(int64_t i) { return static_cast<uint8_t*>(args_[i].untyped_data()); }
  void SetArg(int64_t i, const uint8_t* src, PrimitiveType src_type) {
    if (src_type == param_types_[i]) {
      std::memcpy(arg(i), src, param_widths_[i]);
    } else {
      CopyElement(src, src_type, arg(i), param_types_[i]);
    }
  }
  // Evaluates the computation on the current arguments; results are then read with
  // result(i) until the next call. A computation of scalar instructions only (the usual
  // reducer or comparator) runs from a plan made once: the same handlers the evaluator
  // would call, without its per-call setup; anything else goes through the evaluator.
  absl::Status Call();
  const uint8_t* result(int64_t i) const { return results_[i]; }
  // Copies result i to `dst` of type `dst_type`.
  void GetResult(int64_t i, uint8_t* dst, PrimitiveType dst_type) const {
    if (dst_type == result_types_[i]) {
      std::memcpy(dst, results_[i], result_widths_[i]);
    } else {
      CopyElement(results_[i], result_types_[i], dst, dst_type);
    }
  }
  // The predicate result 0 (for comparators and select).
  bool ResultAsBool() const { return results_[0][0] != 0; }
  const HloComputation& computation() const { return *computation_; }

 private:
  ScalarCaller() = default;
  EvalContext* ctx_ = nullptr;
  const HloComputation* computation_ = nullptr;
  std::vector<Literal> args_;
  std::vector<const Literal*> arg_ptrs_;
  std::vector<PrimitiveType> param_types_;
  std::vector<int64_t> param_widths_;
  std::vector<PrimitiveType> result_types_;
  std::vector<int64_t> result_widths_;
  Literal result_value_;
  std::vector<const uint8_t*> results_;

  // The plan (when planned_): one step per non-parameter, non-constant instruction in
  // post order; values_ holds constants and step results at fixed addresses.
  struct Step {
    const HloInstruction* instruction;
    const OpHandler* handler;
    std::vector<const Literal*> operands;
    int64_t slot;
  };
  void TryPlan();
  // True when native_ gives the planned handlers' bits on special values.
  absl::StatusOr<bool> NativeMatchesHandlers();
  NativeScalarFn native_ = nullptr;
  int64_t native_lhs_ = 0, native_rhs_ = 0;
  alignas(16) uint8_t native_out_[16] = {};
  bool planned_ = false;
  CancelPoll poll_{4096};  // Call() polls for cancellation every 4096 calls
  std::vector<Literal> values_;
  std::vector<Step> steps_;
  const Literal* root_value_ = nullptr;
};

// Loads a floating-point (or any real) element as double, exactly.
double LoadAsDouble(const uint8_t* src, PrimitiveType type);

// One dimension of a reduce-window / select-and-scatter window.
struct WindowDim {
  int64_t size = 1, stride = 1, padding_low = 0, padding_high = 0;
  int64_t window_dilation = 1, base_dilation = 1;
};
// The instruction's window (one entry per operand dimension), validated.
absl::StatusOr<std::vector<WindowDim>> ReadWindow(const HloInstruction& instruction, int64_t rank);

// Family registration split across files.
void RegisterReduceWindowHandlers(HandlerTable* table);  // reduce-window, select-and-scatter
void RegisterSortHandlers(HandlerTable* table);          // sort, topk

}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_OPS_REDUCTION_UTIL_H_
