"""ops.ScaledDot, StochasticConvertType, CollectiveBroadcast, AllToAll (split != concat) and
Send/Recv (SendToHost/RecvFromHost) against numpy and the interpreter's one-device rules.

The server's interpreter is one device: a collective naming only device 0 is the identity,
one naming more devices is INVALID_ARGUMENT "needs N devices", and send/recv have no peer
(UNIMPLEMENTED). Modules for more devices are still compiled, so the verifier checks them.
"""

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

S = xc.Shape.array_shape
RNG = np.random.RandomState(11)


def run_both(client, builder, args):
  """Results of the computation compiled from its proto and from its HLO text."""
  comp = builder.build()
  out = []
  for form in (comp, comp.as_hlo_text()):
    out.append(client.execute_and_transfer(client.compile(form), list(args)))
  return out, comp


def build_error(builder):
  with pytest.raises(xc.XlaRuntimeError) as e:
    builder.build()
  assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
  return e.value.message


# --- ScaledDot ------------------------------------------------------------------------

def dequantize(x, scale, dtype):
  x, scale = x.astype(dtype), np.asarray(scale).astype(dtype)
  if scale.ndim == 0:
    return x * scale
  for d in range(x.ndim):
    scale = np.repeat(scale, x.shape[d] // scale.shape[d], axis=d)
  return x * scale


def test_scaled_dot_block_scales(client):
  b = xc.XlaBuilder("scaled_dot")
  lhs = RNG.randn(4, 6).astype(np.float32)
  lhs_scale = RNG.uniform(0.5, 2, (4, 2)).astype(np.float32)
  rhs = RNG.randn(6, 3).astype(np.float32)
  rhs_scale = RNG.uniform(0.5, 2, (3, 1)).astype(np.float32)
  args = [lhs, lhs_scale, rhs, rhs_scale]
  p = [ops.Parameter(b, i, S(a.dtype, a.shape)) for i, a in enumerate(args)]
  out = ops.ScaledDot(p[0], p[1], p[2], p[3], (([1], [0]), ([], [])))
  assert b.get_shape(out).dimensions() == (4, 3)
  results, comp = run_both(client, b, args)
  # XLA's HLO operand order is (lhs, rhs, lhs_scale, rhs_scale).
  entry = comp.as_hlo_module().computations[-1]
  instr = [i for i in entry.instructions if i.opcode == "scaled-dot"][0]
  params = {i.id: i.parameter_number for i in entry.instructions if i.opcode == "parameter"}
  assert [params[o] for o in instr.operand_ids] == [0, 2, 1, 3]
  expect = (dequantize(lhs, lhs_scale, np.float64) @ dequantize(rhs, rhs_scale, np.float64))
  for got in results:
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)
  # Without the scales it is a different product: the test sees the scales.
  assert not np.allclose(results[0], lhs @ rhs, rtol=1e-3)


def test_scaled_dot_batch_scalar_scales_and_preferred_type(client):
  b = xc.XlaBuilder("scaled_dot")
  lhs = RNG.randn(2, 3, 8).astype(np.float16)
  rhs = RNG.randn(2, 8, 5).astype(np.float16)
  rhs_scale = RNG.uniform(0.5, 2, (2, 4, 5)).astype(np.float16)
  lhs_scale = np.float16(0.5)
  args = [lhs, lhs_scale, rhs, rhs_scale]
  p = [ops.Parameter(b, i, S(np.asarray(a).dtype, np.shape(a))) for i, a in enumerate(args)]
  ops.ScaledDot(p[0], p[1], p[2], p[3], (([2], [1]), ([0], [0])),
                preferred_element_type=np.float32)
  results, _ = run_both(client, b, args)
  expect = dequantize(lhs, lhs_scale, np.float32) @ dequantize(rhs, rhs_scale, np.float32)
  for got in results:
    assert got.dtype == np.float32 and got.shape == (2, 3, 5)
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lhs_scale_shape,rhs_shape,message", [
    ((4,), (6, 3), "must be a scalar or have the rank"),
    ((4, 4), (6, 3), "dimension 1 does not divide"),
    ((4, 2), (5, 3), "contracting dimension sizes differ"),
])
def test_scaled_dot_errors(lhs_scale_shape, rhs_shape, message):
  b = xc.XlaBuilder("bad")
  lhs = ops.Parameter(b, 0, S(np.float32, (4, 6)))
  ls = ops.Parameter(b, 1, S(np.float32, lhs_scale_shape))
  rhs = ops.Parameter(b, 2, S(np.float32, rhs_shape))
  rs = ops.Parameter(b, 3, S(np.float32, ()))
  ops.ScaledDot(lhs, ls, rhs, rs, (([1], [0]), ([], [])))
  got = build_error(b)
  assert got.startswith("ScaledDot:") and message in got, got


