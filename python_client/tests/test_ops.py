"""Every op through the builder, run on the server and compared with numpy.

Each computation runs twice: compiled from its HloModuleProto and from as_hlo_text(), so
the text printer is checked against the server's parser as well.
"""

import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

F32 = np.float32
S = xc.Shape.array_shape


def scalar(dtype):
  return xc.Shape.scalar_shape(dtype)


def check(client, builder, args, expected, rtol=1e-5, atol=1e-6, exact=False):
  comp = builder.build()
  results = []
  for form in (comp, comp.as_hlo_text()):
    exe = client.compile(form)
    results.append(client.execute_and_transfer(exe, list(args)))
  for got in results:
    _compare(got, expected, rtol, atol, exact)
  return results[0]


def _compare(got, expected, rtol, atol, exact):
  if isinstance(expected, tuple):
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
      _compare(g, e, rtol, atol, exact)
    return
  expected = np.asarray(expected)
  got = np.asarray(got)
  assert got.shape == expected.shape, (got.shape, expected.shape)
  assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
  if exact or expected.dtype.kind in "biu":
    np.testing.assert_array_equal(got, expected)
  else:
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def binary_reducer(name, dtype, fn=ops.Add):
  b = xc.XlaBuilder(name)
  fn(ops.Parameter(b, 0, scalar(dtype)), ops.Parameter(b, 1, scalar(dtype)))
  return b.build()


RNG = np.random.RandomState(0)
X = RNG.uniform(-2, 2, (3, 4)).astype(F32)
Y = RNG.uniform(0.5, 2, (3, 4)).astype(F32)
POS = RNG.uniform(0.1, 0.9, (3, 4)).astype(F32)


# --- elementwise ------------------------------------------------------------------------

BINARY = [
    (ops.Add, np.add), (ops.Sub, np.subtract), (ops.Mul, np.multiply), (ops.Div, np.divide),
    (ops.Max, np.maximum), (ops.Min, np.minimum), (ops.Pow, lambda a, b: np.abs(a) ** b),
    (ops.Rem, np.fmod), (ops.Atan2, np.arctan2),
]


@pytest.mark.parametrize("op,ref", BINARY, ids=lambda x: getattr(x, "__name__", "ref"))
def test_binary_float(client, op, ref):
  b = xc.XlaBuilder("binary")
  x = ops.Parameter(b, 0, S(F32, X.shape))
  y = ops.Parameter(b, 1, S(F32, Y.shape))
  if op is ops.Pow:
    x = ops.Abs(x)
  op(x, y)
  check(client, b, [X, Y], ref(X, Y).astype(F32), rtol=1e-5)


UNARY = [
    (ops.Neg, np.negative, X), (ops.Abs, np.abs, X), (ops.Sign, np.sign, X),
    (ops.Floor, np.floor, X), (ops.Ceil, np.ceil, X), (ops.Exp, np.exp, X),
    (ops.Expm1, np.expm1, X), (ops.Log, np.log, Y), (ops.Log1p, np.log1p, Y),
    (ops.Sqrt, np.sqrt, Y), (ops.Rsqrt, lambda v: 1 / np.sqrt(v), Y), (ops.Cbrt, np.cbrt, X),
    (ops.Cos, np.cos, X), (ops.Sin, np.sin, X), (ops.Tan, np.tan, POS), (ops.Tanh, np.tanh, X),
    (ops.Cosh, np.cosh, X), (ops.Sinh, np.sinh, X), (ops.Acos, np.arccos, POS),
    (ops.Asin, np.arcsin, POS), (ops.Atan, np.arctan, X), (ops.Acosh, np.arccosh, Y + 1),
    (ops.Asinh, np.arcsinh, X), (ops.Atanh, np.arctanh, POS),
    (ops.Logistic, lambda v: 1 / (1 + np.exp(-v)), X), (ops.Square, np.square, X),
    (ops.Reciprocal, np.reciprocal, Y), (ops.RoundNearestEven, np.round, X * 3),
    (ops.Round, lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5), np.array([0.5, 1.5, -2.5, 2.4], F32)),
    (ops.Erf, None, X), (ops.Copy, np.copy, X),
]


@pytest.mark.parametrize("op,ref,arg", UNARY, ids=lambda x: getattr(x, "__name__", "_"))
def test_unary_float(client, op, ref, arg):
  if ref is None:
    import math  # pylint: disable=g-import-not-at-top
    ref = np.vectorize(math.erf)
  b = xc.XlaBuilder("unary")
  op(ops.Parameter(b, 0, S(F32, arg.shape)))
  check(client, b, [arg], ref(arg).astype(F32), rtol=2e-5, atol=2e-6)


def test_is_finite_and_total_order_compare(client):
  v = np.array([1, np.inf, -np.inf, np.nan, 0], F32)
  b = xc.XlaBuilder("finite")
  p = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Tuple(b, [ops.IsFinite(p), ops.EqTotalOrder(p, p), ops.Eq(p, p)])
  check(client, b, [v], (np.isfinite(v), np.ones(5, bool), v == v))


@pytest.mark.parametrize("name,ref", [("Eq", np.equal), ("Ne", np.not_equal), ("Ge", np.greater_equal),
                                      ("Gt", np.greater), ("Le", np.less_equal), ("Lt", np.less)])
def test_comparisons(client, name, ref):
  a = np.array([1, 2, 3, -4], np.int32)
  c = np.array([1, 3, 2, -4], np.int32)
  b = xc.XlaBuilder("cmp")
  getattr(ops, name)(ops.Parameter(b, 0, S(np.int32, (4,))), ops.Parameter(b, 1, S(np.int32, (4,))))
  check(client, b, [a, c], ref(a, c))


