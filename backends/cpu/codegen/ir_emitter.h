#ifndef XLA_BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
#define XLA_BACKENDS_CPU_CODEGEN_IR_EMITTER_H_

// LLVM IR emission for the cpu backend (internal: includes LLVM headers; only codegen/*.cc
// include it). ElementalEmitter turns HLO ops into "generators": functions from an output
// index to the element's value, composed through fusions, so a loop fusion is one loop
// over its output. ModuleEmitter (ir_emitter.cc) wraps generators in kernels and emits
// the entry function's control flow.
//
// Register types: pred is i1; integers their width (s4 is i4: loads truncate the byte,
// stores sign- or zero-extend it, as literals store sub-byte elements one per byte); f16 is
// `half`; bf16 travels as its i16 bit pattern, the 8- and 4-bit floats as their byte;
// f32/f64 float/double; c64/c128 as their i64/i128 storage bits (real part low).
// f16/bf16/f8/f4 arithmetic widens to f32 and rounds back once per op (round to nearest
// even), as XLA does; complex divide, pow, atan2 and transcendentals call runtime routines
// that compute them with std::complex as the interpreter does (elemental_complex.cc), except
// in device code, which gets them as inline IR (elemental_complex_math.cc).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/codegen/cumulative_window.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/shape.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace cpu {

// An index into an array: one i64 per logical dimension, plus optionally the position in
// storage order of an array with `linear_shape`'s dims and layout (cheaper to use when an
// operand has exactly that shape).
struct IrIndex {
  std::vector<llvm::Value*> multi;
  llvm::Value* linear = nullptr;
  const Shape* linear_shape = nullptr;
};

using Generator = std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>;
using OperandGenerator = std::function<absl::StatusOr<Generator>(int64_t operand)>;

// The most evaluations of a fusion's instructions (or of a computation's, emitted in place)
// while emitting it. Values read along several paths at indices that differ (slices or
// reverses of one value combined, level after level) are emitted once per path, 2^depth
// times for a chain of such levels: past this the compile fails with RESOURCE_EXHAUSTED
// (ElementalEmitter::OperandLookup) rather than run for hours. Real fusions evaluate each
// instruction a few times per unrolled element.
inline constexpr int64_t kMostFusedEvaluations = int64_t{1} << 20;
// The deepest chain of generators calling their operands' (about a kilobyte of stack each):
// a reducer of 100000 values each computed from the one before recursed that deep and
// overflowed the stack. Fusions hold at most 96 instructions; computations emitted in place
// may be longer.
inline constexpr int64_t kMostGeneratorDepth = 2000;

