#ifndef XLA_HLO_HLO_OPCODE_H_
#define XLA_HLO_HLO_OPCODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "hlo/hlo_opcode.def"

namespace xla {

inline constexpr int kVariadic = -1;

enum class HloOpcodeCategory {
  kElementwiseUnary,
  kElementwiseBinary,
  kElementwiseTernary,
  kOther,
};

enum class HloOpcode : uint8_t {
#define XLA_DECLARE_OPCODE_ENUM(enum_name, text_name, arity, category) enum_name,
  HLO_OPCODE_LIST(XLA_DECLARE_OPCODE_ENUM)
#undef XLA_DECLARE_OPCODE_ENUM
};

inline constexpr int kHloOpcodeCount = 0
#define XLA_COUNT_OPCODE(enum_name, text_name, arity, category) +1
    HLO_OPCODE_LIST(XLA_COUNT_OPCODE)
#undef XLA_COUNT_OPCODE
    ;

// Text name as in HLO text ("add", "get-tuple-element").
std::string_view HloOpcodeString(HloOpcode opcode);
// Inverse of HloOpcodeString; nullopt for unknown names.
std::optional<HloOpcode> StringToHloOpcode(std::string_view name);
// Fixed operand count, or kVariadic.
int HloOpcodeArity(HloOpcode opcode);
HloOpcodeCategory HloOpcodeCategoryOf(HloOpcode opcode);

inline bool HloOpcodeIsElementwiseUnary(HloOpcode op) {
  return HloOpcodeCategoryOf(op) == HloOpcodeCategory::kElementwiseUnary;
}
inline bool HloOpcodeIsElementwiseBinary(HloOpcode op) {
  return HloOpcodeCategoryOf(op) == HloOpcodeCategory::kElementwiseBinary;
}
// Ops whose text form has -start/-done async pairs of a collective.
bool HloOpcodeIsAsync(HloOpcode opcode);

}  // namespace xla

#endif  // XLA_HLO_HLO_OPCODE_H_
