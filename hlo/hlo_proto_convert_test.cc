#include "hlo/hlo_proto_convert.h"

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

using ::google::protobuf::TextFormat;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

// A module with a called computation, a constant, a reduce (attributes + metadata),
// a control edge, a tuple root, aliasing, frontend attributes and a field that only
// extra_proto_fields() carries (cross_program_prefetches).
constexpr char kBase[] = R"pb(
  name: "m"
  id: 1
  entry_computation_name: "main"
  entry_computation_id: 10
  computations {
    name: "add"
    id: 5
    root_id: 3
    instructions { name: "x" opcode: "parameter" shape { element_type: F32 } id: 1 }
    instructions {
      name: "y" opcode: "parameter" shape { element_type: F32 } id: 2 parameter_number: 1
    }
    instructions {
      name: "sum" opcode: "add" shape { element_type: F32 } id: 3 operand_ids: 1 operand_ids: 2
    }
  }
  computations {
    name: "main"
    id: 10
    root_id: 15
    instructions {
      name: "p"
      opcode: "parameter"
      shape { element_type: F32 dimensions: 4 layout { minor_to_major: 0 tail_padding_alignment_in_elements: 1 }
              is_dynamic_dimension: false }
      id: 11
    }
    instructions {
      name: "zero"
      opcode: "constant"
      shape { element_type: F32 }
      id: 12
      literal { shape { element_type: F32 } f32s: 0 }
    }
    instructions {
      name: "r"
      opcode: "reduce"
      shape { element_type: F32 }
      id: 13
      operand_ids: 11
      operand_ids: 12
      dimensions: 0
      called_computation_ids: 5
      metadata { op_name: "sum_all" source_line: 7 }
    }
    instructions {
      name: "neg"
      opcode: "negate"
      shape { element_type: F32 }
      id: 14
      operand_ids: 13
      control_predecessor_ids: 12
    }
    instructions {
      name: "t"
      opcode: "tuple"
      shape {
        element_type: TUPLE
        tuple_shapes { element_type: F32 }
        tuple_shapes { element_type: F32 dimensions: 4 layout { minor_to_major: 0 tail_padding_alignment_in_elements: 1 }
              is_dynamic_dimension: false }
      }
      id: 15
      operand_ids: 14
      operand_ids: 11
    }
  }
  input_output_alias { entries { output_shape_index: 1 parameter_number: 0 kind: MAY_ALIAS } }
  frontend_attributes { map { key: "k" value: "v" } }
  cross_program_prefetches { parameter: 0 }
)pb";

HloModuleProto Base() {
  HloModuleProto proto;
  EXPECT_TRUE(TextFormat::ParseFromString(kBase, &proto));
  return proto;
}

HloComputationProto* Comp(HloModuleProto* p, const std::string& name) {
  for (auto& c : *p->mutable_computations()) {
    if (c.name() == name) return &c;
  }
  ADD_FAILURE() << "no computation " << name;
  return nullptr;
}

