#ifndef XLA_HLO_COMPARISON_UTIL_H_
#define XLA_HLO_COMPARISON_UTIL_H_

// Comparison directions and types (XLA's Comparison::Direction / Comparison::Type), as
// stored in HloInstructionProto.comparison_direction / comparison_type ("EQ", "FLOAT").

#include <optional>
#include <string>

#include "proto/xla_data.pb.h"

namespace xla {

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType { kFloat, kFloatTotalOrder, kSigned, kUnsigned };

std::string ComparisonDirectionToString(ComparisonDirection direction);  // "EQ"
std::string ComparisonTypeToString(ComparisonType type);                 // "TOTALORDER"
std::optional<ComparisonDirection> StringToComparisonDirection(const std::string& name);
std::optional<ComparisonType> StringToComparisonType(const std::string& name);
// FLOAT for floating/complex, SIGNED for signed integers, UNSIGNED for unsigned and pred.
// The IR stores comparison_type only when it differs from this default.
ComparisonType DefaultComparisonType(PrimitiveType type);

}  // namespace xla

#endif  // XLA_HLO_COMPARISON_UTIL_H_
