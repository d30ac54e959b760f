#ifndef XLA_HLO_BUILDER_XLA_BUILDER_H_
#define XLA_HLO_BUILDER_XLA_BUILDER_H_

// The client-side XlaBuilder: builds an HLO computation op by op, inferring shapes as
// it goes, with XLA's builder-level semantics (implicit broadcasting with
// broadcast_dimensions, Broadcast prepending dimensions, degenerate-dimension broadcast
// through reshape + broadcast, ...).
//
// Like XLA, the builder records HloInstructionProtos. Instruction ids come from a
// per-builder counter starting at 1; names are "<opcode or given name>.<id>", the entry
// computation is "<builder name>.<id>" (id taken at Build time), and computations passed
// as XlaComputation (reducers, loop bodies, ...) are copied in with fresh ids, so the
// same text can be written down by hand in tests.
//
// Errors: the first error is kept; later ops return an XlaOp and do nothing; Build()
// returns that first error. Ops never abort on bad input.
//
// Canonical attributes: fields whose value is XLA's default (comparison type matching
// the element type, feature_group_count 1, ...) are left unset, which is what the HLO
// text parser produces for text that omits them, so built and parsed modules compare
// equal.
//
// Not thread-safe. An XlaOp is only valid with the builder that made it.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/builder/xla_computation.h"
#include "hlo/comparison_util.h"
#include "hlo/hlo_opcode.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"
#include "proto/xla_data.pb.h"

namespace xla {

class XlaBuilder;

// Convolution / window padding shorthand (XLA's padding.h).
enum class Padding { kSame, kValid };
// (low, high) padding per spatial dimension so that the output has ceil(in/stride)
// elements (kSame) or no padding (kValid).
std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides,
                                                     Padding padding);

class XlaOp {
 public:
  XlaOp() = default;
  ~XlaOp() = default;

  // The builder that made this op; nullptr for a default-constructed op.
  XlaBuilder* builder() const { return builder_; }
  // False for default-constructed ops and for ops returned after an error.
  bool valid() const { return handle_ >= 0 && builder_ != nullptr; }
  bool IsUninitialized() const { return builder_ == nullptr; }
  int64_t handle() const { return handle_; }
  bool IsIdenticalTo(const XlaOp& other) const {
    return handle_ == other.handle_ && builder_ == other.builder_;
  }

 private:
  explicit XlaOp(XlaBuilder* builder) : builder_(builder) {}
  XlaOp(int64_t handle, XlaBuilder* builder) : handle_(handle), builder_(builder) {}
  friend class XlaBuilder;

