"""Literals, dtypes and transfers: every element type, layouts, odd arrays, protos."""

import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

P = xc.PrimitiveType
ARRAY_TYPES = [t for t in P if t not in (P.PRIMITIVE_TYPE_INVALID, P.TUPLE, P.OPAQUE_TYPE,
                                         P.TOKEN, P.BUFFER)]
SUB_BYTE = {P.S1: (-1, 0), P.S2: (-2, 1), P.S4: (-8, 7), P.U1: (0, 1), P.U2: (0, 3),
            P.U4: (0, 15)}


def sample(etype, shape=(2, 3)):
  """Valid values of etype (bit patterns for reduced floats without ml_dtypes)."""
  dtype = xc.etype_to_dtype(etype)
  n = int(np.prod(shape))
  if etype in SUB_BYTE:
    lo, hi = SUB_BYTE[etype]
    return (np.arange(n) % (hi - lo + 1) + lo).astype(dtype).reshape(shape)
  if etype == P.PRED:
    return (np.arange(n) % 2 == 0).reshape(shape)
  if etype in (P.C64, P.C128):
    return (np.arange(n) + 1j * np.arange(n)[::-1]).astype(dtype).reshape(shape)
  if xc._types.is_bit_pattern(etype):
    return xc.float_to_bits(np.linspace(-2, 2, n), etype).reshape(shape)
  if xc._types.is_floating(etype):
    values = np.linspace(-2, 2, n) if etype != P.F8E8M0FNU else 2.0 ** np.arange(n)
    return np.asarray(values).astype(dtype).reshape(shape)
  return (np.arange(n) * 7 % 120).astype(dtype).reshape(shape)


def same(a, b):
  a, b = np.asarray(a), np.asarray(b)
  assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
  np.testing.assert_array_equal(a.view(np.uint8) if a.dtype.kind == "V" else a,
                                b.view(np.uint8) if b.dtype.kind == "V" else b)


@pytest.mark.parametrize("etype", ARRAY_TYPES, ids=lambda t: t.name)
def test_transfer_round_trip_every_type(client, etype):
  value = sample(etype)
  lit = xc.Literal.from_array(value, etype)
  assert lit.shape() == xc.Shape.array_shape(etype, (2, 3))
  data = client.transfer_to_server(lit)
  assert client.get_shape(data).element_type() == etype
  same(client.transfer(data), value)
  back = client.transfer(data, as_literal=True)
  assert back.shape().element_type() == etype
  # The LiteralProto path (inline execute_and_transfer) for the same type.
  b = xc.XlaBuilder("identity")
  ops.Parameter(b, 0, xc.Shape.array_shape(etype, (2, 3)))
  exe = client.compile(b.build())
  same(client.execute_and_transfer(exe, [lit]), value)
  same(xc.Literal.from_proto(lit.to_proto()), value)


@pytest.mark.parametrize("value", [
    np.zeros((0,), np.float32), np.zeros((3, 0, 2), np.int64), np.float32(3.5), np.int8(-3),
    np.bool_(True), np.arange(2 * 1 * 3 * 1 * 2 * 2 * 1, dtype=np.int16).reshape(2, 1, 3, 1, 2, 2, 1),
], ids=["empty", "zero-dim", "f32-scalar", "s8-scalar", "pred-scalar", "rank7"])
def test_transfer_shapes(client, value):
  data = client.transfer_to_server(value)
  out = client.transfer(data)
  assert out.shape == np.shape(value) and out.dtype == np.asarray(value).dtype
  np.testing.assert_array_equal(out, value)


def test_transfer_non_contiguous_and_big_endian(client):
  base = np.arange(60, dtype=np.float32).reshape(6, 10)
  for value in (base[::2, 1::3], base.T, np.asfortranarray(base), base.astype(">f4"),
                base.astype(">i8"), np.arange(5, dtype=">c16")):
    out = client.transfer(client.transfer_to_server(value))
    np.testing.assert_array_equal(out, value)
    assert out.dtype == value.dtype.newbyteorder("=")


