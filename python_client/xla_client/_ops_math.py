"""Ops XLA's client library composes from HLO (no opcode of their own): Lgamma, Digamma,
ErfInv, NextAfter, CrossReplicaSum. Exported through `ops`."""
# pylint: disable=invalid-name

import math

from . import _types
from . import ops
from ._shape import Shape
from ._types import PrimitiveType

# Lanczos approximation (g = 7, 9 terms): the standard double-precision coefficients.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _float_operand(x, name):
  """(x, shape) for a floating-point array operand; (None, None) after an error."""
  if not x.valid():
    return None, None
  s = x.builder().get_shape(x)
  if s is not None and (not s.is_array() or s.element_type() not in (
      PrimitiveType.F16, PrimitiveType.BF16, PrimitiveType.F32, PrimitiveType.F64)):
    x.builder()._report("%s needs an f16/bf16/f32/f64 operand, got %s" % (name, s))
    return None, None
  return x, s


def _upcast(x, s):
  """f16/bf16 computed in f32, as XLA does."""
  if s.element_type() in (PrimitiveType.F16, PrimitiveType.BF16):
    return ops.ConvertElementType(x, PrimitiveType.F32)
  return x


def _c(x, value):
  return ops.ConstantLike(x, value)


def _lanczos_terms(z):
  """(a, a') of the Lanczos series at z = x - 1: a = c0 + sum c_i / (z + i)."""
  a = _c(z, _LANCZOS[0])
  da = _c(z, 0.0)
  for i, coef in enumerate(_LANCZOS[1:], start=1):
    denom = ops.Add(z, _c(z, float(i)))
    a = ops.Add(a, ops.Div(_c(z, coef), denom))
    da = ops.Sub(da, ops.Div(_c(z, coef), ops.Mul(denom, denom)))
  return a, da


def Lgamma(x):
  """log|Gamma(x)| (Lanczos; reflection below 1/2; +inf at non-positive integers)."""
  x0, s = _float_operand(x, "Lgamma")
  if x0 is None:
    return ops.XlaOp(x.builder(), -1)
  x = _upcast(x0, s)
  reflect = ops.Lt(x, _c(x, 0.5))
  y = ops.Select(reflect, ops.Sub(_c(x, 1.0), x), x)  # y >= 1/2
  z = ops.Sub(y, _c(x, 1.0))
  a, _ = _lanczos_terms(z)
  t = ops.Add(z, _c(x, _LANCZOS_G + 0.5))
  lg = ops.Add(ops.Sub(ops.Mul(ops.Add(z, _c(x, 0.5)), ops.Log(t)), t),
               ops.Add(ops.Log(a), _c(x, 0.5 * math.log(2 * math.pi))))
  # lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x)
  sin_pi = ops.Abs(ops.Sin(ops.Mul(_c(x, math.pi), _frac_shift(x))))
  reflected = ops.Sub(ops.Sub(_c(x, math.log(math.pi)), ops.Log(sin_pi)), lg)
  out = ops.Select(reflect, reflected, lg)
  out = ops.Select(ops.IsFinite(x), out, ops.Abs(x))  # +inf at +-inf, nan stays nan
  return ops.ConvertElementType(out, s.element_type()) if out.valid() else out


def _frac_shift(x):
  """x - round(x): same |sin(pi x)| with an argument in [-1/2, 1/2] (exact zeros at integers)."""
  return ops.Sub(x, ops.RoundNearestEven(x))


def Digamma(x):
  """d/dx log Gamma(x) (Lanczos; reflection below 1/2; nan at non-positive integers)."""
  x0, s = _float_operand(x, "Digamma")
  if x0 is None:
    return ops.XlaOp(x.builder(), -1)
  x = _upcast(x0, s)
  reflect = ops.Lt(x, _c(x, 0.5))
  y = ops.Select(reflect, ops.Sub(_c(x, 1.0), x), x)
  z = ops.Sub(y, _c(x, 1.0))
  a, da = _lanczos_terms(z)
  t = ops.Add(z, _c(x, _LANCZOS_G + 0.5))
  dg = ops.Add(ops.Sub(ops.Log(t), ops.Div(_c(x, _LANCZOS_G), t)), ops.Div(da, a))
  # digamma(x) = digamma(1 - x) - pi / tan(pi x)
  shifted = _frac_shift(x)
  reflected = ops.Sub(dg, ops.Div(_c(x, math.pi), ops.Tan(ops.Mul(_c(x, math.pi), shifted))))
  out = ops.Select(reflect, reflected, dg)
  is_pole = ops.And(ops.Le(x, _c(x, 0.0)), ops.Eq(shifted, _c(x, 0.0)))
  out = ops.Select(is_pole, _c(x, float("nan")), out)
  return ops.ConvertElementType(out, s.element_type()) if out.valid() else out


