"""XLA ops with xla_client's names and argument order; shapes are inferred as ops are added.

Every function returns an XlaOp. On invalid arguments the builder records the first error
(raised by build()) and the function returns an invalid XlaOp; later ops on a builder with
an error do nothing.
"""
# pylint: disable=invalid-name

import functools

import numpy as np

from . import _literal
from . import _types
from ._builder import BuilderError
from ._builder import XlaBuilder
from ._builder import XlaComputation
from ._builder import XlaOp
from ._helpers import FftType
from ._helpers import PaddingType
from ._helpers import window_padding_type_to_pad_values
from ._pb import hlo_pb2
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType


# --- plumbing -------------------------------------------------------------------------

def _find_builder(args, kwargs):
  for a in list(args) + list(kwargs.values()):
    if isinstance(a, XlaBuilder):
      return a
    if isinstance(a, XlaOp):
      return a._builder
    if isinstance(a, (list, tuple)):
      for x in a:
        if isinstance(x, XlaOp):
          return x._builder
  return None


def _op(fn):
  """Records fn's BuilderError/ValueError/TypeError in the builder; returns invalid ops."""

  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    builder = _find_builder(args, kwargs)
    if builder is None:
      raise TypeError("%s needs an XlaBuilder or XlaOp argument" % fn.__name__)
    if builder._first_error is not None:
      return XlaOp(builder, -1)
    try:
      return fn(*args, **kwargs)
    except (BuilderError, ValueError, TypeError, IndexError, KeyError) as e:
      return builder._report("%s: %s" % (fn.__name__, e))

  return wrapper


def _shape(op):
  return op._builder._shape(op)


def _array_shape(op, what="operand"):
  s = _shape(op)
  if not s.is_array():
    raise BuilderError("%s must be an array, got %s" % (what, s))
  return s


def _same_builder(*ops_):
  builder = None
  for o in ops_:
    if not isinstance(o, XlaOp):
      raise BuilderError("expected XlaOp, got %s" % type(o).__name__)
    if builder is None:
      builder = o._builder
    elif o._builder is not builder:
      raise BuilderError("ops from different builders (%r and %r)" % (builder._name,
                                                                       o._builder._name))
    builder._check(o)
  return builder


def _shape_str(s):
  return s.to_string(print_layout=False)


def _dims(values):
  return [int(v) for v in values]


def _canonical_dim(dim, rank, what="dimension"):
  dim = int(dim)
  if dim < 0:
    dim += rank
  if not 0 <= dim < rank:
    raise BuilderError("%s %d out of range for rank %d" % (what, dim, rank))
  return dim


# --- constants and parameters ---------------------------------------------------------

@_op
def Parameter(builder, parameter_number, shape, name="", replicated_at_leaf_buffers=()):
  """Parameter `parameter_number` of the computation, with the given Shape."""
  if not isinstance(shape, Shape):
    raise BuilderError("Parameter takes a Shape, got %s" % type(shape).__name__)
  op = builder._add_parameter(int(parameter_number), shape, name)
  if replicated_at_leaf_buffers:
    builder.get_op_proto(op).parameter_replication.replicated_at_leaf_buffers.extend(
        bool(x) for x in replicated_at_leaf_buffers)
  return op


@_op
def ConstantLiteral(builder, literal):
  """A constant holding a Literal (or anything to_literal accepts)."""
  lit = _literal.to_literal(literal)
  return builder._add("constant", lit.shape(), (), literal=lit.to_proto())


@_op
def Constant(builder, value):
  """A constant from a numpy array / scalar / Literal (numpy's dtype gives the type)."""
  return ConstantLiteral(builder, value)


def ConstantLike(op, value):
  """A scalar constant of op's element type."""
  s = op._builder.get_shape(op) if op.valid() else None
  if s is None or not s.is_array():
    return Constant(op._builder, value)
  return ConstantLiteral(op._builder, _literal.Literal.from_array(value, s.element_type()))


def ScalarConstant(builder, value, element_type):
  """A scalar constant of element_type (values rounded to bf16/f8 types as needed)."""
  return ConstantLiteral(builder, _literal.Literal.from_array(value, element_type))


def Zero(builder, element_type):
  return ScalarConstant(builder, 0, element_type)


def One(builder, element_type):
  return ScalarConstant(builder, 1, element_type)


def ZerosLike(op):
  return Broadcast(ConstantLike(op, 0), op.shape().dimensions()) if op.valid() else op


@_op
def Iota(builder, shape, size_or_dimension=None, iota_dimension=None):
  """Iota(builder, type, size) (1-D) or Iota(builder, shape, iota_dimension)."""
  if isinstance(shape, Shape):
    dim = size_or_dimension if iota_dimension is None else iota_dimension
    dim = 0 if dim is None else dim
    out = shape
  else:
    etype = _types.as_etype(shape)
    out = Shape.array_shape(etype, (int(size_or_dimension),))
    dim = 0
  if not out.is_array() or out.rank() == 0:
    raise BuilderError("iota needs an array shape of rank >= 1, got %s" % out)
  dim = _canonical_dim(dim, out.rank(), "iota_dimension")
  return builder._add("iota", out, (), dimensions=[dim])


# --- elementwise ----------------------------------------------------------------------

def _reshape_away(b, op, s, keep):
  """Reshapes op to only the dims in keep (dropping size-1 dims)."""
  dims = [s.dimensions()[i] for i in keep]
  if len(dims) == s.rank():
    return op
  return b._add("reshape", Shape.array_shape(s.element_type(), dims), (op,))


def _broadcast_to(b, op, s, out_dims, mapping):
  """Broadcasts op (shape s) to out_dims; mapping[i] is the output dim of op's dim i."""
  out_dims = tuple(out_dims)
  if s.dimensions() == out_dims:
    return op
  keep, keep_map = [], []
  for i, d in enumerate(s.dimensions()):
    target = out_dims[mapping[i]]
    if d == target:
      keep.append(i)
      keep_map.append(mapping[i])
    elif d != 1:
      raise BuilderError("cannot broadcast %s dimension %d (size %d) to size %d" %
                         (_shape_str(s), i, d, target))
  op = _reshape_away(b, op, s, keep)
  return b._add("broadcast", Shape.array_shape(s.element_type(), out_dims), (op,),
                dimensions=keep_map)


def _broadcast_binary(b, lhs, rhs, ls, rs, broadcast_dimensions):
  """(lhs, rhs, out_dims) with both operands broadcast to the output dimensions."""
  bd = _dims(broadcast_dimensions or ())
  if ls.rank() == rs.rank():
    if bd and bd != list(range(ls.rank())):
      raise BuilderError("broadcast_dimensions %s must be the identity for operands of equal "
                         "rank" % bd)
    out = []
    for i, (x, y) in enumerate(zip(ls.dimensions(), rs.dimensions())):
      if x == y or y == 1:
        out.append(x)
      elif x == 1:
        out.append(y)
      else:
        raise BuilderError("dimension %d mismatch: %s and %s" % (i, _shape_str(ls),
                                                                 _shape_str(rs)))
    ident = list(range(ls.rank()))
    return (_broadcast_to(b, lhs, ls, out, ident), _broadcast_to(b, rhs, rs, out, ident), out)
  swap = ls.rank() < rs.rank()
  big, small, bs, ss = (rhs, lhs, rs, ls) if swap else (lhs, rhs, ls, rs)
  if ss.rank() == 0:
    mapping = []
  elif not bd:
    raise BuilderError("shapes %s and %s have different ranks: give broadcast_dimensions" %
                       (_shape_str(ls), _shape_str(rs)))
  else:
    if len(bd) != ss.rank():
      raise BuilderError("broadcast_dimensions %s needs %d entries (the smaller rank)" %
                         (bd, ss.rank()))
    for d in bd:
      if not 0 <= d < bs.rank():
        raise BuilderError("broadcast dimension %d out of range for rank %d" % (d, bs.rank()))
    if sorted(set(bd)) != bd:
      raise BuilderError("broadcast_dimensions %s must be strictly increasing" % bd)
    mapping = bd
  out = list(bs.dimensions())
  for i, d in enumerate(mapping):
    if ss.dimensions()[i] not in (1, out[d]):
      raise BuilderError("dimension %d of %s (size %d) does not match dimension %d of %s" %
                         (i, _shape_str(ss), ss.dimensions()[i], d, _shape_str(bs)))
  small = _broadcast_to(b, small, ss, out, mapping)
  return (small, big, out) if swap else (big, small, out)


_ARITH = "arithmetic"
_LOGICAL = "logical"   # pred or integral
_INTEGRAL = "integral"
_FLOAT = "float"       # floating or complex


def _check_kind(kind, etype, opname):
  if etype == _P.PRED and kind in (_ARITH, _INTEGRAL, _FLOAT):
    if kind != _ARITH or opname not in ("maximum", "minimum", "add", "multiply"):
      raise BuilderError("%s does not take pred operands" % opname)
  if kind == _LOGICAL and not (etype == _P.PRED or _types.is_integral(etype)):
    raise BuilderError("%s needs pred or integral operands, got %s" %
                       (opname, _types.lowercase_name(etype)))
  if kind == _INTEGRAL and not _types.is_integral(etype):
    raise BuilderError("%s needs integral operands, got %s" %
                       (opname, _types.lowercase_name(etype)))
  if kind == _FLOAT and not (_types.is_floating(etype) or _types.is_complex(etype)):
    raise BuilderError("%s needs floating-point or complex operands, got %s" %
                       (opname, _types.lowercase_name(etype)))


def _binary(opcode, kind, lhs, rhs, broadcast_dimensions, out_etype=None, **fields):
  b = _same_builder(lhs, rhs)
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  if ls.element_type() != rs.element_type():
    raise BuilderError("operands must have the same element type, got %s and %s" %
                       (_shape_str(ls), _shape_str(rs)))
  if kind is not None:
    _check_kind(kind, ls.element_type(), opcode)
  lhs, rhs, out = _broadcast_binary(b, lhs, rhs, ls, rs, broadcast_dimensions)
  etype = ls.element_type() if out_etype is None else out_etype
  return b._add(opcode, Shape.array_shape(etype, out), (lhs, rhs), **fields)


