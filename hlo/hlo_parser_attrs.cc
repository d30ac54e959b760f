// Instruction attributes: one dispatch on the attribute name, writing XLA's
// HloInstructionProto fields; plus the value forms used only here (window, dim labels,
// slice ranges, pad configs, metadata, frontend attributes, computation references).

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {
namespace {

// Splits "3x3" / "1_1x0_0" into integers; `sep` separates one dimension's parts.
bool ParseIntParts(absl::string_view s, char sep, std::vector<int64_t>* out) {
  for (absl::string_view part : absl::StrSplit(s, sep)) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

}  // namespace

absl::StatusOr<HloComputation*> Parser::ParseComputationRef() {
  const Token& t = lex_.Peek();
  if (t.kind != TokKind::kIdent) return Expected("a computation name", "attribute");
  auto it = computations_.find(t.str);
  if (it == computations_.end()) {
    return ErrorAt(t.pos, absl::StrCat("computation '", t.str, "' is not defined"));
  }
  lex_.Next();
  return it->second;
}

absl::StatusOr<std::vector<HloComputation*>> Parser::ParseComputationList() {
  std::vector<HloComputation*> out;
  if (lex_.PeekKind() != TokKind::kLbrace) {
    ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
    out.push_back(c);
    return out;
  }
  lex_.Next();
  if (TryConsume(TokKind::kRbrace)) return out;
  do {
    ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
    out.push_back(c);
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "computation list"));
  return out;
}

absl::StatusOr<ShapeIndex> Parser::ParseShapeIndex() {
  ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList("shape index"));
  return ShapeIndex(v.begin(), v.end());
}

absl::StatusOr<Window> Parser::ParseWindow() {
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  while (lex_.PeekKind() != TokKind::kRbrace) {
    int64_t key_pos = lex_.Peek().pos;
    ASSIGN_OR_RETURN(std::string key, ExpectIdent("window"));
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "window"));
    Token word = lex_.ReadRawWord();
    if (word.kind == TokKind::kError) return ErrorAt(word.pos, "expected a value in window");
    std::vector<int64_t>* target = nullptr;
    if (key == "size") target = &size;
    else if (key == "stride") target = &stride;
    else if (key == "lhs_dilate") target = &lhs_dilate;
    else if (key == "rhs_dilate") target = &rhs_dilate;
    else if (key == "rhs_reversal") target = &reversal;
    if (target != nullptr) {
      if (!ParseIntParts(word.text, 'x', target)) {
        return ErrorAt(word.pos, absl::StrCat("bad value '", word.text, "' for window ", key));
      }
    } else if (key == "pad") {
      for (absl::string_view dim : absl::StrSplit(word.text, 'x')) {
        std::vector<int64_t> lh;
        if (!ParseIntParts(dim, '_', &lh) || lh.size() != 2) {
          return ErrorAt(word.pos, absl::StrCat("bad window pad '", word.text,
                                                "', expected LOW_HIGHxLOW_HIGH..."));
        }
        pad.push_back({lh[0], lh[1]});
      }
    } else {
      return ErrorAt(key_pos, absl::StrCat("unknown window field '", key, "'"));
    }
    TryConsume(TokKind::kComma);
  }
  lex_.Next();
  Window window;
  const size_t rank = size.size();
  auto check = [&](size_t n, absl::string_view what) -> absl::Status {
    if (n != 0 && n != rank) {
      return ErrorAtPeek(absl::StrCat("window ", what, " has ", n, " dimensions but size has ",
                                      rank));
    }
    return absl::OkStatus();
  };
  if (rank == 0 && (stride.size() | pad.size() | lhs_dilate.size() | rhs_dilate.size() |
                    reversal.size()) != 0) {
    return ErrorAtPeek("window needs size=");
  }
  RETURN_IF_ERROR(check(stride.size(), "stride"));
  RETURN_IF_ERROR(check(pad.size(), "pad"));
  RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension* d = window.add_dimensions();
    d->set_size(size[i]);
    d->set_stride(stride.empty() ? 1 : stride[i]);
    d->set_padding_low(pad.empty() ? 0 : pad[i].first);
    d->set_padding_high(pad.empty() ? 0 : pad[i].second);
    d->set_base_dilation(lhs_dilate.empty() ? 1 : lhs_dilate[i]);
    d->set_window_dilation(rhs_dilate.empty() ? 1 : rhs_dilate[i]);
    d->set_window_reversal(!reversal.empty() && reversal[i] != 0);
  }
  return window;
}

