// XlaBuilder core: instruction recording, ids and names, sub-computations, Build(),
// queries, error handling and the broadcast helpers shared by the op families.

#include "hlo/builder/xla_builder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_opcode.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

// "add.3" -> "add"; names without a '.' are their own base.
std::string BaseName(const std::string& name) {
  size_t pos = name.rfind('.');
  return pos == std::string::npos ? name : name.substr(0, pos);
}

std::string FullName(const std::string& base, int64_t id) { return absl::StrCat(base, ".", id); }

bool IsOpcode(const HloInstructionProto& instr, HloOpcode opcode) {
  return instr.opcode() == HloOpcodeString(opcode);
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides,
                                                     Padding padding) {
  std::vector<std::pair<int64_t, int64_t>> result;
  for (size_t i = 0; i < input_dimensions.size(); ++i) {
    if (padding == Padding::kValid || i >= window_dimensions.size() || i >= window_strides.size() ||
        window_strides[i] <= 0) {
      result.emplace_back(0, 0);
      continue;
    }
    int64_t in = input_dimensions[i], window = window_dimensions[i], stride = window_strides[i];
    int64_t out = (in + stride - 1) / stride;
    int64_t needed = std::max<int64_t>(0, (out - 1) * stride + window - in);
    result.emplace_back(needed / 2, needed - needed / 2);
  }
  return result;
}

XlaBuilder::XlaBuilder(std::string computation_name) : name_(std::move(computation_name)) {}
XlaBuilder::~XlaBuilder() = default;

std::unique_ptr<XlaBuilder> XlaBuilder::CreateSubBuilder(const std::string& computation_name) {
  auto sub = std::make_unique<XlaBuilder>(computation_name);
  sub->parent_builder_ = this;
  return sub;
}

XlaOp XlaBuilder::ReportError(const absl::Status& error) {
  if (first_error_.ok() && !error.ok()) first_error_ = error;
  return XlaOp(this);
}

XlaOp XlaBuilder::ReportErrorOrReturn(const absl::StatusOr<XlaOp>& op) {
  if (!first_error_.ok()) return XlaOp(this);
  if (!op.ok()) return ReportError(op.status());
  return *op;
}

XlaOp XlaBuilder::ReportErrorOrReturn(absl::FunctionRef<absl::StatusOr<XlaOp>()> op_creator) {
  if (!first_error_.ok()) return XlaOp(this);
  return ReportErrorOrReturn(op_creator());
}

