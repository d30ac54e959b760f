"""Matrix decompositions XLA's client library composes from HLO (there is no opcode for them):
QR, QrDecomposition and ProductOfElementaryHouseholderReflectors (Householder reflections),
Eigh (Jacobi rotations), SVD (QR, then one-sided Jacobi) and LU (partial pivoting).
Exported through `ops` with xla_client's names and arguments.

Leading dimensions are batch dimensions. Each factorization is a While loop: over the
columns (QR, LU; the column index is shared by the batch, so columns and rows are read with
DynamicSlice) or over Jacobi sweeps, each sweep n - 1 rounds of disjoint index pairs whose
rotations form one orthogonal matrix (applied with dots). Whatever differs per batch element
(LU's pivot rows, the order of sorted values) is applied with masks and one-hot products.
f32, f64, c64 and c128 (Hermitian Jacobi rotations and complex reflectors as LAPACK's).
"""
# pylint: disable=invalid-name

import numpy as np

from . import _types
from ._builder import BuilderError
from ._decomp_base import _Ctx
from ._decomp_base import _P
from ._decomp_base import _all
from ._decomp_base import _diagonal
from ._decomp_base import _element
from ._decomp_base import _loop
from ._decomp_base import _matrix_operand
from ._decomp_base import _multi_op
from ._decomp_base import _power_of_two_scale
from ._decomp_base import _reducer
from ._decomp_base import _sign
from ._decomp_base import _sort_permutation
from ._decomp_base import _sweeps
from ._ops_base import _array_shape
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape_str
from ._ops_data import DynamicSlice
from ._ops_data import Pad
from ._ops_data import Reshape
from ._ops_data import Slice
from ._ops_elementwise import Abs
from ._ops_elementwise import Add
from ._ops_elementwise import And
from ._ops_elementwise import Div
from ._ops_elementwise import Eq
from ._ops_elementwise import Ge
from ._ops_elementwise import Gt
from ._ops_elementwise import Imag
from ._ops_elementwise import Le
from ._ops_elementwise import Lt
from ._ops_elementwise import Min
from ._ops_elementwise import Mul
from ._ops_elementwise import Ne
from ._ops_elementwise import Neg
from ._ops_elementwise import Or
from ._ops_elementwise import Real
from ._ops_elementwise import ScalarConstant
from ._ops_elementwise import Select
from ._ops_elementwise import Sqrt
from ._ops_elementwise import Sub
from ._ops_reduce import Reduce

__all__ = ["Eigh", "LU", "ProductOfElementaryHouseholderReflectors", "QR", "QrDecomposition",
           "SVD"]


# --- QR -------------------------------------------------------------------------------

def _reflector(ctx, b, x, k, m):
  """LAPACK's elementary reflector (xLARFG) for column x [..., m, 1] at row k (s32 scalar).

  Returns (v [..., m, 1], tau [...], beta [...] rt) with v[k] = 1, v[:k] = 0 and
  H^H x = beta e_k for H = I - tau v v^H; beta = -sign(Re x_k) |x[k:]| (the sign avoids
  cancellation). tau = 0 (H = I) when x[k+1:] = 0 and x_k is real: beta is then x_k.
  """
  rows = ctx.iota(b, (m, 1), 0)
  below, at = Gt(rows, k), Eq(rows, k)
  zeros = ctx.full(b, 0, (m, 1))
  alpha = ctx.sum(b, Select(at, x, zeros), (0, 1))
  tail = ctx.sum(b, ctx.abs2(Select(below, x, zeros)), (0, 1), real=True)
  norm = Sqrt(Add(ctx.abs2(alpha), tail))
  beta = Mul(Neg(_sign(ctx, b, ctx.real(alpha))), norm)
  skip = Eq(tail, ctx.rconst(b, 0))
  if ctx.cplx:
    skip = And(skip, Eq(Imag(alpha), ctx.rconst(b, 0)))
  beta = Select(skip, ctx.real(alpha), beta)
  beta_et = ctx.to_et(beta)
  one = ctx.const(b, 1)
  tau = Select(skip, ctx.const(b, 0), Div(Sub(beta_et, alpha), Select(skip, one, beta_et)))
  denominator = Select(skip, one, Sub(alpha, beta_et))
  v = Select(below, Div(x, ctx.expand(denominator, (m, 1), ())), zeros)
  v = Select(at, ctx.full(b, 1, (m, 1)), v)
  return v, tau, beta


