#include "hlo/comparison_util.h"

#include "hlo/primitive_util.h"

namespace xla {

std::string ComparisonDirectionToString(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return "EQ";
    case ComparisonDirection::kNe: return "NE";
    case ComparisonDirection::kGe: return "GE";
    case ComparisonDirection::kGt: return "GT";
    case ComparisonDirection::kLe: return "LE";
    case ComparisonDirection::kLt: return "LT";
  }
  return "EQ";
}

std::string ComparisonTypeToString(ComparisonType type) {
  switch (type) {
    case ComparisonType::kFloat: return "FLOAT";
    case ComparisonType::kFloatTotalOrder: return "TOTALORDER";
    case ComparisonType::kSigned: return "SIGNED";
    case ComparisonType::kUnsigned: return "UNSIGNED";
  }
  return "FLOAT";
}

std::optional<ComparisonDirection> StringToComparisonDirection(const std::string& name) {
  for (ComparisonDirection d : {ComparisonDirection::kEq, ComparisonDirection::kNe,
                                ComparisonDirection::kGe, ComparisonDirection::kGt,
                                ComparisonDirection::kLe, ComparisonDirection::kLt}) {
    if (ComparisonDirectionToString(d) == name) return d;
  }
  return std::nullopt;
}

std::optional<ComparisonType> StringToComparisonType(const std::string& name) {
  for (ComparisonType t : {ComparisonType::kFloat, ComparisonType::kFloatTotalOrder,
                           ComparisonType::kSigned, ComparisonType::kUnsigned}) {
    if (ComparisonTypeToString(t) == name) return t;
  }
  return std::nullopt;
}

ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type)) {
    return ComparisonType::kFloat;
  }
  if (primitive_util::IsSignedIntegralType(type)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

}  // namespace xla
