"""Run an HLO text file on an xla-server with numpy inputs.

  python3 examples/run_hlo.py [--server HOST:PORT] [FILE.hlo]

Defaults to examples/softmax.hlo with a random f32[4,5] input, checked against numpy.
The same from the shell: python3 -m xla_client run FILE.hlo --server ADDR --random
"""

import os
import sys

import numpy as np

from _common import connect, parse_args  # pylint: disable=g-multiple-import

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
  args = parse_args(__doc__, argv, lambda p: p.add_argument(
      "file", nargs="?", default=os.path.join(HERE, "softmax.hlo"), help="HLO text file"))
  path = args.file
  with open(path) as f:
    text = f.read()
  with connect(args, "run_hlo") as client:
    exe = client.compile(text)
    print("compiled %s: %s" % (os.path.basename(path), exe.program_shape))
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s.dimensions()).astype(s.numpy_dtype())
              for s in exe.program_shape.parameter_shapes()]
    result = client.execute_and_transfer(exe, inputs)
  print("result %s %s" % (np.asarray(result).dtype, np.shape(result)))
  if os.path.basename(path) == "softmax.hlo":
    x = inputs[0]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    print("run_hlo: softmax matches numpy")
  return 0


if __name__ == "__main__":
  sys.exit(main())
