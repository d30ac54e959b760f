// Wire compatibility of proto/*.proto with XLA's own protos, checked two ways:
//  1. XLA's sample files (../shared/conformance/proto): every text sample
//     parses with no unknown field, every binary parses with no unknown field,
//     the two agree, and re-encoding reproduces the original bytes.
//  2. The field table generated from XLA's descriptors
//     (../shared/spec/xla_proto_fields.md): every listed field exists here
//     with the same number, label and type, every enum value has the same
//     number, and we declare nothing the table does not list.

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "proto/hlo.pb.h"
#include "proto/run_hlo_module.pb.h"
#include "proto/xla.pb.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace {

namespace pb = google::protobuf;

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr && *env != '\0' ? env : "../shared";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::unique_ptr<pb::Message> NewMessage(const std::string& full_name) {
  const pb::Descriptor* d =
      pb::DescriptorPool::generated_pool()->FindMessageTypeByName(full_name);
  if (d == nullptr) return nullptr;
  return std::unique_ptr<pb::Message>(
      pb::MessageFactory::generated_factory()->GetPrototype(d)->New());
}

// Paths (message.field, ...) of every unknown field anywhere in `msg`. A
// non-empty result means our schema lacks a field the sender wrote, or
// declares it with an incompatible wire type.
void CollectUnknownFields(const pb::Message& msg, const std::string& path,
                          std::vector<std::string>* out) {
  const pb::Reflection* r = msg.GetReflection();
  const pb::UnknownFieldSet& unknown = r->GetUnknownFields(msg);
  for (int i = 0; i < unknown.field_count(); ++i) {
    out->push_back(path + "#" + std::to_string(unknown.field(i).number()));
  }
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(msg, &fields);
  for (const pb::FieldDescriptor* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const std::string sub = path + "." + f->name();
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(msg, f); ++i) {
        CollectUnknownFields(r->GetRepeatedMessage(msg, f, i), sub, out);
      }
    } else {
      CollectUnknownFields(r->GetMessage(msg, f), sub, out);
    }
  }
}

// Map entries re-serialize in hash order, so byte equality is only
// meaningful when no map holds more than one entry.
bool HasMultiEntryMap(const pb::Message& msg) {
  const pb::Reflection* r = msg.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(msg, &fields);
  for (const pb::FieldDescriptor* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_map() && r->FieldSize(msg, f) > 1) return true;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(msg, f); ++i) {
        if (HasMultiEntryMap(r->GetRepeatedMessage(msg, f, i))) return true;
      }
    } else if (HasMultiEntryMap(r->GetMessage(msg, f))) {
      return true;
    }
  }
  return false;
}

class CollectingErrors : public pb::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    text += std::to_string(line + 1) + ":" + std::to_string(column + 1) +
            ": " + message + "\n";
  }
  void AddWarning(int line, int column, const std::string& message) override {
    AddError(line, column, "warning: " + message);
  }
  std::string text;
};

struct Sample {
  std::string binary_path;  // relative to conformance/
  std::string text_path;
  std::string type;  // e.g. "xla.HloProto"
};

// Pairs every `.pb` in INDEX.tsv with its text form (`<stem>.pbtxt`, or
// `<stem>.decoded.pbtxt` for the original XLA binaries).
std::vector<Sample> LoadSamples(const std::string& conformance_dir) {
  std::string index;
  if (!ReadFile(conformance_dir + "/INDEX.tsv", &index)) return {};
  std::set<std::string> listed;
  std::vector<std::pair<std::string, std::string>> binaries;  // path, type
  const std::regex type_re(R"(xla\.[A-Za-z0-9_]+)");
  std::istringstream lines(index);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string path = line.substr(0, line.find('\t'));
    if (path.rfind("proto/", 0) != 0) continue;
    listed.insert(path);
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".pb") != 0) {
      continue;
    }
    std::smatch m;
    if (std::regex_search(line, m, type_re)) binaries.emplace_back(path, m[0]);
  }
  std::vector<Sample> samples;
  for (const auto& [path, type] : binaries) {
    const std::string stem = path.substr(0, path.size() - 3);
    Sample s{path, "", type};
    if (listed.count(stem + ".pbtxt")) {
      s.text_path = stem + ".pbtxt";
    } else if (listed.count(stem + ".decoded.pbtxt")) {
      s.text_path = stem + ".decoded.pbtxt";
    }
    samples.push_back(s);
  }
  return samples;
}

