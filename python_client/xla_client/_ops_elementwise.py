"""Constants, parameters and elementwise ops (XLA's implicit broadcasting)."""
# pylint: disable=invalid-name

from . import _literal
from . import _types
from ._builder import BuilderError
from ._ops_base import _array_shape
from ._ops_base import _canonical_dim
from ._ops_base import _dims
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape_str
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atan2", "Atanh",
           "BitcastConvertType", "Cbrt", "Ceil", "Clamp", "Clz", "Compare", "Complex", "Conj",
           "Constant", "ConstantLike", "ConstantLiteral", "ConvertElementType", "Copy", "Cos",
           "Cosh", "Div", "Eq", "EqTotalOrder", "Erf", "Exp", "Expm1", "Floor", "Ge",
           "GeTotalOrder", "Gt", "GtTotalOrder", "Imag", "Iota", "IsFinite", "Le", "LeTotalOrder",
           "Log", "Log1p", "Logistic", "Lt", "LtTotalOrder", "Max", "Min", "Mul", "Ne",
           "NeTotalOrder", "Neg", "Not", "One", "Or", "Parameter", "PopulationCount", "Pow",
           "Real", "Reciprocal", "ReducePrecision", "Rem", "Round", "RoundNearestEven", "Rsqrt",
           "ScalarConstant", "Select", "ShiftLeft", "ShiftRightArithmetic", "ShiftRightLogical",
           "Sign", "Sin", "Sinh", "Sqrt", "Square", "StochasticConvert", "StochasticConvertType",
           "Sub", "Tan", "Tanh", "Xor", "Zero"]


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
def StochasticConvertType(operand, random, new_element_type):
  """Converts floats to the integer type new_element_type, rounding |operand| up with the
  probability of its fraction: up where the fraction, scaled to random's range, exceeds random
  (unsigned bits of operand's width, operand's dimensions). Saturates; NaN gives 0."""
  etype = _types.as_etype(new_element_type)
  b = _same_builder(operand, random)
  s, r = _array_shape(operand), _array_shape(random, "random")
  if not _types.is_floating(s.element_type()):
    raise BuilderError("StochasticConvertType converts floating-point operands, got %s" %
                       _shape_str(s))
  if not _types.is_unsigned_int(r.element_type()) or (
      _types.bit_width(r.element_type()) != _types.bit_width(s.element_type())):
    raise BuilderError("random must be unsigned integers of the operand's bit width (u%d), "
                       "got %s" % (_types.bit_width(s.element_type()), _shape_str(r)))
  if r.dimensions() != s.dimensions():
    raise BuilderError("random %s must have the operand's dimensions %s" % (_shape_str(r),
                                                                           _shape_str(s)))
  if not _types.is_integral(etype) or etype == _P.PRED:
    raise BuilderError("StochasticConvertType produces integers, got %s" %
                       _types.lowercase_name(etype))
  return b._add("stochastic-convert", Shape.array_shape(etype, s.dimensions()), (operand, random))


StochasticConvert = StochasticConvertType


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
