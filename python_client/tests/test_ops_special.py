"""ops.Erfc, BesselI0e, BesselI1e, Igamma, Igammac, IgammaGradA, RandomGammaGrad, Zeta and
RegularizedIncompleteBeta against Python's math, high-precision decimal series, closed forms
and central differences (scipy is not available).
"""

import math
from decimal import Decimal
from decimal import localcontext

import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

RNG = np.random.RandomState(5)


def run(client, fn, *arrays):
  b = xc.XlaBuilder("special")
  params = [ops.Parameter(b, i, xc.Shape.array_shape(a.dtype, a.shape))
            for i, a in enumerate(arrays)]
  fn(*params)
  comp = b.build()
  results = [client.execute_and_transfer(client.compile(form), list(arrays))
             for form in (comp, comp.as_hlo_text())]
  for r in results:
    assert r.dtype == arrays[0].dtype and r.shape == np.broadcast(*arrays).shape
  np.testing.assert_array_equal(results[0], results[1])
  return results[0]


def check(got, want, dtype, rtol64=1e-13, atol=0.0):
  """f32 results must be the f64 value rounded (to a few ulps); f64 ones within rtol64."""
  want = np.asarray(want, np.float64)
  rtol = 4e-7 if dtype == np.float32 else rtol64
  np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol)


DTYPES = [np.float32, np.float64]


# --- Erfc -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_erfc(client, dtype):
  x = np.concatenate([np.linspace(-6, 6, 97), [0.0, -0.0, 1.999, 2.0, 2.001, 9.0, 12.0, 26.0,
                                               -30.0]]).astype(dtype)
  got = run(client, ops.Erfc, x)
  want = np.array([math.erfc(v) for v in x.astype(np.float64)])
  if dtype == np.float32:
    want = want.astype(np.float32)  # tiny values underflow in f32 too
  check(got, want, dtype, rtol64=2e-14, atol=1e-300)
  assert got[-1] == 2 and got[-2] > 0 and got[-2] < 1e-290 if dtype == np.float64 else True


def test_erfc_special_values(client):
  x = np.array([np.nan, np.inf, -np.inf, 1e300, -1e300], np.float64)
  got = run(client, ops.Erfc, x)
  assert np.isnan(got[0])
  np.testing.assert_array_equal(got[1:], [0.0, 2.0, 0.0, 2.0])


def test_erfc_half_precision(client):
  x = np.linspace(-3, 3, 25).astype(np.float16)
  got = run(client, ops.Erfc, x)
  want = np.array([math.erfc(v) for v in x.astype(np.float64)]).astype(np.float16)
  np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3)


# --- Bessel ---------------------------------------------------------------------------

def bessel_ie(x, nu):
  """exp(-|x|) I_nu(x) from the power series in 60-digit decimal arithmetic."""
  with localcontext() as ctx:
    ctx.prec = 60
    big = Decimal(abs(float(x)))
    term = (big / 2) ** nu / math.factorial(nu) if nu else Decimal(1)
    total = term
    for k in range(1, 2000):
      term *= (big * big / 4) / (k * (k + nu))
      total += term
      if term < total * Decimal(10) ** -50:
        break
    value = float(total * (-big).exp())
  return -value if nu and x < 0 else value


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nu", [0, 1])
def test_bessel_ie(client, dtype, nu):
  x = np.concatenate([np.linspace(-40, 40, 81), [0.0, 1e-3, 29.999, 30.0, 30.001, 100.0, 700.0,
                                                 -250.0]]).astype(dtype)
  fn = ops.BesselI0e if nu == 0 else ops.BesselI1e
  got = run(client, fn, x)
  check(got, [bessel_ie(v, nu) for v in x], dtype, rtol64=5e-15, atol=1e-300)


def test_bessel_special_values(client):
  x = np.array([np.nan, np.inf, -np.inf, 0.0], np.float64)
  i0, i1 = run(client, ops.BesselI0e, x), run(client, ops.BesselI1e, x)
  assert np.isnan(i0[0]) and np.isnan(i1[0])
  np.testing.assert_array_equal(i0[1:], [0.0, 0.0, 1.0])
  np.testing.assert_array_equal(i1[1:], [0.0, -0.0, 0.0])


