"""Special functions XLA's client math library composes from HLO: Erfc, BesselI0e, BesselI1e,
Igamma, Igammac, IgammaGradA, RandomGammaGrad, Zeta and RegularizedIncompleteBeta. Exported
through `ops`.

Each is computed in f64 whatever the operand type (f16, bf16, f32 or f64) and converted back,
so f32 results are correctly rounded in practice. Series and continued fractions whose length
depends on the arguments run in While loops until every element has converged; the others
are unrolled. Methods: Numerical Recipes (Press et al.) section 6.2 (incomplete gamma) and
6.4 (incomplete beta, both with modified Lentz continued fractions); Abramowitz & Stegun
7.1.14 (erfc continued fraction), 9.6.10 and 9.7.1 (I0, I1 series and asymptotics); the
Euler-Maclaurin formula with Bernoulli numbers for the Hurwitz zeta function.
"""
# pylint: disable=invalid-name

import math

from . import ops
from ._ops_decomp import _loop
from ._ops_math import Digamma
from ._ops_math import Lgamma
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType
_F64 = _P.F64
_EPS = 2.0 ** -53
_TINY = 1e-300  # modified Lentz: stands in for a zero denominator


def _operands(name, *xs):
  """(builder, the operands as f64, their type, their dimensions) or (builder, None, ...)."""
  b = xs[0].builder()
  shapes = []
  for x in xs:
    if not x.valid():
      return b, None, None, None
    s = b.get_shape(x)
    if not s.is_array() or s.element_type() not in (_P.F16, _P.BF16, _P.F32, _P.F64):
      b._report("%s needs f16/bf16/f32/f64 operands, got %s" % (name, s))
      return b, None, None, None
    shapes.append(s)
  etype = shapes[0].element_type()
  dims = max((s.dimensions() for s in shapes), key=len)
  for s in shapes:
    if s.element_type() != etype:
      b._report("%s operands differ in type: %s" % (name, ", ".join(str(x) for x in shapes)))
      return b, None, None, None
    if s.rank() and s.dimensions() != dims:
      b._report("%s operands differ in shape: %s" % (name, ", ".join(str(x) for x in shapes)))
      return b, None, None, None
  wide = []
  for x, s in zip(xs, shapes):
    x = ops.ConvertElementType(x, _F64) if etype != _F64 else x
    if s.rank() == 0 and dims:
      x = ops.Broadcast(x, dims)
    wide.append(x)
  return b, wide, etype, list(dims)


def _c(b, value):
  return ops.ScalarConstant(b, value, _F64)


def _full(b, value, dims):
  return ops.Broadcast(_c(b, value), dims)


def _done(b, etype, out):
  return ops.ConvertElementType(out, etype) if etype != _F64 else out


def _all(b, pred, rank):
  if rank == 0:
    return pred
  sub = ops.XlaBuilder("and")
  scalar = Shape.scalar_shape(_P.PRED)
  ops.And(ops.Parameter(sub, 0, scalar), ops.Parameter(sub, 1, scalar))
  return ops.Reduce(b, [pred], [ops.ScalarConstant(b, True, _P.PRED)], sub.build(),
                    list(range(rank)))


def _iterate(b, name, rank, state, converged, step, max_iter):
  """Runs step(b, i, state) -> (state, converged) from i = 1 until every element converged.

  state: a list of f64 arrays; converged: pred array (elements that need no iterations).
  """

  def cond(values):
    sb = values[0].builder()
    more = ops.Lt(values[0], ops.ScalarConstant(sb, max_iter + 1, _P.S32))
    return ops.And(more, ops.Not(_all(sb, values[1], rank)))

  def body(values):
    sb = values[0].builder()
    i, done, rest = values[0], values[1], values[2:]
    new, now_done = step(sb, ops.ConvertElementType(i, _F64), rest)
    # Converged elements keep their values.
    new = [ops.Select(done, old, x) for old, x in zip(rest, new)]
    return [ops.Add(i, ops.ScalarConstant(sb, 1, _P.S32)), ops.Or(done, now_done)] + new

  out = _loop(b, name, [ops.ScalarConstant(b, 1, _P.S32), converged] + list(state), cond, body)
  return out[2:]


