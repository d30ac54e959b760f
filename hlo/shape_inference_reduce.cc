// Shape inference for reduce, reduce-window, select-and-scatter, map, sort and topk,
// including the signatures of their called computations.

#include <numeric>

#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

std::vector<const Shape*> Slice(absl::Span<const Shape* const> s, size_t begin, size_t n) {
  return std::vector<const Shape*>(s.begin() + begin, s.begin() + begin + n);
}

absl::StatusOr<Shape> InferReduce(const OpContext& ctx) {
  if (ctx.operand_count() < 2 || ctx.operand_count() % 2 != 0) {
    return Error(ctx, "expects an even number (>= 2) of operands (inputs then init values), got ",
                 ctx.operand_count());
  }
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const int64_t n = ctx.operand_count() / 2;
  std::vector<const Shape*> inputs = Slice(ctx.operands, 0, n);
  std::vector<const Shape*> inits = Slice(ctx.operands, n, n);
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, *inputs[i], absl::StrCat("input ", i)));
    if (!SameDims(*inputs[0], *inputs[i])) {
      return Error(ctx, "all inputs must have the same dimensions, got ", ShapeStr(*inputs[0]),
                   " and ", ShapeStr(*inputs[i]));
    }
    RETURN_IF_ERROR(ExpectScalar(ctx, *inits[i], absl::StrCat("init value ", i)));
  }
  const Shape& arg = *inputs[0];
  std::vector<int64_t> reduce_dims = ToVector(ctx.attrs.dimensions());
  if (!AllInRange(reduce_dims, arg.rank())) {
    return Error(ctx, "dimensions ", JoinInts(reduce_dims), " are out of range for ",
                 ShapeStr(arg));
  }
  if (!AllUnique(reduce_dims)) {
    return Error(ctx, "dimensions ", JoinInts(reduce_dims), " repeat a dimension");
  }
  std::vector<PrimitiveType> types;
  for (const Shape* s : inputs) types.push_back(s->element_type());
  RETURN_IF_ERROR(VerifyReducerShape(ctx, *ctx.called[0], inits, types));
  std::vector<int64_t> dims;
  std::vector<bool> dyn;
  for (int64_t d = 0; d < arg.rank(); ++d) {
    if (std::find(reduce_dims.begin(), reduce_dims.end(), d) != reduce_dims.end()) continue;
    dims.push_back(arg.dimensions(d));
    dyn.push_back(arg.is_dynamic_dimension(d));
  }
  const Shape& result = ctx.called[0]->result();
  if (result.IsArray()) return MakeArray(result.element_type(), dims, dyn);
  std::vector<Shape> elements;
  for (const Shape& s : result.tuple_shapes()) {
    elements.push_back(MakeArray(s.element_type(), dims, dyn));
  }
  return Shape::MakeTuple(std::move(elements));
}

absl::StatusOr<Shape> InferReduceWindow(const OpContext& ctx) {
  if (ctx.operand_count() < 2 || ctx.operand_count() % 2 != 0) {
    return Error(ctx, "expects an even number (>= 2) of operands (inputs then init values), got ",
                 ctx.operand_count());
  }
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const int64_t n = ctx.operand_count() / 2;
  std::vector<const Shape*> inputs = Slice(ctx.operands, 0, n);
  std::vector<const Shape*> inits = Slice(ctx.operands, n, n);
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, *inputs[i], absl::StrCat("input ", i)));
    if (!SameDims(*inputs[0], *inputs[i])) {
      return Error(ctx, "all inputs must have the same dimensions, got ", ShapeStr(*inputs[0]),
                   " and ", ShapeStr(*inputs[i]));
    }
    RETURN_IF_ERROR(ExpectScalar(ctx, *inits[i], absl::StrCat("init value ", i)));
    types.push_back(inputs[i]->element_type());
  }
  RETURN_IF_ERROR(VerifyReducerShape(ctx, *ctx.called[0], inits, types));
  std::vector<Shape> outputs;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Shape out, InferWindowOutputShape(ctx, *inputs[i], ctx.attrs.window(),
                                                       inits[i]->element_type()));
    outputs.push_back(std::move(out));
  }
  if (n == 1) return outputs[0];
  return Shape::MakeTuple(std::move(outputs));
}

absl::StatusOr<Shape> InferSelectAndScatter(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 3));
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  const Shape& source = ctx.operand(1);
  const Shape& init = ctx.operand(2);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  RETURN_IF_ERROR(ExpectArray(ctx, source, "the source"));
  RETURN_IF_ERROR(ExpectScalar(ctx, init, "the init value"));
  const ProgramShape& select = *ctx.called[0];
  if (select.parameters().size() != 2) {
    return Error(ctx, "the select computation must take 2 parameters, takes ",
                 select.parameters().size());
  }
  if (!ShapesCompatible(select.result(), MakeArray(PRED, {}))) {
    return Error(ctx, "the select computation must return pred[], returns ",
                 ShapeStr(select.result()));
  }
  Shape element = MakeArray(operand.element_type(), {});
  for (int i = 0; i < 2; ++i) {
    if (!ShapesCompatibleIgnoringFpPrecision(element, select.parameters()[i])) {
      return Error(ctx, "the select computation's parameter ", i, " has shape ",
                   ShapeStr(select.parameters()[i]), " but the operand element shape is ",
                   ShapeStr(element));
    }
  }
  std::vector<const Shape*> inits = {&init};
  std::vector<PrimitiveType> types = {source.element_type()};
  RETURN_IF_ERROR(VerifyReducerShape(ctx, *ctx.called[1], inits, types));
  ASSIGN_OR_RETURN(Shape windowed, InferWindowOutputShape(ctx, operand, ctx.attrs.window(),
                                                          operand.element_type()));
  if (!ShapesCompatibleIgnoringFpPrecision(source, windowed)) {
    return Error(ctx, "the source ", ShapeStr(source), " must have the shape of the "
                 "window-reduced operand ", ShapeStr(windowed));
  }
  Shape result = operand;
  result.clear_layout();
  return result;
}