def test_integer_and_logical_ops(client):
  a = np.array([12, -7, 255, 0], np.int32)
  c = np.array([3, 2, 1, 5], np.int32)
  b = xc.XlaBuilder("ints")
  x = ops.Parameter(b, 0, S(np.int32, (4,)))
  y = ops.Parameter(b, 1, S(np.int32, (4,)))
  ops.Tuple(b, [ops.And(x, y), ops.Or(x, y), ops.Xor(x, y), ops.Not(x), ops.ShiftLeft(x, y),
                ops.ShiftRightArithmetic(x, y), ops.ShiftRightLogical(x, y), ops.Clz(x),
                ops.PopulationCount(x), ops.Div(x, y), ops.Rem(x, y), ops.Abs(x), ops.Neg(x)])
  u = a.view(np.uint32)
  popcount = np.array([bin(int(v)).count("1") for v in u], np.int32)
  clz = np.array([32 - int(v).bit_length() for v in u], np.int32)
  expected = (a & c, a | c, a ^ c, ~a, a << c, a >> c, (u >> c.astype(np.uint32)).view(np.int32),
              clz, popcount, np.trunc(a / c).astype(np.int32), np.fmod(a, c), np.abs(a), -a)
  check(client, b, [a, c], expected)


def test_pred_ops(client):
  a = np.array([True, False, True, False])
  c = np.array([True, True, False, False])
  b = xc.XlaBuilder("preds")
  x = ops.Parameter(b, 0, S(np.bool_, (4,)))
  y = ops.Parameter(b, 1, S(np.bool_, (4,)))
  ops.Tuple(b, [ops.And(x, y), ops.Or(x, y), ops.Xor(x, y), ops.Not(x)])
  check(client, b, [a, c], (a & c, a | c, a ^ c, ~a))


def test_complex_ops(client):
  re = np.array([1, -2, 3], F32)
  im = np.array([0.5, 2, -1], F32)
  z = re + 1j * im
  b = xc.XlaBuilder("complex")
  c = ops.Complex(ops.Parameter(b, 0, S(F32, (3,))), ops.Parameter(b, 1, S(F32, (3,))))
  ops.Tuple(b, [c, ops.Real(c), ops.Imag(c), ops.Abs(c), ops.Conj(c), ops.Mul(c, c),
                ops.Exp(c)])
  check(client, b, [re, im], (z.astype(np.complex64), re, im, np.abs(z).astype(F32),
                              np.conj(z).astype(np.complex64), (z * z).astype(np.complex64),
                              np.exp(z).astype(np.complex64)), rtol=1e-5)


def test_implicit_broadcasting(client):
  m = np.arange(6, dtype=F32).reshape(2, 3)
  row = np.array([10, 20, 30], F32)
  col = np.array([100, 200], F32)
  b = xc.XlaBuilder("bcast")
  x = ops.Parameter(b, 0, S(F32, (2, 3)))
  r = ops.Parameter(b, 1, S(F32, (3,)))
  c = ops.Parameter(b, 2, S(F32, (2,)))
  deg = ops.Reshape(c, [2, 1])
  ops.Tuple(b, [ops.Add(x, r, broadcast_dimensions=[1]), ops.Add(x, c, broadcast_dimensions=[0]),
                ops.Mul(x, ops.Constant(b, F32(2))), ops.Add(x, deg),
                x + 1.0, 2.0 * x, -x])
  check(client, b, [m, row, col], (m + row, m + col[:, None], 2 * m, m + col[:, None], m + 1,
                                   2 * m, -m))


def test_select_and_clamp(client):
  p = np.array([True, False, True])
  a = np.array([1, 2, 3], F32)
  c = np.array([-1, -2, -3], F32)
  b = xc.XlaBuilder("select")
  pp = ops.Parameter(b, 0, S(np.bool_, (3,)))
  x = ops.Parameter(b, 1, S(F32, (3,)))
  y = ops.Parameter(b, 2, S(F32, (3,)))
  ops.Tuple(b, [ops.Select(pp, x, y),
                ops.Clamp(ops.Constant(b, F32(-1.5)), y, ops.Constant(b, F32(1.5))),
                ops.Select(ops.Constant(b, True), x, y)])
  check(client, b, [p, a, c], (np.where(p, a, c), np.clip(c, -1.5, 1.5), a))


def test_convert_and_bitcast(client):
  v = np.array([1.7, -2.2, 3.5], F32)
  b = xc.XlaBuilder("convert")
  x = ops.Parameter(b, 0, S(F32, (3,)))
  ops.Tuple(b, [ops.ConvertElementType(x, xc.PrimitiveType.S32),
                ops.ConvertElementType(x, np.float64),
                ops.BitcastConvertType(x, xc.PrimitiveType.U32),
                ops.BitcastConvertType(x, xc.PrimitiveType.U8),
                ops.ReducePrecision(x, 5, 10)])
  check(client, b, [v], (v.astype(np.int32), v.astype(np.float64), v.view(np.uint32),
                         v.view(np.uint8).reshape(3, 4), v.astype(np.float16).astype(F32)))


# --- data movement ------------------------------------------------------------------------

