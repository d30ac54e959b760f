// Shape inference for collectives (and their -start/-done forms), send/recv,
// infeed/outfeed, after-all and add-dependency.
//
// Several -start ops have more than one accepted result form in real HLO (XLA changed
// them over time, and importers print others): with a declared shape, each accepted form
// is validated; pure inference returns XLA's current form.

#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

// One shape for a single operand, a tuple for several.
Shape SingleOrTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return StripLayout(shapes[0]);
  for (Shape& s : shapes) s = StripLayout(s);
  return Shape::MakeTuple(std::move(shapes));
}

std::vector<Shape> OperandShapes(const OpContext& ctx, int64_t begin = 0, int64_t end = -1) {
  if (end < 0) end = ctx.operand_count();
  std::vector<Shape> shapes;
  for (int64_t i = begin; i < end; ++i) shapes.push_back(ctx.operand(i));
  return shapes;
}

absl::Status ExpectArrays(const OpContext& ctx) {
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
  }
  return absl::OkStatus();
}

// Size of the (equal-sized) replica groups, or nullopt when none are given.
absl::StatusOr<std::optional<int64_t>> GroupSize(const OpContext& ctx) {
  std::vector<std::vector<int64_t>> groups = ReplicaGroupsOf(ctx.attrs);
  if (groups.empty()) return std::optional<int64_t>();
  int64_t size = static_cast<int64_t>(groups[0].size());
  for (const auto& g : groups) {
    if (static_cast<int64_t>(g.size()) != size) {
      return Error(ctx, "replica groups must all have the same size");
    }
  }
  if (size <= 0) return std::optional<int64_t>();
  return std::optional<int64_t>(size);
}

absl::StatusOr<int64_t> SingleDimension(const OpContext& ctx, absl::string_view what) {
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects one ", what, ", got ", ctx.attrs.dimensions_size());
  }
  return ctx.attrs.dimensions(0);
}

absl::Status CheckReducer(const OpContext& ctx) {
  if (ctx.called.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const ProgramShape& fn = *ctx.called[0];
  if (fn.parameters().size() != 2 || !fn.result().IsArray() || fn.result().rank() != 0) {
    return Error(ctx, "the reduction computation must take two scalars and return a scalar, "
                 "got ", fn.ToString());
  }
  return absl::OkStatus();
}

// all-gather (scale = true) multiplies dimension `dim` by the group size; reduce-scatter
// divides it. Without replica groups the factor comes from the declared shape.
absl::StatusOr<Shape> InferGatherOrScatter(const OpContext& ctx, bool gather,
                                           const Shape* declared_result) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectArrays(ctx));
  ASSIGN_OR_RETURN(int64_t dim, SingleDimension(ctx, gather ? "all-gather dimension"
                                                            : "scatter dimension"));
  ASSIGN_OR_RETURN(std::optional<int64_t> group, GroupSize(ctx));
  std::vector<Shape> outs;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand(i);
    if (dim < 0 || dim >= s.rank()) {
      return Error(ctx, "dimension ", dim, " is out of range for ", ShapeStr(s));
    }
    int64_t factor = 0;
    if (group.has_value()) {
      factor = *group;
    } else {
      if (declared_result == nullptr) return ShapeMustBeGiven(ctx);
      const Shape& d = (ctx.operand_count() == 1 || !declared_result->IsTuple())
                           ? *declared_result
                           : declared_result->tuple_shapes(std::min<int64_t>(
                                 i, declared_result->tuple_shapes_size() - 1));
      if (!d.IsArray() || d.rank() != s.rank()) {
        return Error(ctx, "result ", ShapeStr(*declared_result), " does not fit operand ",
                     ShapeStr(s));
      }
      int64_t num = gather ? d.dimensions(dim) : s.dimensions(dim);
      int64_t den = gather ? s.dimensions(dim) : d.dimensions(dim);
      factor = den == 0 ? 1 : num / den;
      if (factor <= 0 || den * factor != num) {
        return Error(ctx, "result dimension ", dim, " of ", ShapeStr(d),
                     " is not a multiple of the operand ", ShapeStr(s));
      }
    }
    Shape out = StripLayout(s);
    if (gather) {
      out.set_dimensions(dim, s.dimensions(dim) * factor);
    } else {
      if (s.dimensions(dim) % factor != 0) {
        return Error(ctx, "scatter dimension ", dim, " of ", ShapeStr(s),
                     " must be divisible by the shard count ", factor);
      }
      out.set_dimensions(dim, s.dimensions(dim) / factor);
    }
    outs.push_back(out);
  }
  return SingleOrTuple(std::move(outs));
}

