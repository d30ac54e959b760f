#include "hlo/shape.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"
#include "proto/hlo.pb.h"
#include "proto/run_hlo_module.pb.h"

namespace xla {
namespace {

Shape ArrF32(std::vector<int64_t> dims) { return Shape(F32, std::move(dims)); }

Shape WithLayout(Shape shape, std::vector<int64_t> m2m) {
  shape.set_layout(Layout(std::move(m2m)));
  return shape;
}

// ------------------------------------------------------------------ text forms

TEST(ShapeToStringTest, Arrays) {
  EXPECT_EQ(ArrF32({2, 3}).ToString(), "f32[2,3]");
  EXPECT_EQ(WithLayout(ArrF32({2, 3}), {1, 0}).ToString(true), "f32[2,3]{1,0}");
  EXPECT_EQ(WithLayout(ArrF32({2, 3}), {0, 1}).ToString(true), "f32[2,3]{0,1}");
  EXPECT_EQ(WithLayout(ArrF32({2, 3}), {1, 0}).ToString(false), "f32[2,3]");
  EXPECT_EQ(Shape(PRED, {}).ToString(), "pred[]");
  EXPECT_EQ(ArrF32({0, 5}).ToString(), "f32[0,5]");
  EXPECT_EQ(Shape(F8E4M3B11FNUZ, {7}).ToString(), "f8e4m3b11fnuz[7]");
}

TEST(ShapeToStringTest, ScalarLayoutIsOmittedUnlessItCarriesSomething) {
  EXPECT_EQ(WithLayout(ArrF32({}), {}).ToString(true), "f32[]");
  Shape tiled(F16, {});
  tiled.mutable_layout()->mutable_tiles()->push_back(Tile({256}));
  // From the conformance files: `f16[]{:T(256)}`.
  EXPECT_EQ(tiled.ToString(true), "f16[]{:T(256)}");
}

TEST(ShapeToStringTest, DynamicDimensions) {
  Shape s = ArrF32({10, 3});
  s.set_dynamic_dimension(0, true);
  EXPECT_EQ(s.ToString(), "f32[<=10,3]");
  EXPECT_TRUE(s.is_dynamic());
  Shape unbounded(F32, {});
  unbounded.add_dimensions(Shape::kUnboundedSize, true);
  unbounded.add_dimensions(784);
  EXPECT_EQ(unbounded.ToString(), "f32[?,784]");
  EXPECT_TRUE(unbounded.is_unbounded_dynamic_dimension(0));
  EXPECT_FALSE(unbounded.is_unbounded_dynamic_dimension(1));
}

TEST(ShapeToStringTest, TuplesTokensOpaqueBuffers) {
  Shape t = Shape::MakeTuple({WithLayout(ArrF32({2}), {0}), Shape(S32, {})});
  EXPECT_EQ(t.ToString(true), "(f32[2]{0}, s32[])");
  EXPECT_EQ(t.ToString(false), "(f32[2], s32[])");
  EXPECT_EQ(Shape::MakeTuple({}).ToString(), "()");
  EXPECT_EQ(Shape::MakeTuple({Shape::MakeTuple({}), Shape::MakeTuple({ArrF32({1})})}).ToString(),
            "((), (f32[1]))");
  EXPECT_EQ(Shape::MakeToken().ToString(true), "token[]");
  Shape opaque;
  opaque.set_element_type(OPAQUE_TYPE);
  EXPECT_EQ(opaque.ToString(), "opaque[]");
  EXPECT_EQ(Shape::MakeBuffer(ArrF32({2, 4})).ToString(), "b(f32[2,4])");
  EXPECT_EQ(Shape::MakeBuffer(WithLayout(ArrF32({2, 4}), {1, 0})).ToString(true), "b(f32[2,4]{1,0})");
}

TEST(ShapeToStringTest, LongTuplesMarkEveryFifthIndex) {
  std::vector<Shape> elements;
  for (int i = 0; i < 12; ++i) elements.push_back(Shape(S32, {}));
  // Same form as the conformance files: ", /*index=5*/s32[]".
  EXPECT_EQ(Shape::MakeTuple(elements).ToString(),
            "(s32[], s32[], s32[], s32[], s32[], /*index=5*/s32[], s32[], s32[], s32[], s32[], "
            "/*index=10*/s32[], s32[])");
}

TEST(LayoutToStringTest, EveryField) {
  Layout layout({1, 0});
  EXPECT_EQ(layout.ToString(), "{1,0}");
  EXPECT_EQ(Layout().ToString(), "{}");
  layout.mutable_tiles()->push_back(Tile({8, 128}));
  layout.mutable_tiles()->push_back(Tile({2, 1}));
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)}");
  layout.mutable_tiles()->push_back(Tile({Tile::kCombineDimension, 4}));
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)(*,4)}");

  Layout full({1, 0});
  full.dim_level_types = {DIM_DENSE, DIM_COMPRESSED};
  full.dim_unique = {true, false};
  full.dim_ordered = {false, true};
  full.mutable_tiles()->push_back(Tile({2, 128}));
  full.tail_padding_alignment_in_elements = 4;
  full.index_primitive_type = S32;
  full.pointer_primitive_type = U64;
  full.element_size_in_bits = 4;
  full.memory_space = 1;
  full.split_configs.push_back({0, {2, 4}});
  full.split_configs.push_back({1, {3}});
  *full.mutable_physical_shape() = WithLayout(Shape(U8, {16}), {0});
  full.dynamic_shape_metadata_prefix_bytes = 8;
  // XLA's order: D, T, L, #, *, E, S, SC, P, M.
  EXPECT_EQ(full.ToString(),
            "{1,0:D(D~,C+)T(2,128)L(4)#(s32)*(u64)E(4)S(1)SC(0:2,4)(1:3)P(u8[16]{0})M(8)}");
}

