// Printer tests on hand-built IR: every expected text is what XLA prints for that module.

#include "hlo/hlo_printer.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape.h"

namespace xla {
namespace {

Shape Arr(std::vector<int64_t> dims) {
  Shape s(F32, dims);
  std::vector<int64_t> m2m;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) m2m.push_back(i);
  s.set_layout(Layout(m2m));
  return s;
}

// Small builder for one computation.
class Builder {
 public:
  explicit Builder(std::string name) : computation_(std::make_unique<HloComputation>(std::move(name))) {}

  HloInstruction* Param(int64_t number, const Shape& shape, std::string name) {
    auto p = HloInstruction::Create(HloOpcode::kParameter, shape);
    p->set_name(std::move(name));
    p->mutable_attrs()->set_parameter_number(number);
    return computation_->AddInstruction(std::move(p));
  }
  HloInstruction* Op(HloOpcode opcode, const Shape& shape, std::vector<HloInstruction*> operands,
                     std::string name) {
    auto i = HloInstruction::Create(opcode, shape, operands);
    i->set_name(std::move(name));
    return computation_->AddInstruction(std::move(i));
  }
  std::unique_ptr<HloComputation> Build(HloInstruction* root) {
    computation_->set_root_instruction(root);
    return std::move(computation_);
  }

