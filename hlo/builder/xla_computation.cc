#include "hlo/builder/xla_computation.h"

#include "hlo/hlo_proto_convert.h"

namespace xla {

absl::StatusOr<ProgramShape> XlaComputation::GetProgramShape() const {
  if (IsNull()) return absl::InvalidArgumentError("XlaComputation is empty");
  if (proto_.has_host_program_shape()) return ProgramShape::FromProto(proto_.host_program_shape());
  for (const HloComputationProto& c : proto_.computations()) {
    if (c.id() == proto_.entry_computation_id()) return ProgramShape::FromProto(c.program_shape());
  }
  return absl::InvalidArgumentError("XlaComputation has no entry computation");
}

absl::StatusOr<std::unique_ptr<HloModule>> XlaComputation::ToModule() const {
  if (IsNull()) return absl::InvalidArgumentError("XlaComputation is empty");
  return HloModuleFromProto(proto_);
}

XlaComputation XlaComputation::FromModule(const HloModule& module) {
  return XlaComputation(HloModuleToProto(module));
}

}  // namespace xla