absl::StatusOr<Shape> InferAllToAll(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectArrays(ctx));
  ASSIGN_OR_RETURN(std::optional<int64_t> group, GroupSize(ctx));
  if (ctx.attrs.dimensions_size() > 0) {
    // Array form: split and concatenate along one dimension, so the shape is unchanged.
    RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
    ASSIGN_OR_RETURN(int64_t dim, SingleDimension(ctx, "split dimension"));
    const Shape& s = ctx.operand(0);
    if (dim < 0 || dim >= s.rank()) {
      return Error(ctx, "split dimension ", dim, " is out of range for ", ShapeStr(s));
    }
    if (group.has_value() && s.dimensions(dim) % *group != 0) {
      return Error(ctx, "split dimension ", dim, " of ", ShapeStr(s),
                   " must be divisible by the split count ", *group);
    }
    return StripLayout(s);
  }
  std::vector<Shape> shapes = OperandShapes(ctx);
  for (Shape& s : shapes) s = StripLayout(s);
  return Shape::MakeTuple(std::move(shapes));
}

absl::StatusOr<Shape> InferRaggedAllToAll(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 6));
  RETURN_IF_ERROR(ExpectArrays(ctx));
  const Shape& input = ctx.operand(0);
  const Shape& output = ctx.operand(1);
  if (input.element_type() != output.element_type() || input.rank() != output.rank()) {
    return Error(ctx, "input ", ShapeStr(input), " and output ", ShapeStr(output),
                 " must have the same element type and rank");
  }
  for (int64_t d = 1; d < input.rank(); ++d) {
    if (!DimsAgree(input.dimensions(d), output.dimensions(d))) {
      return Error(ctx, "input ", ShapeStr(input), " and output ", ShapeStr(output),
                   " may differ only in the major dimension");
    }
  }
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& s = ctx.operand(i);
    if (!IsIntegral(s.element_type()) || s.rank() < 1) {
      return Error(ctx, "offsets and sizes must be integral arrays, operand ", i, " is ",
                   ShapeStr(s));
    }
    if (!ShapesCompatible(s, ctx.operand(2))) {
      return Error(ctx, "offsets and sizes must all have the same shape, got ",
                   ShapeStr(ctx.operand(2)), " and ", ShapeStr(s));
    }
  }
  return StripLayout(output);
}

// Legacy in-place collective-permute: (input, output, input_offsets, output_offsets)
// with slice_sizes; its result is the output buffer.
bool IsInPlacePermute(const OpContext& ctx) {
  return ctx.operand_count() == 4 && ctx.attrs.dynamic_slice_sizes_size() > 0;
}

absl::StatusOr<Shape> InferCollectivePermute(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  if (IsInPlacePermute(ctx)) return StripLayout(ctx.operand(1));
  RETURN_IF_ERROR(ExpectArrays(ctx));
  return SingleOrTuple(OperandShapes(ctx));
}