# --- incomplete gamma -----------------------------------------------------------------

def upper_gamma_integer(n, x):
  """Q(n, x) = exp(-x) sum_{k < n} x^k / k! for integer n, in 60-digit decimals."""
  with localcontext() as ctx:
    ctx.prec = 60
    big = Decimal(float(x))
    term, total = Decimal(1), Decimal(1)
    for k in range(1, n):
      term *= big / k
      total += term
    return float(total * (-big).exp()), float(1 - total * (-big).exp())


def igamma_reference(a, x):
  """(P, Q) where a closed form exists: a = 1, a = 1/2, integer a."""
  if a == 1:
    return -math.expm1(-x), math.exp(-x)
  if a == 0.5:
    return math.erf(math.sqrt(x)), math.erfc(math.sqrt(x))
  q, p = upper_gamma_integer(int(a), x)
  return p, q


@pytest.mark.parametrize("dtype", DTYPES)
def test_igamma_closed_forms(client, dtype):
  pairs = [(a, x) for a in (1.0, 0.5) for x in (1e-3, 0.1, 0.5, 1.0, 2.5, 7.0, 30.0, 80.0)]
  pairs += [(2, 0.5), (3, 2.0), (5, 4.5), (5, 6.0), (10, 3.0), (10, 15.0), (40, 35.0),
            (100, 90.0), (100, 115.0)]
  a = np.array([c[0] for c in pairs], dtype)
  x = np.array([c[1] for c in pairs], dtype)
  want = [igamma_reference(float(u), float(v)) for u, v in zip(a, x)]  # of the rounded inputs
  p = run(client, ops.Igamma, a, x)
  q = run(client, ops.Igammac, a, x)
  # Each of P and Q is computed directly (not as 1 - the other): relative accuracy for both.
  check(p, [w[0] for w in want], dtype, rtol64=2e-13, atol=1e-300)
  check(q, [w[1] for w in want], dtype, rtol64=2e-13, atol=1e-300)


def test_igamma_complements_and_special_values(client):
  a = RNG.uniform(0.05, 50, 200)
  x = RNG.uniform(0, 80, 200)
  p = run(client, ops.Igamma, a, x)
  q = run(client, ops.Igammac, a, x)
  np.testing.assert_allclose(p + q, 1.0, rtol=0, atol=2e-15)
  assert np.all((p >= 0) & (p <= 1))
  a = np.array([1.0, 2.0, 0.0, -1.0, 1.0, np.nan, 3.0, 2.0])
  x = np.array([0.0, np.inf, 1.0, 1.0, -1.0, 1.0, np.nan, 1e300])
  p = run(client, ops.Igamma, a, x)
  q = run(client, ops.Igammac, a, x)
  np.testing.assert_array_equal(p[:2], [0.0, 1.0])
  np.testing.assert_array_equal(q[:2], [1.0, 0.0])
  assert np.all(np.isnan(p[2:7])) and np.all(np.isnan(q[2:7]))
  assert p[7] == 1.0 and q[7] == 0.0


def test_igamma_scalar_broadcast_and_f32(client):
  a = np.float32(3.0)
  x = np.array([[0.5, 1.0], [4.0, 9.0]], np.float32)
  got = run(client, ops.Igamma, a, x)
  want = [[upper_gamma_integer(3, v)[1] for v in row] for row in x.astype(np.float64)]
  check(got, want, np.float32)


def exponential_integral(x):
  """E1(x) = -gamma - ln x - sum_k (-x)^k / (k k!), in 80-digit decimals."""
  with localcontext() as ctx:
    ctx.prec = 80
    big = Decimal(float(x))
    term, total = Decimal(1), Decimal(0)
    for k in range(1, 400):
      term *= -big / k
      total += term / k
    euler = Decimal("0.57721566490153286060651209008240243104215933593992")
    return float(-euler - big.ln() - total)