def test_constants_iota_and_broadcasts(client):
  b = xc.XlaBuilder("shapes")
  ops.Tuple(b, [
      ops.Constant(b, np.arange(6, dtype=np.int64).reshape(2, 3)),
      ops.Constant(b, np.array([True, False])),
      ops.ConstantLiteral(b, xc.Literal.from_array(np.arange(4, dtype=np.int16).reshape(2, 2),
                                                   minor_to_major=[0, 1])),
      ops.Iota(b, xc.PrimitiveType.S32, 5),
      ops.Iota(b, S(F32, (2, 3)), 1),
      ops.Broadcast(ops.Constant(b, np.array([1, 2], np.int32)), [3]),
      ops.BroadcastInDim(ops.Constant(b, np.array([1, 2], np.int32)), [2, 3], [0]),
      ops.BroadcastInDim(ops.Constant(b, np.array([[5]], np.int32)), [2, 2], [0, 1]),
  ])
  check(client, b, [], (np.arange(6).reshape(2, 3), np.array([True, False]),
                        np.arange(4, dtype=np.int16).reshape(2, 2), np.arange(5, dtype=np.int32),
                        np.tile(np.arange(3, dtype=F32), (2, 1)),
                        np.tile(np.array([1, 2], np.int32), (3, 1)),
                        np.repeat(np.array([[1], [2]], np.int32), 3, axis=1),
                        np.full((2, 2), 5, np.int32)))


def test_reshape_transpose_rev_slice(client):
  v = np.arange(24, dtype=F32).reshape(2, 3, 4)
  b = xc.XlaBuilder("move")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Tuple(b, [ops.Reshape(x, [6, 4]), ops.Reshape(x, [2, 0, 1], [4, 6]),
                ops.Transpose(x, [2, 0, 1]), ops.Rev(x, [0, 2]),
                ops.Slice(x, [0, 1, 0], [2, 3, 4], [1, 1, 2]), ops.SliceInDim(x, 1, 4, 2, 2),
                ops.Collapse(x, [0, 1])])
  check(client, b, [v], (v.reshape(6, 4), v.transpose(2, 0, 1).reshape(4, 6), v.transpose(2, 0, 1),
                         v[::-1, :, ::-1], v[:, 1:3, ::2], v[:, :, 1:4:2], v.reshape(6, 4)))


def test_dynamic_slice_and_update(client):
  v = np.arange(20, dtype=np.int32).reshape(4, 5)
  u = np.full((2, 2), -1, np.int32)
  b = xc.XlaBuilder("dyn")
  x = ops.Parameter(b, 0, S(np.int32, v.shape))
  upd = ops.Parameter(b, 1, S(np.int32, u.shape))
  i = ops.Parameter(b, 2, scalar(np.int32))
  j = ops.Constant(b, np.int32(4))  # clamped to 3 as in XLA
  ops.Tuple(b, [ops.DynamicSlice(x, [i, j], [2, 2]), ops.DynamicUpdateSlice(x, upd, [i, i]),
                ops.DynamicSlice(x, ops.Constant(b, np.array([0, 1], np.int32)), [1, 3])])
  w = v.copy()
  w[1:3, 1:3] = -1
  check(client, b, [v, u, np.int32(1)], (v[1:3, 3:5], w, v[0:1, 1:4]))


def test_concat_and_pad(client):
  a = np.arange(6, dtype=F32).reshape(2, 3)
  c = np.arange(4, dtype=F32).reshape(2, 2)
  b = xc.XlaBuilder("concat")
  x = ops.Parameter(b, 0, S(F32, a.shape))
  y = ops.Parameter(b, 1, S(F32, c.shape))
  zero = ops.Constant(b, F32(-1))
  ops.Tuple(b, [ops.ConcatInDim(b, [x, y, x], 1),
                ops.Pad(x, zero, xc.make_padding_config([(1, 0, 0), (0, 2, 1)])),
                ops.Pad(x, zero, [(0, 0, 0), (-1, 0, 0)])])
  padded = np.full((3, 7), -1, F32)
  padded[1:, 0:5:2] = a
  check(client, b, [a, c], (np.concatenate([a, c, a], 1), padded, a[:, 1:]))


def test_tuple_and_get_tuple_element(client):
  b = xc.XlaBuilder("tuple")
  x = ops.Parameter(b, 0, S(F32, (2,)))
  t = ops.Tuple(b, [x, ops.Tuple(b, [ops.Neg(x)])])
  ops.GetTupleElement(ops.GetTupleElement(t, 1), 0)
  check(client, b, [np.array([1, 2], F32)], np.array([-1, -2], F32))


def test_tuple_parameter(client):
  b = xc.XlaBuilder("tuple_param")
  shape = xc.Shape.tuple_shape([S(F32, (2,)), scalar(np.int32)])
  p = ops.Parameter(b, 0, shape)
  ops.Mul(ops.GetTupleElement(p, 0), ops.ConvertElementType(ops.GetTupleElement(p, 1), F32))
  check(client, b, [(np.array([1, 2], F32), np.int32(3))], np.array([3, 6], F32))


# --- reductions -----------------------------------------------------------------------------

def test_reduce(client):
  v = np.arange(12, dtype=F32).reshape(3, 4)
  add = binary_reducer("add", F32)
  mx = binary_reducer("max", F32, ops.Max)
  b = xc.XlaBuilder("reduce")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  zero = ops.Constant(b, F32(0))
  ops.Tuple(b, [ops.Reduce(b, [x], [zero], add, [1]), ops.Reduce(b, [x], [zero], add, [0, 1]),
                ops.Reduce(b, x, ops.Constant(b, F32(-np.inf)), mx, [0])])
  check(client, b, [v], (v.sum(1), v.sum(), v.max(0)))


