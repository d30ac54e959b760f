"""XlaBuilder, XlaOp and XlaComputation: build HLO modules op by op in Python.

As XLA's builder, this one records HloInstructionProtos and infers each op's shape as it
is added (ops.py holds the op functions and their shape rules). Instruction ids come
from a per-builder counter starting at 1; names are "<opcode or given name>.<id>"; the
entry computation is "<builder name>.<id>" with the id taken at build(); computations
passed to ops (reducers, loop bodies, comparators) are copied in with fresh ids.

Errors: the first error is kept, later ops return invalid XlaOps and do nothing, and
build() raises that first error (XlaRuntimeError with code INVALID_ARGUMENT). get_shape()
of an op raises at once.
"""

import inspect
import os

import grpc

from ._errors import XlaRuntimeError
from ._pb import hlo_pb2
from ._pb import xla_data_pb2
from ._shape import ProgramShape


class BuilderError(ValueError):
  """An op's arguments are invalid (shape inference or attribute check failed)."""


class XlaOp:
  """A value in a computation being built (a handle into its XlaBuilder)."""

  __slots__ = ("_builder", "_handle")

  def __init__(self, builder, handle):
    self._builder = builder
    self._handle = handle

  def builder(self):
    return self._builder

  @property
  def handle(self):
    return self._handle

  def valid(self):
    return self._handle >= 0

  def shape(self):
    return self._builder.get_shape(self)

  def __repr__(self):
    if self._handle < 0:
      return "XlaOp(invalid)"
    return "XlaOp(%s, %s)" % (self._builder._instrs[self._builder._index[self._handle]].opcode,
                              self._builder._shapes.get(self._handle))

  # Arithmetic operators build ops (as XLA's C++ XlaOp operators do).
  def _binary(self, name, other, reverse=False):
    from . import ops  # pylint: disable=g-import-not-at-top
    if not isinstance(other, XlaOp):
      other = ops.ConstantLike(self, other)
    fn = getattr(ops, name)
    return fn(other, self) if reverse else fn(self, other)

  def __add__(self, other): return self._binary("Add", other)
  def __radd__(self, other): return self._binary("Add", other, True)
  def __sub__(self, other): return self._binary("Sub", other)
  def __rsub__(self, other): return self._binary("Sub", other, True)
  def __mul__(self, other): return self._binary("Mul", other)
  def __rmul__(self, other): return self._binary("Mul", other, True)
  def __truediv__(self, other): return self._binary("Div", other)
  def __rtruediv__(self, other): return self._binary("Div", other, True)
  def __mod__(self, other): return self._binary("Rem", other)
  def __pow__(self, other): return self._binary("Pow", other)
  def __and__(self, other): return self._binary("And", other)
  def __or__(self, other): return self._binary("Or", other)
  def __xor__(self, other): return self._binary("Xor", other)
  def __lshift__(self, other): return self._binary("ShiftLeft", other)
  def __rshift__(self, other): return self._binary("ShiftRightArithmetic", other)
  def __matmul__(self, other): return self._binary("Dot", other)

  def __neg__(self):
    from . import ops  # pylint: disable=g-import-not-at-top
    return ops.Neg(self)

  def __invert__(self):
    from . import ops  # pylint: disable=g-import-not-at-top
    return ops.Not(self)

  def __abs__(self):
    from . import ops  # pylint: disable=g-import-not-at-top
    return ops.Abs(self)


class XlaComputation:
  """A built computation: an HloModuleProto whose entry is the built computation."""

  def __init__(self, module):
    if isinstance(module, (bytes, bytearray)):
      module = hlo_pb2.HloModuleProto.FromString(bytes(module))
    self._module = module

  def name(self):
    return self._module.name

  def as_hlo_module(self):
    """The HloModuleProto (a copy)."""
    copy = hlo_pb2.HloModuleProto()
    copy.CopyFrom(self._module)
    return copy

  def as_serialized_hlo_module_proto(self):
    return self._module.SerializeToString()

  def as_hlo_text(self, print_large_constants=True):
    from . import _hlo_text  # pylint: disable=g-import-not-at-top
    return _hlo_text.module_to_text(self._module)

  def program_shape(self):
    return ProgramShape.from_proto(self._module.host_program_shape)

  def __repr__(self):
    return "XlaComputation(%s: %s)" % (self.name(), self.program_shape())


