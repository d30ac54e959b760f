#ifndef XLA_HLO_HLO_PROTO_CONVERT_H_
#define XLA_HLO_HLO_PROTO_CONVERT_H_

// Conversion between XLA's HloModuleProto (and its wrappers) and the in-memory IR.
//
// Decoding treats the proto as hostile: every reference (operand, control predecessor,
// called computation, root, entry, schedule, aliasing) is checked, ids must be unique,
// instruction graphs and the computation call graph must be acyclic, shapes and literals
// are validated, and every failure is InvalidArgument naming the computation and
// instruction. A constant must carry a literal of its shape (XLA tolerates none; nothing
// here could evaluate that); only constant and custom-call may carry one. Proto order is not assumed topological: an operand may appear after its
// user; the IR keeps the proto's instruction and computation order.
//
// Mapping (HloInstructionProto -> HloInstruction): name, opcode (text name), shape, id,
// operand_ids, control_predecessor_ids, called_computation_ids and literal become IR
// structure; every other field is kept verbatim in attrs(). Computation: name, id, root_id,
// is_fusion_computation, execution_thread ("" in the proto means "main", as in XLA);
// program_shape is recomputed on encode. Module: name, id, entry, input_output_alias,
// buffer_donor, frontend_attributes, schedule (is_scheduled), spmd_output_sharding,
// spmd_parameters_shardings; every other HloModuleProto field rides in
// HloModule::extra_proto_fields(). host_program_shape is recomputed on encode (see below).
//
// Entry computation layout: unless the caller's config has one, the module's config gets
// host_program_shape as written (XLA's CreateModuleConfigFromProto copies its layouts) or,
// without one, the entry's program shape with default layouts where missing (as the text
// parser does); parameter names are dropped. Either must have as many parameters as the
// entry computation, else InvalidArgument; whether its shapes fit the entry is checked by
// the verifier, as for parsed text (the module is not verified here).

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "proto/hlo.pb.h"
#include "proto/xla.pb.h"

namespace xla {

// Serialized inputs larger than this are rejected (RESOURCE_EXHAUSTED) before parsing.
inline constexpr size_t kMaxSerializedHloModuleProtoBytes = size_t{1} << 30;  // 1 GiB

absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProto(const HloModuleProto& proto,
                                                              const HloModuleConfig& config = {});

// The module's config comes from `proto.config()` (fields it leaves unset keep the
// defaults of HloModuleConfig) when present, else as HloModuleFromProto.
absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProtoWithConfig(
    const HloModuleProtoWithConfig& proto);

// host_program_shape is config().entry_computation_layout when set, else the entry
// computation's program shape. Computations are written callees before callers.
HloModuleProto HloModuleToProto(const HloModule& module);
HloModuleProtoWithConfig HloModuleToProtoWithConfig(const HloModule& module);

// HloModuleConfig <-> HloModuleConfigProto (only the fields HloModuleConfig has).
// replica_count / num_partitions of 0 mean "unset" (1); negative values are InvalidArgument.
absl::StatusOr<HloModuleConfig> HloModuleConfigFromProto(const HloModuleConfigProto& proto,
                                                         const HloModuleConfig& base = {});
HloModuleConfigProto HloModuleConfigToProto(const HloModuleConfig& config);

// Decodes binary bytes holding an HloModuleProto or an HloProto. Their wire forms overlap
// (field 1 is the length-delimited `name` string of HloModuleProto and the `hlo_module`
// message of HloProto), so both readings are tried:
//   1. bytes that parse as HloModuleProto with at least one computation are that;
//   2. otherwise bytes whose field 1 parses as an HloModuleProto with computations are an
//      HloProto (other fields ignored, so HloUnoptimizedSnapshot and
//      HloModuleProtoWithConfig bytes decode too, without their extra parts);
//   3. if both readings have computations and the first fails to convert while the second
//      converts, the second wins.
// A real HloProto practically never reads as a module with computations: its field 1 holds
// binary message bytes, which a proto3 `string` rejects as invalid UTF-8.
absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromSerializedProto(
    std::string_view bytes, const HloModuleConfig& config = {});

}  // namespace xla

#endif  // XLA_HLO_HLO_PROTO_CONVERT_H_
