// XLA's own serialized modules (conformance/proto/*.pb): proto -> IR -> proto must give the
// original module back in meaning, and IR -> proto -> IR an equal module. Then XLA's parser
// round-trip cases (conformance/parser_roundtrip): text -> IR -> proto -> IR must give an
// equal module that prints the same, as upstream's parser test checks.
//
// "In meaning" for protos, explicitly:
//   - ShapeProto and LiteralProto are compared as Shape / Literal values (Shape::FromProto,
//     Literal::FromProto): XLA writers differ in spelling the same value (a layout's
//     default tail_padding_alignment_in_elements, is_dynamic_dimension: false, ...);
//   - computations' program_shape and the module's host_program_shape are recomputed by
//     the encoder: their parameter and result shapes must match, parameter names are
//     ignored (XLA's producers name them freely, e.g. "Arg_0" for instruction "Arg_0.1");
//   - a sub-message present but empty equals an absent one (proto3 has no presence for
//     meaning here; e.g. `input_output_alias {}` or `metadata {}`);
//   - ids are not renumbered, so they must match exactly.

#include <cstdlib>
#include <iostream>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"

namespace xla {
namespace {

using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;
using ::google::protobuf::util::MessageDifferencer;

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr ? env : "../shared";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct IndexEntry {
  std::string file;     // relative to conformance/
  std::string details;  // 4th column
};

std::vector<IndexEntry> ReadIndex() {
  std::vector<IndexEntry> entries;
  std::istringstream in(ReadFile(SharedDir() + "/conformance/INDEX.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() >= 4) entries.push_back({cols[0], cols[3]});
  }
  return entries;
}

// Clears set-but-empty singular sub-messages, recursively (not oneof members: there the
// case itself carries meaning).
void ClearEmptyMessages(Message* m) {
  const Reflection* r = m->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(*m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f->is_map()) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*m, f); ++i) {
        ClearEmptyMessages(r->MutableRepeatedMessage(m, f, i));
      }
      continue;
    }
    Message* sub = r->MutableMessage(m, f);
    ClearEmptyMessages(sub);
    if (f->containing_oneof() == nullptr && sub->ByteSizeLong() == 0) r->ClearField(m, f);
  }
}

// Compares a program shape's parameter and result shapes as values, then clears both.
void CompareProgramShapes(ProgramShapeProto* a, ProgramShapeProto* b, const std::string& what) {
  auto pa = ProgramShape::FromProto(*a);
  auto pb = ProgramShape::FromProto(*b);
  ASSERT_TRUE(pa.ok()) << what << ": " << pa.status();
  ASSERT_TRUE(pb.ok()) << what << ": " << pb.status();
  EXPECT_TRUE(pa->parameters() == pb->parameters() && pa->result() == pb->result())
      << what << ": " << pa->ToString(true) << " vs " << pb->ToString(true);
  a->Clear();
  b->Clear();
}

// Compares every shape / literal of two module protos as values (instruction order and
// counts must already agree), then clears them so MessageDifferencer sees the rest.
void CompareAndClearValues(HloModuleProto* a, HloModuleProto* b, const std::string& file) {
  ASSERT_EQ(a->computations_size(), b->computations_size()) << file;
  if (a->has_host_program_shape() || b->has_host_program_shape()) {
    CompareProgramShapes(a->mutable_host_program_shape(), b->mutable_host_program_shape(),
                         file + " host_program_shape");
  }
  for (int c = 0; c < a->computations_size(); ++c) {
    HloComputationProto* ca = a->mutable_computations(c);
    HloComputationProto* cb = b->mutable_computations(c);
    const std::string where = file + " computation " + ca->name();
    if (ca->has_program_shape()) {
      CompareProgramShapes(ca->mutable_program_shape(), cb->mutable_program_shape(), where);
    } else {
      cb->clear_program_shape();  // absent in the original: nothing to compare
    }
    ASSERT_EQ(ca->instructions_size(), cb->instructions_size()) << where;
    for (int i = 0; i < ca->instructions_size(); ++i) {
      HloInstructionProto* ia = ca->mutable_instructions(i);
      HloInstructionProto* ib = cb->mutable_instructions(i);
      const std::string at = where + " instruction " + ia->name();
      auto sa = Shape::FromProto(ia->shape());
      auto sb = Shape::FromProto(ib->shape());
      ASSERT_TRUE(sa.ok() && sb.ok()) << at;
      EXPECT_TRUE(*sa == *sb) << at << ": " << sa->ToString(true) << " vs " << sb->ToString(true);
      ia->clear_shape();
      ib->clear_shape();
      if (ia->has_literal() || ib->has_literal()) {
        auto la = Literal::FromProto(ia->literal());
        auto lb = Literal::FromProto(ib->literal());
        ASSERT_TRUE(la.ok() && lb.ok()) << at;
        EXPECT_TRUE(la->shape() == lb->shape()) << at;
        EXPECT_TRUE(*la == *lb) << at;
        ia->clear_literal();
        ib->clear_literal();
      }
    }
  }
}