TEST(ProtoConformanceTest, XlaSamplesParseAndReencodeIdentically) {
  const std::string dir = SharedDir() + "/conformance";
  const std::vector<Sample> samples = LoadSamples(dir);
  // 9 protoc-encoded samples + 2 original XLA binaries.
  ASSERT_GE(samples.size(), 11u) << "samples not found under " << dir;

  for (const Sample& s : samples) {
    SCOPED_TRACE(s.binary_path + " as " + s.type);
    ASSERT_FALSE(s.text_path.empty()) << "no text form listed";
    std::unique_ptr<pb::Message> from_text = NewMessage(s.type);
    ASSERT_NE(from_text, nullptr) << "message type not compiled in";
    std::unique_ptr<pb::Message> from_binary(from_text->New());
    std::unique_ptr<pb::Message> reparsed(from_text->New());

    std::string text, binary;
    ASSERT_TRUE(ReadFile(dir + "/" + s.text_path, &text));
    ASSERT_TRUE(ReadFile(dir + "/" + s.binary_path, &binary));
    ASSERT_FALSE(binary.empty());

    // Text format rejects unknown field names, so success means every field
    // XLA wrote is declared here under the same name.
    CollectingErrors errors;
    pb::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    EXPECT_TRUE(parser.ParseFromString(text, from_text.get())) << errors.text;
    EXPECT_EQ(errors.text, "");

    ASSERT_TRUE(from_binary->ParseFromString(binary));
    std::vector<std::string> unknown;
    CollectUnknownFields(*from_binary, s.type, &unknown);
    EXPECT_TRUE(unknown.empty()) << "unknown fields, first: " << unknown[0];

    std::string diff;
    pb::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differ.Compare(*from_text, *from_binary)) << diff;

    const std::string reencoded = from_binary->SerializeAsString();
    ASSERT_TRUE(reparsed->ParseFromString(reencoded));
    EXPECT_TRUE(pb::util::MessageDifferencer::Equals(*from_binary, *reparsed));
    if (!HasMultiEntryMap(*from_binary)) {
      // Same numbers and wire types => same bytes, in field-number order.
      EXPECT_EQ(reencoded, binary) << "re-encoding differs from the original";
      EXPECT_EQ(from_text->SerializeAsString(), binary);
    }
  }
}

// --- Field table from XLA's descriptors ------------------------------------

struct SpecField {
  int number = 0;
  std::string name;
  std::string type;  // as written, e.g. "repeated int64", "Kind [oneof]"
};

struct Spec {
  std::map<std::string, std::vector<SpecField>> messages;       // "ShapeProto"
  std::map<std::string, std::map<std::string, int>> enums;      // "Kind"
};

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

Spec LoadSpec(const std::string& path) {
  Spec spec;
  std::string content;
  if (!ReadFile(path, &content)) return spec;
  std::istringstream lines(content);
  std::string line, message;
  bool in_enums = false;
  const std::regex enum_line(R"(^- \*\*([A-Za-z0-9_.]+)\*\*: (.*)$)");
  while (std::getline(lines, line)) {
    if (line.rfind("# Enums", 0) == 0) {
      in_enums = true;
      message.clear();
      continue;
    }
    if (line.rfind("## ", 0) == 0) {
      message = Trim(line.substr(3));
      spec.messages[message];
      continue;
    }
    std::smatch m;
    if (in_enums && std::regex_match(line, m, enum_line)) {
      std::map<std::string, int>& values = spec.enums[m[1]];
      std::istringstream items(m[2].str());
      std::string item;
      while (std::getline(items, item, ',')) {
        item = Trim(item);
        const size_t eq = item.find('=');
        if (eq == std::string::npos) continue;
        values[item.substr(0, eq)] = std::stoi(item.substr(eq + 1));
      }
      continue;
    }
    if (message.empty() || line.empty() || line[0] != '|') continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    std::string cell;
    while (std::getline(row, cell, '|')) cells.push_back(Trim(cell));
    if (cells.size() < 3 || cells[0].empty() ||
        !std::isdigit(static_cast<unsigned char>(cells[0][0]))) {
      continue;  // header or separator row
    }
    spec.messages[message].push_back({std::stoi(cells[0]), cells[1], cells[2]});
  }
  return spec;
}

