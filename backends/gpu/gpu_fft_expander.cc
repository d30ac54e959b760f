#include "backends/gpu/gpu_fft_expander.h"

#include <cmath>
#include <complex>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

bool IsPowerOfTwo(int64_t n) { return n >= 1 && (n & (n - 1)) == 0; }

// A single-axis fft of length n that is one kernel: the shared-memory radix-2 form, or a
// short direct DFT.
bool IsOneKernel(int64_t n) {
  return IsPowerOfTwo(n) ? n <= kLongestSharedMemoryFft : n <= kLongestDirectFft;
}

// Builds the chain replacing one fft in `computation`; every value is an array in the
// default layout, c128 (or f64 at the real ends of RFFT and IRFFT).
class FftChain {
 public:
  explicit FftChain(HloComputation* computation) : c_(computation) {}

  HloInstruction* Add(HloOpcode opcode, PrimitiveType type, absl::Span<const int64_t> dims,
                      absl::Span<HloInstruction* const> operands, const HloInstructionProto& attrs = {}) {
    return cpu::AddWithShape(c_, opcode, cpu::WithDefaultLayout(ShapeUtil::MakeShape(type, dims)), operands, attrs);
  }
  static std::vector<int64_t> Dims(const HloInstruction* x) {
    return std::vector<int64_t>(x->shape().dimensions().begin(), x->shape().dimensions().end());
  }
  static PrimitiveType Type(const HloInstruction* x) { return x->shape().element_type(); }