  int64_t handle_ = -1;
  XlaBuilder* builder_ = nullptr;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string computation_name);
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;
  ~XlaBuilder();

  const std::string& name() const { return name_; }

  // A builder for a computation this one will call (reducer, body, ...). Its errors are
  // reported to this builder by BuildAndNoteError().
  std::unique_ptr<XlaBuilder> CreateSubBuilder(const std::string& computation_name);

  // Builds with the last added op (or `root`) as root. Clears the builder on success.
  absl::StatusOr<XlaComputation> Build();
  absl::StatusOr<XlaComputation> Build(XlaOp root);
  // For sub-builders: Build(), and on failure record the error in the parent builder and
  // return an empty computation.
  XlaComputation BuildAndNoteError();

  // --- errors ---
  absl::Status first_error() const { return first_error_; }
  absl::Status GetCurrentStatus() const { return first_error_; }
  // Records `error` if it is the first one; returns an invalid XlaOp of this builder.
  XlaOp ReportError(const absl::Status& error);
  XlaOp ReportErrorOrReturn(const absl::StatusOr<XlaOp>& op);
  XlaOp ReportErrorOrReturn(absl::FunctionRef<absl::StatusOr<XlaOp>()> op_creator);

  // --- queries ---
  absl::StatusOr<Shape> GetShape(XlaOp op) const;
  absl::StatusOr<const Shape*> GetShapePtr(XlaOp op) const;
  absl::StatusOr<std::vector<Shape>> GetOperandShapes(absl::Span<const XlaOp> operands) const;
  // Program shape with the last added op (or `root`) as result.
  absl::StatusOr<ProgramShape> GetProgramShape() const;
  absl::StatusOr<ProgramShape> GetProgramShape(XlaOp root) const;
  // True when `operand` depends on no parameter and no stateful or side-effecting op
  // (rng, infeed, outfeed, send/recv, collectives, call, while, custom-call...).
  absl::StatusOr<bool> IsConstant(XlaOp operand) const;
  // The recorded instruction of an op (name is the base name until Build()).
  absl::StatusOr<const HloInstructionProto*> LookUpInstruction(XlaOp op) const;

  // --- attributes applied to ops added while set ---
  void SetOpMetadata(OpMetadata metadata) { metadata_ = std::move(metadata); }
  void ClearOpMetadata() { metadata_.Clear(); }
  void SetSharding(const OpSharding& sharding) { sharding_ = sharding; }
  void ClearSharding() { sharding_.reset(); }
  const std::optional<OpSharding>& sharding() const { return sharding_; }
  // Returns the previous attributes.
  FrontendAttributes SetFrontendAttributes(const FrontendAttributes& attributes);
  void ClearFrontendAttributes() { frontend_attributes_.Clear(); }
  const FrontendAttributes& frontend_attributes() const { return frontend_attributes_; }
  // Per-instruction overrides.
  absl::Status SetInstructionFrontendAttribute(XlaOp op, std::string attribute, std::string value);
  absl::Status SetInstructionSharding(XlaOp op, const std::optional<OpSharding>& sharding);

  // Output `output_index` of the entry result may reuse the buffer of parameter
  // `param_number` at `param_index` (module input_output_alias). Checked at Build().
  void SetUpAlias(const ShapeIndex& output_index, int64_t param_number,
                  const ShapeIndex& param_index, Kind kind = MAY_ALIAS);
  // The parameter buffer may be donated to any output (module buffer_donor).
  void AddBufferDonor(int64_t param_number, const ShapeIndex& param_index);

  // --- low level, used by the op functions ---
  // Records an instruction with the given (complete) shape in instr.shape().
  absl::StatusOr<XlaOp> AddInstruction(HloInstructionProto&& instr, HloOpcode opcode,
                                       absl::Span<const XlaOp> operands = {});
  // Parameters: also checks that the number is not used yet.
  absl::StatusOr<XlaOp> AddParameterInstruction(HloInstructionProto&& instr,
                                                int64_t parameter_number);
  absl::StatusOr<XlaOp> AddOpWithShape(HloOpcode opcode, const Shape& shape,
                                       absl::Span<const XlaOp> operands);
  // Infers the shape with InferHloShape from the operands, `instr`'s attributes and the
  // called computations already added to `instr` (AddCalledComputation), then records it.
  // With `declared_shape`, instr's shape is checked as the verifier checks it (ops whose
  // shape must be given, such as dynamic-reshape, validate it against their operands).
  absl::StatusOr<Shape> InferShape(const HloInstructionProto& instr, HloOpcode opcode,
                                   absl::Span<const XlaOp> operands, bool declared_shape = false) const;
  absl::StatusOr<XlaOp> AddInferredInstruction(HloInstructionProto&& instr, HloOpcode opcode,
                                               absl::Span<const XlaOp> operands);
  // The same for an instruction whose shape `instr` already declares.
  absl::StatusOr<XlaOp> AddCheckedInstruction(HloInstructionProto&& instr, HloOpcode opcode,
                                              absl::Span<const XlaOp> operands);
  // Copies `computation` (and everything it calls) into this builder with fresh ids and
  // appends its entry id to instr->called_computation_ids().
  absl::Status AddCalledComputation(const XlaComputation& computation, HloInstructionProto* instr);
  // Builder-level helpers shared by the op families.
  absl::StatusOr<XlaOp> InDimBroadcast(const Shape& shape, XlaOp operand,
                                       absl::Span<const int64_t> broadcast_dimensions);
  // Broadcasts a scalar, or an operand of the same rank whose differing dims are 1
  // (reshaped away first), to `output_shape`'s dimensions.
  absl::StatusOr<XlaOp> AddBroadcastSequence(const Shape& output_shape, XlaOp operand);

 private:
  struct Alias {
    ShapeIndex output_index;
    int64_t param_number;
    ShapeIndex param_index;
    Kind kind;
  };

  int64_t GetNextId() { return ++next_id_; }
  absl::Status CheckOpBuilder(XlaOp op) const;
  absl::StatusOr<ProgramShape> GetProgramShapeForRoot(int64_t root_id) const;
  absl::StatusOr<XlaComputation> BuildWithRoot(int64_t root_id);
  absl::Status PopulateAliases(HloModuleProto* module, const ProgramShape& program_shape) const;
  void IsConstantVisitor(int64_t handle, std::map<int64_t, bool>* visited, bool* is_constant) const;

  std::string name_;
  XlaBuilder* parent_builder_ = nullptr;
  int64_t next_id_ = 0;
  absl::Status first_error_;

  std::vector<HloInstructionProto> instructions_;
  std::vector<Shape> instruction_shapes_;
  std::map<int64_t, int64_t> handle_to_index_;
  std::map<int64_t, HloComputationProto> embedded_;  // by id: module order
  std::map<int64_t, int64_t> parameter_numbers_;     // number -> handle

  OpMetadata metadata_;
  std::optional<OpSharding> sharding_;
  FrontendAttributes frontend_attributes_;
  std::vector<Alias> aliases_;
  std::vector<std::pair<int64_t, ShapeIndex>> buffer_donors_;
};

