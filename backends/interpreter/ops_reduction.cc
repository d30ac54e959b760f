// Reductions: reduce (variadic), plus the helpers of the whole family
// (ops_reduction_util.h). reduce-window and select-and-scatter are in
// ops_reduction_window.cc, sort and topk in ops_reduction_sort.cc.
//
// reduce follows XLA's HloEvaluator exactly: for every output element the accumulators
// start at the init values and the reducer is applied as reducer(accumulators...,
// inputs...) over the reduced dimensions, the most minor dimension of the first input's
// layout varying fastest (row-major for the default layout). A single-input reduce whose
// reducer is add(p0, p1) on floating-point values is summed in double and rounded once,
// as the evaluator's fast path does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_reduction_util.h"
#include "hlo/float_types.h"
#include "hlo/hlo_computation.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {

int64_t ElementStorageBytes(PrimitiveType type) {
  static const std::vector<int64_t>* const table = [] {
    auto* widths = new std::vector<int64_t>(PrimitiveType_ARRAYSIZE, 0);
    for (int t = 0; t < PrimitiveType_ARRAYSIZE; ++t) {
      const auto type = static_cast<PrimitiveType>(t);
      if (!PrimitiveType_IsValid(t) || !primitive_util::IsArrayType(type)) continue;
      absl::StatusOr<Literal> scalar = Literal::Create(ShapeUtil::MakeShape(type, {}));
      if (scalar.ok()) (*widths)[t] = scalar->size_bytes();
    }
    return widths;
  }();
  const int t = static_cast<int>(type);
  return t >= 0 && t < PrimitiveType_ARRAYSIZE ? (*table)[t] : 0;
}

ArrayView ArrayView::Of(const Literal& literal) {
  ArrayView view;
  const Shape& shape = literal.shape();
  view.type = shape.element_type();
  view.width = ElementStorageBytes(view.type);
  view.data = const_cast<uint8_t*>(static_cast<const uint8_t*>(literal.untyped_data()));
  view.dims = shape.dimensions();
  const int64_t rank = shape.rank();
  view.strides.assign(rank, 0);
  if (literal.element_count() == 0) return view;
  int64_t row_major_stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (view.dims[d] > 1) view.strides[d] = literal.StorageIndex(row_major_stride) * view.width;
    row_major_stride *= view.dims[d];
  }
  return view;
}

void CopyElement(const uint8_t* src, PrimitiveType src_type, uint8_t* dst, PrimitiveType dst_type) {
  const int64_t dst_width = ElementStorageBytes(dst_type);
  if (src_type == dst_type) {
    std::memcpy(dst, src, dst_width);
    return;
  }
  std::memset(dst, 0, dst_width);
  absl::StatusOr<Literal> scalar = Literal::Create(ShapeUtil::MakeShape(src_type, {}));
  if (!scalar.ok()) return;
  std::memcpy(scalar->untyped_data(), src, scalar->size_bytes());
  absl::StatusOr<Literal> converted = scalar->Convert(dst_type);
  if (!converted.ok() || converted->size_bytes() != dst_width) return;
  std::memcpy(dst, converted->untyped_data(), dst_width);
}

bool NextIndex(absl::Span<const int64_t> dims, absl::Span<int64_t> index) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

double LoadAsDouble(const uint8_t* src, PrimitiveType type) {
  switch (type) {
    case F32: {
      float f;
      std::memcpy(&f, src, sizeof(f));
      return f;
    }
    case F64: {
      double d;
      std::memcpy(&d, src, sizeof(d));
      return d;
    }
    case F16:
    case BF16: {
      uint16_t bits;
      std::memcpy(&bits, src, sizeof(bits));
      return type == F16 ? HalfToFloat(bits) : Bfloat16ToFloat(bits);
    }
    default:
      break;
  }
  if (auto kind = primitive_util::NarrowFloatFormat(type)) return DecodeFloat(*kind, src[0]);
  double value = 0;
  CopyElement(src, type, reinterpret_cast<uint8_t*>(&value), F64);
  return value;
}