absl::StatusOr<Shape> InferCollectivePermuteStart(const OpContext& ctx) {
  ASSIGN_OR_RETURN(Shape result, InferCollectivePermute(ctx));
  Shape input = IsInPlacePermute(ctx) ? StripLayout(ctx.operand(0))
                                      : SingleOrTuple(OperandShapes(ctx));
  if (ctx.declared != nullptr) {
    const Shape& d = *ctx.declared;
    // Accepted: the result alone; (input, result); (input, result, contexts...).
    if (ShapesCompatible(d, result) && !d.IsTuple()) return d;
    if (d.IsTuple() && d.tuple_shapes_size() >= 2 && ShapesCompatible(d.tuple_shapes(0), input) &&
        ShapesCompatible(d.tuple_shapes(1), result)) {
      return d;
    }
    return Error(ctx, "result ", ShapeStr(d), " must be (", ShapeStr(input), ", ",
                 ShapeStr(result), ", contexts...)");
  }
  Shape u32 = MakeArray(U32, {});
  return Shape::MakeTuple({input, result, u32, u32});
}

// -done of an async collective whose start returned (input, result, ...) or the result.
absl::StatusOr<Shape> InferDoneOfStart(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& start = ctx.operand(0);
  if (start.IsTuple()) {
    if (start.tuple_shapes_size() < 2) {
      return Error(ctx, "the operand must be a start tuple (input, result, ...), got ",
                   ShapeStr(start));
    }
    if (ctx.declared != nullptr && ShapesCompatible(*ctx.declared, start)) return *ctx.declared;
    return StripLayout(start.tuple_shapes(1));
  }
  return StripLayout(start);
}

absl::StatusOr<Shape> InferAllGatherStart(const OpContext& ctx) {
  const Shape* declared_result = ctx.declared;
  if (ctx.declared != nullptr && ctx.declared->IsTuple() && ctx.declared->tuple_shapes_size() == 2) {
    declared_result = &ctx.declared->tuple_shapes(1);
  }
  ASSIGN_OR_RETURN(Shape result, InferGatherOrScatter(ctx, /*gather=*/true, declared_result));
  Shape input = SingleOrTuple(OperandShapes(ctx));
  if (ctx.declared != nullptr && ShapesCompatible(*ctx.declared, result)) return *ctx.declared;
  return Shape::MakeTuple({input, result});
}

absl::StatusOr<Shape> InferAllReduceStart(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectArrays(ctx));
  RETURN_IF_ERROR(CheckReducer(ctx));
  Shape result = SingleOrTuple(OperandShapes(ctx));
  // Importers print (input, result) for a single operand; accept it.
  if (ctx.declared != nullptr && ctx.operand_count() == 1 && ctx.declared->IsTuple() &&
      ctx.declared->tuple_shapes_size() == 2 &&
      ShapesCompatible(ctx.declared->tuple_shapes(0), result) &&
      ShapesCompatible(ctx.declared->tuple_shapes(1), result)) {
    return *ctx.declared;
  }
  return result;
}

