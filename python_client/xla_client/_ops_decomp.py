"""Matrix decompositions XLA's client library composes from HLO (there is no opcode for them):
QR (Householder reflections), Eigh (cyclic Jacobi rotations), SVD (QR, then one-sided Jacobi)
and LU (partial pivoting). Exported through `ops` with xla_client's names and arguments.

Leading dimensions are batch dimensions. Each factorization is a While loop over the columns
(or the index pairs) of the matrices; the loop index is shared by the batch, so columns and
rows are moved with DynamicSlice / DynamicUpdateSlice, and whatever differs per batch element
(LU's pivot rows, the order of sorted values) is applied with masks and one-hot products.
f32 and f64 only: complex operands get a builder error.
"""
# pylint: disable=invalid-name

import functools

import numpy as np

from . import _types
from ._builder import BuilderError
from ._builder import XlaBuilder
from ._builder import XlaOp
from ._errors import XlaRuntimeError
from ._ops_base import _array_shape
from ._ops_base import _find_builder
from ._ops_base import _same_builder
from ._ops_base import _shape_str
from ._ops_data import BroadcastInDim
from ._ops_data import DynamicSlice
from ._ops_data import DynamicUpdateSlice
from ._ops_data import GetTupleElement
from ._ops_data import Pad
from ._ops_data import Reshape
from ._ops_data import Slice
from ._ops_data import Transpose
from ._ops_data import Tuple
from ._ops_data import While
from ._ops_elementwise import Abs
from ._ops_elementwise import Add
from ._ops_elementwise import Constant
from ._ops_elementwise import And
from ._ops_elementwise import ConvertElementType
from ._ops_elementwise import Div
from ._ops_elementwise import Eq
from ._ops_elementwise import Ge
from ._ops_elementwise import Gt
from ._ops_elementwise import Iota
from ._ops_elementwise import Le
from ._ops_elementwise import Lt
from ._ops_elementwise import Max
from ._ops_elementwise import Min
from ._ops_elementwise import Mul
from ._ops_elementwise import Ne
from ._ops_elementwise import Not
from ._ops_elementwise import Or
from ._ops_elementwise import Parameter
from ._ops_elementwise import Rsqrt
from ._ops_elementwise import ScalarConstant
from ._ops_elementwise import Select
from ._ops_elementwise import Sqrt
from ._ops_elementwise import Sub
from ._ops_linalg import DotGeneral
from ._ops_reduce import Reduce
from ._ops_reduce import Sort
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["Eigh", "LU", "QR", "SVD"]


# --- plumbing -------------------------------------------------------------------------