absl::StatusOr<ScalarCaller> ScalarCaller::Create(EvalContext& ctx, const HloComputation* computation,
                                                  int64_t num_params, int64_t num_results,
                                                  const char* what) {
  if (computation == nullptr) return absl::InvalidArgumentError(absl::StrCat("no ", what, " computation"));
  if (computation->num_parameters() != num_params) {
    return absl::InvalidArgumentError(absl::StrCat(what, " computation '", computation->name(), "' takes ",
                                                   computation->num_parameters(), " parameters, expected ",
                                                   num_params));
  }
  ScalarCaller caller;
  caller.ctx_ = &ctx;
  caller.computation_ = computation;
  for (int64_t i = 0; i < num_params; ++i) {
    const Shape& shape = computation->parameter_instruction(i)->shape();
    if (!shape.IsArray() || shape.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, " computation '", computation->name(),
                                                     "' parameter ", i, " must be a scalar, is ",
                                                     shape.ToString()));
    }
    ASSIGN_OR_RETURN(Literal arg, Literal::Create(ShapeUtil::MakeShape(shape.element_type(), {})));
    caller.param_types_.push_back(shape.element_type());
    caller.param_widths_.push_back(arg.size_bytes());
    caller.args_.push_back(std::move(arg));
  }
  for (const Literal& arg : caller.args_) caller.arg_ptrs_.push_back(&arg);
  const HloInstruction* root = computation->root_instruction();
  if (root == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, " computation has no root"));
  const Shape& root_shape = root->shape();
  std::vector<const Shape*> results;
  if (root_shape.IsTuple()) {
    for (const Shape& s : root_shape.tuple_shapes()) results.push_back(&s);
  } else {
    results.push_back(&root_shape);
  }
  bool ok = static_cast<int64_t>(results.size()) == num_results;
  for (const Shape* s : results) ok = ok && s->IsArray() && s->rank() == 0;
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(what, " computation '", computation->name(), "' must return ",
                                                   num_results, " scalar(s), returns ", root_shape.ToString()));
  }
  for (const Shape* s : results) {
    caller.result_types_.push_back(s->element_type());
    caller.result_widths_.push_back(ElementStorageBytes(s->element_type()));
  }
  caller.results_.assign(num_results, nullptr);
  caller.TryPlan();
  bool verify = false;
  NativeScalarFn alternative = nullptr;
  caller.native_ =
      FindNativeScalarFn(*computation, &caller.native_lhs_, &caller.native_rhs_, &verify, &alternative);
  if (caller.native_ != nullptr && (caller.param_types_[caller.native_lhs_] != caller.param_types_[caller.native_rhs_] ||
                                    num_results != 1)) {
    caller.native_ = nullptr;
  }
  if (caller.native_ != nullptr && verify) {
    absl::StatusOr<bool> same = caller.NativeMatchesHandlers();
    if ((!same.ok() || !*same) && alternative != nullptr) {
      caller.native_ = alternative;
      same = caller.NativeMatchesHandlers();
    }
    if (!same.ok() || !*same) caller.native_ = nullptr;
  }
  return caller;
}

namespace {

bool IsScalarArray(const Shape& shape) { return shape.IsArray() && shape.rank() == 0; }

// Scalars, or a flat tuple of scalars: values whose layout needs no conforming.
bool IsScalarOrScalarTuple(const Shape& shape) {
  if (IsScalarArray(shape)) return true;
  if (!shape.IsTuple()) return false;
  for (const Shape& s : shape.tuple_shapes()) {
    if (!IsScalarArray(s)) return false;
  }
  return true;
}

}  // namespace

void ScalarCaller::TryPlan() {
  const std::vector<HloInstruction*> order = computation_->MakeInstructionPostOrder();
  const HandlerTable& table = GlobalHandlerTable();
  absl::flat_hash_map<const HloInstruction*, const Literal*> where;
  std::vector<Literal> values;
  values.reserve(order.size());  // addresses must stay put
  std::vector<Step> steps;
  for (const HloInstruction* instruction : order) {
    if (!IsScalarOrScalarTuple(instruction->shape())) return;
    if (instruction->opcode() == HloOpcode::kParameter) {
      const int64_t number = instruction->parameter_number();
      if (number < 0 || number >= static_cast<int64_t>(args_.size())) return;
      where[instruction] = &args_[number];
      continue;
    }
    if (instruction->opcode() == HloOpcode::kConstant) {
      if (!instruction->has_literal() || !IsScalarArray(instruction->literal().shape()) ||
          instruction->literal().shape().element_type() != instruction->shape().element_type()) {
        return;
      }
      values.push_back(instruction->literal().Clone());
      where[instruction] = &values.back();
      continue;
    }
    const OpHandler* handler = table.Find(instruction->opcode());
    if (handler == nullptr) return;  // the evaluator reports it
    Step step{instruction, handler, {}, static_cast<int64_t>(values.size())};
    for (const HloInstruction* operand : instruction->operands()) {
      auto it = where.find(operand);
      if (it == where.end()) return;
      step.operands.push_back(it->second);
    }
    values.emplace_back();
    where[instruction] = &values.back();
    steps.push_back(std::move(step));
  }
  auto root = where.find(computation_->root_instruction());
  if (root == where.end()) return;
  values_ = std::move(values);  // moving a vector keeps its elements' addresses
  steps_ = std::move(steps);
  root_value_ = root->second;
  planned_ = true;
}

