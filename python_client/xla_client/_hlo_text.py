"""HloModuleProto -> HLO text in XLA's syntax (what XlaComputation.as_hlo_text() returns).

The text parses back (by xla-server or XLA) to the same module: every attribute the
builder sets is printed; defaults are omitted as XLA's printer omits them.
"""

import numpy as np

from . import _types
from ._literal import Literal
from ._pb import hlo_pb2
from ._pb import xla_data_pb2
from ._shape import ProgramShape
from ._shape import Shape
from ._types import PrimitiveType

_P = PrimitiveType


def _braced(values):
  return "{" + ",".join(str(int(v)) for v in values) + "}"


def _shape_text(proto):
  return Shape.from_proto(proto).to_string()


def _quote(value):
  if isinstance(value, bytes):
    value = value.decode("utf-8", errors="backslashreplace")
  return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# --- literals ---------------------------------------------------------------------------

_DIGITS = {_P.F16: (5, 5), _P.BF16: (4, 4), _P.F32: (6, 9), _P.F64: (15, 17)}


def _float_text(v, etype):
  v = float(v)
  if np.isnan(v):
    return "-nan" if np.signbit(v) else "nan"
  if np.isinf(v):
    return "-inf" if v < 0 else "inf"
  short, full = _DIGITS.get(etype, (3, 3))
  text = "%.*g" % (short, v)
  ref = np.float32 if etype == _P.F32 else np.float64
  if etype in (_P.F32, _P.F64) and ref(float(text)) != ref(v):
    text = "%.*g" % (full, v)
  return text


def _element_texts(flat, etype, scalar):
  if etype == _P.PRED:
    if scalar:
      return ["true" if x else "false" for x in flat]
    return ["1" if x else "0" for x in flat]
  if _types.is_complex(etype):
    part = _P.F32 if etype == _P.C64 else _P.F64
    return ["(%s, %s)" % (_float_text(x.real, part), _float_text(x.imag, part)) for x in flat]
  if etype in _types.FLOAT_FORMATS:
    if _types.is_bit_pattern(etype):
      flat = _types.bits_to_float(np.asarray(flat), etype)
    return [_float_text(x, etype) for x in np.asarray(flat, dtype=np.float64)]
  if _types.is_floating(etype):
    return [_float_text(x, etype) for x in flat]
  return [str(int(x)) for x in flat]


def literal_text(lit):
  """The text inside constant(...) for a Literal."""
  shape = lit.shape()
  if shape.is_tuple():
    return "(" + ", ".join(literal_text(e) for e in lit.decompose_tuple()) + ")"
  if shape.is_token():
    return "token"
  arr = np.asarray(lit)
  etype = shape.element_type()
  if arr.ndim == 0:
    return _element_texts([arr[()]], etype, True)[0]
  texts = np.array(_element_texts(arr.ravel(), etype, False), dtype=object).reshape(arr.shape) \
      if arr.size else np.empty(arr.shape, dtype=object)
  return _nested_text(texts)


def _custom_call_literal_text(proto):
  """A custom call's literal: "f32[2]{0} {1, 2}", tuples "( a, b )"."""
  from ._literal import Literal  # pylint: disable=g-import-not-at-top
  lit = Literal.from_proto(proto)
  if lit.shape().is_tuple():
    return "( " + ", ".join(_custom_call_literal_text(e.to_proto())
                            for e in lit.decompose_tuple()) + " )"
  return _shape_text(proto.shape) + " " + literal_text(lit)


def _nested_text(a):
  """{...} nesting of element texts (not a closure: one that calls itself is a ref cycle)."""
  if a.ndim == 1:
    return "{" + ", ".join(a.tolist()) + "}"
  return "{ " + ", ".join(_nested_text(x) for x in a) + " }" if len(a) else "{}"


# --- attributes -------------------------------------------------------------------------

