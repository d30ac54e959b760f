"""Host literals: numpy storage shared with numpy without copies.

A Literal of array shape owns one C-contiguous numpy buffer holding its elements in the
shape's layout order (the wire's storage order). ``np.asarray(literal)`` returns a
writable view with the logical dimensions (strided when the layout is not row-major);
``np.array(literal)`` copies. Tuple literals hold one Literal per element.
"""

import numpy as np

from . import _types
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType
from ._wire import varint as _varint

_P = PrimitiveType
_LITTLE = np.little_endian


def _major_to_minor(shape):
  return tuple(reversed(shape.layout_or_default()))


def _logical_view(physical, shape):
  """The logical-dimension view of a buffer stored in shape's layout order."""
  mtm = _major_to_minor(shape)
  if mtm == tuple(range(len(mtm))):
    return physical
  return physical.transpose([mtm.index(d) for d in range(len(mtm))])


def as_array(pyval, dtype=None):
  """numpy array of a Python value (scalar, sequence, array, Literal)."""
  if isinstance(pyval, Literal):
    if pyval.shape().is_tuple():
      raise TypeError("a tuple Literal is not an array")
    arr = pyval.array
  else:
    arr = np.asarray(pyval)
  if dtype is not None and arr.dtype != dtype:
    arr = arr.astype(dtype)
  if arr.dtype == object:
    raise TypeError("cannot convert %r to an XLA array" % (type(pyval).__name__,))
  return arr


class Literal:
  """A host value of an XLA shape; see the module docstring."""

  __slots__ = ("_shape", "_buffer", "_elements", "__weakref__")

  def __init__(self, shape, _buffer=None, _elements=None):
    if not isinstance(shape, Shape):
      raise TypeError("Literal(shape) takes a Shape")
    if shape.is_tuple():
      self._shape = shape
      self._buffer = None
      if _elements is None:
        _elements = [Literal(s) for s in shape.tuple_shapes()]
      self._elements = list(_elements)
      return
    self._shape = shape.with_major_to_minor_layout_if_absent()
    self._elements = None
    if shape.is_token() or not shape.is_array():
      self._buffer = None
      return
    dims = shape.dimensions()
    physical_dims = [dims[d] for d in _major_to_minor(self._shape)]
    if _buffer is None:
      _buffer = np.zeros(physical_dims, dtype=shape.numpy_dtype())
    elif tuple(_buffer.shape) != tuple(physical_dims):
      _buffer = _buffer.reshape(physical_dims)
    self._buffer = _buffer

  # --- construction ---
  @staticmethod
  def from_array(value, element_type=None, minor_to_major=None):
    """A literal holding a copy of value (array-like), optionally typed and laid out.

    For a bit-pattern type (BF16 / F8 without ml_dtypes), float (or Python int) values are
    rounded to the type; an array of the carrier dtype (uint16 / uint8) is taken as bits.
    """
    arr = np.asarray(value)
    etype = _types.as_etype(element_type) if element_type is not None else (
        _types.dtype_to_etype(arr.dtype))
    dtype = _types.etype_to_dtype(etype)
    if _types.is_bit_pattern(etype) and arr.dtype.kind in "fb" or (
        _types.is_bit_pattern(etype) and arr.dtype.kind in "iu" and arr.dtype != dtype):
      arr = _types.float_to_bits(arr.astype(np.float32), etype)  # values, not bits
    shape = Shape.array_shape(etype, arr.shape, minor_to_major)
    lit = Literal(shape)
    np.copyto(_logical_view(lit._buffer, lit._shape), arr.astype(dtype, copy=False),
              casting="unsafe")
    return lit

  @staticmethod
  def make_tuple(elements):
    elements = [e if isinstance(e, Literal) else to_literal(e) for e in elements]
    return Literal(Shape.tuple_shape([e.shape() for e in elements]), _elements=elements)

  # --- access ---
  def shape(self):
    return self._shape

  def is_tuple(self):
    return self._shape.is_tuple()

  def decompose_tuple(self):
    if not self.is_tuple():
      raise ValueError("not a tuple literal: %s" % self._shape)
    return list(self._elements)

  def __len__(self):
    if self.is_tuple():
      return len(self._elements)
    raise TypeError("len() of an array literal; use np.asarray(literal)")

  def __getitem__(self, i):
    if self.is_tuple():
      return self._elements[i]
    return self.array[i]

  @property
  def array(self):
    """The writable logical view (numpy) of an array literal."""
    if self._buffer is None:
      raise ValueError("literal of shape %s has no array storage" % self._shape)
    return _logical_view(self._buffer, self._shape)

  def __array__(self, dtype=None):
    arr = self.array
    return arr if dtype is None else arr.astype(dtype)

  def physical_buffer(self):
    """The storage buffer (C-contiguous, layout order)."""
    return self._buffer

  def leaves(self):
    """Array/token leaves in depth-first order."""
    if self.is_tuple():
      out = []
      for e in self._elements:
        out.extend(e.leaves())
      return out
    return [self]

  def to_py(self):
    """numpy array (a view) for arrays, a Python tuple of to_py() values for tuples."""
    if self.is_tuple():
      return tuple(e.to_py() for e in self._elements)
    if self._shape.is_token():
      return None
    return self.array

  def size_bytes(self):
    return self._shape.byte_size()

  def __eq__(self, other):
    if not isinstance(other, Literal) or self._shape.without_layout() != other._shape.without_layout():
      return False
    if self.is_tuple():
      return all(a == b for a, b in zip(self._elements, other._elements))
    if self._buffer is None:
      return other._buffer is None
    return bool(np.array_equal(self.array, other.array))

  __hash__ = None

  def __repr__(self):
    if self.is_tuple():
      return "Literal(%s)" % ", ".join(repr(e) for e in self._elements)
    if self._buffer is None:
      return "Literal(%s)" % self._shape
    return "Literal(%s, %s)" % (self._shape, np.array2string(self.array, threshold=20))

  # --- protos ---
  def to_proto(self):
    proto = xla_data_pb2.LiteralProto()
    _write_proto(self, proto)
    return proto

  @staticmethod
  def from_proto(proto):
    return _read_proto(proto, Shape.from_proto(proto.shape))


