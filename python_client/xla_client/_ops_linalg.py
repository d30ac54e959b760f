"""Dots, convolutions, factorizations and FFTs."""
# pylint: disable=invalid-name

from . import _types
from ._builder import BuilderError
from ._helpers import FftType
from ._helpers import PaddingType
from ._helpers import window_padding_type_to_pad_values
from ._ops_base import _array_shape
from ._ops_base import _canonical_dim
from ._ops_base import _dims
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape_str
from ._ops_elementwise import _FLOAT
from ._ops_elementwise import _check_kind
from ._ops_elementwise import _complex_component
from ._ops_reduce import _window
from ._ops_reduce import _window_output
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["Cholesky", "Conv", "ConvGeneralDilated", "ConvWithGeneralPadding", "Dot", "DotGeneral",
           "Fft", "RaggedDot", "ScaledDot", "TriangularSolve"]


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
def ScaledDot(lhs, lhs_scale, rhs, rhs_scale, dimension_numbers, precision_config=None,
              preferred_element_type=None):
  """DotGeneral of lhs * lhs_scale and rhs * rhs_scale (XlaBuilder's argument order).

  A scale is a scalar or has its operand's rank, each dimension dividing the operand's: scale
  element s covers the block of operand elements i with i[d] // (operand_dim[d] //
  scale_dim[d]) == s[d]. Operands and scales are converted to the result type (the
  preferred_element_type, else the operands') before multiplying. The HLO operand order is
  scaled-dot(lhs, rhs, lhs_scale, rhs_scale).
  """
  from ._helpers import make_dot_dimension_numbers  # pylint: disable=g-import-not-at-top
  b = _same_builder(lhs, lhs_scale, rhs, rhs_scale)
  ls, rs = _array_shape(lhs, "lhs"), _array_shape(rhs, "rhs")
  for what, operand, scale in (("lhs", ls, lhs_scale), ("rhs", rs, rhs_scale)):
    ss = _array_shape(scale, what + "_scale")
    if _types.is_complex(ss.element_type()) or ss.element_type() == _P.PRED:
      raise BuilderError("%s_scale must be real numbers, got %s" % (what, _shape_str(ss)))
    if ss.rank() == 0:
      continue
    if ss.rank() != operand.rank():
      raise BuilderError("%s_scale %s must be a scalar or have the rank of %s %s" %
                         (what, _shape_str(ss), what, _shape_str(operand)))
    for d, (x, y) in enumerate(zip(operand.dimensions(), ss.dimensions())):
      if (y == 0 and x != 0) or (y != 0 and x % y):
        raise BuilderError("%s_scale %s dimension %d does not divide %s %s" %
                           (what, _shape_str(ss), d, what, _shape_str(operand)))
  if ls.element_type() != rs.element_type() and preferred_element_type is None:
    raise BuilderError("scaled dot operands differ in type: %s and %s (give "
                       "preferred_element_type)" % (_shape_str(ls), _shape_str(rs)))
  dn = make_dot_dimension_numbers(dimension_numbers)
  out = _dot_dims(ls, rs, dn)
  etype = ls.element_type() if preferred_element_type is None else (
      _types.as_etype(preferred_element_type))
  return b._add("scaled-dot", Shape.array_shape(etype, out), (lhs, rhs, lhs_scale, rhs_scale),
                dot_dimension_numbers=dn, precision_config=_precision(precision_config))


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