// The module inside each message type the index names; nullopt for types without one.
bool ExtractModule(const std::string& type, const std::string& bytes, HloModuleProto* out) {
  if (type == "xla.HloModuleProto") return out->ParseFromString(bytes);
  if (type == "xla.HloProto") {
    HloProto p;
    if (!p.ParseFromString(bytes)) return false;
    *out = p.hlo_module();
    return true;
  }
  if (type == "xla.HloSnapshot") {
    HloSnapshot p;
    if (!p.ParseFromString(bytes)) return false;
    *out = p.hlo().hlo_module();
    return true;
  }
  if (type == "xla.HloUnoptimizedSnapshot") {
    HloUnoptimizedSnapshot p;
    if (!p.ParseFromString(bytes)) return false;
    *out = p.hlo_module();
    return true;
  }
  return false;
}

TEST(ConformanceProtoTest, XlaModulesRoundTrip) {
  int modules = 0;
  for (const IndexEntry& e : ReadIndex()) {
    if (e.file.rfind("proto/", 0) != 0 || e.file.size() < 3 ||
        e.file.compare(e.file.size() - 3, 3, ".pb") != 0) {
      continue;
    }
    const std::string type = e.details.substr(0, e.details.find(':'));
    if (type == "xla.RunHloModuleIterationLiterals") continue;  // literals only
    SCOPED_TRACE(e.file + " (" + type + ")");
    const std::string bytes = ReadFile(SharedDir() + "/conformance/" + e.file);
    ASSERT_FALSE(bytes.empty());
    HloModuleProto original;
    ASSERT_TRUE(ExtractModule(type, bytes, &original)) << "cannot decode as " << type;
    if (original.computations_size() == 0) continue;  // e.g. a snapshot of arguments only
    ++modules;

    auto module = HloModuleFromProto(original);
    ASSERT_TRUE(module.ok()) << module.status();
    HloModuleProto encoded = HloModuleToProto(**module);

    auto again = HloModuleFromProto(encoded);
    ASSERT_TRUE(again.ok()) << again.status();
    std::string diff;
    EXPECT_TRUE((*module)->Equal(**again, &diff)) << diff;

    if (type == "xla.HloModuleProto" || type == "xla.HloProto" ||
        type == "xla.HloUnoptimizedSnapshot") {
      // The wrapper is detected from the bytes alone.
      auto detected = HloModuleFromSerializedProto(bytes);
      ASSERT_TRUE(detected.ok()) << detected.status();
      EXPECT_TRUE((*module)->Equal(**detected, &diff)) << diff;
    }

    HloModuleProto a = original;
    HloModuleProto b = encoded;
    CompareAndClearValues(&a, &b, e.file);
    ClearEmptyMessages(&a);
    ClearEmptyMessages(&b);
    MessageDifferencer differ;
    std::string report;
    differ.ReportDifferencesToString(&report);
    EXPECT_TRUE(differ.Compare(a, b)) << report;
  }
  // 9 of the samples carry a module (the mlir_bisect snapshot holds only arguments).
  EXPECT_EQ(modules, 9);
}

std::vector<std::string> Names(const std::vector<HloComputation*>& computations) {
  std::vector<std::string> names;
  for (const HloComputation* c : computations) names.push_back(c->name());
  return names;
}