TEST(LayoutToStringTest, SingleFieldsAndSparseKinds) {
  Layout s({1, 0});
  s.memory_space = 2;
  EXPECT_EQ(s.ToString(), "{1,0:S(2)}");
  Layout e({0});
  e.element_size_in_bits = 4;
  EXPECT_EQ(e.ToString(), "{0:E(4)}");
  Layout d({2, 1, 0});
  d.dim_level_types = {DIM_DENSE, DIM_SINGLETON, DIM_LOOSE_COMPRESSED};
  EXPECT_EQ(d.ToString(), "{2,1,0:D(D,S,H)}");
  Layout bad_index({0});
  bad_index.index_primitive_type = F32;  // printable, though validation rejects it
  EXPECT_EQ(bad_index.ToString(), "{0:#(invalid)}");
  Layout m({0});
  m.dynamic_shape_metadata_prefix_bytes = 16;
  EXPECT_EQ(m.ToString(), "{0:M(16)}");
}

TEST(ShapeToStringTest, ConformanceLayoutSpellings) {
  // Layout forms that occur in /work/shared/conformance/parser_roundtrip.
  Shape a = WithLayout(Shape(F32, {2, 4, 8}), {2, 1, 0});
  a.mutable_layout()->mutable_tiles()->push_back(Tile({2, 128}));
  EXPECT_EQ(a.ToString(true), "f32[2,4,8]{2,1,0:T(2,128)}");
  Shape b = WithLayout(Shape(F32, {4, 8}), {1, 0});
  b.mutable_layout()->mutable_tiles()->push_back(Tile({128}));
  b.mutable_layout()->mutable_tiles()->push_back(Tile({2}));
  EXPECT_EQ(b.ToString(true), "f32[4,8]{1,0:T(128)(2)}");
  Shape c = WithLayout(Shape(S4, {2}), {0});
  EXPECT_EQ(c.ToString(true), "s4[2]{0}");
}

TEST(ProgramShapeTest, ToString) {
  ProgramShape ps;
  ps.parameters() = {ArrF32({2}), Shape(S32, {})};
  ps.result() = ArrF32({2});
  EXPECT_EQ(ps.ToString(), "(f32[2], s32[]) -> f32[2]");
  ps.parameter_names() = {"x", "y"};
  EXPECT_EQ(ps.ToString(), "(x: f32[2], y: s32[]) -> f32[2]");
  ProgramShape empty;
  empty.result() = Shape::MakeTuple({});
  EXPECT_EQ(empty.ToString(), "() -> ()");
  ProgramShape with_layout;
  with_layout.parameters() = {WithLayout(ArrF32({2, 3}), {0, 1})};
  with_layout.result() = WithLayout(ArrF32({3}), {0});
  EXPECT_EQ(with_layout.ToString(true), "(f32[2,3]{0,1}) -> f32[3]{0}");
  EXPECT_EQ(with_layout.ToString(false), "(f32[2,3]) -> f32[3]");
}

