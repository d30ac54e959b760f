#ifndef XLA_HLO_HLO_PARSER_H_
#define XLA_HLO_HLO_PARSER_H_

// Parser for XLA's HLO text format (the long form with operand shapes, the short
// parsable form, and nested anonymous instructions). Every error is InvalidArgument
// whose message starts with "LINE:COL: " (1-based) of the offending token.

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "hlo/shape.h"

namespace xla {

struct HloParserOptions {
  // As XLA: array shapes written without a layout get the default descending layout.
  bool fill_missing_layouts = true;
};

// Parses a whole module. `config` supplies defaults (replica_count, ...) that
// module-header attributes override. The module is not verified.
absl::StatusOr<std::unique_ptr<HloModule>> ParseAndReturnUnverifiedModule(
    std::string_view text, const HloModuleConfig& config = {},
    const HloParserOptions& options = {});

// "f32[2,3]{1,0}", "(f32[], s32[2])", "token[]". No layout is added when none is written.
absl::StatusOr<Shape> ParseShape(std::string_view text);
// "{1,0:T(8,128)}".
absl::StatusOr<Layout> ParseLayout(std::string_view text);

}  // namespace xla

#endif  // XLA_HLO_HLO_PARSER_H_