def test_variadic_reduce_argmax(client):
  v = np.array([[1, 9, 3], [7, 2, 8]], F32)
  sb = xc.XlaBuilder("argmax")
  av, ai = ops.Parameter(sb, 0, scalar(F32)), ops.Parameter(sb, 1, scalar(np.int32))
  bv, bi = ops.Parameter(sb, 2, scalar(F32)), ops.Parameter(sb, 3, scalar(np.int32))
  take_a = ops.Ge(av, bv)
  ops.Tuple(sb, [ops.Select(take_a, av, bv), ops.Select(take_a, ai, bi)])
  reducer = sb.build()
  b = xc.XlaBuilder("reduce2")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Reduce(b, [x, ops.Iota(b, S(np.int32, v.shape), 1)],
             [ops.Constant(b, F32(-np.inf)), ops.Constant(b, np.int32(0))], reducer, [1])
  check(client, b, [v], (v.max(1), v.argmax(1).astype(np.int32)))


def test_reduce_window(client):
  v = np.arange(16, dtype=F32).reshape(4, 4)
  add = binary_reducer("add", F32)
  mx = binary_reducer("max", F32, ops.Max)
  b = xc.XlaBuilder("rw")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Tuple(b, [
      ops.ReduceWindowWithGeneralPadding(x, ops.Constant(b, F32(-np.inf)), mx, [2, 2], [2, 2],
                                         [], [], [(0, 0), (0, 0)]),
      ops.ReduceWindowWithGeneralPadding(x, ops.Constant(b, F32(0)), add, [2, 1], [1, 1],
                                         [1, 1], [1, 1], [(1, 0), (0, 0)]),
      ops.ReduceWindow(x, ops.Constant(b, F32(0)), add, [3, 3], [1, 1], xc.PaddingType.SAME),
  ])
  pooled = v.reshape(2, 2, 2, 2).max(axis=(1, 3))
  padded = np.vstack([np.zeros((1, 4), F32), v])
  sums = padded[:-1] + padded[1:]
  p = np.pad(v, 1)
  same = np.array([[p[i:i + 3, j:j + 3].sum() for j in range(4)] for i in range(4)], F32)
  check(client, b, [v], (pooled, sums, same))


def test_select_and_scatter(client):
  v = np.array([[1, 5, 2, 0], [3, 4, 8, 1]], F32)
  src = np.array([[10, 20]], F32)
  ge = binary_reducer("ge", F32, ops.Ge)
  add = binary_reducer("add", F32)
  b = xc.XlaBuilder("sas")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  s = ops.Parameter(b, 1, S(F32, src.shape))
  ops.SelectAndScatterWithGeneralPadding(x, ge, [2, 2], [2, 2], [(0, 0), (0, 0)], s,
                                         ops.Constant(b, F32(0)), add)
  expected = np.zeros_like(v)
  expected[0, 1] = 10
  expected[1, 2] = 20
  check(client, b, [v, src], expected)


def test_map(client):
  v = np.arange(6, dtype=F32).reshape(2, 3)
  sb = xc.XlaBuilder("f")
  p = ops.Parameter(sb, 0, scalar(F32))
  q = ops.Parameter(sb, 1, scalar(F32))
  ops.Add(ops.Mul(p, p), q)
  b = xc.XlaBuilder("map")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Map(b, [x, x], sb.build(), [0, 1])
  check(client, b, [v], v * v + v)


# --- linear algebra ---------------------------------------------------------------------------

def test_dot_and_dot_general(client):
  a = RNG.rand(3, 4).astype(F32)
  c = RNG.rand(4, 5).astype(F32)
  bt = RNG.rand(2, 3, 4).astype(F32)
  ct = RNG.rand(2, 4, 5).astype(F32)
  vec = RNG.rand(4).astype(F32)
  b = xc.XlaBuilder("dot")
  x, y = ops.Parameter(b, 0, S(F32, a.shape)), ops.Parameter(b, 1, S(F32, c.shape))
  xb, yb = ops.Parameter(b, 2, S(F32, bt.shape)), ops.Parameter(b, 3, S(F32, ct.shape))
  v = ops.Parameter(b, 4, S(F32, vec.shape))
  ops.Tuple(b, [ops.Dot(x, y), ops.Dot(x, v), ops.Dot(v, v),
                ops.DotGeneral(xb, yb, (([2], [1]), ([0], [0]))),
                ops.DotGeneral(x, y, xc.make_dot_dimension_numbers((([1], [0]), ([], []))),
                               precision_config=[xc.PrecisionConfig.HIGHEST] * 2),
                ops.Dot(x, y, preferred_element_type=np.float64)])
  check(client, b, [a, c, bt, ct, vec],
        (a @ c, a @ vec, np.dot(vec, vec).astype(F32), np.einsum("bij,bjk->bik", bt, ct), a @ c,
         (a.astype(np.float64) @ c.astype(np.float64))), rtol=1e-5)


def _conv_ref(lhs, rhs, stride, pad):
  # NCHW x OIHW -> NCHW
  n, ci, h, w = lhs.shape
  co, _, kh, kw = rhs.shape
  lp = np.pad(lhs, ((0, 0), (0, 0), pad[0], pad[1]))
  oh = (lp.shape[2] - kh) // stride[0] + 1
  ow = (lp.shape[3] - kw) // stride[1] + 1
  out = np.zeros((n, co, oh, ow), np.float64)
  for i in range(oh):
    for j in range(ow):
      patch = lp[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
      out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, rhs)
  return out.astype(F32)


