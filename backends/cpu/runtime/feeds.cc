// __xla_cpu_infeed and __xla_cpu_outfeed: infeed pops the device's next value (waiting up to
// kInfeedTimeoutMs, then DEADLINE_EXCEEDED, as the interpreter) into the instruction's
// output slots, relaid out to their layouts; outfeed pushes a literal built from its
// operand's slots. `shape` is the instruction's data shape as the code carries it: an
// 8-byte little-endian length, then that many bytes of ShapeProto (emit_runtime_call.cc).
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/interpreter/device_state.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

constexpr int64_t kInfeedTimeoutMs = 10000;

// Array leaves as the buffer plan lays them out: the shape's own layout, else row-major.
Shape LeafLayout(const Shape& leaf) {
  Shape laid_out = leaf;
  ShapeUtil::SetDefaultLayoutsIfMissing(&laid_out);
  return laid_out;
}

absl::Status Scatter(const Literal& value, const Shape& expected, void* const* leaves, size_t* next) {
  if (expected.IsTuple()) {
    for (int i = 0; i < expected.tuple_shapes_size(); ++i) {
      RETURN_IF_ERROR(Scatter(value.tuple_element(i), expected.tuple_shapes(i), leaves, next));
    }
    return absl::OkStatus();
  }
  if (!expected.IsArray()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Literal relaid, value.Relayout(LeafLayout(expected).layout()));
  std::memcpy(leaves[(*next)++], relaid.untyped_data(), relaid.size_bytes());
  return absl::OkStatus();
}

absl::StatusOr<Literal> Gather(const Shape& shape, void* const* leaves, size_t* next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      ASSIGN_OR_RETURN(Literal e, Gather(element, leaves, next));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal::Create(shape);
  const Shape leaf = LeafLayout(shape);
  return Literal::CreateFromBuffer(leaf, leaves[(*next)++], ShapeUtil::ByteSizeOf(leaf));
}

int32_t Fail(RunContext* context, absl::Status status) {
  context->Fail(std::move(status));
  return 1;
}

absl::StatusOr<Shape> CarriedShape(const void* blob) {
  const auto* bytes = static_cast<const unsigned char*>(blob);
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{bytes[i]} << (8 * i);
  ShapeProto proto;
  if (size > (uint64_t{1} << 30) || !proto.ParseFromArray(bytes + 8, static_cast<int>(size))) {
    return absl::InternalError("the feed's shape in the executable does not parse");
  }
  return Shape::FromProto(proto);
}

}  // namespace
}  // namespace cpu
}  // namespace xla

static int32_t Infeed(void* run_context, const void* shape, void* const* leaves) {
  auto* context = static_cast<xla::cpu::RunContext*>(run_context);
  absl::StatusOr<xla::Shape> carried = xla::cpu::CarriedShape(shape);
  if (!carried.ok()) return xla::cpu::Fail(context, carried.status());
  const xla::Shape& expected = *carried;
  absl::StatusOr<xla::Literal> value = context->device->PopInfeed(xla::cpu::kInfeedTimeoutMs);
  if (!value.ok()) return xla::cpu::Fail(context, value.status());
  if (!xla::ShapeUtil::Compatible(value->shape(), expected)) {
    return xla::cpu::Fail(context, absl::InvalidArgumentError(absl::StrCat("the infeed value has shape ",
                                                                           value->shape().ToString(),
                                                                           ", the infeed expects ", expected.ToString())));
  }
  size_t next = 0;
  absl::Status status = xla::cpu::Scatter(*value, expected, leaves, &next);
  return status.ok() ? 0 : xla::cpu::Fail(context, std::move(status));
}

extern "C" int32_t __xla_cpu_infeed(void* run_context, const void* shape, void* const* leaves) {
  int32_t rc = 1;  // stays 1 when the routine fails
  xla::cpu::RunRoutine("infeed", [&] { rc = Infeed(run_context, shape, leaves); });
  return rc;
}

static int32_t Outfeed(void* run_context, const void* shape, void* const* leaves) {
  auto* context = static_cast<xla::cpu::RunContext*>(run_context);
  absl::StatusOr<xla::Shape> carried = xla::cpu::CarriedShape(shape);
  if (!carried.ok()) return xla::cpu::Fail(context, carried.status());
  size_t next = 0;
  absl::StatusOr<xla::Literal> value = xla::cpu::Gather(*carried, leaves, &next);
  if (!value.ok()) return xla::cpu::Fail(context, value.status());
  context->device->PushOutfeed(*std::move(value));
  return 0;
}

extern "C" int32_t __xla_cpu_outfeed(void* run_context, const void* shape, void* const* leaves) {
  int32_t rc = 1;  // stays 1 when the routine fails
  xla::cpu::RunRoutine("outfeed", [&] { rc = Outfeed(run_context, shape, leaves); });
  return rc;
}
