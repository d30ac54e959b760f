// Text forms of attribute values (sharding, metadata, windows, dimension numbers, replica
// groups, ...) exactly as XLA prints them.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_printer_internal.h"

namespace xla {
namespace printer_internal {

std::string LowercaseEnumName(std::string_view name) { return absl::AsciiStrToLower(std::string(name)); }

std::string CEscapeText(std::string_view text) { return absl::CEscape(std::string(text)); }

std::string ShapeIndexText(const google::protobuf::RepeatedField<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string PrecisionName(int precision) {
  return LowercaseEnumName(
      PrecisionConfig::Precision_Name(static_cast<PrecisionConfig::Precision>(precision)));
}

std::string AlgorithmName(int algorithm) {
  std::string name =
      PrecisionConfig::Algorithm_Name(static_cast<PrecisionConfig::Algorithm>(algorithm));
  // XLA prints the enum name without its "ALG_" prefix, lowercased.
  if (name.rfind("ALG_", 0) == 0) name = name.substr(4);
  return LowercaseEnumName(name);
}

namespace {

// "[3,10]<=[6,5]T(1,0)": an iota list of device ids, reshaped and transposed.
std::string IotaText(absl::Span<const int64_t> dims, absl::Span<const int64_t> reshape_dims,
                     absl::Span<const int64_t> perm) {
  std::string out = absl::StrCat("[", absl::StrJoin(dims, ","), "]<=[",
                                 absl::StrJoin(reshape_dims, ","), "]");
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  // XLA keeps iota lists canonical (dimensions merged), so a transpose is printed exactly
  // when there is more than one reshape dimension; a stored identity permutation of a
  // non-canonical list is left out so the text stays what was parsed.
  if (reshape_dims.size() > 1 && !perm.empty() && !identity) {
    absl::StrAppend(&out, "T(", absl::StrJoin(perm, ","), ")");
  }
  return out;
}

std::string ReplicaGroupListText(const google::protobuf::RepeatedPtrField<ReplicaGroup>& groups) {
  std::vector<std::string> parts;
  for (const ReplicaGroup& group : groups) {
    parts.push_back(absl::StrCat("{", absl::StrJoin(group.replica_ids(), ","), "}"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string ShardGroupText(const OpSharding& sharding) {
  if (!sharding.is_shard_group()) return "";
  return absl::StrCat(sharding.shard_group_type() == OpSharding::AS ? " shard_as " : " shard_like ",
                      sharding.shard_group_id());
}

std::string ShardingMetadataText(const OpSharding& sharding, bool include_metadata) {
  if (!include_metadata || sharding.metadata_size() == 0) return "";
  std::string out = " metadata={";
  if (sharding.metadata_size() == 1) {
    out += OpMetadataToString(sharding.metadata(0));
  } else {
    std::vector<std::string> parts;
    for (const OpMetadata& m : sharding.metadata()) {
      parts.push_back(absl::StrCat("{", OpMetadataToString(m), "}"));
    }
    out += absl::StrJoin(parts, ", ");
  }
  out += "}";
  return out;
}

std::string SubgroupTypeName(int type) {
  switch (type) {
    case OpSharding::MANUAL: return "manual";
    case OpSharding::MAXIMAL: return "maximal";
    case OpSharding::REPLICATED: return "replicated";
    case OpSharding::UNREDUCED: return "unreduced";
    default: return "error_type.";
  }
}

}  // namespace

std::string ReplicaGroupsText(const HloInstructionProto& attrs) {
  if (attrs.has_collective_device_list()) {
    const CollectiveDeviceListProto& list = attrs.collective_device_list();
    if (list.has_iota_replica_group_list()) {
      const IotaReplicaGroupListProto& iota = list.iota_replica_group_list();
      std::vector<int64_t> perm(iota.iota_transpose_perm().begin(),
                                iota.iota_transpose_perm().end());
      return IotaText({iota.num_replica_groups(), iota.num_devices_per_group()},
                      iota.iota_reshape_dims(), perm);
    }
    if (list.replica_groups_size() > 0) return ReplicaGroupListText(list.replica_groups());
  }
  return ReplicaGroupListText(attrs.replica_groups());
}

std::string OriginalValueText(const OriginalValueProto& value, const Shape& shape) {
  if (value.is_synthetic_call()) return "[synthetic_call]";
  std::vector<int64_t> index;
  std::string out;
  // Recursion over the instruction's shape: a tuple prints "(a, b)", a leaf its array.
  auto print = [&](auto&& self, const Shape& s) -> void {
    if (s.IsTuple()) {
      out += "(";
      for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
        if (i > 0) out += ", ";
        index.push_back(i);
        self(self, s.tuple_shapes(static_cast<int>(i)));
        index.pop_back();
      }
      out += ")";
      return;
    }
    for (const OriginalValueElementProto& element : value.elements()) {
      if (!std::equal(element.shape_index().begin(), element.shape_index().end(), index.begin(),
                      index.end())) {
        continue;
      }
      if (!element.has_original_array()) break;
      const OriginalArrayProto& array = element.original_array();
      absl::StrAppend(&out, "{\"", array.instruction_name(), "\"");
      if (array.shape_index_size() > 0) absl::StrAppend(&out, " ", ShapeIndexText(array.shape_index()));
      out += "}";
      return;
    }
    out += "{}";
  };
  print(print, shape);
  return out;
}

std::string StatisticsVizText(const StatisticsViz& statistics) {
  std::vector<std::string> parts;
  for (const Statistic& s : statistics.statistics()) {
    parts.push_back(absl::StrCat(s.stat_name(), "=", s.stat_val()));
  }
  return absl::StrCat("{visualizing_index=", statistics.stat_index_to_visualize(), ",",
                      absl::StrJoin(parts, ","), "}");
}

std::string ResultAccuracyText(const ResultAccuracy& accuracy) {
  if (accuracy.has_tolerance()) {
    const ResultAccuracy::Tolerance& t = accuracy.tolerance();
    return absl::StrCat("{tolerance={atol=", t.atol(), ",rtol=", t.rtol(), ",ulps=", t.ulps(), "}}");
  }
  if (accuracy.mode() != ResultAccuracy::DEFAULT) {
    return absl::StrCat("{mode=", ResultAccuracy::Mode_Name(accuracy.mode()), "}");
  }
  return "";
}

std::string OutputOperandAliasingText(
    const google::protobuf::RepeatedPtrField<OutputOperandAliasing>& aliasing) {
  std::vector<std::string> parts;
  for (const OutputOperandAliasing& a : aliasing) {
    parts.push_back(absl::StrCat(ShapeIndexText(a.output_shape_index()), ": (", a.operand_index(),
                                 ", ", ShapeIndexText(a.operand_shape_index()), ")"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

}  // namespace printer_internal

using printer_internal::CEscapeText;

std::string OpShardingToString(const OpSharding& sharding, bool include_metadata) {
  if (sharding.type() == OpSharding::TUPLE) {
    std::string out = "{";
    for (int i = 0; i < sharding.tuple_shardings_size(); ++i) {
      if (i > 0) out += (i % 5 == 0) ? absl::StrCat(", /*index=", i, "*/") : ", ";
      out += OpShardingToString(sharding.tuple_shardings(i), include_metadata);
    }
    return out + "}";
  }
  const std::string tail = absl::StrCat(printer_internal::ShardGroupText(sharding),
                                        printer_internal::ShardingMetadataText(sharding, include_metadata));
  switch (sharding.type()) {
    case OpSharding::REPLICATED: return absl::StrCat("{replicated", tail, "}");
    case OpSharding::MANUAL: return absl::StrCat("{manual", tail, "}");
    case OpSharding::UNKNOWN: return absl::StrCat("{unknown", tail, "}");
    case OpSharding::UNREDUCED: return absl::StrCat("{unreduced", tail, "}");
    default: break;
  }
  // A single device, whatever the type says, is XLA's maximal sharding.
  if (sharding.type() == OpSharding::MAXIMAL || (sharding.tile_assignment_devices_size() == 1 &&
                                                 sharding.iota_reshape_dims_size() == 0)) {
    const int64_t device =
        sharding.tile_assignment_devices_size() > 0 ? sharding.tile_assignment_devices(0) : 0;
    return absl::StrCat("{maximal device=", device, tail, "}");
  }
  std::string out = "{devices=";
  if (sharding.iota_reshape_dims_size() > 0) {
    std::vector<int64_t> perm(sharding.iota_transpose_perm().begin(),
                              sharding.iota_transpose_perm().end());
    out += printer_internal::IotaText(sharding.tile_assignment_dimensions(),
                                      sharding.iota_reshape_dims(), perm);
  } else {
    absl::StrAppend(&out, "[", absl::StrJoin(sharding.tile_assignment_dimensions(), ","), "]",
                    absl::StrJoin(sharding.tile_assignment_devices(), ","));
  }
  if (sharding.replicate_on_last_tile_dim()) out += " last_tile_dim_replicate";
  if (sharding.last_tile_dims_size() > 0) {
    std::vector<std::string> types;
    for (int t : sharding.last_tile_dims()) types.push_back(printer_internal::SubgroupTypeName(t));
    absl::StrAppend(&out, " last_tile_dims={", absl::StrJoin(types, ", "), "}");
  }
  return absl::StrCat(out, tail, "}");
}

std::string OpMetadataToString(const OpMetadata& metadata, bool only_op_name) {
  std::vector<std::string> parts;
  if (only_op_name) {
    if (metadata.op_name().empty()) return "";
    return absl::StrCat("op_name=\"", CEscapeText(metadata.op_name()), "\"");
  }
  if (!metadata.op_type().empty()) {
    parts.push_back(absl::StrCat("op_type=\"", CEscapeText(metadata.op_type()), "\""));
  }
  if (!metadata.op_name().empty()) {
    parts.push_back(absl::StrCat("op_name=\"", CEscapeText(metadata.op_name()), "\""));
  }
  if (!metadata.source_file().empty()) {
    parts.push_back(absl::StrCat("source_file=\"", CEscapeText(metadata.source_file()), "\""));
  }
  if (metadata.source_line() != 0) parts.push_back(absl::StrCat("source_line=", metadata.source_line()));
  if (metadata.source_end_line() != 0) {
    parts.push_back(absl::StrCat("source_end_line=", metadata.source_end_line()));
  }
  if (metadata.source_column() != 0) {
    parts.push_back(absl::StrCat("source_column=", metadata.source_column()));
  }
  if (metadata.source_end_column() != 0) {
    parts.push_back(absl::StrCat("source_end_column=", metadata.source_end_column()));
  }
  if (metadata.profile_type_size() > 0) {
    parts.push_back(absl::StrCat("profile_type={", absl::StrJoin(metadata.profile_type(), ","), "}"));
  }
  if (!metadata.deduplicated_name().empty()) {
    parts.push_back(
        absl::StrCat("deduplicated_name=\"", CEscapeText(metadata.deduplicated_name()), "\""));
  }
  if (!metadata.scheduling_name().empty()) {
    parts.push_back(
        absl::StrCat("scheduling_name=\"", CEscapeText(metadata.scheduling_name()), "\""));
  }
  if (metadata.stack_frame_id() != 0) {
    parts.push_back(absl::StrCat("stack_frame_id=", metadata.stack_frame_id()));
  }
  return absl::StrJoin(parts, " ");
}

bool LexesAsJsonDict(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i >= text.size() || text[i] != '{') return false;
  int64_t depth = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      // A string: skip to its closing quote, honoring backslash escapes.
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\') ++i;
        ++i;
      }
      if (i >= text.size()) return false;
      continue;
    }
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) {
      ++i;
      break;
    }
  }
  if (depth != 0) return false;
  for (; i < text.size(); ++i) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

std::string FrontendAttributesToString(const FrontendAttributes& attributes) {
  std::vector<std::pair<std::string, std::string>> sorted(attributes.map().begin(),
                                                          attributes.map().end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> parts;
  for (const auto& [key, value] : sorted) {
    if (LexesAsJsonDict(value)) {
      parts.push_back(absl::StrCat(key, "=", value));
    } else {
      parts.push_back(absl::StrCat(key, "=\"", CEscapeText(value), "\""));
    }
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string WindowToString(const Window& window) {
  std::string out;
  auto add_field = [&](const char* heading, auto format) {
    absl::StrAppend(&out, heading, "=");
    const char* prefix = "";
    for (const WindowDimension& dim : window.dimensions()) {
      absl::StrAppend(&out, prefix, format(dim));
      prefix = "x";
    }
  };
  auto any = [&](auto pred) {
    return std::any_of(window.dimensions().begin(), window.dimensions().end(), pred);
  };
  if (window.dimensions_size() > 0) {
    add_field("size", [](const WindowDimension& d) { return absl::StrCat(d.size()); });
  }
  if (any([](const WindowDimension& d) { return d.stride() != 1; })) {
    add_field(" stride", [](const WindowDimension& d) { return absl::StrCat(d.stride()); });
  }
  if (any([](const WindowDimension& d) { return d.padding_low() != 0 || d.padding_high() != 0; })) {
    add_field(" pad", [](const WindowDimension& d) {
      return absl::StrCat(d.padding_low(), "_", d.padding_high());
    });
  }
  if (any([](const WindowDimension& d) { return d.base_dilation() != 1; })) {
    add_field(" lhs_dilate", [](const WindowDimension& d) { return absl::StrCat(d.base_dilation()); });
  }
  if (any([](const WindowDimension& d) { return d.window_dilation() != 1; })) {
    add_field(" rhs_dilate",
              [](const WindowDimension& d) { return absl::StrCat(d.window_dilation()); });
  }
  if (any([](const WindowDimension& d) { return d.window_reversal(); })) {
    add_field(" rhs_reversal",
              [](const WindowDimension& d) { return absl::StrCat(d.window_reversal() ? 1 : 0); });
  }
  return out;
}

std::string ConvolutionDimensionNumbersToString(const ConvolutionDimensionNumbers& dnums) {
  // Each side lists one symbol per dimension number; unnamed dimensions print '?'.
  auto labels = [](int64_t a, char a_label, int64_t b, char b_label,
                   const google::protobuf::RepeatedField<int64_t>& spatial) {
    int64_t len = std::max(a, b);
    for (int64_t s : spatial) len = std::max(len, s);
    std::vector<std::string> out(static_cast<size_t>(std::max<int64_t>(len + 1, 0)), "?");
    auto set = [&](int64_t index, std::string label) {
      if (index >= 0 && index < static_cast<int64_t>(out.size())) out[index] = std::move(label);
    };
    set(a, std::string(1, a_label));
    set(b, std::string(1, b_label));
    for (int i = 0; i < spatial.size(); ++i) set(spatial[i], absl::StrCat(i));
    return absl::StrJoin(out, "");
  };
  return absl::StrCat(
      labels(dnums.input_batch_dimension(), 'b', dnums.input_feature_dimension(), 'f',
             dnums.input_spatial_dimensions()),
      "_",
      labels(dnums.kernel_input_feature_dimension(), 'i', dnums.kernel_output_feature_dimension(),
             'o', dnums.kernel_spatial_dimensions()),
      "->",
      labels(dnums.output_batch_dimension(), 'b', dnums.output_feature_dimension(), 'f',
             dnums.output_spatial_dimensions()));
}

std::string DotDimensionNumbersToString(const DotDimensionNumbers& dnums) {
  std::vector<std::string> parts;
  if (dnums.lhs_batch_dimensions_size() > 0) {
    parts.push_back(absl::StrCat("lhs_batch_dims={", absl::StrJoin(dnums.lhs_batch_dimensions(), ","), "}"));
  }
  parts.push_back(
      absl::StrCat("lhs_contracting_dims={", absl::StrJoin(dnums.lhs_contracting_dimensions(), ","), "}"));
  if (dnums.rhs_batch_dimensions_size() > 0) {
    parts.push_back(absl::StrCat("rhs_batch_dims={", absl::StrJoin(dnums.rhs_batch_dimensions(), ","), "}"));
  }
  parts.push_back(
      absl::StrCat("rhs_contracting_dims={", absl::StrJoin(dnums.rhs_contracting_dimensions(), ","), "}"));
  return absl::StrJoin(parts, ", ");
}

std::string PaddingConfigToString(const PaddingConfig& padding) {
  const bool has_interior =
      std::any_of(padding.dimensions().begin(), padding.dimensions().end(),
                  [](const PaddingConfig::PaddingConfigDimension& d) { return d.interior_padding() != 0; });
  std::vector<std::string> parts;
  for (const PaddingConfig::PaddingConfigDimension& d : padding.dimensions()) {
    parts.push_back(absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high(),
                                 has_interior ? absl::StrCat("_", d.interior_padding()) : ""));
  }
  return absl::StrJoin(parts, "x");
}

}  // namespace xla