def test_igamma_grad_a_closed_form_at_a_1(client):
  # Q(a, x) = G(a, x) / G(a): dQ/da at a = 1 is e^-x (ln x + gamma) + E1(x); dP/da = -dQ/da.
  x = np.array([0.01, 0.1, 0.5, 1.0, 1.9, 2.0, 5.0, 10.0, 20.0])
  got = run(client, ops.IgammaGradA, np.ones_like(x), x)
  want = [-(math.exp(-v) * (math.log(v) + 0.5772156649015329) + exponential_integral(v))
          for v in x]
  np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_igamma_grad_a_and_random_gamma_grad(client, dtype):
  a = np.concatenate([RNG.uniform(0.05, 3, 40), RNG.uniform(3, 150, 40)])
  x = a * RNG.uniform(0.2, 2.5, 80)  # around the mode, where samples fall
  h = 1e-5 * a
  upper = run(client, ops.Igamma, a + h, x)
  lower = run(client, ops.Igamma, a - h, x)
  numeric = (upper - lower) / (2 * h)  # central difference, error ~ h^2
  grad = run(client, ops.IgammaGradA, a.astype(dtype), x.astype(dtype))
  sample_grad = run(client, ops.RandomGammaGrad, a.astype(dtype), x.astype(dtype))
  density = np.exp((a - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in a]))  # dP/dx
  tol = 1e-6 if dtype == np.float64 else 2e-4  # f32: the inputs are rounded too
  floor = 1e-9 * np.max(np.abs(numeric))
  np.testing.assert_allclose(grad, numeric, rtol=tol, atol=floor)
  np.testing.assert_allclose(sample_grad, -numeric / density, rtol=tol,
                             atol=floor * np.max(1 / density))
  assert np.all(grad <= 0)  # P(a, x) decreases in a


def test_igamma_grad_special_values(client):
  a = np.array([2.0, 0.0, -1.0, 2.0, np.nan])
  x = np.array([0.0, 1.0, 1.0, -1.0, 1.0])
  grad = run(client, ops.IgammaGradA, a, x)
  sample_grad = run(client, ops.RandomGammaGrad, a, x)
  assert grad[0] == 0 and sample_grad[0] == 0
  assert np.all(np.isnan(grad[1:])) and np.all(np.isnan(sample_grad[1:]))


# --- Zeta -----------------------------------------------------------------------------

def zeta_reference(s, q, n=200000):
  k = np.arange(n, dtype=np.float64)
  w = q + n
  return np.sum((q + k) ** -s) + w ** (1 - s) / (s - 1) + 0.5 * w ** -s + s * w ** (-s - 1) / 12


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeta(client, dtype):
  s = np.array([2.0, 4.0, 3.0, 2.0, 6.0, 1.5, 10.0, 30.0, 2.0], dtype)
  q = np.array([1.0, 1.0, 1.0, 0.5, 2.0, 0.25, 0.1, 3.0, 1e6], dtype)
  want = [math.pi ** 2 / 6, math.pi ** 4 / 90, 1.2020569031595942, math.pi ** 2 / 2,
          math.pi ** 6 / 945 - 1]
  want += [zeta_reference(float(a), float(b)) for a, b in zip(s[5:], q[5:])]
  got = run(client, ops.Zeta, s, q)
  check(got, want, dtype, rtol64=1e-12)


def test_zeta_recurrence_and_domain(client):
  s = RNG.uniform(1.1, 12, 100)
  q = RNG.uniform(0.05, 20, 100)
  got = run(client, ops.Zeta, np.concatenate([s, s]), np.concatenate([q, q + 1]))
  np.testing.assert_allclose(got[:100] - got[100:], q ** -s, rtol=1e-12)
  s = np.array([1.0, 0.5, -2.0, 2.0, 2.0, 3.0, np.nan, 2.0])
  q = np.array([1.0, 1.0, 1.0, 0.0, -3.0, -1.5, 1.0, np.inf])
  got = run(client, ops.Zeta, s, q)
  assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2])
  assert got[3] == np.inf and got[4] == np.inf and np.isnan(got[5]) and np.isnan(got[6])
  assert got[7] == 0.0


