"""Plumbing of the matrix decompositions (_ops_decomp.py): the shared context, While-loop
and Jacobi-sweep builders, pair schedules, sorting and scaling helpers.
"""
# pylint: disable=invalid-name

import functools


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
from ._ops_data import Reshape
from ._ops_data import Transpose
from ._ops_data import Tuple
from ._ops_data import While
from ._ops_elementwise import Abs
from ._ops_elementwise import Add
from ._ops_elementwise import Conj
from ._ops_elementwise import And
from ._ops_elementwise import BitcastConvertType
from ._ops_elementwise import ConvertElementType
from ._ops_elementwise import Div
from ._ops_elementwise import Eq
from ._ops_elementwise import Ge
from ._ops_elementwise import Gt
from ._ops_elementwise import Iota
from ._ops_elementwise import Lt
from ._ops_elementwise import Max
from ._ops_elementwise import Min
from ._ops_elementwise import Mul
from ._ops_elementwise import Ne
from ._ops_elementwise import Neg
from ._ops_elementwise import Not
from ._ops_elementwise import Parameter
from ._ops_elementwise import Real
from ._ops_elementwise import Rem
from ._ops_elementwise import Rsqrt
from ._ops_elementwise import ScalarConstant
from ._ops_elementwise import Select
from ._ops_elementwise import Sqrt
from ._ops_elementwise import Sub
from ._ops_elementwise import _complex_component
from ._ops_linalg import DotGeneral
from ._ops_reduce import Reduce
from ._ops_reduce import Sort
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType
_HIGHEST = [xla_data_pb2.PrecisionConfig.HIGHEST] * 2



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
  """The shape of a (batched) f32/f64/c64/c128 matrix, or a BuilderError saying what is wrong."""
  _same_builder(a)
  s = _array_shape(a)
  if s.rank() < 2:
    raise BuilderError("%s needs a matrix (rank >= 2, leading dimensions are batch "
                       "dimensions), got %s" % (opname, _shape_str(s)))
  if s.element_type() not in (_P.F32, _P.F64, _P.C64, _P.C128):
    raise BuilderError("%s needs an f32, f64, c64 or c128 matrix, got %s" % (opname,
                                                                          _shape_str(s)))
  if square and s.dimensions()[-1] != s.dimensions()[-2]:
    raise BuilderError("%s needs square matrices, got %s" % (opname, _shape_str(s)))
  return s


class _Ctx:
  """Element type and batch dimensions of one decomposition, and shape helpers.

  et is the matrices' type; rt its real type (f32 for c64); norms, eigenvalues, singular
  values and rotation angles are rt.
  """

  def __init__(self, et, batch):
    self.et = et
    self.rt = _complex_component(et)
    self.cplx = et != self.rt
    self.batch = list(batch)
    self.nb = len(batch)

  def const(self, b, value, et=None):
    et = self.et if et is None else et
    if _types.is_complex(et):
      value = complex(value)
    return ScalarConstant(b, value, et)

  def rconst(self, b, value):
    return self.const(b, value, self.rt)

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

  def conj(self, x):
    return Conj(x) if self.cplx else x

  def to_et(self, x):
    """A real (rt) array as et."""
    return ConvertElementType(x, self.et) if self.cplx else x

  def real(self, x):
    return Real(x) if self.cplx else x

  def abs2(self, x):
    """|x|^2 as rt."""
    return Real(Mul(x, Conj(x))) if self.cplx else Mul(x, x)

  def matmul(self, x, y, hx=False, hy=False):
    """Batched x @ y over the last two dimensions (x^H, y^H with hx, hy)."""
    nb = self.nb
    if hx:
      x = self.conj(x)
    if hy:
      y = self.conj(y)
    lc = nb if hx else nb + 1
    rc = nb + 1 if hy else nb
    batch = list(range(nb))
    # Full precision: a backend's default may round the operands (TF32, bf16 passes).
    return DotGeneral(x, y, (([lc], [rc]), (batch, batch)), precision_config=_HIGHEST)

  def sum(self, b, x, dims, real=False):
    """Sum over the given matrix dimensions (0, 1: the last two); real: x is rt."""
    et = self.rt if real else self.et
    return Reduce(b, [x], [self.const(b, 0, et)], _reducer("add", et),
                  [self.nb + d for d in dims])

  def transpose(self, x, conj=False):
    nb = self.nb
    x = Transpose(x, list(range(nb)) + [nb + 1, nb])
    return self.conj(x) if conj else x

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

  def column(self, b, x, k, m):
    """Column k (an s32 scalar) of x [..., m, *] as [..., m, 1]."""
    return DynamicSlice(x, self.slice_indices(b, 0, k), self.batch + [m, 1])

  def phase(self, b, x):
    """x / |x| (1 where x = 0): the sign of a real x, e^(i arg x) of a complex one."""
    if not self.cplx:
      return _sign(self, b, x)
    magnitude = Abs(x)
    nonzero = Gt(magnitude, self.rconst(b, 0))
    safe = Select(nonzero, magnitude, self.rconst(b, 1))
    return Select(nonzero, Div(x, self.to_et(safe)), self.const(b, 1))


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
  """+1 for x >= 0, -1 otherwise (x: rt)."""
  return Select(Ge(x, ctx.rconst(b, 0)), ctx.rconst(b, 1), ctx.rconst(b, -1))


