#ifndef XLA_HLO_HLO_PARSER_INTERNAL_H_
#define XLA_HLO_HLO_PARSER_INTERNAL_H_

// The HLO text parser's internals, shared by hlo_parser*.cc. Not a public API.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_lexer.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace hlo_parser_internal {

inline constexpr int kMaxNestingDepth = 500;
// Largest constant (in elements) we allocate for; bigger text would be gigabytes anyway.
inline constexpr int64_t kMaxConstantElements = int64_t{1} << 28;

// Attributes collected for one instruction before it is built, with the computations
// they name (assembled into XLA's called-computation order afterwards).
struct PendingAttrs {
  HloInstructionProto proto;
  std::optional<Literal> literal;  // custom-call literal=
  HloComputation* to_apply = nullptr;
  std::vector<HloComputation*> calls;
  HloComputation* condition = nullptr;
  HloComputation* body = nullptr;
  HloComputation* true_computation = nullptr;
  HloComputation* false_computation = nullptr;
  HloComputation* select = nullptr;
  HloComputation* scatter = nullptr;
  std::vector<HloComputation*> branches;
  std::vector<HloComputation*> called_computations;
  bool has_calls = false, has_branches = false, has_called_computations = false;
  std::vector<HloInstruction*> control_predecessors;
  absl::flat_hash_set<std::string> seen;  // attribute names, to reject repeats
};

class Parser {
 public:
  Parser(absl::string_view text, const HloModuleConfig& config, const HloParserOptions& options)
      : lex_(text), config_(config), options_(options), text_bytes_(static_cast<int64_t>(text.size())) {}

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseShapeOnly();
  absl::StatusOr<Layout> ParseLayoutOnly();

  // --- errors and tokens (hlo_parser.cc) ---
  absl::Status ErrorAt(int64_t pos, absl::string_view msg);
  absl::Status ErrorAtPeek(absl::string_view msg) { return ErrorAt(lex_.Peek().pos, msg); }
  // "expected X in CONTEXT, got Y".
  absl::Status Expected(absl::string_view what, absl::string_view context);
  absl::Status Expect(TokKind kind, absl::string_view context);
  bool TryConsume(TokKind kind);
  absl::StatusOr<std::string> ExpectIdent(absl::string_view context);
  absl::StatusOr<std::string> ExpectString(absl::string_view context);
  absl::StatusOr<int64_t> ExpectInt(absl::string_view context);
  absl::StatusOr<double> ExpectDouble(absl::string_view context);
  absl::StatusOr<bool> ExpectBool(absl::string_view context);
  // {1,2,3} (possibly empty) or a bare integer when allow_bare.
  absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view context,
                                                   TokKind open = TokKind::kLbrace,
                                                   TokKind close = TokKind::kRbrace);
  absl::Status EnterNesting();
  void ExitNesting() { --depth_; }

  // --- shapes, layouts, literals (hlo_parser_shape.cc) ---
  bool PeekIsShapeStart();
  absl::StatusOr<Shape> ParseShapeRec();
  absl::StatusOr<Layout> ParseLayoutBody();  // after '{', up to and including '}'
  absl::StatusOr<Literal> ParseConstantLiteral(const Shape& shape);
  // literal= form: "s32[2] {1, 2}", "f32[] 0.1", "( s32[] 1, f32[] 2 )".
  absl::StatusOr<Literal> ParseShapedLiteral();
  absl::Status ParseArrayLiteralInto(const Shape& shape, Literal* literal, bool tuple_elem);
  absl::Status ParseScalarInto(PrimitiveType type, Literal* literal, int64_t index);

  // --- attributes (hlo_parser_attrs.cc) ---
  absl::Status ParseAttribute(const std::string& name, int64_t name_pos, HloOpcode opcode,
                              PendingAttrs* attrs);
  absl::StatusOr<Window> ParseWindow();
  absl::StatusOr<ConvolutionDimensionNumbers> ParseDimLabels();
  absl::StatusOr<std::vector<HloInstructionProto::SliceDimensions>> ParseSliceRanges();
  absl::StatusOr<PaddingConfig> ParsePaddingConfig();
  absl::StatusOr<OpMetadata> ParseMetadata();
  absl::StatusOr<FrontendAttributes> ParseFrontendAttributes();
  absl::StatusOr<HloComputation*> ParseComputationRef();
  absl::StatusOr<std::vector<HloComputation*>> ParseComputationList();
  absl::StatusOr<ShapeIndex> ParseShapeIndex();

  // --- sharding, collectives, original values (hlo_parser_sharding.cc) ---
  absl::StatusOr<OpSharding> ParseSharding();
  absl::Status ParseReplicaGroups(HloInstructionProto* proto);
  absl::StatusOr<std::vector<std::vector<int64_t>>> ParseListOfIntLists(absl::string_view context);
  absl::StatusOr<OriginalValueProto> ParseOriginalValue();
  absl::StatusOr<StatisticsViz> ParseStatistics();
  absl::StatusOr<ResultAccuracy> ParseResultAccuracy();
  absl::Status ParseDomain(HloInstructionProto* proto);
  absl::Status ParseModuleAttribute(const std::string& name, HloModule* module);

  // --- computations and instructions (hlo_parser.cc) ---
  absl::Status ParseComputation(HloModule* module, bool* is_entry);
  absl::StatusOr<HloInstruction*> ParseInstruction(HloComputation* comp, bool* is_root);
  // The part after "name =": shape, opcode, operands, attributes. `name` empty = anonymous.
  absl::StatusOr<HloInstruction*> ParseInstructionRhs(HloComputation* comp, std::string name,
                                                     int64_t name_pos);
  absl::StatusOr<std::vector<HloInstruction*>> ParseOperands(HloComputation* comp);
  std::string UniqueName(std::string base);
  HloInstruction* FindInstruction(const std::string& name);
  absl::StatusOr<HloComputation*> MakeAsyncWrapped(HloComputation* comp, HloOpcode wrapped_op,
                                                   const std::string& start_name,
                                                   const std::optional<Shape>& start_shape,
                                                   const std::vector<HloInstruction*>& operands,
                                                   PendingAttrs* attrs, int64_t pos);
  absl::Status FinishComputation(HloComputation* comp, int64_t pos);

  HloLexer lex_;
  HloModuleConfig config_;
  HloParserOptions options_;
  // The text's length: a parameter number at or past it cannot be valid (the computation
  // would need that many parameters, each some bytes of this text).
  int64_t text_bytes_ = 0;
  int depth_ = 0;
  HloModule* module_ = nullptr;
  // Per computation being parsed.
  absl::flat_hash_map<std::string, HloInstruction*> instructions_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<std::string, HloComputation*> computations_;
  absl::flat_hash_set<std::string> used_computation_names_;
  // The named instruction whose operands are being parsed (for error messages).
  std::string current_name_;
  int64_t current_pos_ = 0;
};

}  // namespace hlo_parser_internal
}  // namespace xla

#endif  // XLA_HLO_HLO_PARSER_INTERNAL_H_
