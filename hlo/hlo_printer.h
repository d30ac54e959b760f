#ifndef XLA_HLO_HLO_PRINTER_H_
#define XLA_HLO_HLO_PRINTER_H_

// HLO text printer in XLA's canonical style (xla::HloModule::ToString and friends).
// The output of HloModuleToString(m, ShortParsable()) and of the long form (operand shapes
// and large constants on) parses back to an equal module; for XLA's own parser test
// cases it is byte-identical to what XLA prints.

#include <cstdint>
#include <string>

#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "proto/xla_data.pb.h"

namespace xla {

// The switches of XLA's HloPrintOptions that change the text; same names and defaults.
struct HloPrintOptions {
  enum class PrintSubcomputationMode {
    kOff,       // no called-computation attributes at all
    kNameOnly,  // `to_apply=%add`
  };

  int64_t print_operand_index_annotation_interval = 5;  // `/*index=5*/`; 0 = never
  PrintSubcomputationMode print_subcomputation_mode = PrintSubcomputationMode::kNameOnly;
  int indent_amount = 0;
  bool print_large_constants = false;  // arrays of more than 10 elements and tuples
  bool print_original_value = true;    // origin={...}
  bool print_metadata = true;
  bool print_metadata_only_op_name = false;
  bool print_backend_config = true;
  bool print_infeed_outfeed_config = true;
  bool compact_operands = false;  // at most 4 operands, then `...(+N)` (not parsable)
  bool include_layout_in_shapes = true;
  bool print_result_shape = true;
  bool print_operand_shape = false;
  bool print_operand_names = true;
  bool print_program_shape = true;  // `(p: f32[2]) -> f32[2]` after computation names
  bool print_percent = true;        // `%` before names
  bool print_control_dependencies = true;
  bool canonicalize_instruction_names = false;  // tmp_0, tmp_1, ... inside computations
  bool print_ids = true;                        // false drops `.N` name suffixes
  bool print_extra_attributes = true;
  bool syntax_sugar_async_ops = true;  // `custom-call-start(...)` for trivial async wrappers
  bool print_frontend_attributes = true;
  bool print_name_after_closing_brace = false;  // ` // name` after long computations
  bool print_parameter_number = true;
  bool print_channel_id = true;  // false prints `channel_id=` presence only
  // Set while printing a computation's body (names are canonicalized only there).
  bool is_in_nested_computation = false;

  static HloPrintOptions Default() { return HloPrintOptions(); }
  // The form XLA's tests round-trip: no `%`, no operand shapes, no program shapes, no
  // metadata, no control-predecessors, every constant printed.
  static HloPrintOptions ShortParsable();
  // Names canonicalized, operand names dropped: for comparing graph structure.
  static HloPrintOptions Canonical();
  // The long round-trip form of XLA's parser tests: Default() plus operand shapes and
  // large constants.
  static HloPrintOptions Long();

  HloPrintOptions& set_print_operand_shape(bool v) { print_operand_shape = v; return *this; }
  HloPrintOptions& set_print_large_constants(bool v) { print_large_constants = v; return *this; }
  HloPrintOptions& set_print_metadata(bool v) { print_metadata = v; return *this; }
  HloPrintOptions& set_print_backend_config(bool v) { print_backend_config = v; return *this; }
  HloPrintOptions& set_print_percent(bool v) { print_percent = v; return *this; }
  HloPrintOptions& set_print_program_shape(bool v) { print_program_shape = v; return *this; }
  HloPrintOptions& set_print_control_dependencies(bool v) {
    print_control_dependencies = v;
    return *this;
  }
  HloPrintOptions& set_print_operand_index_annotation_interval(int64_t v) {
    print_operand_index_annotation_interval = v;
    return *this;
  }
  HloPrintOptions& set_syntax_sugar_async_ops(bool v) { syntax_sugar_async_ops = v; return *this; }
  HloPrintOptions& set_include_layout_in_shapes(bool v) {
    include_layout_in_shapes = v;
    return *this;
  }
};

std::string HloModuleToString(const HloModule& module,
                              const HloPrintOptions& options = HloPrintOptions::Default());
// One computation (`%name (p: f32[]) -> f32[] {\n  ...\n}`), without `ENTRY`.
std::string HloComputationToString(const HloComputation& computation,
                                   const HloPrintOptions& options = HloPrintOptions::Default());
// One instruction line without indentation or `ROOT`: `%add = f32[] add(%a, %b)`.
std::string HloInstructionToString(const HloInstruction& instruction,
                                   const HloPrintOptions& options = HloPrintOptions::Default());

// Text forms of attribute values, shared with other printers (error messages, dumps).
std::string OpShardingToString(const OpSharding& sharding, bool include_metadata = true);
std::string OpMetadataToString(const OpMetadata& metadata, bool only_op_name = false);
std::string FrontendAttributesToString(const FrontendAttributes& attributes);
std::string WindowToString(const Window& window);  // "size=3x3 stride=2x2 pad=1_1x1_1"
std::string ConvolutionDimensionNumbersToString(const ConvolutionDimensionNumbers& dnums);
std::string DotDimensionNumbersToString(const DotDimensionNumbers& dnums);
std::string PaddingConfigToString(const PaddingConfig& padding);  // "0_0x1_2_1"
// True when `text` is a `{...}` block that XLA prints bare (backend_config, frontend
// attribute values) instead of as a quoted, escaped string.
bool LexesAsJsonDict(std::string_view text);

}  // namespace xla

#endif  // XLA_HLO_HLO_PRINTER_H_