  HloInstruction* Unary(HloOpcode opcode, HloInstruction* x, PrimitiveType type) {
    return Add(opcode, type, Dims(x), {x});
  }
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* x, HloInstruction* y) {
    return Add(opcode, Type(x), Dims(x), {x, y});
  }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType type) {
    return Type(x) == type ? x : Unary(HloOpcode::kConvert, x, type);
  }
  HloInstruction* Transpose(HloInstruction* x, const std::vector<int64_t>& permutation) {
    const std::vector<int64_t> in = Dims(x);
    std::vector<int64_t> dims;
    HloInstructionProto attrs;
    for (int64_t p : permutation) {
      dims.push_back(in[p]);
      attrs.add_dimensions(p);
    }
    return Add(HloOpcode::kTranspose, Type(x), dims, {x}, attrs);
  }
  // Swaps the last two dimensions.
  HloInstruction* SwapLastTwo(HloInstruction* x) {
    std::vector<int64_t> permutation(x->shape().rank());
    std::iota(permutation.begin(), permutation.end(), 0);
    std::swap(permutation[permutation.size() - 1], permutation[permutation.size() - 2]);
    return Transpose(x, permutation);
  }
  HloInstruction* Reshape(HloInstruction* x, const std::vector<int64_t>& dims) {
    return Add(HloOpcode::kReshape, Type(x), dims, {x});
  }
  // x[..., start:limit] along the last dimension.
  HloInstruction* SliceLast(HloInstruction* x, int64_t start, int64_t limit) {
    std::vector<int64_t> dims = Dims(x);
    HloInstructionProto attrs;
    for (size_t d = 0; d < dims.size(); ++d) {
      auto* slice = attrs.add_slice_dimensions();
      const bool last = d + 1 == dims.size();
      slice->set_start(last ? start : 0);
      slice->set_limit(last ? limit : dims[d]);
      slice->set_stride(1);
    }
    dims.back() = limit - start;
    return Add(HloOpcode::kSlice, Type(x), dims, {x}, attrs);
  }
  HloInstruction* ConcatenateLast(HloInstruction* x, HloInstruction* y) {
    std::vector<int64_t> dims = Dims(x);
    dims.back() += y->shape().dimensions(y->shape().rank() - 1);
    HloInstructionProto attrs;
    attrs.add_dimensions(static_cast<int64_t>(dims.size()) - 1);
    return Add(HloOpcode::kConcatenate, Type(x), dims, {x, y}, attrs);
  }
  // `x` (of the trailing dimensions of `dims`) broadcast to `dims`.
  HloInstruction* BroadcastTrailing(HloInstruction* x, const std::vector<int64_t>& dims) {
    HloInstructionProto attrs;
    const int64_t rank = x->shape().rank();
    for (int64_t d = 0; d < rank; ++d) attrs.add_dimensions(static_cast<int64_t>(dims.size()) - rank + d);
    return Add(HloOpcode::kBroadcast, Type(x), dims, {x}, attrs);
  }
  HloInstruction* Scalar(PrimitiveType type, std::complex<double> value) {
    Literal literal = Literal::Create(ShapeUtil::MakeShape(type, {})).value();
    if (primitive_util::IsComplexType(type)) {
      literal.SetFromComplex(0, value);
    } else {
      literal.SetFromDouble(0, value.real());
    }
    return cpu::AddConstant(c_, std::move(literal));
  }
  HloInstruction* Full(PrimitiveType type, const std::vector<int64_t>& dims, std::complex<double> value) {
    return Add(HloOpcode::kBroadcast, type, dims, {Scalar(type, value)});
  }
  HloInstruction* Iota(PrimitiveType type, const std::vector<int64_t>& dims, int64_t dimension) {
    HloInstructionProto attrs;
    attrs.add_dimensions(dimension);
    return Add(HloOpcode::kIota, type, dims, {}, attrs);
  }
  HloInstruction* Conjugate(HloInstruction* x) {
    HloInstruction* re = Unary(HloOpcode::kReal, x, F64);
    HloInstruction* im = Unary(HloOpcode::kNegate, Unary(HloOpcode::kImag, x, F64), F64);
    return Add(HloOpcode::kComplex, C128, Dims(x), {re, im});
  }
  // exp(sign * i * pi * numerator / denominator), elementwise, from an s64 array.
  HloInstruction* Phase(HloInstruction* numerator, double denominator, int sign) {
    const std::vector<int64_t> dims = Dims(numerator);
    HloInstruction* angle = Binary(HloOpcode::kMultiply, Convert(numerator, F64), Full(F64, dims, M_PI));
    angle = Binary(HloOpcode::kDivide, angle, Full(F64, dims, denominator));
    HloInstruction* sine = Unary(HloOpcode::kSine, angle, F64);
    if (sign < 0) sine = Unary(HloOpcode::kNegate, sine, F64);
    return Add(HloOpcode::kComplex, C128, dims, {Unary(HloOpcode::kCosine, angle, F64), sine});
  }

  // One fft op over the last dimension.
  HloInstruction* FftOp(HloInstruction* x, FftType type, int64_t n) {
    std::vector<int64_t> dims = Dims(x);
    dims.back() = type == RFFT ? n / 2 + 1 : n;
    HloInstructionProto attrs;
    attrs.set_fft_type(type);
    attrs.add_fft_length(n);
    return Add(HloOpcode::kFft, type == IRFFT ? F64 : C128, dims, {x}, attrs);
  }

  // The complex transform of length n of x's rows (c128), as FFT (forward) or IFFT.
  HloInstruction* Complex1D(HloInstruction* x, bool inverse, int64_t n) {
    if (IsOneKernel(n)) return FftOp(x, inverse ? IFFT : FFT, n);
    return IsPowerOfTwo(n) ? FourStep(x, inverse, n) : Bluestein(x, inverse, n);
  }

  // A transform of `type` along the last dimension, of x (c128; f64 for RFFT).
  HloInstruction* Transform(HloInstruction* x, FftType type, int64_t n) {
    if (IsOneKernel(n)) return FftOp(x, type, n);
    switch (type) {
      case RFFT:
        return SliceLast(Complex1D(Convert(x, C128), false, n), 0, n / 2 + 1);
      case IRFFT: {
        // The full spectrum, X[k] = conj(X[n - k]) past the stored half, as the interpreter
        // rebuilds it; its inverse's real part.
        const int64_t half = n / 2 + 1;
        HloInstruction* full = x;
        if (n - half > 0) {
          HloInstructionProto reverse;
          reverse.add_dimensions(x->shape().rank() - 1);
          HloInstruction* mirrored = SliceLast(x, 1, n - half + 1);
          mirrored = Add(HloOpcode::kReverse, C128, Dims(mirrored), {mirrored}, reverse);
          full = ConcatenateLast(x, Conjugate(mirrored));
        }
        return Unary(HloOpcode::kReal, Complex1D(full, true, n), F64);
      }
      default:
        return Complex1D(x, type == IFFT, n);
    }
  }

  // The four-step form of a power-of-two length n = n1 * n2 (n2 the kernel's longest): with
  // j = n2 * j1 + j2 and k = k1 + n1 * k2, X[k] = sum over j2 of w_n2^(j2 k2) w_n^(j2 k1)
  // (sum over j1 of x[j] w_n1^(j1 k1)). An inverse scales by 1/n1 and 1/n2, so by 1/n.
  HloInstruction* FourStep(HloInstruction* x, bool inverse, int64_t n) {
    const int64_t n2 = kLongestSharedMemoryFft, n1 = n / n2;
    std::vector<int64_t> dims = Dims(x);
    const std::vector<int64_t> rows(dims.begin(), dims.end() - 1);
    std::vector<int64_t> split = rows;
    split.insert(split.end(), {n1, n2});
    HloInstruction* columns = SwapLastTwo(Reshape(x, split));  // [..., j2, j1]
    HloInstruction* inner = Complex1D(columns, inverse, n1);    // [..., j2, k1]
    // The twiddles w_n^(j2 k1) = exp(-+2 pi i j2 k1 / n); j2 * k1 < n, so no reduction.
    const std::vector<int64_t> grid = {n2, n1};
    HloInstruction* product = Binary(HloOpcode::kMultiply, Iota(S64, grid, 0), Iota(S64, grid, 1));
    HloInstruction* twiddles = Phase(Binary(HloOpcode::kMultiply, product, Full(S64, grid, 2)), n, inverse ? 1 : -1);
    HloInstruction* twisted = Binary(HloOpcode::kMultiply, inner, BroadcastTrailing(twiddles, Dims(inner)));
    HloInstruction* outer = Complex1D(SwapLastTwo(twisted), inverse, n2);  // [..., k1, k2]
    std::vector<int64_t> flat = rows;
    flat.push_back(n);
    return Reshape(SwapLastTwo(outer), flat);  // k = k1 + n1 * k2
  }

  // Bluestein's form: with j k = (j^2 + k^2 - (k - j)^2) / 2 and c[j] = exp(-+i pi j^2 / n),
  // X[k] = c[k] * sum over j of (x[j] c[j]) conj(c[k - j]): a circular convolution of
  // power-of-two length m >= 2n - 1, computed as IFFT(FFT(a) * FFT(b)).
  HloInstruction* Bluestein(HloInstruction* x, bool inverse, int64_t n) {
    const int sign = inverse ? 1 : -1;
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    std::vector<int64_t> dims = Dims(x);
    const std::vector<int64_t> rows(dims.begin(), dims.end() - 1);
    // c[j] for j < n, with j^2 reduced mod 2n (exact in s64) before it becomes an angle.
    auto chirp = [&](HloInstruction* j, int chirp_sign) {
      const std::vector<int64_t> shape = Dims(j);
      HloInstruction* square = Binary(HloOpcode::kMultiply, j, j);
      return Phase(Binary(HloOpcode::kRemainder, square, Full(S64, shape, 2 * n)), n, chirp_sign);
    };
    HloInstruction* c = chirp(Iota(S64, {n}, 0), sign);
    HloInstruction* a = Binary(HloOpcode::kMultiply, x, BroadcastTrailing(c, dims));
    std::vector<int64_t> padding = rows;
    padding.push_back(m - n);
    a = ConcatenateLast(a, Full(C128, padding, 0));
    // b[t] = conj(c[t]) for t < n, conj(c[m - t]) for t > m - n, else 0.
    HloInstruction* t = Iota(S64, {m}, 0);
    HloInstruction* low = Add(HloOpcode::kCompare, PRED, {m}, {t, Full(S64, {m}, n)}, Direction("LT"));
    HloInstruction* high = Add(HloOpcode::kCompare, PRED, {m}, {t, Full(S64, {m}, m - n)}, Direction("GT"));
    HloInstruction* mirrored = Binary(HloOpcode::kSubtract, Full(S64, {m}, m), t);
    HloInstruction* index = Add(HloOpcode::kSelect, S64, {m}, {low, t, mirrored});
    HloInstruction* used = Add(HloOpcode::kOr, PRED, {m}, {low, high});
    HloInstruction* b = Add(HloOpcode::kSelect, C128, {m}, {used, chirp(index, -sign), Full(C128, {m}, 0)});
    HloInstruction* spectrum_b = Complex1D(b, false, m);
    HloInstruction* spectrum_a = Complex1D(a, false, m);
    HloInstruction* product =
        Binary(HloOpcode::kMultiply, spectrum_a, BroadcastTrailing(spectrum_b, Dims(spectrum_a)));
    HloInstruction* convolution = SliceLast(Complex1D(product, true, m), 0, n);
    HloInstruction* result = Binary(HloOpcode::kMultiply, convolution, BroadcastTrailing(c, Dims(convolution)));
    if (inverse) result = Binary(HloOpcode::kMultiply, result, Full(C128, Dims(result), 1.0 / static_cast<double>(n)));
    return result;
  }

  // A transform along dimension `axis` (a leading one moved last and back).
  HloInstruction* AlongAxis(HloInstruction* x, int64_t axis, FftType type, int64_t n) {
    const int64_t rank = x->shape().rank();
    if (axis == rank - 1) return Transform(x, type, n);
    if (n == 1) return x;  // a complex transform of one point (scaled by 1/1 when inverse)
    std::vector<int64_t> to_last, back(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) to_last.push_back(d);
    }
    to_last.push_back(axis);
    for (int64_t d = 0; d < rank; ++d) back[to_last[d]] = d;
    return Transpose(Transform(Transpose(x, to_last), type, n), back);
  }

 private:
  static HloInstructionProto Direction(const char* direction) {
    HloInstructionProto attrs;
    attrs.set_comparison_direction(direction);
    return attrs;
  }

  HloComputation* c_;
};