def test_transfer_tuples_and_python_scalars(client):
  data = client.transfer_to_server((1.5, (np.int32(2), np.zeros((2, 2), np.uint8)), True))
  shape = client.get_shape(data)
  assert shape.is_tuple() and len(shape.tuple_shapes()) == 3
  a, (b, c), d = client.transfer(data)
  assert a == 1.5 and a.dtype == np.float64 and b == 2 and c.shape == (2, 2) and d


def test_transfer_with_layout(client):
  value = np.arange(12, dtype=np.int32).reshape(3, 4)
  lit = xc.Literal.from_array(value, minor_to_major=[0, 1])
  np.testing.assert_array_equal(lit.physical_buffer().ravel(), value.T.ravel())
  data = client.transfer_to_server(lit)
  assert client.get_shape(data).minor_to_major() == (0, 1)
  back = client.transfer(data, as_literal=True)
  assert back.shape().minor_to_major() == (0, 1)
  np.testing.assert_array_equal(np.asarray(back), value)


def test_large_transfer_spans_many_chunks(client):
  value = np.random.RandomState(1).rand(3 << 18).astype(np.float32)  # 3 MiB
  odd = np.arange(1_000_003, dtype=np.uint8)  # chunk boundaries inside elements of tuples
  data = client.transfer_to_server((value, odd))
  got_value, got_odd = client.transfer(data)
  np.testing.assert_array_equal(got_value, value)
  np.testing.assert_array_equal(got_odd, odd)
  assert got_value.flags.writeable


# --- Literal semantics -------------------------------------------------------------------------

def test_literal_shares_memory_with_numpy():
  lit = xc.Literal(xc.Shape.array_shape(np.float32, (2, 3)))
  view = np.asarray(lit)
  view[1, 2] = 7
  assert np.asarray(lit)[1, 2] == 7
  copy = np.array(lit)
  copy[0, 0] = 5
  assert np.asarray(lit)[0, 0] == 0
  assert np.shares_memory(np.asarray(lit), lit.physical_buffer())


@pytest.mark.parametrize("etype", [P.F32, P.S8, P.PRED, P.C128, P.U16, P.BF16, P.F8E4M3FN, P.S4],
                         ids=lambda t: t.name)
def test_literal_layouts_for_every_kind(etype):
  shape = xc.Shape.array_shape(etype, (2, 3, 4), minor_to_major=[1, 2, 0])
  lit = xc.Literal(shape)
  view = np.asarray(lit)
  assert view.shape == (2, 3, 4)
  values = sample(etype, (2, 3, 4))
  view[...] = values
  # Storage is in layout order: dim 0 major, then dim 2, then dim 1 minor.
  np.testing.assert_array_equal(lit.physical_buffer(), values.transpose(0, 2, 1))
  proto = lit.to_proto()
  assert list(proto.shape.layout.minor_to_major) == [1, 2, 0]
  same(xc.Literal.from_proto(proto), values)


def test_literal_tuple_and_repr():
  lit = xc.Literal.make_tuple([np.float32(1), np.arange(3)])
  assert lit.is_tuple() and len(lit) == 2
  assert lit.to_py()[1].tolist() == [0, 1, 2]
  assert "f32[]" in repr(lit)
  assert xc.Literal.from_proto(lit.to_proto()) == lit


def test_shape_api():
  s = xc.Shape.array_shape(xc.PrimitiveType.F32, (2, 3), (0, 1))
  assert s.dimensions() == (2, 3) and s.rank() == 2 and s.numpy_dtype() == np.float32
  assert str(s) == "f32[2,3]{0,1}"
  assert xc.Shape.from_proto(s.to_proto()) == s
  assert xc.Shape.array_shape(np.float32, (2, 3)) != s
  t = xc.Shape.tuple_shape([s, xc.Shape.scalar_shape(np.int32), xc.Shape.token_shape()])
  assert t.is_tuple() and str(t) == "(f32[2,3]{0,1}, s32[], token[])"
  assert xc.shape_from_pyval((np.zeros(3, np.int8), 1.0)) == xc.Shape.tuple_shape(
      [xc.Shape.array_shape(np.int8, (3,)), xc.Shape.scalar_shape(np.float64)])
  with pytest.raises(ValueError):
    xc.Shape.array_shape(np.float32, (2, 3), (0, 0))
  with pytest.raises(TypeError):
    xc.dtype_to_etype(np.dtype("U3"))
  assert xc.dtype_to_etype(np.dtype(">f4")) == P.F32