TEST(ShapeIndexTest, ToString) {
  EXPECT_EQ(ShapeIndexToString({}), "{}");
  EXPECT_EQ(ShapeIndexToString({0, 1}), "{0,1}");
}

// ------------------------------------------------------------------ equality and copies

TEST(ShapeEqualityTest, LayoutsDynamismAndTuples) {
  EXPECT_EQ(ArrF32({2}), ArrF32({2}));
  EXPECT_NE(ArrF32({2}), WithLayout(ArrF32({2}), {0}));  // missing layout equals only missing
  EXPECT_NE(ArrF32({2}), Shape(S32, {2}));
  Shape dyn = ArrF32({2});
  dyn.set_dynamic_dimension(0, true);
  EXPECT_NE(ArrF32({2}), dyn);
  Layout tiled({0});
  tiled.mutable_tiles()->push_back(Tile({8}));
  Shape a = ArrF32({2});
  a.set_layout(tiled);
  EXPECT_NE(a, WithLayout(ArrF32({2}), {0}));
  EXPECT_NE(Shape::MakeTuple({ArrF32({1})}), Shape::MakeTuple({ArrF32({1}), ArrF32({1})}));
  // Missing dim_unique flags mean "unique", so these two layouts are the same.
  Layout l1({0}), l2({0});
  l1.dim_level_types = l2.dim_level_types = {DIM_COMPRESSED};
  l2.dim_unique = {true};
  EXPECT_EQ(l1, l2);
  l2.dim_unique = {false};
  EXPECT_NE(l1, l2);
}

TEST(LayoutTest, CopyDeepCopiesPhysicalShape) {
  Layout a({0});
  *a.mutable_physical_shape() = ArrF32({4});
  Layout b = a;
  b.mutable_physical_shape()->set_dimensions(0, 8);
  EXPECT_EQ(a.physical_shape().dimensions(0), 4);
  EXPECT_NE(a, b);
  b = a;
  EXPECT_EQ(a, b);
  b.clear_physical_shape();
  EXPECT_FALSE(b.has_physical_shape());
  EXPECT_NE(a, b);
}

// ------------------------------------------------------------------ proto round trips

void ExpectRoundTrip(const Shape& shape) {
  ShapeProto proto = shape.ToProto();
  absl::StatusOr<Shape> back = Shape::FromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status() << " for " << shape.ToString(true);
  EXPECT_EQ(*back, shape) << shape.ToString(true) << " vs " << back->ToString(true);
  EXPECT_EQ(back->ToString(true), shape.ToString(true));
  EXPECT_EQ(back->ToProto().SerializeAsString(), proto.SerializeAsString());
}

TEST(ShapeProtoTest, RoundTrips) {
  ExpectRoundTrip(ArrF32({}));
  ExpectRoundTrip(WithLayout(ArrF32({}), {}));
  ExpectRoundTrip(WithLayout(Shape(BF16, {0, 3, 5}), {0, 2, 1}));
  Shape dyn = WithLayout(ArrF32({10, 3}), {1, 0});
  dyn.set_dynamic_dimension(0, true);
  ExpectRoundTrip(dyn);
  Shape unbounded(F32, {});
  unbounded.add_dimensions(Shape::kUnboundedSize, true);
  ExpectRoundTrip(unbounded);
  ExpectRoundTrip(Shape::MakeToken());
  Shape opaque;
  opaque.set_element_type(OPAQUE_TYPE);
  ExpectRoundTrip(opaque);
  ExpectRoundTrip(Shape::MakeBuffer(WithLayout(ArrF32({2, 4}), {1, 0})));
  ExpectRoundTrip(Shape::MakeTuple(
      {Shape::MakeTuple({}), Shape::MakeTuple({WithLayout(Shape(U4, {3}), {0}), Shape::MakeToken()}),
       Shape(C128, {1})}));
}

