"""Reductions, windows, gather / scatter and sorting."""
# pylint: disable=invalid-name

from . import _types
from ._builder import BuilderError
from ._builder import XlaBuilder
from ._builder import XlaOp
from ._helpers import PaddingType
from ._helpers import window_padding_type_to_pad_values
from ._ops_base import _array_shape
from ._ops_base import _canonical_dim
from ._ops_base import _dims
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape_str
from ._ops_data import GetTupleElement
from ._ops_data import SliceInDim
from ._ops_data import Tuple
from ._ops_data import _program_shape
from ._ops_elementwise import Lt
from ._ops_elementwise import Parameter
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["Gather", "Reduce", "ReduceWindow", "ReduceWindowWithGeneralPadding", "Scatter",
           "SelectAndScatter", "SelectAndScatterWithGeneralPadding", "Sort", "TopK", "ApproxTopK",
           "ApproxTopKFallback"]


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
def ApproxTopK(builder, operands, init_values, top_k, reduction_dim, comparator, recall_target=0.95,
               aggregate_to_topk=True, reduction_input_size_override=-1):
  """XLA's ApproxTopK as XLA computes it off TPU (ApproxTopKFallback): exactly.

  Sorts `operands` together along `reduction_dim` by `comparator` and keeps the first `top_k`:
  a tuple with one result per operand, as XLA returns. `recall_target` and
  `reduction_input_size_override` only tune TPU's approximation; `init_values` (one scalar per
  operand) pad TPU's partial reductions. aggregate_to_topk=False asks for TPU's partially
  reduced output, whose size only that hardware defines: a builder error here.
  """
  return ApproxTopKFallback(builder, operands, init_values, top_k, reduction_dim, comparator,
                            recall_target, aggregate_to_topk, reduction_input_size_override)


@_op
def ApproxTopKFallback(builder, operands, init_values, top_k, reduction_dim, comparator,
                       recall_target=0.95, aggregate_to_topk=True, reduction_input_size_override=-1):
  """The sort-and-slice form of ApproxTopK (what XLA runs where there is no TPU)."""
  operands, init_values = _as_list(operands), _as_list(init_values)
  if not operands:
    raise BuilderError("ApproxTopK needs at least one operand")
  b = _same_builder(*operands)
  shapes = [_array_shape(o) for o in operands]
  if len(init_values) != len(operands):
    raise BuilderError("ApproxTopK needs one init value per operand: %d operands, %d init values" %
                       (len(operands), len(init_values)))
  for o, v in zip(shapes, init_values):
    vs = _array_shape(v, "init value")
    if vs.rank() != 0 or vs.element_type() != o.element_type():
      raise BuilderError("ApproxTopK init values must be scalars of their operand's type: %s for %s" %
                         (_shape_str(vs), _shape_str(o)))
  if not 0 < recall_target <= 1:
    raise BuilderError("ApproxTopK recall_target must be in (0, 1], got %r" % recall_target)
  if not aggregate_to_topk:
    raise BuilderError("ApproxTopK with aggregate_to_topk=False returns TPU's partially reduced "
                       "output; only aggregate_to_topk=True is supported here")
  if shapes[0].rank() == 0:
    raise BuilderError("ApproxTopK needs arrays of rank >= 1")
  dim = _canonical_dim(reduction_dim, shapes[0].rank())
  top_k = int(top_k)
  if not 0 <= top_k <= shapes[0].dimensions()[dim]:
    raise BuilderError("ApproxTopK top_k=%d is larger than dimension %d of %s" %
                       (top_k, dim, _shape_str(shapes[0])))
  sorted_ops = Sort(b, operands, comparator, dim)
  if len(operands) == 1:
    sorted_ops = [sorted_ops]
  else:
    sorted_ops = [GetTupleElement(sorted_ops, i) for i in range(len(operands))]
  return Tuple(b, [SliceInDim(x, 0, top_k, 1, dim) for x in sorted_ops])


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