def _householder(ctx, b, a, m, n, with_q):
  """Householder QR of a [..., m, n] as LAPACK's xGEQRF: (a', taus, q).

  a' holds R on and above the diagonal and reflector k's v[k+1:] below it in column k;
  taus [..., min(m, n)]; q = H_0 ... H_{k-1} [..., m, m] when with_q (else None), so that
  q @ R = a. Step k reflects column k's rows k.. onto e_k and applies H^H to columns k..
  """
  steps = min(m, n)
  taus = ctx.full(b, 0, (steps,))
  q = ctx.eye(b, m) if with_q else None
  if steps == 0:
    return a, taus, q

  def cond(values):
    return Lt(values[0], ScalarConstant(values[0].builder(), steps, _P.S32))

  def body(values):
    sb = values[0].builder()
    k, x, t = values[:3]
    v, tau, beta = _reflector(ctx, sb, ctx.column(sb, x, k, m), k, m)
    cols = ctx.iota(sb, (1, n), 1)
    # x -= v conj(tau) (v^H x), on columns k.. (earlier ones hold reflectors below R).
    w = Select(Ge(cols, k), ctx.matmul(v, x, hx=True), ctx.full(sb, 0, (1, n)))
    x = Sub(x, Mul(ctx.matmul(v, w), ctx.expand(ctx.conj(tau), (m, n), ())))
    rows, cols = ctx.iota(sb, (m, n), 0), ctx.iota(sb, (m, n), 1)
    in_col = Eq(cols, k)
    x = Select(And(in_col, Eq(rows, k)), ctx.expand(ctx.to_et(beta), (m, n), ()), x)
    x = Select(And(in_col, Gt(rows, k)), ctx.expand(Reshape(v, ctx.batch + [m]), (m, n), (0,)),
               x)
    t = Select(Eq(ctx.iota(sb, (steps,), 0), k), ctx.expand(tau, (steps,), ()), t)
    out = [Add(k, ScalarConstant(sb, 1, _P.S32)), x, t]
    if with_q:
      # q = q H = q - tau (q v) v^H
      qv = ctx.matmul(values[3], v)
      out.append(Sub(values[3], Mul(ctx.matmul(qv, v, hy=True), ctx.expand(tau, (m, m), ()))))
    return out

  state = [ScalarConstant(b, 0, _P.S32), a, taus] + ([q] if with_q else [])
  out = _loop(b, "householder", state, cond, body)
  return out[1], out[2], (out[3] if with_q else None)


def _upper(ctx, b, x, m, n):
  return Select(Le(ctx.iota(b, (m, n), 0), ctx.iota(b, (m, n), 1)), x, ctx.full(b, 0, (m, n)))


def _householder_qr(ctx, b, a, m, n):
  """(q [..., m, m] unitary, r [..., m, n] upper triangular) with q @ r = a."""
  x, _, q = _householder(ctx, b, a, m, n, with_q=True)
  return q, _upper(ctx, b, x, m, n)


@_multi_op(2)
def QR(operand, full_matrices):
  """(q, r) with q @ r = operand: q orthogonal (unitary), r upper triangular (Householder).

  operand [..., m, n]; full_matrices: q [..., m, m], r [..., m, n]; otherwise with
  k = min(m, n): q [..., m, k], r [..., k, n].
  """
  s = _matrix_operand(operand, "QR")
  b = operand.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  ctx = _Ctx(s.element_type(), dims[:-2])
  scaled, scale = _power_of_two_scale(ctx, b, operand, m, n)
  q, r = _householder_qr(ctx, b, scaled, m, n)
  r = Mul(r, ctx.to_et(ctx.expand(scale, (m, n), ())))
  if not full_matrices and m != n:
    k = min(m, n)
    nb = ctx.nb
    q = Slice(q, [0] * (nb + 2), ctx.batch + [m, k], [1] * (nb + 2))
    r = Slice(r, [0] * (nb + 2), ctx.batch + [k, n], [1] * (nb + 2))
  return q, r