def _make_binary(name, opcode, kind):
  def fn(lhs, rhs, broadcast_dimensions=()):
    return _binary(opcode, kind, lhs, rhs, broadcast_dimensions)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = "Elementwise %s with XLA's implicit broadcasting." % opcode
  return _op(fn)


Add = _make_binary("Add", "add", _ARITH)
Sub = _make_binary("Sub", "subtract", _ARITH)
Mul = _make_binary("Mul", "multiply", _ARITH)
Div = _make_binary("Div", "divide", _ARITH)
Rem = _make_binary("Rem", "remainder", _ARITH)
Max = _make_binary("Max", "maximum", _ARITH)
Min = _make_binary("Min", "minimum", _ARITH)
Pow = _make_binary("Pow", "power", _ARITH)
And = _make_binary("And", "and", _LOGICAL)
Or = _make_binary("Or", "or", _LOGICAL)
Xor = _make_binary("Xor", "xor", _LOGICAL)
ShiftLeft = _make_binary("ShiftLeft", "shift-left", _INTEGRAL)
ShiftRightArithmetic = _make_binary("ShiftRightArithmetic", "shift-right-arithmetic", _INTEGRAL)
ShiftRightLogical = _make_binary("ShiftRightLogical", "shift-right-logical", _INTEGRAL)
Atan2 = _make_binary("Atan2", "atan2", _FLOAT)


@_op
def Complex(real, imag, broadcast_dimensions=()):
  etype = _array_shape(real).element_type()
  if etype not in (_P.F32, _P.F64):
    raise BuilderError("Complex needs f32 or f64 operands, got %s" % _types.lowercase_name(etype))
  return _binary("complex", None, real, imag, broadcast_dimensions,
                 out_etype=_P.C64 if etype == _P.F32 else _P.C128)


def _default_comparison_type(etype):
  if _types.is_floating(etype) or _types.is_complex(etype):
    return "FLOAT"
  if _types.is_signed_int(etype):
    return "SIGNED"
  return "UNSIGNED"


@_op
def Compare(lhs, rhs, broadcast_dimensions=(), direction="EQ", compare_type=None):
  """Compare with direction EQ/NE/GE/GT/LE/LT; compare_type e.g. "TOTALORDER"."""
  direction = str(direction).upper()
  if direction not in ("EQ", "NE", "GE", "GT", "LE", "LT"):
    raise BuilderError("unknown comparison direction %r" % direction)
  fields = {"comparison_direction": direction}
  etype = _array_shape(lhs).element_type()
  if compare_type is not None:
    ct = str(compare_type).upper()
    if ct not in ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"):
      raise BuilderError("unknown comparison type %r" % compare_type)
    if ct != _default_comparison_type(etype):
      fields["comparison_type"] = ct
  if _types.is_complex(etype) and direction not in ("EQ", "NE"):
    raise BuilderError("complex values are only compared with EQ or NE")
  return _binary("compare", None, lhs, rhs, broadcast_dimensions, out_etype=_P.PRED, **fields)


def _make_compare(name, direction, total=False):
  def fn(lhs, rhs, broadcast_dimensions=()):
    return Compare(lhs, rhs, broadcast_dimensions, direction,
                   "TOTALORDER" if total else None)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = "Elementwise comparison %s (pred result)." % direction
  return fn


Eq = _make_compare("Eq", "EQ")
Ne = _make_compare("Ne", "NE")
Ge = _make_compare("Ge", "GE")
Gt = _make_compare("Gt", "GT")
Le = _make_compare("Le", "LE")
Lt = _make_compare("Lt", "LT")
EqTotalOrder = _make_compare("EqTotalOrder", "EQ", True)
NeTotalOrder = _make_compare("NeTotalOrder", "NE", True)
GeTotalOrder = _make_compare("GeTotalOrder", "GE", True)
GtTotalOrder = _make_compare("GtTotalOrder", "GT", True)
LeTotalOrder = _make_compare("LeTotalOrder", "LE", True)
LtTotalOrder = _make_compare("LtTotalOrder", "LT", True)


def _unary(opcode, kind, operand, out_etype=None, **fields):
  b = _same_builder(operand)
  s = _array_shape(operand)
  if kind is not None:
    _check_kind(kind, s.element_type(), opcode)
  etype = s.element_type() if out_etype is None else out_etype
  return b._add(opcode, Shape.array_shape(etype, s.dimensions()), (operand,), **fields)


def _make_unary(name, opcode, kind):
  def fn(operand):
    return _unary(opcode, kind, operand)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = "Elementwise %s." % opcode
  return _op(fn)


Neg = _make_unary("Neg", "negate", _ARITH)
Sign = _make_unary("Sign", "sign", _ARITH)
Floor = _make_unary("Floor", "floor", _FLOAT)
Ceil = _make_unary("Ceil", "ceil", _FLOAT)
Round = _make_unary("Round", "round-nearest-afz", _FLOAT)
RoundNearestEven = _make_unary("RoundNearestEven", "round-nearest-even", _FLOAT)
Exp = _make_unary("Exp", "exponential", _FLOAT)
Expm1 = _make_unary("Expm1", "exponential-minus-one", _FLOAT)
Log = _make_unary("Log", "log", _FLOAT)
Log1p = _make_unary("Log1p", "log-plus-one", _FLOAT)
Logistic = _make_unary("Logistic", "logistic", _FLOAT)
Sqrt = _make_unary("Sqrt", "sqrt", _FLOAT)
Rsqrt = _make_unary("Rsqrt", "rsqrt", _FLOAT)
Cbrt = _make_unary("Cbrt", "cbrt", _FLOAT)
Cos = _make_unary("Cos", "cosine", _FLOAT)
Sin = _make_unary("Sin", "sine", _FLOAT)
Tan = _make_unary("Tan", "tan", _FLOAT)
Tanh = _make_unary("Tanh", "tanh", _FLOAT)
Cosh = _make_unary("Cosh", "cosh", _FLOAT)
Sinh = _make_unary("Sinh", "sinh", _FLOAT)
Acos = _make_unary("Acos", "acos", _FLOAT)
Asin = _make_unary("Asin", "asin", _FLOAT)
Acosh = _make_unary("Acosh", "acosh", _FLOAT)
Asinh = _make_unary("Asinh", "asinh", _FLOAT)
Atanh = _make_unary("Atanh", "atanh", _FLOAT)
Erf = _make_unary("Erf", "erf", _FLOAT)
Not = _make_unary("Not", "not", _LOGICAL)
Clz = _make_unary("Clz", "count-leading-zeros", _INTEGRAL)
PopulationCount = _make_unary("PopulationCount", "popcnt", _INTEGRAL)
Copy = _make_unary("Copy", "copy", None)


def _complex_component(etype):
  return {_P.C64: _P.F32, _P.C128: _P.F64}.get(etype, etype)


@_op
def Abs(operand):
  etype = _array_shape(operand).element_type()
  _check_kind(_ARITH, etype, "abs")
  return _unary("abs", None, operand, out_etype=_complex_component(etype))


@_op
def Real(operand):
  return _unary("real", None, operand, _complex_component(_array_shape(operand).element_type()))


@_op
def Imag(operand):
  return _unary("imag", None, operand, _complex_component(_array_shape(operand).element_type()))


@_op
def IsFinite(operand):
  etype = _array_shape(operand).element_type()
  if not _types.is_floating(etype):
    raise BuilderError("IsFinite needs a floating-point operand, got %s" %
                       _types.lowercase_name(etype))
  return _unary("is-finite", None, operand, out_etype=_P.PRED)


@_op
def Conj(operand):
  if not _types.is_complex(_array_shape(operand).element_type()):
    return operand
  return Complex(Real(operand), Neg(Imag(operand)))


def Square(operand):
  return Mul(operand, operand)


def Reciprocal(operand):
  return Div(ConstantLike(operand, 1), operand)


def Atan(operand):
  return Atan2(operand, ConstantLike(operand, 1))


@_op
def ReducePrecision(operand, exponent_bits, mantissa_bits):
  if exponent_bits < 1 or mantissa_bits < 0:
    raise BuilderError("ReducePrecision needs exponent_bits >= 1 and mantissa_bits >= 0")
  return _unary("reduce-precision", _FLOAT, operand, exponent_bits=int(exponent_bits),
                mantissa_bits=int(mantissa_bits))


@_op
def ConvertElementType(operand, new_element_type):
  etype = _types.as_etype(new_element_type)
  s = _array_shape(operand)
  if _types.is_complex(s.element_type()) and not _types.is_complex(etype):
    raise BuilderError("converting complex to %s: use Real / Imag" % _types.lowercase_name(etype))
  return _unary("convert", None, operand, out_etype=etype)