def _lentz_guard(b, x):
  return ops.Select(ops.Lt(ops.Abs(x), _c(b, _TINY)), _c(b, _TINY), x)


# --- erfc -----------------------------------------------------------------------------

def Erfc(x):
  """1 - erf(x), without the cancellation of 1 - Erf(x) for large x."""
  b, wide, etype, _ = _operands("Erfc", x)
  if wide is None:
    return ops.XlaOp(b, -1)
  x = wide[0]
  ax = ops.Abs(x)
  near = ops.Sub(_c(b, 1.0), ops.Erf(ax))  # erf(|x|) < 0.996: little cancellation
  # |x| >= 2: erfc z = exp(-z^2) / (sqrt(pi) (z + (1/2) / (z + 1 / (z + (3/2) / (z + ...)))))
  z = ops.Max(ax, _c(b, 2.0))
  fraction = z
  for k in range(60, 0, -1):
    fraction = ops.Add(z, ops.Div(_c(b, k / 2.0), fraction))
  far = ops.Div(ops.Exp(ops.Neg(ops.Mul(z, z))), ops.Mul(_c(b, math.sqrt(math.pi)), fraction))
  r = ops.Select(ops.Lt(ax, _c(b, 2.0)), near, far)
  out = ops.Select(ops.Lt(x, _c(b, 0.0)), ops.Sub(_c(b, 2.0), r), r)
  out = ops.Select(ops.Ne(x, x), x, out)
  return _done(b, etype, out)


# --- Bessel I0e, I1e ------------------------------------------------------------------

def _bessel_ie(name, x, nu):
  b, wide, etype, dims = _operands(name, x)
  if wide is None:
    return ops.XlaOp(b, -1)
  x = wide[0]
  ax = ops.Abs(x)
  # |x| <= 30: I_nu(x) = sum_k (x/2)^(2k + nu) / (k! (k + nu)!), 64 terms.
  small = ops.Min(ax, _c(b, 30.0))
  quarter = ops.Mul(ops.Mul(small, small), _c(b, 0.25))
  term = ops.Mul(small, _c(b, 0.5)) if nu else _full(b, 1.0, dims)
  total = term
  for k in range(1, 64):
    term = ops.Mul(term, ops.Div(quarter, _c(b, float(k * (k + nu)))))
    total = ops.Add(total, term)
  series = ops.Mul(total, ops.Exp(ops.Neg(small)))
  # |x| > 30: e^-x I_nu(x) ~ sum_k c_k / x^k / sqrt(2 pi x), c_k = c_(k-1) ((2k-1)^2 - 4nu^2) / 8k.
  big = ops.Max(ax, _c(b, 30.0))
  coefficient = 1.0
  power = _full(b, 1.0, dims)
  total = power
  for k in range(1, 20):
    coefficient *= ((2 * k - 1) ** 2 - 4 * nu * nu) / (8.0 * k)
    power = ops.Div(power, big)
    total = ops.Add(total, ops.Mul(power, _c(b, coefficient)))
  asymptotic = ops.Mul(total, ops.Rsqrt(ops.Mul(big, _c(b, 2 * math.pi))))
  out = ops.Select(ops.Le(ax, _c(b, 30.0)), series, asymptotic)
  if nu:
    out = ops.Mul(out, ops.Sign(x))  # I1 is odd
  out = ops.Select(ops.Ne(x, x), x, out)
  return _done(b, etype, out)


def BesselI0e(x):
  """exp(-|x|) I0(x), I0 the modified Bessel function of the first kind of order 0."""
  return _bessel_ie("BesselI0e", x, 0)


def BesselI1e(x):
  """exp(-|x|) I1(x), I1 the modified Bessel function of the first kind of order 1."""
  return _bessel_ie("BesselI1e", x, 1)


# --- incomplete gamma -----------------------------------------------------------------

