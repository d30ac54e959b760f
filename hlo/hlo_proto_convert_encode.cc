// IR -> HloModuleProto, HloModuleConfig <-> HloModuleConfigProto, and decoding of
// serialized bytes (HloModuleProto or HloProto).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_opcode.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_attribute_defaults.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

// Ids for the proto. The IR assigns ids when computations join a module; anything still at
// -1 (built by hand, added later) gets a fresh id above every id in use.
class IdAssigner {
 public:
  explicit IdAssigner(const HloModule& module) {
    for (const auto& comp : module.computations()) {
      next_ = std::max(next_, comp->unique_id() + 1);
      for (const auto& instr : comp->instructions()) next_ = std::max(next_, instr->unique_id() + 1);
    }
  }
  int64_t Of(const HloComputation* c) { return Get(c, c->unique_id()); }
  int64_t Of(const HloInstruction* i) { return Get(i, i->unique_id()); }

 private:
  int64_t Get(const void* key, int64_t id) {
    if (id >= 0) return id;
    auto [it, inserted] = fresh_.emplace(key, next_);
    if (inserted) ++next_;
    return it->second;
  }
  int64_t next_ = 0;
  absl::flat_hash_map<const void*, int64_t> fresh_;
};

HloInstructionProto InstructionToProto(const HloInstruction& instr, IdAssigner& ids) {
  HloInstructionProto proto = instr.attrs();
  FillDefaultAttributes(instr, &proto);
  proto.set_name(instr.name());
  proto.set_opcode(std::string(HloOpcodeString(instr.opcode())));
  *proto.mutable_shape() = instr.shape().ToProto();
  proto.set_id(ids.Of(&instr));
  for (const HloInstruction* operand : instr.operands()) proto.add_operand_ids(ids.Of(operand));
  for (const HloInstruction* pred : instr.control_predecessors()) {
    proto.add_control_predecessor_ids(ids.Of(pred));
  }
  for (const HloComputation* callee : instr.called_computations()) {
    proto.add_called_computation_ids(ids.Of(callee));
  }
  if (instr.has_literal()) *proto.mutable_literal() = instr.literal().ToProto();
  return proto;
}

HloComputationProto ComputationToProto(const HloComputation& comp, IdAssigner& ids) {
  HloComputationProto proto;
  proto.set_name(comp.name());
  for (const auto& instr : comp.instructions()) {
    *proto.add_instructions() = InstructionToProto(*instr, ids);
  }
  *proto.mutable_program_shape() = comp.ComputeProgramShape().ToProto();
  proto.set_id(ids.Of(&comp));
  if (comp.root_instruction() != nullptr) proto.set_root_id(ids.Of(comp.root_instruction()));
  proto.set_is_fusion_computation(comp.is_fusion_computation());
  // XLA writes the main thread as "".
  if (comp.execution_thread() != "main") proto.set_execution_thread(comp.execution_thread());
  return proto;
}

// Whether a wire reading produced a module worth converting.
bool HasComputations(const HloModuleProto& proto) { return proto.computations_size() > 0; }

}  // namespace

HloModuleProto HloModuleToProto(const HloModule& module) {
  HloModuleProto proto = module.extra_proto_fields();
  IdAssigner ids(module);
  proto.set_name(module.name());
  proto.set_id(module.unique_id());
  if (const HloComputation* entry = module.entry_computation(); entry != nullptr) {
    proto.set_entry_computation_name(entry->name());
    proto.set_entry_computation_id(ids.Of(entry));
    const ProgramShape host = module.config().entry_computation_layout.has_value()
                                  ? *module.config().entry_computation_layout
                                  : entry->ComputeProgramShape();
    *proto.mutable_host_program_shape() = host.ToProto();
  }
  for (const HloComputation* comp : module.MakeComputationPostOrder()) {
    *proto.add_computations() = ComputationToProto(*comp, ids);
  }
  *proto.mutable_input_output_alias() = module.input_output_alias();
  *proto.mutable_buffer_donor() = module.buffer_donor();
  *proto.mutable_frontend_attributes() = module.frontend_attributes();
  if (module.is_scheduled()) *proto.mutable_schedule() = module.schedule();
  if (module.spmd_output_sharding().has_value()) {
    *proto.mutable_spmd_output_sharding() = *module.spmd_output_sharding();
  }
  for (const OpSharding& s : module.spmd_parameters_shardings()) {
    *proto.add_spmd_parameters_shardings() = s;
  }
  return proto;
}

