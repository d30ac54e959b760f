// Sharding, collective groups, original values, statistics, result accuracy, domain
// attributes, and module-header attributes.

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {
namespace {

std::optional<OpSharding::Type> ShardingTypeFromWord(absl::string_view w) {
  if (w == "replicated") return OpSharding::REPLICATED;
  if (w == "manual") return OpSharding::MANUAL;
  if (w == "unknown") return OpSharding::UNKNOWN;
  if (w == "unreduced") return OpSharding::UNREDUCED;
  if (w == "maximal") return OpSharding::MAXIMAL;
  return std::nullopt;
}

}  // namespace

absl::StatusOr<OpSharding> Parser::ParseSharding() {
  RETURN_IF_ERROR(EnterNesting());
  OpSharding s;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "sharding"));
  if (lex_.PeekKind() == TokKind::kLbrace || lex_.PeekKind() == TokKind::kRbrace) {
    s.set_type(OpSharding::TUPLE);
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        ASSIGN_OR_RETURN(*s.add_tuple_shardings(), ParseSharding());
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, "tuple sharding"));
    }
    ExitNesting();
    return s;
  }
  bool has_type = false, has_devices = false, maximal = false;
  std::optional<int64_t> device;
  s.set_type(OpSharding::OTHER);
  while (lex_.PeekKind() != TokKind::kRbrace) {
    const Token& t = lex_.Peek();
    if (t.kind != TokKind::kIdent) return Expected("a sharding attribute", "sharding");
    std::string word = t.str;
    int64_t pos = t.pos;
    lex_.Next();
    if (auto type = ShardingTypeFromWord(word)) {
      if (has_type) return ErrorAt(pos, "sharding has more than one type");
      has_type = true;
      maximal = *type == OpSharding::MAXIMAL;
      s.set_type(*type);
    } else if (word == "device") {
      RETURN_IF_ERROR(Expect(TokKind::kEqual, "sharding"));
      ASSIGN_OR_RETURN(device, ExpectInt("sharding device"));
    } else if (word == "devices") {
      RETURN_IF_ERROR(Expect(TokKind::kEqual, "sharding"));
      has_devices = true;
      ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                       ParseIntList("sharding devices", TokKind::kLsquare, TokKind::kRsquare));
      for (int64_t d : dims) s.add_tile_assignment_dimensions(d);
      if (TryConsume(TokKind::kLeq)) {
        ASSIGN_OR_RETURN(std::vector<int64_t> reshape,
                         ParseIntList("sharding iota", TokKind::kLsquare, TokKind::kRsquare));
        for (int64_t d : reshape) s.add_iota_reshape_dims(d);
        const Token& tt = lex_.Peek();
        if (tt.kind == TokKind::kIdent && tt.text == "T") {
          lex_.Next();
          ASSIGN_OR_RETURN(std::vector<int64_t> perm,
                           ParseIntList("sharding iota transpose", TokKind::kLparen,
                                        TokKind::kRparen));
          for (int64_t d : perm) s.add_iota_transpose_perm(d);
        } else {
          for (size_t i = 0; i < reshape.size(); ++i) s.add_iota_transpose_perm(i);
        }
      } else {
        do {
          ASSIGN_OR_RETURN(int64_t d, ExpectInt("sharding devices"));
          s.add_tile_assignment_devices(d);
        } while (TryConsume(TokKind::kComma));
      }
    } else if (word == "last_tile_dim_replicate") {
      s.set_replicate_on_last_tile_dim(true);
    } else if (word == "last_tile_dims") {
      RETURN_IF_ERROR(Expect(TokKind::kEqual, "sharding"));
      RETURN_IF_ERROR(Expect(TokKind::kLbrace, "last_tile_dims"));
      do {
        const Token& w = lex_.Peek();
        auto type = w.kind == TokKind::kIdent ? ShardingTypeFromWord(w.str) : std::nullopt;
        if (!type.has_value()) return Expected("a sharding type", "last_tile_dims");
        s.add_last_tile_dims(*type);
        lex_.Next();
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, "last_tile_dims"));
    } else if (word == "metadata") {
      RETURN_IF_ERROR(Expect(TokKind::kEqual, "sharding"));
      HloLexer probe = lex_;
      probe.Next();
      if (probe.PeekKind() == TokKind::kLbrace || probe.PeekKind() == TokKind::kRbrace) {
        lex_.Next();
        if (!TryConsume(TokKind::kRbrace)) {
          do {
            ASSIGN_OR_RETURN(*s.add_metadata(), ParseMetadata());
          } while (TryConsume(TokKind::kComma));
          RETURN_IF_ERROR(Expect(TokKind::kRbrace, "sharding metadata"));
        }
      } else {
        ASSIGN_OR_RETURN(*s.add_metadata(), ParseMetadata());
      }
    } else if (word == "shard_as" || word == "shard_like") {
      ASSIGN_OR_RETURN(int64_t id, ExpectInt("sharding group"));
      s.set_is_shard_group(true);
      s.set_shard_group_id(id);
      s.set_shard_group_type(word == "shard_as" ? OpSharding::AS : OpSharding::LIKE);
    } else {
      return ErrorAt(pos, absl::StrCat("unknown sharding attribute '", word, "'"));
    }
  }
  lex_.Next();
  if (maximal) {
    if (!device.has_value()) return ErrorAtPeek("maximal sharding needs device=");
    s.add_tile_assignment_dimensions(1);
    s.add_tile_assignment_devices(*device);
  } else if (!has_type && !has_devices) {
    return ErrorAtPeek("sharding needs a type or devices=");
  }
  ExitNesting();
  return s;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Parser::ParseListOfIntLists(
    absl::string_view context) {
  std::vector<std::vector<int64_t>> out;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, context));
  if (TryConsume(TokKind::kRbrace)) return out;
  do {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList(context));
    out.push_back(std::move(v));
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, context));
  return out;
}