TEST(ShapeProtoTest, EveryLayoutFieldRoundTrips) {
  Shape shape = WithLayout(Shape(S4, {4, 256}), {0, 1});
  Layout* l = shape.mutable_layout();
  l->dim_level_types = {DIM_DENSE, DIM_COMPRESSED};
  l->dim_unique = {true, false};
  l->dim_ordered = {false, true};
  l->mutable_tiles()->push_back(Tile({2, 128}));
  l->mutable_tiles()->push_back(Tile({Tile::kCombineDimension, 2}));
  l->tail_padding_alignment_in_elements = 8;
  l->index_primitive_type = S32;
  l->pointer_primitive_type = U64;
  l->element_size_in_bits = 4;
  l->memory_space = 5;
  l->split_configs.push_back({1, {64, 128}});
  *l->mutable_physical_shape() = WithLayout(Shape(U8, {512}), {0});
  l->dynamic_shape_metadata_prefix_bytes = 16;
  ExpectRoundTrip(shape);

  LayoutProto lp = l->ToProto();
  EXPECT_EQ(lp.minor_to_major_size(), 2);
  EXPECT_EQ(lp.dim_level_types(1), DIM_COMPRESSED);
  EXPECT_FALSE(lp.dim_unique(1));
  EXPECT_FALSE(lp.dim_ordered(0));
  EXPECT_EQ(lp.tiles(1).dimensions(0), Tile::kCombineDimension);
  EXPECT_EQ(lp.tail_padding_alignment_in_elements(), 8);
  EXPECT_EQ(lp.index_primitive_type(), S32);
  EXPECT_EQ(lp.pointer_primitive_type(), U64);
  EXPECT_EQ(lp.element_size_in_bits(), 4);
  EXPECT_EQ(lp.memory_space(), 5);
  EXPECT_EQ(lp.split_configs(0).split_indices(1), 128);
  EXPECT_EQ(lp.physical_shape().dimensions(0), 512);
  EXPECT_EQ(lp.dynamic_shape_metadata_prefix_bytes(), 16);
  absl::StatusOr<Layout> back = Layout::FromProto(lp);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *l);
}

TEST(ShapeProtoTest, UnsetTailPaddingMeansOne) {
  LayoutProto lp;
  lp.add_minor_to_major(0);
  absl::StatusOr<Layout> layout = Layout::FromProto(lp);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->tail_padding_alignment_in_elements, 1);
  EXPECT_EQ(layout->ToString(), "{0}");
}

TEST(ProgramShapeTest, ProtoRoundTrip) {
  ProgramShape ps;
  ps.parameters() = {WithLayout(ArrF32({2}), {0}), Shape::MakeTuple({Shape(S32, {})})};
  ps.parameter_names() = {"a", "b"};
  ps.result() = WithLayout(ArrF32({2}), {0});
  absl::StatusOr<ProgramShape> back = ProgramShape::FromProto(ps.ToProto());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, ps);
  EXPECT_EQ(back->ToString(true), "(a: f32[2]{0}, b: (s32[])) -> f32[2]{0}");

  ProgramShapeProto bad = ps.ToProto();
  bad.mutable_parameters(1)->mutable_tuple_shapes(0)->add_dimensions(-1);
  absl::StatusOr<ProgramShape> rejected = ProgramShape::FromProto(bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(rejected.status().message()).find("parameter 1"), std::string::npos);
}

// ------------------------------------------------------------------ hostile protos

void ExpectRejected(const ShapeProto& proto, const std::string& fragment) {
  absl::StatusOr<Shape> shape = Shape::FromProto(proto);
  ASSERT_FALSE(shape.ok()) << "accepted " << shape->ToString(true);
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  EXPECT_NE(std::string(shape.status().message()).find(fragment), std::string::npos)
      << shape.status() << " lacks '" << fragment << "'";
}

ShapeProto ArrayProto(PrimitiveType type, std::vector<int64_t> dims) {
  return Shape(type, std::move(dims)).ToProto();
}

TEST(ShapeProtoTest, RejectsBadDimensions) {
  ExpectRejected(ArrayProto(F32, {2, -3}), "negative dimension");
  ExpectRejected(ArrayProto(F32, {Shape::kUnboundedSize}), "negative dimension");  // static
  ExpectRejected(ArrayProto(F32, std::vector<int64_t>(65, 1)), "rank 65");
  ExpectRejected(ArrayProto(F32, {int64_t{1} << 40, int64_t{1} << 40}), "overflows");
  // 2^61 elements fit, 2^64 bytes do not.
  ExpectRejected(ArrayProto(F64, {int64_t{1} << 61}), "overflows");
  EXPECT_TRUE(Shape::FromProto(ArrayProto(S8, {int64_t{1} << 61})).ok());
  EXPECT_TRUE(Shape::FromProto(ArrayProto(F32, std::vector<int64_t>(64, 1))).ok());
}