def to_literal(pyval, shape=None):
  """A Literal from a Literal, numpy array, scalar or (nested) tuple; no copy for Literals."""
  if isinstance(pyval, Literal):
    return pyval
  if isinstance(pyval, tuple):
    if shape is not None and shape.is_tuple():
      return Literal.make_tuple([to_literal(v, s) for v, s in zip(pyval, shape.tuple_shapes())])
    return Literal.make_tuple([to_literal(v) for v in pyval])
  if shape is not None and shape.is_array():
    return Literal.from_array(pyval, shape.element_type(), shape.minor_to_major())
  return Literal.from_array(as_array(pyval))


# --- wire (streamed transfers) ------------------------------------------------------

def wire_leaves(pyval, shape=None):
  """(Shape with layout, [C-contiguous little-endian numpy buffers]) for an upload.

  numpy arrays go out as they are when already C-contiguous and little-endian; otherwise
  they are converted once. Literals send their storage buffers.
  """
  if isinstance(pyval, Literal):
    shape = pyval.shape()
    bufs = [leaf._buffer for leaf in pyval.leaves() if leaf._buffer is not None]
    return _with_layouts(shape), bufs
  if isinstance(pyval, tuple):
    shapes, bufs = [], []
    subshapes = shape.tuple_shapes() if shape is not None and shape.is_tuple() else [None] * len(pyval)
    for v, s in zip(pyval, subshapes):
      sub_shape, sub_bufs = wire_leaves(v, s)
      shapes.append(sub_shape)
      bufs.extend(sub_bufs)
    return Shape.tuple_shape(shapes), bufs
  if shape is not None:
    lit = to_literal(pyval, shape)
    return wire_leaves(lit)
  arr = as_array(pyval)
  etype = _types.dtype_to_etype(arr.dtype)
  if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and not _LITTLE):
    arr = arr.astype(arr.dtype.newbyteorder("<"))
  if not arr.flags.c_contiguous:
    arr = np.ascontiguousarray(arr)
  return Shape.array_shape(etype, arr.shape).with_major_to_minor_layout_if_absent(), [arr]


