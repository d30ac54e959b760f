"""Shape and ProgramShape, as in XLA's xla_client (over xla_data.proto's ShapeProto)."""


from . import _types
from ._pb import xla_data_pb2
from ._types import PrimitiveType


class Shape:
  """An array shape (element type, dimensions, optional layout), a tuple, or a token.

  Layouts are minor_to_major lists as in XLA; None means no layout given (the server and
  this client then use the descending layout, i.e. row-major).
  """

  __slots__ = ("_etype", "_dims", "_m2m", "_tuple", "_dynamic")

  def __init__(self, etype, dims=(), minor_to_major=None, tuple_shapes=None, dynamic=None):
    self._etype = etype
    self._dims = tuple(int(d) for d in dims)
    self._m2m = None if minor_to_major is None else tuple(int(d) for d in minor_to_major)
    self._tuple = None if tuple_shapes is None else tuple(tuple_shapes)
    self._dynamic = tuple(bool(d) for d in dynamic) if dynamic else None

  # --- constructors (XLA's names) ---
  @staticmethod
  def array_shape(element_type, dimensions, minor_to_major=None, dynamic_dimensions=None):
    etype = _types.as_etype(element_type)
    if etype in (PrimitiveType.TUPLE, PrimitiveType.TOKEN, PrimitiveType.OPAQUE_TYPE,
                 PrimitiveType.PRIMITIVE_TYPE_INVALID):
      raise ValueError("%s is not an array element type" % etype.name)
    dims = tuple(int(d) for d in dimensions)
    for d in dims:
      if d < 0:
        raise ValueError("negative dimension in %s" % (list(dims),))
    if minor_to_major is not None:
      m2m = tuple(int(d) for d in minor_to_major)
      if sorted(m2m) != list(range(len(dims))):
        raise ValueError("minor_to_major %s is not a permutation of the %d dimensions" %
                         (list(m2m), len(dims)))
    else:
      m2m = None
    if dynamic_dimensions is not None and len(dynamic_dimensions) != len(dims):
      raise ValueError("dynamic_dimensions needs one flag per dimension")
    return Shape(etype, dims, m2m, dynamic=dynamic_dimensions)

  @staticmethod
  def scalar_shape(element_type):
    return Shape.array_shape(element_type, ())

  @staticmethod
  def tuple_shape(tuple_shapes):
    shapes = tuple(tuple_shapes)
    for s in shapes:
      if not isinstance(s, Shape):
        raise TypeError("tuple_shape takes Shapes, got %r" % (s,))
    return Shape(PrimitiveType.TUPLE, (), None, shapes)

  @staticmethod
  def token_shape():
    return Shape(PrimitiveType.TOKEN)

  # --- queries ---
  def element_type(self):
    return self._etype

  def dimensions(self):
    return self._dims

  def rank(self):
    return len(self._dims)

  def numpy_dtype(self):
    if self.is_tuple():
      raise ValueError("tuple shape has no dtype")
    return _types.etype_to_dtype(self._etype)

  def is_tuple(self):
    return self._etype == PrimitiveType.TUPLE

  def is_array(self):
    return self._etype not in (PrimitiveType.TUPLE, PrimitiveType.TOKEN,
                               PrimitiveType.OPAQUE_TYPE)

  def is_token(self):
    return self._etype == PrimitiveType.TOKEN

  def tuple_shapes(self):
    if not self.is_tuple():
      raise ValueError("not a tuple shape: %s" % self)
    return list(self._tuple)

  def leaf_count(self):
    return sum(s.leaf_count() for s in self._tuple) if self.is_tuple() else 1

  def is_dynamic_dimension(self, i):
    return bool(self._dynamic and self._dynamic[i])

  def minor_to_major(self):
    """The layout (minor-to-major dimension order), or None when not set."""
    return self._m2m

  def layout_or_default(self):
    return self._m2m if self._m2m is not None else tuple(range(len(self._dims) - 1, -1, -1))

  def has_layout(self):
    if self.is_tuple():
      return all(s.has_layout() for s in self._tuple)
    return not self.is_array() or self._m2m is not None

  def element_count(self):
    n = 1
    for d in self._dims:
      n *= d
    return n

  def byte_size(self):
    """Bytes of dense storage (every leaf for tuples), as on the wire."""
    if self.is_tuple():
      return sum(s.byte_size() for s in self._tuple)
    if not self.is_array():
      return 0
    return self.element_count() * _types.etype_to_dtype(self._etype).itemsize

  def with_major_to_minor_layout_if_absent(self):
    if self.is_tuple():
      return Shape.tuple_shape([s.with_major_to_minor_layout_if_absent() for s in self._tuple])
    if not self.is_array() or self._m2m is not None:
      return self
    return Shape(self._etype, self._dims, self.layout_or_default(), dynamic=self._dynamic)

  def without_layout(self):
    if self.is_tuple():
      return Shape.tuple_shape([s.without_layout() for s in self._tuple])
    return Shape(self._etype, self._dims, None, dynamic=self._dynamic)

  def compatible(self, other):
    """Equal ignoring layouts."""
    if self.is_tuple() or other.is_tuple():
      return (self.is_tuple() and other.is_tuple() and len(self._tuple) == len(other._tuple) and
              all(a.compatible(b) for a, b in zip(self._tuple, other._tuple)))
    return self._etype == other._etype and self._dims == other._dims

  # --- protos ---
  def to_proto(self):
    proto = xla_data_pb2.ShapeProto()
    self._fill_proto(proto)
    return proto

  def _fill_proto(self, proto):
    proto.element_type = int(self._etype)
    if self.is_tuple():
      for s in self._tuple:
        s._fill_proto(proto.tuple_shapes.add())
      return
    proto.dimensions.extend(self._dims)
    if self._dynamic:
      proto.is_dynamic_dimension.extend(self._dynamic)
    elif self.is_array():
      proto.is_dynamic_dimension.extend([False] * len(self._dims))
    if self._m2m is not None:
      proto.layout.minor_to_major.extend(self._m2m)

  def to_serialized_proto(self):
    return self.to_proto().SerializeToString()

  @staticmethod
  def from_proto(proto):
    etype = PrimitiveType(proto.element_type)
    if etype == PrimitiveType.TUPLE:
      return Shape.tuple_shape([Shape.from_proto(s) for s in proto.tuple_shapes])
    if etype in (PrimitiveType.TOKEN, PrimitiveType.OPAQUE_TYPE):
      return Shape(etype)
    m2m = list(proto.layout.minor_to_major) if proto.HasField("layout") else None
    if m2m is not None and len(m2m) != len(proto.dimensions):
      m2m = None if not proto.dimensions else m2m
    dyn = list(proto.is_dynamic_dimension) if any(proto.is_dynamic_dimension) else None
    return Shape(etype, proto.dimensions, m2m, dynamic=dyn)

  # --- python protocol ---
  def __eq__(self, other):
    if not isinstance(other, Shape):
      return NotImplemented
    return (self._etype == other._etype and self._dims == other._dims and
            self._tuple == other._tuple and
            self.layout_or_default() == other.layout_or_default() and
            (self._dynamic or None) == (other._dynamic or None))

  def __ne__(self, other):
    eq = self.__eq__(other)
    return eq if eq is NotImplemented else not eq

  def __hash__(self):
    return hash((self._etype, self._dims, self._tuple))

  def to_string(self, print_layout=True):
    if self.is_tuple():
      return "(" + ", ".join(s.to_string(print_layout) for s in self._tuple) + ")"
    if self.is_token():
      return "token[]"
    if self._etype == PrimitiveType.OPAQUE_TYPE:
      return "opaque[]"
    dims = ",".join(("<=%d" % d if self.is_dynamic_dimension(i) else str(d))
                    for i, d in enumerate(self._dims))
    text = "%s[%s]" % (_types.lowercase_name(self._etype), dims)
    if print_layout and self._dims:
      text += "{%s}" % ",".join(str(d) for d in self.layout_or_default())
    return text

  def __str__(self):
    return self.to_string()

  def __repr__(self):
    return self.to_string()