// Fields of XLA messages we deliberately do not declare, with the reason.
const std::map<std::string, std::string>& OmittedFields() {
  static const auto* omitted = new std::map<std::string, std::string>{
      {"HloModuleConfigProto.debug_options",
       "DebugOptions (backend tuning flags) is out of scope; the field is "
       "preserved as an unknown field"},
  };
  return *omitted;
}

const char* ScalarTypeName(const pb::FieldDescriptor* f) {
  switch (f->type()) {
    case pb::FieldDescriptor::TYPE_MESSAGE:
    case pb::FieldDescriptor::TYPE_ENUM:
    case pb::FieldDescriptor::TYPE_GROUP:
      return nullptr;
    default:
      return f->type_name();  // "int64", "bytes", ...
  }
}

// Checks `f` against a spec type string such as "repeated ShapeProto",
// "optional NamedShardingProto" or "int32 [oneof]".
void ExpectTypeMatches(const pb::FieldDescriptor* f, std::string type) {
  bool oneof = false, repeated = false, optional = false;
  const std::string oneof_tag = " [oneof]";
  if (type.size() > oneof_tag.size() &&
      type.compare(type.size() - oneof_tag.size(), oneof_tag.size(),
                   oneof_tag) == 0) {
    oneof = true;
    type.resize(type.size() - oneof_tag.size());
  }
  if (type.rfind("repeated ", 0) == 0) {
    repeated = true;
    type = type.substr(9);
  } else if (type.rfind("optional ", 0) == 0) {
    optional = true;
    type = type.substr(9);
  }
  EXPECT_EQ(f->is_repeated(), repeated) << "label";
  EXPECT_EQ(f->has_optional_keyword(), optional) << "proto3 optional";
  EXPECT_EQ(f->real_containing_oneof() != nullptr, oneof) << "oneof";
  if (const char* scalar = ScalarTypeName(f)) {
    EXPECT_EQ(scalar, type);
  } else if (f->message_type() != nullptr) {
    EXPECT_EQ(f->message_type()->full_name(), "xla." + type);
  } else {
    EXPECT_EQ(f->enum_type()->full_name(), "xla." + type);
  }
}

TEST(ProtoConformanceTest, EveryXlaFieldHasTheSameNumberAndType) {
  const std::string path = SharedDir() + "/spec/xla_proto_fields.md";
  const Spec spec = LoadSpec(path);
  ASSERT_GE(spec.messages.size(), 50u) << "could not read " << path;
  const pb::DescriptorPool* pool = pb::DescriptorPool::generated_pool();

  int checked = 0;
  std::set<std::string> omitted_seen;
  for (const auto& [message, fields] : spec.messages) {
    SCOPED_TRACE(message);
    const pb::Descriptor* d = pool->FindMessageTypeByName("xla." + message);
    ASSERT_NE(d, nullptr) << "message xla." << message << " is missing";
    std::set<std::string> listed;
    for (const SpecField& sf : fields) {
      SCOPED_TRACE(sf.name);
      const std::string key = message + "." + sf.name;
      listed.insert(sf.name);
      const pb::FieldDescriptor* f = d->FindFieldByName(sf.name);
      if (OmittedFields().count(key)) {
        EXPECT_EQ(f, nullptr) << "declared now: drop it from OmittedFields()";
        EXPECT_EQ(d->FindFieldByNumber(sf.number), nullptr)
            << "number " << sf.number << " reused";
        omitted_seen.insert(key);
        continue;
      }
      ASSERT_NE(f, nullptr) << "field missing";
      EXPECT_EQ(f->number(), sf.number);
      ExpectTypeMatches(f, sf.type);
      ++checked;
    }
    // Nothing extra: a field XLA does not have would be an incompatibility
    // waiting for its number to be assigned upstream.
    for (int i = 0; i < d->field_count(); ++i) {
      EXPECT_TRUE(listed.count(d->field(i)->name()))
          << "declared but not in XLA: " << d->field(i)->full_name();
    }
  }
  EXPECT_GT(checked, 300);
  for (const auto& [key, reason] : OmittedFields()) {
    EXPECT_TRUE(omitted_seen.count(key)) << key << " is not in the spec";
  }

  ASSERT_GE(spec.enums.size(), 14u);
  for (const auto& [name, values] : spec.enums) {
    SCOPED_TRACE(name);
    const pb::EnumDescriptor* e = pool->FindEnumTypeByName("xla." + name);
    ASSERT_NE(e, nullptr) << "enum xla." << name << " is missing";
    for (const auto& [value, number] : values) {
      const pb::EnumValueDescriptor* v = e->FindValueByName(value);
      ASSERT_NE(v, nullptr) << value << " missing";
      EXPECT_EQ(v->number(), number) << value;
    }
    EXPECT_EQ(e->value_count(), static_cast<int>(values.size()))
        << "value count differs from XLA";
  }
}