// ===================================================================================
// Ops. Every function reports errors to the builder of its (first) operand.
// ===================================================================================

// --- parameters, constants, iota ---
XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number, const Shape& shape,
                const std::string& name, const std::vector<bool>& replicated_at_leaf_buffers = {});
// An array with more than one element, all equal, becomes a scalar constant + broadcast,
// as in XLA.
XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal);
template <typename T>
XlaOp ConstantR0(XlaBuilder* builder, T value) {
  return ConstantLiteral(builder, Literal::CreateR0<T>(value));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, absl::Span<const T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(values));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, std::initializer_list<T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(absl::Span<const T>(values.begin(), values.size())));
}
template <typename T>
XlaOp ConstantR2(XlaBuilder* builder, std::initializer_list<std::initializer_list<T>> values) {
  return ConstantLiteral(builder, Literal::CreateR2<T>(values));
}
// Scalar zero / one of `type`.
XlaOp Zero(XlaBuilder* builder, PrimitiveType type);
XlaOp One(XlaBuilder* builder, PrimitiveType type);
XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension);
XlaOp Iota(XlaBuilder* builder, PrimitiveType type, int64_t size);

// --- elementwise unary ---
XlaOp Abs(XlaOp operand);
XlaOp Neg(XlaOp operand);
XlaOp Exp(XlaOp operand);
XlaOp Expm1(XlaOp operand);
XlaOp Log(XlaOp operand);
XlaOp Log1p(XlaOp operand);
XlaOp Logistic(XlaOp operand);
XlaOp Sign(XlaOp operand);
XlaOp Floor(XlaOp operand);
XlaOp Ceil(XlaOp operand);
XlaOp Round(XlaOp operand);  // half away from zero
XlaOp RoundNearestEven(XlaOp operand);
XlaOp Sqrt(XlaOp operand);
XlaOp Rsqrt(XlaOp operand);
XlaOp Cbrt(XlaOp operand);
XlaOp Sin(XlaOp operand);
XlaOp Cos(XlaOp operand);
XlaOp Tan(XlaOp operand);
XlaOp Tanh(XlaOp operand);
XlaOp Acos(XlaOp operand);
XlaOp Acosh(XlaOp operand);
XlaOp Asin(XlaOp operand);
XlaOp Asinh(XlaOp operand);
XlaOp Atanh(XlaOp operand);
XlaOp Cosh(XlaOp operand);
XlaOp Sinh(XlaOp operand);
XlaOp Erf(XlaOp operand);
// The inverse of erf on (-1, 1), composed from HLO as in XLA's client library (no opcode):
// Giles's single-precision polynomials ("Approximating the erfinv function", 2010), refined
// by two Newton steps on erf for f64; f16 and bf16 computed in f32; +-inf at +-1, nan
// outside [-1, 1].
XlaOp ErfInv(XlaOp x);
XlaOp IsFinite(XlaOp operand);
XlaOp Not(XlaOp operand);
XlaOp PopulationCount(XlaOp operand);
XlaOp Clz(XlaOp operand);
XlaOp Real(XlaOp operand);
XlaOp Imag(XlaOp operand);
XlaOp Conj(XlaOp operand);  // Complex(Real(x), Neg(Imag(x)))
XlaOp Square(XlaOp operand);  // x * x
XlaOp Copy(XlaOp operand);