def test_scaled_dot_mixed_types_need_preferred_type():
  b = xc.XlaBuilder("bad")
  lhs = ops.Parameter(b, 0, S(np.float16, (2, 2)))
  rhs = ops.Parameter(b, 1, S(np.float32, (2, 2)))
  one = ops.Constant(b, np.float32(1))
  ops.ScaledDot(lhs, one, rhs, one, (([1], [0]), ([], [])))
  assert "give preferred_element_type" in build_error(b)


# --- StochasticConvertType ------------------------------------------------------------

def stochastic_reference(values, random, out_dtype, random_bits):
  info = np.iinfo(out_dtype)
  out = []
  for v, r in zip(values.astype(np.float64), random.astype(np.uint64)):
    if np.isnan(v):
      out.append(0)
    elif v >= info.max:
      out.append(info.max)
    elif v <= info.min:
      out.append(info.min)
    else:
      magnitude = abs(v)
      whole = np.floor(magnitude)
      threshold = int(np.ldexp(magnitude - whole, random_bits))
      whole += 1 if int(r) < threshold else 0
      out.append(int(-whole if v < 0 else whole))
  return np.array(out, out_dtype)


@pytest.mark.parametrize("in_dtype,random_dtype,out_dtype", [
    (np.float32, np.uint32, np.int32), (np.float64, np.uint64, np.int64),
    (np.float16, np.uint16, np.int8), (np.float32, np.uint32, np.uint8)])