def test_conv_general_dilated(client):
  lhs = RNG.rand(2, 3, 5, 5).astype(F32)
  rhs = RNG.rand(4, 3, 3, 3).astype(F32)
  b = xc.XlaBuilder("conv")
  x, k = ops.Parameter(b, 0, S(F32, lhs.shape)), ops.Parameter(b, 1, S(F32, rhs.shape))
  nhwc = ops.Transpose(x, [0, 2, 3, 1])
  hwio = ops.Transpose(k, [2, 3, 1, 0])
  ops.Tuple(b, [
      ops.ConvGeneralDilated(x, k, [1, 1], [(1, 1), (1, 1)], [], [], None),
      ops.ConvGeneralDilated(x, k, [2, 2], xc.PaddingType.VALID, [1, 1], [1, 1],
                             xc.make_convolution_dimension_numbers(None, 2)),
      ops.ConvGeneralDilated(nhwc, hwio, [1, 1], [(0, 0), (0, 0)], [], [],
                             ("NHWC", "HWIO", "NHWC")),
  ])
  check(client, b, [lhs, rhs], (_conv_ref(lhs, rhs, (1, 1), ((1, 1), (1, 1))),
                                _conv_ref(lhs, rhs, (2, 2), ((0, 0), (0, 0))),
                                _conv_ref(lhs, rhs, (1, 1), ((0, 0), (0, 0))).transpose(0, 2, 3, 1)),
        rtol=1e-4)


def test_grouped_conv(client):
  lhs = RNG.rand(1, 4, 4, 4).astype(F32)
  rhs = RNG.rand(4, 2, 1, 1).astype(F32)
  b = xc.XlaBuilder("gconv")
  ops.ConvGeneralDilated(ops.Parameter(b, 0, S(F32, lhs.shape)), ops.Parameter(b, 1, S(F32, rhs.shape)),
                         [1, 1], [(0, 0), (0, 0)], [], [], None, feature_group_count=2)
  expected = np.concatenate([
      _conv_ref(lhs[:, :2], rhs[:2], (1, 1), ((0, 0), (0, 0))),
      _conv_ref(lhs[:, 2:], rhs[2:], (1, 1), ((0, 0), (0, 0)))], axis=1)
  check(client, b, [lhs, rhs], expected, rtol=1e-5)


def test_cholesky_and_triangular_solve(client):
  m = RNG.rand(4, 4)
  spd = (m @ m.T + 4 * np.eye(4)).astype(F32)
  rhs = RNG.rand(4, 2).astype(F32)
  b = xc.XlaBuilder("linalg")
  a = ops.Parameter(b, 0, S(F32, spd.shape))
  r = ops.Parameter(b, 1, S(F32, rhs.shape))
  low = ops.Cholesky(a, lower=True)
  ops.Tuple(b, [low, ops.TriangularSolve(low, r, True, True, False, False)])
  lower = np.linalg.cholesky(spd.astype(np.float64))
  check(client, b, [spd, rhs], (lower.astype(F32), np.linalg.solve(lower, rhs).astype(F32)),
        rtol=1e-4, atol=1e-5)


def test_fft(client):
  v = RNG.rand(8).astype(F32)
  z = (RNG.rand(8) + 1j * RNG.rand(8)).astype(np.complex64)
  b = xc.XlaBuilder("fft")
  x = ops.Parameter(b, 0, S(F32, (8,)))
  c = ops.Parameter(b, 1, S(np.complex64, (8,)))
  ops.Tuple(b, [ops.Fft(x, xc.FftType.RFFT, [8]), ops.Fft(c, xc.FftType.FFT, [8]),
                ops.Fft(c, xc.FftType.IFFT, [8]),
                ops.Fft(ops.Fft(x, xc.FftType.RFFT, [8]), xc.FftType.IRFFT, [8])])
  check(client, b, [v, z], (np.fft.rfft(v).astype(np.complex64), np.fft.fft(z).astype(np.complex64),
                            np.fft.ifft(z).astype(np.complex64), v), rtol=1e-4, atol=1e-5)


# --- gather / scatter / sort ------------------------------------------------------------------

def test_gather(client):
  v = np.arange(12, dtype=F32).reshape(4, 3)
  idx = np.array([[2], [0], [3]], np.int32)
  dn = xc.GatherDimensionNumbers(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0],
                                 index_vector_dim=1)
  b = xc.XlaBuilder("gather")
  ops.Gather(ops.Parameter(b, 0, S(F32, v.shape)), ops.Parameter(b, 1, S(np.int32, idx.shape)),
             dn, [1, 3])
  check(client, b, [v, idx], v[idx[:, 0]])


def test_scatter(client):
  v = np.zeros((4, 3), F32)
  idx = np.array([[1], [3], [1]], np.int32)
  upd = np.ones((3, 3), F32)
  dn = xc.ScatterDimensionNumbers(update_window_dims=[1], inserted_window_dims=[0],
                                  scatter_dims_to_operand_dims=[0], index_vector_dim=1)
  b = xc.XlaBuilder("scatter")
  ops.Scatter(ops.Parameter(b, 0, S(F32, v.shape)), ops.Parameter(b, 1, S(np.int32, idx.shape)),
              ops.Parameter(b, 2, S(F32, upd.shape)), binary_reducer("add", F32), dn)
  expected = v.copy()
  np.add.at(expected, idx[:, 0], upd)
  check(client, b, [v, idx, upd], expected)