// --- elementwise binary: same rank (dims equal or 1), a scalar, or a lower-rank operand
// mapped into the higher-rank one with broadcast_dimensions ---
XlaOp Add(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Sub(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Mul(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Div(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Rem(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Max(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Min(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Pow(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp And(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Or(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Xor(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftLeft(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightArithmetic(XlaOp lhs, XlaOp rhs,
                           absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightLogical(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Complex(XlaOp real, XlaOp imag, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Atan2(XlaOp y, XlaOp x, absl::Span<const int64_t> broadcast_dimensions = {});

// --- comparisons ---
XlaOp Eq(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ne(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ge(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Gt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Le(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Lt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp EqTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp NeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GtTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LtTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction, ComparisonType type);
XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction);
XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction);

// --- ternary (scalars are broadcast to the non-scalar operands' dimensions) ---
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);

// --- type changes ---
// Complex to real types go through Real() first, as in XLA.
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type);
// Different bit widths add (narrower) or remove (wider) a minor dimension.
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type);
// Converts to `new_element_type` rounding stochastically by `random` (unsigned integers of the
// operand's width and dimensions).
XlaOp StochasticConvertType(XlaOp operand, XlaOp random, PrimitiveType new_element_type);
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);

XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions, absl::Span<const XlaOp> static_operands = {});

// --- shape manipulation ---
// Result dims = broadcast_sizes ++ operand dims.
XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes);
// Operand dim i goes to output dim broadcast_dimensions[i]; size-1 operand dims may
// broadcast to any size.
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
// Transposes by `dimensions` first (when not the identity), then reshapes.
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions,
              absl::Span<const int64_t> new_sizes);
XlaOp Reshape(const Shape& shape, XlaOp operand);
// A reshape to run-time sizes: dim_sizes (s32 scalars) for the dimensions flagged in
// dims_are_dynamic, each at most its bound in new_size_bounds.
XlaOp DynamicReshape(XlaOp operand, absl::Span<const XlaOp> dim_sizes, absl::Span<const int64_t> new_size_bounds,
                     const std::vector<bool>& dims_are_dynamic);
// Reshape to `new_sizes` whose size at `inferred_dimension` (ignored as given) is whatever
// makes up the operand's elements.
XlaOp ReshapeWithInferredDimension(XlaOp operand, absl::Span<const int64_t> new_sizes, int64_t inferred_dimension);
// Merges the consecutive dimensions `dimensions` into one.
XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices, absl::Span<const int64_t> strides);
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride,
                 int64_t dimno);
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes);
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices);
XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands, int64_t dimension);
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config);
XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimno, int64_t pad_lo, int64_t pad_hi);
XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements);
XlaOp GetTupleElement(XlaOp tuple_data, int64_t index);
XlaOp GetDimensionSize(XlaOp operand, int64_t dimension);
XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension);
XlaOp RemoveDynamicDimension(XlaOp operand, int64_t dimension);

// --- gather / scatter / sort ---
XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted = false);
XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted = false,
              bool unique_indices = false);
XlaOp Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices,
              absl::Span<const XlaOp> updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted = false,
              bool unique_indices = false);
// dimension -1 means the last dimension.
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator,
           int64_t dimension = -1, bool is_stable = false);
XlaOp TopK(XlaOp operand, int64_t k, bool largest = true);

// --- reductions, windows ---
XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation);
XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding);
XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding);
XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source,
                       XlaOp init_value, const XlaComputation& scatter);
XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                                         XlaOp source, XlaOp init_value,
                                         const XlaComputation& scatter);

// --- dot, convolution, linear algebra ---
XlaOp Dot(XlaOp lhs, XlaOp rhs, const PrecisionConfig* precision_config = nullptr,
          std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers,
                 const PrecisionConfig* precision_config = nullptr,
                 std::optional<PrimitiveType> preferred_element_type = std::nullopt);
// A dot whose lhs ragged dimension is split into groups of group_sizes rows (XLA's
// ragged-dot): with the rhs group dimension, group g's rows meet rhs[g].
XlaOp RaggedDot(XlaOp lhs, XlaOp rhs, XlaOp group_sizes, const RaggedDotDimensionNumbers& dimension_numbers,
                const PrecisionConfig* precision_config = nullptr,
                std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count = 1, int64_t batch_group_count = 1,
           const PrecisionConfig* precision_config = nullptr,
           std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding,
                             int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                             const PrecisionConfig* precision_config = nullptr,
                             std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                                Padding padding,
                                const ConvolutionDimensionNumbers& dimension_numbers,
                                int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                                const PrecisionConfig* precision_config = nullptr,
                                std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers,
                  int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                  const PrecisionConfig* precision_config = nullptr,
                  std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation,
                         absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers,
                         int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                         const PrecisionConfig* precision_config = nullptr,
                         std::optional<PrimitiveType> preferred_element_type = std::nullopt);