 private:
  std::unique_ptr<HloComputation> computation_;
};

std::unique_ptr<HloModule> AddModule() {
  auto module = std::make_unique<HloModule>("add_module");
  Builder b("add");
  HloInstruction* x = b.Param(0, Arr({2}), "x");
  HloInstruction* y = b.Param(1, Arr({2}), "y");
  HloInstruction* add = b.Op(HloOpcode::kAdd, Arr({2}), {x, y}, "add.1");
  module->AddEntryComputation(b.Build(add));
  return module;
}

TEST(HloPrinterTest, DefaultForm) {
  auto module = AddModule();
  EXPECT_EQ(HloModuleToString(*module),
            "HloModule add_module, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}\n\n"
            "ENTRY %add (x: f32[2], y: f32[2]) -> f32[2] {\n"
            "  %x = f32[2]{0} parameter(0)\n"
            "  %y = f32[2]{0} parameter(1)\n"
            "  ROOT %add.1 = f32[2]{0} add(%x, %y)\n"
            "}\n\n");
}

TEST(HloPrinterTest, LongAndShortForms) {
  auto module = AddModule();
  EXPECT_EQ(HloInstructionToString(*module->entry_computation()->root_instruction(),
                                   HloPrintOptions::Long()),
            "%add.1 = f32[2]{0} add(f32[2]{0} %x, f32[2]{0} %y)");
  EXPECT_EQ(HloModuleToString(*module, HloPrintOptions::ShortParsable()),
            "HloModule add_module, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}\n\n"
            "ENTRY add {\n"
            "  x = f32[2]{0} parameter(0)\n"
            "  y = f32[2]{0} parameter(1)\n"
            "  ROOT add.1 = f32[2]{0} add(x, y)\n"
            "}\n\n");
  HloPrintOptions no_ids = HloPrintOptions::ShortParsable();
  no_ids.print_ids = false;
  EXPECT_EQ(HloInstructionToString(*module->entry_computation()->root_instruction(), no_ids),
            "add = f32[2]{0} add(x, y)");
}

TEST(HloPrinterTest, CanonicalNames) {
  auto module = AddModule();
  std::string text = HloComputationToString(*module->entry_computation(), HloPrintOptions::Canonical());
  EXPECT_EQ(text,
            "add {\n"
            "  tmp_0 = f32[2]{0} parameter(0)\n"
            "  tmp_1 = f32[2]{0} parameter(1)\n"
            "  ROOT tmp_2 = f32[2]{0} add(f32[2]{0} tmp_0, f32[2]{0} tmp_1)\n"
            "}");
}

TEST(HloPrinterTest, IndexAnnotationsInLongOperandLists) {
  auto module = std::make_unique<HloModule>("m");
  Builder b("t");
  HloInstruction* v = b.Param(0, Shape(F32, {}), "v");
  std::vector<Shape> elements(6, Shape(F32, {}));
  HloInstruction* tuple = b.Op(HloOpcode::kTuple, Shape::MakeTuple(elements), {v, v, v, v, v, v}, "tuple");
  module->AddEntryComputation(b.Build(tuple));
  EXPECT_EQ(HloInstructionToString(*tuple, HloPrintOptions::Long()),
            "%tuple = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] %v, f32[] %v, "
            "f32[] %v, f32[] %v, f32[] %v, /*index=5*/f32[] %v)");
  EXPECT_EQ(HloInstructionToString(*tuple, HloPrintOptions::ShortParsable()),
            "tuple = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(v, v, v, v, v, v)");
  HloPrintOptions compact;
  compact.compact_operands = true;
  EXPECT_EQ(HloInstructionToString(*tuple, compact),
            "%tuple = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(%v, %v, %v, %v, "
            "...(+2))");
}

TEST(HloPrinterTest, PerOpcodeAttributes) {
  Builder b("c");
  HloInstruction* p = b.Param(0, Arr({4, 3}), "p");
  HloInstruction* s = b.Param(1, Shape(F32, {}), "s");

  HloInstruction* bcast = b.Op(HloOpcode::kBroadcast, Arr({4, 3}), {s}, "broadcast");
  EXPECT_EQ(HloInstructionToString(*bcast), "%broadcast = f32[4,3]{1,0} broadcast(%s), dimensions={}");

  HloInstruction* cmp = b.Op(HloOpcode::kCompare, Shape(PRED, {}), {s, s}, "cmp");
  cmp->mutable_attrs()->set_comparison_direction("GT");
  cmp->mutable_attrs()->set_comparison_type("FLOAT");  // the default for f32: not printed
  EXPECT_EQ(HloInstructionToString(*cmp), "%cmp = pred[] compare(%s, %s), direction=GT");
  cmp->mutable_attrs()->set_comparison_type("TOTALORDER");
  EXPECT_EQ(HloInstructionToString(*cmp), "%cmp = pred[] compare(%s, %s), direction=GT, type=TOTALORDER");

  HloInstruction* slice = b.Op(HloOpcode::kSlice, Arr({2, 3}), {p}, "slice");
  auto* d0 = slice->mutable_attrs()->add_slice_dimensions();
  d0->set_start(0), d0->set_limit(4), d0->set_stride(2);
  auto* d1 = slice->mutable_attrs()->add_slice_dimensions();
  d1->set_start(0), d1->set_limit(3), d1->set_stride(1);
  EXPECT_EQ(HloInstructionToString(*slice), "%slice = f32[2,3]{1,0} slice(%p), slice={[0:4:2], [0:3:1]}");
  d0->set_stride(1);
  EXPECT_EQ(HloInstructionToString(*slice), "%slice = f32[2,3]{1,0} slice(%p), slice={[0:4], [0:3]}");

  HloInstruction* pad = b.Op(HloOpcode::kPad, Arr({7, 3}), {p, s}, "pad");
  auto* pd0 = pad->mutable_attrs()->mutable_padding_config()->add_dimensions();
  pd0->set_edge_padding_low(-1), pd0->set_edge_padding_high(2), pd0->set_interior_padding(1);
  pad->mutable_attrs()->mutable_padding_config()->add_dimensions();
  EXPECT_EQ(HloInstructionToString(*pad), "%pad = f32[7,3]{1,0} pad(%p, %s), padding=-1_2_1x0_0_0");

  HloInstruction* dot = b.Op(HloOpcode::kDot, Arr({4, 4}), {p, p}, "dot");
  dot->mutable_attrs()->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  dot->mutable_attrs()->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(1);
  dot->mutable_attrs()->mutable_precision_config()->add_operand_precision(PrecisionConfig::HIGH);
  dot->mutable_attrs()->mutable_precision_config()->add_operand_precision(PrecisionConfig::DEFAULT);
  dot->mutable_attrs()->mutable_precision_config()->set_algorithm(PrecisionConfig::ALG_DOT_TF32_TF32_F32);
  EXPECT_EQ(HloInstructionToString(*dot),
            "%dot = f32[4,4]{1,0} dot(%p, %p), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
            "operand_precision={high,default}, algorithm=dot_tf32_tf32_f32");

  HloInstruction* conv = b.Op(HloOpcode::kConvolution, Arr({4, 3}), {p, p}, "convolution");
  auto* w = conv->mutable_attrs()->mutable_window()->add_dimensions();
  w->set_size(3), w->set_stride(1), w->set_padding_low(1), w->set_padding_high(2),
      w->set_base_dilation(2), w->set_window_dilation(1), w->set_window_reversal(true);
  auto* dn = conv->mutable_attrs()->mutable_convolution_dimension_numbers();
  dn->set_input_batch_dimension(1), dn->set_input_feature_dimension(4);
  dn->add_input_spatial_dimensions(2), dn->add_input_spatial_dimensions(3);
  dn->set_kernel_input_feature_dimension(3), dn->set_kernel_output_feature_dimension(4);
  dn->add_kernel_spatial_dimensions(0), dn->add_kernel_spatial_dimensions(2);
  dn->set_output_batch_dimension(0), dn->set_output_feature_dimension(4);
  dn->add_output_spatial_dimensions(1), dn->add_output_spatial_dimensions(2);
  conv->mutable_attrs()->set_feature_group_count(1);
  conv->mutable_attrs()->set_batch_group_count(2);
  EXPECT_EQ(HloInstructionToString(*conv),
            "%convolution = f32[4,3]{1,0} convolution(%p, %p), window={size=3 pad=1_2 lhs_dilate=2 "
            "rhs_reversal=1}, dim_labels=?b01f_0?1io->b01?f, batch_group_count=2");

  HloInstruction* gte = b.Op(HloOpcode::kGetTupleElement, Shape(F32, {}), {p}, "gte");
  gte->mutable_attrs()->set_tuple_index(1);
  EXPECT_EQ(HloInstructionToString(*gte), "%gte = f32[] get-tuple-element(%p), index=1");

  HloInstruction* cc = b.Op(HloOpcode::kCustomCall, Arr({4, 3}), {p}, "custom-call");
  cc->mutable_attrs()->set_custom_call_target("foo\"bar");
  cc->mutable_attrs()->set_custom_call_api_version(API_VERSION_STATUS_RETURNING);
  cc->mutable_attrs()->set_backend_config("this is \"opaque\"");
  EXPECT_EQ(HloInstructionToString(*cc),
            "%custom-call = f32[4,3]{1,0} custom-call(%p), custom_call_target=\"foo\\\"bar\", "
            "api_version=API_VERSION_STATUS_RETURNING, backend_config=\"this is \\\"opaque\\\"\"");
  cc->mutable_attrs()->set_backend_config("{key: \"va}lue\"}");
  EXPECT_EQ(HloInstructionToString(*cc, HloPrintOptions::ShortParsable()),
            "custom-call = f32[4,3]{1,0} custom-call(p), custom_call_target=\"foo\\\"bar\", "
            "api_version=API_VERSION_STATUS_RETURNING, backend_config={key: \"va}lue\"}");
  b.Build(p);
}

TEST(HloPrinterTest, CollectiveAttributes) {
  Builder b("c");
  HloInstruction* p = b.Param(0, Arr({8}), "p");
  HloInstruction* ag = b.Op(HloOpcode::kAllGather, Arr({16}), {p}, "ag");
  ag->mutable_attrs()->set_channel_id(3);
  auto* g = ag->mutable_attrs()->add_replica_groups();
  g->add_replica_ids(0), g->add_replica_ids(1);
  ag->mutable_attrs()->add_dimensions(0);
  ag->mutable_attrs()->set_constrain_layout(true);
  ag->mutable_attrs()->set_use_global_device_ids(true);
  EXPECT_EQ(HloInstructionToString(*ag, HloPrintOptions::ShortParsable()),
            "ag = f32[16]{0} all-gather(p), channel_id=3, replica_groups={{0,1}}, constrain_layout=true, "
            "dimensions={0}, use_global_device_ids=true");

  HloInstruction* a2a = b.Op(HloOpcode::kAllToAll, Arr({8}), {p}, "a2a");
  auto* iota = a2a->mutable_attrs()->mutable_collective_device_list()->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(3), iota->set_num_devices_per_group(10);
  iota->add_iota_reshape_dims(6), iota->add_iota_reshape_dims(5);
  iota->add_iota_transpose_perm(1), iota->add_iota_transpose_perm(0);
  EXPECT_EQ(HloInstructionToString(*a2a, HloPrintOptions::ShortParsable()),
            "a2a = f32[8]{0} all-to-all(p), replica_groups=[3,10]<=[6,5]T(1,0)");

  HloInstruction* cp = b.Op(HloOpcode::kCollectivePermute, Arr({8}), {p}, "cp");
  for (auto [s, t] : std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}) {
    auto* pair = cp->mutable_attrs()->add_source_target_pairs();
    pair->set_source(s), pair->set_target(t);
  }
  EXPECT_EQ(HloInstructionToString(*cp, HloPrintOptions::ShortParsable()),
            "cp = f32[8]{0} collective-permute(p), source_target_pairs={{0,1},{1,2}}");
  b.Build(p);
}