absl::Status XlaBuilder::CheckOpBuilder(XlaOp op) const {
  if (op.builder_ == nullptr) {
    return absl::InvalidArgumentError("XlaOp is uninitialized (default-constructed)");
  }
  if (op.builder_ != this) {
    return absl::InvalidArgumentError(absl::StrCat("XlaOp with handle ", op.handle_,
                                                   " is built by builder '", op.builder_->name(),
                                                   "', but is used in builder '", name_, "'"));
  }
  if (op.handle_ < 0 || handle_to_index_.count(op.handle_) == 0) {
    return absl::InvalidArgumentError(absl::StrCat("no XlaOp with handle ", op.handle_,
                                                   " in builder '", name_, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const HloInstructionProto*> XlaBuilder::LookUpInstruction(XlaOp op) const {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(op));
  return &instructions_[handle_to_index_.at(op.handle_)];
}

absl::StatusOr<const Shape*> XlaBuilder::GetShapePtr(XlaOp op) const {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(op));
  return &instruction_shapes_[handle_to_index_.at(op.handle_)];
}

absl::StatusOr<Shape> XlaBuilder::GetShape(XlaOp op) const {
  ASSIGN_OR_RETURN(const Shape* shape, GetShapePtr(op));
  return *shape;
}

absl::StatusOr<std::vector<Shape>> XlaBuilder::GetOperandShapes(
    absl::Span<const XlaOp> operands) const {
  std::vector<Shape> shapes;
  for (XlaOp op : operands) {
    ASSIGN_OR_RETURN(const Shape* shape, GetShapePtr(op));
    shapes.push_back(*shape);
  }
  return shapes;
}

absl::StatusOr<XlaOp> XlaBuilder::AddInstruction(HloInstructionProto&& instr, HloOpcode opcode,
                                                 absl::Span<const XlaOp> operands) {
  RETURN_IF_ERROR(first_error_);
  for (XlaOp op : operands) RETURN_IF_ERROR(CheckOpBuilder(op));
  absl::StatusOr<Shape> shape = Shape::FromProto(instr.shape());
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(HloOpcodeString(opcode)),
                                                   ": invalid result shape: ",
                                                   std::string(shape.status().message())));
  }
  ShapeUtil::SetDefaultLayoutsIfMissing(&*shape);
  *instr.mutable_shape() = shape->ToProto();

  const int64_t handle = GetNextId();
  instr.set_id(handle);
  instr.set_opcode(std::string(HloOpcodeString(opcode)));
  if (instr.name().empty()) instr.set_name(instr.opcode());
  for (XlaOp op : operands) instr.add_operand_ids(op.handle_);
  // Defaults stay unset so that built modules equal parsed text without the attribute.
  if (metadata_.ByteSizeLong() > 0 && !instr.has_metadata()) *instr.mutable_metadata() = metadata_;
  if (sharding_.has_value() && !instr.has_sharding()) *instr.mutable_sharding() = *sharding_;
  for (const auto& [key, value] : frontend_attributes_.map()) {
    instr.mutable_frontend_attributes()->mutable_map()->insert({key, value});
  }
  handle_to_index_[handle] = static_cast<int64_t>(instructions_.size());
  instructions_.push_back(std::move(instr));
  instruction_shapes_.push_back(*std::move(shape));
  return XlaOp(handle, this);
}

absl::StatusOr<XlaOp> XlaBuilder::AddParameterInstruction(HloInstructionProto&& instr,
                                                          int64_t parameter_number) {
  RETURN_IF_ERROR(first_error_);
  if (parameter_numbers_.count(parameter_number) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter ", parameter_number, " already registered"));
  }
  ASSIGN_OR_RETURN(XlaOp op, AddInstruction(std::move(instr), HloOpcode::kParameter));
  parameter_numbers_[parameter_number] = op.handle_;
  return op;
}

absl::StatusOr<XlaOp> XlaBuilder::AddOpWithShape(HloOpcode opcode, const Shape& shape,
                                                 absl::Span<const XlaOp> operands) {
  HloInstructionProto instr;
  *instr.mutable_shape() = shape.ToProto();
  return AddInstruction(std::move(instr), opcode, operands);
}

absl::StatusOr<Shape> XlaBuilder::InferShape(const HloInstructionProto& instr, HloOpcode opcode,
                                             absl::Span<const XlaOp> operands, bool declared_shape) const {
  std::vector<const Shape*> operand_shapes;
  for (XlaOp op : operands) {
    ASSIGN_OR_RETURN(const Shape* shape, GetShapePtr(op));
    operand_shapes.push_back(shape);
  }
  std::vector<ProgramShape> called;
  for (int64_t id : instr.called_computation_ids()) {
    auto it = embedded_.find(id);
    RET_CHECK(it != embedded_.end());
    ASSIGN_OR_RETURN(ProgramShape ps, ProgramShape::FromProto(it->second.program_shape()));
    called.push_back(std::move(ps));
  }
  std::vector<const ProgramShape*> called_ptrs;
  for (const ProgramShape& ps : called) called_ptrs.push_back(&ps);
  std::optional<Shape> declared;
  if (declared_shape) {
    ASSIGN_OR_RETURN(declared, Shape::FromProto(instr.shape()));
  }
  return InferHloShape(opcode, operand_shapes, instr, called_ptrs, declared.has_value() ? &*declared : nullptr);
}

