#ifndef XLA_HLO_BUILDER_XLA_COMPUTATION_H_
#define XLA_HLO_BUILDER_XLA_COMPUTATION_H_

// The result of XlaBuilder::Build(): an HloModuleProto whose entry computation is the
// builder's computation and whose other computations are the ones it calls (reducers,
// loop bodies, branches...). As in XLA, the proto is the canonical form; ToModule()
// decodes it into the IR with full validation.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"

namespace xla {

class XlaComputation {
 public:
  XlaComputation() = default;
  explicit XlaComputation(HloModuleProto proto) : proto_(std::move(proto)) {}

  // True for a default-constructed computation (e.g. after a failed sub-build).
  bool IsNull() const { return proto_.computations_size() == 0; }
  const std::string& name() const { return proto_.name(); }

  const HloModuleProto& proto() const { return proto_; }
  HloModuleProto* mutable_proto() { return &proto_; }

  // Parameter shapes (with names) and result shape of the entry computation.
  absl::StatusOr<ProgramShape> GetProgramShape() const;

  // The module in IR form (validated like any proto from outside).
  absl::StatusOr<std::unique_ptr<HloModule>> ToModule() const;

  // Wraps an IR module (e.g. parsed from text) so it can be called from a builder.
  static XlaComputation FromModule(const HloModule& module);

 private:
  HloModuleProto proto_;
};

}  // namespace xla

#endif  // XLA_HLO_BUILDER_XLA_COMPUTATION_H_