TEST(ShapeProtoTest, RejectsMismatchedDynamicFlags) {
  ShapeProto p = ArrayProto(F32, {2, 3});
  p.clear_is_dynamic_dimension();
  p.add_is_dynamic_dimension(true);
  ExpectRejected(p, "is_dynamic_dimension");
  p.clear_is_dynamic_dimension();  // none at all means all static
  EXPECT_TRUE(Shape::FromProto(p).ok());
}

TEST(ShapeProtoTest, RejectsInvalidEnums) {
  ShapeProto p;
  p.set_element_type(static_cast<PrimitiveType>(99));
  ExpectRejected(p, "invalid element type");
  ExpectRejected(ShapeProto(), "invalid element type");
  ShapeProto dlt = ArrayProto(F32, {2});
  dlt.mutable_layout()->add_minor_to_major(0);
  dlt.mutable_layout()->add_dim_level_types(static_cast<DimLevelType>(42));
  ExpectRejected(dlt, "dim_level_type");
  ShapeProto idx = ArrayProto(F32, {2});
  idx.mutable_layout()->add_minor_to_major(0);
  idx.mutable_layout()->set_index_primitive_type(static_cast<PrimitiveType>(1000));
  ExpectRejected(idx, "primitive type");
  idx.mutable_layout()->set_index_primitive_type(F32);
  ExpectRejected(idx, "integral");
}

TEST(ShapeProtoTest, RejectsBadLayouts) {
  ShapeProto p = ArrayProto(F32, {2, 3});
  auto set_m2m = [&](std::vector<int64_t> m2m) {
    p.mutable_layout()->clear_minor_to_major();
    for (int64_t d : m2m) p.mutable_layout()->add_minor_to_major(d);
  };
  set_m2m({0, 0});
  ExpectRejected(p, "not a permutation");
  set_m2m({0, 2});
  ExpectRejected(p, "not a permutation");
  set_m2m({-1, 0});
  ExpectRejected(p, "not a permutation");
  set_m2m({0});
  ExpectRejected(p, "minor_to_major entries for rank 2");
  set_m2m({0, 1});
  EXPECT_TRUE(Shape::FromProto(p).ok());

  ShapeProto tile = p;
  tile.mutable_layout()->add_tiles()->add_dimensions(0);
  ExpectRejected(tile, "tile dimension");
  ShapeProto pad = p;
  pad.mutable_layout()->set_tail_padding_alignment_in_elements(-4);
  ExpectRejected(pad, "tail_padding");
  ShapeProto split = p;
  split.mutable_layout()->add_split_configs()->set_dimension(2);
  ExpectRejected(split, "split config dimension");
  ShapeProto ebits = p;
  ebits.mutable_layout()->set_element_size_in_bits(-1);
  ExpectRejected(ebits, "element_size_in_bits");
  ShapeProto phys = p;
  phys.mutable_layout()->mutable_physical_shape()->set_element_type(U8);
  phys.mutable_layout()->mutable_physical_shape()->add_dimensions(-8);
  ExpectRejected(phys, "negative dimension");
}

TEST(ShapeProtoTest, RejectsMisplacedFields) {
  ShapeProto tuple_with_layout = Shape::MakeTuple({}).ToProto();
  tuple_with_layout.mutable_layout();
  ExpectRejected(tuple_with_layout, "has a layout");
  ShapeProto token_with_dims = Shape::MakeToken().ToProto();
  token_with_dims.add_dimensions(1);
  ExpectRejected(token_with_dims, "has dimensions");
  ShapeProto array_with_elements = ArrayProto(F32, {1});
  *array_with_elements.add_tuple_shapes() = ArrayProto(F32, {1});
  ExpectRejected(array_with_elements, "tuple_shapes");
  ShapeProto empty_buffer;
  empty_buffer.set_element_type(BUFFER);
  ExpectRejected(empty_buffer, "Buffer shape");
  ShapeProto buffer_of_tuple = Shape::MakeBuffer(Shape::MakeTuple({})).ToProto();
  ExpectRejected(buffer_of_tuple, "Buffer shape");
}