absl::Status Parser::ParseReplicaGroups(HloInstructionProto* proto) {
  if (lex_.PeekKind() == TokKind::kLsquare) {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                     ParseIntList("replica_groups", TokKind::kLsquare, TokKind::kRsquare));
    if (dims.size() != 2) return ErrorAtPeek("iota replica_groups needs [groups,group_size]");
    RETURN_IF_ERROR(Expect(TokKind::kLeq, "replica_groups"));
    ASSIGN_OR_RETURN(std::vector<int64_t> reshape,
                     ParseIntList("replica_groups", TokKind::kLsquare, TokKind::kRsquare));
    auto* iota = proto->mutable_collective_device_list()->mutable_iota_replica_group_list();
    iota->set_num_replica_groups(dims[0]);
    iota->set_num_devices_per_group(dims[1]);
    for (int64_t d : reshape) iota->add_iota_reshape_dims(d);
    const Token& t = lex_.Peek();
    if (t.kind == TokKind::kIdent && t.text == "T") {
      lex_.Next();
      ASSIGN_OR_RETURN(std::vector<int64_t> perm,
                       ParseIntList("replica_groups", TokKind::kLparen, TokKind::kRparen));
      for (int64_t d : perm) iota->add_iota_transpose_perm(d);
    } else {
      for (size_t i = 0; i < reshape.size(); ++i) iota->add_iota_transpose_perm(i);
    }
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(auto groups, ParseListOfIntLists("replica_groups"));
  for (const auto& g : groups) {
    ReplicaGroup* rg = proto->add_replica_groups();
    for (int64_t id : g) rg->add_replica_ids(id);
  }
  return absl::OkStatus();
}

absl::StatusOr<OriginalValueProto> Parser::ParseOriginalValue() {
  OriginalValueProto ov;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "origin"));
  if (TryConsume(TokKind::kLsquare)) {
    ASSIGN_OR_RETURN(std::string word, ExpectIdent("origin"));
    if (word != "synthetic_call") return ErrorAtPeek("expected synthetic_call in origin");
    ov.set_is_synthetic_call(true);
    RETURN_IF_ERROR(Expect(TokKind::kRsquare, "origin"));
    RETURN_IF_ERROR(Expect(TokKind::kRbrace, "origin"));
    return ov;
  }
  ShapeIndex index;
  auto parse_tree = [&](auto&& self) -> absl::Status {
    RETURN_IF_ERROR(EnterNesting());
    if (TryConsume(TokKind::kLparen)) {
      int64_t i = 0;
      if (!TryConsume(TokKind::kRparen)) {
        do {
          index.push_back(i++);
          RETURN_IF_ERROR(self(self));
          index.pop_back();
        } while (TryConsume(TokKind::kComma));
        RETURN_IF_ERROR(Expect(TokKind::kRparen, "origin"));
      }
    } else {
      RETURN_IF_ERROR(Expect(TokKind::kLbrace, "origin"));
      if (!TryConsume(TokKind::kRbrace)) {
        OriginalValueElementProto* e = ov.add_elements();
        for (int64_t i : index) e->add_shape_index(i);
        ASSIGN_OR_RETURN(*e->mutable_original_array()->mutable_instruction_name(),
                         ExpectString("origin"));
        if (lex_.PeekKind() == TokKind::kLbrace) {
          ASSIGN_OR_RETURN(ShapeIndex si, ParseShapeIndex());
          for (int64_t i : si) e->mutable_original_array()->add_shape_index(i);
        }
        RETURN_IF_ERROR(Expect(TokKind::kRbrace, "origin"));
      }
    }
    ExitNesting();
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(parse_tree(parse_tree));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "origin"));
  return ov;
}