@_op
def BitcastConvertType(operand, new_element_type):
  etype = _types.as_etype(new_element_type)
  b = _same_builder(operand)
  s = _array_shape(operand)
  in_bits, out_bits = _types.bit_width(s.element_type()), _types.bit_width(etype)
  dims = list(s.dimensions())
  if in_bits > out_bits:
    if in_bits % out_bits:
      raise BuilderError("cannot bitcast %s to %s" % (_shape_str(s), _types.lowercase_name(etype)))
    dims.append(in_bits // out_bits)
  elif in_bits < out_bits:
    ratio = out_bits // in_bits
    if not dims or dims[-1] != ratio:
      raise BuilderError("bitcast of %s to %s needs a last dimension of size %d" %
                         (_shape_str(s), _types.lowercase_name(etype), ratio))
    dims.pop()
  return b._add("bitcast-convert", Shape.array_shape(etype, dims), (operand,))


def _broadcast_scalars(b, operands):
  """Broadcasts scalar operands to the common non-scalar shape (select, clamp)."""
  shapes = [_array_shape(o) for o in operands]
  dims = None
  for s in shapes:
    if s.rank() > 0:
      if dims is not None and s.dimensions() != dims:
        raise BuilderError("operand shapes differ: %s" % ", ".join(_shape_str(x) for x in shapes))
      dims = s.dimensions()
  if dims is None:
    return list(operands), ()
  return [(_broadcast_to(b, o, s, dims, []) if s.rank() == 0 else o)
          for o, s in zip(operands, shapes)], dims


@_op
def Select(pred, on_true, on_false):
  b = _same_builder(pred, on_true, on_false)
  ps, ts, fs = _array_shape(pred, "pred"), _array_shape(on_true), _array_shape(on_false)
  if ps.element_type() != _P.PRED:
    raise BuilderError("select's predicate must be pred, got %s" % _shape_str(ps))
  if ts.element_type() != fs.element_type():
    raise BuilderError("select's branches differ in type: %s and %s" % (_shape_str(ts),
                                                                        _shape_str(fs)))
  (pred, on_true, on_false), dims = _broadcast_scalars(b, [pred, on_true, on_false])
  return b._add("select", Shape.array_shape(ts.element_type(), dims), (pred, on_true, on_false))


@_op
def Clamp(min, operand, max):  # pylint: disable=redefined-builtin
  b = _same_builder(min, operand, max)
  shapes = [_array_shape(x) for x in (min, operand, max)]
  if len({s.element_type() for s in shapes}) != 1:
    raise BuilderError("clamp operands differ in type: %s" % ", ".join(_shape_str(s) for s in shapes))
  (min, operand, max), dims = _broadcast_scalars(b, [min, operand, max])
  return b._add("clamp", Shape.array_shape(shapes[1].element_type(), dims), (min, operand, max))


# --- shape manipulation ---------------------------------------------------------------

@_op
def Broadcast(operand, sizes):
  """Adds leading dimensions `sizes` (XLA's Broadcast)."""
  b = _same_builder(operand)
  s = _array_shape(operand)
  sizes = _dims(sizes)
  if any(d < 0 for d in sizes):
    raise BuilderError("negative broadcast size in %s" % sizes)
  out = Shape.array_shape(s.element_type(), sizes + list(s.dimensions()))
  return b._add("broadcast", out, (operand,),
                dimensions=list(range(len(sizes), len(sizes) + s.rank())))


@_op
def BroadcastInDim(operand, shape, broadcast_dimensions):
  """Broadcasts to dimensions `shape`; operand dim i becomes output dim bd[i]."""
  b = _same_builder(operand)
  s = _array_shape(operand)
  out_dims = _dims(shape.dimensions() if isinstance(shape, Shape) else shape)
  bd = _dims(broadcast_dimensions)
  if len(bd) != s.rank():
    raise BuilderError("broadcast_dimensions %s needs one entry per operand dimension (%d)" %
                       (bd, s.rank()))
  for i, d in enumerate(bd):
    if not 0 <= d < len(out_dims):
      raise BuilderError("broadcast dimension %d out of range for rank %d" % (d, len(out_dims)))
    if s.dimensions()[i] not in (1, out_dims[d]):
      raise BuilderError("operand dimension %d (size %d) does not match output dimension %d "
                         "(size %d)" % (i, s.dimensions()[i], d, out_dims[d]))
  if len(set(bd)) != len(bd):
    raise BuilderError("broadcast_dimensions %s repeat a dimension" % bd)
  if s.dimensions() == tuple(out_dims) and bd == list(range(s.rank())):
    return operand
  return _broadcast_to(b, operand, s, out_dims, bd)


@_op
def Reshape(operand, dimensions_or_new_sizes, new_sizes=None):
  """Reshape(operand, new_sizes) or Reshape(operand, dimensions, new_sizes)."""
  b = _same_builder(operand)
  s = _array_shape(operand)
  if new_sizes is not None and dimensions_or_new_sizes is not None:
    operand = Transpose(operand, dimensions_or_new_sizes)
    s = _array_shape(operand)
  elif new_sizes is None:
    new_sizes = dimensions_or_new_sizes
  new_sizes = _dims(new_sizes)
  if any(d < 0 for d in new_sizes):
    raise BuilderError("negative size in %s" % new_sizes)
  count = int(np.prod(new_sizes, dtype=np.int64)) if new_sizes else 1
  if count != s.element_count():
    raise BuilderError("cannot reshape %s (%d elements) to %s (%d elements)" %
                       (_shape_str(s), s.element_count(), new_sizes, count))
  return b._add("reshape", Shape.array_shape(s.element_type(), new_sizes), (operand,))


@_op
def Collapse(operand, dimensions):
  s = _array_shape(operand)
  dims = sorted(_dims(dimensions))
  if not dims:
    return operand
  if dims != list(range(dims[0], dims[0] + len(dims))):
    raise BuilderError("Collapse dimensions %s must be consecutive" % dims)
  sizes = list(s.dimensions())
  merged = int(np.prod([sizes[d] for d in dims], dtype=np.int64))
  return Reshape(operand, sizes[:dims[0]] + [merged] + sizes[dims[-1] + 1:])


@_op
def Transpose(operand, permutation):
  b = _same_builder(operand)
  s = _array_shape(operand)
  perm = _dims(permutation)
  if sorted(perm) != list(range(s.rank())):
    raise BuilderError("permutation %s is not a permutation of %d dimensions" % (perm, s.rank()))
  out = Shape.array_shape(s.element_type(), [s.dimensions()[p] for p in perm])
  return b._add("transpose", out, (operand,), dimensions=perm)


@_op
def Rev(operand, dimensions):
  b = _same_builder(operand)
  s = _array_shape(operand)
  dims = [_canonical_dim(d, s.rank()) for d in dimensions]
  if len(set(dims)) != len(dims):
    raise BuilderError("Rev dimensions %s repeat" % dims)
  return b._add("reverse", Shape.array_shape(s.element_type(), s.dimensions()), (operand,),
                dimensions=dims)


@_op
def Slice(operand, start_indices, limit_indices, strides=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  starts, limits = _dims(start_indices), _dims(limit_indices)
  strides = _dims(strides) if strides is not None else [1] * s.rank()
  if not len(starts) == len(limits) == len(strides) == s.rank():
    raise BuilderError("slice of %s needs %d start/limit/stride values" % (_shape_str(s), s.rank()))
  out, dims = [], []
  for i, (lo, hi, st) in enumerate(zip(starts, limits, strides)):
    if st < 1:
      raise BuilderError("slice stride %d of dimension %d must be positive" % (st, i))
    if not 0 <= lo <= hi <= s.dimensions()[i]:
      raise BuilderError("slice [%d:%d] of dimension %d (size %d) is out of bounds" %
                         (lo, hi, i, s.dimensions()[i]))
    out.append((hi - lo + st - 1) // st)
    dims.append(hlo_pb2.HloInstructionProto.SliceDimensions(start=lo, limit=hi, stride=st))
  return b._add("slice", Shape.array_shape(s.element_type(), out), (operand,), slice_dimensions=dims)


@_op
def SliceInDim(operand, start_index, limit_index, stride, dimno):
  s = _array_shape(operand)
  dim = _canonical_dim(dimno, s.rank())
  starts, limits, strides = [0] * s.rank(), list(s.dimensions()), [1] * s.rank()
  starts[dim], limits[dim], strides[dim] = start_index, limit_index, stride
  return Slice(operand, starts, limits, strides)


def _index_operands(b, start_indices, rank, what):
  if isinstance(start_indices, XlaOp):
    s = _array_shape(start_indices)
    if s.rank() == 1:  # one vector of indices: split it into scalars
      start_indices = [Reshape(Slice(start_indices, [i], [i + 1], [1]), [])
                       for i in range(s.dimensions()[0])]
    else:
      start_indices = [start_indices]
  indices = list(start_indices)
  if len(indices) != rank:
    raise BuilderError("%s needs %d start indices, got %d" % (what, rank, len(indices)))
  etype = None
  for x in indices:
    xs = _array_shape(x, "start index")
    if xs.rank() != 0 or not _types.is_integral(xs.element_type()):
      raise BuilderError("%s start indices must be integral scalars, got %s" % (what,
                                                                                _shape_str(xs)))
    if etype is not None and xs.element_type() != etype:
      raise BuilderError("%s start indices must share one type" % what)
    etype = xs.element_type()
  return indices


@_op
def DynamicSlice(operand, start_indices, slice_sizes):
  b = _same_builder(operand)
  s = _array_shape(operand)
  sizes = _dims(slice_sizes)
  indices = _index_operands(b, start_indices, s.rank(), "DynamicSlice")
  if len(sizes) != s.rank():
    raise BuilderError("DynamicSlice of %s needs %d slice sizes" % (_shape_str(s), s.rank()))
  for i, (z, d) in enumerate(zip(sizes, s.dimensions())):
    if not 0 <= z <= d:
      raise BuilderError("slice size %d of dimension %d exceeds its size %d" % (z, i, d))
  return b._add("dynamic-slice", Shape.array_shape(s.element_type(), sizes),
                [operand] + indices, dynamic_slice_sizes=sizes)


@_op
def DynamicUpdateSlice(operand, update, start_indices):
  b = _same_builder(operand, update)
  s, u = _array_shape(operand), _array_shape(update, "update")
  if s.element_type() != u.element_type() or s.rank() != u.rank():
    raise BuilderError("update %s does not match operand %s" % (_shape_str(u), _shape_str(s)))
  for i, (x, d) in enumerate(zip(u.dimensions(), s.dimensions())):
    if x > d:
      raise BuilderError("update dimension %d (size %d) exceeds the operand's (%d)" % (i, x, d))
  indices = _index_operands(b, start_indices, s.rank(), "DynamicUpdateSlice")
  return b._add("dynamic-update-slice", Shape.array_shape(s.element_type(), s.dimensions()),
                [operand, update] + indices)


@_op
def ConcatInDim(builder, operands, dimension):
  operands = list(operands)
  if not operands:
    raise BuilderError("ConcatInDim needs at least one operand")
  b = _same_builder(*operands)
  shapes = [_array_shape(o) for o in operands]
  first = shapes[0]
  dim = _canonical_dim(dimension, first.rank())
  total = 0
  for s in shapes:
    if s.element_type() != first.element_type() or s.rank() != first.rank():
      raise BuilderError("cannot concatenate %s and %s" % (_shape_str(first), _shape_str(s)))
    for i in range(s.rank()):
      if i != dim and s.dimensions()[i] != first.dimensions()[i]:
        raise BuilderError("cannot concatenate %s and %s along dimension %d" %
                           (_shape_str(first), _shape_str(s), dim))
    total += s.dimensions()[dim]
  dims = list(first.dimensions())
  dims[dim] = total
  return b._add("concatenate", Shape.array_shape(first.element_type(), dims), operands,
                dimensions=[dim])


@_op
def Pad(operand, padding_value, padding_config):
  b = _same_builder(operand, padding_value)
  s, v = _array_shape(operand), _array_shape(padding_value, "padding value")
  if v.rank() != 0 or v.element_type() != s.element_type():
    raise BuilderError("padding value must be a %s scalar, got %s" %
                       (_types.lowercase_name(s.element_type()), _shape_str(v)))
  from ._helpers import make_padding_config  # pylint: disable=g-import-not-at-top
  config = padding_config if isinstance(padding_config, xla_data_pb2.PaddingConfig) else (
      make_padding_config(padding_config))
  if len(config.dimensions) != s.rank():
    raise BuilderError("padding config has %d dimensions, operand %s" % (len(config.dimensions),
                                                                        _shape_str(s)))
  out = []
  for i, (d, p) in enumerate(zip(s.dimensions(), config.dimensions)):
    if p.interior_padding < 0:
      raise BuilderError("negative interior padding in dimension %d" % i)
    size = p.edge_padding_low + p.edge_padding_high + d + max(d - 1, 0) * p.interior_padding
    if size < 0:
      raise BuilderError("padding makes dimension %d negative (%d)" % (i, size))
    out.append(size)
  return b._add("pad", Shape.array_shape(s.element_type(), out), (operand, padding_value),
                padding_config=config)


# --- tuples and control flow ----------------------------------------------------------

@_op
def Tuple(builder, elements):
  elements = list(elements)
  for e in elements:
    builder._check(e)
  shape = Shape.tuple_shape([_shape(e) for e in elements])
  return builder._add("tuple", shape, elements)


@_op
def GetTupleElement(tuple_data, index):
  b = _same_builder(tuple_data)
  s = _shape(tuple_data)
  if not s.is_tuple():
    raise BuilderError("GetTupleElement of non-tuple %s" % s)
  index = int(index)
  if not 0 <= index < len(s.tuple_shapes()):
    raise BuilderError("tuple index %d out of range for %s" % (index, s))
  return b._add("get-tuple-element", s.tuple_shapes()[index], (tuple_data,), tuple_index=index)


def _program_shape(computation, what):
  if not isinstance(computation, XlaComputation):
    raise BuilderError("%s must be an XlaComputation (builder.build()), got %s" %
                       (what, type(computation).__name__))
  return computation.program_shape()


@_op
def Call(builder, computation, operands=()):
  operands = list(operands)
  for o in operands:
    builder._check(o)
  ps = _program_shape(computation, "computation")
  params = ps.parameter_shapes()
  if len(params) != len(operands):
    raise BuilderError("computation takes %d parameters, got %d operands" % (len(params),
                                                                             len(operands)))
  for i, (p, o) in enumerate(zip(params, operands)):
    if not p.compatible(_shape(o)):
      raise BuilderError("operand %d is %s, the computation's parameter is %s" % (i, _shape(o), p))
  cid = builder._add_computation(computation)
  return builder._add("call", ps.result_shape(), operands, called_computation_ids=[cid])


@_op
def While(cond, body, init):
  b = _same_builder(init)
  s = _shape(init)
  cs, bs = _program_shape(cond, "condition"), _program_shape(body, "body")
  if len(cs.parameter_shapes()) != 1 or not cs.parameter_shapes()[0].compatible(s):
    raise BuilderError("condition must take one parameter of the init shape %s, takes %s" %
                       (s, cs.parameter_shapes()))
  rs = cs.result_shape()
  if not rs.is_array() or rs.element_type() != _P.PRED or rs.rank() != 0:
    raise BuilderError("condition must return a pred scalar, returns %s" % rs)
  if len(bs.parameter_shapes()) != 1 or not bs.parameter_shapes()[0].compatible(s):
    raise BuilderError("body must take one parameter of the init shape %s, takes %s" %
                       (s, bs.parameter_shapes()))
  if not bs.result_shape().compatible(s):
    raise BuilderError("body must return the init shape %s, returns %s" % (s, bs.result_shape()))
  body_id = b._add_computation(body)
  cond_id = b._add_computation(cond)
  return b._add("while", s, (init,), called_computation_ids=[body_id, cond_id])


@_op
def Conditional(branch_index, *args):
  """Conditional(branch_index, branch_computations, branch_operands), or
  Conditional(pred, true_operand, true_computation, false_operand, false_computation)."""
  if len(args) == 4:
    computations, operands = [args[1], args[3]], [args[0], args[2]]
  elif len(args) == 2:
    computations, operands = list(args[0]), list(args[1])
  else:
    raise BuilderError("Conditional takes (index, computations, operands) or "
                       "(pred, true_operand, true_computation, false_operand, false_computation)")
  b = _same_builder(branch_index, *operands)
  idx = _array_shape(branch_index, "branch index")
  if idx.rank() != 0 or idx.element_type() not in (_P.PRED, _P.S32):
    raise BuilderError("branch index must be a pred or s32 scalar, got %s" % _shape_str(idx))
  if idx.element_type() == _P.PRED and len(args) == 2:
    raise BuilderError("a pred selector takes the (pred, true_operand, true_computation, "
                       "false_operand, false_computation) form")
  if not computations or len(computations) != len(operands):
    raise BuilderError("%d branch computations but %d operands" % (len(computations),
                                                                   len(operands)))
  result = None
  for i, (c, o) in enumerate(zip(computations, operands)):
    ps = _program_shape(c, "branch computation %d" % i)
    if len(ps.parameter_shapes()) != 1 or not ps.parameter_shapes()[0].compatible(_shape(o)):
      raise BuilderError("branch %d must take one parameter of shape %s" % (i, _shape(o)))
    if result is None:
      result = ps.result_shape()
    elif not result.compatible(ps.result_shape()):
      raise BuilderError("branches return different shapes: %s and %s" % (result,
                                                                          ps.result_shape()))
  ids = [b._add_computation(c) for c in computations]
  return b._add("conditional", result, [branch_index] + operands, called_computation_ids=ids)


@_op
def Map(builder, operands, computation, dimensions, static_operands=()):
  operands = list(operands)
  if static_operands:
    raise BuilderError("static_operands are not supported by Map")
  b = _same_builder(*operands)
  shapes = [_array_shape(o) for o in operands]
  ps = _program_shape(computation, "computation")
  if len(ps.parameter_shapes()) != len(operands):
    raise BuilderError("computation takes %d parameters, got %d operands" %
                       (len(ps.parameter_shapes()), len(operands)))
  for s in shapes:
    if s.dimensions() != shapes[0].dimensions():
      raise BuilderError("Map operands differ in dimensions: %s" % shapes)
  for p, s in zip(ps.parameter_shapes(), shapes):
    if p.rank() != 0 or p.element_type() != s.element_type():
      raise BuilderError("computation parameter %s does not match operand %s" % (p, s))
  r = ps.result_shape()
  if not r.is_array() or r.rank() != 0:
    raise BuilderError("Map computation must return a scalar, returns %s" % r)
  cid = b._add_computation(computation)
  out = Shape.array_shape(r.element_type(), shapes[0].dimensions())
  return b._add("map", out, operands, called_computation_ids=[cid],
                dimensions=_dims(dimensions) or list(range(shapes[0].rank())))


# --- reductions -----------------------------------------------------------------------

def _check_reducer(ps, init_shapes, what):
  n = len(init_shapes)
  params = ps.parameter_shapes()
  if len(params) != 2 * n:
    raise BuilderError("%s computation must take %d parameters, takes %d" % (what, 2 * n,
                                                                              len(params)))
  for i, p in enumerate(params):
    want = init_shapes[i % n]
    if not p.compatible(want):
      raise BuilderError("%s computation parameter %d is %s, expected %s" % (what, i, p, want))
  r = ps.result_shape()
  results = r.tuple_shapes() if n > 1 else [r]
  if n > 1 and not r.is_tuple():
    raise BuilderError("%s computation must return a tuple of %d scalars" % (what, n))
  for i, x in enumerate(results):
    if not x.compatible(init_shapes[i]):
      raise BuilderError("%s computation returns %s, expected %s" % (what, r, init_shapes[i]))


def _as_list(x):
  return list(x) if isinstance(x, (list, tuple)) else [x]


@_op
def Reduce(builder, operands, init_values, computation, dimensions_to_reduce):
  operands, inits = _as_list(operands), _as_list(init_values)
  if not operands or len(operands) != len(inits):
    raise BuilderError("Reduce needs as many init values as operands (%d, %d)" %
                       (len(operands), len(inits)))
  b = _same_builder(*(operands + inits))
  shapes = [_array_shape(o) for o in operands]
  init_shapes = [_array_shape(i, "init value") for i in inits]
  for s in shapes:
    if s.dimensions() != shapes[0].dimensions():
      raise BuilderError("Reduce operands differ in dimensions: %s" % shapes)
  for s in init_shapes:
    if s.rank() != 0:
      raise BuilderError("init values must be scalars, got %s" % s)
  dims = sorted(_canonical_dim(d, shapes[0].rank()) for d in dimensions_to_reduce)
  if len(set(dims)) != len(dims):
    raise BuilderError("dimensions_to_reduce %s repeat" % dims)
  _check_reducer(_program_shape(computation, "reducer"), init_shapes, "reducer")
  kept = [d for i, d in enumerate(shapes[0].dimensions()) if i not in dims]
  outs = [Shape.array_shape(i.element_type(), kept) for i in init_shapes]
  out = outs[0] if len(outs) == 1 else Shape.tuple_shape(outs)
  cid = b._add_computation(computation)
  return b._add("reduce", out, operands + inits, dimensions=dims, called_computation_ids=[cid])


def _window(rank, window_dimensions, window_strides, padding, base_dilations=None,
            window_dilations=None):
  dims = _dims(window_dimensions)
  strides = _dims(window_strides) if window_strides is not None else [1] * len(dims)
  base = _dims(base_dilations) if base_dilations else [1] * len(dims)
  wdil = _dims(window_dilations) if window_dilations else [1] * len(dims)
  pads = [tuple(_dims(p)) for p in padding] if padding is not None else [(0, 0)] * len(dims)
  if not len(dims) == len(strides) == len(base) == len(wdil) == len(pads) == rank:
    raise BuilderError("window needs %d dimensions, strides, dilations and paddings" % rank)
  window = xla_data_pb2.Window()
  for i in range(rank):
    if dims[i] < 1 or strides[i] < 1 or base[i] < 1 or wdil[i] < 1:
      raise BuilderError("window dimension %d: size, stride and dilations must be positive" % i)
    window.dimensions.add(size=dims[i], stride=strides[i], padding_low=pads[i][0],
                          padding_high=pads[i][1], window_dilation=wdil[i],
                          base_dilation=base[i])
  return window


def _window_output(dims, window):
  out = []
  for d, w in zip(dims, window.dimensions):
    dilated_base = 0 if d == 0 else (d - 1) * w.base_dilation + 1
    padded = dilated_base + w.padding_low + w.padding_high
    dilated_window = (w.size - 1) * w.window_dilation + 1
    out.append(0 if padded < dilated_window else (padded - dilated_window) // w.stride + 1)
  return out


@_op
def ReduceWindowWithGeneralPadding(operand, init_value, computation, window_dimensions,
                                   window_strides, base_dilations, window_dilations, padding):
  operands, inits = _as_list(operand), _as_list(init_value)
  if not operands or len(operands) != len(inits):
    raise BuilderError("ReduceWindow needs as many init values as operands")
  b = _same_builder(*(operands + inits))
  shapes = [_array_shape(o) for o in operands]
  init_shapes = [_array_shape(i, "init value") for i in inits]
  for s in init_shapes:
    if s.rank() != 0:
      raise BuilderError("init values must be scalars, got %s" % s)
  window = _window(shapes[0].rank(), window_dimensions, window_strides, padding,
                   base_dilations, window_dilations)
  _check_reducer(_program_shape(computation, "reducer"), init_shapes, "reducer")
  dims = _window_output(shapes[0].dimensions(), window)
  outs = [Shape.array_shape(i.element_type(), dims) for i in init_shapes]
  out = outs[0] if len(outs) == 1 else Shape.tuple_shape(outs)
  cid = b._add_computation(computation)
  return b._add("reduce-window", out, operands + inits, window=window,
                called_computation_ids=[cid])


def ReduceWindow(operand, init_value, computation, window_dimensions, window_strides,
                 padding):
  """ReduceWindow with a PaddingType (VALID / SAME) or explicit (low, high) pairs."""
  if isinstance(padding, (PaddingType, int)) and not isinstance(padding, bool):
    dims = _as_list(operand)[0].shape().dimensions()
    padding = window_padding_type_to_pad_values(padding, dims, window_dimensions,
                                                window_strides)
  return ReduceWindowWithGeneralPadding(operand, init_value, computation, window_dimensions,
                                        window_strides, (), (), padding)


@_op
def SelectAndScatterWithGeneralPadding(operand, select, window_dimensions, window_strides,
                                       padding, source, init_value, scatter):
  b = _same_builder(operand, source, init_value)
  s = _array_shape(operand)
  window = _window(s.rank(), window_dimensions, window_strides, padding)
  expected = _window_output(s.dimensions(), window)
  src = _array_shape(source, "source")
  if list(src.dimensions()) != expected:
    raise BuilderError("source %s must have the window output dimensions %s" % (src, expected))
  sid = b._add_computation(select)
  tid = b._add_computation(scatter)
  return b._add("select-and-scatter", Shape.array_shape(s.element_type(), s.dimensions()),
                (operand, source, init_value), window=window, called_computation_ids=[sid, tid])


def SelectAndScatter(operand, select, window_dimensions, window_strides, padding, source,
                     init_value, scatter):
  if isinstance(padding, (PaddingType, int)) and not isinstance(padding, bool):
    padding = window_padding_type_to_pad_values(padding, operand.shape().dimensions(),
                                                window_dimensions, window_strides)
  return SelectAndScatterWithGeneralPadding(operand, select, window_dimensions, window_strides,
                                            padding, source, init_value, scatter)


# --- linear algebra -------------------------------------------------------------------

def _precision(precision_config):
  if precision_config is None:
    return None
  if isinstance(precision_config, xla_data_pb2.PrecisionConfig):
    return precision_config
  config = xla_data_pb2.PrecisionConfig()
  config.operand_precision.extend(int(p) for p in precision_config)
  return config


def _dot_dims(ls, rs, dn, rhs_excluded=()):
  """Output dimensions of a dot: batch, lhs free, rhs free (minus rhs_excluded)."""
  lc, rc = list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions)
  lb, rb = list(dn.lhs_batch_dimensions), list(dn.rhs_batch_dimensions)
  if len(lc) != len(rc) or len(lb) != len(rb):
    raise BuilderError("dot needs as many lhs as rhs contracting (and batch) dimensions")
  for d in lc + lb:
    _canonical_dim(d, ls.rank(), "lhs dimension")
  for d in rc + rb:
    _canonical_dim(d, rs.rank(), "rhs dimension")
  if len(set(lc + lb)) != len(lc + lb) or len(set(rc + rb)) != len(rc + rb):
    raise BuilderError("dot dimension numbers repeat a dimension")
  for x, y in zip(lc, rc):
    if ls.dimensions()[x] != rs.dimensions()[y]:
      raise BuilderError("contracting dimension sizes differ: %s dim %d and %s dim %d" %
                         (_shape_str(ls), x, _shape_str(rs), y))
  for x, y in zip(lb, rb):
    if ls.dimensions()[x] != rs.dimensions()[y]:
      raise BuilderError("batch dimension sizes differ: %s dim %d and %s dim %d" %
                         (_shape_str(ls), x, _shape_str(rs), y))
  out = [ls.dimensions()[d] for d in lb]
  out += [d for i, d in enumerate(ls.dimensions()) if i not in lc and i not in lb]
  out += [d for i, d in enumerate(rs.dimensions())
          if i not in rc and i not in rb and i not in rhs_excluded]
  return out


@_op
def DotGeneral(lhs, rhs, dimension_numbers, precision_config=None,
               preferred_element_type=None):
  from ._helpers import make_dot_dimension_numbers  # pylint: disable=g-import-not-at-top
  b = _same_builder(lhs, rhs)
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  dn = make_dot_dimension_numbers(dimension_numbers)
  if ls.element_type() != rs.element_type() and preferred_element_type is None:
    raise BuilderError("dot operands differ in type: %s and %s" % (_shape_str(ls),
                                                                   _shape_str(rs)))
  out = _dot_dims(ls, rs, dn)
  etype = ls.element_type() if preferred_element_type is None else (
      _types.as_etype(preferred_element_type))
  return b._add("dot", Shape.array_shape(etype, out), (lhs, rhs), dot_dimension_numbers=dn,
                precision_config=_precision(precision_config))


@_op
def RaggedDot(lhs, rhs, group_sizes, dimension_numbers, precision_config=None,
              preferred_element_type=None):
  """A dot whose lhs ragged dimension is split into groups of group_sizes rows.

  dimension_numbers: a RaggedDotDimensionNumbers, or (dot dimension numbers,
  lhs_ragged_dimensions, rhs_group_dimensions).
  """
  from ._helpers import make_dot_dimension_numbers  # pylint: disable=g-import-not-at-top
  b = _same_builder(lhs, rhs, group_sizes)
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  gs = _array_shape(group_sizes, "group_sizes")
  rdn = dimension_numbers
  if not isinstance(rdn, xla_data_pb2.RaggedDotDimensionNumbers):
    dot, ragged, group = dimension_numbers
    rdn = xla_data_pb2.RaggedDotDimensionNumbers(
        dot_dimension_numbers=make_dot_dimension_numbers(dot),
        lhs_ragged_dimensions=_dims(ragged), rhs_group_dimensions=_dims(group))
  dn = rdn.dot_dimension_numbers
  ragged, group = list(rdn.lhs_ragged_dimensions), list(rdn.rhs_group_dimensions)
  if ls.element_type() != rs.element_type() and preferred_element_type is None:
    raise BuilderError("ragged dot operands differ in type: %s and %s" % (_shape_str(ls),
                                                                          _shape_str(rs)))
  if len(ragged) != 1:
    raise BuilderError("RaggedDot needs exactly one lhs ragged dimension, got %s" % ragged)
  _canonical_dim(ragged[0], ls.rank(), "lhs ragged dimension")
  if len(group) > 1:
    raise BuilderError("RaggedDot takes at most one rhs group dimension, got %s" % group)
  if gs.rank() < 1 or not _types.is_integral(gs.element_type()):
    raise BuilderError("group_sizes must be an integral array, got %s" % _shape_str(gs))
  groups = gs.dimensions()[-1]
  contracting = ragged[0] in dn.lhs_contracting_dimensions
  batch = ragged[0] in dn.lhs_batch_dimensions
  if contracting or batch:
    if group:
      raise BuilderError("a ragged %s dimension takes no rhs group dimension" %
                         ("contracting" if contracting else "batch"))
  else:
    if len(group) != 1:
      raise BuilderError("a ragged non-contracting dimension needs one rhs group dimension")
    _canonical_dim(group[0], rs.rank(), "rhs group dimension")
    if group[0] in dn.rhs_contracting_dimensions or group[0] in dn.rhs_batch_dimensions:
      raise BuilderError("the rhs group dimension must not be contracting or batch")
    if rs.dimensions()[group[0]] != groups:
      raise BuilderError("rhs group dimension %d has size %d, group_sizes has %d groups" %
                         (group[0], rs.dimensions()[group[0]], groups))
  out = _dot_dims(ls, rs, dn, group)
  if contracting:
    out = [groups] + out
  etype = ls.element_type() if preferred_element_type is None else (
      _types.as_etype(preferred_element_type))
  return b._add("ragged-dot", Shape.array_shape(etype, out), (lhs, rhs, group_sizes),
                ragged_dot_dimension_numbers=rdn, precision_config=_precision(precision_config))


@_op
def Dot(lhs, rhs, precision_config=None, preferred_element_type=None):
  """Vector/matrix products of rank-1 and rank-2 operands (lhs's last dim, rhs's first)."""
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  if ls.rank() not in (1, 2) or rs.rank() not in (1, 2):
    raise BuilderError("Dot takes rank-1 or rank-2 operands, got %s and %s (use DotGeneral)" %
                       (_shape_str(ls), _shape_str(rs)))
  return DotGeneral(lhs, rhs, (([ls.rank() - 1], [0]), ([], [])), precision_config,
                    preferred_element_type)


@_op
def ConvGeneralDilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                       dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                       precision_config=None, preferred_element_type=None):
  from ._helpers import make_convolution_dimension_numbers  # pylint: disable=g-import-not-at-top
  b = _same_builder(lhs, rhs)
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  nspatial = ls.rank() - 2
  if nspatial < 0 or rs.rank() != ls.rank():
    raise BuilderError("convolution operands need equal ranks >= 2, got %s and %s" %
                       (_shape_str(ls), _shape_str(rs)))
  dn = make_convolution_dimension_numbers(dimension_numbers, nspatial)
  if ls.element_type() != rs.element_type() and preferred_element_type is None:
    raise BuilderError("convolution operands differ in type: %s and %s" % (_shape_str(ls),
                                                                           _shape_str(rs)))
  if isinstance(padding, (PaddingType, int)) and not isinstance(padding, bool):
    in_sp = [ls.dimensions()[d] for d in dn.input_spatial_dimensions]
    k_sp = [rs.dimensions()[d] for d in dn.kernel_spatial_dimensions]
    padding = window_padding_type_to_pad_values(padding, in_sp, k_sp, window_strides)
  fgc, bgc = int(feature_group_count), int(batch_group_count)
  if fgc < 1 or bgc < 1:
    raise BuilderError("group counts must be positive")
  in_batch = ls.dimensions()[dn.input_batch_dimension]
  in_feat = ls.dimensions()[dn.input_feature_dimension]
  k_in = rs.dimensions()[dn.kernel_input_feature_dimension]
  k_out = rs.dimensions()[dn.kernel_output_feature_dimension]
  if in_feat != k_in * fgc:
    raise BuilderError("input feature dimension (%d) must be the kernel's input feature "
                       "dimension (%d) times feature_group_count (%d)" % (in_feat, k_in, fgc))
  if k_out % fgc or k_out % bgc or in_batch % bgc:
    raise BuilderError("output features (%d) / batch (%d) not divisible by the group counts" %
                       (k_out, in_batch))
  k_spatial = [rs.dimensions()[d] for d in dn.kernel_spatial_dimensions]
  window = _window(nspatial, k_spatial, window_strides, padding, lhs_dilation, rhs_dilation)
  in_spatial = [ls.dimensions()[d] for d in dn.input_spatial_dimensions]
  spatial = _window_output(in_spatial, window)
  out = [0] * ls.rank()
  out[dn.output_batch_dimension] = in_batch // bgc
  out[dn.output_feature_dimension] = k_out
  for d, size in zip(dn.output_spatial_dimensions, spatial):
    out[d] = size
  etype = ls.element_type() if preferred_element_type is None else (
      _types.as_etype(preferred_element_type))
  fields = {"window": window, "convolution_dimension_numbers": dn,
            "precision_config": _precision(precision_config)}
  if fgc != 1:
    fields["feature_group_count"] = fgc
  if bgc != 1:
    fields["batch_group_count"] = bgc
  return b._add("convolution", Shape.array_shape(etype, out), (lhs, rhs), **fields)


def ConvWithGeneralPadding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                           precision_config=None):
  return ConvGeneralDilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                            None, 1, 1, precision_config)