absl::StatusOr<XlaOp> XlaBuilder::AddInferredInstruction(HloInstructionProto&& instr,
                                                         HloOpcode opcode,
                                                         absl::Span<const XlaOp> operands) {
  ASSIGN_OR_RETURN(Shape shape, InferShape(instr, opcode, operands));
  *instr.mutable_shape() = shape.ToProto();
  return AddInstruction(std::move(instr), opcode, operands);
}

absl::StatusOr<XlaOp> XlaBuilder::AddCheckedInstruction(HloInstructionProto&& instr, HloOpcode opcode,
                                                        absl::Span<const XlaOp> operands) {
  ASSIGN_OR_RETURN(Shape shape, InferShape(instr, opcode, operands, /*declared_shape=*/true));
  *instr.mutable_shape() = shape.ToProto();
  return AddInstruction(std::move(instr), opcode, operands);
}

absl::Status XlaBuilder::AddCalledComputation(const XlaComputation& computation,
                                              HloInstructionProto* instr) {
  if (computation.IsNull()) {
    return absl::InvalidArgumentError("called computation is empty (did its Build() fail?)");
  }
  std::map<int64_t, int64_t> remapped;
  std::vector<HloComputationProto> imported;
  for (const HloComputationProto& c : computation.proto().computations()) {
    HloComputationProto copy = c;
    const int64_t computation_id = GetNextId();
    remapped[c.id()] = computation_id;
    copy.set_id(computation_id);
    copy.set_name(FullName(BaseName(c.name()), computation_id));
    for (HloInstructionProto& i : *copy.mutable_instructions()) {
      const int64_t id = GetNextId();
      remapped[i.id()] = id;
      i.set_id(id);
      i.set_name(FullName(BaseName(i.name()), id));
    }
    imported.push_back(std::move(copy));
  }
  auto lookup = [&](int64_t old_id, const char* what) -> absl::StatusOr<int64_t> {
    auto it = remapped.find(old_id);
    if (it == remapped.end()) {
      return absl::InvalidArgumentError(absl::StrCat("called computation '", computation.name(),
                                                     "' refers to unknown ", what, " id ", old_id));
    }
    return it->second;
  };
  ASSIGN_OR_RETURN(int64_t entry_id,
                   lookup(computation.proto().entry_computation_id(), "computation"));
  for (HloComputationProto& c : imported) {
    ASSIGN_OR_RETURN(int64_t root, lookup(c.root_id(), "instruction"));
    c.set_root_id(root);
    for (HloInstructionProto& i : *c.mutable_instructions()) {
      for (int64_t& id : *i.mutable_operand_ids()) { ASSIGN_OR_RETURN(id, lookup(id, "instruction")); }
      for (int64_t& id : *i.mutable_control_predecessor_ids()) {
        ASSIGN_OR_RETURN(id, lookup(id, "instruction"));
      }
      for (int64_t& id : *i.mutable_called_computation_ids()) {
        ASSIGN_OR_RETURN(id, lookup(id, "computation"));
      }
    }
  }
  instr->add_called_computation_ids(entry_id);
  for (HloComputationProto& c : imported) {
    const int64_t id = c.id();
    embedded_[id] = std::move(c);
  }
  return absl::OkStatus();
}

absl::StatusOr<ProgramShape> XlaBuilder::GetProgramShapeForRoot(int64_t root_id) const {
  RETURN_IF_ERROR(first_error_);
  auto it = handle_to_index_.find(root_id);
  if (it == handle_to_index_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("no XlaOp with handle ", root_id));
  }
  ProgramShape program_shape;
  program_shape.result() = instruction_shapes_[it->second];
  const int64_t count = static_cast<int64_t>(parameter_numbers_.size());
  program_shape.parameters().resize(count);
  program_shape.parameter_names().resize(count);
  for (const auto& [number, handle] : parameter_numbers_) {
    if (number < 0 || number >= count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter numbers must be 0..", count - 1, " without gaps; found parameter ", number));
    }
    const int64_t index = handle_to_index_.at(handle);
    program_shape.parameters()[number] = instruction_shapes_[index];
    program_shape.parameter_names()[number] = instructions_[index].name();
  }
  return program_shape;
}