def _window_text(window):
  dims = window.dimensions
  out = "size=" + "x".join(str(d.size) for d in dims)
  if any(d.stride != 1 for d in dims):
    out += " stride=" + "x".join(str(d.stride) for d in dims)
  if any(d.padding_low or d.padding_high for d in dims):
    out += " pad=" + "x".join("%d_%d" % (d.padding_low, d.padding_high) for d in dims)
  if any(d.base_dilation != 1 for d in dims):
    out += " lhs_dilate=" + "x".join(str(d.base_dilation) for d in dims)
  if any(d.window_dilation != 1 for d in dims):
    out += " rhs_dilate=" + "x".join(str(d.window_dilation) for d in dims)
  if any(d.window_reversal for d in dims):
    out += " rhs_reversal=" + "x".join("1" if d.window_reversal else "0" for d in dims)
  return "{" + out + "}"


def _dim_labels(dn, rank):
  def labels(batch, feature, spatial, b_char, f_char):
    chars = ["?"] * rank
    chars[batch] = b_char
    chars[feature] = f_char
    for i, d in enumerate(spatial):
      chars[d] = str(i)
    return "".join(chars)

  lhs = labels(dn.input_batch_dimension, dn.input_feature_dimension,
               dn.input_spatial_dimensions, "b", "f")
  rhs = labels(dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension,
               dn.kernel_spatial_dimensions, "i", "o")
  out = labels(dn.output_batch_dimension, dn.output_feature_dimension,
               dn.output_spatial_dimensions, "b", "f")
  return "%s_%s->%s" % (lhs, rhs, out)


def _padding_text(config):
  interior = any(d.interior_padding for d in config.dimensions)
  parts = []
  for d in config.dimensions:
    text = "%d_%d" % (d.edge_padding_low, d.edge_padding_high)
    if interior:
      text += "_%d" % d.interior_padding
    parts.append(text)
  return "x".join(parts)


def _metadata_text(m):
  parts = []
  if m.op_type:
    parts.append("op_type=" + _quote(m.op_type))
  if m.op_name:
    parts.append("op_name=" + _quote(m.op_name))
  if m.source_file:
    parts.append("source_file=" + _quote(m.source_file))
  if m.source_line:
    parts.append("source_line=%d" % m.source_line)
  return "{" + " ".join(parts) + "}"


def _sharding_text(s):
  if s.type == xla_data_pb2.OpSharding.REPLICATED:
    return "{replicated}"
  if s.type == xla_data_pb2.OpSharding.MAXIMAL:
    return "{maximal device=%d}" % (s.tile_assignment_devices[0] if s.tile_assignment_devices else 0)
  if s.type == xla_data_pb2.OpSharding.MANUAL:
    return "{manual}"
  if s.type == xla_data_pb2.OpSharding.TUPLE:
    return "{" + ", ".join(_sharding_text(t)[1:-1] for t in s.tuple_shardings) + "}"
  if s.type == xla_data_pb2.OpSharding.OTHER:
    dims = ",".join(str(d) for d in s.tile_assignment_dimensions)
    devices = ",".join(str(d) for d in s.tile_assignment_devices)
    last = " last_tile_dim_replicate" if s.replicate_on_last_tile_dim else ""
    return "{devices=[%s]%s%s}" % (dims, devices, last)
  return "{replicated}"


def _replica_groups(groups):
  return "{" + ",".join(_braced(g.replica_ids) for g in groups) + "}"