TEST(HloPrinterTest, ShardingMetadataFrontendAttributes) {
  OpSharding replicated;
  replicated.set_type(OpSharding::REPLICATED);
  EXPECT_EQ(OpShardingToString(replicated), "{replicated}");
  OpSharding maximal;
  maximal.set_type(OpSharding::MAXIMAL);
  maximal.add_tile_assignment_devices(1);
  maximal.add_metadata()->set_op_name("a");
  EXPECT_EQ(OpShardingToString(maximal), "{maximal device=1 metadata={op_name=\"a\"}}");
  EXPECT_EQ(OpShardingToString(maximal, false), "{maximal device=1}");
  OpSharding tiled;
  tiled.set_type(OpSharding::OTHER);
  for (int64_t d : {2, 2}) tiled.add_tile_assignment_dimensions(d);
  for (int64_t d : {2, 2}) tiled.add_iota_reshape_dims(d);
  for (int d : {1, 0}) tiled.add_iota_transpose_perm(d);
  tiled.set_replicate_on_last_tile_dim(true);
  EXPECT_EQ(OpShardingToString(tiled), "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  OpSharding explicit_devices;
  explicit_devices.set_type(OpSharding::OTHER);
  explicit_devices.add_tile_assignment_dimensions(2);
  explicit_devices.add_tile_assignment_devices(1), explicit_devices.add_tile_assignment_devices(0);
  explicit_devices.set_is_shard_group(true), explicit_devices.set_shard_group_id(4);
  explicit_devices.set_shard_group_type(OpSharding::LIKE);
  EXPECT_EQ(OpShardingToString(explicit_devices), "{devices=[2]1,0 shard_like 4}");
  OpSharding tuple;
  tuple.set_type(OpSharding::TUPLE);
  *tuple.add_tuple_shardings() = replicated;
  tuple.add_tuple_shardings()->set_type(OpSharding::MANUAL);
  EXPECT_EQ(OpShardingToString(tuple), "{{replicated}, {manual}}");

  OpMetadata m;
  m.set_op_type("const");
  m.set_op_name("\"it's\n");
  m.set_source_file("f.cc");
  m.set_source_line(68);
  m.set_scheduling_name("s");
  EXPECT_EQ(OpMetadataToString(m),
            "op_type=\"const\" op_name=\"\\\"it\\'s\\n\" source_file=\"f.cc\" source_line=68 "
            "scheduling_name=\"s\"");

  FrontendAttributes attrs;
  (*attrs.mutable_map())["b"] = "x\"y";
  (*attrs.mutable_map())["a"] = "{n = 1 : i32}";
  EXPECT_EQ(FrontendAttributesToString(attrs), "{a={n = 1 : i32},b=\"x\\\"y\"}");
  EXPECT_TRUE(LexesAsJsonDict("{a: {b: \"}\"}}"));
  EXPECT_FALSE(LexesAsJsonDict("{a} {b}"));
  EXPECT_FALSE(LexesAsJsonDict("{a"));
  EXPECT_FALSE(LexesAsJsonDict("plain"));
}

// Called computations come before their callers, in XLA's order: a while's body before
// its condition, a select-and-scatter's select before its scatter.
TEST(HloPrinterTest, ComputationOrderAndCalledComputationAttributes) {
  auto module = std::make_unique<HloModule>("while_module");
  Builder cond("cond");
  HloInstruction* cp = cond.Param(0, Shape(S32, {}), "cp");
  HloInstruction* lt = cond.Op(HloOpcode::kCompare, Shape(PRED, {}), {cp, cp}, "lt");
  lt->mutable_attrs()->set_comparison_direction("LT");
  HloComputation* cond_c = module->AddEmbeddedComputation(cond.Build(lt));
  Builder body("body");
  HloInstruction* bp = body.Param(0, Shape(S32, {}), "bp");
  HloComputation* body_c = module->AddEmbeddedComputation(body.Build(bp));
  Builder entry("entry");
  HloInstruction* init = entry.Param(0, Shape(S32, {}), "init");
  HloInstruction* loop = entry.Op(HloOpcode::kWhile, Shape(S32, {}), {init}, "while");
  loop->AppendComputation(body_c);  // XLA's order: {body, condition}
  loop->AppendComputation(cond_c);
  module->AddEntryComputation(entry.Build(loop));
  EXPECT_EQ(HloModuleToString(*module, HloPrintOptions::ShortParsable()),
            "HloModule while_module, entry_computation_layout={(s32[])->s32[]}\n\n"
            "body {\n"
            "  ROOT bp = s32[] parameter(0)\n"
            "}\n\n"
            "cond {\n"
            "  cp = s32[] parameter(0)\n"
            "  ROOT lt = pred[] compare(cp, cp), direction=LT\n"
            "}\n\n"
            "ENTRY entry {\n"
            "  init = s32[] parameter(0)\n"
            "  ROOT while = s32[] while(init), condition=cond, body=body\n"
            "}\n\n");
}

// Instructions print in XLA's post order: from each user-less instruction in turn,
// control predecessors before operands; control-predecessors only in the long forms.
TEST(HloPrinterTest, PostOrderAndControlPredecessors) {
  auto module = std::make_unique<HloModule>("m");
  Builder b("e");
  HloInstruction* token = b.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {}, "token0");
  HloInstruction* root = b.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {token}, "root");
  HloInstruction* dangling = b.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {}, "dangling");
  HloInstruction* later = b.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {dangling}, "later");
  root->AddControlDependencyTo(later);
  module->AddEntryComputation(b.Build(root));
  EXPECT_EQ(HloComputationToString(*module->entry_computation()),
            "%e () -> token[] {\n"
            "  %token0 = token[] after-all()\n"
            "  ROOT %root = token[] after-all(%token0)\n"
            "  %dangling = token[] after-all()\n"
            "  %later = token[] after-all(%dangling), control-predecessors={%root}\n"
            "}");
  EXPECT_EQ(HloInstructionToString(*later, HloPrintOptions::ShortParsable()),
            "later = token[] after-all(dangling)");
}