def test_sort_and_topk(client):
  keys = np.array([[3, 1, 2], [0, -5, 7]], F32)
  vals = np.array([[10, 20, 30], [40, 50, 60]], np.int32)
  b = xc.XlaBuilder("sort")
  k = ops.Parameter(b, 0, S(F32, keys.shape))
  v = ops.Parameter(b, 1, S(np.int32, vals.shape))
  cb = xc.XlaBuilder("gt")
  gt = ops.Gt(ops.Parameter(cb, 0, scalar(F32)), ops.Parameter(cb, 1, scalar(F32)))
  ops.Parameter(cb, 2, scalar(np.int32))
  ops.Parameter(cb, 3, scalar(np.int32))
  descending = cb.build(gt)
  ops.Tuple(b, [ops.Sort(b, [k]), ops.Sort(b, [k, v], dimension=1, is_stable=True),
                ops.Sort(b, [k, v], comparator=descending, dimension=1),
                ops.TopK(k, 2)])
  order = np.argsort(keys, axis=1)
  rev = np.argsort(-keys, axis=1)
  check(client, b, [keys, vals],
        (np.sort(keys, 1), (np.take_along_axis(keys, order, 1), np.take_along_axis(vals, order, 1)),
         (np.take_along_axis(keys, rev, 1), np.take_along_axis(vals, rev, 1)),
         (np.take_along_axis(keys, rev, 1)[:, :2], rev[:, :2].astype(np.int32))))


def test_approx_topk_is_exact_off_tpu(client):
  keys = np.array([[3, 1, 2, 9, -4, 5], [0, -5, 7, 7, 1, 2]], F32)
  idx = np.tile(np.arange(6, dtype=np.int32), (2, 1))
  b = xc.XlaBuilder("approx_topk")
  k = ops.Parameter(b, 0, S(F32, keys.shape))
  i = ops.Parameter(b, 1, S(np.int32, idx.shape))
  cb = xc.XlaBuilder("gt")
  gt = ops.Gt(ops.Parameter(cb, 0, scalar(F32)), ops.Parameter(cb, 1, scalar(F32)))
  ops.Parameter(cb, 2, scalar(np.int32))
  ops.Parameter(cb, 3, scalar(np.int32))
  greater = cb.build(gt)
  init = [ops.Constant(b, np.float32(-np.inf)), ops.Constant(b, np.int32(-1))]
  ops.Tuple(b, [ops.ApproxTopK(b, [k, i], init, 3, 1, greater, recall_target=0.9),
                ops.ApproxTopKFallback(b, [k, i], init, 2, 1, greater)])
  rev = np.argsort(-keys, axis=1, kind="stable")
  check(client, b, [keys, idx],
        ((np.take_along_axis(keys, rev, 1)[:, :3], rev[:, :3].astype(np.int32)),
         (np.take_along_axis(keys, rev, 1)[:, :2], rev[:, :2].astype(np.int32))))


@pytest.mark.parametrize("kwargs,message", [
    ({"aggregate_to_topk": False}, "aggregate_to_topk=False"),
    ({"top_k": 7}, "top_k=7 is larger"),
    ({"recall_target": 0.0}, "recall_target"),
])
def test_approx_topk_errors(kwargs, message):
  b = xc.XlaBuilder("approx_topk_bad")
  k = ops.Parameter(b, 0, S(F32, (2, 6)))
  cb = xc.XlaBuilder("gt")
  ops.Gt(ops.Parameter(cb, 0, scalar(F32)), ops.Parameter(cb, 1, scalar(F32)))
  args = {"top_k": 2, "reduction_dim": 1, "comparator": cb.build()}
  args.update(kwargs)
  ops.ApproxTopK(b, [k], [ops.Constant(b, np.float32(0))], **args)
  with pytest.raises(xc.XlaRuntimeError, match=message):
    b.build()


# --- control flow ----------------------------------------------------------------------------

def test_while_loop(client):
  cb = xc.XlaBuilder("cond")
  p = ops.Parameter(cb, 0, xc.Shape.tuple_shape([scalar(np.int32), scalar(F32)]))
  ops.Lt(ops.GetTupleElement(p, 0), ops.Constant(cb, np.int32(10)))
  bb = xc.XlaBuilder("body")
  p = ops.Parameter(bb, 0, xc.Shape.tuple_shape([scalar(np.int32), scalar(F32)]))
  i, acc = ops.GetTupleElement(p, 0), ops.GetTupleElement(p, 1)
  ops.Tuple(bb, [ops.Add(i, ops.Constant(bb, np.int32(1))),
                 ops.Add(acc, ops.ConvertElementType(i, F32))])
  b = xc.XlaBuilder("loop")
  init = ops.Tuple(b, [ops.Constant(b, np.int32(0)), ops.Parameter(b, 0, scalar(F32))])
  ops.GetTupleElement(ops.While(cb.build(), bb.build(), init), 1)
  check(client, b, [F32(0.5)], F32(45.5))


def _unary_comp(name, fn, dtype=F32):
  b = xc.XlaBuilder(name)
  fn(ops.Parameter(b, 0, scalar(dtype)))
  return b.build()


