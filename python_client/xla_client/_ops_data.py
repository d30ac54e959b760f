"""Data movement: broadcasts, reshapes, slices, concatenation, padding; tuples and control flow."""
# pylint: disable=invalid-name

import numpy as np

from . import _types
from ._builder import BuilderError
from ._builder import XlaComputation
from ._builder import XlaOp
from ._ops_base import _array_shape
from ._ops_base import _canonical_dim
from ._ops_base import _dims
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape
from ._ops_base import _shape_str
from ._ops_elementwise import ConstantLike
from ._ops_elementwise import _broadcast_to
from ._pb import hlo_pb2
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["Broadcast", "BroadcastInDim", "Call", "Collapse", "ConcatInDim", "Conditional",
           "DynamicSlice", "DynamicUpdateSlice", "GetTupleElement", "Map", "Pad", "Reshape", "Rev",
           "Slice", "SliceInDim", "Transpose", "Tuple", "While", "ZerosLike"]


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

def ZerosLike(op):
  return Broadcast(ConstantLike(op, 0), op.shape().dimensions()) if op.valid() else op


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
