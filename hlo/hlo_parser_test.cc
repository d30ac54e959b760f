#include "hlo/hlo_parser.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/literal.h"

namespace xla {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto m = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

std::string ParseError(const std::string& text) {
  auto m = ParseAndReturnUnverifiedModule(text);
  EXPECT_FALSE(m.ok());
  if (m.ok()) return "";
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

const HloInstruction* Find(const HloModule& m, const std::string& name) {
  for (const auto& c : m.computations()) {
    if (auto* i = c->GetInstructionWithName(name)) return i;
  }
  return nullptr;
}

// A fuzzer's find: parameter(077777777777777777) made the computation reserve a slot per
// parameter number up to it (an allocation of 2^59 bytes). No computation can have a
// parameter number past its text's length; such a number is an error at its position.
TEST(HloParserTest, ParameterNumbersPastTheTextAreRefused) {
  const std::string error = ParseError("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(077777777777777777)\n}\n");
  EXPECT_EQ(error.rfind("3:18: parameter number 77777777777777777 is out of range", 0), 0u) << error;
  EXPECT_NE(Parse("HloModule m\nENTRY e {\n  a = f32[] parameter(1)\n  ROOT b = f32[] parameter(0)\n}\n"), nullptr);
}

TEST(HloParserTest, ModuleHeaderAndConfig) {
  HloModuleConfig config;
  config.replica_count = 4;
  auto m = ParseAndReturnUnverifiedModule(R"(
HloModule m, is_scheduled=true, num_partitions=2, entry_computation_layout={(f32[2]{0})->f32[2]{0}}
ENTRY e (p: f32[2]) -> f32[2] {
  ROOT p = f32[2] parameter(0)
})", config);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "m");
  EXPECT_EQ((*m)->config().replica_count, 4);
  EXPECT_EQ((*m)->config().num_partitions, 2);
  EXPECT_TRUE((*m)->is_scheduled());
  EXPECT_EQ((*m)->entry_computation()->name(), "e");
  EXPECT_EQ((*m)->entry_computation()->root_instruction()->shape().layout().minor_to_major(),
            std::vector<int64_t>({0}));
}

TEST(HloParserTest, WindowDimLabelsAndConvolution) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[1,4,4,1] parameter(0)
  k = f32[3,3,1,1] parameter(1)
  ROOT c = f32[1,2,2,1] convolution(a, k), window={size=3x3 stride=2x2 pad=1_1x0_0 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=1
})");
  ASSERT_NE(m, nullptr);
  const auto& attrs = Find(*m, "c")->attrs();
  ASSERT_EQ(attrs.window().dimensions_size(), 2);
  EXPECT_EQ(attrs.window().dimensions(0).stride(), 2);
  EXPECT_EQ(attrs.window().dimensions(0).padding_low(), 1);
  EXPECT_EQ(attrs.window().dimensions(1).padding_high(), 0);
  EXPECT_EQ(attrs.window().dimensions(0).window_dilation(), 1);
  EXPECT_TRUE(attrs.window().dimensions(0).window_reversal());
  EXPECT_FALSE(attrs.window().dimensions(1).window_reversal());
  const auto& d = attrs.convolution_dimension_numbers();
  EXPECT_EQ(d.input_batch_dimension(), 0);
  EXPECT_EQ(d.input_feature_dimension(), 3);
  EXPECT_EQ(d.kernel_input_feature_dimension(), 2);
  EXPECT_EQ(d.kernel_output_feature_dimension(), 3);
  EXPECT_EQ(d.input_spatial_dimensions_size(), 2);
  EXPECT_EQ(d.kernel_spatial_dimensions(1), 1);
}

TEST(HloParserTest, SlicePadCompareAndGte) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[4,8] parameter(0)
  s = f32[2,2] slice(a), slice={[0:2], [1:5:2]}
  z = f32[] constant(0)
  p = f32[5,5] pad(s, z), padding=0_1_2x3_4
  c = pred[5,5] compare(p, p), direction=LT, type=TOTALORDER
  t = (f32[5,5], pred[5,5]) tuple(p, c)
  ROOT g = pred[5,5] get-tuple-element(t), index=1
})");
  ASSERT_NE(m, nullptr);
  const auto& s = Find(*m, "s")->attrs();
  ASSERT_EQ(s.slice_dimensions_size(), 2);
  EXPECT_EQ(s.slice_dimensions(0).stride(), 1);
  EXPECT_EQ(s.slice_dimensions(1).stride(), 2);
  EXPECT_EQ(s.slice_dimensions(1).limit(), 5);
  const auto& p = Find(*m, "p")->attrs().padding_config();
  EXPECT_EQ(p.dimensions(0).interior_padding(), 2);
  EXPECT_EQ(p.dimensions(1).edge_padding_high(), 4);
  EXPECT_EQ(Find(*m, "c")->attrs().comparison_direction(), "LT");
  EXPECT_EQ(Find(*m, "c")->attrs().comparison_type(), "TOTALORDER");
  EXPECT_EQ(Find(*m, "g")->tuple_index(), 1);
}

