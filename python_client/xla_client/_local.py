"""LocalServer: start an xla-server on a free loopback port (tests, examples, notebooks)."""

import os
import secrets
import shutil
import subprocess
import tempfile
import time


def find_server_binary(binary=None):
  """binary, else $XLA_SERVER_BINARY, else `xla-server` on PATH; None when not found."""
  for candidate in (binary, os.environ.get("XLA_SERVER_BINARY"), shutil.which("xla-server")):
    if candidate and os.path.exists(candidate):
      return candidate
  return None


class LocalServer:
  """An xla-server child process listening on 127.0.0.1:<free port>.

  Usage:
    with LocalServer() as server:
      client = Client(server.address, token=server.token)

  token: the bearer token the server requires (a random one by default; "" for none).
  flags: extra command-line flags (e.g. "--session-lease=5s").
  """

  def __init__(self, binary=None, token=None, flags=(), timeout=30):
    path = find_server_binary(binary)
    if path is None:
      raise FileNotFoundError("no xla-server binary: pass binary= or set XLA_SERVER_BINARY")
    self.binary = path
    self.token = secrets.token_hex(16) if token is None else token
    self._dir = tempfile.TemporaryDirectory(prefix="xla-server-")
    args = [path, "--listen=127.0.0.1:0", "--log-level=warn"] + list(flags)
    if self.token:
      token_file = os.path.join(self._dir.name, "token")
      with open(token_file, "w") as f:
        f.write(self.token)
      args.append("--auth-token-file=" + token_file)
    self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
    self.address = None
    marker = "xla-server listening on "
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
      line = self.process.stdout.readline()
      if not line:
        break
      seen.append(line)
      if marker in line:
        self.address = line.split(marker, 1)[1].split()[0]
        break
    if self.address is None:
      self.stop()
      raise RuntimeError("xla-server did not start:\n" + "".join(seen))

  def stop(self):
    """Stops the server (SIGTERM, then SIGKILL after 10 s)."""
    if self.process.poll() is None:
      self.process.terminate()
      try:
        self.process.wait(timeout=10)
      except subprocess.TimeoutExpired:
        self.process.kill()
        self.process.wait()
    if self.process.stdout is not None:
      self.process.stdout.close()
    self._dir.cleanup()

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.stop()