@_multi_op(2)
def QrDecomposition(operand):
  """(q_and_r, taus) as LAPACK's xGEQRF: R on and above the diagonal, the Householder
  vectors v_k (v_k[k] = 1 implied) below it, taus [..., min(m, n)]; Q = H_0 ... H_{k-1}
  with H_k = I - taus[k] v_k v_k^H (ProductOfElementaryHouseholderReflectors)."""
  s = _matrix_operand(operand, "QrDecomposition")
  b = operand.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  ctx = _Ctx(s.element_type(), dims[:-2])
  scaled, scale = _power_of_two_scale(ctx, b, operand, m, n)
  x, taus, _ = _householder(ctx, b, scaled, m, n, with_q=False)
  # R scales with the operand; the reflectors below it do not.
  upper = Le(ctx.iota(b, (m, n), 0), ctx.iota(b, (m, n), 1))
  return Select(upper, Mul(x, ctx.to_et(ctx.expand(scale, (m, n), ()))), x), taus


@_op
def ProductOfElementaryHouseholderReflectors(a, taus):
  """The first n columns of H_0 ... H_{k-1} (LAPACK's xORGQR / xUNGQR) for a [..., m, n]
  holding reflector j below its diagonal in column j (QrDecomposition's q_and_r) and taus
  [..., k], k <= n <= m."""
  s = _matrix_operand(a, "ProductOfElementaryHouseholderReflectors")
  b = _same_builder(a, taus)
  ts = _array_shape(taus, "taus")
  dims = list(s.dimensions())
  m, n = dims[-2:]
  k = ts.dimensions()[-1] if ts.rank() else -1
  if ts.element_type() != s.element_type() or list(ts.dimensions()[:-1]) != dims[:-2] or (
      not 0 <= k <= n):
    raise BuilderError("taus must be %s[%s] with k <= %d, got %s" % (
        _types.lowercase_name(s.element_type()), ",".join(str(d) for d in dims[:-2] + ["k"]),
        n, _shape_str(ts)))
  if n > m:
    raise BuilderError("a must have at least as many rows as columns, got %s" % _shape_str(s))
  ctx = _Ctx(s.element_type(), dims[:-2])
  q = ctx.eye(b, m, n)
  if k == 0:
    return q

  def cond(values):
    return Lt(values[0], ScalarConstant(values[0].builder(), k, _P.S32))

  def body(values):
    # a and taus ride along unchanged (a loop body sees only its state).
    sb = values[0].builder()
    i, x, reflectors, t = values
    j = Sub(ScalarConstant(sb, k - 1, _P.S32), i)  # H_{k-1} first: x = H_j x
    rows = ctx.iota(sb, (m, 1), 0)
    v = Select(Gt(rows, j), ctx.column(sb, reflectors, j, m), ctx.full(sb, 0, (m, 1)))
    v = Select(Eq(rows, j), ctx.full(sb, 1, (m, 1)), v)
    tau = Reshape(DynamicSlice(t, ctx.slice_indices(sb, j), ctx.batch + [1]), ctx.batch)
    x = Sub(x, Mul(ctx.matmul(v, ctx.matmul(v, x, hx=True)), ctx.expand(tau, (m, n), ())))
    return [Add(i, ScalarConstant(sb, 1, _P.S32)), x, reflectors, t]

  return _loop(b, "orgqr", [ScalarConstant(b, 0, _P.S32), q, a, taus], cond, body)[1]


# --- Eigh -----------------------------------------------------------------------------