// True for element types the cpu backend computes with.
bool IsSupportedElementType(PrimitiveType type);

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>* b, llvm::Module* module) : b_(b), module_(module) {}

  llvm::Type* RegisterType(PrimitiveType type);
  llvm::Type* StorageType(PrimitiveType type);
  llvm::Value* LoadElement(llvm::Value* base, const Shape& shape, const IrIndex& index);
  // A `type` element as stored (StorageType) to its register value (RegisterType), and back.
  llvm::Value* FromStorage(llvm::Value* stored, PrimitiveType type);
  llvm::Value* ToStorage(llvm::Value* value, PrimitiveType type);
  void StoreElement(llvm::Value* value, llvm::Value* base, const Shape& shape, const IrIndex& index);
  // Position of `index` in the storage of `shape` (an i64).
  llvm::Value* StorageOffset(const Shape& shape, const IrIndex& index);

  // The generator of `hlo` given its operands' generators. Handles elementwise ops and the
  // data-movement ops (broadcast, reshape, transpose, slice, dynamic-slice,
  // dynamic-update-slice, concatenate, pad, iota, reverse, reduce, fusion, dot, tuple/gte in
  // fusions).
  absl::StatusOr<Generator> MakeGenerator(const HloInstruction* hlo, const OperandGenerator& operand);

  // One elementwise op on scalar values (register types).
  absl::StatusOr<llvm::Value*> EmitElementwise(const HloInstruction& hlo, absl::Span<llvm::Value* const> operands);
  // A scalar computation (reducers, comparators) applied to scalar values; a tuple root
  // gives one value per element. `result`, when set, names the instruction of the
  // computation whose value to return instead of the root's.
  absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(const HloComputation& computation,
                                                                  absl::Span<llvm::Value* const> args,
                                                                  const HloInstruction* result = nullptr);

  // f16/bf16/f8/f4 <-> f32 (exact widening; one rounding to nearest even when narrowing).
  llvm::Value* WidenToF32(llvm::Value* v, PrimitiveType type);
  llvm::Value* NarrowFromF32(llvm::Value* v, PrimitiveType type);
  // An f64 to a float type as convert does (f16/bf16 through f32, as XLA does).
  llvm::Value* NarrowFromF64(llvm::Value* v, PrimitiveType type);
  // The constant register value of one element stored at `data`.
  llvm::Value* ConstantElement(const void* data, PrimitiveType type);

  // Complex values (elemental_complex.cc): the parts of a c64/c128 register and back.
  std::pair<llvm::Value*, llvm::Value*> ComplexParts(llvm::Value* v, PrimitiveType type);
  llvm::Value* MakeComplex(llvm::Value* re, llvm::Value* im, PrimitiveType type);
  // op through __xla_cpu_complex_c64/c128 (c may be null for unary ops).
  llvm::Value* CallComplexRuntime(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type);
  // op as inline IR (elemental_complex_math.cc) for the ops CallComplexRuntime computes (c
  // null for unary ops): abs gives the component-type value, the others a complex register;
  // null for any other op.
  llvm::Value* EmitInlineComplexOp(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type);
  // Whether every complex op is emitted inline instead of calling the runtime: when the module
  // targets NVPTX (device code cannot call host routines), or, for tests of those forms on
  // the host, when XLA_CPU_INLINE_COMPLEX_MATH=1 is in the environment of the compile.
  bool InlineComplexMath() const;
  // Whether the module targets NVPTX (the gpu backend): a few approximations then use the
  // device's own instructions (math.cc).
  bool TargetsNvptx() const;

  // Approximations emitted inline (math.cc): f32 in, f32 out, vectorizable.
  llvm::Value* EmitExpF32(llvm::Value* x);
  llvm::Value* EmitLogF32(llvm::Value* x);
  llvm::Value* EmitTanhF32(llvm::Value* x);
  llvm::Value* EmitLogisticF32(llvm::Value* x);

  // Generators of the windowed, indexed and mapped ops, each in its own file (emit_conv.cc,
  // emit_window.cc, emit_gather.cc, emit_map.cc).
  absl::StatusOr<Generator> MakeConvolutionGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeReduceWindowGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeGatherGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeMapGenerator(const HloInstruction* hlo, const OperandGenerator& operand);  // emit_map.cc
  absl::StatusOr<Generator> MakeDeviceIdGenerator(const HloInstruction* hlo);
  // ragged-dot and scaled-dot: a dot with group masks or block scales (emit_ragged_dot.cc).
  absl::StatusOr<Generator> MakeContractionGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  // ragged-all-to-all with one peer (emit_ragged_all_to_all.cc); its offsets are checked first.
  absl::StatusOr<Generator> MakeRaggedAllToAllGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  // bitcast-convert between element widths and stochastic-convert (emit_convert_ops.cc).
  absl::StatusOr<Generator> MakeBitcastConvertGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeStochasticConvertGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  // A scalar index of integer `type` as i64 (u64 past INT64_MAX saturates).
  llvm::Value* IndexToI64(llvm::Value* v, PrimitiveType type);

  llvm::IRBuilder<>* b() { return b_; }
  void ClearCache() {
    cache_.clear();
    scalar_cache_.clear();
  }
  // A generator of `operand` that looks it up in `generators` when called (a copy of its
  // closure would copy its operands' closures in turn, 2^depth of them where values are used
  // twice). Each call counts against `evaluations` (kMostFusedEvaluations; `owner` is named
  // in the error) and goes one level deeper in the chain of generators calling their
  // operands' (kMostGeneratorDepth). `generators` must outlive the generator: it is held by
  // address, since the generator usually lives in that map.
  Generator OperandLookup(const std::map<const HloInstruction*, Generator>* generators, const HloInstruction* operand,
                          std::shared_ptr<int64_t> evaluations, const HloInstruction* owner);

  // Generators of every instruction in fusion `hlo`'s computation (fusion_emitter.cc). While an
  // override is set for a fused instruction, its generator calls the override instead (with
  // the generator that computes the value), so a kernel can give row reductions their
  // per-row value or keep a row of a shared subexpression.
  using FusionGenerators = std::shared_ptr<std::map<const HloInstruction*, Generator>>;
  using FusedOverride = std::function<absl::StatusOr<llvm::Value*>(const IrIndex&, const Generator& compute)>;
  absl::StatusOr<FusionGenerators> MakeFusionGenerators(const HloInstruction* hlo, const OperandGenerator& operand);
  void SetFusedOverride(const HloInstruction* inner, FusedOverride f) { fused_overrides_[inner] = std::move(f); }
  void ClearFusedOverrides() { fused_overrides_.clear(); }

 private:
  absl::StatusOr<llvm::Value*> EmitUnary(const HloInstruction& hlo, llvm::Value* x, PrimitiveType in,
                                         PrimitiveType out);
  absl::StatusOr<llvm::Value*> EmitBinary(const HloInstruction& hlo, llvm::Value* a, llvm::Value* c,
                                          PrimitiveType type);
  absl::StatusOr<llvm::Value*> EmitFloatUnary(HloOpcode op, llvm::Value* x, llvm::Type* t);
  absl::StatusOr<llvm::Value*> EmitFloatBinary(HloOpcode op, llvm::Value* a, llvm::Value* c, llvm::Type* t);
  absl::StatusOr<llvm::Value*> EmitIntBinary(HloOpcode op, llvm::Value* a, llvm::Value* c, bool is_signed,
                                             int bits);
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction& hlo, llvm::Value* a, llvm::Value* c,
                                           PrimitiveType type);
  absl::StatusOr<llvm::Value*> EmitConvert(llvm::Value* x, PrimitiveType from, PrimitiveType to);
  absl::StatusOr<llvm::Value*> EmitComplexUnary(const HloInstruction& hlo, llvm::Value* x, PrimitiveType in);
  // Null when `op` is not defined on complex numbers.
  llvm::Value* EmitComplexBinary(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type);
  absl::StatusOr<llvm::Value*> EmitComplexConvert(llvm::Value* x, PrimitiveType from, PrimitiveType to);
  // The element's bits as an integer of its bit width (pred: 8 bits) and back.
  llvm::Value* ToBits(llvm::Value* v, PrimitiveType type);
  llvm::Value* FromBits(llvm::Value* bits, PrimitiveType type);
  // EmitScalarComputation of a computation with array ops inside (through generators).
  absl::StatusOr<std::vector<llvm::Value*>> EmitGeneratedComputation(const HloComputation& computation,
                                                                     absl::Span<llvm::Value* const> args);
  absl::StatusOr<Generator> MakeReduceGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeDotGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  absl::StatusOr<Generator> MakeFusionGenerator(const HloInstruction* hlo, const OperandGenerator& operand);
  llvm::Value* CallLibm(const char* name, llvm::Type* t, absl::Span<llvm::Value* const> args);
  llvm::Value* I64(int64_t v) { return b_->getInt64(v); }

  llvm::IRBuilder<>* b_;
  llvm::Module* module_;
  // Values generated for (hlo, index) in one basic block, so shared subexpressions of a
  // fusion are emitted once.
  std::map<std::tuple<const HloInstruction*, std::vector<llvm::Value*>, llvm::BasicBlock*>, llvm::Value*> cache_;
  // The same for scalar elementwise values, within one binding of a computation's parameters
  // (`binding_`: EmitGeneratedComputation starts a new one for each call and restores the
  // caller's after), so that a chain of values each used twice (x2 = add(x1, x1), ...) is
  // emitted once per value, not once per path.
  std::map<std::tuple<const HloInstruction*, int64_t, llvm::BasicBlock*>, llvm::Value*> scalar_cache_;
  int64_t binding_ = 0, bindings_ = 0;
  int64_t generator_depth_ = 0;  // see OperandLookup
  // See MakeFusionGenerators.
  std::map<const HloInstruction*, FusedOverride> fused_overrides_;
};