// The fft's shapes are those fft_type and fft_length imply (else it is left for the kernel
// emitter to refuse with its message), with something to transform.
bool IsWellFormed(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  const Shape& out = hlo.shape();
  if (!in.IsArray() || !out.IsArray()) return false;
  const int64_t rank = in.rank();
  const int64_t fft_rank = hlo.attrs().fft_length_size();
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank || out.rank() != rank) return false;
  const bool complex_in = in.element_type() == C64 || in.element_type() == C128;
  const bool complex_out = out.element_type() == C64 || out.element_type() == C128;
  const bool real_in = in.element_type() == F32 || in.element_type() == F64;
  const bool real_out = out.element_type() == F32 || out.element_type() == F64;
  const FftType type = hlo.attrs().fft_type();
  const bool types_ok = type == FFT || type == IFFT ? complex_in && complex_out
                        : type == RFFT              ? real_in && complex_out
                        : type == IRFFT             ? complex_in && real_out
                                                    : false;
  if (!types_ok) return false;
  std::vector<int64_t> full(in.dimensions().begin(), in.dimensions().end());
  for (int64_t i = 0; i < fft_rank; ++i) {
    if (hlo.attrs().fft_length(i) < 1) return false;
    full[rank - fft_rank + i] = hlo.attrs().fft_length(i);
  }
  std::vector<int64_t> half = full;
  half[rank - 1] = full[rank - 1] / 2 + 1;
  const std::vector<int64_t>& want_in = type == IRFFT ? half : full;
  const std::vector<int64_t>& want_out = type == RFFT ? half : full;
  return in.dimensions() == absl::MakeConstSpan(want_in) && out.dimensions() == absl::MakeConstSpan(want_out) &&
         ShapeUtil::ElementsIn(in) > 0 && ShapeUtil::ElementsIn(out) > 0;
}

