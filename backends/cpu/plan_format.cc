#include "backends/cpu/plan_format.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

class Writer {
 public:
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Bytes(std::string_view bytes) {
    U64(bytes.size());
    out_.append(bytes.data(), bytes.size());
  }
  void ShapeField(const Shape& shape) { Bytes(shape.ToProto().SerializeAsString()); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  absl::StatusOr<uint64_t> U64() {
    if (in_.size() - at_ < 8) return Truncated();
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in_[at_ + i])} << (8 * i);
    at_ += 8;
    return v;
  }
  // A non-negative int64 no larger than `limit`.
  absl::StatusOr<int64_t> Count(const char* what, uint64_t limit) {
    ASSIGN_OR_RETURN(uint64_t v, U64());
    if (v > limit) {
      return absl::InvalidArgumentError(absl::StrCat("serialized buffer plan: ", what, " ", v, " is out of range"));
    }
    return static_cast<int64_t>(v);
  }
  absl::StatusOr<std::string_view> Bytes() {
    ASSIGN_OR_RETURN(uint64_t size, U64());
    if (in_.size() - at_ < size) return Truncated();
    std::string_view bytes = in_.substr(at_, size);
    at_ += size;
    return bytes;
  }
  absl::StatusOr<Shape> ShapeField() {
    ASSIGN_OR_RETURN(std::string_view bytes, Bytes());
    ShapeProto proto;
    if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return absl::InvalidArgumentError("serialized buffer plan: a shape does not parse");
    }
    return Shape::FromProto(proto);
  }
  size_t left() const { return in_.size() - at_; }

 private:
  static absl::Status Truncated() { return absl::InvalidArgumentError("serialized buffer plan is truncated"); }
  std::string_view in_;
  size_t at_ = 0;
};

constexpr uint64_t kMaxInt = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

absl::Status Inconsistent(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("serialized buffer plan is inconsistent: ", what));
}

// Array shape with a layout, as every slot has.
absl::Status CheckArray(const Shape& shape, const char* what) {
  if (!shape.IsArray() || !shape.has_layout()) return Inconsistent(absl::StrCat(what, " is not an array with a layout"));
  return absl::OkStatus();
}

}  // namespace

std::string EncodeRuntimePlan(const BufferPlan& plan) {
  Writer w;
  w.I64(plan.arena_bytes);
  w.I64(plan.parameter_leaf_count);
  w.U64(plan.parameter_shapes.size());
  for (const Shape& shape : plan.parameter_shapes) w.ShapeField(shape);
  w.ShapeField(plan.result_shape);
  w.U64(plan.slots.size());
  for (const Slot& slot : plan.slots) {
    w.U64(static_cast<uint64_t>(slot.kind));
    w.ShapeField(slot.shape);
    w.I64(slot.bytes);
    w.I64(slot.index);
    w.I64(slot.offset);
    if (slot.kind == SlotKind::kConstant) {
      w.Bytes(std::string_view(static_cast<const char*>(slot.constant->untyped_data()),
                               static_cast<size_t>(slot.constant->size_bytes())));
    }
  }
  w.U64(plan.output_aliases.size());
  for (const OutputAlias& a : plan.output_aliases) {
    w.I64(a.output_leaf);
    w.I64(a.parameter_slot);
    w.U64(a.in_place ? 1 : 0);
    w.I64(a.result_slot);
  }
  w.U64(plan.output_slots.size());
  for (int s : plan.output_slots) w.I64(s);
  return w.Take();
}