// (a + bi)(c + di) as C99 Annex G (std::complex's product), branch-free (elemental_complex.cc).
std::pair<llvm::Value*, llvm::Value*> AnnexGMultiply(llvm::IRBuilder<>* b, llvm::Value* a, llvm::Value* bi,
                                                     llvm::Value* c, llvm::Value* d);

// Emits loops over [0, dims) in `shape`'s layout order, innermost minor; `body` gets the
// index (with the linear storage position of `shape`). The outermost dimension runs over
// [begin, end) (rank 0: body runs once when begin < end).
absl::Status EmitLoopNest(llvm::IRBuilder<>* b, const Shape& shape, llvm::Value* begin, llvm::Value* end,
                          const std::function<absl::Status(const IrIndex&)>& body);

// The loops of a kernel computing `hlo` over `iteration`: EmitLoopNest, except that a fusion
// with row reductions computes them once per row first (fusion_emitter.cc).
absl::Status EmitKernelLoops(ElementalEmitter* e, const HloInstruction* hlo, const OperandGenerator& operand,
                             const Shape& iteration, llvm::Value* begin, llvm::Value* end,
                             const std::function<absl::Status(const IrIndex&)>& body);

// In `shape`'s storage order, the elements more minor than dimension `dim` (`inner`: the
// stride between one row's elements) and the rows more major (`outer`): sort's rows.
struct RowsAround {
  int64_t inner = 1;
  int64_t outer = 1;
};
RowsAround StorageRowsAround(const Shape& shape, int64_t dim);

