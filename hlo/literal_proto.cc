// LiteralProto conversion, wire-compatible with XLA.
//
// Values travel in the literal's storage (layout) order, as XLA's WriteToProto copies
// its buffers; the ShapeProto carries the layout (absent layout = descending). Byte
// fields hold little-endian elements (s16s/u16s/f16s/bf16s) or one element per byte
// (s8s/u8s, the sub-byte types s1s..u4s and f4e2m1fns, the f8 types). c64s/c128s hold
// (real, imag) pairs. FromProto checks every count exactly before copying.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/literal.h"
#include "hlo/literal_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

constexpr int kMaxProtoNesting = 128;

// The bytes field of a byte-encoded type, or nullptr.
std::string* MutableBytesField(LiteralProto* p, PrimitiveType t) {
  switch (t) {
    case S1: return p->mutable_s1s();
    case S2: return p->mutable_s2s();
    case S4: return p->mutable_s4s();
    case U1: return p->mutable_u1s();
    case U2: return p->mutable_u2s();
    case U4: return p->mutable_u4s();
    case S8: return p->mutable_s8s();
    case U8: return p->mutable_u8s();
    case S16: return p->mutable_s16s();
    case U16: return p->mutable_u16s();
    case F16: return p->mutable_f16s();
    case BF16: return p->mutable_bf16s();
    case F8E5M2: return p->mutable_f8e5m2s();
    case F8E4M3: return p->mutable_f8e4m3s();
    case F8E4M3FN: return p->mutable_f8e4m3fns();
    case F8E4M3B11FNUZ: return p->mutable_f8e4m3b11fnuzs();
    case F8E3M4: return p->mutable_f8e3m4s();
    case F8E5M2FNUZ: return p->mutable_f8e5m2fnuzs();
    case F8E4M3FNUZ: return p->mutable_f8e4m3fnuzs();
    case F4E2M1FN: return p->mutable_f4e2m1fns();
    case F8E8M0FNU: return p->mutable_f8e8m0fnus();
    default: return nullptr;
  }
}

const std::string* BytesField(const LiteralProto& p, PrimitiveType t) {
  switch (t) {
    case S1: return &p.s1s();
    case S2: return &p.s2s();
    case S4: return &p.s4s();
    case U1: return &p.u1s();
    case U2: return &p.u2s();
    case U4: return &p.u4s();
    case S8: return &p.s8s();
    case U8: return &p.u8s();
    case S16: return &p.s16s();
    case U16: return &p.u16s();
    case F16: return &p.f16s();
    case BF16: return &p.bf16s();
    case F8E5M2: return &p.f8e5m2s();
    case F8E4M3: return &p.f8e4m3s();
    case F8E4M3FN: return &p.f8e4m3fns();
    case F8E4M3B11FNUZ: return &p.f8e4m3b11fnuzs();
    case F8E3M4: return &p.f8e3m4s();
    case F8E5M2FNUZ: return &p.f8e5m2fnuzs();
    case F8E4M3FNUZ: return &p.f8e4m3fnuzs();
    case F4E2M1FN: return &p.f4e2m1fns();
    case F8E8M0FNU: return &p.f8e8m0fnus();
    default: return nullptr;
  }
}

template <typename T, typename Field>
void AppendRepeated(Field* field, const uint8_t* data, int64_t count) {
  field->Reserve(static_cast<int>(count));
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    field->Add(v);
  }
}

template <typename T, typename Field>
void CopyRepeated(const Field& field, uint8_t* data) {
  for (int i = 0; i < field.size(); ++i) {
    const T v = field.Get(i);
    std::memcpy(data + static_cast<int64_t>(i) * sizeof(T), &v, sizeof(T));
  }
}

void WriteProto(const Literal& lit, LiteralProto* proto) {
  const Shape& shape = lit.shape();
  *proto->mutable_shape() = shape.ToProto();
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < lit.tuple_element_count(); ++i) {
      WriteProto(lit.tuple_element(i), proto->add_tuple_literals());
    }
    return;
  }
  if (!shape.IsArray()) return;
  const PrimitiveType t = shape.element_type();
  const auto* data = static_cast<const uint8_t*>(lit.untyped_data());
  const int64_t n = lit.element_count();
  if (std::string* bytes = MutableBytesField(proto, t)) {
    // Little-endian host (x86-64, aarch64): storage bytes are the wire bytes.
    if (lit.size_bytes() > 0) bytes->assign(reinterpret_cast<const char*>(data), lit.size_bytes());
    return;
  }
  switch (t) {
    case PRED:
      proto->mutable_preds()->Reserve(static_cast<int>(n));
      for (int64_t i = 0; i < n; ++i) proto->add_preds(data[i] != 0);
      return;
    case S32: AppendRepeated<int32_t>(proto->mutable_s32s(), data, n); return;
    case U32: AppendRepeated<uint32_t>(proto->mutable_u32s(), data, n); return;
    case S64: AppendRepeated<int64_t>(proto->mutable_s64s(), data, n); return;
    case U64: AppendRepeated<uint64_t>(proto->mutable_u64s(), data, n); return;
    case F32: AppendRepeated<float>(proto->mutable_f32s(), data, n); return;
    case F64: AppendRepeated<double>(proto->mutable_f64s(), data, n); return;
    case C64: AppendRepeated<float>(proto->mutable_c64s(), data, 2 * n); return;
    case C128: AppendRepeated<double>(proto->mutable_c128s(), data, 2 * n); return;
    default: return;
  }
}