TEST(HloPrinterTest, ModuleHeaderAttributes) {
  auto module = AddModule();
  module->set_is_scheduled(true);
  auto* alias = module->input_output_alias().add_entries();
  alias->set_parameter_number(1);
  alias->set_kind(MUST_ALIAS);
  auto* donor = module->buffer_donor().add_entries();
  donor->set_parameter_number(0);
  module->mutable_config()->replica_count = 4;
  module->mutable_config()->num_partitions = 2;
  module->mutable_config()->alias_passthrough_params = true;
  module->mutable_config()->allow_spmd_sharding_propagation_to_output = {true};
  (*module->frontend_attributes().mutable_map())["k"] = "v";
  std::string text = HloModuleToString(*module, HloPrintOptions::ShortParsable());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "HloModule add_module, is_scheduled=true, input_output_alias={ {}: (1, {}, must-alias) }, "
            "buffer_donor={ (0, {}) }, alias_passthrough_params=true, "
            "entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}, "
            "allow_spmd_sharding_propagation_to_output={true}, replica_count=4, num_partitions=2, "
            "frontend_attributes={k=\"v\"}");
}

TEST(HloPrinterTest, AsyncSyntaxSugar) {
  auto module = std::make_unique<HloModule>("m");
  Builder wrapped("wrapped");
  HloInstruction* wp = wrapped.Param(0, Arr({10}), "wp");
  HloInstruction* cc = wrapped.Op(HloOpcode::kCustomCall, Arr({20}), {wp}, "cc");
  cc->mutable_attrs()->set_custom_call_target("foo");
  HloComputation* wrapped_c = module->AddEmbeddedComputation(wrapped.Build(cc));
  wrapped_c->set_execution_thread("parallel_thread");
  Builder entry("Entry");
  HloInstruction* p0 = entry.Param(0, Arr({10}), "p0");
  Shape context = Shape::MakeTuple({Shape::MakeTuple({Arr({10})}), Arr({20}), Shape(S32, {})});
  HloInstruction* start = entry.Op(HloOpcode::kAsyncStart, context, {p0}, "async-start");
  start->AppendComputation(wrapped_c);
  start->mutable_attrs()->set_async_execution_thread("parallel_thread");
  HloInstruction* done = entry.Op(HloOpcode::kAsyncDone, Arr({20}), {start}, "async-done");
  done->AppendComputation(wrapped_c);
  module->AddEntryComputation(entry.Build(done));
  EXPECT_EQ(HloModuleToString(*module, HloPrintOptions::ShortParsable()),
            "HloModule m, entry_computation_layout={(f32[10]{0})->f32[20]{0}}\n\n"
            "ENTRY Entry {\n"
            "  p0 = f32[10]{0} parameter(0)\n"
            "  async-start = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(p0), "
            "async_execution_thread=\"parallel_thread\", custom_call_target=\"foo\"\n"
            "  ROOT async-done = f32[20]{0} custom-call-done(async-start)\n"
            "}\n\n");
  HloPrintOptions no_sugar = HloPrintOptions::ShortParsable();
  no_sugar.syntax_sugar_async_ops = false;
  EXPECT_EQ(HloModuleToString(*module, no_sugar),
            "HloModule m, entry_computation_layout={(f32[10]{0})->f32[20]{0}}\n\n"
            "wrapped {\n"
            "  wp = f32[10]{0} parameter(0)\n"
            "  ROOT cc = f32[20]{0} custom-call(wp), custom_call_target=\"foo\"\n"
            "}, execution_thread=\"parallel_thread\"\n\n"
            "ENTRY Entry {\n"
            "  p0 = f32[10]{0} parameter(0)\n"
            "  async-start = ((f32[10]{0}), f32[20]{0}, s32[]) async-start(p0), "
            "async_execution_thread=\"parallel_thread\", calls=wrapped\n"
            "  ROOT async-done = f32[20]{0} async-done(async-start)\n"
            "}\n\n");
}