absl::StatusOr<ConvolutionDimensionNumbers> Parser::ParseDimLabels() {
  Token word = lex_.ReadRawWord();
  absl::string_view s = word.text;
  auto bad = [&](absl::string_view why) {
    return ErrorAt(word.pos, absl::StrCat("bad dim_labels '", s, "': ", why));
  };
  size_t us = s.find('_');
  size_t arrow = s.find("->");
  if (us == absl::string_view::npos || arrow == absl::string_view::npos || arrow < us) {
    return bad("expected LHS_KERNEL->OUTPUT");
  }
  absl::string_view lhs = s.substr(0, us), rhs = s.substr(us + 1, arrow - us - 1),
                   out = s.substr(arrow + 2);
  ConvolutionDimensionNumbers dnums;
  // Fills batch/feature and the spatial dims (digit k at position i => spatial[k] = i).
  auto parse_part = [&](absl::string_view part, char a, char b, int64_t* a_dim, int64_t* b_dim,
                        google::protobuf::RepeatedField<int64_t>* spatial) -> absl::Status {
    std::vector<int64_t> sp(part.size(), -1);
    int64_t num_spatial = 0;
    bool seen_a = false, seen_b = false;
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      if (c == a) {
        if (seen_a) return bad("label repeated");
        seen_a = true;
        *a_dim = i;
      } else if (c == b) {
        if (seen_b) return bad("label repeated");
        seen_b = true;
        *b_dim = i;
      } else if (c >= '0' && c <= '9') {
        int64_t k = c - '0';
        if (k >= static_cast<int64_t>(sp.size()) || sp[k] != -1) return bad("bad spatial label");
        sp[k] = i;
        num_spatial = std::max(num_spatial, k + 1);
      } else if (c != '?') {
        return bad(absl::StrCat("unexpected label '", std::string(1, c), "'"));
      }
    }
    for (int64_t k = 0; k < num_spatial; ++k) {
      if (sp[k] == -1) return bad("spatial labels must be 0..n-1");
      spatial->Add(sp[k]);
    }
    return absl::OkStatus();
  };
  int64_t ib = 0, ifd = 0, ki = 0, ko = 0, ob = 0, of = 0;
  RETURN_IF_ERROR(parse_part(lhs, 'b', 'f', &ib, &ifd, dnums.mutable_input_spatial_dimensions()));
  RETURN_IF_ERROR(
      parse_part(rhs, 'i', 'o', &ki, &ko, dnums.mutable_kernel_spatial_dimensions()));
  RETURN_IF_ERROR(parse_part(out, 'b', 'f', &ob, &of, dnums.mutable_output_spatial_dimensions()));
  dnums.set_input_batch_dimension(ib);
  dnums.set_input_feature_dimension(ifd);
  dnums.set_kernel_input_feature_dimension(ki);
  dnums.set_kernel_output_feature_dimension(ko);
  dnums.set_output_batch_dimension(ob);
  dnums.set_output_feature_dimension(of);
  return dnums;
}

absl::StatusOr<std::vector<HloInstructionProto::SliceDimensions>> Parser::ParseSliceRanges() {
  std::vector<HloInstructionProto::SliceDimensions> out;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "slice"));
  if (TryConsume(TokKind::kRbrace)) return out;
  do {
    RETURN_IF_ERROR(Expect(TokKind::kLsquare, "slice"));
    std::vector<int64_t> parts;
    do {
      ASSIGN_OR_RETURN(int64_t v, ExpectInt("slice"));
      parts.push_back(v);
    } while (TryConsume(TokKind::kColon));
    if (parts.size() < 2 || parts.size() > 3) {
      return ErrorAtPeek("slice range must be [start:limit] or [start:limit:stride]");
    }
    RETURN_IF_ERROR(Expect(TokKind::kRsquare, "slice"));
    HloInstructionProto::SliceDimensions d;
    d.set_start(parts[0]);
    d.set_limit(parts[1]);
    d.set_stride(parts.size() == 3 ? parts[2] : 1);
    out.push_back(d);
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "slice"));
  return out;
}