def _error(message):
  return XlaRuntimeError(grpc.StatusCode.INVALID_ARGUMENT, message)


def _base_name(name):
  pos = name.rfind(".")
  return name if pos < 0 else name[:pos]


class XlaBuilder:
  """Builds one computation; see the module docstring. Not thread-safe."""

  def __init__(self, name):
    self._name = str(name)
    self._next_id = 0
    self._reset()
    self._metadata = None
    self._sharding = None
    self._frontend_attributes = {}

  def _reset(self):
    self._instrs = []
    self._shapes = {}
    self._index = {}
    self._embedded = {}
    self._params = {}
    self._first_error = None
    self._aliases = []
    self._buffer_donors = []

  def name(self):
    return self._name

  # --- errors ---
  def _report(self, error):
    if self._first_error is None:
      self._first_error = error if isinstance(error, XlaRuntimeError) else _error(str(error))
    return XlaOp(self, -1)

  def first_error(self):
    """The first error recorded (an XlaRuntimeError) or None."""
    return self._first_error

  get_current_status = first_error

  def _check(self, op):
    if not isinstance(op, XlaOp):
      raise BuilderError("expected an XlaOp, got %s" % type(op).__name__)
    if op._builder is not self:
      raise BuilderError("XlaOp is from builder %r, not %r" % (op._builder._name, self._name))
    if op._handle < 0:
      raise BuilderError("invalid XlaOp (made after an earlier error)")
    if op._handle not in self._index:
      raise BuilderError("XlaOp %d is not in this builder (built already?)" % op._handle)

  # --- queries ---
  def get_shape(self, op):
    if self._first_error is not None and (not isinstance(op, XlaOp) or op._handle < 0):
      raise self._first_error
    try:
      self._check(op)
    except BuilderError as e:
      raise _error(str(e)) from None
    return self._shapes[op._handle]

  def _shape(self, op):
    self._check(op)
    return self._shapes[op._handle]

  def get_program_shape(self, root=None):
    if self._first_error is not None:
      raise self._first_error
    if not self._instrs:
      raise _error("no operations in builder %r" % self._name)
    root_handle = self._root_handle(root)
    return self._program_shape(root_handle)

  def _root_handle(self, root):
    if root is None:
      return self._instrs[-1].id
    try:
      self._check(root)
    except BuilderError as e:
      raise _error(str(e)) from None
    return root._handle

  def _program_shape(self, root_handle):
    count = len(self._params)
    params, names = [], []
    for number in range(count):
      handle = self._params.get(number)
      if handle is None:
        raise _error("parameter %d missing: parameters must be numbered 0..%d" %
                     (number, count - 1))
      params.append(self._shapes[handle])
      names.append(self._instrs[self._index[handle]].name)
    return ProgramShape(params, self._shapes[root_handle], names)

  def is_constant(self, op):
    """True when op depends on no parameter and no stateful or side-effecting op."""
    self.get_shape(op)
    stateful = {"parameter", "rng", "rng-bit-generator", "rng-get-and-update-state", "infeed",
                "outfeed", "send", "send-done", "recv", "recv-done", "custom-call", "call",
                "while", "conditional", "all-reduce", "all-gather", "reduce-scatter",
                "all-to-all", "collective-permute", "replica-id", "partition-id", "after-all"}
    seen = set()
    stack = [op._handle]
    while stack:
      h = stack.pop()
      if h in seen:
        continue
      seen.add(h)
      instr = self._instrs[self._index[h]]
      if instr.opcode in stateful:
        return False
      stack.extend(instr.operand_ids)
    return True

  def get_op_proto(self, op):
    """The recorded HloInstructionProto of op (name is the base name until build())."""
    self.get_shape(op)
    return self._instrs[self._index[op._handle]]

  # --- attributes applied to the ops added while set ---
  def set_op_metadata(self, metadata):
    self._metadata = metadata

  def clear_op_metadata(self):
    self._metadata = None

  def set_sharding(self, sharding):
    self._sharding = sharding

  def clear_sharding(self):
    self._sharding = None

  def get_sharding(self):
    return self._sharding

  def set_frontend_attributes(self, attributes):
    """Sets the attributes (a dict) of ops added from now on; returns the previous ones."""
    old = self._frontend_attributes
    self._frontend_attributes = dict(attributes)
    return old

  def clear_frontend_attributes(self):
    self._frontend_attributes = {}

  def get_frontend_attributes(self):
    return dict(self._frontend_attributes)

  def set_instruction_frontend_attribute(self, op, key, value):
    self.get_op_proto(op).frontend_attributes.map[key] = value

  def set_instruction_sharding(self, op, sharding):
    instr = self.get_op_proto(op)
    if sharding is None:
      instr.ClearField("sharding")
    else:
      instr.sharding.CopyFrom(sharding)

  def setup_alias(self, output_index, param_number, param_index, kind=None):
    """Output `output_index` of the result may reuse parameter `param_number`'s buffer."""
    self._aliases.append((tuple(output_index), int(param_number), tuple(param_index),
                          hlo_pb2.MAY_ALIAS if kind is None else kind))

  def add_buffer_donor(self, param_number, param_index=()):
    self._buffer_donors.append((int(param_number), tuple(param_index)))

  # --- recording ---
  def _new_id(self):
    self._next_id += 1
    return self._next_id

  def _add(self, opcode, shape, operands=(), name=None, **fields):
    """Records an instruction; fields are HloInstructionProto fields (messages copied)."""
    for o in operands:
      self._check(o)
    instr = hlo_pb2.HloInstructionProto()
    handle = self._new_id()
    instr.id = handle
    instr.name = name or opcode
    instr.opcode = opcode
    shape.with_major_to_minor_layout_if_absent()._fill_proto(instr.shape)
    instr.operand_ids.extend(o._handle for o in operands)
    for key, value in fields.items():
      if value is None:
        continue
      field = getattr(instr, key)
      if hasattr(field, "CopyFrom"):
        field.CopyFrom(value)
      elif hasattr(field, "extend"):
        value = list(value)
        if value and hasattr(value[0], "CopyFrom"):
          for v in value:
            field.add().CopyFrom(v)
        else:
          field.extend(value)
      else:
        setattr(instr, key, value)
    if self._metadata is not None:
      instr.metadata.CopyFrom(self._metadata)
    if self._sharding is not None:
      instr.sharding.CopyFrom(self._sharding)
    for k, v in self._frontend_attributes.items():
      instr.frontend_attributes.map[k] = v
    self._index[handle] = len(self._instrs)
    self._instrs.append(instr)
    self._shapes[handle] = shape
    return XlaOp(self, handle)

  def _add_parameter(self, number, shape, name):
    if number in self._params:
      raise BuilderError("parameter %d already registered" % number)
    if number < 0:
      raise BuilderError("negative parameter number %d" % number)
    op = self._add("parameter", shape, (), name=name or "parameter", parameter_number=number)
    self._params[number] = op._handle
    return op

  def _add_computation(self, computation):
    """Copies computation (and what it calls) in with fresh ids; returns its entry id."""
    if isinstance(computation, XlaBuilder):
      raise BuilderError("pass a built XlaComputation (builder.build()), not an XlaBuilder")
    if not isinstance(computation, XlaComputation):
      raise BuilderError("expected an XlaComputation, got %s" % type(computation).__name__)
    module = computation._module
    remapped, imported = {}, []
    for c in module.computations:
      copy = hlo_pb2.HloComputationProto()
      copy.CopyFrom(c)
      cid = self._new_id()
      remapped[("c", c.id)] = cid
      copy.id = cid
      copy.name = "%s.%d" % (_base_name(c.name), cid)
      for i in copy.instructions:
        iid = self._new_id()
        remapped[("i", i.id)] = iid
        i.id = iid
        i.name = "%s.%d" % (_base_name(i.name), iid)
      imported.append(copy)

    def lookup(kind, old):
      new = remapped.get((kind, old))
      if new is None:
        raise BuilderError("called computation %r refers to unknown id %d" % (module.name, old))
      return new

    entry = lookup("c", module.entry_computation_id)
    for c in imported:
      c.root_id = lookup("i", c.root_id)
      for i in c.instructions:
        i.operand_ids[:] = [lookup("i", x) for x in i.operand_ids]
        i.control_predecessor_ids[:] = [lookup("i", x) for x in i.control_predecessor_ids]
        i.called_computation_ids[:] = [lookup("c", x) for x in i.called_computation_ids]
    for c in imported:
      self._embedded[c.id] = c
    return entry

  def _computation_shape(self, computation):
    return computation.program_shape()

  # --- build ---
  def build(self, root=None):
    """The built computation (root: the last added op unless given). Clears the builder."""
    if self._first_error is not None:
      raise self._first_error
    if not self._instrs:
      raise _error("no operations in builder %r" % self._name)
    root_handle = self._root_handle(root)
    program_shape = self._program_shape(root_handle)
    entry = hlo_pb2.HloComputationProto()
    entry_id = self._new_id()
    entry.id = entry_id
    entry.name = "%s.%d" % (self._name, entry_id)
    entry.program_shape.CopyFrom(_program_shape_proto(program_shape))
    entry.root_id = root_handle
    for instr in self._instrs:
      instr.name = "%s.%d" % (instr.name, instr.id)
      entry.instructions.append(instr)
    module = hlo_pb2.HloModuleProto()
    module.name = entry.name
    module.id = entry_id
    module.entry_computation_name = entry.name
    module.entry_computation_id = entry_id
    module.host_program_shape.CopyFrom(entry.program_shape)
    for cid in sorted(self._embedded):
      module.computations.append(self._embedded[cid])
    module.computations.append(entry)
    self._populate_aliases(module, program_shape)
    self._reset()
    return XlaComputation(module)

  def _populate_aliases(self, module, program_shape):
    params = program_shape.parameter_shapes()

    def valid_index(shape, index):
      for i in index:
        if not shape.is_tuple() or not 0 <= i < len(shape.tuple_shapes()):
          return False
        shape = shape.tuple_shapes()[i]
      return True

    def check_param(number, index):
      if not 0 <= number < len(params):
        raise _error("invalid parameter number %d (total %d)" % (number, len(params)))
      if not valid_index(params[number], index):
        raise _error("invalid parameter shape index %s of parameter %d with shape %s" %
                     (list(index), number, params[number]))

    seen = set()
    for out_index, number, param_index, kind in sorted(self._aliases, key=lambda a: a[0]):
      check_param(number, param_index)
      if not valid_index(program_shape.result_shape(), out_index):
        raise _error("invalid output shape index %s of result shape %s" %
                     (list(out_index), program_shape.result_shape()))
      if out_index in seen:
        raise _error("output shape index %s is aliased twice" % (list(out_index),))
      seen.add(out_index)
      entry = module.input_output_alias.entries.add()
      entry.output_shape_index.extend(out_index)
      entry.parameter_number = number
      entry.parameter_shape_index.extend(param_index)
      entry.kind = kind
    for number, index in self._buffer_donors:
      check_param(number, index)
      entry = module.buffer_donor.entries.add()
      entry.parameter_number = number
      entry.parameter_shape_index.extend(index)

  def __repr__(self):
    return "XlaBuilder(%r, %d ops)" % (self._name, len(self._instrs))


def _program_shape_proto(program_shape):
  proto = xla_data_pb2.ProgramShapeProto()
  for p in program_shape.parameter_shapes():
    p.with_major_to_minor_layout_if_absent()._fill_proto(proto.parameters.add())
  program_shape.result_shape().with_major_to_minor_layout_if_absent()._fill_proto(proto.result)
  proto.parameter_names.extend(program_shape.parameter_names())
  return proto


def current_source_info_metadata(op_type=None, op_name=None, skip_frames=1):
  """OpMetadata with the caller's file and line (and op_type / op_name when given)."""
  frame = inspect.currentframe()
  for _ in range(skip_frames):
    if frame is not None and frame.f_back is not None:
      frame = frame.f_back
  metadata = xla_data_pb2.OpMetadata()
  if op_type:
    metadata.op_type = op_type
  if op_name:
    metadata.op_name = op_name
  if frame is not None:
    metadata.source_file = os.path.abspath(frame.f_code.co_filename)
    metadata.source_line = frame.f_lineno
  return metadata
