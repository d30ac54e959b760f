// The TransferChunk codec shared by the server and its clients (see transfer_codec.h).

#include "server/transfer_codec.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace server {

int64_t StorageBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& element : shape.tuple_shapes()) total += StorageBytes(element);
    return total;
  }
  if (!shape.IsArray()) return 0;
  return ShapeUtil::ElementsIn(shape) * primitive_util::ByteWidth(shape.element_type());
}


// Dense storage of every array leaf of `literal`, depth-first.
void CollectLeaves(Literal& literal, std::vector<std::pair<char*, int64_t>>* leaves) {
  if (literal.IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      CollectLeaves(literal.tuple_element(i), leaves);
    }
    return;
  }
  if (!literal.shape().IsArray() || literal.size_bytes() == 0) return;
  leaves->emplace_back(static_cast<char*>(literal.untyped_data()), literal.size_bytes());
}

void CollectLeaves(const Literal& literal, std::vector<std::pair<const char*, int64_t>>* leaves) {
  if (literal.IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      CollectLeaves(literal.tuple_element(i), leaves);
    }
    return;
  }
  if (!literal.shape().IsArray() || literal.size_bytes() == 0) return;
  leaves->emplace_back(static_cast<const char*>(literal.untyped_data()), literal.size_bytes());
}

absl::StatusOr<Shape> ValidatedShape(const ShapeProto& proto) {
  ASSIGN_OR_RETURN(Shape shape, Shape::FromProto(proto));
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return absl::InvalidArgumentError(absl::StrCat("invalid shape: ", valid.message()));
  return shape;
}

OutgoingValue Outgoing(const Literal& literal) {
  OutgoingValue value;
  value.shape = literal.shape();
  CollectLeaves(literal, &value.leaves);
  return value;
}

void ForEachChunk(const Literal& literal, size_t chunk_bytes,
                               const std::function<bool(TransferChunk&&)>& fn) {
  ForEachChunk(Outgoing(literal), chunk_bytes, fn);
}

void ForEachChunk(const OutgoingValue& value, size_t chunk_bytes,
                               const std::function<bool(TransferChunk&&)>& fn) {
  if (chunk_bytes == 0) chunk_bytes = 1 << 20;
  TransferChunk chunk;
  *chunk.mutable_shape() = value.shape.ToProto();
  bool first = true;
  for (auto [data, size] : value.leaves) {
    while (size > 0) {
      const size_t room = chunk_bytes - chunk.data().size();
      const size_t n = std::min<size_t>(room, static_cast<size_t>(size));
      if (chunk.data().empty()) chunk.mutable_data()->reserve(std::min<size_t>(chunk_bytes, size));
      chunk.mutable_data()->append(data, n);
      data += n;
      size -= static_cast<int64_t>(n);
      if (chunk.data().size() >= chunk_bytes) {
        if (!fn(std::move(chunk))) return;
        // Clear keeps the data's capacity: when fn copied the chunk (or swapped it with one
        // it sent earlier, as protobuf's move does), the next chunk reuses that memory
        // instead of faulting in fresh pages.
        chunk.Clear();
        first = false;
      }
    }
  }
  if (first || !chunk.data().empty()) fn(std::move(chunk));
}

absl::StatusOr<Literal> LiteralFromChunks(const std::vector<TransferChunk>& chunks) {
  ChunkAssembler assembler;
  for (const TransferChunk& chunk : chunks) RETURN_IF_ERROR(assembler.Add(chunk));
  return assembler.Finish();
}

void LeafWriter::Write(absl::string_view data) {
  while (!data.empty()) {
    auto& [dst, size] = leaves_[leaf_];
    const int64_t n = std::min<int64_t>(size - offset_, data.size());
    std::memcpy(dst + offset_, data.data(), n);
    data.remove_prefix(n);
    offset_ += n;
    if (offset_ == size) {
      ++leaf_;
      offset_ = 0;
    }
  }
}

absl::Status ChunkAssembler::Add(const TransferChunk& chunk) {
  if (!started_) {
    if (!chunk.has_shape()) return absl::InvalidArgumentError("the first chunk carries no shape");
    ASSIGN_OR_RETURN(Shape shape, ValidatedShape(chunk.shape()));
    expected_ = StorageBytes(shape);
    if (expected_ > Literal::kMaxBytes) {
      return absl::ResourceExhaustedError(absl::StrCat("literal of ", expected_, " bytes is too large"));
    }
    ASSIGN_OR_RETURN(literal_, Literal::Create(shape));
    std::vector<std::pair<char*, int64_t>> leaves;
    CollectLeaves(literal_, &leaves);
    writer_ = LeafWriter(std::move(leaves));
    started_ = true;
  }
  absl::string_view data = chunk.data();
  if (received_ + static_cast<int64_t>(data.size()) > expected_) {
    return absl::InvalidArgumentError(absl::StrCat("the chunks hold more than the ", expected_,
                                                   " bytes shape ", literal_.shape().ToString(), " needs"));
  }
  received_ += static_cast<int64_t>(data.size());
  writer_.Write(data);
  return absl::OkStatus();
}

absl::StatusOr<Literal> ChunkAssembler::Finish() {
  if (!started_) return absl::InvalidArgumentError("the first chunk carries no shape");
  if (received_ != expected_) {
    return absl::InvalidArgumentError(absl::StrCat("the chunks hold ", received_, " bytes; shape ",
                                                   literal_.shape().ToString(), " needs ", expected_));
  }
  started_ = false;
  return std::move(literal_);
}

}  // namespace server
}  // namespace xla