def _attributes(instr, names, pred_selectors=frozenset()):
  op = instr.opcode
  a = []
  called = [names[c] for c in instr.called_computation_ids]
  if op in ("broadcast", "transpose", "reverse", "reduce", "concatenate", "map", "sort",
            "get-dimension-size", "set-dimension-size"):
    a.append("dimensions=" + _braced(instr.dimensions))
  if op == "iota":
    a.append("iota_dimension=%d" % (instr.dimensions[0] if instr.dimensions else 0))
  if op == "get-tuple-element":
    a.append("index=%d" % instr.tuple_index)
  if op == "compare":
    a.append("direction=" + instr.comparison_direction)
    if instr.comparison_type:
      a.append("type=" + instr.comparison_type)
  if op == "slice":
    parts = []
    for d in instr.slice_dimensions:
      parts.append("[%d:%d%s]" % (d.start, d.limit, "" if d.stride == 1 else ":%d" % d.stride))
    a.append("slice={" + ", ".join(parts) + "}")
  if op == "dynamic-slice":
    a.append("dynamic_slice_sizes=" + _braced(instr.dynamic_slice_sizes))
  if op == "pad":
    a.append("padding=" + _padding_text(instr.padding_config))
  if op in ("convolution", "reduce-window", "select-and-scatter"):
    if instr.window.dimensions:
      a.append("window=" + _window_text(instr.window))
  if op == "convolution":
    a.append("dim_labels=" + _dim_labels(instr.convolution_dimension_numbers,
                                         len(instr.shape.dimensions)))
    if instr.feature_group_count > 1:
      a.append("feature_group_count=%d" % instr.feature_group_count)
    if instr.batch_group_count > 1:
      a.append("batch_group_count=%d" % instr.batch_group_count)
  if op in ("dot", "scaled-dot"):
    dn = instr.dot_dimension_numbers
    if dn.lhs_batch_dimensions:
      a.append("lhs_batch_dims=" + _braced(dn.lhs_batch_dimensions))
    a.append("lhs_contracting_dims=" + _braced(dn.lhs_contracting_dimensions))
    if dn.rhs_batch_dimensions:
      a.append("rhs_batch_dims=" + _braced(dn.rhs_batch_dimensions))
    a.append("rhs_contracting_dims=" + _braced(dn.rhs_contracting_dimensions))
  if op == "ragged-dot":
    r = instr.ragged_dot_dimension_numbers
    dn = r.dot_dimension_numbers
    if dn.lhs_batch_dimensions:
      a.append("lhs_batch_dims=" + _braced(dn.lhs_batch_dimensions))
    a.append("lhs_contracting_dims=" + _braced(dn.lhs_contracting_dimensions))
    if dn.rhs_batch_dimensions:
      a.append("rhs_batch_dims=" + _braced(dn.rhs_batch_dimensions))
    a.append("rhs_contracting_dims=" + _braced(dn.rhs_contracting_dimensions))
    a.append("lhs_ragged_dims=" + _braced(r.lhs_ragged_dimensions))
    if r.rhs_group_dimensions:
      a.append("rhs_group_dims=" + _braced(r.rhs_group_dimensions))
  if op in ("dot", "scaled-dot", "convolution", "ragged-dot") and any(instr.precision_config.operand_precision):
    names_ = xla_data_pb2.PrecisionConfig.Precision.Name
    a.append("operand_precision={" + ",".join(names_(p).lower() for p in
                                              instr.precision_config.operand_precision) + "}")
  if op == "gather":
    d = instr.gather_dimension_numbers
    a.append("offset_dims=" + _braced(d.offset_dims))
    a.append("collapsed_slice_dims=" + _braced(d.collapsed_slice_dims))
    a.append("start_index_map=" + _braced(d.start_index_map))
    if d.operand_batching_dims:
      a.append("operand_batching_dims=" + _braced(d.operand_batching_dims))
    if d.start_indices_batching_dims:
      a.append("start_indices_batching_dims=" + _braced(d.start_indices_batching_dims))
    a.append("index_vector_dim=%d" % d.index_vector_dim)
    a.append("slice_sizes=" + _braced(instr.gather_slice_sizes))
  if op == "scatter":
    d = instr.scatter_dimension_numbers
    a.append("update_window_dims=" + _braced(d.update_window_dims))
    a.append("inserted_window_dims=" + _braced(d.inserted_window_dims))
    a.append("scatter_dims_to_operand_dims=" + _braced(d.scatter_dims_to_operand_dims))
    if d.input_batching_dims:
      a.append("input_batching_dims=" + _braced(d.input_batching_dims))
    if d.scatter_indices_batching_dims:
      a.append("scatter_indices_batching_dims=" + _braced(d.scatter_indices_batching_dims))
    a.append("index_vector_dim=%d" % d.index_vector_dim)
  if op in ("gather", "scatter") and instr.indices_are_sorted:
    a.append("indices_are_sorted=true")
  if op == "scatter" and instr.unique_indices:
    a.append("unique_indices=true")
  if op == "sort" and instr.is_stable:
    a.append("is_stable=true")
  if op == "rng":
    a.append("distribution=" + xla_data_pb2.RandomDistribution.Name(instr.distribution).lower())
  if op == "rng-bit-generator":
    a.append("algorithm=" + xla_data_pb2.RandomAlgorithm.Name(instr.rng_algorithm).lower())
  if op == "cholesky":
    a.append("lower=" + ("true" if instr.cholesky_options.lower else "false"))
  if op == "triangular-solve":
    o = instr.triangular_solve_options
    if o.left_side:
      a.append("left_side=true")
    if o.lower:
      a.append("lower=true")
    if o.unit_diagonal:
      a.append("unit_diagonal=true")
    a.append("transpose_a=" + xla_data_pb2.TriangularSolveOptions.Transpose.Name(
        o.transpose_a or 1))
  if op == "fft":
    a.append("fft_type=" + xla_data_pb2.FftType.Name(instr.fft_type))
    a.append("fft_length=" + _braced(instr.fft_length))
  if op == "reduce-precision":
    a.append("exponent_bits=%d" % instr.exponent_bits)
    a.append("mantissa_bits=%d" % instr.mantissa_bits)
  if op.startswith("batch-norm"):
    a.append("epsilon=%s" % _float_text(instr.epsilon, _P.F32))
    a.append("feature_index=%d" % instr.feature_index)
  if op == "topk":
    a.append("k=%d" % instr.k)
    a.append("largest=" + ("true" if instr.largest else "false"))
  if op == "infeed" and instr.infeed_config:
    a.append("infeed_config=" + _quote(instr.infeed_config))
  if op == "outfeed":
    a.append("outfeed_shape=" + _shape_text(instr.outfeed_shape))
    if instr.outfeed_config:
      a.append("outfeed_config=" + _quote(instr.outfeed_config))
  if op == "custom-call":
    a.append("custom_call_target=" + _quote(instr.custom_call_target))
    if instr.custom_call_has_side_effect:
      a.append("custom_call_has_side_effect=true")
    if instr.HasField("literal"):
      a.append("literal=" + _custom_call_literal_text(instr.literal))
    if instr.output_operand_aliasing:
      a.append("output_to_operand_aliasing={" + ", ".join(
          "%s: (%d, %s)" % (_braced(x.output_shape_index), x.operand_index,
                            _braced(x.operand_shape_index))
          for x in instr.output_operand_aliasing) + "}")
    if instr.constrain_layout:
      a.append("operand_layout_constraints={" + ", ".join(
          _shape_text(s) for s in instr.operand_shapes_with_layout) + "}")
    if instr.custom_call_schedule:
      a.append("schedule=" + xla_data_pb2.CustomCallSchedule.Name(instr.custom_call_schedule))
    if instr.custom_call_api_version:
      a.append("api_version=" + xla_data_pb2.CustomCallApiVersion.Name(
          instr.custom_call_api_version))
  if op in ("all-gather", "reduce-scatter", "all-to-all"):
    a.append("dimensions=" + _braced(instr.dimensions))
  if op == "collective-permute":
    a.append("source_target_pairs={" + ",".join(
        "{%d,%d}" % (p.source, p.target) for p in instr.source_target_pairs) + "}")
    if instr.channel_id > 0:
      a.append("channel_id=%d" % instr.channel_id)
  if op in ("send", "send-done", "recv", "recv-done"):
    if instr.channel_id > 0:
      a.append("channel_id=%d" % instr.channel_id)
    if instr.is_host_transfer:
      a.append("is_host_transfer=true")
  if op in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-broadcast"):
    a.append("replica_groups=" + _replica_groups(instr.replica_groups))
    if instr.channel_id > 0:
      a.append("channel_id=%d" % instr.channel_id)
    if instr.use_global_device_ids:
      a.append("use_global_device_ids=true")
  if op == "parameter" and instr.parameter_replication.replicated_at_leaf_buffers:
    a.append("parameter_replication={" + ",".join(
        "true" if x else "false" for x in instr.parameter_replication.replicated_at_leaf_buffers) + "}")
  # Called computations.
  if op == "while":
    a.append("condition=" + called[1])
    a.append("body=" + called[0])
  elif op == "conditional":
    if len(called) == 2 and instr.id in pred_selectors:
      a.append("true_computation=" + called[0])
      a.append("false_computation=" + called[1])
    else:
      a.append("branch_computations={" + ", ".join(called) + "}")
  elif op == "select-and-scatter":
    a.append("select=" + called[0])
    a.append("scatter=" + called[1])
  elif called:
    a.append("to_apply=" + called[0])
  if op in ("custom-call",) and instr.backend_config:
    a.append("backend_config=" + _quote(instr.backend_config))
  if instr.HasField("sharding"):
    a.append("sharding=" + _sharding_text(instr.sharding))
  if instr.frontend_attributes.map:
    a.append("frontend_attributes={" + ", ".join(
        "%s=%s" % (k, _quote(v)) for k, v in sorted(instr.frontend_attributes.map.items())) + "}")
  if instr.HasField("metadata") and instr.metadata.ByteSize():
    a.append("metadata=" + _metadata_text(instr.metadata))
  return a