bool NeedsExpansion(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kFft && IsWellFormed(hlo) &&
         (hlo.attrs().fft_length_size() > 1 || !IsOneKernel(hlo.attrs().fft_length(0)));
}

absl::Status Expand(HloComputation* computation, HloInstruction* hlo) {
  FftChain chain(computation);
  const FftType type = hlo->attrs().fft_type();
  const int64_t rank = hlo->shape().rank();
  const int64_t fft_rank = hlo->attrs().fft_length_size();
  const int64_t first = rank - fft_rank;
  auto length = [&](int64_t axis) { return hlo->attrs().fft_length(axis - first); };
  HloInstruction* x = hlo->mutable_operand(0);
  x = chain.Convert(x, primitive_util::IsComplexType(x->shape().element_type()) ? C128 : F64);
  if (!ShapeUtil::Equal(x->shape(), cpu::WithDefaultLayout(x->shape()))) {
    x = chain.Unary(HloOpcode::kCopy, x, x->shape().element_type());
  }
  // The interpreter's order, first to last transformed axis, but for RFFT, whose last axis
  // (the real one) must come first.
  if (type == RFFT) x = chain.Transform(x, RFFT, length(rank - 1));
  const FftType leading = type == IFFT || type == IRFFT ? IFFT : FFT;
  for (int64_t axis = first; axis < rank - 1; ++axis) x = chain.AlongAxis(x, axis, leading, length(axis));
  if (type != RFFT) x = chain.Transform(x, type, length(rank - 1));
  const Shape& want = hlo->shape();
  if (x->shape().element_type() != want.element_type()) {
    x = cpu::AddWithShape(computation, HloOpcode::kConvert, want, {x});
  } else if (!ShapeUtil::Equal(x->shape(), want)) {
    x = cpu::AddWithShape(computation, HloOpcode::kCopy, want, {x});
  }
  return computation->ReplaceInstruction(hlo, x);
}

}  // namespace

absl::StatusOr<bool> ExpandFftsForGpu(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (!NeedsExpansion(*hlo)) continue;
      RETURN_IF_ERROR(Expand(computation, hlo));
      changed = true;
    }
  }
  return changed;
}

}  // namespace gpu
}  // namespace xla