def _with_layouts(shape):
  return shape.with_major_to_minor_layout_if_absent()


def literal_from_wire(shape, data):
  """A Literal over `data` (a writable bytes-like holding every leaf in depth-first order)."""
  buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
  lit, end = _literal_over(shape, buf, 0, shape)
  if end != buf.size:
    raise ValueError("transfer of %s carried %d bytes, expected %d" % (shape, buf.size, end))
  return lit


def _literal_over(s, buf, offset, whole):
  """(Literal of shape s over buf from offset, offset past it).

  A plain recursive function, not a closure: a nested function that calls itself is a
  reference cycle holding the receive buffer, which lived until the cyclic collector ran
  (a notebook kept every downloaded array's memory for a while after dropping it).
  """
  if s.is_tuple():
    elements = []
    for e in s.tuple_shapes():
      element, offset = _literal_over(e, buf, offset, whole)
      elements.append(element)
    return Literal(s, _elements=elements), offset
  if not s.is_array():
    return Literal(s), offset
  s = s.with_major_to_minor_layout_if_absent()
  n = s.byte_size()
  if offset + n > buf.size:
    raise ValueError("transfer of %s ended after %d bytes" % (whole, buf.size))
  leaf = buf[offset:offset + n].view(s.numpy_dtype())
  dims = s.dimensions()
  return Literal(s, _buffer=leaf.reshape([dims[d] for d in _major_to_minor(s)])), offset + n


# --- LiteralProto ---------------------------------------------------------------------

_BYTES_FIELDS = {
    _P.S1: "s1s", _P.S2: "s2s", _P.S4: "s4s", _P.U1: "u1s", _P.U2: "u2s", _P.U4: "u4s",
    _P.S8: "s8s", _P.U8: "u8s", _P.S16: "s16s", _P.U16: "u16s", _P.F16: "f16s",
    _P.BF16: "bf16s", _P.F8E5M2: "f8e5m2s", _P.F8E4M3: "f8e4m3s", _P.F8E4M3FN: "f8e4m3fns",
    _P.F8E4M3B11FNUZ: "f8e4m3b11fnuzs", _P.F8E3M4: "f8e3m4s", _P.F8E5M2FNUZ: "f8e5m2fnuzs",
    _P.F8E4M3FNUZ: "f8e4m3fnuzs", _P.F4E2M1FN: "f4e2m1fns", _P.F8E8M0FNU: "f8e8m0fnus",
}
# Packed fixed-width repeated fields: their wire bytes are the raw little-endian values.
_FIXED_FIELDS = {_P.F32: (8, "f32s"), _P.F64: (9, "f64s"), _P.C64: (12, "c64s"),
                 _P.C128: (18, "c128s")}
_VARINT_FIELDS = {_P.PRED: "preds", _P.S32: "s32s", _P.S64: "s64s", _P.U32: "u32s",
                  _P.U64: "u64s"}


def _le_bytes(buf):
  if buf.dtype.byteorder == ">" or (buf.dtype.byteorder == "=" and not _LITTLE):
    buf = buf.astype(buf.dtype.newbyteorder("<"))
  return np.ascontiguousarray(buf).tobytes()


def _write_proto(lit, proto):
  shape = lit.shape()
  shape.with_major_to_minor_layout_if_absent()._fill_proto(proto.shape)
  if shape.is_tuple():
    for e in lit._elements:
      _write_proto(e, proto.tuple_literals.add())
    return
  if lit._buffer is None:
    return
  etype = shape.element_type()
  buf = lit._buffer
  if etype in _BYTES_FIELDS:
    setattr(proto, _BYTES_FIELDS[etype], _le_bytes(buf))
  elif etype in _FIXED_FIELDS:
    number, _ = _FIXED_FIELDS[etype]
    raw = _le_bytes(buf)
    if raw:  # packed field parsed by protobuf's C code: no per-element Python work
      proto.MergeFromString(_varint(number << 3 | 2) + _varint(len(raw)) + raw)
  else:
    field = getattr(proto, _VARINT_FIELDS[etype])
    field.extend(buf.ravel().tolist())


