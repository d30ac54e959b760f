// Scalar routines that generated code calls per element where inline IR would not match the
// interpreter to the bit: complex math (computed with std::complex, as the interpreter's
// elementwise ops are, so the library's special cases and rounding are the same). Formulas
// beyond std::complex: backends/complex_math.h.
#include <cmath>
#include <complex>

#include "backends/complex_math.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/hlo_opcode.h"

namespace {

template <typename T>
std::complex<T> ComplexOp(int32_t opcode, std::complex<T> x, std::complex<T> y) {
  using C = std::complex<T>;
  using xla::HloOpcode;
  switch (static_cast<HloOpcode>(opcode)) {
    case HloOpcode::kMultiply: return x * y;
    case HloOpcode::kDivide: return x / y;
    case HloOpcode::kPower: return xla::complex_math::Pow(x, y);
    case HloOpcode::kAtan2: return xla::complex_math::Atan2(x, y);
    case HloOpcode::kExponential: return std::exp(x);
    case HloOpcode::kExponentialMinusOne: return xla::complex_math::Expm1(x);
    case HloOpcode::kLog: return std::log(x);
    case HloOpcode::kLogPlusOne: return xla::complex_math::Log1p(x);
    case HloOpcode::kSqrt: return std::sqrt(x);
    case HloOpcode::kRsqrt: return C(1) / std::sqrt(x);
    case HloOpcode::kLogistic: return C(1) / (C(1) + std::exp(-x));
    case HloOpcode::kSine: return std::sin(x);
    case HloOpcode::kCosine: return std::cos(x);
    case HloOpcode::kTan: return std::tan(x);
    case HloOpcode::kTanh: return std::tanh(x);
    case HloOpcode::kSinh: return std::sinh(x);
    case HloOpcode::kCosh: return std::cosh(x);
    case HloOpcode::kAsin: return std::asin(x);
    case HloOpcode::kAcos: return std::acos(x);
    case HloOpcode::kAsinh: return std::asinh(x);
    case HloOpcode::kAcosh: return std::acosh(x);
    case HloOpcode::kAtanh: return std::atanh(x);
    case HloOpcode::kSign: {
      const T magnitude = std::abs(x);
      return magnitude == 0 ? C(0) : x / magnitude;
    }
    case HloOpcode::kAbs: return C(std::abs(x), 0);
    default:
      // Codegen only calls with the opcodes above (IsComplexRuntimeOpcode).
      return C(std::nan(""), std::nan(""));
  }
}

}  // namespace

extern "C" void __xla_cpu_complex_c64(int32_t opcode, float ar, float ai, float br, float bi, float* out) {
  const std::complex<float> r = ComplexOp<float>(opcode, {ar, ai}, {br, bi});
  out[0] = r.real();
  out[1] = r.imag();
}

extern "C" void __xla_cpu_complex_c128(int32_t opcode, double ar, double ai, double br, double bi, double* out) {
  const std::complex<double> r = ComplexOp<double>(opcode, {ar, ai}, {br, bi});
  out[0] = r.real();
  out[1] = r.imag();
}

namespace xla {
namespace cpu {

bool IsComplexRuntimeOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kMultiply: case HloOpcode::kDivide: case HloOpcode::kPower: case HloOpcode::kAtan2:
    case HloOpcode::kExponential: case HloOpcode::kExponentialMinusOne: case HloOpcode::kLog:
    case HloOpcode::kLogPlusOne: case HloOpcode::kSqrt: case HloOpcode::kRsqrt: case HloOpcode::kLogistic:
    case HloOpcode::kSine: case HloOpcode::kCosine: case HloOpcode::kTan: case HloOpcode::kTanh:
    case HloOpcode::kSinh: case HloOpcode::kCosh: case HloOpcode::kAsin: case HloOpcode::kAcos:
    case HloOpcode::kAsinh: case HloOpcode::kAcosh: case HloOpcode::kAtanh: case HloOpcode::kSign:
    case HloOpcode::kAbs:
      return true;
    default:
      return false;
  }
}

}  // namespace cpu
}  // namespace xla