// `second` came from HloModuleToProto(first). The proto lists computations callees first, as
// XLA writes them, so a text module in another order (e.g. ENTRY first) comes back
// reordered; HloModule::Equal is positional, so such modules are compared computation by
// computation (by name, through the long print) instead.
void ExpectSameModule(const HloModule& first, const HloModule& second) {
  std::vector<HloComputation*> in_order;
  for (const auto& c : first.computations()) in_order.push_back(c.get());
  if (Names(in_order) == Names(first.MakeComputationPostOrder())) {
    std::string diff;
    EXPECT_TRUE(first.Equal(second, &diff)) << diff;
    EXPECT_EQ(HloModuleToString(first, HloPrintOptions::Long()),
              HloModuleToString(second, HloPrintOptions::Long()));
    return;
  }
  EXPECT_EQ(Names(second.MakeComputationPostOrder()), Names(first.MakeComputationPostOrder()));
  ASSERT_EQ(first.computation_count(), second.computation_count());
  ASSERT_NE(second.entry_computation(), nullptr);
  EXPECT_EQ(first.entry_computation()->name(), second.entry_computation()->name());
  for (const auto& c : first.computations()) {
    const HloComputation* other = second.GetComputationWithName(c->name());
    ASSERT_NE(other, nullptr) << c->name();
    EXPECT_EQ(HloComputationToString(*c, HloPrintOptions::Long()),
              HloComputationToString(*other, HloPrintOptions::Long()));
  }
  const std::string a = HloModuleToString(first, HloPrintOptions::Long());
  const std::string b = HloModuleToString(second, HloPrintOptions::Long());
  EXPECT_EQ(a.substr(0, a.find('\n')), b.substr(0, b.find('\n')));  // module header
}

// text -> IR -> proto -> IR == first IR, and both print the same.
void TextRoundTrip(const std::string& prefix, int* parsed, int* total,
                   std::vector<std::string>* unparsed) {
  for (const IndexEntry& e : ReadIndex()) {
    if (e.file.rfind(prefix, 0) != 0) continue;
    if (e.file.size() < 4 || e.file.compare(e.file.size() - 4, 4, ".hlo") != 0) continue;
    ++*total;
    SCOPED_TRACE(e.file);
    HloModuleConfig config;
    const size_t rc = e.details.find("replica_count=");
    if (rc != std::string::npos) config.replica_count = std::atoi(e.details.c_str() + rc + 14);
    const std::string text = ReadFile(SharedDir() + "/conformance/" + e.file);
    auto first = ParseAndReturnUnverifiedModule(text, config);
    if (!first.ok()) {
      // The parser's own conformance test owns parse failures.
      unparsed->push_back(e.file);
      continue;
    }
    ++*parsed;
    HloModuleProto proto = HloModuleToProto(**first);
    // HloModuleProto carries no module config (replica_count lives in HloModuleConfigProto);
    // the entry layout must come back from host_program_shape.
    HloModuleConfig carried = (*first)->config();
    carried.entry_computation_layout.reset();
    auto second = HloModuleFromProto(proto, carried);
    ASSERT_TRUE(second.ok()) << second.status();
    ExpectSameModule(**first, **second);
    // Decoding the bytes gives the same module again.
    auto third = HloModuleFromSerializedProto(proto.SerializeAsString(), carried);
    ASSERT_TRUE(third.ok()) << third.status();
    std::string diff;
    EXPECT_TRUE((*second)->Equal(**third, &diff)) << diff;
  }
}

TEST(ConformanceProtoTest, ParserRoundTripCasesSurviveProto) {
  for (const std::string prefix : {"parser_roundtrip/long_", "parser_roundtrip/short_"}) {
    int parsed = 0, total = 0;
    std::vector<std::string> unparsed;
    TextRoundTrip(prefix, &parsed, &total, &unparsed);
    std::string list;
    for (const std::string& f : unparsed) list += " " + f;
    std::cout << prefix << "*.hlo: " << parsed << "/" << total
              << " parsed and round-tripped through HloModuleProto;"
              << (unparsed.empty() ? "" : " not parsed:") << list << "\n";
    EXPECT_GT(total, 50);
    // Parse failures belong to the parser's tests, but most cases must be exercised here.
    EXPECT_GE(parsed * 10, total * 9);
  }
}

// The import-test modules (async ops, custom-calls, composites, layouts, dynamism, ...):
// whatever parses must survive HloModuleProto unchanged.
TEST(ConformanceProtoTest, ParseOnlyModulesSurviveProto) {
  int parsed = 0, total = 0;
  std::vector<std::string> unparsed;
  TextRoundTrip("parse_only/", &parsed, &total, &unparsed);
  std::cout << "parse_only/*.hlo: " << parsed << "/" << total
            << " parsed and round-tripped through HloModuleProto\n";
  EXPECT_GT(total, 50);
  EXPECT_GE(parsed * 10, total * 9);
}

}  // namespace
}  // namespace xla