# Giles, "Approximating the erfinv function" (2010), single-precision polynomials.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                   0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def ErfInv(x):
  """Inverse of erf on (-1, 1); +-inf at +-1, nan outside (f64 refined by Newton steps)."""
  x0, s = _float_operand(x, "ErfInv")
  if x0 is None:
    return ops.XlaOp(x.builder(), -1)
  x = _upcast(x0, s)
  w = ops.Neg(ops.Log(ops.Mul(ops.Sub(_c(x, 1.0), x), ops.Add(_c(x, 1.0), x))))

  def horner(coefs, v):
    p = _c(x, coefs[0])
    for coef in coefs[1:]:
      p = ops.Add(_c(x, coef), ops.Mul(p, v))
    return p

  central = horner(_ERFINV_CENTRAL, ops.Sub(w, _c(x, 2.5)))
  tail = horner(_ERFINV_TAIL, ops.Sub(ops.Sqrt(w), _c(x, 3.0)))
  p = ops.Select(ops.Lt(w, _c(x, 5.0)), central, tail)
  out = ops.Mul(p, x)
  if s.element_type() == PrimitiveType.F64:
    # f32 accuracy to double's: Newton steps on erf (within erf's conditioning near +-1).
    for _ in range(3):
      slope = ops.Mul(_c(x, 2.0 / math.sqrt(math.pi)), ops.Exp(ops.Neg(ops.Mul(out, out))))
      out = ops.Sub(out, ops.Div(ops.Sub(ops.Erf(out), x), slope))
  at_one = ops.Eq(ops.Abs(x), _c(x, 1.0))
  out = ops.Select(at_one, ops.Mul(x, _c(x, float("inf"))), out)
  return ops.ConvertElementType(out, s.element_type()) if out.valid() else out


_UINT_OF = {PrimitiveType.F16: PrimitiveType.U16, PrimitiveType.BF16: PrimitiveType.U16,
            PrimitiveType.F32: PrimitiveType.U32, PrimitiveType.F64: PrimitiveType.U64}


def NextAfter(from_, to):
  """The next representable value after from_ in the direction of to (C's nextafter)."""
  b = from_.builder()
  s = b.get_shape(from_) if from_.valid() else None
  if s is None or s.element_type() not in _UINT_OF:
    return b._report("NextAfter needs floating-point operands, got %s" % s)
  ut = _UINT_OF[s.element_type()]
  bits = _types.bit_width(s.element_type())
  fb = ops.BitcastConvertType(from_, ut)
  tb = ops.BitcastConvertType(to, ut)
  sign_mask = ops.ScalarConstant(b, 1 << (bits - 1), ut)
  abs_mask = ops.ScalarConstant(b, (1 << (bits - 1)) - 1, ut)
  one = ops.ScalarConstant(b, 1, ut)
  f_abs, t_abs = ops.And(fb, abs_mask), ops.And(tb, abs_mask)
  signs_differ = ops.Ne(ops.And(fb, sign_mask), ops.And(tb, sign_mask))
  shrink = ops.Or(signs_differ, ops.Gt(f_abs, t_abs))
  stepped = ops.Select(shrink, ops.Sub(fb, one), ops.Add(fb, one))
  # From zero: the smallest subnormal with to's sign.
  from_zero = ops.Or(ops.And(tb, sign_mask), one)
  result = ops.Select(ops.Eq(f_abs, ops.ScalarConstant(b, 0, ut)), from_zero, stepped)
  out = ops.BitcastConvertType(result, s.element_type())
  out = ops.Select(ops.Eq(from_, to), to, out)
  either_nan = ops.Or(ops.Ne(from_, from_), ops.Ne(to, to))
  return ops.Select(either_nan, ops.Add(from_, to), out)


def CrossReplicaSum(operand, replica_groups=None):
  """AllReduce with addition (XLA's CrossReplicaSum)."""
  b = operand.builder()
  s = b.get_shape(operand) if operand.valid() else None
  if s is None or not s.is_array():
    return b._report("CrossReplicaSum needs an array operand, got %s" % s)
  sub = ops.XlaBuilder("add_" + _types.lowercase_name(s.element_type()))
  scalar = Shape.scalar_shape(s.element_type())
  ops.Add(ops.Parameter(sub, 0, scalar), ops.Parameter(sub, 1, scalar))
  return ops.AllReduce(operand, sub.build(), replica_groups or ())


__all__ = ["Lgamma", "Digamma", "ErfInv", "NextAfter", "CrossReplicaSum"]