TEST(HloParserTest, ShardingForms) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[8,8] parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  b = f32[8,8] copy(a), sharding={devices=[2,1]0,1}
  c = f32[8,8] copy(b), sharding={maximal device=3}
  ROOT t = (f32[8,8], f32[8,8]) tuple(b, c), sharding={{replicated}, {manual}}
})");
  ASSERT_NE(m, nullptr);
  const OpSharding& a = Find(*m, "a")->attrs().sharding();
  EXPECT_EQ(a.type(), OpSharding::OTHER);
  EXPECT_EQ(a.iota_reshape_dims_size(), 2);
  EXPECT_EQ(a.iota_transpose_perm(0), 1);
  EXPECT_TRUE(a.replicate_on_last_tile_dim());
  const OpSharding& b = Find(*m, "b")->attrs().sharding();
  EXPECT_EQ(b.tile_assignment_devices_size(), 2);
  const OpSharding& c = Find(*m, "c")->attrs().sharding();
  EXPECT_EQ(c.type(), OpSharding::MAXIMAL);
  EXPECT_EQ(c.tile_assignment_devices(0), 3);
  const OpSharding& t = Find(*m, "t")->attrs().sharding();
  ASSERT_EQ(t.tuple_shardings_size(), 2);
  EXPECT_EQ(t.tuple_shardings(1).type(), OpSharding::MANUAL);
}

TEST(HloParserTest, CollectivesMetadataAndFrontendAttributes) {
  auto m = Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  r = f32[4] all-reduce(a), replica_groups={{0,1},{2,3}}, to_apply=add, metadata={op_type="t" op_name="n" source_line=3}
  i = f32[4] all-reduce(r), replica_groups=[2,2]<=[4], to_apply=add, frontend_attributes={k="v"}, backend_config={"x": 1}
  ROOT cp = f32[4] collective-permute(i), source_target_pairs={{0,1},{1,0}}, control-predecessors={r}
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* r = Find(*m, "r");
  EXPECT_EQ(r->attrs().replica_groups_size(), 2);
  EXPECT_EQ(r->attrs().metadata().op_name(), "n");
  EXPECT_EQ(r->attrs().metadata().source_line(), 3);
  ASSERT_EQ(r->called_computations().size(), 1u);
  EXPECT_EQ(r->called_computations()[0]->name(), "add");
  const HloInstruction* i = Find(*m, "i");
  EXPECT_EQ(i->attrs().collective_device_list().iota_replica_group_list().num_replica_groups(), 2);
  EXPECT_EQ(i->attrs().frontend_attributes().map().at("k"), "v");
  EXPECT_EQ(i->attrs().backend_config(), "{\"x\": 1}");
  const HloInstruction* cp = Find(*m, "cp");
  EXPECT_EQ(cp->attrs().source_target_pairs_size(), 2);
  ASSERT_EQ(cp->control_predecessors().size(), 1u);
  EXPECT_EQ(cp->control_predecessors()[0], r);
}

TEST(HloParserTest, ConstantsAreExact) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = s64[2] constant({9223372036854775807, -9223372036854775808})
  b = u64[] constant(18446744073709551615)
  c = f32[2,2] constant({ { 1, -inf }, { nan, 2.5 } })
  d = c64[] constant((1, -2))
  e = pred[2] constant({true, false})
  f = f32[1000] constant({...})
  ROOT t = (s64[2], u64[], f32[2,2], c64[], pred[2], f32[1000]) tuple(a, b, c, d, e, f)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "a")->literal().GetAsInt64(0), INT64_MAX);
  EXPECT_EQ(Find(*m, "a")->literal().GetAsInt64(1), INT64_MIN);
  EXPECT_EQ(Find(*m, "b")->literal().GetAsUint64(0), UINT64_MAX);
  EXPECT_TRUE(std::isinf(Find(*m, "c")->literal().GetAsDouble(int64_t{1})));
  EXPECT_TRUE(std::isnan(Find(*m, "c")->literal().GetAsDouble(int64_t{2})));
  EXPECT_EQ(Find(*m, "c")->literal().GetAsDouble(int64_t{3}), 2.5);
  EXPECT_EQ(Find(*m, "d")->literal().GetAsComplex(0), std::complex<double>(1, -2));
  EXPECT_EQ(Find(*m, "e")->literal().GetAsInt64(0), 1);
  EXPECT_EQ(Find(*m, "f")->literal().GetAsDouble(int64_t{999}), 0.0);
}

