"""Matrix decompositions XLA's client library composes from HLO (there is no opcode for them):
QR (Householder reflections), Eigh (Jacobi rotations), SVD (QR, then one-sided Jacobi) and
LU (partial pivoting). Exported through `ops` with xla_client's names and arguments.

Leading dimensions are batch dimensions. Each factorization is a While loop: over the
columns (QR, LU; the column index is shared by the batch, so columns and rows are read with
DynamicSlice) or over Jacobi sweeps, each sweep n - 1 rounds of disjoint index pairs whose
rotations form one orthogonal matrix (applied with dots). Whatever differs per batch element
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
from ._ops_data import GetTupleElement
from ._ops_data import Pad
from ._ops_data import Reshape
from ._ops_data import Slice
from ._ops_data import Transpose
from ._ops_data import Tuple
from ._ops_data import While
from ._ops_elementwise import Abs
from ._ops_elementwise import Add
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
from ._ops_elementwise import Neg
from ._ops_elementwise import Not
from ._ops_elementwise import Or
from ._ops_elementwise import Parameter
from ._ops_elementwise import Rem
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


def _element(ctx, b, x, i, j):
  """x[..., i, j] as a batch-shaped array (i, j: s32 scalars)."""
  return Reshape(DynamicSlice(x, ctx.slice_indices(b, i, j), ctx.batch + [1, 1]), ctx.batch)


def _sweeps(ctx, b, name, state, max_iter, converged_fn, n, rotate_fn):
  """Jacobi sweeps until converged_fn(b, state) (a pred scalar) or max_iter sweeps.

  Each sweep is the n' - 1 rounds of a round-robin tournament of n' = n rounded up to even
  players (the extra one a bye): every pair p < q meets once, and the n / 2 rotations of a
  round touch disjoint pairs, so they form one orthogonal J applied with dots.
  rotate_fn(b, state, pairs) -> new state, with pairs a _Pairs for the round.
  """
  players = n + n % 2
  rounds = players - 1
  if rounds <= 0 or max_iter <= 0:
    return state

  def cond(values):
    sweep, rest = values[0], values[1:]
    more = Lt(sweep, ScalarConstant(sweep.builder(), int(max_iter), _P.S32))
    return And(more, Not(converged_fn(sweep.builder(), rest)))

  def sweep_body(values):
    sb = values[0].builder()
    sweep, rest = values[0], values[1:]

    def round_cond(inner):
      return Lt(inner[0], ScalarConstant(inner[0].builder(), rounds, _P.S32))

    def round_body(inner):
      ib = inner[0].builder()
      r = inner[0]
      new = rotate_fn(ib, inner[1:], _Pairs.of_round(ctx, ib, n, rounds, r))
      return [Add(r, ScalarConstant(ib, 1, _P.S32))] + list(new)

    rest = _loop(sb, name + "_rounds", [ScalarConstant(sb, 0, _P.S32)] + list(rest), round_cond,
                 round_body)[1:]
    return [Add(sweep, ScalarConstant(sb, 1, _P.S32))] + rest

  out = _loop(b, name + "_sweeps", [ScalarConstant(b, 0, _P.S32)] + list(state), cond,
              sweep_body)
  return out[1:]


class _Pairs:
  """The disjoint index pairs of one round, and the rotation J that treats them all."""

  def __init__(self, ctx, b, n, partner):
    self.ctx, self.b, self.n = ctx, b, n
    i = ctx.iota(b, (n,), 0)
    self.paired = Ne(partner, i)    # [..., n] pred: i has a partner this round
    self.first = Lt(i, partner)     # [..., n] pred: i < its partner
    # [..., n, n]: hot[i, j] = 1 where j is i's partner.
    self.hot = ConvertElementType(Eq(ctx.iota(b, (n, n), 1), ctx.expand(partner, (n, n), (0,))),
                                  ctx.et)

  @staticmethod
  def of_round(ctx, b, n, rounds, r):
    """Round r (an s32 scalar) of the circle method for rounds + 1 players: player i < rounds
    meets j = (r - i) mod rounds, or the last player when j = i; players >= n sit out."""
    i = Iota(b, _P.S32, n)
    m = ScalarConstant(b, rounds, _P.S32)
    j = Rem(Add(Sub(r, i), m), m)
    last = Rem(Mul(r, ScalarConstant(b, (rounds + 1) // 2, _P.S32)), m)  # 2 last = r mod m
    partner = Select(Eq(i, m), last, Select(Eq(j, i), m, j))
    partner = Select(Ge(partner, ScalarConstant(b, n, _P.S32)), i, partner)
    partner = BroadcastInDim(partner, ctx.batch + [n], [ctx.nb])
    return _Pairs(ctx, b, n, partner)

  def partner_values(self, x):
    """x[..., partner(i)] for x [..., n]."""
    n = self.n
    return self.ctx.sum(self.b, Mul(self.hot, self.ctx.expand(x, (n, n), (1,))), (1,))

  def rotation(self, app, aqq, apq):
    """J [..., n, n] applying, for each pair p < q, the rotation of _rotation(app, aqq, apq).

    The arguments are [..., n] arrays read at each pair's p (first) element; the q element's
    entries are ignored, so both halves of a pair use identical (c, s).
    """
    ctx, b, n = self.ctx, self.b, self.n
    pick = lambda x: Select(self.first, x, self.partner_values(x))
    c, s = _rotation(ctx, b, pick(app), pick(aqq), pick(apq))
    c = Select(self.paired, c, ctx.const(b, 1))
    s = Select(self.paired, Select(self.first, s, Neg(s)), ctx.const(b, 0))
    # J[i, i] = c_i, J[i, partner(i)] = s_i: J[p, q] = s, J[q, p] = -s.
    return Add(Mul(ctx.expand(c, (n, n), (0,)), ctx.eye(b, n)),
               Mul(ctx.expand(s, (n, n), (0,)), self.hot))

  def off_diagonal_mask(self):
    """Pred [..., n, n]: the entries (p, q) and (q, p) of this round's pairs."""
    ctx, n = self.ctx, self.n
    return And(Gt(self.hot, ctx.full(self.b, 0, (n, n))),
               ctx.expand(self.paired, (n, n), (0,)))


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

  def rotate(ib, values, pair):
    x, vecs = values
    diag = _diagonal(ctx, ib, x, n)
    j = pair.rotation(diag, pair.partner_values(diag), ctx.sum(ib, Mul(x, pair.hot), (1,)))
    x = ctx.matmul(ctx.matmul(j, x, tx=True), j)
    # The rotations zero their pairs' entries (up to rounding: make them exact zeros).
    x = Select(pair.off_diagonal_mask(), ctx.full(ib, 0, (n, n)), x)
    return [x, ctx.matmul(vecs, j)]

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

  def rotate(ib, values, pair):
    x, vecs = values
    norms = ctx.sum(ib, Mul(x, x), (0,))
    # gamma_i = x_i . x_partner(i): x @ hot^T holds each column's partner column.
    gamma = ctx.sum(ib, Mul(x, ctx.matmul(x, pair.hot, ty=True)), (0,))
    j = pair.rotation(norms, pair.partner_values(norms), gamma)
    return [ctx.matmul(x, j), ctx.matmul(vecs, j)]

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