@_multi_op(2)
def Eigh(a, lower=True, max_iter=15, epsilon=1e-5, sort_eigenvalues=True):
  """(v, w): eigenvectors (columns of v) and eigenvalues of symmetric (Hermitian) a,
  a = v diag(w) v^H; w has the real type (f32 for c64).

  Reads the lower (lower=True) or upper triangle of a (and the real part of its diagonal).
  Jacobi: sweeps of rotations over all index pairs until the off-diagonal norm is at most
  epsilon times the Frobenius norm (every batch element), or max_iter sweeps.
  sort_eigenvalues: ascending w.
  """
  s = _matrix_operand(a, "Eigh", square=True)
  b = a.builder()
  dims = list(s.dimensions())
  n = dims[-1]
  ctx = _Ctx(s.element_type(), dims[:-2])
  rows, cols = ctx.iota(b, (n, n), 0), ctx.iota(b, (n, n), 1)
  zeros = ctx.full(b, 0, (n, n))
  if lower:
    tri, strict = Ge(rows, cols), Gt(rows, cols)
  else:
    tri, strict = Le(rows, cols), Lt(rows, cols)
  sym = Add(Select(tri, a, zeros), ctx.transpose(Select(strict, a, zeros), conj=True))
  if ctx.cplx:
    sym = Select(Eq(rows, cols), ctx.to_et(Real(sym)), sym)
  v = ctx.eye(b, n)
  eps2 = float(epsilon) ** 2

  def converged(sb, values):
    x = values[0]
    eye = Eq(ctx.iota(sb, (n, n), 0), ctx.iota(sb, (n, n), 1))
    squares = ctx.abs2(x)
    total = ctx.sum(sb, squares, (0, 1), real=True)
    off = ctx.sum(sb, Select(eye, ctx.full(sb, 0, (n, n), ctx.rt), squares), (0, 1), real=True)
    return _all(ctx, sb, Le(off, Mul(ctx.rconst(sb, eps2), total)))

  def rotate(ib, values, pair):
    x, vecs = values
    diag = _diagonal(ctx, ib, ctx.real(x), n, real=True)
    j = pair.rotation(diag, pair.partner_values(diag, real=True),
                      ctx.sum(ib, Mul(x, pair.hot), (1,)))
    x = ctx.matmul(ctx.matmul(j, x, hx=True), j)
    # The rotations zero their pairs' entries (up to rounding: make them exact zeros).
    x = Select(pair.off_diagonal_mask(), ctx.full(ib, 0, (n, n)), x)
    return [x, ctx.matmul(vecs, j)]

  sym, scale = _power_of_two_scale(ctx, b, sym, n, n)
  x, v = _sweeps(ctx, b, "eigh", [sym, v], int(max_iter), converged, n, rotate)
  w = Mul(_diagonal(ctx, b, ctx.real(x), n, real=True), ctx.expand(scale, (n,), ()))
  if sort_eigenvalues and n > 1:
    w, perm = _sort_permutation(ctx, b, w, n, descending=False)
    v = ctx.matmul(v, perm)
  return v, w


# --- SVD ------------------------------------------------------------------------------