def test_stochastic_convert(client, in_dtype, random_dtype, out_dtype):
  info = np.iinfo(out_dtype)
  bits = np.iinfo(random_dtype).bits
  values = np.array([1.25, -1.25, 2.5, -2.5, 3.0, 0.0, -0.75, 0.75, np.nan, np.inf, -np.inf,
                     float(info.max) * 4, float(info.min) * 4 - 8, 1.5, 1.5], in_dtype)
  top = np.iinfo(random_dtype).max
  random = np.array([0, 0, top // 2 + 2, top // 2 - 2, 0, top, 0, top, 0, 0, 0, 0, 0,
                     top // 2 - 1, top // 2 + 1], random_dtype)
  b = xc.XlaBuilder("stochastic")
  x = ops.Parameter(b, 0, S(in_dtype, values.shape))
  r = ops.Parameter(b, 1, S(random_dtype, values.shape))
  out = ops.StochasticConvert(x, r, out_dtype)
  assert b.get_shape(out).element_type() == xc.dtype_to_etype(out_dtype)
  results, _ = run_both(client, b, [values, random])
  expect = stochastic_reference(values, random, out_dtype, bits)
  for got in results:
    np.testing.assert_array_equal(got, expect)
  assert expect[0] == 2 and expect[2] == 2 and expect[13] == 2 and expect[14] == 1


def test_stochastic_convert_rounds_up_with_the_fraction_probability(client):
  n = 4000
  values = np.full((n,), 0.3, np.float32)
  random = RNG.randint(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
  b = xc.XlaBuilder("stochastic")
  ops.StochasticConvertType(ops.Parameter(b, 0, S(np.float32, (n,))),
                            ops.Parameter(b, 1, S(np.uint32, (n,))), np.int32)
  got = client.execute_and_transfer(client.compile(b.build()), [values, random])
  assert set(np.unique(got)) <= {0, 1}
  assert abs(got.mean() - 0.3) < 0.04


@pytest.mark.parametrize("in_dtype,random_dtype,random_shape,out_dtype,message", [
    (np.int32, np.uint32, (3,), np.int32, "converts floating-point operands"),
    (np.float32, np.int32, (3,), np.int32, "random must be unsigned integers"),
    (np.float32, np.uint16, (3,), np.int32, "operand's bit width (u32)"),
    (np.float32, np.uint32, (4,), np.int32, "must have the operand's dimensions"),
    (np.float32, np.uint32, (3,), np.float16, "produces integers"),
])
def test_stochastic_convert_errors(in_dtype, random_dtype, random_shape, out_dtype, message):
  b = xc.XlaBuilder("bad")
  ops.StochasticConvertType(ops.Parameter(b, 0, S(in_dtype, (3,))),
                            ops.Parameter(b, 1, S(random_dtype, random_shape)), out_dtype)
  got = build_error(b)
  assert got.startswith("StochasticConvertType:") and message in got, got


# --- CollectiveBroadcast / AllToAll ---------------------------------------------------

@pytest.mark.parametrize("groups", [[[0]], []])
def test_collective_broadcast_one_device(client, groups):
  x = RNG.randn(2, 3).astype(np.float32)
  b = xc.XlaBuilder("cb")
  ops.CollectiveBroadcast(ops.Parameter(b, 0, S(np.float32, x.shape)), groups, channel_id=5)
  results, comp = run_both(client, b, [x])
  assert "collective-broadcast(" in comp.as_hlo_text()
  assert "channel_id=5" in comp.as_hlo_text()
  for got in results:
    np.testing.assert_array_equal(got, x)


def test_collective_broadcast_needs_the_devices_it_names(client):
  b = xc.XlaBuilder("cb")
  ops.CollectiveBroadcast(ops.Parameter(b, 0, S(np.float32, (2,))), [[0, 1]])
  exe = client.compile(b.build())
  with pytest.raises(xc.XlaRuntimeError) as e:
    client.execute_and_transfer(exe, [np.zeros(2, np.float32)])
  assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and "needs 2 devices" in e.value.message


def simulate_all_to_all(comp, inputs, split, count):
  """Runs the module's ops after its all-to-all with numpy, for `count` participants."""
  entry = comp.as_hlo_module().computations[-1]
  instrs = list(entry.instructions)
  start = [i.opcode for i in instrs].index("all-to-all")
  outputs = []
  for j in range(count):
    # All-to-all: participant j receives block j of every participant, in participant order.
    value = np.concatenate([np.split(x, count, axis=split)[j] for x in inputs], axis=split)
    for instr in instrs[start + 1:]:
      if instr.opcode == "reshape":
        value = value.reshape(tuple(instr.shape.dimensions))
      elif instr.opcode == "transpose":
        value = value.transpose(tuple(instr.dimensions))
      else:
        raise AssertionError("unexpected %s after the all-to-all" % instr.opcode)
    outputs.append(value)
  return outputs


@pytest.mark.parametrize("shape,split,concat,count", [
    ((4, 3), 0, 1, 2), ((3, 6), 1, 0, 3), ((2, 4, 6), 2, 0, 2), ((2, 4, 6), 0, 2, 2),
    ((6, 2, 5), 0, 1, 3), ((4, 6), 1, 1, 2)])
def test_all_to_all_split_and_concat(client, shape, split, concat, count):
  b = xc.XlaBuilder("a2a")
  out = ops.AllToAll(ops.Parameter(b, 0, S(np.float32, shape)), split, concat, count)
  want = list(shape)
  want[split] //= count
  want[concat] *= count
  assert list(b.get_shape(out).dimensions()) == want
  comp = b.build()
  assert "replica_groups={{%s}}" % ",".join(str(i) for i in range(count)) in comp.as_hlo_text()
  inputs = [RNG.randn(*shape).astype(np.float32) for _ in range(count)]
  for j, got in enumerate(simulate_all_to_all(comp, inputs, split, count)):
    expect = np.concatenate([np.split(x, count, axis=split)[j] for x in inputs], axis=concat)
    np.testing.assert_array_equal(got, expect)
  # The verifier takes the module; the interpreter (one device) refuses to run it.
  for form in (comp, comp.as_hlo_text()):
    exe = client.compile(form)
    with pytest.raises(xc.XlaRuntimeError) as e:
      client.execute_and_transfer(exe, [inputs[0]])
    assert "needs %d devices" % count in e.value.message


def test_all_to_all_one_participant_is_the_identity(client):
  x = RNG.randn(2, 3, 4).astype(np.float32)
  b = xc.XlaBuilder("a2a")
  p = ops.Parameter(b, 0, S(np.float32, x.shape))
  ops.Tuple(b, [ops.AllToAll(p, 0, 2, 1), ops.AllToAll(p, 2, 1, 1, [[0]])])
  results, _ = run_both(client, b, [x])
  for got in results:
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], x)


@pytest.mark.parametrize("args,message", [
    ((0, 1, 3, None), "not divisible by split_count 3"),
    ((0, 1, 2, [[0, 1, 2]]), "does not have split_count (2) members"),
    ((0, 2, 2, None), "concat_dimension 2 out of range"),
])
def test_all_to_all_errors(args, message):
  b = xc.XlaBuilder("bad")
  split, concat, count, groups = args
  ops.AllToAll(ops.Parameter(b, 0, S(np.float32, (4, 4))), split, concat, count, groups)
  got = build_error(b)
  assert message in got, got


# --- Send / Recv ----------------------------------------------------------------------

def device_channel(handle):
  return xc.ChannelHandle(handle=handle, type=xc.ChannelHandle.DEVICE_TO_DEVICE)


def test_send_recv_verify_and_need_a_peer(client):
  b = xc.XlaBuilder("send_recv")
  x = ops.Parameter(b, 0, S(np.float32, (2, 3)))
  token = ops.CreateToken(b)
  done = ops.SendWithToken(x, token, device_channel(1))
  received = ops.RecvWithToken(done, S(np.float32, (4,)), 2)
  assert b.get_shape(done).is_token()
  data_token = b.get_shape(received).tuple_shapes()
  assert data_token[0].dimensions() == (4,) and data_token[1].is_token()
  ops.Send(x, 3)
  plain = ops.Recv(b, S(np.int32, (2,)), device_channel(4))
  assert b.get_shape(plain).dimensions() == (2,)
  ops.Tuple(b, [ops.GetTupleElement(received, 0), plain])
  comp = b.build()
  text = comp.as_hlo_text()
  for line in ("send(", "send-done(", "recv(", "recv-done("):
    assert line in text
  for channel in (1, 2, 3, 4):
    assert "channel_id=%d" % channel in text
  assert "is_host_transfer" not in text
  for form in (comp, text):
    exe = client.compile(form)
    with pytest.raises(xc.XlaRuntimeError) as e:
      client.execute_and_transfer(exe, [np.zeros((2, 3), np.float32)])
    assert e.value.code == grpc.StatusCode.UNIMPLEMENTED
    assert "needs a peer device or host" in e.value.message


def test_send_to_host_recv_from_host(client):
  b = xc.XlaBuilder("host")
  x = ops.Parameter(b, 0, S(np.float32, (3,)))
  token = ops.CreateToken(b)
  sent = ops.SendToHost(x, token, S(np.float32, (3,)),
                        xc.ChannelHandle(handle=7, type=xc.ChannelHandle.DEVICE_TO_HOST))
  got = ops.RecvFromHost(sent, S(np.float32, (3,)),
                         xc.ChannelHandle(handle=8, type=xc.ChannelHandle.HOST_TO_DEVICE))
  ops.GetTupleElement(got, 0)
  comp = b.build()
  text = comp.as_hlo_text()
  assert text.count("is_host_transfer=true") == 4
  exe = client.compile(text)
  with pytest.raises(xc.XlaRuntimeError) as e:
    client.execute_and_transfer(exe, [np.zeros(3, np.float32)])
  assert "(host transfer)" in e.value.message


@pytest.mark.parametrize("case,message", [
    ("to_host_on_device_channel", "SendToHost needs a DEVICE_TO_HOST channel"),
    ("from_host_on_device_channel", "RecvFromHost needs a HOST_TO_DEVICE channel"),
    ("zero_handle", "positive channel handle"),
    ("not_a_token", "must be a token"),
    ("layout_mismatch", "does not match the operand"),
    ("bad_handle_type", "needs a ChannelHandle"),
])
def test_send_recv_errors(case, message):
  b = xc.XlaBuilder("bad")
  x = ops.Parameter(b, 0, S(np.float32, (3,)))
  token = ops.CreateToken(b)
  if case == "to_host_on_device_channel":
    ops.SendToHost(x, token, S(np.float32, (3,)), device_channel(1))
  elif case == "from_host_on_device_channel":
    ops.RecvFromHost(token, S(np.float32, (3,)), device_channel(1))
  elif case == "zero_handle":
    ops.Send(x, 0)
  elif case == "not_a_token":
    ops.SendWithToken(x, x, 1)
  elif case == "layout_mismatch":
    ops.SendToHost(x, token, S(np.float32, (4,)),
                   xc.ChannelHandle(handle=1, type=xc.ChannelHandle.DEVICE_TO_HOST))
  else:
    ops.RecvWithToken(token, S(np.float32, (3,)), "1")
  got = build_error(b)
  assert message in got, got