def Conv(lhs, rhs, window_strides, padding, feature_group_count=1, batch_group_count=1,
         precision_config=None):
  return ConvGeneralDilated(lhs, rhs, window_strides, padding, (), (), None,
                            feature_group_count, batch_group_count, precision_config)


@_op
def Cholesky(a, lower=True):
  b = _same_builder(a)
  s = _array_shape(a)
  if s.rank() < 2 or s.dimensions()[-1] != s.dimensions()[-2]:
    raise BuilderError("Cholesky needs square matrices, got %s" % _shape_str(s))
  _check_kind(_FLOAT, s.element_type(), "cholesky")
  return b._add("cholesky", Shape.array_shape(s.element_type(), s.dimensions()), (a,),
                cholesky_options=xla_data_pb2.CholeskyOptions(lower=bool(lower)))


@_op
def TriangularSolve(a, b, left_side, lower, unit_diagonal, transpose_a):
  builder = _same_builder(a, b)
  sa, sb = _array_shape(a, "a"), _array_shape(b, "b")
  if sa.element_type() != sb.element_type():
    raise BuilderError("TriangularSolve operands differ in type")
  if sa.rank() < 2 or sa.dimensions()[-1] != sa.dimensions()[-2]:
    raise BuilderError("a must be square matrices, got %s" % _shape_str(sa))
  if sb.rank() != sa.rank() or sa.dimensions()[:-2] != sb.dimensions()[:-2]:
    raise BuilderError("a %s and b %s differ in batch dimensions" % (_shape_str(sa),
                                                                     _shape_str(sb)))
  k = sb.dimensions()[-2] if left_side else sb.dimensions()[-1]
  if k != sa.dimensions()[-1]:
    raise BuilderError("b %s does not match a %s on the %s side" % (
        _shape_str(sb), _shape_str(sa), "left" if left_side else "right"))
  t = xla_data_pb2.TriangularSolveOptions
  if isinstance(transpose_a, bool):
    transpose_a = t.TRANSPOSE if transpose_a else t.NO_TRANSPOSE
  options = t(left_side=bool(left_side), lower=bool(lower), unit_diagonal=bool(unit_diagonal),
              transpose_a=int(transpose_a) or t.NO_TRANSPOSE)
  return builder._add("triangular-solve", Shape.array_shape(sb.element_type(), sb.dimensions()),
                      (a, b), triangular_solve_options=options)