// scatter and select-and-scatter (emit_scatter.cc): one sequential loop nest, in a kernel
// run once, that fills the outputs and then combines updates into them in place.
struct SerialOutput {
  llvm::Value* base;
  Shape shape;
};
absl::Status EmitScatterLoops(ElementalEmitter* e, const HloInstruction* hlo, const std::vector<Generator>& operands,
                              const std::vector<SerialOutput>& outputs);
absl::Status EmitSelectAndScatterLoops(ElementalEmitter* e, const HloInstruction* hlo,
                                       const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs);

// The scan of one row of cumulative reduce-window `hlo` (cumulative_window.h): `row` indexes every dimension but
// w.dimension (whose entry is ignored).
absl::Status EmitCumulativeRow(ElementalEmitter* e, const HloInstruction* hlo, const CumulativeWindow& w,
                               const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               std::vector<llvm::Value*> row);
// How a cumulative reduce-window's scans split into items a parallel_for shares out, for an
// output laid out as `out`: the dimensions more minor than the scan's (inner, minor-most first)
// and more major (outer). With inner == 1 an item is a row; else a tile of up to
// kCumulativeWindowTile adjacent rows scanned side by side, `tiles` of them per outer position.
inline constexpr int64_t kCumulativeWindowTile = 256;
struct CumulativeWindowSplit {
  CumulativeWindow window;
  int64_t length = 0;
  std::vector<int64_t> inner_dims, outer_dims;
  int64_t inner = 1, outer = 1, tile = 1, tiles = 1;
  int64_t items() const { return outer * tiles; }
};
absl::StatusOr<CumulativeWindowSplit> SplitCumulativeWindow(const HloInstruction& hlo, const Shape& out);
// The scans of items [begin, end) of `split` (SplitCumulativeWindow(*hlo, outputs[0].shape));
// items are independent, so threads may run disjoint ranges at once.
absl::Status EmitCumulativeWindowRange(ElementalEmitter* e, const HloInstruction* hlo, const CumulativeWindowSplit& split,
                                       const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                                       llvm::Value* begin, llvm::Value* end);

// Along one window dimension `w` over an operand extent of `operand_size`: the operand
// position window position k of output (or source) position `out` reads, and whether it lies
// on the operand (not on padding, nor between base-dilated elements). Shared by the
// reduce-window and select-and-scatter emitters.
struct WindowPosition {
  llvm::Value* position;
  llvm::Value* on_operand;
};
WindowPosition EmitWindowPosition(llvm::IRBuilder<>* b, llvm::Value* out, llvm::Value* k, const WindowDimension& w,
                                  int64_t operand_size);
// Loops over the window positions of `dims` (window dimension numbers, outermost first) at
// output (or source) position outs[j] of each, over operand extents operand_sizes[j]; `body`
// gets each dimension's window index k and operand position and whether all of them are on
// the operand. Window indices come in row-major order. A dimension ClippedWindowDimensions
// names visits only the window positions that land on the operand (a range solved for at
// the output position, stepping over base-dilation holes), so a window reaching far into
// padding costs the elements it covers, not its size; the others count over the whole window
// (a constant trip count, which unrolls), padding positions flagged. Over an empty operand
// dimension no position lands: `body` is not emitted.
absl::Status EmitWindowLoops(
    llvm::IRBuilder<>* b, const Window& window, const std::vector<int64_t>& dims, const std::vector<llvm::Value*>& outs,
    const std::vector<int64_t>& operand_sizes, const char* name,
    const std::function<absl::Status(const std::vector<llvm::Value*>& k, const std::vector<llvm::Value*>& position,
                                     llvm::Value* on_operand)>& body);