def _read_proto(proto, shape, where=""):
  if shape.is_tuple():
    subs = shape.tuple_shapes()
    if len(proto.tuple_literals) != len(subs):
      raise ValueError("LiteralProto%s of shape %s has %d tuple_literals" %
                       (where, shape, len(proto.tuple_literals)))
    return Literal(shape, _elements=[
        _read_proto(p, s, "%s{%d}" % (where, i))
        for i, (p, s) in enumerate(zip(proto.tuple_literals, subs))])
  if not shape.is_array():
    return Literal(shape)
  shape = shape.with_major_to_minor_layout_if_absent()
  etype = shape.element_type()
  dtype = shape.numpy_dtype()
  n = shape.element_count()
  if etype in _BYTES_FIELDS:
    raw = getattr(proto, _BYTES_FIELDS[etype])
    flat = np.frombuffer(bytearray(raw), dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)
  elif etype in _FIXED_FIELDS:
    _, name = _FIXED_FIELDS[etype]
    field = getattr(proto, name)
    base = np.float32 if etype in (_P.F32, _P.C64) else np.float64
    flat = np.array(field, dtype=base)
    if etype in (_P.C64, _P.C128):
      flat = flat.view(dtype)
  else:
    flat = np.array(getattr(proto, _VARINT_FIELDS[etype]), dtype=dtype)
  if flat.size != n:
    raise ValueError("LiteralProto%s of shape %s holds %d values, expected %d" %
                     (where, shape, flat.size, n))
  dims = shape.dimensions()
  return Literal(shape, _buffer=flat.reshape([dims[d] for d in _major_to_minor(shape)]))


# --- fast paths for small inline values ---------------------------------------------------

_SHAPE_CACHE = {}


def _shape_proto_bytes(etype, dims):
  """Serialized ShapeProto (descending layout) of an array; cached per (type, dims)."""
  key = (etype, dims)
  raw = _SHAPE_CACHE.get(key)
  if raw is None:
    raw = Shape.array_shape(etype, dims).with_major_to_minor_layout_if_absent().to_serialized_proto()
    if len(_SHAPE_CACHE) < 4096:
      _SHAPE_CACHE[key] = raw
  return raw


def array_to_proto(arr, proto):
  """Fills a LiteralProto from a native numpy array (row-major), without a Literal."""
  etype = _types.dtype_to_etype(arr.dtype)
  if etype in _FIXED_FIELDS:
    number, _ = _FIXED_FIELDS[etype]
    shape = _shape_proto_bytes(etype, arr.shape)
    raw = _le_bytes(arr)
    proto.MergeFromString(b"\x0a" + _varint(len(shape)) + shape +
                          ((_varint(number << 3 | 2) + _varint(len(raw)) + raw) if raw else b""))
    return
  proto.shape.MergeFromString(_shape_proto_bytes(etype, arr.shape))
  if etype in _BYTES_FIELDS:
    setattr(proto, _BYTES_FIELDS[etype], _le_bytes(arr))
  else:
    getattr(proto, _VARINT_FIELDS[etype]).extend(arr.ravel().tolist())


def proto_to_py(proto):
  """numpy value(s) of a LiteralProto: what Literal.from_proto(proto).to_py() returns."""
  shape = proto.shape
  if shape.element_type == _P.TUPLE or shape.tuple_shapes:
    return Literal.from_proto(proto).to_py()
  m2m = list(shape.layout.minor_to_major)
  dims = list(shape.dimensions)
  if m2m and m2m != list(range(len(dims) - 1, -1, -1)):
    return Literal.from_proto(proto).to_py()
  etype = PrimitiveType(shape.element_type)
  if etype not in _FIXED_FIELDS:
    return Literal.from_proto(proto).to_py()
  _, name = _FIXED_FIELDS[etype]
  base = np.float32 if etype in (_P.F32, _P.C64) else np.float64
  flat = np.array(getattr(proto, name), dtype=base)
  if etype in (_P.C64, _P.C128):
    flat = flat.view(_types.etype_to_dtype(etype))
  n = int(np.prod(dims, dtype=np.int64)) if dims else 1
  if flat.size != n:
    raise ValueError("LiteralProto of shape %s holds %d values, expected %d" %
                     (Shape.from_proto(shape), flat.size, n))
  return flat.reshape(dims)
