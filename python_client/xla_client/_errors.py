"""The one exception class for server (and connection) errors."""

import grpc


class XlaRuntimeError(RuntimeError):
  """An error reported by xla-server (or the connection to it).

  Attributes: code (grpc.StatusCode), message (the server's text), request_id.
  """

  def __init__(self, code, message, request_id=None):
    self.code = code
    self.message = message
    self.request_id = request_id
    super().__init__("%s: %s" % (code.name if code is not None else "UNKNOWN", message))


def from_rpc_error(error, request_id):
  code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
  details = error.details() if hasattr(error, "details") else str(error)
  return XlaRuntimeError(code, details or "", request_id)
