"""Ctrl-C during a long execution raises KeyboardInterrupt and cancels it on the server."""

import os
import signal
import subprocess
import sys
import time

SCRIPT = r'''
import sys, time, numpy as np, xla_client as xc
SPIN = """HloModule spin
cond {
  p = s32[] parameter(0)
  limit = s32[] constant(2000000000)
  ROOT lt = pred[] compare(p, limit), direction=LT
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(p, one)
}
ENTRY main {
  z = s32[] parameter(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}"""
c = xc.Client(sys.argv[1], token=sys.argv[2])
exe = c.compile(SPIN)
print("started", flush=True)
try:
  c.execute_and_transfer(exe, [np.int32(0)])
  print("finished?", flush=True)
except KeyboardInterrupt as e:
  kept = e  # a notebook keeps the exception and its traceback
  deadline = time.time() + 5
  while c.get_status().executions_in_flight and time.time() < deadline:
    time.sleep(0.05)
  print("in flight after interrupt:", c.get_status().executions_in_flight, flush=True)
'''


def test_interrupt_cancels_the_execution(server):
  env = dict(os.environ)
  proc = subprocess.Popen([sys.executable, "-c", SCRIPT, server.address, server.token],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
  try:
    assert proc.stdout.readline().strip() == "started"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
  finally:
    if proc.poll() is None:
      proc.kill()
  assert "in flight after interrupt: 0" in out, out