// A few numbers pinned here as well, so a damaged spec file cannot hide a typo.
TEST(ProtoConformanceTest, PinnedFieldNumbers) {
  struct Pin {
    const pb::Descriptor* message;
    const char* field;
    int number;
  };
  const Pin pins[] = {
      {HloInstructionProto::descriptor(), "opcode", 2},
      {HloInstructionProto::descriptor(), "operand_ids", 36},
      {HloInstructionProto::descriptor(), "cross_program_prefetch_index", 80},
      {HloInstructionProto::descriptor(), "result_accuracy", 91},
      {LiteralProto::descriptor(), "f8e8m0fnus", 33},
      {LiteralProto::descriptor(), "bf16s", 13},
      {ShapeProto::descriptor(), "is_dynamic_dimension", 6},
      {LayoutProto::descriptor(), "tail_padding_alignment_in_elements", 16},
      {HloModuleProto::descriptor(), "original_value_recovery_table", 20},
      {HloModuleConfigProto::descriptor(), "schedule_config", 41},
      {RunHloModuleIterationLiterals::descriptor(), "arguments", 2},
  };
  for (const Pin& pin : pins) {
    const pb::FieldDescriptor* f = pin.message->FindFieldByName(pin.field);
    ASSERT_NE(f, nullptr) << pin.message->name() << "." << pin.field;
    EXPECT_EQ(f->number(), pin.number) << f->full_name();
  }
  EXPECT_EQ(PrimitiveType_Name(F8E8M0FNU), "F8E8M0FNU");
  EXPECT_EQ(static_cast<int>(F8E8M0FNU), 33);
  EXPECT_EQ(static_cast<int>(BUFFER), 34);
  EXPECT_EQ(static_cast<int>(OpSharding::UNREDUCED), 6);
}

// debug_options (field 14) is not declared; a config from XLA carrying it
// must still survive a parse/serialize round trip byte for byte.
TEST(ProtoConformanceTest, UndeclaredDebugOptionsArePreserved) {
  HloModuleConfigProto config;
  config.set_replica_count(2);
  std::string bytes = config.SerializeAsString();
  // Tag 0x72 = field 14, length-delimited; a 2-byte payload (field 1 =
  // varint 5) stands in for a DebugOptions message.
  const std::string debug_options("\x72\x02\x08\x05", 4);
  bytes += debug_options;

  HloModuleConfigProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.replica_count(), 2);
  const pb::UnknownFieldSet& unknown =
      parsed.GetReflection()->GetUnknownFields(parsed);
  ASSERT_EQ(unknown.field_count(), 1);
  EXPECT_EQ(unknown.field(0).number(), 14);
  EXPECT_EQ(parsed.SerializeAsString(), bytes);
}

}  // namespace
}  // namespace xla