def test_bf16_and_f8_helpers():
  values = np.array([0, 1, -1.5, 3.140625, 65536, np.inf, -np.inf], np.float32)
  bits = xc.float_to_bits(values, P.BF16)
  np.testing.assert_array_equal(xc.bits_to_float(bits, P.BF16), values)
  assert np.isnan(xc.bits_to_float(xc.float_to_bits(np.float32(np.nan), P.BF16), P.BF16))
  # Round to nearest even: 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7.
  assert xc.float_to_bits(np.float32(1 + 2 ** -8), P.BF16) == 0x3F80
  e4m3 = xc.float_to_bits(np.array([0, 1, 448, -448, 0.0625, 1e9], np.float32), P.F8E4M3FN)
  np.testing.assert_array_equal(e4m3[:5], [0x00, 0x38, 0x7E, 0xFE, 0x18])
  assert np.isnan(xc.bits_to_float(e4m3[5:], P.F8E4M3FN)[0])  # no inf in e4m3fn
  e5m2 = xc.float_to_bits(np.array([1e9, 1.25], np.float32), P.F8E5M2)
  assert xc.bits_to_float(e5m2, P.F8E5M2)[0] == np.inf
  assert xc.bits_to_float(e5m2, P.F8E5M2)[1] == 1.25
  every = np.arange(256, dtype=np.uint8)
  for etype in (P.F8E4M3FN, P.F8E5M2, P.F8E4M3FNUZ, P.F8E5M2FNUZ, P.F8E4M3B11FNUZ, P.F8E4M3,
                P.F8E3M4):
    decoded = xc.bits_to_float(every, etype)
    finite = np.isfinite(decoded)
    again = xc.float_to_bits(decoded[finite], etype)
    np.testing.assert_array_equal(xc.bits_to_float(again, etype), decoded[finite])


def test_bf16_arithmetic_on_the_server(client):
  b = xc.XlaBuilder("bf16")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(P.BF16, (3,)))
  ops.Add(x, x)
  exe = client.compile(b.build())
  values = np.array([1, 2.5, -3], np.float32)
  arg = xc.Literal.from_array(xc.float_to_bits(values, P.BF16) if not xc.HAS_ML_DTYPES
                              else values.astype(xc.etype_to_dtype(P.BF16)), P.BF16)
  out = client.execute_and_transfer(exe, [arg])
  as_float = xc.bits_to_float(out, P.BF16) if not xc.HAS_ML_DTYPES else out.astype(np.float32)
  np.testing.assert_array_equal(as_float, 2 * values)


def test_reduced_precision_values_are_rounded_not_truncated(client):
  lit = xc.Literal.from_array([1.5, 2, -3], P.BF16)
  as_float = (xc.bits_to_float(np.asarray(lit), P.BF16) if not xc.HAS_ML_DTYPES
              else np.asarray(lit).astype(np.float32))
  np.testing.assert_array_equal(as_float, [1.5, 2, -3])
  b = xc.XlaBuilder("bf16_const")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(P.BF16, (3,)))
  ops.Mul(x + 0.5, ops.ScalarConstant(b, 2, P.BF16))
  out = client.execute_and_transfer(client.compile(b.build()), [[1, 2, 3]])
  out = xc.bits_to_float(out, P.BF16) if not xc.HAS_ML_DTYPES else out.astype(np.float32)
  np.testing.assert_array_equal(out, [3, 5, 7])
