#include "hlo/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"

namespace xla {
namespace {

struct OpcodeInfo {
  std::string_view name;
  int arity;
  HloOpcodeCategory category;
};

constexpr OpcodeInfo kOpcodeInfo[] = {
#define XLA_OPCODE_INFO(enum_name, text_name, arity, category) \
  {text_name, arity, HloOpcodeCategory::category},
    HLO_OPCODE_LIST(XLA_OPCODE_INFO)
#undef XLA_OPCODE_INFO
};

}  // namespace

std::string_view HloOpcodeString(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].name;
}

std::optional<HloOpcode> StringToHloOpcode(std::string_view name) {
  static const auto* const kByName = [] {
    auto* map = new absl::flat_hash_map<std::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      map->emplace(kOpcodeInfo[i].name, static_cast<HloOpcode>(i));
    }
    return map;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

int HloOpcodeArity(HloOpcode opcode) { return kOpcodeInfo[static_cast<int>(opcode)].arity; }

HloOpcodeCategory HloOpcodeCategoryOf(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].category;
}

bool HloOpcodeIsAsync(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

}  // namespace xla