HloInstructionProto* Instr(HloModuleProto* p, const std::string& name) {
  for (auto& c : *p->mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      if (i.name() == name) return &i;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

TEST(HloProtoConvertTest, DecodesStructure) {
  auto module = HloModuleFromProto(Base());
  ASSERT_TRUE(module.ok()) << module.status();
  const HloModule& m = **module;
  EXPECT_EQ(m.name(), "m");
  EXPECT_EQ(m.unique_id(), 1);
  ASSERT_EQ(m.computation_count(), 2);
  const HloComputation* entry = m.entry_computation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->unique_id(), 10);
  EXPECT_EQ(entry->execution_thread(), "main");  // "" in the proto
  EXPECT_EQ(entry->root_instruction()->name(), "t");

  const HloInstruction* r = entry->GetInstructionWithName("r");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(r->unique_id(), 13);
  ASSERT_EQ(r->operand_count(), 2);
  EXPECT_EQ(r->operand(0)->name(), "p");
  EXPECT_EQ(r->operand(1)->name(), "zero");
  ASSERT_EQ(r->called_computations().size(), 1u);
  EXPECT_EQ(r->called_computations()[0]->name(), "add");
  EXPECT_EQ(r->attrs().metadata().op_name(), "sum_all");
  ASSERT_EQ(r->attrs().dimensions_size(), 1);
  // Structure lives in the class, not in attrs().
  EXPECT_TRUE(r->attrs().name().empty());
  EXPECT_TRUE(r->attrs().opcode().empty());
  EXPECT_EQ(r->attrs().operand_ids_size(), 0);
  EXPECT_EQ(r->attrs().called_computation_ids_size(), 0);
  EXPECT_FALSE(r->attrs().has_shape());

  const HloInstruction* zero = entry->GetInstructionWithName("zero");
  ASSERT_TRUE(zero->has_literal());
  EXPECT_EQ(zero->literal().GetAsDouble(0), 0.0);
  EXPECT_FALSE(zero->attrs().has_literal());
  const HloInstruction* neg = entry->GetInstructionWithName("neg");
  ASSERT_EQ(neg->control_predecessors().size(), 1u);
  EXPECT_EQ(neg->control_predecessors()[0], zero);

  const HloComputation* add = m.GetComputationWithName("add");
  ASSERT_EQ(add->num_parameters(), 2);
  EXPECT_EQ(add->parameter_instruction(1)->name(), "y");

  EXPECT_EQ(m.input_output_alias().entries_size(), 1);
  EXPECT_EQ(m.frontend_attributes().map().at("k"), "v");
  EXPECT_EQ(m.extra_proto_fields().cross_program_prefetches_size(), 1);
  EXPECT_EQ(m.extra_proto_fields().computations_size(), 0);
  // No host_program_shape: the entry layout is the entry's shape with default layouts.
  ASSERT_TRUE(m.config().entry_computation_layout.has_value());
  EXPECT_EQ(m.config().entry_computation_layout->ToString(true),
            "(f32[4]{0}) -> (f32[], f32[4]{0})");
}

TEST(HloProtoConvertTest, EncodeMatchesInput) {
  HloModuleProto base = Base();
  auto module = HloModuleFromProto(base);
  ASSERT_TRUE(module.ok()) << module.status();
  HloModuleProto out = HloModuleToProto(**module);
  // Fields the encoder computes rather than copies.
  EXPECT_EQ(out.computations(1).program_shape().parameter_names(0), "p");
  EXPECT_EQ(out.host_program_shape().parameters_size(), 1);
  for (auto& c : *out.mutable_computations()) c.clear_program_shape();
  out.clear_host_program_shape();
  base.clear_buffer_donor();
  out.clear_buffer_donor();  // always written, empty here
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(base, out)) << diff;
}

TEST(HloProtoConvertTest, RoundTripIsStable) {
  auto m1 = HloModuleFromProto(Base());
  ASSERT_TRUE(m1.ok()) << m1.status();
  HloModuleProto p1 = HloModuleToProto(**m1);
  auto m2 = HloModuleFromProto(p1);
  ASSERT_TRUE(m2.ok()) << m2.status();
  std::string diff;
  EXPECT_TRUE((*m1)->Equal(**m2, &diff)) << diff;
  EXPECT_TRUE(MessageDifferencer::Equals(p1, HloModuleToProto(**m2)));
}

TEST(HloProtoConvertTest, OperandsMayComeLaterInTheList) {
  HloModuleProto proto = Base();
  auto* instrs = Comp(&proto, "main")->mutable_instructions();
  std::reverse(instrs->begin(), instrs->end());
  std::reverse(Comp(&proto, "add")->mutable_instructions()->begin(),
               Comp(&proto, "add")->mutable_instructions()->end());
  // Callers before callees too.
  std::swap(*proto.mutable_computations(0), *proto.mutable_computations(1));
  auto module = HloModuleFromProto(proto);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  EXPECT_EQ(entry->instructions().front()->name(), "t");  // proto order kept
  EXPECT_EQ(entry->GetInstructionWithName("r")->operand(0)->name(), "p");
  // The encoder writes callees first.
  HloModuleProto out = HloModuleToProto(**module);
  EXPECT_EQ(out.computations(0).name(), "add");
  EXPECT_EQ(out.computations(1).name(), "main");
}