absl::StatusOr<ProgramShape> XlaBuilder::GetProgramShape() const {
  RETURN_IF_ERROR(first_error_);
  if (instructions_.empty()) return absl::InvalidArgumentError("builder has no instructions");
  return GetProgramShapeForRoot(instructions_.back().id());
}

absl::StatusOr<ProgramShape> XlaBuilder::GetProgramShape(XlaOp root) const {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(root));
  return GetProgramShapeForRoot(root.handle_);
}

absl::StatusOr<XlaComputation> XlaBuilder::Build() {
  RETURN_IF_ERROR(first_error_);
  if (instructions_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("builder '", name_, "' has no instructions"));
  }
  return BuildWithRoot(instructions_.back().id());
}

absl::StatusOr<XlaComputation> XlaBuilder::Build(XlaOp root) {
  RETURN_IF_ERROR(first_error_);
  if (root.builder_ != this) {
    return absl::InvalidArgumentError("given root operation is not in this computation");
  }
  RETURN_IF_ERROR(CheckOpBuilder(root));
  return BuildWithRoot(root.handle_);
}

XlaComputation XlaBuilder::BuildAndNoteError() {
  absl::StatusOr<XlaComputation> built = Build();
  if (!built.ok()) {
    if (parent_builder_ != nullptr) {
      parent_builder_->ReportError(absl::Status(
          built.status().code(), absl::StrCat("error from: ", name_, ": ", std::string(built.status().message()))));
    }
    return XlaComputation();
  }
  return *std::move(built);
}

absl::StatusOr<XlaComputation> XlaBuilder::BuildWithRoot(int64_t root_id) {
  ASSIGN_OR_RETURN(ProgramShape program_shape, GetProgramShapeForRoot(root_id));
  HloComputationProto entry;
  const int64_t entry_id = GetNextId();
  entry.set_id(entry_id);
  entry.set_name(FullName(name_, entry_id));
  *entry.mutable_program_shape() = program_shape.ToProto();
  entry.set_root_id(root_id);
  for (HloInstructionProto& instr : instructions_) {
    instr.set_name(FullName(instr.name(), instr.id()));
    entry.add_instructions()->Swap(&instr);
  }
  HloModuleProto module;
  module.set_name(entry.name());
  module.set_id(entry_id);
  module.set_entry_computation_name(entry.name());
  module.set_entry_computation_id(entry_id);
  *module.mutable_host_program_shape() = entry.program_shape();
  for (auto& [id, c] : embedded_) module.add_computations()->Swap(&c);
  module.add_computations()->Swap(&entry);
  RETURN_IF_ERROR(PopulateAliases(&module, program_shape));

  instructions_.clear();
  instruction_shapes_.clear();
  handle_to_index_.clear();
  embedded_.clear();
  parameter_numbers_.clear();
  aliases_.clear();
  buffer_donors_.clear();
  return XlaComputation(std::move(module));
}

void XlaBuilder::SetUpAlias(const ShapeIndex& output_index, int64_t param_number,
                            const ShapeIndex& param_index, Kind kind) {
  aliases_.push_back({output_index, param_number, param_index, kind});
}

void XlaBuilder::AddBufferDonor(int64_t param_number, const ShapeIndex& param_index) {
  buffer_donors_.emplace_back(param_number, param_index);
}