def test_conditional_forms(client):
  neg = _unary_comp("neg", ops.Neg)
  dbl = _unary_comp("dbl", lambda x: ops.Add(x, x))
  sq = _unary_comp("sq", lambda x: ops.Mul(x, x))
  b = xc.XlaBuilder("cond")
  idx = ops.Parameter(b, 0, scalar(np.int32))
  pred = ops.Parameter(b, 1, scalar(np.bool_))
  x = ops.Parameter(b, 2, scalar(F32))
  ops.Tuple(b, [ops.Conditional(idx, [neg, dbl, sq], [x, x, x]),
                ops.Conditional(pred, x, neg, x, dbl)])
  for i, p, want in [(0, True, (-3, -3)), (1, False, (6, 6)), (2, True, (9, -3)),
                     (7, False, (9, 6))]:
    check(client, b if i == 0 else _rebuild_cond(neg, dbl, sq), [np.int32(i), np.bool_(p), F32(3)],
          (F32(want[0]), F32(want[1])))


def _rebuild_cond(neg, dbl, sq):
  b = xc.XlaBuilder("cond")
  idx = ops.Parameter(b, 0, scalar(np.int32))
  pred = ops.Parameter(b, 1, scalar(np.bool_))
  x = ops.Parameter(b, 2, scalar(F32))
  ops.Tuple(b, [ops.Conditional(idx, [neg, dbl, sq], [x, x, x]),
                ops.Conditional(pred, x, neg, x, dbl)])
  return b


def test_call_nested_computations(client):
  inner = _unary_comp("inner", lambda x: ops.Mul(x, ops.Constant(x.builder(), F32(3))))
  mid = xc.XlaBuilder("mid")
  ops.Add(ops.Call(mid, inner, [ops.Parameter(mid, 0, scalar(F32))]), ops.Constant(mid, F32(1)))
  mid_comp = mid.build()
  b = xc.XlaBuilder("outer")
  x = ops.Parameter(b, 0, scalar(F32))
  ops.Add(ops.Call(b, mid_comp, [x]), ops.Call(b, mid_comp, [x]))
  check(client, b, [F32(2)], F32(14))


# --- random numbers, misc ----------------------------------------------------------------------

def test_rng(client):
  b = xc.XlaBuilder("rng")
  u = ops.RngUniform(ops.Constant(b, F32(2)), ops.Constant(b, F32(3)), S(F32, (1000,)))
  n = ops.RngNormal(ops.Constant(b, F32(0)), ops.Constant(b, F32(1)), S(F32, (1000,)))
  bits = ops.RngBitGenerator(xc.RandomAlgorithm.RNG_DEFAULT,
                             ops.Constant(b, np.array([1, 2], np.uint64)), S(np.uint32, (4,)))
  ops.Tuple(b, [u, n, bits])
  exe = client.compile(b.build())
  u, n, (state, bits) = client.execute_and_transfer(exe, [], rng_seed=7)
  assert u.shape == (1000,) and u.min() >= 2 and u.max() < 3 and abs(u.mean() - 2.5) < 0.05
  assert abs(n.mean()) < 0.15 and 0.8 < n.std() < 1.2
  assert bits.dtype == np.uint32 and state.shape == (2,)


def test_batch_norm(client):
  v = RNG.rand(2, 3, 2).astype(F32)
  scale = np.array([1, 2, 0.5], F32)
  offset = np.array([0, 1, -1], F32)
  b = xc.XlaBuilder("bn")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  s, o = ops.Constant(b, scale), ops.Constant(b, offset)
  t = ops.BatchNormTraining(x, s, o, 1e-3, 1)
  ops.Tuple(b, [t, ops.BatchNormInference(x, s, o, ops.GetTupleElement(t, 1),
                                          ops.GetTupleElement(t, 2), 1e-3, 1)])
  mean = v.mean(axis=(0, 2))
  var = v.var(axis=(0, 2))
  norm = (v - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-3) * scale[None, :, None] + \
      offset[None, :, None]
  check(client, b, [v], ((norm, mean, var), norm), rtol=1e-4, atol=1e-5)


def test_misc_ops(client):
  b = xc.XlaBuilder("misc")
  x = ops.Parameter(b, 0, S(F32, (3, 5)))
  ops.Tuple(b, [ops.GetDimensionSize(x, 1), ops.OptimizationBarrier(x), ops.ReplicaId(b),
                ops.ZerosLike(x)])
  v = np.ones((3, 5), F32)
  check(client, b, [v], (np.int32(5), v, np.uint32(0), np.zeros((3, 5), F32)))


def test_after_all_and_outfeed_token(client):
  b = xc.XlaBuilder("tokens")
  t = ops.AfterAll(b, [ops.CreateToken(b), ops.CreateToken(b)])
  x = ops.Parameter(b, 0, S(F32, (2,)))
  ops.OutfeedWithToken(x, t, S(F32, (2,)))
  ops.Neg(x)
  check(client, b, [np.array([1, 2], F32)], np.array([-1, -2], F32))
  np.testing.assert_array_equal(client.transfer_from_outfeed(S(F32, (2,))), [1, 2])


def test_infeed_shorthand(client):
  b = xc.XlaBuilder("infeed")
  ops.Add(ops.Infeed(b, S(np.int32, (3,))), ops.Constant(b, np.int32(1)))
  exe = client.compile(b.build())
  client.transfer_to_infeed(np.array([1, 2, 3], np.int32))
  np.testing.assert_array_equal(client.execute_and_transfer(exe, []), [2, 3, 4])


def test_xlaop_operators(client):
  b = xc.XlaBuilder("operators")
  x = ops.Parameter(b, 0, S(F32, (3,)))
  y = ops.Parameter(b, 1, S(F32, (3,)))
  ops.Tuple(b, [x + y, x - y, x * y, x / y, -x, abs(x), x ** 2, 1.0 - x])
  a = np.array([1, -2, 3], F32)
  c = np.array([2, 4, 8], F32)
  check(client, b, [a, c], (a + c, a - c, a * c, a / c, -a, np.abs(a), a ** 2, 1 - a))