HloModuleProtoWithConfig HloModuleToProtoWithConfig(const HloModule& module) {
  HloModuleProtoWithConfig proto;
  *proto.mutable_hlo_module() = HloModuleToProto(module);
  *proto.mutable_config() = HloModuleConfigToProto(module.config());
  return proto;
}

absl::StatusOr<HloModuleConfig> HloModuleConfigFromProto(const HloModuleConfigProto& proto,
                                                         const HloModuleConfig& base) {
  HloModuleConfig config = base;
  if (proto.replica_count() < 0 || proto.num_partitions() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("HloModuleConfigProto: negative replica_count (", proto.replica_count(),
                     ") or num_partitions (", proto.num_partitions(), ")"));
  }
  if (proto.replica_count() > 0) config.replica_count = proto.replica_count();
  if (proto.num_partitions() > 0) config.num_partitions = proto.num_partitions();
  if (proto.has_entry_computation_layout()) {
    absl::StatusOr<ProgramShape> layout = ProgramShape::FromProto(proto.entry_computation_layout());
    if (!layout.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "HloModuleConfigProto: entry_computation_layout: ", layout.status().message()));
    }
    config.entry_computation_layout = *std::move(layout);
  }
  config.seed = static_cast<int64_t>(proto.seed());
  config.alias_passthrough_params = proto.alias_passthrough_params();
  config.use_spmd_partitioning = proto.use_spmd_partitioning();
  config.use_auto_spmd_partitioning = proto.use_auto_spmd_partitioning();
  if (proto.allow_spmd_sharding_propagation_to_output_size() > 0) {
    config.allow_spmd_sharding_propagation_to_output.assign(
        proto.allow_spmd_sharding_propagation_to_output().begin(),
        proto.allow_spmd_sharding_propagation_to_output().end());
  }
  if (proto.allow_spmd_sharding_propagation_to_parameters_size() > 0) {
    config.allow_spmd_sharding_propagation_to_parameters.assign(
        proto.allow_spmd_sharding_propagation_to_parameters().begin(),
        proto.allow_spmd_sharding_propagation_to_parameters().end());
  }
  return config;
}

HloModuleConfigProto HloModuleConfigToProto(const HloModuleConfig& config) {
  HloModuleConfigProto proto;
  proto.set_replica_count(config.replica_count);
  proto.set_num_partitions(config.num_partitions);
  if (config.entry_computation_layout.has_value()) {
    *proto.mutable_entry_computation_layout() = config.entry_computation_layout->ToProto();
  }
  proto.set_seed(static_cast<uint64_t>(config.seed));
  proto.set_alias_passthrough_params(config.alias_passthrough_params);
  proto.set_use_spmd_partitioning(config.use_spmd_partitioning);
  proto.set_use_auto_spmd_partitioning(config.use_auto_spmd_partitioning);
  for (bool b : config.allow_spmd_sharding_propagation_to_output) {
    proto.add_allow_spmd_sharding_propagation_to_output(b);
  }
  for (bool b : config.allow_spmd_sharding_propagation_to_parameters) {
    proto.add_allow_spmd_sharding_propagation_to_parameters(b);
  }
  return proto;
}

absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromSerializedProto(
    std::string_view bytes, const HloModuleConfig& config) {
  if (bytes.size() > kMaxSerializedHloModuleProtoBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("serialized HLO module is ", bytes.size(), " bytes; the limit is ",
                     kMaxSerializedHloModuleProtoBytes));
  }
  const int size = static_cast<int>(bytes.size());
  // Hostile bytes make protobuf log (invalid UTF-8 in strings); the status says it all.
  google::protobuf::LogSilencer silence_parse_errors;
  HloModuleProto as_module;
  const bool module_ok = as_module.ParseFromArray(bytes.data(), size) && HasComputations(as_module);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      absl::InvalidArgumentError("serialized bytes are neither an HloModuleProto nor an HloProto "
                                 "with at least one computation");
  if (module_ok) {
    module = HloModuleFromProto(as_module, config);
    if (module.ok()) return module;
  }
  // Only now the wrapper reading: the common case parses once.
  HloProto as_wrapper;
  if (as_wrapper.ParseFromArray(bytes.data(), size) && HasComputations(as_wrapper.hlo_module())) {
    absl::StatusOr<std::unique_ptr<HloModule>> wrapped =
        HloModuleFromProto(as_wrapper.hlo_module(), config);
    if (wrapped.ok() || !module_ok) return wrapped;
  }
  return module;  // the module reading's error when both had computations
}

}  // namespace xla