absl::Status XlaBuilder::PopulateAliases(HloModuleProto* module,
                                         const ProgramShape& program_shape) const {
  const int64_t param_count = static_cast<int64_t>(program_shape.parameters().size());
  auto check_param = [&](int64_t number, const ShapeIndex& index) -> absl::Status {
    if (number < 0 || number >= param_count) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid parameter number ", number, " (total ", param_count, ")"));
    }
    if (!ShapeUtil::IndexIsValid(program_shape.parameters()[number], index)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid parameter shape index ", ShapeIndexToString(index), " of parameter ", number,
          " with shape ", program_shape.parameters()[number].ToString()));
    }
    return absl::OkStatus();
  };
  std::vector<Alias> sorted = aliases_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Alias& a, const Alias& b) { return a.output_index < b.output_index; });
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Alias& alias = sorted[i];
    RETURN_IF_ERROR(check_param(alias.param_number, alias.param_index));
    if (!ShapeUtil::IndexIsValid(program_shape.result(), alias.output_index)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid output shape index ", ShapeIndexToString(alias.output_index),
                       " of result shape ", program_shape.result().ToString()));
    }
    if (i > 0 && sorted[i - 1].output_index == alias.output_index) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output shape index ", ShapeIndexToString(alias.output_index), " is aliased twice"));
    }
    auto* entry = module->mutable_input_output_alias()->add_entries();
    for (int64_t v : alias.output_index) entry->add_output_shape_index(v);
    entry->set_parameter_number(alias.param_number);
    for (int64_t v : alias.param_index) entry->add_parameter_shape_index(v);
    entry->set_kind(alias.kind);
  }
  for (const auto& [number, index] : buffer_donors_) {
    RETURN_IF_ERROR(check_param(number, index));
    auto* entry = module->mutable_buffer_donor()->add_entries();
    entry->set_parameter_number(number);
    for (int64_t v : index) entry->add_parameter_shape_index(v);
  }
  return absl::OkStatus();
}

FrontendAttributes XlaBuilder::SetFrontendAttributes(const FrontendAttributes& attributes) {
  FrontendAttributes old = std::move(frontend_attributes_);
  frontend_attributes_ = attributes;
  return old;
}

absl::Status XlaBuilder::SetInstructionFrontendAttribute(XlaOp op, std::string attribute,
                                                         std::string value) {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(op));
  HloInstructionProto& instr = instructions_[handle_to_index_.at(op.handle_)];
  (*instr.mutable_frontend_attributes()->mutable_map())[attribute] = std::move(value);
  return absl::OkStatus();
}

absl::Status XlaBuilder::SetInstructionSharding(XlaOp op,
                                                const std::optional<OpSharding>& sharding) {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(op));
  HloInstructionProto& instr = instructions_[handle_to_index_.at(op.handle_)];
  if (sharding.has_value()) {
    *instr.mutable_sharding() = *sharding;
  } else {
    instr.clear_sharding();
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> XlaBuilder::IsConstant(XlaOp operand) const {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOpBuilder(operand));
  bool is_constant = true;
  std::map<int64_t, bool> visited;
  IsConstantVisitor(operand.handle_, &visited, &is_constant);
  return is_constant;
}

// Iterative so that deep graphs cannot overflow the stack.
void XlaBuilder::IsConstantVisitor(int64_t handle, std::map<int64_t, bool>* visited,
                                   bool* is_constant) const {
  std::vector<int64_t> stack = {handle};
  while (!stack.empty() && *is_constant) {
    const int64_t h = stack.back();
    stack.pop_back();
    if (!visited->emplace(h, true).second) continue;
    const HloInstructionProto& instr = instructions_[handle_to_index_.at(h)];
    std::optional<HloOpcode> opcode = StringToHloOpcode(instr.opcode());
    if (!opcode.has_value()) {
      *is_constant = false;
      return;
    }
    switch (*opcode) {
      case HloOpcode::kGetDimensionSize:
        break;  // a static size, or the bound as XLA does
      case HloOpcode::kCustomCall:
        if (instr.custom_call_target() == "SetBound") break;
        [[fallthrough]];
      case HloOpcode::kParameter:
      case HloOpcode::kRng:
      case HloOpcode::kRngBitGenerator:
      case HloOpcode::kRngGetAndUpdateState:
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllGather:
      case HloOpcode::kAllToAll:
      case HloOpcode::kReduceScatter:
      case HloOpcode::kCollectivePermute:
      case HloOpcode::kReplicaId:
      case HloOpcode::kPartitionId:
      case HloOpcode::kInfeed:
      case HloOpcode::kOutfeed:
      case HloOpcode::kCall:
      case HloOpcode::kWhile:
      case HloOpcode::kScatter:
      case HloOpcode::kSend:
      case HloOpcode::kRecv:
        *is_constant = false;
        return;
      case HloOpcode::kGetTupleElement: {
        // Only the selected element of a tuple matters.
        const HloInstructionProto& operand = instructions_[handle_to_index_.at(instr.operand_ids(0))];
        if (IsOpcode(operand, HloOpcode::kTuple) && instr.tuple_index() >= 0 &&
            instr.tuple_index() < operand.operand_ids_size()) {
          stack.push_back(operand.operand_ids(static_cast<int>(instr.tuple_index())));
        } else {
          stack.push_back(instr.operand_ids(0));
        }
        break;
      }
      default:
        for (int64_t id : instr.operand_ids()) stack.push_back(id);
        break;
    }
  }
}

