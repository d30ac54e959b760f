"""XlaBuilder: shape inference, first-error semantics, attributes, aliasing, text form."""

import os

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

F32 = np.float32
S = xc.Shape.array_shape


def build_error(fn):
  """Runs fn(builder) and returns the message build() raises."""
  b = xc.XlaBuilder("bad")
  fn(b)
  with pytest.raises(xc.XlaRuntimeError) as info:
    b.build()
  assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
  return info.value.message


@pytest.mark.parametrize("fn,needle", [
    (lambda b: ops.Add(ops.Parameter(b, 0, S(F32, (2,))), ops.Parameter(b, 1, S(np.int32, (2,)))),
     "same element type"),
    (lambda b: ops.Add(ops.Parameter(b, 0, S(F32, (2, 3))), ops.Parameter(b, 1, S(F32, (3, 2)))),
     "dimension 0 mismatch"),
    (lambda b: ops.Add(ops.Parameter(b, 0, S(F32, (2, 3))), ops.Parameter(b, 1, S(F32, (3,)))),
     "broadcast_dimensions"),
    (lambda b: ops.Dot(ops.Parameter(b, 0, S(F32, (2, 3))), ops.Parameter(b, 1, S(F32, (2, 3)))),
     "contracting dimension sizes differ"),
    (lambda b: ops.Reshape(ops.Parameter(b, 0, S(F32, (2, 3))), [4]), "cannot reshape"),
    (lambda b: ops.Transpose(ops.Parameter(b, 0, S(F32, (2, 3))), [0, 0]), "not a permutation"),
    (lambda b: ops.Slice(ops.Parameter(b, 0, S(F32, (4,))), [2], [6], [1]), "out of bounds"),
    (lambda b: ops.ConcatInDim(b, [ops.Parameter(b, 0, S(F32, (2, 3))),
                                   ops.Parameter(b, 1, S(F32, (3, 3)))], 1), "cannot concatenate"),
    (lambda b: ops.Select(ops.Parameter(b, 0, S(F32, (2,))), ops.Parameter(b, 1, S(F32, (2,))),
                          ops.Parameter(b, 2, S(F32, (2,)))), "predicate must be pred"),
    (lambda b: ops.GetTupleElement(ops.Parameter(b, 0, S(F32, (2,))), 0), "non-tuple"),
    (lambda b: ops.Not(ops.Parameter(b, 0, S(F32, (2,)))), "pred or integral"),
    (lambda b: ops.Exp(ops.Parameter(b, 0, S(np.int32, (2,)))), "floating-point"),
    (lambda b: ops.ShiftLeft(ops.Parameter(b, 0, S(F32, (2,))), ops.Parameter(b, 1, S(F32, (2,)))),
     "integral"),
    (lambda b: ops.Parameter(b, 0, S(F32, (2,))) and ops.Parameter(b, 0, S(F32, (2,))),
     "parameter 0 already"),
    (lambda b: ops.Parameter(b, 1, S(F32, (2,))), "parameter 0 missing"),
    (lambda b: ops.Pad(ops.Parameter(b, 0, S(F32, (2,))), ops.Constant(b, np.int32(0)), [(0, 0, 0)]),
     "padding value"),
    (lambda b: ops.Reduce(b, [ops.Parameter(b, 0, S(F32, (2,)))], [ops.Constant(b, F32(0))],
                          "not a computation", [0]), "XlaComputation"),
    (lambda b: ops.BroadcastInDim(ops.Parameter(b, 0, S(F32, (3,))), [2, 4], [1]),
     "does not match output dimension"),
    (lambda b: ops.TopK(ops.Parameter(b, 0, S(F32, (3,))), 5), "TopK"),
    (lambda b: ops.Iota(b, S(F32, (2, 3)), 2), "iota_dimension"),
    (lambda b: ops.ConvertElementType(ops.Parameter(b, 0, S(np.complex64, (2,))), F32), "Real"),
    (lambda b: ops.DynamicSlice(ops.Parameter(b, 0, S(F32, (4,))), [ops.Constant(b, F32(0))], [2]),
     "integral scalars"),
])
def test_builder_errors_have_clear_messages(fn, needle):
  assert needle in build_error(fn)


def test_first_error_is_kept_and_later_ops_do_nothing():
  b = xc.XlaBuilder("errs")
  x = ops.Parameter(b, 0, S(F32, (2,)))
  bad = ops.Reshape(x, [3])
  assert not bad.valid()
  later = ops.Add(ops.Transpose(x, [5]), bad)
  assert not later.valid()
  assert "cannot reshape" in str(b.first_error())
  with pytest.raises(xc.XlaRuntimeError, match="cannot reshape"):
    b.get_shape(later)
  with pytest.raises(xc.XlaRuntimeError, match="Reshape"):
    b.build()


def test_ops_from_two_builders():
  a, c = xc.XlaBuilder("a"), xc.XlaBuilder("c")
  x = ops.Parameter(a, 0, S(F32, (2,)))
  y = ops.Parameter(c, 0, S(F32, (2,)))
  ops.Add(x, y)
  with pytest.raises(xc.XlaRuntimeError, match="different builders"):
    a.build()


