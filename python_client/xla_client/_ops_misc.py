"""Random numbers, tokens, infeed/outfeed, custom calls, collectives, dynamic shapes."""
# pylint: disable=invalid-name

import numpy as np

from . import _types
from ._builder import BuilderError
from ._ops_base import _array_shape
from ._ops_base import _canonical_dim
from ._ops_base import _dims
from ._ops_base import _op
from ._ops_base import _same_builder
from ._ops_base import _shape
from ._ops_base import _shape_str
from ._ops_data import GetTupleElement
from ._ops_data import _program_shape
from ._ops_elementwise import ScalarConstant
from ._ops_reduce import _check_reducer
from ._pb import xla_data_pb2
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType

__all__ = ["AfterAll", "AllGather", "AllReduce", "AllToAll", "BatchNormGrad", "BatchNormInference",
           "BatchNormTraining", "CollectiveBroadcast", "CollectivePermute", "CreateToken",
           "CustomCall", "CustomCallWithAliasing", "CustomCallWithComputation",
           "CustomCallWithLayout", "DynamicReshape", "GetDimensionSize", "Infeed",
           "InfeedWithToken", "OptimizationBarrier", "Outfeed", "OutfeedWithToken", "PartitionId",
           "Recv", "RecvFromHost", "RecvWithToken", "ReduceScatter", "RemoveDynamicDimension",
           "ReplicaId", "RngBitGenerator", "RngNormal", "RngUniform", "Send", "SendToHost",
           "SendWithToken", "SetDimensionSize"]


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


def _subshape(shape, index, what):
  for i in index:
    if not shape.is_tuple() or not 0 <= i < len(shape.tuple_shapes()):
      raise BuilderError("%s index %s is not in %s" % (what, list(index), shape))
    shape = shape.tuple_shapes()[i]
  return shape


def _set_custom_call_extras(builder, op, operands, output_operand_aliasing, literal):
  """output_operand_aliasing: [(output_shape_index, (operand_index, operand_shape_index))]."""
  from ._literal import to_literal  # pylint: disable=g-import-not-at-top
  instr = builder.get_op_proto(op)
  out_shape = _shape(op)
  for out_index, (operand, in_index) in output_operand_aliasing:
    out_index, in_index = tuple(_dims(out_index)), tuple(_dims(in_index))
    if not 0 <= int(operand) < len(operands):
      raise BuilderError("aliased operand %d out of range (%d operands)" % (operand,
                                                                           len(operands)))
    out_sub = _subshape(out_shape, out_index, "output")
    in_sub = _subshape(_shape(operands[int(operand)]), in_index, "operand %d" % operand)
    if not out_sub.compatible(in_sub):
      raise BuilderError("output %s %s cannot alias operand %d %s %s" % (
          list(out_index), out_sub, operand, list(in_index), in_sub))
    instr.output_operand_aliasing.append(xla_data_pb2.OutputOperandAliasing(
        output_shape_index=out_index, operand_index=int(operand), operand_shape_index=in_index))
  if literal is not None:
    instr.literal.CopyFrom(to_literal(literal).to_proto())


@_op
def CustomCallWithAliasing(builder, call_target_name, operands, shape_with_layout,
                           operand_shapes_with_layout, opaque=b"", has_side_effect=False,
                           output_operand_aliasing=(), literal=None, schedule=None,
                           api_version=None):
  """CustomCallWithLayout whose outputs may alias (reuse) operand buffers, with a literal."""
  operands = list(operands)
  op = CustomCallWithLayout(builder, call_target_name, operands, shape_with_layout,
                            operand_shapes_with_layout, opaque, has_side_effect, schedule,
                            api_version)
  if op.valid():
    _set_custom_call_extras(builder, op, operands, output_operand_aliasing, literal)
  return op