// The window dimensions EmitWindowLoops solves for: those of more than kClipWindowSize
// positions, and then the largest until the others' positions multiply to at most
// kUnclippedWindowPositions (a many-dimensional window of small sizes over a small array).
constexpr int64_t kClipWindowSize = 16;
constexpr int64_t kUnclippedWindowPositions = 4096;
std::vector<bool> ClippedWindowDimensions(const Window& window);
// A window dimension of one element, stride 1 and no padding or dilation: output position i
// reads operand position i alone.
bool IsTrivialWindowDimension(const WindowDimension& w);

// A reduce-window whose minor-most output dimensions (in the output's layout) have windows of
// one element, stride 1 and no padding or dilation, as NHWC pooling's channels (inner, minor-
// most first; `inner` elements), the others outer (minor-most first; `outer` positions, the
// items a parallel_for shares out; `window` positions each). An item's inner elements start
// from the init values in the outputs, then take the reducer of each window position in turn
// in row-major window order, as the interpreter applies it, with the loop over the inner
// elements innermost: it runs over adjacent memory (and vectorizes), and a window position's
// padding check is made once for all of them. nullopt for other reduce-windows, and where
// fewer than 8 inner elements would gain little.
struct InnerWindowSplit {
  std::vector<int64_t> inner_dims, outer_dims;
  int64_t inner = 1, outer = 1, window = 1;
};
std::optional<InnerWindowSplit> SplitInnerWindow(const HloInstruction& hlo, const Shape& out);
// Items [begin, end) of `split` (SplitInnerWindow(*hlo, outputs[0].shape)).
absl::Status EmitInnerWindowRange(ElementalEmitter* e, const HloInstruction* hlo, const InnerWindowSplit& split,
                                  const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                                  llvm::Value* begin, llvm::Value* end);

// The pieces those loops are made of, for emitters that order the work otherwise (the gpu
// backend runs updates a thread each where that cannot change the result).
//
// output[i] = value(i, index) over the whole output (all outputs share one shape).
absl::Status EmitScatterFill(ElementalEmitter* e, const std::vector<SerialOutput>& outputs,
                             const std::function<absl::StatusOr<llvm::Value*>(size_t, const IrIndex&)>& value);
// Nested counted loops over `dims` (row-major, outermost first); `body` gets the indices.
absl::Status EmitLoopsOver(llvm::IRBuilder<>* b, const std::vector<int64_t>& dims, const char* name,
                           const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body);

// A scatter's index arithmetic. An update element's position splits into g, its position
// over the update's scatter (batch) dimensions, and w, over its window dimensions.
class ScatterIndexing {
 public:
  // INVALID_ARGUMENT when the dimension numbers do not fit the shapes.
  static absl::StatusOr<ScatterIndexing> Make(const HloInstruction* hlo);

  int64_t outputs() const { return n_; }
  const std::vector<int64_t>& batch_sizes() const { return batch_sizes_; }
  const std::vector<int64_t>& window_extent() const { return window_extent_; }
  // True when the indices move no window dimension (each starts at 0 in every window):
  // then two different window positions never write the same output element.
  bool WindowsDisjoint() const;

  // Where batch position g's window starts in the operand, and whether the whole window
  // fits in it (one that would leave the operand is skipped entirely, as XLA's evaluator).
  struct Start {
    std::vector<llvm::Value*> start;
    llvm::Value* fits = nullptr;
  };
  absl::StatusOr<Start> EmitStart(ElementalEmitter* e, const Generator& indices,
                                  const std::vector<llvm::Value*>& g) const;
  // The output element window position w of `start` writes, and the update element
  // (g, w) holds.
  IrIndex OutputIndex(llvm::IRBuilder<>* b, const Start& start, const std::vector<llvm::Value*>& w) const;
  IrIndex UpdateIndex(const std::vector<llvm::Value*>& g, const std::vector<llvm::Value*>& w) const;
  // outputs[i] at the element (start, w) = combiner(that element, update (g, w)), each
  // read and written once.
  absl::Status EmitUpdate(ElementalEmitter* e, const std::vector<Generator>& operands,
                          const std::vector<SerialOutput>& outputs, const Start& start,
                          const std::vector<llvm::Value*>& g, const std::vector<llvm::Value*>& w) const;