def test_single_replica_collectives(client):
  add = binary_reducer("add", F32)
  v = np.arange(6, dtype=F32).reshape(2, 3)
  b = xc.XlaBuilder("collectives")
  x = ops.Parameter(b, 0, S(F32, v.shape))
  ops.Tuple(b, [ops.AllReduce(x, add), ops.AllGather(x, 1, 1), ops.ReduceScatter(x, add, 0, 1),
                ops.AllToAll(x, 1, 1, 1), ops.CollectivePermute(x, [(0, 0)])])
  check(client, b, [v], (v, v, v, v, v))


def test_ragged_dot(client):
  lhs = RNG.rand(5, 3).astype(F32)
  rhs = RNG.rand(2, 3, 4).astype(F32)
  sizes = np.array([2, 3], np.int32)
  b = xc.XlaBuilder("ragged")
  ops.RaggedDot(ops.Parameter(b, 0, S(F32, lhs.shape)), ops.Parameter(b, 1, S(F32, rhs.shape)),
                ops.Parameter(b, 2, S(np.int32, sizes.shape)), ((([1], [1]), ([], [])), [0], [0]))
  expected = np.concatenate([lhs[:2] @ rhs[0], lhs[2:] @ rhs[1]])
  check(client, b, [lhs, rhs, sizes], expected, rtol=1e-5)


def test_dynamic_shape_ops_compile_and_run(client):
  v = np.arange(4, dtype=F32)
  b = xc.XlaBuilder("dynamic")
  x = ops.Parameter(b, 0, S(F32, (4,)))
  two = ops.Constant(b, np.int32(2))
  d = ops.SetDimensionSize(x, two, 0)
  assert b.get_shape(d).is_dynamic_dimension(0) and str(b.get_shape(d)) == "f32[<=4]{0}"
  r = ops.RemoveDynamicDimension(d, 0)
  assert not b.get_shape(r).is_dynamic_dimension(0)
  ops.Tuple(b, [ops.DynamicReshape(x, [two, two], [2, 2], [True, True]), r])
  comp = b.build()
  for form in (comp, comp.as_hlo_text()):
    out = client.execute_and_transfer(client.compile(form), [v])
    np.testing.assert_array_equal(out[0], v.reshape(2, 2))


def test_math_library_ops(client):
  import math  # pylint: disable=g-import-not-at-top
  v = np.array([0.1, 0.5, 1, 1.5, 2, 3.7, 10, 50, -0.5, -2.5, -3, 0], np.float64)
  probs = np.array([-0.999, -0.9, -0.3, 0, 0.2, 0.7, 0.99, 0.99999, 1, -1], np.float64)
  frm = np.array([0, 0, 1, 1, -1, 2.5, np.inf, np.nan, 3], np.float32)
  to = np.array([1, -1, 2, 0, -2, 2.5, 0, 1, np.nan], np.float32)
  b = xc.XlaBuilder("math")
  x = ops.Parameter(b, 0, S(np.float64, v.shape))
  xf = ops.ConvertElementType(x, F32)
  p = ops.Parameter(b, 1, S(np.float64, probs.shape))
  f, t = ops.Parameter(b, 2, S(F32, frm.shape)), ops.Parameter(b, 3, S(F32, to.shape))
  ops.Tuple(b, [ops.Lgamma(x), ops.Lgamma(xf), ops.Digamma(x), ops.ErfInv(p),
                ops.ErfInv(ops.ConvertElementType(p, F32)), ops.NextAfter(f, t),
                ops.CrossReplicaSum(xf)])
  comp = b.build()
  lg, lgf, dg, ei, eif, na, crs = client.execute_and_transfer(client.compile(comp),
                                                              [v, probs, frm, to])
  from_text = client.execute_and_transfer(client.compile(comp.as_hlo_text()), [v, probs, frm, to])
  for x_, y_ in zip(from_text, (lg, lgf, dg, ei, eif, na, crs)):
    np.testing.assert_array_equal(x_, y_)
  ref = np.array([math.lgamma(a) if not (a <= 0 and a == int(a)) else np.inf for a in v])
  np.testing.assert_allclose(lg, ref, rtol=1e-9, atol=1e-9)
  np.testing.assert_allclose(lgf, ref.astype(F32), rtol=2e-5, atol=2e-5)
  known = {1: -0.5772156649015329, 0.5: -1.9635100260214235, 2: 0.42278433509846713,
           -0.5: 0.03648997397857652, 10: 2.251752589066721, -2.5: 1.1031566406452432}
  for a, want in known.items():
    np.testing.assert_allclose(dg[list(v).index(a)], want, rtol=1e-9)
  assert np.isnan(dg[list(v).index(-3)]) and np.isnan(dg[list(v).index(0)])
  inner = probs[np.abs(probs) < 1]
  np.testing.assert_allclose([math.erf(y) for y in ei[np.abs(probs) < 1]], inner, rtol=1e-15, atol=1e-16)
  np.testing.assert_allclose([math.erf(y) for y in eif[np.abs(probs) < 1]], inner, atol=1e-5)
  assert ei[-2] == np.inf and ei[-1] == -np.inf
  np.testing.assert_array_equal(na.view(np.uint32), np.nextafter(frm, to).view(np.uint32))
  np.testing.assert_array_equal(crs, v.astype(F32))
