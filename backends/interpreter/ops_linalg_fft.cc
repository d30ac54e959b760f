// fft: FFT, IFFT, RFFT and IRFFT over the last fft_length.size() dimensions. Computed in
// complex<double> (mixed-radix, or Bluestein's for a length with a large prime factor; the
// last axis of RFFT and IRFFT, of even length, through a complex transform of half the
// points: backends/fft_core.h, shared with the cpu runtime) and rounded once. RFFT transforms
// the last axis first (reals to half spectra), then the other axes of the half spectrum. IFFT and IRFFT scale by
// 1/N per transformed axis. IRFFT rebuilds the full spectrum of the last axis by Hermitian
// symmetry (X[N-k] = conj(X[k])) and keeps the real part, so the imaginary parts of the DC and
// Nyquist terms are ignored.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/fft_core.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

// Transforms every line of `data` (row-major, dims `dims`) along `axis` (fft_core.h).
void TransformAxis(std::vector<Complex>* data, const std::vector<int64_t>& dims, int64_t axis, int sign,
                   bool scale) {
  const fft::AxisLines lines(dims, static_cast<size_t>(axis));
  if (lines.count == 0 || data->empty()) return;
  const std::shared_ptr<const fft::FftPlan> plan = fft::SharedPlan(lines.n, sign);
  std::vector<Complex> line;
  fft::FftWork work;
  fft::TransformLines(lines, scale, data->data(), 0, lines.count, line,
                      [&](Complex* v, int64_t batch) { plan->Transform(v, work, batch); });
}

absl::StatusOr<Literal> Fft(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 1));
  const Literal& operand = *operands[0];
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = instruction.shape();
  if (!out_shape.IsArray()) return absl::InvalidArgumentError("fft result must be an array");
  const auto& lengths = instruction.attrs().fft_length();
  const int64_t fft_rank = lengths.size();
  const int64_t rank = in_shape.rank();
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("fft_length must have 1 to 3 entries, at most the operand rank ", rank));
  }
  if (out_shape.rank() != rank) return absl::InvalidArgumentError("fft result rank differs from the operand's");
  const FftType type = instruction.attrs().fft_type();
  const bool complex_in = primitive_util::IsComplexType(in_shape.element_type());
  const bool complex_out = primitive_util::IsComplexType(out_shape.element_type());
  const bool real_in = in_shape.element_type() == F32 || in_shape.element_type() == F64;
  const bool real_out = out_shape.element_type() == F32 || out_shape.element_type() == F64;
  const bool types_ok = (type == FFT || type == IFFT)   ? complex_in && complex_out
                        : type == RFFT                  ? real_in && complex_out
                        : type == IRFFT                 ? complex_in && real_out
                                                        : false;
  if (!types_ok) {
    return absl::InvalidArgumentError(absl::StrCat("fft type ", FftType_Name(type), " does not accept ",
                                                   in_shape.ToString(), " -> ", out_shape.ToString()));
  }
  // Full (time-domain) dims and spectrum dims of the transformed axes.
  std::vector<int64_t> full = in_shape.dimensions();
  for (int64_t i = 0; i < fft_rank; ++i) full[rank - fft_rank + i] = lengths[i];
  if (lengths[fft_rank - 1] < 0) return absl::InvalidArgumentError("negative fft_length");
  std::vector<int64_t> half = full;
  half[rank - 1] = full[rank - 1] / 2 + 1;
  const std::vector<int64_t>& expected_in = type == IRFFT ? half : full;
  const std::vector<int64_t>& expected_out = type == RFFT ? half : type == IRFFT ? full : full;
  if (in_shape.dimensions() != expected_in || out_shape.dimensions() != expected_out) {
    return absl::InvalidArgumentError(absl::StrCat("fft shapes ", in_shape.ToString(), " -> ", out_shape.ToString(),
                                                   " do not match fft_length and fft_type ", FftType_Name(type)));
  }
  std::vector<Complex> data;
  if (complex_in) {
    ReadValues(operand, &data);
  } else {
    std::vector<double> real;
    ReadValues(operand, &real);
    data.assign(real.begin(), real.end());
  }
  switch (type) {
    case FFT:
    case IFFT: {
      const int sign = type == FFT ? -1 : 1;
      for (int64_t a = rank - fft_rank; a < rank; ++a) TransformAxis(&data, full, a, sign, type == IFFT);
      return WriteValues(out_shape, data);
    }
    case RFFT: {  // the last axis first, reals to half spectra (fft_core.h RealFftPlan), then the others
      const int64_t n = full[rank - 1], h = half[rank - 1];
      const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(data.size()) / n;
      std::vector<Complex> out(ElementCount(half), Complex(0, 0));
      if (n > 0) {
        const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, -1);
        std::vector<Complex> line;
        fft::FftWork work;
        fft::RealRows(data.data(), n, out.data(), h, 0, rows, line,
                      [&](Complex* v) { plan->Forward(v, work, fft::RunPlan); });
      }
      for (int64_t a = rank - fft_rank; a < rank - 1; ++a) TransformAxis(&out, half, a, -1, false);
      return WriteValues(out_shape, out);
    }
    case IRFFT: {
      for (int64_t a = rank - fft_rank; a < rank - 1; ++a) TransformAxis(&data, half, a, 1, true);
      const int64_t n = full[rank - 1], h = half[rank - 1];
      const int64_t rows = static_cast<int64_t>(data.size()) / h;
      std::vector<double> out(ElementCount(full), 0.0);
      if (n > 0) {
        const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, 1);
        std::vector<Complex> line;
        fft::FftWork work;
        fft::RealRows(data.data(), h, out.data(), n, 0, rows, line,
                      [&](Complex* v) { plan->Inverse(v, work, fft::RunPlan); });
      }
      return WriteValues(out_shape, out);
    }
    default:
      return absl::InvalidArgumentError("unknown fft_type");
  }
}

}  // namespace

void RegisterFftHandlers(HandlerTable* table) { table->Register(HloOpcode::kFft, Fft); }

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