// Batch 0, feature 1, spatial 2.. for input, kernel (output feature 0, input feature 1)
// and output.
ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int num_spatial_dims = 2);
XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length);
XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a);
XlaOp Cholesky(XlaOp a, bool lower);
XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon,
                        int64_t feature_index);
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance,
                         float epsilon, int64_t feature_index);
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean, XlaOp batch_var,
                    XlaOp grad_output, float epsilon, int64_t feature_index);

// --- control flow, calls ---
XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation);
XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands);
XlaOp Call(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands);
XlaOp CustomCall(XlaBuilder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape,
                 const std::string& opaque = "", bool has_side_effect = false,
                 absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>>
                     output_operand_aliasing = {},
                 CustomCallSchedule schedule = SCHEDULE_NONE,
                 CustomCallApiVersion api_version = API_VERSION_ORIGINAL);
XlaOp CustomCallWithComputation(
    XlaBuilder* builder, const std::string& call_target_name, absl::Span<const XlaOp> operands,
    const XlaComputation& computation, const Shape& shape, const std::string& opaque = "",
    bool has_side_effect = false,
    absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>>
        output_operand_aliasing = {},
    CustomCallSchedule schedule = SCHEDULE_NONE,
    CustomCallApiVersion api_version = API_VERSION_ORIGINAL);
// A custom-call carrying a convolution's window and dimension numbers (and a literal when
// `literal` is set); an empty operand_shapes_with_layout leaves the layouts unconstrained.
XlaOp CustomCallWithConvDnums(
    XlaBuilder* builder, const std::string& call_target_name, absl::Span<const XlaOp> operands,
    const Shape& shape, absl::Span<const Shape> operand_shapes_with_layout, const std::string& opaque,
    bool has_side_effect,
    absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>> output_operand_aliasing,
    const Literal* literal, Window window, ConvolutionDimensionNumbers dnums,
    CustomCallSchedule schedule = SCHEDULE_NONE, CustomCallApiVersion api_version = API_VERSION_ORIGINAL);
// A call marked as the decomposition of composite op `name` (frontend attributes
// composite.name, composite.attributes, default "{}", and composite.version, default 0); it
// runs as the call.
XlaOp CompositeCall(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands,
                    const std::string& name, std::optional<absl::string_view> attributes = std::nullopt,
                    std::optional<int64_t> version = std::nullopt);
XlaOp CustomCallWithLayout(XlaBuilder* builder, const std::string& call_target_name,
                           absl::Span<const XlaOp> operands, const Shape& shape_with_layout,
                           absl::Span<const Shape> operand_shapes_with_layout,
                           const std::string& opaque = "", bool has_side_effect = false);
XlaOp OptimizationBarrier(XlaOp operand);

// --- tokens, infeed/outfeed ---
XlaOp CreateToken(XlaBuilder* builder);
XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens);
// Infeed returns the data (the token is created and consumed internally, as in XLA).
XlaOp Infeed(XlaBuilder* builder, const Shape& shape, const std::string& config = "");
XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config = "");
void Outfeed(XlaOp operand, const Shape& shape_with_layout, const std::string& outfeed_config);
XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout,
                       const std::string& outfeed_config);

// --- send/recv (XLA's channels: each send is the pair send + send-done, each receive
// recv + recv-done; handles are positive, of the channel type each names) ---
// Sends operand on a DEVICE_TO_DEVICE channel after a new token (XLA returns nothing).
void Send(XlaOp operand, const ChannelHandle& handle);
// The same after `token`: the send-done token.
XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle);
// Receives a value of `shape` on a DEVICE_TO_DEVICE channel: the data.
XlaOp Recv(XlaBuilder* builder, const Shape& shape, const ChannelHandle& handle);
// The same after `token`: the (data, token) tuple.
XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle);
// Sends an array to the host (DEVICE_TO_HOST channel, is_host_transfer) laid out as
// shape_with_layout: the send-done token.
XlaOp SendToHost(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const ChannelHandle& handle);
// Receives an array of `shape` from the host (HOST_TO_DEVICE channel): the (data, token) tuple.
XlaOp RecvFromHost(XlaOp token, const Shape& shape, const ChannelHandle& handle);

