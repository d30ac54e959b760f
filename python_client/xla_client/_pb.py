"""The generated protobuf/gRPC modules (built into xla_client/_gen by tools/gen_stubs.py)."""

try:
  from ._gen import hlo_pb2
  from ._gen import xla_data_pb2
  from ._gen import xla_pb2
  from ._gen import xla_service_pb2
  from ._gen import xla_service_pb2_grpc
except ImportError as e:  # pragma: no cover - only without a build
  raise ImportError(
      "xla_client's generated protobuf modules are missing (%s). Install the package with "
      "`pip install ./python_client` or build the `xla_client_py` CMake target and put "
      "<build>/python_client on PYTHONPATH." % e) from e

__all__ = ["hlo_pb2", "xla_data_pb2", "xla_pb2", "xla_service_pb2", "xla_service_pb2_grpc"]