absl::StatusOr<DecodedPlan> DecodeRuntimePlan(std::string_view bytes) {
  Reader r(bytes);
  DecodedPlan decoded;
  decoded.plan = std::make_unique<BufferPlan>();
  BufferPlan& plan = *decoded.plan;
  ASSIGN_OR_RETURN(plan.arena_bytes, r.Count("arena size", kMaxInt));
  ASSIGN_OR_RETURN(plan.parameter_leaf_count, r.Count("parameter leaf count", r.left()));
  ASSIGN_OR_RETURN(int64_t parameters, r.Count("parameter count", r.left() / 8));
  std::vector<Shape> parameter_leaves;
  for (int64_t i = 0; i < parameters; ++i) {
    ASSIGN_OR_RETURN(Shape shape, r.ShapeField());
    for (Shape& leaf : ArrayLeaves(shape)) parameter_leaves.push_back(std::move(leaf));
    plan.parameter_shapes.push_back(std::move(shape));
  }
  if (static_cast<int64_t>(parameter_leaves.size()) != plan.parameter_leaf_count) {
    return Inconsistent("the parameter leaf count does not match the parameter shapes");
  }
  ASSIGN_OR_RETURN(plan.result_shape, r.ShapeField());
  const std::vector<Shape> result_leaves = ArrayLeaves(plan.result_shape);
  ASSIGN_OR_RETURN(int64_t slot_count, r.Count("slot count", r.left() / 8));
  for (int64_t s = 0; s < slot_count; ++s) {
    Slot slot;
    ASSIGN_OR_RETURN(uint64_t kind, r.U64());
    if (kind > static_cast<uint64_t>(SlotKind::kShared)) return Inconsistent(absl::StrCat("slot ", s, " has kind ", kind));
    slot.kind = static_cast<SlotKind>(kind);
    ASSIGN_OR_RETURN(slot.shape, r.ShapeField());
    RETURN_IF_ERROR(CheckArray(slot.shape, "a slot's shape"));
    ASSIGN_OR_RETURN(slot.bytes, r.Count("slot size", kMaxInt));
    ASSIGN_OR_RETURN(slot.index, r.Count("slot index", kMaxInt));
    ASSIGN_OR_RETURN(slot.offset, r.Count("slot offset", kMaxInt));
    if (slot.bytes != ShapeUtil::ByteSizeOf(slot.shape)) {
      return Inconsistent(absl::StrCat("slot ", s, " has ", slot.bytes, " bytes for ", slot.shape.ToString()));
    }
    switch (slot.kind) {
      case SlotKind::kParameter:
        if (slot.index >= plan.parameter_leaf_count || !ShapeUtil::Compatible(slot.shape, parameter_leaves[slot.index])) {
          return Inconsistent(absl::StrCat("parameter slot ", s, " names no parameter leaf of its shape"));
        }
        break;
      case SlotKind::kTemp:
        if (slot.offset > plan.arena_bytes || slot.bytes > plan.arena_bytes - slot.offset) {
          return Inconsistent(absl::StrCat("temporary slot ", s, " lies outside the arena"));
        }
        break;
      case SlotKind::kOutput:
        if (slot.index >= static_cast<int64_t>(result_leaves.size()) ||
            !ShapeUtil::Equal(slot.shape, result_leaves[slot.index])) {
          return Inconsistent(absl::StrCat("output slot ", s, " names no result leaf of its shape"));
        }
        break;
      case SlotKind::kShared:
        // Shares an earlier parameter slot's memory (parameter slots come first).
        if (slot.index >= s || plan.slots[slot.index].kind != SlotKind::kParameter ||
            plan.slots[slot.index].shape != slot.shape) {
          return Inconsistent(absl::StrCat("shared slot ", s, " names no parameter slot of its shape"));
        }
        break;
      case SlotKind::kConstant: {
        ASSIGN_OR_RETURN(std::string_view data, r.Bytes());
        if (static_cast<int64_t>(data.size()) != slot.bytes) {
          return Inconsistent(absl::StrCat("constant slot ", s, " has ", data.size(), " bytes of data"));
        }
        ASSIGN_OR_RETURN(Literal literal, Literal::CreateFromBuffer(slot.shape, data.data(), slot.bytes));
        decoded.constants.push_back(std::make_unique<Literal>(std::move(literal)));
        slot.constant = decoded.constants.back().get();
        break;
      }
    }
    plan.slots.push_back(std::move(slot));
  }
  // Output aliases: each result leaf and parameter slot at most once, shapes equal, and the
  // result slot the parameter's own (in place) or a shared slot naming it.
  ASSIGN_OR_RETURN(int64_t alias_count, r.Count("output alias count", r.left() / 32));
  std::vector<const OutputAlias*> alias_of_leaf(result_leaves.size(), nullptr);
  std::vector<bool> parameter_aliased(plan.slots.size(), false), leaf_aliased(result_leaves.size(), false);
  for (int64_t i = 0; i < alias_count; ++i) {
    OutputAlias a;
    ASSIGN_OR_RETURN(a.output_leaf, r.Count("aliased result leaf", result_leaves.size()));
    ASSIGN_OR_RETURN(int64_t p, r.Count("aliased parameter slot", plan.slots.size()));
    ASSIGN_OR_RETURN(uint64_t in_place, r.U64());
    ASSIGN_OR_RETURN(int64_t result_slot, r.Count("aliased result slot", plan.slots.size()));
    a.parameter_slot = static_cast<int>(p);
    a.in_place = in_place == 1;
    a.result_slot = static_cast<int>(result_slot);
    const bool valid =
        a.output_leaf < static_cast<int64_t>(result_leaves.size()) && p < static_cast<int64_t>(plan.slots.size()) &&
        result_slot < static_cast<int64_t>(plan.slots.size()) && in_place <= 1 &&
        !leaf_aliased[a.output_leaf] && !parameter_aliased[p] &&
        plan.slots[p].kind == SlotKind::kParameter && plan.slots[p].shape == result_leaves[a.output_leaf] &&
        (a.in_place ? result_slot == p
                    : plan.slots[result_slot].kind == SlotKind::kShared && plan.slots[result_slot].index == p);
    if (!valid) return Inconsistent(absl::StrCat("output alias ", i, " is malformed"));
    parameter_aliased[p] = true;
    leaf_aliased[a.output_leaf] = true;
    plan.output_aliases.push_back(a);
  }
  for (const OutputAlias& a : plan.output_aliases) alias_of_leaf[a.output_leaf] = &a;
  ASSIGN_OR_RETURN(int64_t outputs, r.Count("output count", r.left() / 8));
  if (outputs != static_cast<int64_t>(result_leaves.size())) {
    return Inconsistent("the output slots do not match the result's leaves");
  }
  for (int64_t k = 0; k < outputs; ++k) {
    ASSIGN_OR_RETURN(int64_t s, r.Count("output slot", plan.slots.size()));
    const bool valid = alias_of_leaf[k] != nullptr
                           ? s == alias_of_leaf[k]->result_slot
                           : s < static_cast<int64_t>(plan.slots.size()) &&
                                 plan.slots[s].kind == SlotKind::kOutput && plan.slots[s].index == k;
    if (!valid) return Inconsistent(absl::StrCat("result leaf ", k, " has no output slot"));
    plan.output_slots.push_back(static_cast<int>(s));
  }
  if (r.left() != 0) return Inconsistent("trailing bytes");
  return decoded;
}

}  // namespace cpu
}  // namespace xla
