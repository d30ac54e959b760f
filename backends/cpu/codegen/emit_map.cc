// map (a scalar computation applied elementwise) and the device ids of the single cpu
// device (replica-id and partition-id are 0, as on the interpreter's one device).
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"

namespace xla {
namespace cpu {

absl::StatusOr<Generator> ElementalEmitter::MakeMapGenerator(const HloInstruction* hlo,
                                                             const OperandGenerator& operand) {
  if (hlo->to_apply() == nullptr) return absl::InvalidArgumentError(absl::StrCat("map ", hlo->name(), ": no computation"));
  std::vector<Generator> inputs;
  std::vector<bool> scalar;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    ASSIGN_OR_RETURN(Generator g, operand(i));
    inputs.push_back(std::move(g));
    scalar.push_back(hlo->operand(i)->shape().rank() == 0);
  }
  const HloComputation* computation = hlo->to_apply();
  return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSIGN_OR_RETURN(llvm::Value* v, inputs[i](scalar[i] ? IrIndex{} : index));
      args.push_back(v);
    }
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> result, EmitScalarComputation(*computation, args));
    if (result.size() != 1) return absl::InvalidArgumentError(absl::StrCat("map ", hlo->name(), ": needs a scalar result"));
    return result[0];
  });
}

absl::StatusOr<Generator> ElementalEmitter::MakeDeviceIdGenerator(const HloInstruction* hlo) {
  llvm::Type* type = RegisterType(hlo->shape().element_type());
  if (type == nullptr || !type->isIntegerTy()) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": device ids are integers"));
  }
  return Generator([type](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return llvm::ConstantInt::get(type, 0); });
}

}  // namespace cpu
}  // namespace xla