@_op
def CustomCallWithComputation(builder, call_target_name, operands, computation, shape,
                              opaque=b"", has_side_effect=False, output_operand_aliasing=(),
                              literal=None, schedule=None, api_version=None):
  """A custom call that carries a computation (its to_apply) for the target to use."""
  operands = list(operands)
  _program_shape(computation, "computation")
  op = CustomCall(builder, call_target_name, operands, shape, opaque, has_side_effect,
                  schedule, api_version)
  if op.valid():
    _set_custom_call_extras(builder, op, operands, output_operand_aliasing, literal)
    builder.get_op_proto(op).called_computation_ids.append(builder._add_computation(computation))
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
  """Splits split_dimension into split_count blocks, sends block i to participant i and
  concatenates the blocks received along concat_dimension (in participant order).

  Without replica_groups the participants are 0..split_count-1 (as XlaBuilder does). The HLO
  all-to-all splits and concatenates along one dimension; for split != concat the blocks
  are then moved to concat_dimension with a reshape, transpose and reshape.
  """
  b = _same_builder(operand)
  s = _array_shape(operand)
  split = _canonical_dim(split_dimension, s.rank(), "split_dimension")
  concat = _canonical_dim(concat_dimension, s.rank(), "concat_dimension")
  count = int(split_count)
  if count < 1 or s.dimensions()[split] % count:
    raise BuilderError("split dimension %d (size %d) is not divisible by split_count %d" %
                       (split, s.dimensions()[split], count))
  groups = replica_groups
  if not groups:
    groups = [list(range(count))]
  fields = _collective_fields(groups, channel_id, None)
  for g in fields["replica_groups"]:
    if len(g.replica_ids) != count:
      raise BuilderError("replica group %s does not have split_count (%d) members" %
                         (list(g.replica_ids), count))
  dims = list(s.dimensions())
  out = b._add("all-to-all", Shape.array_shape(s.element_type(), dims), (operand,),
               dimensions=[split], **fields)
  if split == concat:
    return out
  # Block j of the split dimension came from participant j: make that a dimension of its
  # own (major to the rest of the split dimension), move it just before concat_dimension
  # and merge it into that dimension.
  from ._ops_data import Reshape  # pylint: disable=g-import-not-at-top
  from ._ops_data import Transpose  # pylint: disable=g-import-not-at-top
  blocks = dims[:split] + [count, dims[split] // count] + dims[split + 1:]
  out = Reshape(out, blocks)
  permutation = []
  for i in range(len(dims)):
    if i == concat:
      permutation.append(split)
    permutation.append(i + 1 if i >= split else i)
  out = Transpose(out, permutation)
  result = list(dims)
  result[split] //= count
  result[concat] *= count
  return Reshape(out, result)


@_op
def CollectiveBroadcast(operand, replica_groups, channel_id=None):
  """The operand of the first replica of each group, on every replica of that group."""
  b = _same_builder(operand)
  s = _array_shape(operand)
  return b._add("collective-broadcast", Shape.array_shape(s.element_type(), s.dimensions()),
                (operand,), **_collective_fields(replica_groups, channel_id, None))


# --- send / recv ----------------------------------------------------------------------

def _channel(handle, expected_type, what):
  """ChannelHandle proto (or an int handle with the expected type)."""
  if isinstance(handle, xla_data_pb2.ChannelHandle):
    channel = handle
  elif isinstance(handle, (int, np.integer)) and not isinstance(handle, bool):
    channel = xla_data_pb2.ChannelHandle(handle=int(handle), type=expected_type)
  else:
    raise BuilderError("%s needs a ChannelHandle (or an int channel id), got %s" %
                       (what, type(handle).__name__))
  if channel.handle <= 0:
    raise BuilderError("%s needs a positive channel handle, got %d" % (what, channel.handle))
  if channel.type != expected_type:
    name = xla_data_pb2.ChannelHandle.ChannelType.Name
    raise BuilderError("%s needs a %s channel, got %s" % (what, name(expected_type),
                                                         name(channel.type)))
  return channel


def _send(operand, token, channel, host, shape=None):
  b = _same_builder(operand, token)
  if not _shape(token).is_token():
    raise BuilderError("the token operand must be a token, got %s" % _shape(token))
  s = _shape(operand)
  if shape is not None and not shape.compatible(s):
    raise BuilderError("shape_with_layout %s does not match the operand %s" % (shape, s))
  data = (shape or s).with_major_to_minor_layout_if_absent()
  fields = {"channel_id": channel.handle}
  if host:
    fields["is_host_transfer"] = True
  send = b._add("send", Shape.tuple_shape([data, Shape.scalar_shape(_P.U32),
                                           Shape.token_shape()]), (operand, token), **fields)
  return b._add("send-done", Shape.token_shape(), (send,), **fields)


def _recv(token, shape, channel, host):
  b = _same_builder(token)
  if not _shape(token).is_token():
    raise BuilderError("the token operand must be a token, got %s" % _shape(token))
  if not isinstance(shape, Shape):
    raise BuilderError("Recv takes a Shape, got %s" % type(shape).__name__)
  if not (shape.is_array() or shape.is_tuple()):
    raise BuilderError("cannot receive a %s" % shape)
  data = shape.with_major_to_minor_layout_if_absent()
  fields = {"channel_id": channel.handle}
  if host:
    fields["is_host_transfer"] = True
  recv = b._add("recv", Shape.tuple_shape([data, Shape.scalar_shape(_P.U32),
                                           Shape.token_shape()]), (token,), **fields)
  return b._add("recv-done", Shape.tuple_shape([data, Shape.token_shape()]), (recv,), **fields)


@_op
def SendWithToken(operand, token, handle):
  """Sends operand on a device-to-device channel after token; returns the send-done token."""
  return _send(operand, token, _channel(handle, xla_data_pb2.ChannelHandle.DEVICE_TO_DEVICE,
                                        "SendWithToken"), host=False)


@_op
def Send(operand, handle):
  """SendWithToken with a fresh token (XLA returns nothing; this returns the done token)."""
  channel = _channel(handle, xla_data_pb2.ChannelHandle.DEVICE_TO_DEVICE, "Send")
  return _send(operand, CreateToken(operand.builder()), channel, host=False)


@_op
def RecvWithToken(token, shape, handle):
  """Receives a value of shape on a device-to-device channel: the (data, token) tuple."""
  return _recv(token, shape, _channel(handle, xla_data_pb2.ChannelHandle.DEVICE_TO_DEVICE,
                                      "RecvWithToken"), host=False)


@_op
def Recv(builder, shape, handle):
  """RecvWithToken with a fresh token; returns the data."""
  channel = _channel(handle, xla_data_pb2.ChannelHandle.DEVICE_TO_DEVICE, "Recv")
  return GetTupleElement(_recv(CreateToken(builder), shape, channel, host=False), 0)


@_op
def SendToHost(operand, token, shape_with_layout, handle):
  """Sends operand to the host on a DEVICE_TO_HOST channel; returns the send-done token."""
  return _send(operand, token, _channel(handle, xla_data_pb2.ChannelHandle.DEVICE_TO_HOST,
                                        "SendToHost"), host=True, shape=shape_with_layout)


@_op
def RecvFromHost(token, shape, handle):
  """Receives a value from the host on a HOST_TO_DEVICE channel: the (data, token) tuple."""
  return _recv(token, shape, _channel(handle, xla_data_pb2.ChannelHandle.HOST_TO_DEVICE,
                                      "RecvFromHost"), host=True)


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