_P_MODE, _Q_MODE, _GRAD_A_MODE, _SAMPLE_GRAD_MODE = range(4)


def _igamma(name, a, x, mode):
  """The regularized incomplete gamma P(a, x) and what derives from it, by mode: P, Q = 1 - P,
  dP/da, or -(dP/da) / (dP/dx) (the derivative of a Gamma(a) sample x with respect to a).

  Series for x < a + 1, continued fraction otherwise; both carry their derivative with
  respect to a along (forward mode) when a derivative is wanted.
  """
  b, wide, etype, dims = _operands(name, a, x)
  if wide is None:
    return ops.XlaOp(b, -1)
  a, x = wide
  rank = len(dims)
  grad = mode in (_GRAD_A_MODE, _SAMPLE_GRAD_MODE)
  invalid = ops.Or(ops.Or(ops.Le(a, _c(b, 0.0)), ops.Lt(x, _c(b, 0.0))),
                   ops.Or(ops.Ne(a, a), ops.Ne(x, x)))
  trivial = ops.Or(invalid, ops.Or(ops.Eq(x, _c(b, 0.0)), ops.Eq(x, _c(b, float("inf")))))
  use_series = ops.Lt(x, ops.Add(a, _c(b, 1.0)))
  # Benign stand-ins where an element is not computed, so no inf / nan enters the loops.
  one, zero = _full(b, 1.0, dims), _full(b, 0.0, dims)
  a_ = ops.Select(trivial, one, a)
  x_ = ops.Select(trivial, one, x)
  log_prefix = ops.Sub(ops.Sub(ops.Mul(a_, ops.Log(x_)), x_), Lgamma(a_))  # x^a e^-x / G(a)
  prefix = ops.Exp(log_prefix)
  d_log_prefix = ops.Sub(ops.Log(x_), Digamma(a_)) if grad else None

  # P = x^a e^-x / G(a + 1) * sum_n t_n, t_0 = 1, t_n = t_(n-1) x / (a + n); with the
  # derivative, t_n / a and its derivative dt_n (t_n / a = t_(n-1) / a * x / (a + n)).
  def series_step(sb, _, state):
    ap, term, total, dterm, dtotal, xv = state
    f = lambda v: ops.ScalarConstant(sb, v, _F64)
    ap = ops.Add(ap, f(1.0))
    ratio = ops.Div(xv, ap)
    if grad:  # d/da (t r) = r (dt - t / (a + n)), r = x / (a + n)
      dterm = ops.Mul(ratio, ops.Sub(dterm, ops.Div(term, ap)))
      dtotal = ops.Add(dtotal, dterm)
    term = ops.Mul(term, ratio)
    total = ops.Add(total, term)
    converged = ops.Le(ops.Abs(term), ops.Mul(ops.Abs(total), f(_EPS)))
    if grad:
      converged = ops.And(converged, ops.Le(ops.Abs(dterm), ops.Mul(ops.Abs(dtotal), f(_EPS))))
    return [ap, term, total, dterm, dtotal, xv], converged

  first = ops.Div(one, a_)
  dfirst = ops.Neg(ops.Mul(first, first))
  _, _, total, _, dtotal, _ = _iterate(b, "igamma_series", rank,
                                       [a_, first, first, dfirst, dfirst, x_],
                                       ops.Or(trivial, ops.Not(use_series)), series_step, 2000)
  p_series = ops.Mul(total, prefix)

  # Q = x^a e^-x / G(a) * h, h = 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
  # by the modified Lentz method; with the derivatives of b, c, d and h with respect to a.
  def fraction_step(sb, i, state):
    bb, c, d, h, dc, dd, dh, av = state
    f = lambda v: ops.ScalarConstant(sb, v, _F64)
    an = ops.Mul(ops.Neg(i), ops.Sub(i, av))  # d(an)/da = i, d(bb)/da = -1
    bb = ops.Add(bb, f(2.0))
    denominator = ops.Add(ops.Mul(an, d), bb)
    guarded_d = ops.Lt(ops.Abs(denominator), f(_TINY))
    numerator_c = ops.Add(bb, ops.Div(an, c))
    guarded_c = ops.Lt(ops.Abs(numerator_c), f(_TINY))
    if grad:
      d_denominator = ops.Sub(ops.Add(ops.Mul(i, d), ops.Mul(an, dd)), f(1.0))
      new_dc = ops.Sub(ops.Sub(ops.Div(i, c), f(1.0)),
                       ops.Div(ops.Mul(an, dc), ops.Mul(c, c)))
    denominator = _lentz_guard(sb, denominator)
    c = _lentz_guard(sb, numerator_c)
    d = ops.Div(f(1.0), denominator)
    delta = ops.Mul(d, c)
    converged = ops.Lt(ops.Abs(ops.Sub(delta, f(1.0))), f(_EPS))
    if grad:
      dd = ops.Select(guarded_d, ops.Mul(d, f(0.0)),
                      ops.Neg(ops.Mul(d_denominator, ops.Mul(d, d))))
      dc = ops.Select(guarded_c, ops.Mul(c, f(0.0)), new_dc)
      d_delta = ops.Add(ops.Mul(dd, c), ops.Mul(d, dc))
      dh = ops.Add(ops.Mul(dh, delta), ops.Mul(h, d_delta))
      converged = ops.And(converged, ops.Le(ops.Abs(ops.Mul(h, d_delta)),
                                            ops.Mul(ops.Abs(dh), f(_EPS))))
    h = ops.Mul(h, delta)
    return [bb, c, d, h, dc, dd, dh, av], converged

  b0 = ops.Sub(ops.Add(x_, _c(b, 1.0)), a_)
  d0 = ops.Div(one, _lentz_guard(b, b0))
  dd0 = ops.Mul(d0, d0)  # d(1 / b0)/da with d(b0)/da = -1
  fraction = _iterate(b, "igamma_fraction", rank,
                      [b0, _full(b, 1.0 / _TINY, dims), d0, d0, zero, dd0, dd0, a_],
                      ops.Or(trivial, use_series), fraction_step, 2000)
  h, dh = fraction[3], fraction[6]
  q_fraction = ops.Mul(h, prefix)
  if mode == _Q_MODE:
    out = ops.Select(use_series, ops.Sub(_c(b, 1.0), p_series), q_fraction)
    at_zero, at_inf = 1.0, 0.0
  elif mode == _P_MODE:
    out = ops.Select(use_series, p_series, ops.Sub(_c(b, 1.0), q_fraction))
    at_zero, at_inf = 0.0, 1.0
  else:
    # dP/da = prefix (dS + S dlog_prefix); dQ/da = prefix (dh + h dlog_prefix) = -dP/da.
    dp_series = ops.Mul(prefix, ops.Add(dtotal, ops.Mul(total, d_log_prefix)))
    dq_fraction = ops.Mul(prefix, ops.Add(dh, ops.Mul(h, d_log_prefix)))
    out = ops.Select(use_series, dp_series, ops.Neg(dq_fraction))
    at_zero, at_inf = 0.0, 0.0
    if mode == _SAMPLE_GRAD_MODE:
      # dP/dx = x^(a-1) e^-x / G(a) = prefix / x
      out = ops.Neg(ops.Div(ops.Mul(out, x_), prefix))
      at_inf = float("nan")
  out = ops.Select(ops.Eq(x, _c(b, 0.0)), _full(b, at_zero, dims),
                   ops.Select(trivial, _full(b, at_inf, dims), out))
  return _done(b, etype, ops.Select(invalid, _full(b, float("nan"), dims), out))