def _multi_op(count):
  """As _ops_base._op for functions returning `count` ops: errors give `count` invalid ops."""

  def decorate(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
      builder = _find_builder(args, kwargs)
      if builder is None:
        raise TypeError("%s needs an XlaOp argument" % fn.__name__)
      if builder._first_error is None:
        try:
          return fn(*args, **kwargs)
        except (BuilderError, ValueError, TypeError, IndexError, KeyError) as e:
          builder._report("%s: %s" % (fn.__name__, e))
        except XlaRuntimeError as e:  # a loop body that failed to build
          builder._report("%s: %s" % (fn.__name__, e.message))
      return tuple(XlaOp(builder, -1) for _ in range(count))

    return wrapper

  return decorate


def _matrix_operand(a, opname, square=False):
  """The shape of a (batched) f32/f64 matrix operand, or a BuilderError saying what is wrong."""
  _same_builder(a)
  s = _array_shape(a)
  if s.rank() < 2:
    raise BuilderError("%s needs a matrix (rank >= 2, leading dimensions are batch "
                       "dimensions), got %s" % (opname, _shape_str(s)))
  et = s.element_type()
  if _types.is_complex(et):
    raise BuilderError("%s of complex matrices is not supported by this builder; got %s" %
                       (opname, _shape_str(s)))
  if et not in (_P.F32, _P.F64):
    raise BuilderError("%s needs an f32 or f64 matrix, got %s" % (opname, _shape_str(s)))
  if square and s.dimensions()[-1] != s.dimensions()[-2]:
    raise BuilderError("%s needs square matrices, got %s" % (opname, _shape_str(s)))
  return s


class _Ctx:
  """Element type and batch dimensions of one decomposition, and shape helpers."""

  def __init__(self, et, batch):
    self.et = et
    self.batch = list(batch)
    self.nb = len(batch)

  def const(self, b, value, et=None):
    return ScalarConstant(b, value, self.et if et is None else et)

  def full(self, b, value, dims, et=None):
    """A constant broadcast to batch + dims."""
    return BroadcastInDim(self.const(b, value, et), self.batch + list(dims), [])

  def iota(self, b, dims, dim, et=_P.S32):
    """Iota over batch + dims along dims[dim]."""
    return Iota(b, Shape.array_shape(et, self.batch + list(dims)), self.nb + dim)

  def expand(self, x, dims, keep):
    """Broadcasts x (batch + the dims listed in keep) to batch + dims."""
    return BroadcastInDim(x, self.batch + list(dims),
                          list(range(self.nb)) + [self.nb + k for k in keep])

  def matmul(self, x, y, tx=False, ty=False):
    """Batched x @ y (x^T, y^T with tx, ty) over the last two dimensions."""
    nb = self.nb
    lc = nb if tx else nb + 1
    rc = nb + 1 if ty else nb
    batch = list(range(nb))
    return DotGeneral(x, y, (([lc], [rc]), (batch, batch)))

  def sum(self, b, x, dims):
    """Sum over the given matrix dimensions (0, 1: the last two)."""
    return Reduce(b, [x], [self.const(b, 0)], _reducer("add", self.et),
                  [self.nb + d for d in dims])

  def transpose(self, x):
    nb = self.nb
    return Transpose(x, list(range(nb)) + [nb + 1, nb])

  def eye(self, b, m, n=None, et=None):
    n = m if n is None else n
    on = Eq(self.iota(b, (m, n), 0), self.iota(b, (m, n), 1))
    return ConvertElementType(on, self.et if et is None else et)

  def slice_indices(self, b, *indices):
    """Start indices: zeros for the batch dimensions, then indices (ints or s32 scalars)."""
    zero = ScalarConstant(b, 0, _P.S32)
    out = [zero] * self.nb
    for i in indices:
      out.append(ScalarConstant(b, i, _P.S32) if isinstance(i, int) else i)
    return out


@functools.lru_cache(maxsize=None)
def _reducer(kind, et):
  sub = XlaBuilder("%s_%s" % (kind, _types.lowercase_name(et)))
  scalar = Shape.scalar_shape(et)
  x, y = Parameter(sub, 0, scalar), Parameter(sub, 1, scalar)
  {"add": Add, "and": And, "max": Max, "min": Min}[kind](x, y)
  return sub.build()


def _all(ctx, b, pred):
  """And over every element of a batch-shaped pred array."""
  if ctx.nb == 0:
    return pred
  return Reduce(b, [pred], [ScalarConstant(b, True, _P.PRED)], _reducer("and", _P.PRED),
                list(range(ctx.nb)))


def _loop(b, name, state, cond_fn, body_fn):
  """While loop over the list of ops `state`; cond_fn(values) -> pred, body_fn(values) -> list."""
  for x in state:
    if not x.valid():
      return [XlaOp(b, -1)] * len(state)
  shapes = [b.get_shape(x) for x in state]
  tuple_shape = Shape.tuple_shape(shapes)

  def build(suffix, fn):
    sub = XlaBuilder("%s_%s" % (name, suffix))
    param = Parameter(sub, 0, tuple_shape)
    root = fn([GetTupleElement(param, i) for i in range(len(shapes))])
    if isinstance(root, list):
      root = Tuple(sub, root)
    return sub.build(root)

  cond = build("cond", cond_fn)
  body = build("body", body_fn)
  result = While(cond, body, Tuple(b, state))
  return [GetTupleElement(result, i) for i in range(len(shapes))]


def _sign(ctx, b, x):
  """+1 for x >= 0, -1 otherwise (x's shape)."""
  return Select(Ge(x, ctx.const(b, 0)), ctx.const(b, 1), ctx.const(b, -1))


def _rotation(ctx, b, app, aqq, apq):
  """(c, s) of the Jacobi rotation that zeroes apq of [[app, apq], [apq, aqq]].

  With J = [[c, s], [-s, c]], J^T [[app, apq], [apq, aqq]] J is diagonal
  (Golub & Van Loan, Matrix Computations, the symmetric Schur decomposition of a 2x2 block).
  """
  zero = Eq(apq, ctx.const(b, 0))
  safe = Select(zero, ctx.const(b, 1), apq)
  tau = Div(Sub(aqq, app), Mul(ctx.const(b, 2), safe))
  # t = sign(tau) / (|tau| + sqrt(1 + tau^2)): the smaller root of t^2 + 2 tau t - 1 = 0;
  # for huge tau, tau^2 overflows to inf and t becomes 0, the right limit.
  t = Div(_sign(ctx, b, tau), Add(Abs(tau), Sqrt(Add(ctx.const(b, 1), Mul(tau, tau)))))
  t = Select(zero, ctx.const(b, 0), t)
  c = Rsqrt(Add(ctx.const(b, 1), Mul(t, t)))
  return c, Mul(t, c)


def _rotate(ctx, b, x, p, q, c, s, size, columns):
  """Replaces rows (or columns) p, q of x by c x_p - s x_q and s x_p + c x_q."""
  if columns:
    slice_dims, at_p, at_q, keep = [size, 1], (0, p), (0, q), ()
  else:
    slice_dims, at_p, at_q, keep = [1, size], (p, 0), (q, 0), ()
  xp = DynamicSlice(x, ctx.slice_indices(b, *at_p), ctx.batch + slice_dims)
  xq = DynamicSlice(x, ctx.slice_indices(b, *at_q), ctx.batch + slice_dims)
  cb, sb = ctx.expand(c, slice_dims, keep), ctx.expand(s, slice_dims, keep)
  new_p = Sub(Mul(cb, xp), Mul(sb, xq))
  new_q = Add(Mul(sb, xp), Mul(cb, xq))
  x = DynamicUpdateSlice(x, new_p, ctx.slice_indices(b, *at_p))
  return DynamicUpdateSlice(x, new_q, ctx.slice_indices(b, *at_q))


def _element(ctx, b, x, i, j):
  """x[..., i, j] as a batch-shaped array (i, j: s32 scalars)."""
  return Reshape(DynamicSlice(x, ctx.slice_indices(b, i, j), ctx.batch + [1, 1]), ctx.batch)


def _pair_table(n):
  """All index pairs p < q of n, in cyclic row order."""
  pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
  return np.array([p for p, _ in pairs], np.int32), np.array([q for _, q in pairs], np.int32)


def _sweeps(ctx, b, name, state, max_iter, converged_fn, n, rotate_fn):
  """Cyclic Jacobi sweeps over all pairs p < q of n until converged_fn(state) or max_iter.

  state: list of ops; rotate_fn(b, state, p, q) -> new state (p, q: s32 scalars).
  """
  ps, qs = _pair_table(n)
  npairs = len(ps)
  if npairs == 0 or max_iter <= 0:
    return state
  def cond(values):
    sweep, rest = values[0], values[1:]
    more = Lt(sweep, ScalarConstant(sweep.builder(), int(max_iter), _P.S32))
    return And(more, Not(converged_fn(sweep.builder(), rest)))

  def sweep_body(values):
    sb = values[0].builder()
    sweep, rest = values[0], values[1:]

    def pair_cond(inner):
      return Lt(inner[0], ScalarConstant(inner[0].builder(), npairs, _P.S32))

    def pair_body(inner):
      ib = inner[0].builder()
      t = inner[0]
      p = Reshape(DynamicSlice(Constant(ib, ps), [t], [1]), [])
      q = Reshape(DynamicSlice(Constant(ib, qs), [t], [1]), [])
      new = rotate_fn(ib, inner[1:], p, q)
      return [Add(t, ScalarConstant(ib, 1, _P.S32))] + list(new)

    rest = _loop(sb, name + "_pairs", [ScalarConstant(sb, 0, _P.S32)] + list(rest), pair_cond,
                 pair_body)[1:]
    return [Add(sweep, ScalarConstant(sb, 1, _P.S32))] + rest

  out = _loop(b, name + "_sweeps", [ScalarConstant(b, 0, _P.S32)] + list(state), cond,
              sweep_body)
  return out[1:]


def _sort_permutation(ctx, b, keys, n, descending):
  """(sorted keys, P) with P[..., i, j] = 1 where sorted position j holds old position i."""
  index = ctx.iota(b, (n,), 0)
  comparator = None
  if descending:
    sub = XlaBuilder("greater_than")
    k = Shape.scalar_shape(ctx.et)
    i = Shape.scalar_shape(_P.S32)
    x, y = Parameter(sub, 0, k), Parameter(sub, 1, k)
    Parameter(sub, 2, i)
    Parameter(sub, 3, i)
    comparator = sub.build(Gt(x, y))
  result = Sort(b, [keys, index], comparator, dimension=-1, is_stable=True)
  sorted_keys, perm = GetTupleElement(result, 0), GetTupleElement(result, 1)
  onehot = Eq(ctx.iota(b, (n, n), 0), ctx.expand(perm, (n, n), (1,)))
  return sorted_keys, ConvertElementType(onehot, ctx.et)


def _diagonal(ctx, b, x, n):
  """The diagonal [..., n] of square x [..., n, n]."""
  eye = Eq(ctx.iota(b, (n, n), 0), ctx.iota(b, (n, n), 1))
  return ctx.sum(b, Select(eye, x, ctx.full(b, 0, (n, n))), (1,))


# --- QR -------------------------------------------------------------------------------

def _householder_qr(ctx, b, a, m, n):
  """(q [..., m, m] orthogonal, r [..., m, n] upper triangular) with q @ r = a.

  Step k reflects column k's entries k.. onto e_k with H = I - 2 v v^T / v^T v, where
  v = x + sign(x_k) |x| e_k (the sign avoids cancellation); a zero column is left alone.
  """
  q = ctx.eye(b, m)
  steps = min(m - 1, n)
  if steps > 0:
    def cond(values):
      return Lt(values[0], ScalarConstant(values[0].builder(), steps, _P.S32))

    def body(values):
      sb = values[0].builder()
      k, a_, q_ = values
      x = DynamicSlice(a_, ctx.slice_indices(sb, 0, k), ctx.batch + [m, 1])
      rows = ctx.iota(sb, (m, 1), 0)
      zeros = ctx.full(sb, 0, (m, 1))
      v = Select(Ge(rows, k), x, zeros)
      at_k = Eq(rows, k)
      alpha = ctx.sum(sb, Select(at_k, x, zeros), (0, 1))
      norm = Sqrt(ctx.sum(sb, Mul(v, v), (0, 1)))
      vk = Add(alpha, Mul(_sign(ctx, sb, alpha), norm))
      v = Select(at_k, ctx.expand(vk, (m, 1), ()), v)
      vtv = ctx.sum(sb, Mul(v, v), (0, 1))
      nonzero = Gt(vtv, ctx.const(sb, 0))
      scale = Select(nonzero, Div(ctx.const(sb, 2), Select(nonzero, vtv, ctx.const(sb, 1))),
                     ctx.const(sb, 0))
      a_ = Sub(a_, Mul(ctx.matmul(v, ctx.matmul(v, a_, tx=True)), ctx.expand(scale, (m, n), ())))
      q_ = Sub(q_, Mul(ctx.matmul(ctx.matmul(q_, v), v, ty=True),
                       ctx.expand(scale, (m, m), ())))
      return [Add(k, ScalarConstant(sb, 1, _P.S32)), a_, q_]

    _, a, q = _loop(b, "qr", [ScalarConstant(b, 0, _P.S32), a, q], cond, body)
  upper = Le(ctx.iota(b, (m, n), 0), ctx.iota(b, (m, n), 1))
  r = Select(upper, a, ctx.full(b, 0, (m, n)))
  return q, r


@_multi_op(2)
def QR(operand, full_matrices):
  """(q, r) with q @ r = operand: q orthogonal, r upper triangular (Householder).

  operand [..., m, n]; full_matrices: q [..., m, m], r [..., m, n]; otherwise with
  k = min(m, n): q [..., m, k], r [..., k, n].
  """
  s = _matrix_operand(operand, "QR")
  b = operand.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  ctx = _Ctx(s.element_type(), dims[:-2])
  q, r = _householder_qr(ctx, b, operand, m, n)
  if not full_matrices and m != n:
    k = min(m, n)
    nb = ctx.nb
    q = Slice(q, [0] * (nb + 2), ctx.batch + [m, k], [1] * (nb + 2))
    r = Slice(r, [0] * (nb + 2), ctx.batch + [k, n], [1] * (nb + 2))
  return q, r


# --- Eigh -----------------------------------------------------------------------------

@_multi_op(2)
def Eigh(a, lower=True, max_iter=15, epsilon=1e-5, sort_eigenvalues=True):
  """(v, w): eigenvectors (columns of v) and eigenvalues of symmetric a, a = v diag(w) v^T.

  Reads the lower (lower=True) or upper triangle of a. Cyclic Jacobi: sweeps of rotations
  over all index pairs until the off-diagonal norm is at most epsilon times the Frobenius
  norm (every batch element), or max_iter sweeps. sort_eigenvalues: ascending w.
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
  sym = Add(Select(tri, a, zeros), ctx.transpose(Select(strict, a, zeros)))
  v = ctx.eye(b, n)
  eps2 = float(epsilon) ** 2

  def converged(sb, values):
    x = values[0]
    eye = Eq(ctx.iota(sb, (n, n), 0), ctx.iota(sb, (n, n), 1))
    squares = Mul(x, x)
    total = ctx.sum(sb, squares, (0, 1))
    off = ctx.sum(sb, Select(eye, ctx.full(sb, 0, (n, n)), squares), (0, 1))
    return _all(ctx, sb, Le(off, Mul(ctx.const(sb, eps2), total)))

  def rotate(ib, values, p, q):
    x, vecs = values
    c, s_ = _rotation(ctx, ib, _element(ctx, ib, x, p, p), _element(ctx, ib, x, q, q),
                      _element(ctx, ib, x, p, q))
    x = _rotate(ctx, ib, x, p, q, c, s_, n, columns=False)
    x = _rotate(ctx, ib, x, p, q, c, s_, n, columns=True)
    zero = ctx.full(ib, 0, (1, 1))
    x = DynamicUpdateSlice(x, zero, ctx.slice_indices(ib, p, q))
    x = DynamicUpdateSlice(x, zero, ctx.slice_indices(ib, q, p))
    vecs = _rotate(ctx, ib, vecs, p, q, c, s_, n, columns=True)
    return [x, vecs]

  x, v = _sweeps(ctx, b, "eigh", [sym, v], int(max_iter), converged, n, rotate)
  w = _diagonal(ctx, b, x, n)
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
    # Every pair of columns orthogonal to within epsilon: g_pq^2 <= eps^2 g_pp g_qq.
    x = values[0]
    gram = ctx.matmul(x, x, tx=True)
    diag = _diagonal(ctx, sb, gram, n)
    bound = Mul(ctx.const(sb, eps2), Mul(ctx.expand(diag, (n, n), (0,)),
                                         ctx.expand(diag, (n, n), (1,))))
    eye = Eq(ctx.iota(sb, (n, n), 0), ctx.iota(sb, (n, n), 1))
    ok = Or(eye, Le(Mul(gram, gram), bound))
    everywhere = Reduce(sb, [ok], [ScalarConstant(sb, True, _P.PRED)], _reducer("and", _P.PRED),
                        list(range(nb + 2)))
    return everywhere

  def rotate(ib, values, p, q):
    x, vecs = values
    xp = DynamicSlice(x, ctx.slice_indices(ib, 0, p), ctx.batch + [n, 1])
    xq = DynamicSlice(x, ctx.slice_indices(ib, 0, q), ctx.batch + [n, 1])
    alpha = ctx.sum(ib, Mul(xp, xp), (0, 1))
    beta = ctx.sum(ib, Mul(xq, xq), (0, 1))
    gamma = ctx.sum(ib, Mul(xp, xq), (0, 1))
    c, s_ = _rotation(ctx, ib, alpha, beta, gamma)
    x = _rotate(ctx, ib, x, p, q, c, s_, n, columns=True)
    vecs = _rotate(ctx, ib, vecs, p, q, c, s_, n, columns=True)
    return [x, vecs]

  w, v = _sweeps(ctx, b, "svd", [w, v], max_iter, converged, n, rotate)
  d = Sqrt(ctx.sum(b, Mul(w, w), (0,)))
  if n > 1:
    d, perm = _sort_permutation(ctx, b, d, n, descending=True)
    w, v = ctx.matmul(w, perm), ctx.matmul(v, perm)
  # u1 = w / d column by column; the QR of u1 turns its zero columns (d = 0, sorted last)
  # into an orthonormal completion and keeps the others (up to the sign fixed below).
  positive = Gt(ctx.expand(d, (n, n), (1,)), ctx.full(b, 0, (n, n)))
  safe = Select(positive, ctx.expand(d, (n, n), (1,)), ctx.full(b, 1, (n, n)))
  u1 = Select(positive, Div(w, safe), ctx.full(b, 0, (n, n)))
  q1, r1 = _householder_qr(ctx, b, u1, n, n)
  signs = _sign(ctx, b, _diagonal(ctx, b, r1, n))
  u1 = Mul(q1, ctx.expand(signs, (n, n), (1,)))
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
  """(u, d, v) with a = u diag(d) v^T: u [..., m, m] and v [..., n, n] orthogonal,
  d [..., min(m, n)] the singular values in descending order.

  Householder QR, then one-sided Jacobi rotations of R's columns until every pair is
  orthogonal to within epsilon (relative), or max_iter sweeps.
  """
  s = _matrix_operand(a, "SVD")
  b = a.builder()
  dims = list(s.dimensions())
  m, n = dims[-2:]
  ctx = _Ctx(s.element_type(), dims[:-2])
  if min(m, n) == 0:
    eye_m = ctx.eye(b, m)
    eye_n = ctx.eye(b, n)
    return eye_m, BroadcastInDim(ctx.const(b, 0), ctx.batch + [0], []), eye_n
  if m >= n:
    return _svd_tall(ctx, b, a, m, n, int(max_iter), epsilon)
  # a^T = u' d v'^T, so a = v' d u'^T.
  u, d, v = _svd_tall(ctx, b, ctx.transpose(a), n, m, int(max_iter), epsilon)
  return v, d, u


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
    col = DynamicSlice(x, ctx.slice_indices(sb, 0, k), ctx.batch + [m, 1])
    # Pivot: the first row >= k with the largest |x[row, k]|.
    candidates = Select(Ge(rows_col, k), Abs(col), ctx.full(sb, -1, (m, 1)))
    biggest = Reduce(sb, [candidates], [ctx.const(sb, -np.inf)], _reducer("max", ctx.et),
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
    col = DynamicSlice(x, ctx.slice_indices(sb, 0, k), ctx.batch + [m, 1])
    pivot = _element(ctx, sb, x, k, k)
    nonzero = Ne(pivot, ctx.const(sb, 0))
    safe = Select(nonzero, pivot, ctx.const(sb, 1))
    below = Gt(rows_col, k)
    l = Select(below, Div(col, ctx.expand(safe, (m, 1), ())), ctx.full(sb, 0, (m, 1)))
    row = DynamicSlice(x, ctx.slice_indices(sb, k, 0), ctx.batch + [1, n])
    right = Gt(ctx.iota(sb, (1, n), 1), k)
    row = Select(right, row, ctx.full(sb, 0, (1, n)))
    x = Sub(x, Mul(ctx.expand(Reshape(l, ctx.batch + [m]), (m, n), (0,)),
                   ctx.expand(Reshape(row, ctx.batch + [n]), (m, n), (1,))))
    in_col_k = And(Gt(rows, k), Eq(ctx.iota(sb, (m, n), 1), k))
    x = Select(in_col_k, ctx.expand(Reshape(l, ctx.batch + [m]), (m, n), (0,)), x)
    return [Add(k, ScalarConstant(sb, 1, _P.S32)), x, piv, p]

  _, lu, pivots, perm = _loop(b, "lu", [ScalarConstant(b, 0, _P.S32), lu, pivots, perm], cond,
                              body)
  return lu, pivots, perm