TEST(HloProtoConvertTest, HostProgramShapeBecomesEntryLayout) {
  HloModuleProto proto = Base();
  ASSERT_TRUE(TextFormat::ParseFromString(R"pb(
    parameters { element_type: F32 dimensions: 4 layout { minor_to_major: 0 memory_space: 1 } }
    result {
      element_type: TUPLE
      tuple_shapes { element_type: F32 layout {} }
      tuple_shapes { element_type: F32 dimensions: 4 layout { minor_to_major: 0 } }
    }
    parameter_names: "p0"
  )pb", proto.mutable_host_program_shape()));
  auto module = HloModuleFromProto(proto);
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& layout = (*module)->config().entry_computation_layout;
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->parameters()[0].layout().memory_space, 1);
  EXPECT_TRUE(layout->parameter_names().empty());
  HloModuleProto out = HloModuleToProto(**module);
  EXPECT_EQ(out.host_program_shape().parameters(0).layout().memory_space(), 1);

  // A caller-supplied layout wins over the proto's.
  HloModuleConfig config;
  config.entry_computation_layout = (*module)->config().entry_computation_layout;
  config.entry_computation_layout->parameters()[0].mutable_layout()->memory_space = 2;
  auto with_config = HloModuleFromProto(proto, config);
  ASSERT_TRUE(with_config.ok()) << with_config.status();
  EXPECT_EQ((*with_config)->config().entry_computation_layout->parameters()[0].layout().memory_space, 2);
}

TEST(HloProtoConvertTest, HandBuiltModuleGetsIds) {
  auto comp = std::make_unique<HloComputation>("entry");
  const Shape s(F32, {2});
  auto p = HloInstruction::Create(HloOpcode::kParameter, s);
  p->set_name("p");
  HloInstruction* param = comp->AddInstruction(std::move(p));
  auto c = HloInstruction::Create(HloOpcode::kConstant, s);
  c->set_name("c");
  c->set_literal(Literal::CreateR1<float>({1.5f, -2.0f}));
  HloInstruction* constant = comp->AddInstruction(std::move(c));
  auto add = HloInstruction::Create(HloOpcode::kAdd, s, {param, constant});
  add->set_name("sum");
  comp->set_root_instruction(comp->AddInstruction(std::move(add)));
  HloModule module("hand");
  module.AddEntryComputation(std::move(comp));

  HloModuleProto proto = HloModuleToProto(module);
  ASSERT_EQ(proto.computations_size(), 1);
  const HloComputationProto& cp = proto.computations(0);
  ASSERT_EQ(cp.instructions_size(), 3);
  EXPECT_EQ(cp.instructions(2).opcode(), "add");
  EXPECT_EQ(cp.instructions(2).operand_ids(0), cp.instructions(0).id());
  EXPECT_EQ(cp.instructions(2).operand_ids(1), cp.instructions(1).id());
  EXPECT_EQ(cp.root_id(), cp.instructions(2).id());
  EXPECT_EQ(proto.entry_computation_id(), cp.id());
  EXPECT_EQ(cp.instructions(1).literal().f32s_size(), 2);

  auto back = HloModuleFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  module.mutable_config()->entry_computation_layout = (*back)->config().entry_computation_layout;
  std::string diff;
  EXPECT_TRUE(module.Equal(**back, &diff)) << diff;
  EXPECT_EQ((*back)->entry_computation()->GetInstructionWithName("c")->literal().GetAsDouble(1), -2.0);
}

TEST(HloProtoConvertTest, ScheduleAndShardingsRoundTrip) {
  HloModuleProto proto = Base();
  auto& seq = (*proto.mutable_schedule()->mutable_sequences())[10];
  for (int64_t id : {11, 12, 13, 14, 15}) seq.add_instruction_ids(id);
  proto.mutable_spmd_output_sharding()->set_type(OpSharding::REPLICATED);
  proto.add_spmd_parameters_shardings()->set_type(OpSharding::MAXIMAL);
  auto module = HloModuleFromProto(proto);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE((*module)->is_scheduled());
  ASSERT_TRUE((*module)->spmd_output_sharding().has_value());
  EXPECT_EQ((*module)->spmd_parameters_shardings().size(), 1u);
  HloModuleProto out = HloModuleToProto(**module);
  EXPECT_TRUE(MessageDifferencer::Equals(out.schedule(), proto.schedule()));
  EXPECT_EQ(out.spmd_parameters_shardings(0).type(), OpSharding::MAXIMAL);
}

