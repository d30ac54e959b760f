#ifndef XLA_SERVER_TRANSFER_CODEC_H_
#define XLA_SERVER_TRANSFER_CODEC_H_

// The TransferChunk codec shared by xla-server and its clients: a value travels as chunks of
// about chunk_bytes, the first carrying its shape, the data being every array leaf's dense
// storage bytes depth-first (hlo/literal.h: sub-byte types one per byte). Needs only the HLO
// core and the generated messages, so clients link it without the service core.

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "proto/xla_service.pb.h"

namespace xla {
namespace server {

// Bytes of the dense storage of every array leaf of `shape`.
int64_t StorageBytes(const Shape& shape);

// The dense storage of every non-empty array leaf of `literal`, depth-first.
void CollectLeaves(Literal& literal, std::vector<std::pair<char*, int64_t>>* leaves);
void CollectLeaves(const Literal& literal, std::vector<std::pair<const char*, int64_t>>* leaves);

// A shape from the wire, checked (INVALID_ARGUMENT naming the problem).
absl::StatusOr<Shape> ValidatedShape(const ShapeProto& proto);

// The bytes of a value on its way to a client: its shape and each array leaf's dense
// storage, depth-first, kept alive (and unchanged) by `keep_alive`. For host-memory devices
// the leaves point into the device buffer itself, so a download copies nothing up front.
struct OutgoingValue {
  Shape shape;
  std::vector<std::pair<const char*, int64_t>> leaves;
  std::shared_ptr<const void> keep_alive;
};
// The leaves of `literal`, which the caller keeps alive while they are used.
OutgoingValue Outgoing(const Literal& literal);

// Splits a value into TransferChunk messages of ~chunk_bytes (shape in the first chunk).
// Always emits at least one chunk. Stops early if fn returns false.
void ForEachChunk(const OutgoingValue& value, size_t chunk_bytes,
                  const std::function<bool(TransferChunk&&)>& fn);
void ForEachChunk(const Literal& literal, size_t chunk_bytes,
                  const std::function<bool(TransferChunk&&)>& fn);
// Rebuilds a literal from all its chunks (validates sizes; never over-allocates: the byte
// size implied by the shape is checked before allocating).
absl::StatusOr<Literal> LiteralFromChunks(const std::vector<TransferChunk>& chunks);

// Copies a value's bytes, in the order they arrive, into its array leaves (depth-first).
class LeafWriter {
 public:
  LeafWriter() = default;
  explicit LeafWriter(std::vector<std::pair<char*, int64_t>> leaves) : leaves_(std::move(leaves)) {}
  // The caller has checked that `data` fits in what is left of the leaves.
  void Write(absl::string_view data);

 private:
  std::vector<std::pair<char*, int64_t>> leaves_;
  size_t leaf_ = 0;
  int64_t offset_ = 0;
};

// Rebuilds a literal from TransferChunk messages as they arrive, copying each chunk's bytes
// once into the literal (the receiving side of ForEachChunk). The first chunk's shape is
// validated and its byte size checked before anything is allocated.
class ChunkAssembler {
 public:
  absl::Status Add(const TransferChunk& chunk);
  // INVALID_ARGUMENT when no chunk came or the bytes fall short of the shape.
  absl::StatusOr<Literal> Finish();

 private:
  bool started_ = false;
  Literal literal_;
  LeafWriter writer_;
  int64_t received_ = 0;
  int64_t expected_ = 0;
};

}  // namespace server
}  // namespace xla

#endif  // XLA_SERVER_TRANSFER_CODEC_H_