absl::StatusOr<StatisticsViz> Parser::ParseStatistics() {
  StatisticsViz viz;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "statistics"));
  if (TryConsume(TokKind::kRbrace)) return viz;
  do {
    ASSIGN_OR_RETURN(std::string key, ExpectIdent("statistics"));
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "statistics"));
    if (key == "visualizing_index") {
      ASSIGN_OR_RETURN(int64_t v, ExpectInt("statistics"));
      viz.set_stat_index_to_visualize(v);
    } else {
      ASSIGN_OR_RETURN(double v, ExpectDouble("statistics"));
      Statistic* st = viz.add_statistics();
      st->set_stat_name(key);
      st->set_stat_val(v);
    }
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "statistics"));
  return viz;
}

absl::StatusOr<ResultAccuracy> Parser::ParseResultAccuracy() {
  ResultAccuracy ra;
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "result_accuracy"));
  int64_t pos = lex_.Peek().pos;
  ASSIGN_OR_RETURN(std::string key, ExpectIdent("result_accuracy"));
  RETURN_IF_ERROR(Expect(TokKind::kEqual, "result_accuracy"));
  if (key == "mode") {
    const Token& t = lex_.Peek();
    ResultAccuracy::Mode mode;
    if (t.kind != TokKind::kIdent ||
        !ResultAccuracy::Mode_Parse(absl::AsciiStrToUpper(t.str), &mode)) {
      return Expected("DEFAULT or HIGHEST", "result_accuracy mode");
    }
    lex_.Next();
    ra.set_mode(mode);
  } else if (key == "tolerance") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, "result_accuracy tolerance"));
    auto* tol = ra.mutable_tolerance();
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        int64_t fpos = lex_.Peek().pos;
        ASSIGN_OR_RETURN(std::string f, ExpectIdent("tolerance"));
        RETURN_IF_ERROR(Expect(TokKind::kEqual, "tolerance"));
        if (f == "atol" || f == "rtol") {
          ASSIGN_OR_RETURN(double v, ExpectDouble("tolerance"));
          if (f == "atol") tol->set_atol(v);
          else tol->set_rtol(v);
        } else if (f == "ulps") {
          ASSIGN_OR_RETURN(int64_t v, ExpectInt("tolerance"));
          tol->set_ulps(v);
        } else {
          return ErrorAt(fpos, absl::StrCat("unknown tolerance field '", f, "'"));
        }
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, "result_accuracy tolerance"));
    }
  } else {
    return ErrorAt(pos, absl::StrCat("unknown result_accuracy field '", key, "'"));
  }
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "result_accuracy"));
  return ra;
}

absl::Status Parser::ParseDomain(HloInstructionProto* proto) {
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "domain"));
  bool has_entry = false, has_exit = false;
  do {
    int64_t pos = lex_.Peek().pos;
    ASSIGN_OR_RETURN(std::string key, ExpectIdent("domain"));
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "domain"));
    if (key == "kind") {
      ASSIGN_OR_RETURN(std::string kind, ExpectString("domain"));
      if (kind != "sharding") {
        return ErrorAt(pos, absl::StrCat("unsupported domain kind '", kind, "'"));
      }
    } else if (key == "entry") {
      ASSIGN_OR_RETURN(*proto->mutable_domain_entry_sharding(), ParseSharding());
      has_entry = true;
    } else if (key == "exit") {
      ASSIGN_OR_RETURN(*proto->mutable_domain_exit_sharding(), ParseSharding());
      has_exit = true;
    } else {
      return ErrorAt(pos, absl::StrCat("unknown domain field '", key, "'"));
    }
  } while (TryConsume(TokKind::kComma));
  if (!has_entry || !has_exit) return ErrorAtPeek("domain needs entry= and exit=");
  return Expect(TokKind::kRbrace, "domain");
}

}  // namespace hlo_parser_internal
}  // namespace xla