// Number of values the proto holds in the field for `t` (bytes for byte fields).
int64_t FieldCount(const LiteralProto& p, PrimitiveType t) {
  if (const std::string* b = BytesField(p, t)) return static_cast<int64_t>(b->size());
  switch (t) {
    case PRED: return p.preds_size();
    case S32: return p.s32s_size();
    case U32: return p.u32s_size();
    case S64: return p.s64s_size();
    case U64: return p.u64s_size();
    case F32: return p.f32s_size();
    case F64: return p.f64s_size();
    case C64: return p.c64s_size();
    case C128: return p.c128s_size();
    default: return 0;
  }
}

// Values a literal of `shape` needs in its field (bytes for byte fields).
int64_t ExpectedCount(const Shape& shape) {
  const PrimitiveType t = shape.element_type();
  const int64_t n = ShapeUtil::ElementsIn(shape);
  if (BytesField(LiteralProto::default_instance(), t) != nullptr) {
    return n * literal_internal::ElementBytes(t);
  }
  if (t == C64 || t == C128) return 2 * n;
  return n;
}

absl::StatusOr<Literal> ReadProto(const LiteralProto& proto, const Shape& shape, int depth,
                                  const std::string& where) {
  if (depth > kMaxProtoNesting) {
    return absl::InvalidArgumentError("LiteralProto nesting too deep");
  }
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LiteralProto", where, " has shape ", shape.ToString(), " with ",
          shape.tuple_shapes_size(), " elements but ", proto.tuple_literals_size(),
          " tuple_literals"));
    }
    std::vector<Literal> elements;
    elements.reserve(shape.tuple_shapes_size());
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, ReadProto(proto.tuple_literals(static_cast<int>(i)),
                                            shape.tuple_shapes(i), depth + 1,
                                            absl::StrCat(where, "{", i, "}")));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (proto.tuple_literals_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("LiteralProto", where, " of non-tuple shape ",
                                                   shape.ToString(), " has tuple_literals"));
  }
  if (shape.IsToken()) return Literal::Create(shape);
  const PrimitiveType t = shape.element_type();
  const int64_t expected = ExpectedCount(shape);
  const int64_t got = FieldCount(proto, t);
  if (got != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LiteralProto", where, " of shape ", shape.ToString(), " needs ", expected,
        (BytesField(proto, t) ? " bytes" : " values"), " in its ",
        std::string(primitive_util::LowercasePrimitiveTypeName(t)), " field, but has ", got));
  }
  ASSIGN_OR_RETURN(Literal lit, Literal::Create(shape));
  auto* data = static_cast<uint8_t*>(lit.untyped_data());
  if (const std::string* bytes = BytesField(proto, t)) {
    if (!bytes->empty()) std::memcpy(data, bytes->data(), bytes->size());
    if (primitive_util::IsSubByteType(t)) {
      for (int64_t i = 0; i < lit.element_count(); ++i) literal_internal::NormalizeElement(t, data + i);
    }
    return lit;
  }
  switch (t) {
    case PRED:
      for (int i = 0; i < proto.preds_size(); ++i) data[i] = proto.preds(i) ? 1 : 0;
      break;
    case S32: CopyRepeated<int32_t>(proto.s32s(), data); break;
    case U32: CopyRepeated<uint32_t>(proto.u32s(), data); break;
    case S64: CopyRepeated<int64_t>(proto.s64s(), data); break;
    case U64: CopyRepeated<uint64_t>(proto.u64s(), data); break;
    case F32: CopyRepeated<float>(proto.f32s(), data); break;
    case F64: CopyRepeated<double>(proto.f64s(), data); break;
    case C64: CopyRepeated<float>(proto.c64s(), data); break;
    case C128: CopyRepeated<double>(proto.c128s(), data); break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("LiteralProto", where,
                                                     " has unsupported shape ", shape.ToString()));
  }
  return lit;
}

}  // namespace

LiteralProto Literal::ToProto() const {
  LiteralProto proto;
  WriteProto(*this, &proto);
  return proto;
}

absl::StatusOr<Literal> Literal::FromProto(const LiteralProto& proto) {
  if (!proto.has_shape()) return absl::InvalidArgumentError("LiteralProto has no shape");
  // Shape::FromProto validates (dims, rank, overflow); the byte cap is checked before any
  // allocation so that a tiny proto cannot declare a huge literal.
  ASSIGN_OR_RETURN(Shape shape, Shape::FromProto(proto.shape()));
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  RETURN_IF_ERROR(literal_internal::CheckedTotalBytes(shape).status());
  return ReadProto(proto, shape, 0, "");
}

}  // namespace xla
