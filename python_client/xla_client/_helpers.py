"""xla_client's helper types and constructors (same names and fields as XLA's).

Most are the xla_data.proto messages themselves (DotDimensionNumbers, PaddingConfig, ...),
so their fields are XLA's field names.
"""

import enum

from ._pb import xla_data_pb2

PrecisionConfig = xla_data_pb2.PrecisionConfig
OpMetadata = xla_data_pb2.OpMetadata
OpSharding = xla_data_pb2.OpSharding
FrontendAttributes = xla_data_pb2.FrontendAttributes
PaddingConfig = xla_data_pb2.PaddingConfig
PaddingConfigDimension = xla_data_pb2.PaddingConfig.PaddingConfigDimension
DotDimensionNumbers = xla_data_pb2.DotDimensionNumbers
ConvolutionDimensionNumbers = xla_data_pb2.ConvolutionDimensionNumbers
GatherDimensionNumbers = xla_data_pb2.GatherDimensionNumbers
ScatterDimensionNumbers = xla_data_pb2.ScatterDimensionNumbers
ReplicaGroup = xla_data_pb2.ReplicaGroup
ChannelHandle = xla_data_pb2.ChannelHandle
TriangularSolveOptions = xla_data_pb2.TriangularSolveOptions
TriangularSolveOptions_Transpose = enum.IntEnum(
    "TriangularSolveOptions_Transpose",
    {k: v for k, v in xla_data_pb2.TriangularSolveOptions.Transpose.items()})
ExecutionProfile = xla_data_pb2.ExecutionProfile
Window = xla_data_pb2.Window

FftType = enum.IntEnum("FftType", {k: v for k, v in xla_data_pb2.FftType.items()})
RandomAlgorithm = enum.IntEnum("RandomAlgorithm",
                               {k: v for k, v in xla_data_pb2.RandomAlgorithm.items()})


class PaddingType(enum.IntEnum):
  VALID = 1
  SAME = 2


def make_padding_config(padding_config):
  """PaddingConfig from a sequence of (low, high, interior) triples (or a PaddingConfig)."""
  if isinstance(padding_config, PaddingConfig):
    return padding_config
  config = PaddingConfig()
  for entry in padding_config:
    if isinstance(entry, PaddingConfigDimension):
      config.dimensions.add().CopyFrom(entry)
      continue
    lo, hi, interior = entry
    config.dimensions.add(edge_padding_low=int(lo), edge_padding_high=int(hi),
                          interior_padding=int(interior))
  return config


def window_padding_type_to_pad_values(padding_type, lhs_dims, rhs_dims, window_strides):
  """(low, high) pads per spatial dimension for PaddingType VALID or SAME."""
  if not isinstance(padding_type, PaddingType):
    padding_type = PaddingType(int(padding_type))
  if not len(lhs_dims) == len(rhs_dims) == len(window_strides):
    raise ValueError("padding needs as many input dims, window dims and strides: %s %s %s" %
                     (list(lhs_dims), list(rhs_dims), list(window_strides)))
  if padding_type == PaddingType.VALID:
    return [(0, 0)] * len(lhs_dims)
  pads = []
  for size, window, stride in zip(lhs_dims, rhs_dims, window_strides):
    out = -(-int(size) // int(stride))
    needed = max(0, (out - 1) * int(stride) + int(window) - int(size))
    pads.append((needed // 2, needed - needed // 2))
  return pads


def make_dot_dimension_numbers(dimension_numbers):
  """DotDimensionNumbers from ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))."""
  if isinstance(dimension_numbers, DotDimensionNumbers):
    return dimension_numbers
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  dn = DotDimensionNumbers()
  dn.lhs_contracting_dimensions.extend(int(d) for d in lhs_contract)
  dn.rhs_contracting_dimensions.extend(int(d) for d in rhs_contract)
  dn.lhs_batch_dimensions.extend(int(d) for d in lhs_batch)
  dn.rhs_batch_dimensions.extend(int(d) for d in rhs_batch)
  return dn


def make_convolution_dimension_numbers(dimension_numbers, num_spatial_dimensions):
  """ConvolutionDimensionNumbers from None (NC01.. / OI01.. / NC01..), a proto, or a
  tuple of three layout strings such as ("NHWC", "HWIO", "NHWC")."""
  if isinstance(dimension_numbers, ConvolutionDimensionNumbers):
    return dimension_numbers
  dn = ConvolutionDimensionNumbers()
  if dimension_numbers is None:
    n = num_spatial_dimensions
    dn.input_batch_dimension, dn.input_feature_dimension = 0, 1
    dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension = 0, 1
    dn.output_batch_dimension, dn.output_feature_dimension = 0, 1
    dn.input_spatial_dimensions.extend(range(2, 2 + n))
    dn.kernel_spatial_dimensions.extend(range(2, 2 + n))
    dn.output_spatial_dimensions.extend(range(2, 2 + n))
    return dn
  lhs, rhs, out = dimension_numbers
  if not len(lhs) == len(rhs) == len(out) == num_spatial_dimensions + 2:
    raise ValueError("convolution layouts %r need %d letters each" %
                     (dimension_numbers, num_spatial_dimensions + 2))
  try:
    dn.input_batch_dimension, dn.input_feature_dimension = lhs.index("N"), lhs.index("C")
    dn.kernel_output_feature_dimension = rhs.index("O")
    dn.kernel_input_feature_dimension = rhs.index("I")
    dn.output_batch_dimension, dn.output_feature_dimension = out.index("N"), out.index("C")
  except ValueError:
    raise ValueError("convolution layouts %r need N and C (lhs, out) and O and I (rhs)" %
                     (dimension_numbers,)) from None
  # Spatial dimensions pair up by letter, in the kernel's order.
  kernel_spatial = [c for c in rhs if c not in "IO"]
  dn.kernel_spatial_dimensions.extend(rhs.index(c) for c in kernel_spatial)
  try:
    dn.input_spatial_dimensions.extend(lhs.index(c) for c in kernel_spatial)
    dn.output_spatial_dimensions.extend(out.index(c) for c in kernel_spatial)
  except ValueError:
    raise ValueError("spatial dimension letters of %r do not match" %
                     (dimension_numbers,)) from None
  return dn


def make_replica_groups(replica_groups):
  """ReplicaGroup protos from a list of lists of replica ids (None: no groups)."""
  if replica_groups is None:
    return []
  groups = []
  for group in replica_groups:
    g = ReplicaGroup()
    g.replica_ids.extend(int(r) for r in group)
    groups.append(g)
  return groups