class ProgramShape:
  """Parameter shapes and result shape of a computation."""

  def __init__(self, params, result, parameter_names=None):
    self._params = list(params)
    self._result = result
    self._names = list(parameter_names) if parameter_names else [""] * len(self._params)

  def parameter_shapes(self):
    return list(self._params)

  def result_shape(self):
    return self._result

  def parameter_names(self):
    return list(self._names)

  def to_proto(self):
    proto = xla_data_pb2.ProgramShapeProto()
    for p in self._params:
      p._fill_proto(proto.parameters.add())
    self._result._fill_proto(proto.result)
    proto.parameter_names.extend(self._names)
    return proto

  @staticmethod
  def from_proto(proto):
    return ProgramShape([Shape.from_proto(p) for p in proto.parameters],
                        Shape.from_proto(proto.result), list(proto.parameter_names))

  def __eq__(self, other):
    return (isinstance(other, ProgramShape) and self._params == other._params and
            self._result == other._result)

  def __repr__(self):
    return "(%s) -> %s" % (", ".join(str(p) for p in self._params), self._result)


def shape_from_pyval(pyval):
  """The Shape of a Python value: numpy array, scalar, Literal, or (nested) tuple of those."""
  from . import _literal  # pylint: disable=g-import-not-at-top
  if isinstance(pyval, _literal.Literal):
    return pyval.shape()
  if isinstance(pyval, tuple):
    return Shape.tuple_shape([shape_from_pyval(v) for v in pyval])
  arr = _literal.as_array(pyval)
  return Shape.array_shape(_types.dtype_to_etype(arr.dtype), arr.shape)
