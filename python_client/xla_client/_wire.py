"""Hand-made framing of TransferChunk streams.

Uploads: each serialized chunk is the header fields (first chunk only) followed by field 4
(data) written from memoryview slices of the arrays, so element bytes are copied once,
into the message. Downloads: field 3 (shape) and field 4 (data) are located in the raw
message bytes and returned as memoryviews; no protobuf object holds the data.
"""

import mmap

import grpc
import numpy as np

from ._errors import XlaRuntimeError

# Receive buffers this large are their own private anonymous mapping (a shared one would be
# shmem, which gets no huge pages), advised as transparent huge
# pages: writing fresh 4 KiB pages (one fault each) was the slowest step of a big download.
_MAPPED_BYTES = 4 << 20


def receive_buffer(nbytes):
  """A writable uint8 array of nbytes for incoming data (contents unspecified)."""
  if nbytes < _MAPPED_BYTES:
    return np.empty(nbytes, np.uint8)
  mapping = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
  if hasattr(mmap, "MADV_HUGEPAGE"):
    try:
      mapping.madvise(mmap.MADV_HUGEPAGE)
    except OSError:
      pass  # advisory only
  return np.frombuffer(mapping, np.uint8)  # the array keeps the mapping alive


def varint(n):
  out = bytearray()
  while True:
    b = n & 0x7F
    n >>= 7
    if n:
      out.append(b | 0x80)
    else:
      out.append(b)
      return bytes(out)


def _read_varint(buf, pos):
  result = shift = 0
  while True:
    b = buf[pos]
    pos += 1
    result |= (b & 0x7F) << shift
    if not b & 0x80:
      return result, pos
    shift += 7


def parse_chunk(msg):
  """(shape ShapeProto bytes or None, [memoryviews of data]) of a serialized TransferChunk."""
  view = memoryview(msg)
  pos, end = 0, len(msg)
  shape, data = None, []
  while pos < end:
    key, pos = _read_varint(msg, pos)
    field, wire = key >> 3, key & 7
    if wire == 0:
      _, pos = _read_varint(msg, pos)
    elif wire == 2:
      length, pos = _read_varint(msg, pos)
      if field == 3:
        shape = bytes(view[pos:pos + length])
      elif field == 4:
        data.append(view[pos:pos + length])
      pos += length
    elif wire == 1:
      pos += 8
    elif wire == 5:
      pos += 4
    else:
      raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "malformed TransferChunk from the server")
  return shape, data


def upload_chunks(header, buffers, chunk_bytes):
  """Serialized TransferChunks: header fields first, then the data of every buffer.

  Each chunk is assembled once from memoryview slices of the (contiguous) buffers.
  """
  views = [memoryview(b).cast("B") for b in buffers if b.nbytes]
  pieces, size = [], 0
  first = True
  for view in views:
    offset = 0
    while offset < len(view):
      take = min(chunk_bytes - size, len(view) - offset)
      pieces.append(view[offset:offset + take])
      size += take
      offset += take
      if size == chunk_bytes:
        yield b"".join([header if first else b"", b"\x22", varint(size)] + pieces)
        first, pieces, size = False, [], 0
  if pieces or first:
    yield b"".join([header if first else b"", b"\x22", varint(size)] + pieces)