 private:
  const HloInstruction* hlo_ = nullptr;
  int64_t n_ = 0, rank_ = 0, vector_dim_ = 0;
  Shape in_shape_, indices_shape_, up_shape_;
  std::vector<int64_t> window_update_dims_, batching_, to_operand_, indices_batch_dims_, batch_sizes_;
  std::vector<int64_t> window_dims_, scatter_update_dims_, batching_position_, window_extent_, window_size_;
};

// select-and-scatter's selection in the window of source position s: whether the window
// holds any operand element and, if so, the selected element's position (the first valid
// element, replaced by a later one whenever select(selection, element) is false).
// INVALID_ARGUMENT when the window does not fit the operand's rank.
struct WindowSelection {
  llvm::Value* have = nullptr;
  std::vector<llvm::Value*> position;
};
absl::Status CheckSelectAndScatter(const HloInstruction* hlo);
absl::StatusOr<WindowSelection> EmitSelectInWindow(ElementalEmitter* e, const HloInstruction* hlo,
                                                   const Generator& operand, const std::vector<llvm::Value*>& s);
// The loops above without the fill: every update in the interpreter's order, combined into
// outputs that already hold the operands (scatter) or the init value (select-and-scatter).
absl::Status EmitScatterUpdates(ElementalEmitter* e, const ScatterIndexing& s, const std::vector<Generator>& operands,
                                const std::vector<SerialOutput>& outputs);
absl::Status EmitSelectAndScatterUpdates(ElementalEmitter* e, const HloInstruction* hlo,
                                         const std::vector<Generator>& operands, const SerialOutput& out);
// A select-and-scatter whose output's minor-most dimension has a window of one element,
// stride 1 and no padding or dilation, as NHWC max pooling's channels (`lane_dim`): items are
// a position of the other such dimensions (`fixed_dims`, row-major) and a chunk of up to
// kSelectLanes lanes of lane_dim. An item fills its part of the output, then takes its source
// positions in row-major order, each window's selection made for all lanes at once, window
// position by window position (the loop over lanes innermost: it vectorizes), then each
// lane's source scattered to its selected element. Lanes and items never share an output
// element, and each element's updates come in the interpreter's order, so the result is the
// serial loops' for any select and scatter. nullopt for other select-and-scatters.
inline constexpr int64_t kSelectLanes = 64;
struct InnerSelectSplit {
  int64_t lane_dim = 0, lanes = 0, chunks = 1, fixed = 1;
  std::vector<int64_t> fixed_dims, window_dims;  // window_dims: the others, ascending
  int64_t items() const { return fixed * chunks; }
};
std::optional<InnerSelectSplit> SplitInnerSelect(const HloInstruction& hlo, const Shape& out);
// Items [begin, end) of `split` (SplitInnerSelect(*hlo, out.shape), which checked `hlo`).
absl::Status EmitInnerSelectRange(ElementalEmitter* e, const HloInstruction* hlo, const InnerSelectSplit& split,
                                  const std::vector<Generator>& operands, const SerialOutput& out, llvm::Value* begin,
                                  llvm::Value* end);

// sort (emit_sort.cc): copies the operands into the outputs and sorts them in place
// through the runtime with a compiled comparator.
absl::Status EmitSortLoops(ElementalEmitter* e, const HloInstruction* hlo, const std::vector<Generator>& operands,
                           const std::vector<SerialOutput>& outputs);

// Function attribute of a kernel whose output (the slot it names) is written with streaming
// stores: jit.cc makes its aligned vector stores to that slot non-temporal after optimization.
inline constexpr char kStreamingSlotAttribute[] = "xla-streaming-slot";

struct BufferPlan;
// Emits `int32_t name(void** slots, void* run_context)`, running the module's entry computation
// over the slot table described by `plan`; returns 0, or 1 when __xla_cpu_cancelled(run_context)
// said the execution was cancelled (polled once per while-loop iteration), or 2 when a runtime
// routine (infeed) stopped it with the error in the RunContext (runtime/runtime.h).
absl::Status EmitEntryFunction(const HloModule& module, const BufferPlan& plan, llvm::Module* llvm_module,
                               const std::string& name);

// A counted loop [start, limit) at the builder's position; continues after it.
absl::Status EmitForLoop(llvm::IRBuilder<>* b, llvm::Value* start, llvm::Value* limit, const char* name,
                         const std::function<absl::Status(llvm::Value* i)>& body);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