def _rotation(ctx, b, app, aqq, apq):
  """(c, s) of the Jacobi rotation that zeroes apq of [[app, apq], [apq, aqq]] (all rt).

  With J = [[c, s], [-s, c]], J^T [[app, apq], [apq, aqq]] J is diagonal
  (Golub & Van Loan, Matrix Computations, the symmetric Schur decomposition of a 2x2 block).
  """
  one = ctx.rconst(b, 1)
  zero = Eq(apq, ctx.rconst(b, 0))
  safe = Select(zero, one, apq)
  tau = Div(Sub(aqq, app), Mul(ctx.rconst(b, 2), safe))
  # t = sign(tau) / (|tau| + sqrt(1 + tau^2)): the smaller root of t^2 + 2 tau t - 1 = 0;
  # for huge tau, tau^2 overflows to inf and t becomes 0, the right limit.
  t = Div(_sign(ctx, b, tau), Add(Abs(tau), Sqrt(Add(one, Mul(tau, tau)))))
  t = Select(zero, ctx.rconst(b, 0), t)
  c = Rsqrt(Add(one, Mul(t, t)))
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
    hot = Eq(ctx.iota(b, (n, n), 1), ctx.expand(partner, (n, n), (0,)))
    self.hot_pred = hot
    self.hot = ConvertElementType(hot, ctx.et)
    self.real_hot = ConvertElementType(hot, ctx.rt) if ctx.cplx else self.hot

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

  def partner_values(self, x, real=False):
    """x[..., partner(i)] for x [..., n] (et, or rt with real)."""
    ctx, n = self.ctx, self.n
    hot = self.real_hot if real else self.hot
    return ctx.sum(self.b, Mul(hot, ctx.expand(x, (n, n), (1,))), (1,), real=real)

  def rotation(self, app, aqq, apq):
    """J [..., n, n] that, for each pair p < q, makes J^H [[app, apq], [apq*, aqq]] J diagonal.

    app, aqq: [..., n] rt, apq: [..., n] et, all read at each pair's p (its first element),
    so both halves of a pair use identical values. A complex apq = |apq| e^(i phi) is first
    made real with diag(1, e^(-i phi)): J = [[c, s], [-s e^(-i phi), c e^(-i phi)]].
    """
    ctx, b, n = self.ctx, self.b, self.n
    pick = lambda x, real=False: Select(self.first, x, self.partner_values(x, real))
    app, aqq, apq = pick(app, True), pick(aqq, True), pick(apq)
    c, s = _rotation(ctx, b, app, aqq, Abs(apq) if ctx.cplx else apq)
    s = Select(self.first, s, Neg(s))
    c, s = ctx.to_et(c), ctx.to_et(s)
    if ctx.cplx:
      turn = Select(self.first, ctx.const(b, 1), Conj(ctx.phase(b, apq)))
      c, s = Mul(c, turn), Mul(s, turn)
    c = Select(self.paired, c, ctx.const(b, 1))
    s = Select(self.paired, s, ctx.const(b, 0))
    # J[i, i] = c_i, J[i, partner(i)] = s_i.
    return Add(Mul(ctx.expand(c, (n, n), (0,)), ctx.eye(b, n)),
               Mul(ctx.expand(s, (n, n), (0,)), self.hot))

  def off_diagonal_mask(self):
    """Pred [..., n, n]: the entries (p, q) and (q, p) of this round's pairs."""
    ctx, n = self.ctx, self.n
    return And(self.hot_pred, ctx.expand(self.paired, (n, n), (0,)))


