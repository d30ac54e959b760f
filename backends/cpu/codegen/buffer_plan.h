#ifndef XLA_BACKENDS_CPU_CODEGEN_BUFFER_PLAN_H_
#define XLA_BACKENDS_CPU_CODEGEN_BUFFER_PLAN_H_

// Buffer assignment for the cpu backend. Every array value gets a *slot*: an entry of the
// table of pointers that generated code receives. Slots are parameters (the caller's
// argument buffers), constants (the module's literals), outputs (result buffers) or
// temporaries (offsets in one arena per execution). Tuples have no storage of their own: a
// value of tuple shape is the list of its array leaves' slots, so tuple, get-tuple-element,
// bitcast, call results and in-place updates share slots instead of copying.
//
// Every computation runs in a sequential schedule (post order), nested ones (while
// condition and body, conditional branches, calls) at their call site in the order the code
// runs them; temporaries whose live ranges do not overlap share arena bytes. A value read
// inside a loop but defined before it (the loop state) lives until the loop ends. A while body's
// dynamic-update-slice of a state leaf that nothing else in the body reads writes the state
// in place (a decoding loop's cache update costs its slice, not two copies of the cache).
//
// input_output_alias: a result leaf may live in its aliased parameter's memory (OutputAlias)
// when that saves work: dynamic-update-slices of the parameter then update it in place (a
// KV-cache or optimizer-state update touches only the slice), a parameter returned as is
// costs no copy, and a result computed after the parameter's last read needs no new
// buffer. Elsewhere the alias is left unused: it permits sharing, it never requires it.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace cpu {

// kShared: no memory of its own; at run time it takes the memory of the parameter slot
// `index` names (a result computed after the last read of the parameter it aliases).
enum class SlotKind { kParameter, kConstant, kTemp, kOutput, kShared };

struct Slot {
  SlotKind kind = SlotKind::kTemp;
  Shape shape;          // array shape with layout
  int64_t bytes = 0;
  int64_t index = 0;    // kParameter: flattened argument leaf; kOutput: result leaf; kShared: slot
  int64_t offset = 0;   // kTemp: arena offset
  const Literal* constant = nullptr;  // kConstant
};

// The array leaves of a shape in depth-first order (tokens have none).
std::vector<Shape> ArrayLeaves(const Shape& shape);
int64_t ArrayLeafCount(const Shape& shape);

// The slots of one computation's values, for one call site.
struct ComputationPlan {
  const HloComputation* computation = nullptr;
  bool while_body = false;  // planned as a while's body (its parameter is the loop state)
  std::vector<const HloInstruction*> schedule;
  absl::flat_hash_map<const HloInstruction*, std::vector<int>> values;  // instruction -> leaf slots
  // while: {condition plan, body plan}; conditional: one plan per branch; call: {callee}.
  absl::flat_hash_map<const HloInstruction*, std::vector<std::unique_ptr<ComputationPlan>>> callees;
  // while only: where the body's result goes before it replaces the state (when a body
  // result leaf is another state leaf, copying directly would clobber it).
  absl::flat_hash_map<const HloInstruction*, std::vector<int>> while_shadow;

  const std::vector<int>& slots(const HloInstruction* hlo) const { return values.at(hlo); }
};

// A result leaf that the module's input_output_alias lets live in a parameter leaf's memory,
// where that saves work. With the argument donated (and held by nobody else) the result
// takes its memory; otherwise the result gets its own and the argument is untouched.
struct OutputAlias {
  int64_t output_leaf = 0;
  int parameter_slot = 0;
  // true: the code writes the parameter slot itself (in-place dynamic-update-slices, or the
  //   parameter returned unchanged), so without donation the argument is first copied into
  //   the result's memory, which then stands in for the parameter;
  // false: the result is computed into `result_slot` (kShared) after the last read of the
  //   parameter, so without donation it just gets fresh memory.
  bool in_place = false;
  int result_slot = 0;
};

struct BufferPlan {
  std::vector<Slot> slots;
  int64_t arena_bytes = 0;
  std::unique_ptr<ComputationPlan> entry;
  std::vector<Shape> parameter_shapes;  // entry parameters with layouts
  Shape result_shape;                   // with layouts
  // Copies done at the end: result leaf k is copied from slot output_copies[k].first into
  // output slot output_copies[k].second (when the value lives elsewhere, e.g. a parameter).
  std::vector<std::pair<int, int>> output_copies;
  // Per output copy: the value's own shape (a bitcast/reshape sees the slot's bytes under it).
  std::vector<Shape> output_copy_shapes;
  std::vector<int> output_slots;  // per result leaf (an aliased leaf: its parameter or kShared slot)
  std::vector<OutputAlias> output_aliases;
  int64_t parameter_leaf_count = 0;
};

// True for instructions whose value shares its operand's slots (no code, no storage).
bool IsAliasingInstruction(const HloInstruction& hlo);

absl::StatusOr<std::unique_ptr<BufferPlan>> PlanBuffers(const HloModule& module);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_BUFFER_PLAN_H_