def _operands_text(instr, by_id):
  if instr.opcode == "parameter":
    return "%d" % instr.parameter_number
  if instr.opcode == "constant":
    return literal_text(Literal.from_proto(instr.literal))
  return ", ".join(by_id[i].name for i in instr.operand_ids)


def computation_text(comp, names, by_id, is_entry, pred_selectors=frozenset()):
  lines = ["%s%s {" % ("ENTRY " if is_entry else "", comp.name)]
  for instr in comp.instructions:
    attrs = _attributes(instr, names, pred_selectors)
    text = "  %s%s = %s %s(%s)" % ("ROOT " if instr.id == comp.root_id else "", instr.name,
                                   _shape_text(instr.shape), instr.opcode,
                                   _operands_text(instr, by_id))
    if attrs:
      text += ", " + ", ".join(attrs)
    lines.append(text)
  lines.append("}")
  return "\n".join(lines)


def module_to_text(module):
  names = {c.id: c.name for c in module.computations}
  by_id = {}
  for c in module.computations:
    for i in c.instructions:
      by_id[i.id] = i
  pred_selectors = set()  # conditionals printed with true_/false_computation
  for c in module.computations:
    for i in c.instructions:
      if i.opcode == "conditional" and i.operand_ids:
        sel = by_id.get(i.operand_ids[0])
        if sel is not None and sel.shape.element_type == _P.PRED:
          pred_selectors.add(i.id)
  header = "HloModule %s" % module.name
  ps = ProgramShape.from_proto(module.host_program_shape)
  header += ", entry_computation_layout={(%s)->%s}" % (
      ", ".join(str(p.with_major_to_minor_layout_if_absent()) for p in ps.parameter_shapes()),
      ps.result_shape().with_major_to_minor_layout_if_absent())
  if module.input_output_alias.entries:
    parts = []
    for e in module.input_output_alias.entries:
      kind = "must-alias" if e.kind == hlo_pb2.MUST_ALIAS else "may-alias"
      parts.append("%s: (%d, %s, %s)" % (_braced(e.output_shape_index), e.parameter_number,
                                         _braced(e.parameter_shape_index), kind))
    header += ", input_output_alias={ %s }" % ", ".join(parts)
  if module.buffer_donor.entries:
    parts = ["(%d, %s)" % (e.parameter_number, _braced(e.parameter_shape_index))
             for e in module.buffer_donor.entries]
    header += ", buffer_donor={ %s }" % ", ".join(parts)
  blocks = [header]
  for c in module.computations:
    blocks.append(computation_text(c, names, by_id, c.id == module.entry_computation_id,
                                   pred_selectors))
  return "\n\n".join(blocks) + "\n"