TEST(HloProtoConvertTest, ConfigProtoRoundTrip) {
  HloModuleConfig config;
  config.replica_count = 4;
  config.num_partitions = 2;
  config.seed = 42;
  config.use_spmd_partitioning = true;
  config.allow_spmd_sharding_propagation_to_output = {true, false};
  HloModuleConfigProto proto = HloModuleConfigToProto(config);
  auto back = HloModuleConfigFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->replica_count, 4);
  EXPECT_EQ(back->num_partitions, 2);
  EXPECT_EQ(back->seed, 42);
  EXPECT_TRUE(back->use_spmd_partitioning);
  EXPECT_EQ(back->allow_spmd_sharding_propagation_to_output, (std::vector<bool>{true, false}));
  proto.set_replica_count(-1);
  EXPECT_EQ(HloModuleConfigFromProto(proto).status().code(), absl::StatusCode::kInvalidArgument);

  HloModuleProtoWithConfig with_config;
  *with_config.mutable_hlo_module() = Base();
  with_config.mutable_config()->set_replica_count(8);
  auto module = HloModuleFromProtoWithConfig(with_config);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->config().replica_count, 8);
  EXPECT_EQ(HloModuleToProtoWithConfig(**module).config().replica_count(), 8);
}

TEST(HloProtoConvertTest, SerializedModuleAndHloProto) {
  const std::string module_bytes = Base().SerializeAsString();
  auto a = HloModuleFromSerializedProto(module_bytes);
  ASSERT_TRUE(a.ok()) << a.status();
  HloProto wrapper;
  *wrapper.mutable_hlo_module() = Base();
  auto b = HloModuleFromSerializedProto(wrapper.SerializeAsString());
  ASSERT_TRUE(b.ok()) << b.status();
  std::string diff;
  EXPECT_TRUE((*a)->Equal(**b, &diff)) << diff;
  EXPECT_EQ(HloModuleFromSerializedProto("not a proto at all").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HloModuleFromSerializedProto("").status().code(), absl::StatusCode::kInvalidArgument);
}

// Each hostile variant of Base() must be InvalidArgument naming what is wrong.
struct HostileCase {
  const char* label;
  std::function<void(HloModuleProto*)> mutate;
  const char* expected;  // substring of the message
};