def _svd_tall(ctx, b, a, m, n, max_iter, epsilon):
  """SVD of a [..., m, n] with m >= n: (u [..., m, m], d [..., n] descending, v [..., n, n])."""
  q, r = _householder_qr(ctx, b, a, m, n)
  nb = ctx.nb
  w = Slice(r, [0] * (nb + 2), ctx.batch + [n, n], [1] * (nb + 2)) if m != n else r
  v = ctx.eye(b, n)
  eps2 = float(epsilon) ** 2

  def converged(sb, values):
    # Every pair of columns orthogonal to within epsilon: |g_pq|^2 <= eps^2 g_pp g_qq.
    x = values[0]
    gram = ctx.matmul(x, x, hx=True)
    diag = _diagonal(ctx, sb, ctx.real(gram), n, real=True)
    bound = Mul(ctx.rconst(sb, eps2), Mul(ctx.expand(diag, (n, n), (0,)),
                                          ctx.expand(diag, (n, n), (1,))))
    eye = Eq(ctx.iota(sb, (n, n), 0), ctx.iota(sb, (n, n), 1))
    ok = Or(eye, Le(ctx.abs2(gram), bound))
    return Reduce(sb, [ok], [ScalarConstant(sb, True, _P.PRED)], _reducer("and", _P.PRED),
                  list(range(nb + 2)))

  def rotate(ib, values, pair):
    # The Jacobi rotation of the Gram matrix x^H x, applied to x's columns.
    x, vecs = values
    norms = ctx.sum(ib, ctx.abs2(x), (0,), real=True)
    # gamma_i = x_i^H x_partner(i): x @ hot^T holds each column's partner column.
    gamma = ctx.sum(ib, Mul(ctx.conj(x), ctx.matmul(x, ctx.transpose(pair.hot))), (0,))
    j = pair.rotation(norms, pair.partner_values(norms, real=True), gamma)
    return [ctx.matmul(x, j), ctx.matmul(vecs, j)]

  w, v = _sweeps(ctx, b, "svd", [w, v], max_iter, converged, n, rotate)
  d = Sqrt(ctx.sum(b, ctx.abs2(w), (0,), real=True))
  if n > 1:
    d, perm = _sort_permutation(ctx, b, d, n, descending=True)
    w, v = ctx.matmul(w, perm), ctx.matmul(v, perm)
  # u1 = w / d column by column; the QR of u1 turns its zero columns (d = 0, sorted last)
  # into an orthonormal completion and keeps the others (up to the phase fixed below).
  positive = Gt(ctx.expand(d, (n, n), (1,)), ctx.full(b, 0, (n, n), ctx.rt))
  safe = Select(positive, ctx.expand(d, (n, n), (1,)), ctx.full(b, 1, (n, n), ctx.rt))
  u1 = Select(positive, Div(w, ctx.to_et(safe)), ctx.full(b, 0, (n, n)))
  q1, r1 = _householder_qr(ctx, b, u1, n, n)
  u1 = Mul(q1, ctx.expand(ctx.phase(b, _diagonal(ctx, b, r1, n)), (n, n), (1,)))
  if m > n:
    from ._helpers import make_padding_config  # pylint: disable=g-import-not-at-top
    pad = make_padding_config([(0, 0, 0)] * nb + [(0, m - n, 0), (0, m - n, 0)])
    u1 = Pad(u1, ctx.const(b, 0), pad)
    rows, cols = ctx.iota(b, (m, m), 0), ctx.iota(b, (m, m), 1)
    tail = And(Eq(rows, cols), Ge(rows, ScalarConstant(b, n, _P.S32)))
    u1 = Select(tail, ctx.full(b, 1, (m, m)), u1)
  return ctx.matmul(q, u1), d, v


@_multi_op(3)
def SVD(a, max_iter=100, epsilon=1e-6):
  """(u, d, v) with a = u diag(d) v^H: u [..., m, m] and v [..., n, n] orthogonal (unitary),
  d [..., min(m, n)] the singular values (real type) in descending order.

  Householder QR, then one-sided Jacobi rotations of R's columns until every pair is
  orthogonal to within epsilon (relative), or max_iter sweeps.
  """
  s = _matrix_operand(a, "SVD")
  b = a.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  ctx = _Ctx(s.element_type(), dims[:-2])
  if min(m, n) == 0:
    return ctx.eye(b, m), ctx.full(b, 0, (0,), ctx.rt), ctx.eye(b, n)
  scaled, scale = _power_of_two_scale(ctx, b, a, m, n)
  k = min(m, n)
  if m >= n:
    u, d, v = _svd_tall(ctx, b, scaled, m, n, int(max_iter), epsilon)
  else:
    # a^H = u' d v'^H, so a = v' d u'^H.
    v, d, u = _svd_tall(ctx, b, ctx.transpose(scaled, conj=True), n, m, int(max_iter), epsilon)
  return u, Mul(d, ctx.expand(scale, (k,), ())), v


# --- LU -------------------------------------------------------------------------------