def test_empty_builder_and_wrong_root():
  with pytest.raises(xc.XlaRuntimeError, match="no operations"):
    xc.XlaBuilder("empty").build()
  b = xc.XlaBuilder("b")
  other = xc.XlaBuilder("o")
  ops.Parameter(b, 0, S(F32, ()))
  with pytest.raises(xc.XlaRuntimeError):
    b.build(ops.Parameter(other, 0, S(F32, ())))


def test_shape_inference_and_queries():
  b = xc.XlaBuilder("q")
  x = ops.Parameter(b, 0, S(F32, (2, 3)), name="x")
  y = ops.Dot(x, ops.Transpose(x, [1, 0]))
  assert b.get_shape(y) == S(F32, (2, 2))
  assert y.shape() == S(F32, (2, 2))
  c = ops.Add(ops.Constant(b, np.ones((2, 2), F32)), ops.Constant(b, F32(1)))
  assert b.is_constant(c)
  assert not b.is_constant(y)
  assert not b.is_constant(ops.RngUniform(ops.Constant(b, F32(0)), ops.Constant(b, F32(1)),
                                          S(F32, (2,))))
  ps = b.get_program_shape(y)
  assert ps.parameter_shapes() == [S(F32, (2, 3))] and ps.result_shape() == S(F32, (2, 2))
  comp = b.build(y)
  assert comp.program_shape() == ps
  assert comp.program_shape().parameter_names()[0].startswith("x")


def test_metadata_sharding_frontend_attributes_in_module():
  b = xc.XlaBuilder("attrs")
  b.set_op_metadata(xc.current_source_info_metadata(op_type="add", op_name="my_add"))
  line = _this_line() - 1
  x = ops.Parameter(b, 0, S(F32, (2,)))
  b.clear_op_metadata()
  b.set_sharding(xc.OpSharding(type=xc.OpSharding.REPLICATED))
  y = ops.Neg(x)
  b.clear_sharding()
  old = b.set_frontend_attributes({"k": "v"})
  assert old == {}
  z = ops.Abs(y)
  b.clear_frontend_attributes()
  comp = b.build(z)
  instrs = {i.opcode: i for i in comp.as_hlo_module().computations[-1].instructions}
  md = instrs["parameter"].metadata
  assert md.op_type == "add" and md.op_name == "my_add" and md.source_line == line
  assert os.path.basename(md.source_file) == "test_builder.py"
  assert instrs["negate"].sharding.type == xc.OpSharding.REPLICATED
  assert instrs["abs"].frontend_attributes.map["k"] == "v"
  text = comp.as_hlo_text()
  assert 'op_name="my_add"' in text and "sharding={replicated}" in text and 'k="v"' in text


def _this_line():
  import inspect  # pylint: disable=g-import-not-at-top
  return inspect.currentframe().f_back.f_lineno


def test_attributes_round_trip_through_the_server(client):
  b = xc.XlaBuilder("attrs")
  b.set_op_metadata(xc.current_source_info_metadata(op_type="neg"))
  x = ops.Parameter(b, 0, S(F32, (2,)))
  b.set_frontend_attributes({"stage": "1"})
  ops.Neg(x)
  comp = b.build()
  for form in (comp, comp.as_hlo_text()):
    np.testing.assert_array_equal(client.execute_and_transfer(client.compile(form),
                                                              [np.ones(2, F32)]), [-1, -1])


def test_setup_alias(client):
  b = xc.XlaBuilder("alias")
  x = ops.Parameter(b, 0, xc.Shape.tuple_shape([S(F32, (2,)), S(F32, (2,))]))
  ops.Tuple(b, [ops.Neg(ops.GetTupleElement(x, 0)), ops.GetTupleElement(x, 1)])
  b.setup_alias([0], 0, [0])
  comp = b.build()
  module = comp.as_hlo_module()
  entry = module.input_output_alias.entries[0]
  assert list(entry.output_shape_index) == [0] and entry.parameter_number == 0
  assert "input_output_alias" in comp.as_hlo_text()
  for form in (comp, comp.as_hlo_text()):
    out = client.execute_and_transfer(client.compile(form), [(np.ones(2, F32), np.zeros(2, F32))])
    np.testing.assert_array_equal(out[0], [-1, -1])
  bad = xc.XlaBuilder("bad_alias")
  ops.Parameter(bad, 0, S(F32, (2,)))
  bad.setup_alias([0], 0, [])
  with pytest.raises(xc.XlaRuntimeError, match="output shape index"):
    bad.build()


def test_builder_is_reusable_after_build():
  b = xc.XlaBuilder("reuse")
  ops.Parameter(b, 0, S(F32, ()))
  first = b.build()
  ops.Neg(ops.Parameter(b, 0, S(F32, (3,))))
  second = b.build()
  assert first.program_shape().result_shape() == S(F32, ())
  assert second.program_shape().result_shape() == S(F32, (3,))
  assert first.name() != second.name()


def test_computation_text_and_serialization():
  b = xc.XlaBuilder("text")
  x = ops.Parameter(b, 0, S(F32, (2,)))
  ops.Add(x, ops.Constant(b, np.array([0.1, -np.inf], F32)))
  comp = b.build()
  text = comp.as_hlo_text()
  assert text.startswith("HloModule text.")
  assert "constant({0.1, -inf})" in text
  again = xc.XlaComputation(comp.as_serialized_hlo_module_proto())
  assert again.as_hlo_text() == text