std::vector<HostileCase> HostileCases() {
  return {
      {"unknown opcode", [](HloModuleProto* p) { Instr(p, "neg")->set_opcode("negate-ish"); },
       "instruction 'neg' (id 14): unknown opcode \"negate-ish\""},
      {"dangling operand", [](HloModuleProto* p) { Instr(p, "neg")->set_operand_ids(0, 99); },
       "instruction 'neg' (id 14): operand id 99 does not exist"},
      {"operand from another computation",
       [](HloModuleProto* p) { Instr(p, "neg")->set_operand_ids(0, 3); },
       "operand id 3 belongs to another computation"},
      {"dangling control predecessor",
       [](HloModuleProto* p) { Instr(p, "neg")->add_control_predecessor_ids(77); },
       "control predecessor id 77 does not exist"},
      {"dangling called computation",
       [](HloModuleProto* p) { Instr(p, "r")->set_called_computation_ids(0, 6); },
       "instruction 'r' (id 13): called computation id 6 does not exist"},
      {"duplicate instruction id", [](HloModuleProto* p) { Instr(p, "sum")->set_id(12); },
       "duplicate instruction id"},
      {"duplicate computation id", [](HloModuleProto* p) { Comp(p, "add")->set_id(10); },
       "duplicate computation id"},
      {"duplicate computation name", [](HloModuleProto* p) { Comp(p, "add")->set_name("main"); },
       "duplicate computation name"},
      {"duplicate instruction name", [](HloModuleProto* p) { Instr(p, "neg")->set_name("r"); },
       "duplicate instruction name"},
      {"self operand", [](HloModuleProto* p) { Instr(p, "neg")->set_operand_ids(0, 14); },
       "cycle"},
      {"operand cycle",
       [](HloModuleProto* p) {
         // r -> neg -> r
         Instr(p, "r")->set_operand_ids(0, 14);
       },
       "cycle"},
      {"control cycle",
       [](HloModuleProto* p) { Instr(p, "zero")->add_control_predecessor_ids(14); }, "cycle"},
      {"computation calls itself",
       [](HloModuleProto* p) {
         auto* sum = Instr(p, "sum");
         sum->set_opcode("call");
         sum->add_called_computation_ids(5);
       },
       "computation 'add' (id 5): calls itself"},
      {"computations call each other",
       [](HloModuleProto* p) {
         auto* sum = Instr(p, "sum");
         sum->set_opcode("call");
         sum->add_called_computation_ids(10);
       },
       "calls itself (directly or indirectly)"},
      {"invalid shape",
       [](HloModuleProto* p) { Instr(p, "p")->mutable_shape()->set_dimensions(0, -3); },
       "instruction 'p' (id 11)"},
      {"invalid element type",
       [](HloModuleProto* p) { Instr(p, "neg")->mutable_shape()->set_element_type(PrimitiveType(999)); },
       "instruction 'neg' (id 14)"},
      {"missing shape", [](HloModuleProto* p) { Instr(p, "neg")->clear_shape(); }, "missing shape"},
      {"missing root", [](HloModuleProto* p) { Comp(p, "main")->set_root_id(3); },
       "computation 'main' (id 10): root_id 3 is not an instruction of it"},
      {"no instructions", [](HloModuleProto* p) { Comp(p, "add")->clear_instructions(); },
       "has no instructions"},
      {"no computations", [](HloModuleProto* p) { p->clear_computations(); }, "no computations"},
      {"missing entry",
       [](HloModuleProto* p) {
         p->set_entry_computation_id(42);
         p->set_entry_computation_name("nope");
       },
       "no entry computation"},
      {"entry id and name disagree", [](HloModuleProto* p) { p->set_entry_computation_name("add"); },
       "disagrees"},
      {"parameter number out of range",
       [](HloModuleProto* p) { Instr(p, "y")->set_parameter_number(2); },
       "instruction 'y' (id 2): parameter_number 2 out of range [0, 2)"},
      {"negative parameter number",
       [](HloModuleProto* p) { Instr(p, "y")->set_parameter_number(-1); }, "out of range"},
      {"duplicate parameter number",
       [](HloModuleProto* p) { Instr(p, "y")->set_parameter_number(0); },
       "duplicate parameter_number 0"},
      {"literal shape mismatch",
       [](HloModuleProto* p) {
         auto* lit = Instr(p, "zero")->mutable_literal();
         lit->mutable_shape()->set_element_type(S32);
         lit->clear_f32s();
         lit->add_s32s(0);
       },
       "literal shape s32[] does not match instruction shape f32[]"},
      {"literal value count",
       [](HloModuleProto* p) { Instr(p, "zero")->mutable_literal()->add_f32s(1); },
       "instruction 'zero' (id 12)"},
      {"constant without literal", [](HloModuleProto* p) { Instr(p, "zero")->clear_literal(); },
       "constant has no literal"},
      {"literal on non-constant",
       [](HloModuleProto* p) { *Instr(p, "neg")->mutable_literal() = Instr(p, "zero")->literal(); },
       "neither constant nor custom-call"},
      {"wrong arity", [](HloModuleProto* p) { Instr(p, "neg")->add_operand_ids(11); },
       "negate takes 1 operands, got 2"},
      {"alias parameter out of range",
       [](HloModuleProto* p) {
         p->mutable_input_output_alias()->mutable_entries(0)->set_parameter_number(3);
       },
       "input_output_alias: parameter_number 3 is not an entry parameter"},
      {"alias output index invalid",
       [](HloModuleProto* p) {
         p->mutable_input_output_alias()->mutable_entries(0)->set_output_shape_index(0, 5);
       },
       "output_shape_index {5} is not valid"},
      {"donor index invalid",
       [](HloModuleProto* p) {
         auto* e = p->mutable_buffer_donor()->add_entries();
         e->add_parameter_shape_index(0);
       },
       "buffer_donor: parameter_shape_index {0} is not valid"},
      {"schedule names unknown computation",
       [](HloModuleProto* p) { (*p->mutable_schedule()->mutable_sequences())[99]; },
       "schedule: computation id 99 does not exist"},
      {"schedule names foreign instruction",
       [](HloModuleProto* p) {
         (*p->mutable_schedule()->mutable_sequences())[10].add_instruction_ids(3);
       },
       "instruction id 3 is not in that computation"},
      {"host program shape mismatch",
       [](HloModuleProto* p) {
         p->mutable_host_program_shape()->add_parameters()->set_element_type(F32);
         p->mutable_host_program_shape()->add_parameters()->set_element_type(F32);
       },
       "host_program_shape: 2 parameters, but the entry has 1"},
  };
}

