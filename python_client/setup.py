"""setuptools hook: generate the protobuf/gRPC stubs into xla_client/_gen at build time.

The protos come from ../proto (this package sits in the xla-server repository) or from
$XLA_PROTO_ROOT (a directory holding proto/*.proto). protoc and grpc_python_plugin come
from $PROTOC / $GRPC_PYTHON_PLUGIN or PATH (Debian: protobuf-compiler,
protobuf-compiler-grpc); grpcio-tools is not needed.
"""

import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithStubs(build_py):
  """build_py that also writes the generated modules into the built package."""

  def run(self):
    super().run()
    sys.path.insert(0, os.path.join(HERE, "tools"))
    import gen_stubs  # pylint: disable=g-import-not-at-top
    proto_root = os.environ.get("XLA_PROTO_ROOT") or os.path.dirname(HERE)
    protoc = os.environ.get("PROTOC") or shutil.which("protoc")
    plugin = os.environ.get("GRPC_PYTHON_PLUGIN") or shutil.which("grpc_python_plugin")
    if not protoc or not plugin:
      raise SystemExit("xla_client needs protoc and grpc_python_plugin to build (Debian: "
                       "protobuf-compiler protobuf-compiler-grpc), or set PROTOC and "
                       "GRPC_PYTHON_PLUGIN")
    gen_stubs.generate(protoc, plugin, proto_root,
                       os.path.join(self.build_lib, "xla_client", "_gen"))


setup(cmdclass={"build_py": BuildPyWithStubs})