absl::Status ExpectToken(const OpContext& ctx, const Shape& s, absl::string_view what) {
  if (!s.IsToken()) return Error(ctx, what, " must be a token, got ", ShapeStr(s));
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferSendRecv(const OpContext& ctx) {
  Shape u32 = MakeArray(U32, {});
  switch (ctx.opcode) {
    case HloOpcode::kSend:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
      RETURN_IF_ERROR(ExpectToken(ctx, ctx.operand(1), "operand 1"));
      return Shape::MakeTuple({StripLayout(ctx.operand(0)), u32, Shape::MakeToken()});
    case HloOpcode::kSendDone:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      if (!ctx.operand(0).IsTuple() || ctx.operand(0).tuple_shapes_size() != 3) {
        return Error(ctx, "the operand must be a send (data, u32[], token[]), got ",
                     ShapeStr(ctx.operand(0)));
      }
      return Shape::MakeToken();
    case HloOpcode::kRecv: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      RETURN_IF_ERROR(ExpectToken(ctx, ctx.operand(0), "operand 0"));
      ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
      if (!d->IsTuple() || d->tuple_shapes_size() != 3 ||
          !ShapesCompatible(d->tuple_shapes(1), u32) || !d->tuple_shapes(2).IsToken()) {
        return Error(ctx, "result must be (data, u32[], token[]), got ", ShapeStr(*d));
      }
      return *d;
    }
    case HloOpcode::kRecvDone: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      const Shape& recv = ctx.operand(0);
      if (!recv.IsTuple() || recv.tuple_shapes_size() != 3) {
        return Error(ctx, "the operand must be a recv (data, u32[], token[]), got ",
                     ShapeStr(recv));
      }
      return Shape::MakeTuple({StripLayout(recv.tuple_shapes(0)), Shape::MakeToken()});
    }
    case HloOpcode::kInfeed: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      RETURN_IF_ERROR(ExpectToken(ctx, ctx.operand(0), "operand 0"));
      ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
      if (!d->IsTuple() || d->tuple_shapes_size() != 2 || !d->tuple_shapes(1).IsToken()) {
        return Error(ctx, "result must be (data, token[]), got ", ShapeStr(*d));
      }
      return *d;
    }
    case HloOpcode::kOutfeed: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
      RETURN_IF_ERROR(ExpectToken(ctx, ctx.operand(1), "operand 1"));
      if (ctx.attrs.has_outfeed_shape() &&
          ctx.attrs.outfeed_shape().element_type() != PRIMITIVE_TYPE_INVALID) {
        absl::StatusOr<Shape> outfeed_shape = Shape::FromProto(ctx.attrs.outfeed_shape());
        if (!outfeed_shape.ok()) return Error(ctx, "bad outfeed_shape: ", outfeed_shape.status().message());
        if (!ShapesCompatible(*outfeed_shape, ctx.operand(0))) {
          return Error(ctx, "outfeed_shape ", ShapeStr(*outfeed_shape),
                       " must match the operand ", ShapeStr(ctx.operand(0)));
        }
      }
      return Shape::MakeToken();
    }
    default:
      return Error(ctx, "not a send/recv op");
  }
}

}  // namespace

absl::StatusOr<Shape> InferCollective(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kAllReduce:
      RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
      RETURN_IF_ERROR(ExpectArrays(ctx));
      RETURN_IF_ERROR(CheckReducer(ctx));
      return SingleOrTuple(OperandShapes(ctx));
    case HloOpcode::kAllReduceStart:
      return InferAllReduceStart(ctx);
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return InferDoneOfStart(ctx);
    case HloOpcode::kAllGather:
      return InferGatherOrScatter(ctx, /*gather=*/true, ctx.declared);
    case HloOpcode::kAllGatherStart:
      return InferAllGatherStart(ctx);
    case HloOpcode::kReduceScatter:
      RETURN_IF_ERROR(CheckReducer(ctx));
      return InferGatherOrScatter(ctx, /*gather=*/false, ctx.declared);
    case HloOpcode::kAllToAll:
      return InferAllToAll(ctx);
    case HloOpcode::kRaggedAllToAll:
      return InferRaggedAllToAll(ctx);
    case HloOpcode::kCollectivePermute:
      return InferCollectivePermute(ctx);
    case HloOpcode::kCollectivePermuteStart:
      return InferCollectivePermuteStart(ctx);
    case HloOpcode::kCollectiveBroadcast:
      RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
      RETURN_IF_ERROR(ExpectArrays(ctx));
      return SingleOrTuple(OperandShapes(ctx));
    case HloOpcode::kAfterAll:
      // At the HLO level after-all joins any values (XLA's verifier and parser tests
      // accept `after-all(f32[] %x)`); only the builder insists on token operands.
      return Shape::MakeToken();
    case HloOpcode::kAddDependency:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
      RETURN_IF_ERROR(ExpectToken(ctx, ctx.operand(1), "operand 1"));
      return StripLayout(ctx.operand(0));
    default:
      return InferSendRecv(ctx);
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