TEST(HloParserTest, AsyncSugarWrapsTheOp) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[10] parameter(0)
  s = ((f32[10]), f32[20], s32[]) custom-call-start(p0), custom_call_target="foo"
  ROOT d = f32[20] custom-call-done(s)
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* s = Find(*m, "s");
  EXPECT_EQ(s->opcode(), HloOpcode::kAsyncStart);
  ASSERT_EQ(s->called_computations().size(), 1u);
  const HloInstruction* wrapped = s->called_computations()[0]->root_instruction();
  EXPECT_EQ(wrapped->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(wrapped->attrs().custom_call_target(), "foo");
  EXPECT_EQ(Find(*m, "d")->opcode(), HloOpcode::kAsyncDone);
  EXPECT_EQ(Find(*m, "d")->called_computations()[0], s->called_computations()[0]);
}

TEST(HloParserTest, ShapesAndLayouts) {
  auto s = ParseShape("(f32[2,<=3]{1,0:T(8,128)(2,1)E(4)S(1)}, /*index=1*/token[], s32[])");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->tuple_shapes_size(), 3);
  const Shape& a = s->tuple_shapes(0);
  EXPECT_TRUE(a.is_dynamic_dimension(1));
  EXPECT_EQ(a.layout().tiles().size(), 2u);
  EXPECT_EQ(a.layout().element_size_in_bits, 4);
  EXPECT_EQ(a.layout().memory_space, 1);
  EXPECT_TRUE(s->tuple_shapes(1).IsToken());
  EXPECT_FALSE(s->tuple_shapes(2).has_layout());
  auto l = ParseLayout("{0,1:T(2,*)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->tiles()[0].dimensions()[1], Tile::kCombineDimension);
  EXPECT_FALSE(ParseShape("f32[2,3]{0,0}").ok());
  EXPECT_FALSE(ParseShape("f32[-1]").ok());
  EXPECT_FALSE(ParseShape("g32[1]").ok());
}

TEST(HloParserTest, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[2,3 parameter(0)\n}"),
            "3:15: expected ']' in shape, got 'parameter'");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] fooo(a)\n}"),
            "4:13: unknown opcode 'fooo'");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  add.1 = f32[] add(a, x)\n}"),
            "4:3: instruction 'add.1' uses undefined operand 'x'");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                       "  r = f32[] reduce(a, a), dimensionz={0}\n}"),
            "4:27: unknown attribute 'dimensionz' for reduce");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  a = f32[] parameter(1)\n}"),
            "4:3: instruction 'a' is already defined");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(1)\n}"),
            "4:1: parameter 'a' has number 1 but computation 'e' has 1 parameters");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  a = s8[] constant(300)\n}"),
            "3:21: value 300 is out of range for s8");
}

TEST(HloParserTest, HostileInputsFailCleanly) {
  std::string deep = "HloModule m\nENTRY e {\n  ROOT a = f32[] ";
  for (int i = 0; i < 2000; ++i) deep += "negate(";
  EXPECT_NE(ParseError(deep).find("nesting deeper than"), std::string::npos);
  std::string tuple = "f32[]";
  for (int i = 0; i < 2000; ++i) tuple = "(" + tuple + ")";
  EXPECT_FALSE(ParseShape(tuple).ok());
  EXPECT_FALSE(ParseAndReturnUnverifiedModule(
                   "HloModule m\nENTRY e {\n  ROOT a = f32[100000,100000,100000] constant({...})\n}")
                   .ok());
  EXPECT_FALSE(ParseAndReturnUnverifiedModule("").ok());
  EXPECT_FALSE(ParseAndReturnUnverifiedModule("HloModule").ok());
  EXPECT_FALSE(ParseAndReturnUnverifiedModule("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), sharding={devices=[2]<=[").ok());
}

}  // namespace
}  // namespace xla