def _sort_permutation(ctx, b, keys, n, descending):
  """(sorted keys, P) with P[..., i, j] = 1 where sorted position j holds old position i."""
  index = ctx.iota(b, (n,), 0)
  comparator = None
  if descending:
    sub = XlaBuilder("greater_than")
    k = Shape.scalar_shape(ctx.rt)
    i = Shape.scalar_shape(_P.S32)
    x, y = Parameter(sub, 0, k), Parameter(sub, 1, k)
    Parameter(sub, 2, i)
    Parameter(sub, 3, i)
    comparator = sub.build(Gt(x, y))
  result = Sort(b, [keys, index], comparator, dimension=-1, is_stable=True)
  sorted_keys, perm = GetTupleElement(result, 0), GetTupleElement(result, 1)
  onehot = Eq(ctx.iota(b, (n, n), 0), ctx.expand(perm, (n, n), (1,)))
  return sorted_keys, ConvertElementType(onehot, ctx.et)


def _diagonal(ctx, b, x, n, real=False):
  """The diagonal [..., n] of square x [..., n, n] (et, or rt with real)."""
  eye = Eq(ctx.iota(b, (n, n), 0), ctx.iota(b, (n, n), 1))
  zeros = ctx.full(b, 0, (n, n), ctx.rt if real else ctx.et)
  return ctx.sum(b, Select(eye, x, zeros), (1,), real=real)


def _power_of_two_scale(ctx, b, a, m, n):
  """(a / scale, scale): scale [...] (rt) the power of two of each matrix's largest |entry|.

  Norms are sums of squares, which overflow (or underflow to 0) long before the entries
  do: f32 entries of 1e20 (or 1e-25) would give inf (or zero) norms. Dividing by a power of
  two is exact. A subnormal maximum is first multiplied by 2^p (p: the mantissa bits) to
  read its exponent; zero and non-finite maxima keep scale 1.
  """
  biggest = Reduce(b, [Abs(a)], [ctx.rconst(b, 0)], _reducer("max", ctx.rt),
                   [ctx.nb, ctx.nb + 1])
  if ctx.rt == _P.F32:
    bits_type, exponent_mask, boost, tiny = _P.U32, 0x7F800000, 2.0 ** 24, 2.0 ** -126
  else:
    bits_type, exponent_mask, boost, tiny = _P.U64, 0x7FF0000000000000, 2.0 ** 53, 2.0 ** -1022
  subnormal = And(Lt(biggest, ctx.rconst(b, tiny)), Gt(biggest, ctx.rconst(b, 0)))
  biggest = Select(subnormal, Mul(biggest, ctx.rconst(b, boost)), biggest)
  exponent = And(BitcastConvertType(biggest, bits_type),
                 ScalarConstant(b, exponent_mask, bits_type))
  usable = And(Ne(exponent, ScalarConstant(b, 0, bits_type)),
               Ne(exponent, ScalarConstant(b, exponent_mask, bits_type)))
  scale = Select(usable, BitcastConvertType(exponent, ctx.rt), ctx.rconst(b, 1))
  scale = Select(subnormal, Div(scale, ctx.rconst(b, boost)), scale)
  return Div(a, ctx.to_et(ctx.expand(scale, (m, n), ()))), scale
