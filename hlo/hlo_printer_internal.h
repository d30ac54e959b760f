#ifndef XLA_HLO_HLO_PRINTER_INTERNAL_H_
#define XLA_HLO_HLO_PRINTER_INTERNAL_H_

// Pieces shared by the hlo_printer*.cc files. Not part of the public API.

#include <string>
#include <string_view>
#include <vector>

#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_printer.h"
#include "hlo/shape.h"

namespace xla {
namespace printer_internal {

// `%name` / `name` as the options ask.
std::string PrintedName(std::string_view name, const HloPrintOptions& options);
std::string ShapeText(const Shape& shape, const HloPrintOptions& options);

// The attributes after `opcode(operands)`, each as "key=value", in XLA's order:
// per-opcode attributes, called computations, sharding, frontend_attributes,
// control-predecessors, statistics, result_accuracy (XLA's PrintExtraAttributes).
void AppendExtraAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                           std::vector<std::string>* attrs);
// Only the per-opcode part (XLA's PrintExtraAttributesImpl).
void AppendOpcodeAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                            std::vector<std::string>* attrs);

// Async wrappers (async-start/update/done): the start of the chain, the wrapped
// computation, and whether the syntax sugar `op-start(...)` applies.
const HloInstruction* AsyncChainStart(const HloInstruction& instruction);
const HloComputation* AsyncWrappedComputation(const HloInstruction& instruction);
bool CanExpandIntoSingleInstruction(const HloComputation& computation);
bool IsAsyncOpcode(HloOpcode opcode);
bool UsesAsyncSugar(const HloInstruction& instruction, const HloPrintOptions& options);

// Attribute value texts.
std::string ReplicaGroupsText(const HloInstructionProto& attrs);
std::string OriginalValueText(const OriginalValueProto& value, const Shape& shape);
std::string StatisticsVizText(const StatisticsViz& statistics);
std::string ResultAccuracyText(const ResultAccuracy& accuracy);  // "" for the default
std::string OutputOperandAliasingText(
    const google::protobuf::RepeatedPtrField<OutputOperandAliasing>& aliasing);
std::string PrecisionName(int precision);  // "high"
std::string AlgorithmName(int algorithm);  // "dot_tf32_tf32_f32"
std::string LowercaseEnumName(std::string_view name);
std::string CEscapeText(std::string_view text);
std::string ShapeIndexText(const google::protobuf::RepeatedField<int64_t>& index);  // "{0,1}"

}  // namespace printer_internal
}  // namespace xla

#endif  // XLA_HLO_HLO_PRINTER_INTERNAL_H_