@_multi_op(3)
def LU(operand):
  """(lu, pivots, permutation): LU decomposition with partial pivoting of [..., m, n].

  lu holds L (unit lower triangular, diagonal not stored) below the diagonal and U on and
  above it; pivots [..., min(m, n)] (s32): step i swapped rows i and pivots[i];
  permutation [..., m] (s32): operand[..., permutation, :] = L @ U.
  """
  s = _matrix_operand(operand, "LU")
  b = operand.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  k_steps = min(m, n)
  ctx = _Ctx(s.element_type(), dims[:-2])
  pivots = ctx.full(b, 0, (k_steps,), _P.S32)
  perm = ctx.iota(b, (m,), 0)
  lu = operand
  if k_steps == 0:
    return lu, pivots, perm

  def cond(values):
    return Lt(values[0], ScalarConstant(values[0].builder(), k_steps, _P.S32))

  def body(values):
    sb = values[0].builder()
    k, x, piv, p = values
    rows_col = ctx.iota(sb, (m, 1), 0)
    col = ctx.column(sb, x, k, m)
    # Pivot: the first row >= k with the largest |x[row, k]|.
    candidates = Select(Ge(rows_col, k), Abs(col), ctx.full(sb, -1, (m, 1), ctx.rt))
    biggest = Reduce(sb, [candidates], [ctx.rconst(sb, -np.inf)], _reducer("max", ctx.rt),
                     [ctx.nb, ctx.nb + 1])
    at_max = Eq(candidates, ctx.expand(biggest, (m, 1), ()))
    index = Reduce(sb, [Select(at_max, rows_col, ctx.full(sb, m, (m, 1), _P.S32))],
                   [ScalarConstant(sb, m, _P.S32)], _reducer("min", _P.S32),
                   [ctx.nb, ctx.nb + 1])
    index = Min(index, ScalarConstant(sb, m - 1, _P.S32))  # all-NaN column: keep in range
    # Swap rows k and index (index differs per batch element: masks, not slices).
    rows = ctx.iota(sb, (m, n), 0)
    is_k = Eq(rows, k)
    is_pivot = Eq(rows, ctx.expand(index, (m, n), ()))
    zeros = ctx.full(sb, 0, (m, n))
    row_k = ctx.sum(sb, Select(is_k, x, zeros), (0,))
    row_pivot = ctx.sum(sb, Select(is_pivot, x, zeros), (0,))
    x = Select(is_k, ctx.expand(row_pivot, (m, n), (1,)),
               Select(is_pivot, ctx.expand(row_k, (m, n), (1,)), x))
    positions = ctx.iota(sb, (m,), 0)
    p_k = Reshape(DynamicSlice(p, ctx.slice_indices(sb, k), ctx.batch + [1]), ctx.batch)
    p_pivot = Reduce(sb, [Select(Eq(positions, ctx.expand(index, (m,), ())), p,
                                 ctx.full(sb, 0, (m,), _P.S32))],
                     [ScalarConstant(sb, 0, _P.S32)], _reducer("add", _P.S32), [ctx.nb])
    p = Select(Eq(positions, k), ctx.expand(p_pivot, (m,), ()),
               Select(Eq(positions, ctx.expand(index, (m,), ())), ctx.expand(p_k, (m,), ()), p))
    steps = ctx.iota(sb, (k_steps,), 0)
    piv = Select(Eq(steps, k), ctx.expand(index, (k_steps,), ()), piv)
    # Eliminate below the pivot: l = x[i, k] / x[k, k] for i > k; x[i, j] -= l_i x[k, j], j > k.
    col = ctx.column(sb, x, k, m)
    pivot = _element(ctx, sb, x, k, k)
    nonzero = Ne(pivot, ctx.const(sb, 0))  # a zero pivot's column is zero: leave it
    safe = Select(nonzero, pivot, ctx.const(sb, 1))
    below = Gt(rows_col, k)
    l = Select(below, Div(col, ctx.expand(safe, (m, 1), ())), ctx.full(sb, 0, (m, 1)))
    row = DynamicSlice(x, ctx.slice_indices(sb, k, 0), ctx.batch + [1, n])
    right = Gt(ctx.iota(sb, (1, n), 1), k)
    row = Select(right, row, ctx.full(sb, 0, (1, n)))
    l_full = ctx.expand(Reshape(l, ctx.batch + [m]), (m, n), (0,))
    x = Sub(x, Mul(l_full, ctx.expand(Reshape(row, ctx.batch + [n]), (m, n), (1,))))
    in_col_k = And(Gt(rows, k), Eq(ctx.iota(sb, (m, n), 1), k))
    x = Select(in_col_k, l_full, x)
    return [Add(k, ScalarConstant(sb, 1, _P.S32)), x, piv, p]

  _, lu, pivots, perm = _loop(b, "lu", [ScalarConstant(b, 0, _P.S32), lu, pivots, perm], cond,
                              body)
  return lu, pivots, perm