absl::StatusOr<Shape> InferMap(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const Shape& first = ctx.operand(0);
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
    if (!SameDims(first, ctx.operand(i))) {
      return Error(ctx, "all operands must have the same dimensions, got ", ShapeStr(first),
                   " and ", ShapeStr(ctx.operand(i)));
    }
  }
  // Map applies its computation over all dimensions: `dimensions`, when present, is the
  // identity.
  std::vector<int64_t> dims = ToVector(ctx.attrs.dimensions());
  if (!dims.empty()) {
    std::vector<int64_t> identity(first.rank());
    std::iota(identity.begin(), identity.end(), 0);
    if (dims != identity) {
      return Error(ctx, "dimensions ", JoinInts(dims), " must be all dimensions in order ",
                   JoinInts(identity));
    }
  }
  const ProgramShape& fn = *ctx.called[0];
  if (static_cast<int64_t>(fn.parameters().size()) != ctx.operand_count()) {
    return Error(ctx, "the mapped computation takes ", fn.parameters().size(),
                 " parameters but there are ", ctx.operand_count(), " operands");
  }
  if (!fn.result().IsArray() || fn.result().rank() != 0) {
    return Error(ctx, "the mapped computation must return a scalar, returns ",
                 ShapeStr(fn.result()));
  }
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    const Shape& p = fn.parameters()[i];
    if (!p.IsArray() || p.rank() != 0 || p.element_type() != ctx.operand(i).element_type()) {
      return Error(ctx, "the mapped computation's parameter ", i, " is ", ShapeStr(p),
                   " but must be a scalar of the operand type ",
                   TypeStr(ctx.operand(i).element_type()));
    }
  }
  Shape result = ChangeType(first, fn.result().element_type());
  return result;
}

absl::StatusOr<Shape> InferSort(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const Shape& keys = ctx.operand(0);
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
    if (!SameDims(keys, ctx.operand(i))) {
      return Error(ctx, "keys and values must have the same dimensions; keys ", ShapeStr(keys),
                   ", operand ", i, " ", ShapeStr(ctx.operand(i)));
    }
  }
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects one sort dimension, got ", ctx.attrs.dimensions_size());
  }
  const int64_t dim = ctx.attrs.dimensions(0);
  if (dim < 0 || dim >= keys.rank()) {
    return Error(ctx, "sort dimension ", dim, " is out of range for ", ShapeStr(keys));
  }
  const ProgramShape& cmp = *ctx.called[0];
  if (static_cast<int64_t>(cmp.parameters().size()) != 2 * ctx.operand_count()) {
    return Error(ctx, "the comparator must take ", 2 * ctx.operand_count(),
                 " parameters, takes ", cmp.parameters().size());
  }
  if (!ShapesCompatible(cmp.result(), MakeArray(PRED, {}))) {
    return Error(ctx, "the comparator must return pred[], returns ", ShapeStr(cmp.result()));
  }
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    Shape element = MakeArray(ctx.operand(i).element_type(), {});
    for (int64_t j : {2 * i, 2 * i + 1}) {
      if (!ShapesCompatible(cmp.parameters()[j], element)) {
        return Error(ctx, "the comparator's parameter ", j, " is ", ShapeStr(cmp.parameters()[j]),
                     " but must be ", ShapeStr(element));
      }
    }
  }
  if (ctx.operand_count() == 1) {
    Shape result = keys;
    result.clear_layout();
    return result;
  }
  std::vector<Shape> elements;
  for (const Shape* s : ctx.operands) {
    elements.push_back(*s);
    elements.back().clear_layout();
  }
  return Shape::MakeTuple(std::move(elements));
}

absl::StatusOr<Shape> InferTopK(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  if (operand.rank() < 1) return Error(ctx, "the operand must have rank >= 1");
  const int64_t k = ctx.attrs.k();
  const int64_t last = operand.dimensions(operand.rank() - 1);
  if (k < 0 || (!operand.is_unbounded_dynamic_dimension(operand.rank() - 1) && k > last)) {
    return Error(ctx, "k=", k, " must be in [0, ", last, "] for ", ShapeStr(operand));
  }
  Shape values = operand;
  values.clear_layout();
  values.set_dimensions(operand.rank() - 1, k);
  values.set_dynamic_dimension(operand.rank() - 1, false);
  Shape indices = ChangeType(values, S32);
  return Shape::MakeTuple({values, indices});
}

}  // namespace

absl::StatusOr<Shape> InferReduceFamily(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kReduce:
      return InferReduce(ctx);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(ctx);
    case HloOpcode::kSelectAndScatter:
      return InferSelectAndScatter(ctx);
    case HloOpcode::kMap:
      return InferMap(ctx);
    case HloOpcode::kSort:
      return InferSort(ctx);
    case HloOpcode::kTopk:
      return InferTopK(ctx);
    default:
      return Error(ctx, "not a reduction op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