// --- collectives ---
XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                absl::Span<const ReplicaGroup> replica_groups = {},
                const std::optional<ChannelHandle>& channel_id = std::nullopt,
                std::optional<bool> use_global_device_ids = std::nullopt);
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups = {},
                const std::optional<ChannelHandle>& channel_id = std::nullopt,
                std::optional<bool> use_global_device_ids = std::nullopt);
XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension,
                    int64_t shard_count, absl::Span<const ReplicaGroup> replica_groups = {},
                    const std::optional<ChannelHandle>& channel_id = std::nullopt,
                    std::optional<bool> use_global_device_ids = std::nullopt);
// Splits split_dimension into split_count blocks, sends block i to participant i and
// concatenates the blocks received along concat_dimension, in participant order. Without
// groups the participants are 0..split_count-1. The HLO all-to-all splits and concatenates
// along one dimension; for split != concat its result is reshaped, transposed and reshaped
// to move the blocks to concat_dimension, as XLA's builder does. `layout`: the result's.
XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension,
               int64_t split_count, absl::Span<const ReplicaGroup> replica_groups = {},
               const std::optional<Layout>& layout = std::nullopt,
               const std::optional<ChannelHandle>& channel_id = std::nullopt);
// The tuple form of all-to-all: operand i goes to participant i, result i (a tuple element)
// comes from participant i. `layout`: every element's.
XlaOp AllToAllTuple(absl::Span<const XlaOp> operands, absl::Span<const ReplicaGroup> replica_groups = {},
                    const std::optional<Layout>& layout = std::nullopt,
                    const std::optional<ChannelHandle>& channel_id = std::nullopt);
// AllToAll through the tuple form: split_dimension sliced into split_count blocks, exchanged,
// the blocks received concatenated along concat_dimension.
XlaOp AllToAllTuple(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
                    absl::Span<const ReplicaGroup> replica_groups = {},
                    const std::optional<Layout>& layout = std::nullopt,
                    const std::optional<ChannelHandle>& channel_id = std::nullopt);
// Each participant sends rows send_sizes[i] of `input` from input_offsets[i] to participant
// i, which writes them into its `output` at output_offsets[i] (recv_sizes[i] rows from
// participant i): the result is `output` with the rows received.
XlaOp RaggedAllToAll(XlaOp input, XlaOp input_offsets, XlaOp send_sizes, XlaOp output, XlaOp output_offsets,
                     XlaOp recv_sizes, absl::Span<const ReplicaGroup> replica_groups = {},
                     const std::optional<ChannelHandle>& channel_id = std::nullopt);
// Each group's first participant's operand, on every participant of the group.
XlaOp CollectiveBroadcast(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups,
                          const std::optional<ChannelHandle>& channel_id = std::nullopt);
// AllReduce with a sum of the element type (or for pred).
XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups = {});
XlaOp CollectivePermute(XlaOp operand,
                        const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
                        const std::optional<ChannelHandle>& channel_id = std::nullopt);
XlaOp ReplicaId(XlaBuilder* builder);
XlaOp PartitionId(XlaBuilder* builder);

// --- random numbers ---
XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape);
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape);
// Returns (new_state, random bits of `shape`).
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape);

// Operators as in XLA.
XlaOp operator-(XlaOp x);
XlaOp operator+(XlaOp x, XlaOp y);
XlaOp operator-(XlaOp x, XlaOp y);
XlaOp operator*(XlaOp x, XlaOp y);
XlaOp operator/(XlaOp x, XlaOp y);
XlaOp operator%(XlaOp x, XlaOp y);
XlaOp operator~(XlaOp x);
XlaOp operator&(XlaOp x, XlaOp y);
XlaOp operator|(XlaOp x, XlaOp y);
XlaOp operator^(XlaOp x, XlaOp y);
XlaOp operator<<(XlaOp x, XlaOp y);
// Arithmetic shift for signed types, logical for unsigned.
XlaOp operator>>(XlaOp x, XlaOp y);

}  // namespace xla

#endif  // XLA_HLO_BUILDER_XLA_BUILDER_H_