absl::StatusOr<bool> ScalarCaller::NativeMatchesHandlers() {
  if (!planned_) return false;
  const PrimitiveType type = param_types_[native_lhs_];
  std::vector<double> probes = {0.0, -0.0, 1.0, -2.5, INFINITY, -INFINITY, NAN, -NAN};
  const int64_t width = param_widths_[native_lhs_];
  auto encode = [&](double v, uint8_t* dst) {
    if (type == F32) {
      const float f = static_cast<float>(v);
      std::memcpy(dst, &f, sizeof(f));
    } else {
      std::memcpy(dst, &v, sizeof(v));
    }
  };
  if ((type != F32 && type != F64) || result_widths_[0] != width) return false;
  NativeScalarFn native = native_;
  for (double a : probes) {
    for (double b : probes) {
      encode(a, arg(native_lhs_));
      encode(b, arg(native_rhs_));
      uint8_t expected[16] = {};
      native(arg(native_lhs_), arg(native_rhs_), expected);
      native_ = nullptr;
      absl::Status status = Call();
      native_ = native;
      RETURN_IF_ERROR(status);
      if (std::memcmp(expected, results_[0], width) != 0) return false;
    }
  }
  return true;
}

absl::Status ScalarCaller::Call() {
  RETURN_IF_ERROR(poll_.Done(ctx_->evaluator));
  if (native_ != nullptr) {
    native_(arg(native_lhs_), arg(native_rhs_), native_out_);
    results_[0] = native_out_;
    return absl::OkStatus();
  }
  const Literal* root = &result_value_;
  if (planned_) {
    // Handlers in the plan may run reductions of their own; bound the nesting as the
    // evaluator bounds its calls.
    static thread_local int depth = 0;
    if (depth >= 200) return absl::ResourceExhaustedError("scalar computations nest too deeply");
    ++depth;
    struct DepthGuard {
      ~DepthGuard() { --depth; }
    } guard;
    for (const Step& step : steps_) {
      absl::StatusOr<Literal> value = (*step.handler)(*ctx_, *step.instruction, step.operands);
      if (!value.ok()) {
        return absl::Status(value.status().code(),
                            absl::StrCat(Describe(*step.instruction), ": ", value.status().message()));
      }
      if (!ShapeUtil::Compatible(value->shape(), step.instruction->shape())) {
        return absl::InternalError(absl::StrCat(Describe(*step.instruction), " produced ",
                                                value->shape().ToString(), ", expected ",
                                                step.instruction->shape().ToString()));
      }
      values_[step.slot] = *std::move(value);
    }
    root = root_value_;
  } else {
    ASSIGN_OR_RETURN(result_value_, ctx_->evaluator->Evaluate(*computation_, arg_ptrs_));
  }
  const int64_t n = static_cast<int64_t>(results_.size());
  for (int64_t i = 0; i < n; ++i) {
    const Literal* value = root;
    if (root->IsTuple()) {
      if (i >= root->tuple_element_count()) return absl::InternalError("reducer returned too few values");
      value = &root->tuple_element(i);
    }
    if (value->IsTuple() || value->shape().element_type() != result_types_[i] || value->element_count() != 1) {
      return absl::InternalError(absl::StrCat(computation_->name(), " returned ", value->shape().ToString()));
    }
    results_[i] = static_cast<const uint8_t*>(value->untyped_data());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<WindowDim>> ReadWindow(const HloInstruction& instruction, int64_t rank) {
  const Window& window = instruction.attrs().window();
  if (window.dimensions_size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("window has ", window.dimensions_size(),
                                                   " dimensions, the operand has rank ", rank));
  }
  std::vector<WindowDim> dims(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = window.dimensions(static_cast<int>(d));
    WindowDim& out = dims[d];
    out.size = w.size();
    out.stride = w.stride() == 0 ? 1 : w.stride();
    out.padding_low = w.padding_low();
    out.padding_high = w.padding_high();
    out.window_dilation = w.window_dilation() == 0 ? 1 : w.window_dilation();
    out.base_dilation = w.base_dilation() == 0 ? 1 : w.base_dilation();
    // Far beyond any real window; keeps the index arithmetic clear of overflow.
    constexpr int64_t kMaxExtent = int64_t{1} << 31;
    constexpr int64_t kMaxPadding = int64_t{1} << 40;
    if (out.size < 0 || out.stride < 1 || out.window_dilation < 1 || out.base_dilation < 1 ||
        out.size > kMaxExtent || out.stride > kMaxExtent || out.window_dilation > kMaxExtent ||
        out.base_dilation > kMaxExtent || out.padding_low > kMaxPadding || out.padding_low < -kMaxPadding ||
        out.padding_high > kMaxPadding || out.padding_high < -kMaxPadding) {
      return absl::InvalidArgumentError(absl::StrCat("invalid window dimension ", d, ": size ", out.size,
                                                     " stride ", out.stride, " window dilation ",
                                                     out.window_dilation, " base dilation ", out.base_dilation,
                                                     " padding ", out.padding_low, "_", out.padding_high));
    }
  }
  return dims;
}

namespace {

using Operands = absl::Span<const Literal* const>;

// XLA's IsScalarAdd: the root is add(p0, p1) of two distinct scalar parameters.
bool IsScalarAdd(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kAdd || computation.num_parameters() != 2 ||
      root->operand_count() != 2) {
    return false;
  }
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  return lhs->opcode() == HloOpcode::kParameter && rhs->opcode() == HloOpcode::kParameter && lhs != rhs &&
         ShapeUtil::IsScalar(lhs->shape()) && ShapeUtil::IsScalar(rhs->shape());
}

absl::StatusOr<Literal> Reduce(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  if (operands.size() < 2 || operands.size() % 2 != 0) {
    return absl::InvalidArgumentError("reduce takes N inputs followed by N init values");
  }
  const int64_t n = static_cast<int64_t>(operands.size()) / 2;
  const Shape& input_shape = operands[0]->shape();
  if (!input_shape.IsArray()) return absl::InvalidArgumentError("reduce inputs must be arrays");
  const int64_t rank = input_shape.rank();
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = operands[i]->shape();
    const Shape& init = operands[n + i]->shape();
    if (!in.IsArray() || in.dimensions() != input_shape.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("reduce input ", i, " has shape ", in.ToString(),
                                                     ", expected the dimensions of ", input_shape.ToString()));
    }
    if (!init.IsArray() || init.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("reduce init value ", i, " must be a scalar, is ",
                                                     init.ToString()));
    }
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t d : instruction.dimensions()) {
    if (d < 0 || d >= rank || reduced[d]) {
      return absl::InvalidArgumentError(absl::StrCat("bad or repeated reduce dimension ", d, " for rank ", rank));
    }
    reduced[d] = true;
  }
  std::vector<int64_t> kept, kept_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      kept.push_back(d);
      kept_sizes.push_back(input_shape.dimensions(d));
    }
  }
  // Reduced dimensions from slowest to fastest, following the first input's layout.
  std::vector<int64_t> red;
  if (input_shape.has_layout() && static_cast<int64_t>(input_shape.layout().minor_to_major().size()) == rank) {
    const auto& m2m = input_shape.layout().minor_to_major();
    for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
      if (*it >= 0 && *it < rank && reduced[*it]) red.push_back(*it);
    }
  }
  if (static_cast<int64_t>(red.size()) != static_cast<int64_t>(instruction.dimensions().size())) {
    red.clear();
    for (int64_t d = 0; d < rank; ++d) {
      if (reduced[d]) red.push_back(d);
    }
  }
  std::vector<int64_t> red_sizes;
  int64_t red_count = 1;
  for (int64_t d : red) {
    red_sizes.push_back(input_shape.dimensions(d));
    red_count *= input_shape.dimensions(d);
  }

  // Output shapes: an array for one input, a tuple of N arrays otherwise.
  const Shape& shape = instruction.shape();
  const bool tuple_result = shape.IsTuple();
  if ((tuple_result && shape.tuple_shapes_size() != n) || (!tuple_result && n != 1)) {
    return absl::InvalidArgumentError(absl::StrCat("reduce of ", n, " inputs cannot produce ", shape.ToString()));
  }
  std::vector<Literal> outputs;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out_shape = tuple_result ? shape.tuple_shapes(i) : shape;
    if (!out_shape.IsArray() || out_shape.dimensions() != kept_sizes) {
      return absl::InvalidArgumentError(absl::StrCat("reduce output ", i, " has shape ", out_shape.ToString(),
                                                     ", expected the kept dimensions of ", input_shape.ToString()));
    }
    ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(out_shape.element_type(), kept_sizes)));
    outputs.push_back(std::move(out));
  }
  auto finish = [&]() -> Literal {
    if (!tuple_result) return std::move(outputs[0]);
    return Literal::MakeTuple(std::move(outputs));
  };
  const int64_t out_count = outputs[0].element_count();
  ASSIGN_OR_RETURN(ScalarCaller caller, ScalarCaller::Create(ctx, instruction.to_apply(), 2 * n, n, "reducer"));

  std::vector<ArrayView> in_views, init_views, out_views;
  std::vector<std::vector<int64_t>> red_strides(n);
  for (int64_t i = 0; i < n; ++i) {
    in_views.push_back(ArrayView::Of(*operands[i]));
    init_views.push_back(ArrayView::Of(*operands[n + i]));
    out_views.push_back(ArrayView::Of(outputs[i]));
    for (int64_t d : red) red_strides[i].push_back(in_views[i].strides[d]);
  }
  if (out_count == 0) return finish();

  const PrimitiveType init_type = operands[n]->shape().element_type();
  const bool fast_add = n == 1 && primitive_util::IsFloatingPointType(init_type) &&
                        IsScalarAdd(caller.computation());

  std::vector<int64_t> out_index(kept.size(), 0);
  std::vector<int64_t> red_index(red.size(), 0);
  std::vector<int64_t> base(n, 0);
  for (int64_t o = 0; o < out_count; ++o) {
    for (int64_t i = 0; i < n; ++i) {
      base[i] = 0;
      for (size_t k = 0; k < kept.size(); ++k) base[i] += out_index[k] * in_views[i].strides[kept[k]];
    }
    std::fill(red_index.begin(), red_index.end(), 0);
    if (fast_add) {
      double sum = LoadAsDouble(init_views[0].data, init_type);
      if (red_count > 0) {
        do {
          int64_t offset = base[0];
          for (size_t k = 0; k < red.size(); ++k) offset += red_index[k] * red_strides[0][k];
          sum += LoadAsDouble(in_views[0].At(offset), in_views[0].type);
        } while (NextIndex(red_sizes, absl::MakeSpan(red_index)));
      }
      // Rounds as XLA's SetFromDouble (F16/BF16 through float, like Eigen).
      outputs[0].SetFromDouble(o, sum);
    } else {
      for (int64_t i = 0; i < n; ++i) caller.SetArg(i, init_views[i].data, init_views[i].type);
      if (red_count > 0) {
        do {
          for (int64_t i = 0; i < n; ++i) {
            int64_t offset = base[i];
            for (size_t k = 0; k < red.size(); ++k) offset += red_index[k] * red_strides[i][k];
            caller.SetArg(n + i, in_views[i].At(offset), in_views[i].type);
          }
          RETURN_IF_ERROR(caller.Call());
          for (int64_t i = 0; i < n; ++i) caller.GetResult(i, caller.arg(i), caller.param_type(i));
        } while (NextIndex(red_sizes, absl::MakeSpan(red_index)));
      }
      for (int64_t i = 0; i < n; ++i) {
        CopyElement(caller.arg(i), caller.param_type(i), out_views[i].MutableAt(out_views[i].Offset(out_index)),
                    out_views[i].type);
      }
    }
    NextIndex(kept_sizes, absl::MakeSpan(out_index));
  }
  return finish();
}

}  // namespace

void RegisterReductionHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kReduce, Reduce);
  RegisterReduceWindowHandlers(table);
  RegisterSortHandlers(table);
}

}  // namespace interpreter
}  // namespace xla