@_op
def Fft(operand, fft_type, fft_length):
  b = _same_builder(operand)
  s = _array_shape(operand)
  fft_type = FftType(int(fft_type))
  length = _dims(fft_length)
  if not 1 <= len(length) <= 3 or len(length) > s.rank():
    raise BuilderError("fft_length must have 1 to 3 entries, at most the rank")
  dims = list(s.dimensions())
  et = s.element_type()
  n = len(length)
  if fft_type in (FftType.FFT, FftType.IFFT):
    if not _types.is_complex(et):
      raise BuilderError("%s needs a complex operand, got %s" % (fft_type.name, _shape_str(s)))
    if dims[-n:] != length:
      raise BuilderError("fft_length %s must match the operand's last dimensions %s" %
                         (length, dims[-n:]))
    out = Shape.array_shape(et, dims)
  elif fft_type == FftType.RFFT:
    if et not in (_P.F32, _P.F64):
      raise BuilderError("RFFT needs an f32 or f64 operand, got %s" % _shape_str(s))
    if dims[-n:] != length:
      raise BuilderError("fft_length %s must match the operand's last dimensions %s" %
                         (length, dims[-n:]))
    dims[-1] = length[-1] // 2 + 1 if length[-1] else 0
    out = Shape.array_shape(_P.C64 if et == _P.F32 else _P.C128, dims)
  else:
    if not _types.is_complex(et):
      raise BuilderError("IRFFT needs a complex operand, got %s" % _shape_str(s))
    if dims[-n:-1] != length[:-1] or dims[-1] != (length[-1] // 2 + 1 if length[-1] else 0):
      raise BuilderError("IRFFT fft_length %s does not match the operand %s" % (length,
                                                                                _shape_str(s)))
    dims[-1] = length[-1]
    out = Shape.array_shape(_complex_component(et), dims)
  return b._add("fft", out, (operand,), fft_type=int(fft_type), fft_length=length)


# --- gather / scatter / sort ----------------------------------------------------------

@_op
def Gather(a, start_indices, dimension_numbers, slice_sizes, indices_are_sorted=False):
  b = _same_builder(a, start_indices)
  s, idx = _array_shape(a), _array_shape(start_indices, "start_indices")
  dn = dimension_numbers
  if not _types.is_integral(idx.element_type()):
    raise BuilderError("gather indices must be integral, got %s" % _shape_str(idx))
  sizes = _dims(slice_sizes)
  if len(sizes) != s.rank():
    raise BuilderError("slice_sizes %s needs one entry per operand dimension (%d)" %
                       (sizes, s.rank()))
  for i, (z, d) in enumerate(zip(sizes, s.dimensions())):
    if not 0 <= z <= d:
      raise BuilderError("slice size %d of dimension %d exceeds its size %d" % (z, i, d))
  ivd = dn.index_vector_dim
  idx_dims = list(idx.dimensions())
  if ivd > len(idx_dims) or ivd < 0:
    raise BuilderError("index_vector_dim %d out of range" % ivd)
  index_len = idx_dims[ivd] if ivd < len(idx_dims) else 1
  if index_len != len(dn.start_index_map):
    raise BuilderError("start_index_map %s needs %d entries (the index vector size)" %
                       (list(dn.start_index_map), index_len))
  collapsed = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  for d in dn.collapsed_slice_dims:
    if sizes[d] > 1:
      raise BuilderError("collapsed slice dimension %d must have slice size <= 1" % d)
  batch_dims = [d for i, d in enumerate(idx_dims) if i != ivd]
  offset_sizes = [z for i, z in enumerate(sizes) if i not in collapsed]
  if len(offset_sizes) != len(dn.offset_dims):
    raise BuilderError("offset_dims %s needs %d entries" % (list(dn.offset_dims),
                                                            len(offset_sizes)))
  rank = len(batch_dims) + len(offset_sizes)
  out, bi, oi = [], 0, 0
  offset_set = set(dn.offset_dims)
  for i in range(rank):
    if i in offset_set:
      out.append(offset_sizes[oi])
      oi += 1
    else:
      out.append(batch_dims[bi])
      bi += 1
  return b._add("gather", Shape.array_shape(s.element_type(), out), (a, start_indices),
                gather_dimension_numbers=dn, gather_slice_sizes=sizes,
                indices_are_sorted=bool(indices_are_sorted))


@_op
def Scatter(a, scatter_indices, updates, update_computation, dimension_numbers,
            indices_are_sorted=False, unique_indices=False):
  operands, upds = _as_list(a), _as_list(updates)
  b = _same_builder(scatter_indices, *(operands + upds))
  shapes = [_array_shape(o) for o in operands]
  idx = _array_shape(scatter_indices, "scatter_indices")
  if not _types.is_integral(idx.element_type()):
    raise BuilderError("scatter indices must be integral, got %s" % _shape_str(idx))
  if len(upds) != len(operands):
    raise BuilderError("Scatter needs one update per operand")
  scalars = [Shape.scalar_shape(s.element_type()) for s in shapes]
  _check_reducer(_program_shape(update_computation, "update_computation"), scalars,
                 "update_computation")
  out = shapes[0] if len(shapes) == 1 else Shape.tuple_shape(shapes)
  cid = b._add_computation(update_computation)
  return b._add("scatter", out, operands + [scatter_indices] + upds,
                scatter_dimension_numbers=dimension_numbers,
                indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
                called_computation_ids=[cid])


def _default_comparator(shapes):
  sub = XlaBuilder("comparator")
  params = []
  for i, s in enumerate(shapes):
    scalar = Shape.scalar_shape(s.element_type())
    params.append(Parameter(sub, 2 * i, scalar))
    params.append(Parameter(sub, 2 * i + 1, scalar))
  Lt(params[0], params[1])
  return sub.build()


@_op
def Sort(builder, operands, comparator=None, dimension=-1, is_stable=False):
  """Sorts operands along dimension with comparator (default: ascending by operand 0)."""
  if isinstance(builder, XlaOp):  # Sort(operand, ...) shorthand
    operands, builder = builder, builder._builder
  operands = _as_list(operands)
  b = _same_builder(*operands)
  shapes = [_array_shape(o) for o in operands]
  for s in shapes:
    if s.dimensions() != shapes[0].dimensions():
      raise BuilderError("Sort operands differ in dimensions: %s" % shapes)
  if shapes[0].rank() == 0:
    raise BuilderError("Sort needs arrays of rank >= 1")
  dim = _canonical_dim(dimension, shapes[0].rank())
  if comparator is None:
    comparator = _default_comparator(shapes)
  ps = _program_shape(comparator, "comparator")
  want = []
  for s in shapes:
    want += [Shape.scalar_shape(s.element_type())] * 2
  got = ps.parameter_shapes()
  if len(got) != len(want) or not all(x.compatible(y) for x, y in zip(got, want)):
    raise BuilderError("comparator must take %s, takes %s" % (want, got))
  r = ps.result_shape()
  if not (r.is_array() and r.rank() == 0 and r.element_type() == _P.PRED):
    raise BuilderError("comparator must return a pred scalar, returns %s" % r)
  out = shapes[0] if len(shapes) == 1 else Shape.tuple_shape(shapes)
  cid = b._add_computation(comparator)
  return b._add("sort", out, operands, dimensions=[dim], is_stable=bool(is_stable),
                called_computation_ids=[cid])


@_op
def TopK(operand, k, largest=True):
  b = _same_builder(operand)
  s = _array_shape(operand)
  k = int(k)
  if s.rank() == 0 or not 0 <= k <= s.dimensions()[-1]:
    raise BuilderError("TopK k=%d needs an operand whose last dimension is >= k, got %s" %
                       (k, _shape_str(s)))
  dims = list(s.dimensions()[:-1]) + [k]
  out = Shape.tuple_shape([Shape.array_shape(s.element_type(), dims),
                           Shape.array_shape(_P.S32, dims)])
  fields = {"k": k}
  if largest:
    fields["largest"] = True
  return b._add("topk", out, (operand,), **fields)


# --- random numbers -------------------------------------------------------------------

def _rng(distribution, a, b_, shape):
  b = _same_builder(a, b_)
  sa, sb = _array_shape(a), _array_shape(b_)
  if sa.rank() != 0 or sb.rank() != 0 or sa.element_type() != sb.element_type():
    raise BuilderError("rng parameters must be scalars of one type, got %s and %s" % (sa, sb))
  if shape.element_type() != sa.element_type():
    raise BuilderError("rng shape %s does not match the parameter type %s" % (shape, sa))
  return b._add("rng", shape, (a, b_), distribution=distribution)


@_op
def RngUniform(a, b, shape):
  return _rng(xla_data_pb2.RNG_UNIFORM, a, b, shape)


@_op
def RngNormal(mu, sigma, shape):
  if not _types.is_floating(shape.element_type()):
    raise BuilderError("RngNormal needs a floating-point shape, got %s" % shape)
  return _rng(xla_data_pb2.RNG_NORMAL, mu, sigma, shape)


@_op
def RngBitGenerator(algorithm, initial_state, shape):
  b = _same_builder(initial_state)
  state = _array_shape(initial_state, "initial_state")
  if state.element_type() != _P.U64 or state.rank() != 1:
    raise BuilderError("initial_state must be u64[N], got %s" % _shape_str(state))
  if not _types.is_integral(shape.element_type()):
    raise BuilderError("RngBitGenerator produces unsigned integers; got shape %s" % shape)
  out = Shape.tuple_shape([state, shape])
  return b._add("rng-bit-generator", out, (initial_state,), rng_algorithm=int(algorithm))


# --- tokens, infeed/outfeed, custom calls ---------------------------------------------

@_op
def CreateToken(builder):
  return builder._add("after-all", Shape.token_shape(), ())


@_op
def AfterAll(builder, tokens):
  tokens = list(tokens)
  for t in tokens:
    if not _shape(t).is_token():
      raise BuilderError("AfterAll takes tokens, got %s" % _shape(t))
  return builder._add("after-all", Shape.token_shape(), tokens)


@_op
def InfeedWithToken(token, shape, config=b""):
  b = _same_builder(token)
  if not _shape(token).is_token():
    raise BuilderError("InfeedWithToken needs a token operand")
  out = Shape.tuple_shape([shape, Shape.token_shape()])
  return b._add("infeed", out, (token,), infeed_config=_bytes(config))


def Infeed(builder, shape, config=b""):
  """The next value of the device's infeed queue (a token is made for it)."""
  return GetTupleElement(InfeedWithToken(CreateToken(builder), shape, config), 0)


@_op
def OutfeedWithToken(operand, token, shape_with_layout=None, outfeed_config=b""):
  b = _same_builder(operand, token)
  s = _shape(operand)
  if shape_with_layout is not None and not shape_with_layout.compatible(s):
    raise BuilderError("outfeed shape %s does not match the operand %s" % (shape_with_layout, s))
  shape = (shape_with_layout or s).with_major_to_minor_layout_if_absent()
  return b._add("outfeed", Shape.token_shape(), (operand, token),
                outfeed_shape=shape.to_proto(), outfeed_config=_bytes(outfeed_config))


def Outfeed(operand, shape_with_layout=None, outfeed_config=b""):
  return OutfeedWithToken(operand, CreateToken(operand._builder), shape_with_layout,
                          outfeed_config)


def _bytes(x):
  return x.encode() if isinstance(x, str) else bytes(x)


@_op
def CustomCall(builder, call_target_name, operands, shape, opaque=b"", has_side_effect=False,
               schedule=None, api_version=None):
  operands = list(operands)
  for o in operands:
    builder._check(o)
  target = call_target_name.decode() if isinstance(call_target_name, bytes) else call_target_name
  fields = {"custom_call_target": target, "backend_config": _bytes(opaque)}
  if has_side_effect:
    fields["custom_call_has_side_effect"] = True
  if schedule is not None:
    fields["custom_call_schedule"] = int(schedule)
  if api_version is not None:
    fields["custom_call_api_version"] = int(api_version)
  return builder._add("custom-call", shape, operands, **fields)


@_op
def CustomCallWithLayout(builder, call_target_name, operands, shape_with_layout,
                         operand_shapes_with_layout, opaque=b"", has_side_effect=False,
                         schedule=None, api_version=None):
  op = CustomCall(builder, call_target_name, operands, shape_with_layout, opaque,
                  has_side_effect, schedule, api_version)
  if op.valid():
    instr = builder.get_op_proto(op)
    instr.constrain_layout = True
    for s in operand_shapes_with_layout:
      instr.operand_shapes_with_layout.add().CopyFrom(
          s.with_major_to_minor_layout_if_absent().to_proto())
  return op


# --- misc -----------------------------------------------------------------------------

@_op
def ReplicaId(builder):
  return builder._add("replica-id", Shape.scalar_shape(_P.U32), ())


@_op
def PartitionId(builder):
  return builder._add("partition-id", Shape.scalar_shape(_P.U32), ())


@_op
def GetDimensionSize(operand, dimension):
  b = _same_builder(operand)
  s = _array_shape(operand)
  dim = _canonical_dim(dimension, s.rank())
  return b._add("get-dimension-size", Shape.scalar_shape(_P.S32), (operand,), dimensions=[dim])


@_op
def OptimizationBarrier(operand):
  b = _same_builder(operand)
  return b._add("opt-barrier", _shape(operand), (operand,))


@_op
def BatchNormTraining(operand, scale, offset, epsilon, feature_index):
  b = _same_builder(operand, scale, offset)
  s = _array_shape(operand)
  f = _canonical_dim(feature_index, s.rank(), "feature_index")
  fs = Shape.array_shape(s.element_type(), (s.dimensions()[f],))
  for x in (scale, offset):
    if not _shape(x).compatible(fs):
      raise BuilderError("scale/offset must be %s, got %s" % (fs, _shape(x)))
  out = Shape.tuple_shape([Shape.array_shape(s.element_type(), s.dimensions()), fs, fs])
  return b._add("batch-norm-training", out, (operand, scale, offset), epsilon=float(epsilon),
                feature_index=f)


@_op
def BatchNormInference(operand, scale, offset, mean, variance, epsilon, feature_index):
  b = _same_builder(operand, scale, offset, mean, variance)
  s = _array_shape(operand)
  f = _canonical_dim(feature_index, s.rank(), "feature_index")
  fs = Shape.array_shape(s.element_type(), (s.dimensions()[f],))
  for x in (scale, offset, mean, variance):
    if not _shape(x).compatible(fs):
      raise BuilderError("scale/offset/mean/variance must be %s, got %s" % (fs, _shape(x)))
  return b._add("batch-norm-inference", Shape.array_shape(s.element_type(), s.dimensions()),
                (operand, scale, offset, mean, variance), epsilon=float(epsilon),
                feature_index=f)


@_op
def BatchNormGrad(operand, scale, batch_mean, batch_var, grad_output, epsilon, feature_index):
  b = _same_builder(operand, scale, batch_mean, batch_var, grad_output)
  s = _array_shape(operand)
  f = _canonical_dim(feature_index, s.rank(), "feature_index")
  fs = Shape.array_shape(s.element_type(), (s.dimensions()[f],))
  if not _shape(grad_output).compatible(s):
    raise BuilderError("grad_output must be %s, got %s" % (s, _shape(grad_output)))
  out = Shape.tuple_shape([Shape.array_shape(s.element_type(), s.dimensions()), fs, fs])
  return b._add("batch-norm-grad", out, (operand, scale, batch_mean, batch_var, grad_output),
                epsilon=float(epsilon), feature_index=f)


@_op
def AllReduce(operand, computation, replica_groups=(), channel_id=None, shape_with_layout=None,
              use_global_device_ids=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  _check_reducer(_program_shape(computation, "computation"),
                 [Shape.scalar_shape(s.element_type())], "all-reduce")
  cid = b._add_computation(computation)
  fields = {"called_computation_ids": [cid], "replica_groups": list(replica_groups)}
  if channel_id is not None:
    fields["channel_id"] = int(channel_id)
  if use_global_device_ids:
    fields["use_global_device_ids"] = True
  return b._add("all-reduce", Shape.array_shape(s.element_type(), s.dimensions()), (operand,),
                **fields)


def _collective_fields(replica_groups, channel_id, use_global_device_ids):
  from ._helpers import make_replica_groups  # pylint: disable=g-import-not-at-top
  groups = replica_groups or []
  if groups and not hasattr(groups[0], "replica_ids"):
    groups = make_replica_groups(groups)
  fields = {"replica_groups": list(groups)}
  if channel_id is not None:
    fields["channel_id"] = int(channel_id)
  if use_global_device_ids:
    fields["use_global_device_ids"] = True
  return fields


@_op
def AllGather(operand, all_gather_dimension, shard_count, replica_groups=None, channel_id=None,
              shape_with_layout=None, use_global_device_ids=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  dim = _canonical_dim(all_gather_dimension, s.rank(), "all_gather_dimension")
  if int(shard_count) < 1:
    raise BuilderError("shard_count must be positive")
  dims = list(s.dimensions())
  dims[dim] *= int(shard_count)
  return b._add("all-gather", Shape.array_shape(s.element_type(), dims), (operand,),
                dimensions=[dim], **_collective_fields(replica_groups, channel_id,
                                                       use_global_device_ids))


@_op
def ReduceScatter(operand, computation, scatter_dimension, shard_count, replica_groups=None,
                  channel_id=None, layout=None, use_global_device_ids=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  dim = _canonical_dim(scatter_dimension, s.rank(), "scatter_dimension")
  count = int(shard_count)
  if count < 1 or s.dimensions()[dim] % count:
    raise BuilderError("scatter dimension %d (size %d) is not divisible by shard_count %d" %
                       (dim, s.dimensions()[dim], count))
  _check_reducer(_program_shape(computation, "computation"),
                 [Shape.scalar_shape(s.element_type())], "reduce-scatter")
  dims = list(s.dimensions())
  dims[dim] //= count
  cid = b._add_computation(computation)
  return b._add("reduce-scatter", Shape.array_shape(s.element_type(), dims), (operand,),
                dimensions=[dim], called_computation_ids=[cid],
                **_collective_fields(replica_groups, channel_id, use_global_device_ids))


@_op
def AllToAll(operand, split_dimension, concat_dimension, split_count, replica_groups=None,
             layout=None, channel_id=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  split = _canonical_dim(split_dimension, s.rank(), "split_dimension")
  concat = _canonical_dim(concat_dimension, s.rank(), "concat_dimension")
  count = int(split_count)
  if count < 1 or s.dimensions()[split] % count:
    raise BuilderError("split dimension %d (size %d) is not divisible by split_count %d" %
                       (split, s.dimensions()[split], count))
  if split != concat and count != 1:
    raise BuilderError("AllToAll with split_dimension != concat_dimension and split_count > 1 "
                       "is not supported by this builder yet")
  return b._add("all-to-all", Shape.array_shape(s.element_type(), s.dimensions()), (operand,),
                dimensions=[split], **_collective_fields(replica_groups, channel_id, None))


@_op
def CollectivePermute(operand, source_target_pairs, channel_id=None):
  b = _same_builder(operand)
  s = _array_shape(operand)
  pairs = []
  for source, target in source_target_pairs:
    pairs.append(xla_data_pb2.SourceTarget(source=int(source), target=int(target)))
  fields = {"source_target_pairs": pairs}
  if channel_id is not None:
    fields["channel_id"] = int(channel_id)
  return b._add("collective-permute", Shape.array_shape(s.element_type(), s.dimensions()),
                (operand,), **fields)


# --- dynamic shapes -------------------------------------------------------------------

def _with_dynamic(s, dim, dynamic):
  flags = [s.is_dynamic_dimension(i) for i in range(s.rank())]
  flags[dim] = dynamic
  return Shape.array_shape(s.element_type(), s.dimensions(), dynamic_dimensions=flags)


@_op
def SetDimensionSize(operand, val, dimension):
  """Marks `dimension` dynamic with runtime size val (an s32 scalar <= its bound)."""
  b = _same_builder(operand, val)
  s = _array_shape(operand)
  dim = _canonical_dim(dimension, s.rank())
  vs = _array_shape(val, "size")
  if vs.rank() != 0 or vs.element_type() != _P.S32:
    raise BuilderError("the dimension size must be an s32 scalar, got %s" % _shape_str(vs))
  return b._add("set-dimension-size", _with_dynamic(s, dim, True), (operand, val),
                dimensions=[dim])


def RemoveDynamicDimension(operand, dimension):
  """Makes `dimension` static again (its size becomes the bound)."""
  s = operand.shape()
  dim = _canonical_dim(dimension, s.rank())
  b = operand.builder()
  op = SetDimensionSize(operand, ScalarConstant(b, s.dimensions()[dim], _P.S32), dim)
  if op.valid():
    proto = b.get_op_proto(op)
    proto.shape.is_dynamic_dimension[dim] = False
    b._shapes[op.handle] = _with_dynamic(s, dim, False)
  return op


@_op
def DynamicReshape(operand, dim_sizes, new_size_bounds, dims_are_dynamic):
  """Reshape to runtime sizes dim_sizes (s32 scalars) bounded by new_size_bounds."""
  sizes = list(dim_sizes)
  b = _same_builder(operand, *sizes)
  s = _array_shape(operand)
  bounds = _dims(new_size_bounds)
  flags = [bool(x) for x in dims_are_dynamic]
  if not len(sizes) == len(bounds) == len(flags):
    raise BuilderError("DynamicReshape needs one size, bound and flag per output dimension")
  for x in sizes:
    xs = _array_shape(x, "size")
    if xs.rank() != 0 or xs.element_type() != _P.S32:
      raise BuilderError("DynamicReshape sizes must be s32 scalars, got %s" % _shape_str(xs))
  if int(np.prod(bounds, dtype=np.int64)) < s.element_count() and not any(flags):
    raise BuilderError("bounds %s hold fewer elements than %s" % (bounds, _shape_str(s)))
  out = Shape.array_shape(s.element_type(), bounds, dynamic_dimensions=flags)
  return b._add("dynamic-reshape", out, [operand] + sizes)


# Ops composed from the ones above (XLA's client math library).
from ._ops_math import CrossReplicaSum  # pylint: disable=g-import-not-at-top,wrong-import-position
from ._ops_math import Digamma  # pylint: disable=g-import-not-at-top,wrong-import-position
from ._ops_math import ErfInv  # pylint: disable=g-import-not-at-top,wrong-import-position
from ._ops_math import Lgamma  # pylint: disable=g-import-not-at-top,wrong-import-position
from ._ops_math import NextAfter  # pylint: disable=g-import-not-at-top,wrong-import-position