def Igamma(a, x):
  """The regularized lower incomplete gamma function P(a, x) (nan for a <= 0 or x < 0)."""
  return _igamma("Igamma", a, x, _P_MODE)


def Igammac(a, x):
  """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
  return _igamma("Igammac", a, x, _Q_MODE)


def IgammaGradA(a, x):
  """dP(a, x)/da, the derivative of Igamma with respect to a."""
  return _igamma("IgammaGradA", a, x, _GRAD_A_MODE)


def RandomGammaGrad(a, x):
  """d sample / d a for a sample x of Gamma(a, 1) (implicit reparameterization):
  -(dP/da) / (dP/dx) with P(a, x) = Igamma(a, x)."""
  return _igamma("RandomGammaGrad", a, x, _SAMPLE_GRAD_MODE)


# --- Hurwitz zeta ---------------------------------------------------------------------

# B_2, B_4, ..., B_24.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730)


def Zeta(x, q):
  """The Hurwitz zeta function sum_k (q + k)^-x for x > 1, q > 0 (inf at x = 1; nan for
  x < 1 and for q <= 0, where a pole (integer q) gives inf)."""
  b, wide, etype, dims = _operands("Zeta", x, q)
  if wide is None:
    return ops.XlaOp(b, -1)
  s, q = wide
  one = _full(b, 1.0, dims)
  valid = ops.And(ops.Gt(s, _c(b, 1.0)), ops.Gt(q, _c(b, 0.0)))
  s_ = ops.Select(valid, s, _full(b, 2.0, dims))
  q_ = ops.Select(valid, ops.Select(ops.Eq(q, _c(b, float("inf"))), one, q), one)
  n = 9
  total = _full(b, 0.0, dims)
  for k in range(n):
    total = ops.Add(total, ops.Pow(ops.Add(q_, _c(b, float(k))), ops.Neg(s_)))
  w = ops.Add(q_, _c(b, float(n)))
  w_s = ops.Pow(w, ops.Neg(s_))
  # Euler-Maclaurin tail: w^(1-s) / (s-1) + w^-s / 2 + sum_j B_2j / (2j)! s..(s+2j-2) w^(-s-2j+1)
  total = ops.Add(total, ops.Div(ops.Mul(w_s, w), ops.Sub(s_, _c(b, 1.0))))
  total = ops.Add(total, ops.Mul(w_s, _c(b, 0.5)))
  rising = s_  # s (s + 1) ... (s + 2j - 2)
  power = ops.Div(w_s, w)  # w^(-s-2j+1)
  factorial = 1.0
  for j, bernoulli in enumerate(_BERNOULLI, start=1):
    factorial *= (2 * j - 1) * (2 * j)
    total = ops.Add(total, ops.Mul(ops.Mul(rising, power), _c(b, bernoulli / factorial)))
    rising = ops.Mul(rising, ops.Mul(ops.Add(s_, _c(b, 2.0 * j - 1)), ops.Add(s_, _c(b, 2.0 * j))))
    power = ops.Div(power, ops.Mul(w, w))
  nan, inf = _full(b, float("nan"), dims), _full(b, float("inf"), dims)
  pole = ops.Or(ops.Eq(s, _c(b, 1.0)),
                ops.And(ops.Le(q, _c(b, 0.0)), ops.Eq(q, ops.Floor(q))))
  total = ops.Select(ops.Eq(q, _c(b, float("inf"))), _full(b, 0.0, dims), total)
  out = ops.Select(valid, total, ops.Select(pole, inf, nan))
  out = ops.Select(ops.Or(ops.Ne(s, s), ops.Ne(q, q)), nan, out)
  return _done(b, etype, out)


# --- incomplete beta ------------------------------------------------------------------

def RegularizedIncompleteBeta(a, b, x):
  """I_x(a, b) = B(x; a, b) / B(a, b) for a, b > 0 and 0 <= x <= 1 (nan otherwise)."""
  builder, wide, etype, dims = _operands("RegularizedIncompleteBeta", a, b, x)
  if wide is None:
    return ops.XlaOp(builder, -1)
  bl = builder
  a, bb, x = wide
  rank = len(dims)
  one = _full(bl, 1.0, dims)
  invalid = ops.Or(ops.Or(ops.Le(a, _c(bl, 0.0)), ops.Le(bb, _c(bl, 0.0))),
                   ops.Or(ops.Lt(x, _c(bl, 0.0)), ops.Gt(x, _c(bl, 1.0))))
  invalid = ops.Or(invalid, ops.Or(ops.Ne(a, a), ops.Or(ops.Ne(bb, bb), ops.Ne(x, x))))
  edge = ops.Or(ops.Eq(x, _c(bl, 0.0)), ops.Eq(x, _c(bl, 1.0)))
  skip = ops.Or(invalid, edge)
  a = ops.Select(skip, one, a)
  bb = ops.Select(skip, one, bb)
  x_ = ops.Select(skip, _full(bl, 0.5, dims), x)
  # The fraction converges fast for x < (a + 1) / (a + b + 2); else I_x(a, b) = 1 - I_1-x(b, a).
  swap = ops.Gt(x_, ops.Div(ops.Add(a, _c(bl, 1.0)), ops.Add(ops.Add(a, bb), _c(bl, 2.0))))
  pa, pb = ops.Select(swap, bb, a), ops.Select(swap, a, bb)
  px = ops.Select(swap, ops.Sub(_c(bl, 1.0), x_), x_)
  log_front = ops.Add(ops.Sub(ops.Sub(Lgamma(ops.Add(pa, pb)), Lgamma(pa)), Lgamma(pb)),
                      ops.Add(ops.Mul(pa, ops.Log(px)), ops.Mul(pb, ops.Log1p(ops.Neg(px)))))

  def step(sb, m, state):
    c, d, h, aa_, bb_, xx = state
    f = lambda v: ops.ScalarConstant(sb, v, _F64)
    m2 = ops.Mul(m, f(2.0))
    # Even step: m (b - m) x / ((a + 2m - 1) (a + 2m))
    num = ops.Div(ops.Mul(ops.Mul(m, ops.Sub(bb_, m)), xx),
                  ops.Mul(ops.Add(ops.Sub(aa_, f(1.0)), m2), ops.Add(aa_, m2)))
    d = ops.Div(f(1.0), _lentz_guard(sb, ops.Add(f(1.0), ops.Mul(num, d))))
    c = _lentz_guard(sb, ops.Add(f(1.0), ops.Div(num, c)))
    h = ops.Mul(h, ops.Mul(d, c))
    # Odd step: -(a + m) (a + b + m) x / ((a + 2m) (a + 2m + 1))
    num = ops.Div(ops.Neg(ops.Mul(ops.Mul(ops.Add(aa_, m), ops.Add(ops.Add(aa_, bb_), m)), xx)),
                  ops.Mul(ops.Add(aa_, m2), ops.Add(ops.Add(aa_, m2), f(1.0))))
    d = ops.Div(f(1.0), _lentz_guard(sb, ops.Add(f(1.0), ops.Mul(num, d))))
    c = _lentz_guard(sb, ops.Add(f(1.0), ops.Div(num, c)))
    delta = ops.Mul(d, c)
    h = ops.Mul(h, delta)
    converged = ops.Lt(ops.Abs(ops.Sub(delta, f(1.0))), f(_EPS))
    return [c, d, h, aa_, bb_, xx], converged

  d0 = ops.Div(one, _lentz_guard(bl, ops.Sub(_c(bl, 1.0), ops.Div(
      ops.Mul(ops.Add(pa, pb), px), ops.Add(pa, _c(bl, 1.0))))))
  _, _, h, _, _, _ = _iterate(bl, "betainc_fraction", rank, [one, d0, d0, pa, pb, px], skip,
                              step, 2000)
  value = ops.Div(ops.Mul(ops.Exp(log_front), h), pa)
  value = ops.Select(swap, ops.Sub(_c(bl, 1.0), value), value)
  value = ops.Select(edge, x, value)
  return _done(bl, etype, ops.Select(invalid, _full(bl, float("nan"), dims), value))


__all__ = ["BesselI0e", "BesselI1e", "Erfc", "Igamma", "IgammaGradA", "Igammac",
           "RandomGammaGrad", "RegularizedIncompleteBeta", "Zeta"]