TEST(HloProtoConvertTest, HostileProtosAreInvalidArgument) {
  for (const HostileCase& c : HostileCases()) {
    HloModuleProto proto = Base();
    c.mutate(&proto);
    auto module = HloModuleFromProto(proto);
    ASSERT_FALSE(module.ok()) << c.label;
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << c.label;
    EXPECT_THAT(std::string(module.status().message()), HasSubstr(c.expected)) << c.label;
  }
}

// Whatever a decoded module is, encoding it and decoding again must succeed and give an
// equal module.
void ExpectStableIfAccepted(const absl::StatusOr<std::unique_ptr<HloModule>>& module,
                            const std::string& label) {
  if (!module.ok()) {
    EXPECT_NE(module.status().code(), absl::StatusCode::kInternal) << label << module.status();
    return;
  }
  auto again = HloModuleFromProto(HloModuleToProto(**module));
  ASSERT_TRUE(again.ok()) << label << ": " << again.status();
  std::string diff;
  EXPECT_TRUE((*module)->Equal(**again, &diff)) << label << ": " << diff;
}

TEST(HloProtoConvertTest, BitFlippedBytesNeverCrash) {
  std::vector<std::string> corpus = {Base().SerializeAsString()};
  HloProto wrapper;
  *wrapper.mutable_hlo_module() = Base();
  corpus.push_back(wrapper.SerializeAsString());
  std::mt19937 rng(1234);
  int accepted = 0;
  for (const std::string& original : corpus) {
    for (int iter = 0; iter < 3000; ++iter) {
      std::string bytes = original;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        const size_t pos = rng() % bytes.size();
        if (rng() % 4 == 0) {
          bytes[pos] = static_cast<char>(rng());
        } else {
          bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8)));
        }
      }
      if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
      auto module = HloModuleFromSerializedProto(bytes);
      if (module.ok()) ++accepted;
      ExpectStableIfAccepted(module, "iteration " + std::to_string(iter));
    }
  }
  // Most single flips land in names or values and still decode: the test exercises both paths.
  EXPECT_GT(accepted, 100);
}

// Structural mutations the wire-level flips rarely reach: ids rewired at random.
TEST(HloProtoConvertTest, RandomlyRewiredIdsNeverCrash) {
  std::mt19937 rng(99);
  auto pick_id = [&]() -> int64_t { return static_cast<int64_t>(rng() % 18) - 1; };
  for (int iter = 0; iter < 3000; ++iter) {
    HloModuleProto proto = Base();
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      auto* comp = proto.mutable_computations(static_cast<int>(rng() % proto.computations_size()));
      auto* instr = comp->mutable_instructions(static_cast<int>(rng() % comp->instructions_size()));
      switch (rng() % 8) {
        case 0: instr->add_operand_ids(pick_id()); break;
        case 1: if (instr->operand_ids_size() > 0) instr->set_operand_ids(0, pick_id()); break;
        case 2: instr->add_control_predecessor_ids(pick_id()); break;
        case 3: instr->add_called_computation_ids(pick_id()); break;
        case 4: instr->set_parameter_number(pick_id()); break;
        case 5: comp->set_root_id(pick_id()); break;
        case 6: instr->set_id(pick_id()); break;
        case 7: std::swap(*comp->mutable_instructions(0),
                          *comp->mutable_instructions(comp->instructions_size() - 1));
                break;
      }
    }
    ExpectStableIfAccepted(HloModuleFromProto(proto), "rewire " + std::to_string(iter));
  }
}

}  // namespace
}  // namespace xla