absl::StatusOr<XlaOp> XlaBuilder::InDimBroadcast(const Shape& shape, XlaOp operand,
                                                 absl::Span<const int64_t> broadcast_dimensions) {
  ASSIGN_OR_RETURN(const Shape* operand_shape, GetShapePtr(operand));
  if (static_cast<int64_t>(broadcast_dimensions.size()) != operand_shape->rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "broadcast: ", broadcast_dimensions.size(), " broadcast dimensions for operand ",
        operand_shape->ToString(), " of rank ", operand_shape->rank()));
  }
  for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
    int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= shape.rank() || shape.dimensions(d) != operand_shape->dimensions(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast: operand dimension ", i, " of ", operand_shape->ToString(),
          " does not match output dimension ", d, " of ", shape.ToString()));
    }
  }
  HloInstructionProto instr;
  *instr.mutable_shape() = ShapeUtil::ChangeElementType(shape, operand_shape->element_type()).ToProto();
  for (int64_t d : broadcast_dimensions) instr.add_dimensions(d);
  return AddInstruction(std::move(instr), HloOpcode::kBroadcast, {operand});
}

absl::StatusOr<XlaOp> XlaBuilder::AddBroadcastSequence(const Shape& output_shape, XlaOp operand) {
  ASSIGN_OR_RETURN(const Shape* operand_ptr, GetShapePtr(operand));
  const Shape operand_shape = *operand_ptr;
  Shape broadcast_shape = ShapeUtil::ChangeElementType(output_shape, operand_shape.element_type());
  broadcast_shape.clear_layout();
  if (ShapeUtil::IsScalar(operand_shape)) return InDimBroadcast(broadcast_shape, operand, {});
  if (operand_shape.rank() != output_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot broadcast ", operand_shape.ToString(),
                                                   " to ", output_shape.ToString()));
  }
  std::vector<int64_t> broadcast_dimensions;
  std::vector<int64_t> reshaped_dimensions;
  for (int i = 0; i < operand_shape.rank(); ++i) {
    if (operand_shape.dimensions(i) == output_shape.dimensions(i)) {
      broadcast_dimensions.push_back(i);
      reshaped_dimensions.push_back(operand_shape.dimensions(i));
    } else if (operand_shape.dimensions(i) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "an operand to be broadcast must have dimensions equal to the output's or 1; operand ",
          operand_shape.ToString(), ", output ", output_shape.ToString()));
    }
  }
  // Drop the size-1 dimensions, then broadcast up to the output.
  Shape reshaped = ShapeUtil::MakeShape(operand_shape.element_type(), reshaped_dimensions);
  ASSIGN_OR_RETURN(XlaOp reshaped_operand, AddOpWithShape(HloOpcode::kReshape, reshaped, {operand}));
  return InDimBroadcast(broadcast_shape, reshaped_operand, broadcast_dimensions);
}

}  // namespace xla
