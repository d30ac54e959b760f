"""ops.CustomCallWithAliasing and CustomCallWithComputation (xla_client's custom-call forms).

The interpreter runs the placement targets (MoveToHost, Sharding, ...) as the identity, so
the computations run; the attributes are checked in the proto and in the HLO text the
server parses.
"""

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

S = xc.Shape.array_shape


def adder():
  sub = xc.XlaBuilder("add")
  scalar = xc.Shape.scalar_shape(np.float32)
  ops.Add(ops.Parameter(sub, 0, scalar), ops.Parameter(sub, 1, scalar))
  return sub.build()


def test_custom_call_with_aliasing_and_computation(client):
  b = xc.XlaBuilder("custom")
  x = ops.Parameter(b, 0, S(np.float32, (3,)))
  y = ops.CustomCallWithAliasing(b, b"MoveToHost", [x], S(np.float32, (3,)),
                                 [S(np.float32, (3,))], output_operand_aliasing=[((), (0, ()))],
                                 literal=np.arange(2, dtype=np.int32))
  z = ops.CustomCallWithComputation(b, "Sharding", [y], adder(), S(np.float32, (3,)),
                                    has_side_effect=True)
  assert b.get_shape(z).dimensions() == (3,)
  comp = b.build()
  entry = comp.as_hlo_module().computations[-1]
  calls = [i for i in entry.instructions if i.opcode == "custom-call"]
  aliasing = calls[0].output_operand_aliasing
  assert len(aliasing) == 1 and aliasing[0].operand_index == 0
  assert list(calls[0].literal.s32s) == [0, 1]
  assert len(calls[1].called_computation_ids) == 1 and calls[1].custom_call_has_side_effect
  text = comp.as_hlo_text()
  assert "output_to_operand_aliasing={{}: (0, {})}" in text
  assert "literal=s32[2]{0} {0, 1}" in text
  assert "to_apply=add." in text
  x_value = np.array([1.0, -2.0, 3.5], np.float32)
  for form in (comp, text):
    got = client.execute_and_transfer(client.compile(form), [x_value])
    np.testing.assert_array_equal(got, x_value)


def test_custom_call_tuple_aliasing_text_parses(client):
  b = xc.XlaBuilder("custom")
  x = ops.Parameter(b, 0, xc.Shape.tuple_shape([S(np.float32, (2,)), S(np.int32, ())]))
  out = xc.Shape.tuple_shape([S(np.int32, ()), S(np.float32, (2,))])
  ops.CustomCallWithAliasing(b, "my_target", [x], out, [b.get_shape(x)],
                             output_operand_aliasing=[((0,), (0, (1,))), ((1,), (0, (0,)))],
                             literal=(np.float32(1.5), np.arange(2, dtype=np.int32)))
  comp = b.build()
  text = comp.as_hlo_text()
  assert "output_to_operand_aliasing={{0}: (0, {1}), {1}: (0, {0})}" in text
  assert "literal=( f32[] 1.5, s32[2]{0} {0, 1} )" in text
  # The server parses (and verifies) the text; the interpreter has no such target.
  exe = client.compile(text)
  with pytest.raises(xc.XlaRuntimeError) as e:
    client.execute_and_transfer(exe, [(np.zeros(2, np.float32), np.int32(0))])
  assert e.value.code == grpc.StatusCode.UNIMPLEMENTED and "my_target" in e.value.message


@pytest.mark.parametrize("aliasing,message", [
    ([((), (1, ()))], "aliased operand 1 out of range"),
    ([((0,), (0, ()))], "output index [0] is not in"),
    ([((), (0, ()))], "cannot alias operand 0"),
])
def test_custom_call_aliasing_errors(aliasing, message):
  b = xc.XlaBuilder("bad")
  x = ops.Parameter(b, 0, S(np.float32, (4,)))
  ops.CustomCallWithAliasing(b, "t", [x], S(np.float32, (3,)), [S(np.float32, (4,))],
                             output_operand_aliasing=aliasing)
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert message in e.value.message, e.value.message


def test_custom_call_with_computation_needs_a_computation():
  b = xc.XlaBuilder("bad")
  x = ops.Parameter(b, 0, S(np.float32, (4,)))
  ops.CustomCallWithComputation(b, "t", [x], xc.XlaBuilder("not_built"), S(np.float32, (4,)))
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert "computation must be an XlaComputation" in e.value.message, e.value.message
