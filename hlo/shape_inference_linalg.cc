// Shape inference for cholesky, triangular-solve, fft and the batch-norm ops.

#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

absl::Status CheckSquareMinor(const OpContext& ctx, const Shape& a) {
  if (!IsFloating(a.element_type()) && !IsComplex(a.element_type())) {
    return Error(ctx, "expected a floating-point or complex element type, got ", ShapeStr(a));
  }
  if (a.rank() < 2) return Error(ctx, "'a' must have rank >= 2, got ", ShapeStr(a));
  if (a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return Error(ctx, "the two minor dimensions of 'a' must be equal, got ", ShapeStr(a));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferCholesky(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(0), "the operand"));
  RETURN_IF_ERROR(CheckSquareMinor(ctx, ctx.operand(0)));
  return StripLayout(ctx.operand(0));
}

absl::StatusOr<Shape> InferTriangularSolve(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& a = ctx.operand(0);
  const Shape& b = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, a, "a"));
  RETURN_IF_ERROR(ExpectArray(ctx, b, "b"));
  if (a.element_type() != b.element_type()) {
    return Error(ctx, "a and b must have the same element type, got ", ShapeStr(a), " and ",
                 ShapeStr(b));
  }
  RETURN_IF_ERROR(CheckSquareMinor(ctx, a));
  if (b.rank() != a.rank()) {
    return Error(ctx, "a and b must have the same rank, got ", ShapeStr(a), " and ", ShapeStr(b));
  }
  const TriangularSolveOptions& opts = ctx.attrs.triangular_solve_options();
  if (a.dimensions(a.rank() - 1) != b.dimensions(b.rank() - (opts.left_side() ? 2 : 1))) {
    return Error(ctx, "the shared dimension of a and b does not match: ", ShapeStr(a), " and ",
                 ShapeStr(b), " (left_side=", opts.left_side() ? "true" : "false", ")");
  }
  for (int64_t d = 0; d + 2 < a.rank(); ++d) {
    if (a.dimensions(d) != b.dimensions(d)) {
      return Error(ctx, "the batch dimensions of a and b must be equal, got ", ShapeStr(a),
                   " and ", ShapeStr(b));
    }
  }
  if (!TriangularSolveOptions_Transpose_IsValid(opts.transpose_a()) ||
      opts.transpose_a() == TriangularSolveOptions::TRANSPOSE_INVALID) {
    return Error(ctx, "invalid transpose_a option ", static_cast<int>(opts.transpose_a()));
  }
  return StripLayout(b);
}

absl::StatusOr<Shape> InferFft(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& in = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, in, "the operand"));
  std::vector<int64_t> len = ToVector(ctx.attrs.fft_length());
  const int64_t n = static_cast<int64_t>(len.size());
  if (n < 1 || n > 3) return Error(ctx, "fft_length must have 1 to 3 entries, got ", JoinInts(len));
  if (in.rank() < n) {
    return Error(ctx, "an fft of rank ", n, " needs an operand of at least that rank, got ",
                 ShapeStr(in));
  }
  const PrimitiveType t = in.element_type();
  Shape result = StripLayout(in);
  const int64_t last = in.rank() - 1;
  switch (ctx.attrs.fft_type()) {
    case FFT:
    case IFFT:
      if (!IsComplex(t)) return Error(ctx, "FFT/IFFT need a complex operand, got ", ShapeStr(in));
      return result;
    case RFFT: {
      if (t != F32 && t != F64) return Error(ctx, "RFFT needs an f32 or f64 operand, got ", ShapeStr(in));
      for (int64_t i = 0; i < n; ++i) {
        if (in.dimensions(in.rank() - n + i) != len[i]) {
          return Error(ctx, "RFFT needs the innermost dimensions of ", ShapeStr(in),
                       " to equal fft_length ", JoinInts(len));
        }
      }
      result = ChangeType(result, t == F32 ? C64 : C128);
      if (len[n - 1] != 0) result.set_dimensions(last, len[n - 1] / 2 + 1);
      return result;
    }
    case IRFFT: {
      if (!IsComplex(t)) return Error(ctx, "IRFFT needs a complex operand, got ", ShapeStr(in));
      for (int64_t i = 0; i + 1 < n; ++i) {
        if (in.dimensions(in.rank() - n + i) != len[i]) {
          return Error(ctx, "IRFFT needs all but the innermost dimensions of ", ShapeStr(in),
                       " to equal fft_length ", JoinInts(len));
        }
      }
      if ((in.dimensions(last) != 0 || len[n - 1] != 0) &&
          in.dimensions(last) != len[n - 1] / 2 + 1) {
        return Error(ctx, "IRFFT needs the innermost dimension of ", ShapeStr(in),
                     " to be fft_length/2+1 = ", len[n - 1] / 2 + 1);
      }
      result = ChangeType(result, primitive_util::ComplexComponentType(t));
      result.set_dimensions(last, len[n - 1]);
      return result;
    }
    default:
      return Error(ctx, "invalid fft_type ", static_cast<int>(ctx.attrs.fft_type()));
  }
}

// Batch norm: operand of rank >= 1 with floating elements; per-feature operands of rank 1
// and size equal to the operand's feature dimension.
absl::StatusOr<Shape> InferBatchNorm(const OpContext& ctx) {
  const int64_t count = ctx.opcode == HloOpcode::kBatchNormTraining ? 3 : 5;
  RETURN_IF_ERROR(ExpectOperandCount(ctx, count));
  for (int64_t i = 0; i < count; ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
  }
  const Shape& operand = ctx.operand(0);
  const int64_t fi = ctx.attrs.feature_index();
  if (operand.rank() < 1) return Error(ctx, "the operand must have rank >= 1");
  if (fi < 0 || fi >= operand.rank()) {
    return Error(ctx, "feature_index ", fi, " is out of range for ", ShapeStr(operand));
  }
  if (!IsFloating(operand.element_type())) {
    return Error(ctx, "the operand must have a floating-point element type, got ",
                 ShapeStr(operand));
  }
  const int64_t features = operand.dimensions(fi);
  // batch-norm-grad's operand 4 is the output gradient, shaped like the operand.
  const int64_t per_feature_end = ctx.opcode == HloOpcode::kBatchNormGrad ? 4 : count;
  for (int64_t i = 1; i < count; ++i) {
    const Shape& s = ctx.operand(i);
    if (s.element_type() != operand.element_type()) {
      return Error(ctx, "operand ", i, " ", ShapeStr(s), " must have the element type of ",
                   ShapeStr(operand));
    }
    if (i < per_feature_end) {
      if (s.rank() != 1 || s.dimensions(0) != features) {
        return Error(ctx, "operand ", i, " ", ShapeStr(s), " must be rank 1 with the feature "
                     "count ", features);
      }
    } else if (!SameDims(s, operand)) {
      return Error(ctx, "the output gradient ", ShapeStr(s), " must have the dimensions of ",
                   ShapeStr(operand));
    }
  }
  Shape out = StripLayout(operand);
  if (ctx.opcode == HloOpcode::kBatchNormInference) return out;
  Shape feature = MakeArray(operand.element_type(), {features});
  return Shape::MakeTuple({out, feature, feature});
}

}  // namespace

absl::StatusOr<Shape> InferLinalg(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kCholesky:
      return InferCholesky(ctx);
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolve(ctx);
    case HloOpcode::kFft:
      return InferFft(ctx);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return InferBatchNorm(ctx);
    default:
      return Error(ctx, "not a linear-algebra op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