TEST(ShapeProtoTest, DeepNestingIsAnErrorNotAStackOverflow) {
  auto nested = [](int depth) {
    ShapeProto root;
    ShapeProto* p = &root;
    for (int i = 0; i < depth; ++i) {
      p->set_element_type(TUPLE);
      p = p->add_tuple_shapes();
    }
    p->set_element_type(F32);
    return root;
  };
  EXPECT_TRUE(Shape::FromProto(nested(100)).ok());
  ExpectRejected(nested(kMaxShapeNestingDepth + 5), "nesting");
  ExpectRejected(nested(5000), "nesting");
}


// ------------------------------------------------------------------ real XLA protos

namespace pb = google::protobuf;

// XLA writes these two fields explicitly; older writers may leave them unset.
void NormalizeLikeXla(ShapeProto* proto) {
  if (proto->is_dynamic_dimension_size() == 0) {
    for (int i = 0; i < proto->dimensions_size(); ++i) proto->add_is_dynamic_dimension(false);
  }
  if (proto->has_layout()) {
    LayoutProto* layout = proto->mutable_layout();
    if (layout->tail_padding_alignment_in_elements() == 0) {
      layout->set_tail_padding_alignment_in_elements(1);
    }
    if (layout->has_physical_shape()) NormalizeLikeXla(layout->mutable_physical_shape());
  }
  for (ShapeProto& element : *proto->mutable_tuple_shapes()) NormalizeLikeXla(&element);
}

// Checks every ShapeProto reachable from `message`; returns how many were checked.
int CheckShapesIn(const pb::Message& message, const std::string& where) {
  if (message.GetDescriptor() == ShapeProto::descriptor()) {
    ShapeProto original;
    original.CopyFrom(message);
    absl::StatusOr<Shape> shape = Shape::FromProto(original);
    EXPECT_TRUE(shape.ok()) << where << ": " << shape.status() << "\n" << original.DebugString();
    if (!shape.ok()) return 1;
    NormalizeLikeXla(&original);
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(shape->ToProto(), original))
        << where << ": " << shape->ToString(true) << "\n" << original.DebugString();
    return 1;
  }
  int count = 0;
  const pb::Reflection* reflection = message.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        count += CheckShapesIn(reflection->GetRepeatedMessage(message, field, i), where);
      }
    } else {
      count += CheckShapesIn(reflection->GetMessage(message, field), where);
    }
  }
  return count;
}

TEST(ShapeProtoTest, EveryShapeInTheConformanceProtosRoundTrips) {
  const char* shared = std::getenv("XLA_SHARED_DIR");
  const std::string dir = std::string(shared ? shared : "/work/shared") + "/conformance/";
  std::ifstream index(dir + "INDEX.tsv");
  if (!index) GTEST_SKIP() << "no conformance data at " << dir;
  // Referenced so the generated descriptors are linked in.
  const pb::Descriptor* linked[] = {HloProto::descriptor(), RunHloModuleIterationLiterals::descriptor()};
  (void)linked;
  int files = 0, shapes = 0;
  std::string line;
  while (std::getline(index, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, '\t');) cols.push_back(col);
    if (cols.size() < 4 || cols[0].rfind("proto/", 0) != 0) continue;
    if (cols[0].size() < 3 || cols[0].substr(cols[0].size() - 3) != ".pb") continue;
    std::string type = cols[3].substr(0, cols[3].find(':'));
    const pb::Descriptor* desc = pb::DescriptorPool::generated_pool()->FindMessageTypeByName(type);
    ASSERT_NE(desc, nullptr) << type;
    std::unique_ptr<pb::Message> msg(
        pb::MessageFactory::generated_factory()->GetPrototype(desc)->New());
    std::ifstream in(dir + cols[0], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_TRUE(msg->ParseFromString(bytes)) << cols[0];
    ++files;
    shapes += CheckShapesIn(*msg, cols[0]);
  }
  EXPECT_EQ(files, 11);
  EXPECT_GE(shapes, 71);  // top-level ShapeProtos (a tuple counts once)
  std::cout << "checked " << shapes << " shapes in " << files << " protos\n";
}

}  // namespace
}  // namespace xla