// The sugar `add-start(p)` re-parses into add(param 0, ...) of the start's operands, in order:
// a wrapped root that reads a parameter twice (add(a, a)) keeps its computation.
TEST(HloPrinterTest, AsyncSugarOnlyWhereItReparsesToTheSameComputation) {
  const char* text = R"(HloModule m
twice {
  a = s32[3] parameter(0)
  ROOT s = s32[3] add(a, a)
}
ENTRY e {
  p = s32[3] parameter(0)
  s = ((s32[3]), s32[3], u32[]) async-start(p), calls=twice
  ROOT d = s32[3] async-done(s), calls=twice
})";
  auto module = ParseAndReturnUnverifiedModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string printed = HloModuleToString(**module, HloPrintOptions::ShortParsable());
  EXPECT_THAT(printed, ::testing::HasSubstr("async-start(p), calls=twice"));
  EXPECT_THAT(printed, ::testing::Not(::testing::HasSubstr("add-start")));
  auto reparsed = ParseAndReturnUnverifiedModule(printed);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_TRUE(VerifyHloModule(**reparsed).ok());
  EXPECT_EQ(HloModuleToString(**reparsed, HloPrintOptions::ShortParsable()), printed);
}

TEST(HloPrinterTest, OriginStatisticsResultAccuracy) {
  Builder b("c");
  HloInstruction* p = b.Param(0, Shape::MakeTuple({Shape(F32, {}), Arr({3})}), "p");
  auto* ov = p->mutable_attrs()->mutable_original_value();
  auto* e0 = ov->add_elements();
  e0->add_shape_index(0);
  e0->mutable_original_array()->set_instruction_name("v1");
  auto* e1 = ov->add_elements();
  e1->add_shape_index(1);
  e1->mutable_original_array()->set_instruction_name("v2");
  e1->mutable_original_array()->add_shape_index(1);
  auto* stats = p->mutable_attrs()->mutable_statistics_viz();
  stats->set_stat_index_to_visualize(1);
  auto* st = stats->add_statistics();
  st->set_stat_name("stat-1"), st->set_stat_val(33);
  p->mutable_attrs()->mutable_result_accuracy()->set_mode(ResultAccuracy::HIGHEST);
  EXPECT_EQ(HloInstructionToString(*p, HloPrintOptions::ShortParsable()),
            "p = (f32[], f32[3]{0}) parameter(0), statistics={visualizing_index=1,stat-1=33}, "
            "result_accuracy={mode=HIGHEST}, origin={({\"v1\"}, {\"v2\" {1}})}");
  b.Build(p);
}

}  // namespace
}  // namespace xla
