#ifndef XLA_HLO_HLO_MODULE_H_
#define XLA_HLO_HLO_MODULE_H_

// An HLO module: owned computations (embedded ones first, in definition order, as parsed
// or added), one entry computation, the module config and module-level attributes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"
#include "proto/xla_data.pb.h"

namespace xla {

// Execution-independent settings that travel with a module (HloModuleConfigProto subset).
struct HloModuleConfig {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // entry_computation_layout={...}; unset means "default layouts".
  std::optional<ProgramShape> entry_computation_layout;
  bool alias_passthrough_params = false;
  bool use_spmd_partitioning = false;
  bool use_auto_spmd_partitioning = false;
  std::vector<bool> allow_spmd_sharding_propagation_to_output = {false};
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters = {false};
  int64_t seed = 0;
};

class HloModule {
 public:
  explicit HloModule(std::string name, HloModuleConfig config = {})
      : name_(std::move(name)), config_(std::move(config)) {}
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;
  ~HloModule();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  const HloModuleConfig& config() const { return config_; }
  HloModuleConfig* mutable_config() { return &config_; }

  // Takes ownership. Assigns unique ids to the computation and to its instructions that
  // have none (id -1), so ids stay unique across the module.
  HloComputation* AddEmbeddedComputation(std::unique_ptr<HloComputation> computation);
  HloComputation* AddEntryComputation(std::unique_ptr<HloComputation> computation);
  void set_entry_computation(HloComputation* entry) { entry_ = entry; }
  HloComputation* entry_computation() const { return entry_; }

  // Removes (and destroys) a computation that is not the entry. Callers make sure nothing
  // calls it any more.
  absl::Status RemoveComputation(HloComputation* computation);
  // A computation name not used in this module: `base` itself when free, else "base.N".
  std::string UniqueComputationName(const std::string& base) const;
  // Copies `computation` (of any module) into this one as an embedded computation named
  // `name` (made unique); computations it calls stay shared (they must belong to this module).
  HloComputation* CloneComputation(const HloComputation& computation, const std::string& name);

  const std::vector<std::unique_ptr<HloComputation>>& computations() const { return computations_; }
  int64_t computation_count() const { return static_cast<int64_t>(computations_.size()); }
  HloComputation* GetComputationWithName(const std::string& name) const;
  // Callees before callers; entry last. Computations not reachable from entry are kept,
  // in definition order, before it.
  std::vector<HloComputation*> MakeComputationPostOrder() const;

  // Fresh id for a new instruction or computation (greater than every id seen so far).
  int64_t NewUniqueId() { return next_unique_id_++; }
  // Makes NewUniqueId() return values above `id`.
  void NoteUniqueId(int64_t id) {
    if (id >= next_unique_id_) next_unique_id_ = id + 1;
  }

  // --- module-level attributes (XLA's proto forms) ---
  HloInputOutputAliasProto& input_output_alias() { return input_output_alias_; }
  const HloInputOutputAliasProto& input_output_alias() const { return input_output_alias_; }
  HloBufferDonorProto& buffer_donor() { return buffer_donor_; }
  const HloBufferDonorProto& buffer_donor() const { return buffer_donor_; }
  FrontendAttributes& frontend_attributes() { return frontend_attributes_; }
  const FrontendAttributes& frontend_attributes() const { return frontend_attributes_; }
  bool is_scheduled() const { return is_scheduled_; }
  void set_is_scheduled(bool v) { is_scheduled_ = v; }
  // Only meaningful when is_scheduled(): instruction ids per computation id.
  HloScheduleProto& schedule() { return schedule_; }
  const HloScheduleProto& schedule() const { return schedule_; }
  std::optional<OpSharding>& spmd_output_sharding() { return spmd_output_sharding_; }
  const std::optional<OpSharding>& spmd_output_sharding() const { return spmd_output_sharding_; }
  std::vector<OpSharding>& spmd_parameters_shardings() { return spmd_parameters_shardings_; }
  const std::vector<OpSharding>& spmd_parameters_shardings() const { return spmd_parameters_shardings_; }
  // Everything else in HloModuleProto that has no first-class home here
  // (cross_program_prefetches, stack_frame_index, original_value_recovery_table,
  // device_assignment, profile_info, ...): kept verbatim for lossless proto round trips.
  HloModuleProto& extra_proto_fields() { return extra_; }
  const HloModuleProto& extra_proto_fields() const { return extra_; }

  // Structural equality: config, attributes, computations and instructions matched by
  // name (listing order is ignored), operands and called computations by position,
  // attributes, literals and shapes (with layouts) exactly.
  bool Equal(const HloModule& other, std::string* difference = nullptr) const;

 private:
  std::string name_;
  int64_t unique_id_ = 0;
  HloModuleConfig config_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  int64_t next_unique_id_ = 0;
  HloInputOutputAliasProto input_output_alias_;
  HloBufferDonorProto buffer_donor_;
  FrontendAttributes frontend_attributes_;
  bool is_scheduled_ = false;
  HloScheduleProto schedule_;
  std::optional<OpSharding> spmd_output_sharding_;
  std::vector<OpSharding> spmd_parameters_shardings_;
  HloModuleProto extra_;
};

}  // namespace xla

#endif  // XLA_HLO_HLO_MODULE_H_