# --- incomplete beta ------------------------------------------------------------------

def beta_integer(a, b, x):
  """I_x(a, b) for integer a, b: P(Binomial(a + b - 1, x) >= a), exactly in fractions."""
  from fractions import Fraction  # pylint: disable=g-import-not-at-top
  n = a + b - 1
  fx = Fraction(float(x))
  return float(sum(math.comb(n, j) * fx ** j * (1 - fx) ** (n - j) for j in range(a, n + 1)))


def beta_reference(a, b, x):
  if a == 0.5 and b == 0.5:
    return 2 / math.pi * math.asin(math.sqrt(x))
  if b == 1:
    return x ** a
  if a == 1:
    return -math.expm1(b * math.log1p(-x))
  return beta_integer(int(a), int(b), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_incomplete_beta(client, dtype):
  cases = [(a, b, x) for a, b in ((0.5, 0.5), (2.5, 1.0), (1.0, 3.5))
           for x in (0.001, 0.1, 0.3, 0.5, 0.77, 0.95, 0.999)]
  cases += [(a, b, x) for a, b in ((1, 1), (2, 3), (5, 5), (10, 2), (30, 40), (3, 60))
            for x in (0.05, 0.3, 0.5, 0.7, 0.95)]
  a, b, x = (np.array(c, dtype) for c in zip(*cases))
  want = [beta_reference(float(u), float(v), float(w)) for u, v, w in zip(a, b, x)]
  got = run(client, ops.RegularizedIncompleteBeta, a, b, x)
  check(got, want, dtype, rtol64=1e-12, atol=1e-300)


def test_incomplete_beta_symmetry_and_domain(client):
  a = RNG.uniform(0.1, 30, 150)
  b = RNG.uniform(0.1, 30, 150)
  x = RNG.uniform(0, 1, 150)
  got = run(client, ops.RegularizedIncompleteBeta, np.concatenate([a, b]), np.concatenate([b, a]),
            np.concatenate([x, 1 - x]))
  np.testing.assert_allclose(got[:150] + got[150:], 1.0, rtol=0, atol=5e-14)
  assert np.all((got >= 0) & (got <= 1))
  a = np.array([2.0, 2.0, 0.0, 2.0, 2.0, 2.0, np.nan])
  b = np.array([3.0, 3.0, 1.0, -1.0, 3.0, 3.0, 1.0])
  x = np.array([0.0, 1.0, 0.5, 0.5, -0.1, 1.1, 0.5])
  got = run(client, ops.RegularizedIncompleteBeta, a, b, x)
  np.testing.assert_array_equal(got[:2], [0.0, 1.0])
  assert np.all(np.isnan(got[2:]))


# --- builder errors -------------------------------------------------------------------

@pytest.mark.parametrize("fn,arity", [(ops.Erfc, 1), (ops.BesselI0e, 1), (ops.BesselI1e, 1),
                                      (ops.Igamma, 2), (ops.Igammac, 2), (ops.IgammaGradA, 2),
                                      (ops.RandomGammaGrad, 2), (ops.Zeta, 2),
                                      (ops.RegularizedIncompleteBeta, 3)])
def test_errors(fn, arity):
  b = xc.XlaBuilder("bad")
  args = [ops.Parameter(b, i, xc.Shape.array_shape(np.int32, (3,))) for i in range(arity)]
  fn(*args)
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert "needs f16/bf16/f32/f64 operands" in e.value.message, e.value.message
  if arity > 1:
    b = xc.XlaBuilder("bad")
    args = [ops.Parameter(b, i, xc.Shape.array_shape(np.float32, (3 + i,)))
            for i in range(arity)]
    fn(*args)
    with pytest.raises(xc.XlaRuntimeError) as e:
      b.build()
    assert "operands differ in shape" in e.value.message, e.value.message
