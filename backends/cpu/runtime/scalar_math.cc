// Scalar routines that generated code calls per element where inline IR would not match the
// interpreter to the bit: complex math (computed with std::complex, as the interpreter's
// elementwise ops are, so the library's special cases and rounding are the same) and the
// rounding of a value to an 8- or 4-bit float (hlo/float_types.h, the one definition the
// interpreter and literals use).
#include <cmath>
#include <complex>

#include "backends/cpu/runtime/runtime.h"
#include "hlo/float_types.h"
#include "hlo/hlo_opcode.h"

namespace {

template <typename T>
std::complex<T> ComplexOp(int32_t opcode, std::complex<T> x, std::complex<T> y) {
  using C = std::complex<T>;
  using xla::HloOpcode;
  switch (static_cast<HloOpcode>(opcode)) {
    case HloOpcode::kMultiply: return x * y;
    case HloOpcode::kDivide: return x / y;
    case HloOpcode::kPower: {
      // 1^y == 1 and x^0 == 1 for every operand, NaN included (Kahan).
      if (x == C(1) || y == C(0)) return C(1);
      // inf^(r + 0i) is inf for r > 0 and 0 for r < 0.
      const bool x_pos_inf = x.imag() == 0 && x.real() > 0 && std::isinf(x.real());
      if (x_pos_inf && y.imag() == 0 && y.real() > 0) return x;
      if (x_pos_inf && y.imag() == 0 && y.real() < 0) return C(0);
      return std::pow(x, y);
    }
    case HloOpcode::kAtan2: {
      // atan2(x, y) = -i * log((y + i*x) / sqrt(y^2 + x^2)), x the first operand.
      const C i(0, 1);
      return -i * std::log((y + i * x) / std::sqrt(y * y + x * x));
    }
    case HloOpcode::kExponential: return std::exp(x);
    case HloOpcode::kExponentialMinusOne: {
      // Accurate near zero: expm1(a) cos(b) - 2 sin^2(b/2) + i e^a sin(b).
      const T a = x.real(), b = x.imag();
      const T half_sin = std::sin(b / 2);
      return C(std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin, std::exp(a) * std::sin(b));
    }
    case HloOpcode::kLog: return std::log(x);
    case HloOpcode::kLogPlusOne: {
      const T a = x.real(), b = x.imag();
      return C(T(0.5) * std::log1p(a * (2 + a) + b * b), std::atan2(b, 1 + a));
    }
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

extern "C" uint8_t __xla_cpu_encode_narrow_float(int32_t kind, double value) {
  return static_cast<uint8_t>(xla::EncodeFloat(static_cast<xla::FloatFormatKind>(kind), value));
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