absl::StatusOr<PaddingConfig> Parser::ParsePaddingConfig() {
  Token word = lex_.ReadRawWord();
  PaddingConfig config;
  for (absl::string_view dim : absl::StrSplit(word.text, 'x')) {
    std::vector<int64_t> parts;
    if (!ParseIntParts(dim, '_', &parts) || parts.size() < 2 || parts.size() > 3) {
      return ErrorAt(word.pos, absl::StrCat("bad padding '", word.text,
                                            "', expected LOW_HIGH[_INTERIOR]x..."));
    }
    auto* d = config.add_dimensions();
    d->set_edge_padding_low(parts[0]);
    d->set_edge_padding_high(parts[1]);
    d->set_interior_padding(parts.size() == 3 ? parts[2] : 0);
  }
  return config;
}

absl::StatusOr<OpMetadata> Parser::ParseMetadata() {
  OpMetadata m;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "metadata"));
  while (lex_.PeekKind() != TokKind::kRbrace) {
    int64_t key_pos = lex_.Peek().pos;
    ASSIGN_OR_RETURN(std::string key, ExpectIdent("metadata"));
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "metadata"));
    if (key == "op_type") {
      ASSIGN_OR_RETURN(*m.mutable_op_type(), ExpectString("metadata"));
    } else if (key == "op_name") {
      ASSIGN_OR_RETURN(*m.mutable_op_name(), ExpectString("metadata"));
    } else if (key == "source_file") {
      ASSIGN_OR_RETURN(*m.mutable_source_file(), ExpectString("metadata"));
    } else if (key == "deduplicated_name") {
      ASSIGN_OR_RETURN(*m.mutable_deduplicated_name(), ExpectString("metadata"));
    } else if (key == "scheduling_name") {
      ASSIGN_OR_RETURN(*m.mutable_scheduling_name(), ExpectString("metadata"));
    } else if (key == "source_line" || key == "source_end_line" || key == "source_column" ||
               key == "source_end_column" || key == "stack_frame_id" ||
               key == "size_of_generated_code_in_bytes" ||
               key == "size_of_memory_working_set_in_bytes") {
      ASSIGN_OR_RETURN(int64_t v, ExpectInt("metadata"));
      if (key == "source_line") m.set_source_line(v);
      else if (key == "source_end_line") m.set_source_end_line(v);
      else if (key == "source_column") m.set_source_column(v);
      else if (key == "source_end_column") m.set_source_end_column(v);
      else if (key == "stack_frame_id") m.set_stack_frame_id(v);
      else if (key == "size_of_generated_code_in_bytes") m.set_size_of_generated_code_in_bytes(v);
      else m.set_size_of_memory_working_set_in_bytes(v);
    } else if (key == "profile_type") {
      ASSIGN_OR_RETURN(std::vector<int64_t> types, ParseIntList("profile_type"));
      for (int64_t t : types) {
        if (!ProfileType_IsValid(t)) return ErrorAt(key_pos, "bad profile_type");
        m.add_profile_type(static_cast<ProfileType>(t));
      }
    } else {
      return ErrorAt(key_pos, absl::StrCat("unknown metadata field '", key, "'"));
    }
    TryConsume(TokKind::kComma);
  }
  lex_.Next();
  return m;
}

absl::StatusOr<FrontendAttributes> Parser::ParseFrontendAttributes() {
  FrontendAttributes attrs;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "frontend_attributes"));
  if (TryConsume(TokKind::kRbrace)) return attrs;
  do {
    const Token& k = lex_.Peek();
    std::string key;
    if (k.kind == TokKind::kIdent || k.kind == TokKind::kString) {
      key = k.str;
      lex_.Next();
    } else {
      return Expected("an attribute name", "frontend_attributes");
    }
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "frontend_attributes"));
    std::string value;
    if (lex_.PeekKind() == TokKind::kLbrace) {
      // Unquoted dictionary values (composite.attributes={...}) are kept verbatim.
      Token raw = lex_.ReadBalancedBraces();
      if (raw.kind == TokKind::kError) return ErrorAt(raw.pos, raw.str);
      value = raw.str;
    } else {
      ASSIGN_OR_RETURN(value, ExpectString("frontend_attributes"));
    }
    (*attrs.mutable_map())[key] = value;
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "frontend_attributes"));
  return attrs;
}

}  // namespace hlo_parser_internal
}  // namespace xla
