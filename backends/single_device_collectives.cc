#include "backends/single_device_collectives.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"

namespace xla {
namespace backend {
namespace {

std::string In(const std::string& context, const std::string& message) {
  return context.empty() ? message : absl::StrCat(context, ": ", message);
}

}  // namespace

absl::Status NeedsDevices(int64_t devices, const std::string& why, const std::string& backend) {
  return absl::InvalidArgumentError(absl::StrCat(why, ": the module needs ", devices, " devices; the ", backend,
                                                 " has one"));
}

absl::Status CheckSingleParticipant(const HloInstruction& hlo, const std::string& context, const std::string& backend) {
  const HloInstructionProto& attrs = hlo.attrs();
  if (attrs.has_collective_device_list() && attrs.collective_device_list().has_iota_replica_group_list()) {
    const IotaReplicaGroupListProto& iota = attrs.collective_device_list().iota_replica_group_list();
    const int64_t groups = iota.num_replica_groups(), per_group = iota.num_devices_per_group();
    if (groups < 0 || per_group < 0 || (per_group > 0 && groups > (int64_t{1} << 40) / per_group)) {
      return absl::InvalidArgumentError(In(context, "invalid iota replica groups"));
    }
    if (groups * per_group > 1) {
      return NeedsDevices(groups * per_group, In(context, absl::StrCat("replica_groups=[", groups, ",", per_group, "]")),
                          backend);
    }
    return absl::OkStatus();
  }
  int64_t max_id = 0;
  for (const auto& group : shape_inference_internal::ReplicaGroupsOf(attrs)) {
    for (int64_t id : group) {
      if (id < 0) return absl::InvalidArgumentError(In(context, absl::StrCat("negative device id ", id)));
      max_id = std::max(max_id, id);
    }
  }
  if (max_id > 0) {
    return NeedsDevices(max_id + 1, In(context, absl::StrCat("replica groups name device ", max_id)), backend);
  }
  return absl::OkStatus();
}

bool IsTupleOfOperands(const Shape& result, absl::Span<const Shape* const> operands) {
  return result.IsTuple() && !(operands.size() == 1 && operands[0]->IsTuple());
}

absl::Status CheckSameShapes(const Shape& result, absl::Span<const Shape* const> operands,
                             const std::string& context, const std::string& backend) {
  const bool per_operand = IsTupleOfOperands(result, operands);
  if (per_operand && result.tuple_shapes_size() != static_cast<int64_t>(operands.size())) {
    return absl::InvalidArgumentError(In(context, absl::StrCat("the result ", result.ToString(), " has ",
                                                               result.tuple_shapes_size(), " elements for ",
                                                               operands.size(), " operands")));
  }
  for (size_t i = 0; i < (per_operand ? operands.size() : 1); ++i) {
    const Shape& want = per_operand ? result.tuple_shapes(static_cast<int>(i)) : result;
    const Shape& have = *operands[i];
    if (ShapeUtil::Compatible(want, have)) continue;
    if (want.IsArray() && have.IsArray() && want.rank() == have.rank()) {
      for (int64_t d = 0; d < want.rank(); ++d) {
        const int64_t big = std::max(want.dimensions(d), have.dimensions(d));
        const int64_t small = std::min(want.dimensions(d), have.dimensions(d));
        if (big != small && small > 0 && big % small == 0) {
          return NeedsDevices(big / small,
                              In(context, absl::StrCat("operand ", have.ToString(), " and result ", want.ToString())),
                              backend);
        }
      }
    }
    return absl::InvalidArgumentError(
        In(context, absl::StrCat("operand ", i, " ", have.ToString(), " does not match the result ", want.ToString())));
  }
  return absl::OkStatus();
}

}  // namespace backend
}  // namespace xla
