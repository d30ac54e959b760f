// Calls of runtime routines: cholesky and triangular-solve (runtime/linalg.cc), fft
// (runtime/fft.cc), rng-bit-generator (runtime/rng_bits.cc), rng and rng-get-and-update-state
// (runtime/rng.cc), topk (runtime/topk.cc), infeed and outfeed (runtime/feeds.cc), and
// copies of the types the elemental emitter has no registers for (runtime/strided_array.cc).
// Shapes are checked here, when compiling, so the routines can trust their descriptors.
#include "backends/cpu/codegen/emit_runtime_call.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsRuntimeFloatType(PrimitiveType t) {
  return t == F16 || t == BF16 || t == F32 || t == F64 || t == C64 || t == C128;
}

// A private constant { type, rank, dims..., strides... } (element strides per logical
// dimension under the shape's layout).
absl::StatusOr<llvm::Value*> Descriptor(llvm::IRBuilder<>* b, const Shape& shape) {
  if (!shape.IsArray() || primitive_util::ByteWidth(shape.element_type()) == 0) {
    return absl::UnimplementedError(absl::StrCat("cpu backend: no runtime routine for ", shape.ToString()));
  }
  Shape laid_out = shape;
  ShapeUtil::SetDefaultLayoutsIfMissing(&laid_out);
  const int64_t rank = laid_out.rank();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int64_t d : laid_out.layout().minor_to_major()) {
    strides[d] = stride;
    stride *= laid_out.dimensions(static_cast<int>(d));
  }
  std::vector<uint64_t> words = {static_cast<uint64_t>(laid_out.element_type()), static_cast<uint64_t>(rank)};
  for (int64_t d = 0; d < rank; ++d) words.push_back(static_cast<uint64_t>(laid_out.dimensions(static_cast<int>(d))));
  for (int64_t d = 0; d < rank; ++d) words.push_back(static_cast<uint64_t>(strides[d]));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Constant* data = llvm::ConstantDataArray::get(module->getContext(), words);
  return new llvm::GlobalVariable(*module, data->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                  data, "descriptor");
}

absl::Status CheckCounts(const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                         const std::vector<SerialOutput>& outputs, size_t operand_count) {
  if (operands.size() != operand_count || outputs.size() != 1 || !hlo->shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": malformed ", std::string(HloOpcodeString(hlo->opcode()))));
  }
  if ((hlo->opcode() == HloOpcode::kCholesky || hlo->opcode() == HloOpcode::kTriangularSolve) &&
      !IsRuntimeFloatType(outputs[0].shape.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " ", hlo->name(),
                                                   " needs a floating-point or complex operand"));
  }
  for (const SerialOutput& operand : operands) {
    if (operand.shape.element_type() != outputs[0].shape.element_type() &&
        hlo->opcode() != HloOpcode::kFft) {
      return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": operand and result types differ"));
    }
  }
  return absl::OkStatus();
}

absl::Status EmitCholesky(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                          const std::vector<SerialOutput>& outputs) {
  RETURN_IF_ERROR(CheckCounts(hlo, operands, outputs, 1));
  const Shape& a = operands[0].shape;
  const int64_t rank = a.rank();
  if (rank < 2 || a.dimensions(static_cast<int>(rank - 1)) != a.dimensions(static_cast<int>(rank - 2)) ||
      a.dimensions() != outputs[0].shape.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("cholesky ", hlo->name(), " needs batches of square matrices, got ",
                                                   a.ToString()));
  }
  ASSIGN_OR_RETURN(llvm::Value* a_descriptor, Descriptor(b, a));
  ASSIGN_OR_RETURN(llvm::Value* out_descriptor, Descriptor(b, outputs[0].shape));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_cholesky", llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, ptr, b->getInt64Ty()}, false));
  b->CreateCall(f, {operands[0].base, a_descriptor, outputs[0].base, out_descriptor,
                    b->getInt64(hlo->attrs().cholesky_options().lower() ? 1 : 0)});
  return absl::OkStatus();
}

absl::Status EmitTriangularSolve(llvm::IRBuilder<>* b, const HloInstruction* hlo,
                                 const std::vector<SerialOutput>& operands, const std::vector<SerialOutput>& outputs) {
  RETURN_IF_ERROR(CheckCounts(hlo, operands, outputs, 2));
  const Shape& a = operands[0].shape;
  const Shape& rhs = operands[1].shape;
  const TriangularSolveOptions& options = hlo->attrs().triangular_solve_options();
  const int64_t rank = rhs.rank();
  bool ok = rank >= 2 && a.rank() == rank && rhs.dimensions() == outputs[0].shape.dimensions();
  for (int64_t d = 0; ok && d < rank - 2; ++d) ok = a.dimensions(static_cast<int>(d)) == rhs.dimensions(static_cast<int>(d));
  if (ok) {
    const int64_t m = a.dimensions(static_cast<int>(rank - 1));
    const int64_t solved = rhs.dimensions(static_cast<int>(options.left_side() ? rank - 2 : rank - 1));
    ok = a.dimensions(static_cast<int>(rank - 2)) == m && m == solved;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("triangular-solve ", hlo->name(), ": a ", a.ToString(),
                                                   " does not fit b ", rhs.ToString()));
  }
  int64_t transpose = 0;
  if (options.transpose_a() == TriangularSolveOptions::TRANSPOSE) transpose = 1;
  if (options.transpose_a() == TriangularSolveOptions::ADJOINT) transpose = 2;
  ASSIGN_OR_RETURN(llvm::Value* a_descriptor, Descriptor(b, a));
  ASSIGN_OR_RETURN(llvm::Value* b_descriptor, Descriptor(b, rhs));
  ASSIGN_OR_RETURN(llvm::Value* out_descriptor, Descriptor(b, outputs[0].shape));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_triangular_solve",
      llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64}, false));
  b->CreateCall(f, {operands[0].base, a_descriptor, operands[1].base, b_descriptor, outputs[0].base, out_descriptor,
                    b->getInt64(options.left_side() ? 1 : 0), b->getInt64(options.lower() ? 1 : 0),
                    b->getInt64(options.unit_diagonal() ? 1 : 0), b->getInt64(transpose)});
  return absl::OkStatus();
}

absl::Status EmitFft(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                     const std::vector<SerialOutput>& outputs) {
  RETURN_IF_ERROR(CheckCounts(hlo, operands, outputs, 1));
  const Shape& in = operands[0].shape;
  const Shape& out = outputs[0].shape;
  const auto& lengths = hlo->attrs().fft_length();
  const int64_t fft_rank = lengths.size();
  const int64_t rank = in.rank();
  const FftType type = hlo->attrs().fft_type();
  const bool complex_in = primitive_util::IsComplexType(in.element_type());
  const bool complex_out = primitive_util::IsComplexType(out.element_type());
  const bool real_in = in.element_type() == F32 || in.element_type() == F64;
  const bool real_out = out.element_type() == F32 || out.element_type() == F64;
  bool ok = fft_rank >= 1 && fft_rank <= 3 && fft_rank <= rank && out.rank() == rank &&
            ((type == FFT || type == IFFT) ? complex_in && complex_out
             : type == RFFT                ? real_in && complex_out
             : type == IRFFT               ? complex_in && real_out
                                           : false);
  if (ok) {
    // The time-domain dims and the half spectrum's (the last axis n / 2 + 1).
    std::vector<int64_t> full = in.dimensions();
    for (int64_t i = 0; i < fft_rank; ++i) full[rank - fft_rank + i] = lengths[static_cast<int>(i)];
    std::vector<int64_t> half = full;
    half[rank - 1] = full[rank - 1] / 2 + 1;
    ok = lengths[static_cast<int>(fft_rank - 1)] >= 0 && in.dimensions() == (type == IRFFT ? half : full) &&
         out.dimensions() == (type == RFFT ? half : full);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("fft ", hlo->name(), ": ", in.ToString(), " -> ", out.ToString(),
                                                   " does not match its fft_type and fft_length"));
  }
  ASSIGN_OR_RETURN(llvm::Value* in_descriptor, Descriptor(b, in));
  ASSIGN_OR_RETURN(llvm::Value* out_descriptor, Descriptor(b, out));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_fft", llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, ptr, i64, i64}, false));
  b->CreateCall(f, {operands[0].base, in_descriptor, outputs[0].base, out_descriptor,
                    b->getInt64(static_cast<int64_t>(type)), b->getInt64(fft_rank)});
  return absl::OkStatus();
}

absl::Status EmitCopy(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                      const std::vector<SerialOutput>& outputs) {
  RETURN_IF_ERROR(CheckCounts(hlo, operands, outputs, 1));
  if (operands[0].shape.dimensions() != outputs[0].shape.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("copy ", hlo->name(), " changes dimensions"));
  }
  ASSIGN_OR_RETURN(llvm::Value* in_descriptor, Descriptor(b, operands[0].shape));
  ASSIGN_OR_RETURN(llvm::Value* out_descriptor, Descriptor(b, outputs[0].shape));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::FunctionCallee f =
      module->getOrInsertFunction("__xla_cpu_copy", llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, ptr}, false));
  b->CreateCall(f, {operands[0].base, in_descriptor, outputs[0].base, out_descriptor});
  return absl::OkStatus();
}

// Outputs: (new state, bits), or bits alone when the result is not a tuple.
absl::Status EmitRngBitGenerator(llvm::IRBuilder<>* b, const HloInstruction* hlo,
                                 const std::vector<SerialOutput>& operands, const std::vector<SerialOutput>& outputs) {
  const bool with_state = hlo->shape().IsTuple();
  if (operands.size() != 1 || outputs.size() != (with_state ? 2u : 1u)) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(), ": the result must be (state, bits)"));
  }
  const Shape& state = operands[0].shape;
  if (state.element_type() != U64 || state.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(),
                                                   ": the state must be u64[2] or u64[3], got ", state.ToString()));
  }
  const int64_t state_size = state.dimensions(0);
  const Shape& bits = outputs.back().shape;
  if (!primitive_util::IsIntegralType(bits.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(),
                                                   ": the generated bits must be an integral array, got ", bits.ToString()));
  }
  RandomAlgorithm algorithm = hlo->attrs().rng_algorithm();
  if (algorithm == RNG_DEFAULT) algorithm = RNG_PHILOX;  // as XLA's cpu and gpu compilers expand it
  if (algorithm == RNG_THREE_FRY && state_size != 2) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(), ": three-fry needs a u64[2] state, got ",
                                                   state.ToString()));
  }
  if (algorithm == RNG_PHILOX && state_size != 2 && state_size != 3) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(),
                                                   ": philox needs a u64[2] or u64[3] state, got ", state.ToString()));
  }
  if (algorithm != RNG_THREE_FRY && algorithm != RNG_PHILOX) {
    return absl::UnimplementedError(absl::StrCat("rng algorithm ", RandomAlgorithm_Name(algorithm), " is not supported"));
  }
  if (with_state && (outputs[0].shape.element_type() != U64 || outputs[0].shape.dimensions() != state.dimensions())) {
    return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator ", hlo->name(), ": the new state must be ",
                                                   state.ToString()));
  }
  ASSIGN_OR_RETURN(llvm::Value* bits_descriptor, Descriptor(b, bits));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::PointerType* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_rng_bit_generator", llvm::FunctionType::get(b->getVoidTy(), {ptr, i64, i64, ptr, ptr, ptr}, false));
  b->CreateCall(f, {operands[0].base, b->getInt64(state_size), b->getInt64(static_cast<int64_t>(algorithm)),
                    outputs.back().base, bits_descriptor,
                    with_state ? outputs[0].base : static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(ptr))});
  return absl::OkStatus();
}

absl::Status EmitTopK(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                      const std::vector<SerialOutput>& outputs) {
  if (operands.size() != 1 || outputs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("topk ", hlo->name(), " takes one array and gives (values, indices)"));
  }
  const Shape& in = operands[0].shape;
  const int64_t rank = in.rank();
  const int64_t k = hlo->attrs().k();
  if (rank < 1 || primitive_util::IsComplexType(in.element_type()) || k < 0 ||
      k > in.dimensions(static_cast<int>(rank - 1))) {
    return absl::InvalidArgumentError(absl::StrCat("topk ", hlo->name(), ": k=", k, " of ", in.ToString()));
  }
  std::vector<int64_t> dims = in.dimensions();
  dims[rank - 1] = k;
  const Shape& values = outputs[0].shape;
  const Shape& indices = outputs[1].shape;
  if (values.dimensions() != dims || indices.dimensions() != dims || values.element_type() != in.element_type() ||
      !primitive_util::IsIntegralType(indices.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("topk ", hlo->name(), ": result does not fit ", in.ToString(),
                                                   " and k=", k));
  }
  ASSIGN_OR_RETURN(llvm::Value* in_descriptor, Descriptor(b, in));
  ASSIGN_OR_RETURN(llvm::Value* values_descriptor, Descriptor(b, values));
  ASSIGN_OR_RETURN(llvm::Value* indices_descriptor, Descriptor(b, indices));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_topk", llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, ptr, ptr, ptr, i64, i64}, false));
  b->CreateCall(f, {operands[0].base, in_descriptor, outputs[0].base, values_descriptor, outputs[1].base,
                    indices_descriptor, b->getInt64(k), b->getInt64(hlo->attrs().largest() ? 1 : 0)});
  return absl::OkStatus();
}

absl::Status EmitRng(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                     const std::vector<SerialOutput>& outputs, llvm::Value* run_context) {
  if (operands.size() != 2 || outputs.size() != 1 || !hlo->shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("rng ", hlo->name(), " takes two scalars and gives an array"));
  }
  const Shape& out = outputs[0].shape;
  const PrimitiveType type = out.element_type();
  const RandomDistribution distribution = hlo->attrs().distribution();
  if (distribution != RNG_UNIFORM && distribution != RNG_NORMAL) {
    return absl::InvalidArgumentError(absl::StrCat("rng ", hlo->name(), ": unsupported distribution ",
                                                   RandomDistribution_Name(distribution)));
  }
  const bool floating = primitive_util::IsFloatingPointType(type);
  if (distribution == RNG_NORMAL && !floating) {
    return absl::InvalidArgumentError(absl::StrCat("rng ", hlo->name(), ": the normal distribution needs a floating-point type"));
  }
  if (!floating && !primitive_util::IsIntegralType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("rng ", hlo->name(),
                                                   ": the uniform distribution needs an integral or floating-point type"));
  }
  for (const SerialOutput& operand : operands) {
    if (operand.shape.element_type() != type || ShapeUtil::ElementsIn(operand.shape) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("rng ", hlo->name(), ": bounds must be scalars of the result type"));
    }
  }
  ASSIGN_OR_RETURN(llvm::Value* descriptor, Descriptor(b, out));
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_rng", llvm::FunctionType::get(b->getVoidTy(), {ptr, i64, i64, ptr, ptr, ptr, ptr}, false));
  b->CreateCall(f, {run_context, b->getInt64(RngNameMix(hlo->name())), b->getInt64(static_cast<int64_t>(distribution)),
                    operands[0].base, operands[1].base, outputs[0].base, descriptor});
  return absl::OkStatus();
}

absl::Status EmitRngGetAndUpdateState(llvm::IRBuilder<>* b, const HloInstruction* hlo,
                                      const std::vector<SerialOutput>& outputs, llvm::Value* run_context) {
  if (outputs.size() != 1 || outputs[0].shape.element_type() != U64 || ShapeUtil::ElementsIn(outputs[0].shape) != 2) {
    return absl::InvalidArgumentError(absl::StrCat("rng-get-and-update-state ", hlo->name(), " gives u64[2]"));
  }
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "__xla_cpu_rng_get_and_update_state",
      llvm::FunctionType::get(b->getVoidTy(), {ptr, b->getInt64Ty(), ptr}, false));
  b->CreateCall(f, {run_context, b->getInt64(hlo->attrs().delta()), outputs[0].base});
  return absl::OkStatus();
}

// infeed fills its output leaves, outfeed reads its operand's; either may stop the
// execution, returning 2 from the entry function (the error is in the run context).
absl::Status EmitFeed(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                      const std::vector<SerialOutput>& outputs, llvm::Value* run_context) {
  const bool infeed = hlo->opcode() == HloOpcode::kInfeed;
  const Shape* data = nullptr;
  if (infeed) {
    if (!hlo->shape().IsTuple() || hlo->shape().tuple_shapes_size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("infeed ", hlo->name(), " must produce (data, token)"));
    }
    data = &hlo->shape().tuple_shapes(0);
  } else {
    if (hlo->operand_count() != 2) return absl::InvalidArgumentError(absl::StrCat("outfeed ", hlo->name(), " takes (value, token)"));
    data = &hlo->operand(0)->shape();
  }
  const std::vector<SerialOutput>& leaves = infeed ? outputs : operands;
  if (static_cast<int64_t>(leaves.size()) != ArrayLeafCount(*data)) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": its buffers do not match ", data->ToString()));
  }
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::Module* module = f->getParent();
  llvm::LLVMContext& c = module->getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(c, 0);
  // The pointer table lives in the entry block, so a feed inside a loop reuses one.
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* table = entry.CreateAlloca(ptr, b->getInt64(std::max<int64_t>(1, leaves.size())));
  for (size_t i = 0; i < leaves.size(); ++i) {
    b->CreateStore(leaves[i].base, b->CreateInBoundsGEP(ptr, table, b->getInt64(static_cast<int64_t>(i))));
  }
  llvm::FunctionCallee routine = module->getOrInsertFunction(
      infeed ? "__xla_cpu_infeed" : "__xla_cpu_outfeed", llvm::FunctionType::get(b->getInt32Ty(), {ptr, ptr, ptr}, false));
  // The data shape travels with the code as a constant (its length, then its ShapeProto),
  // so a serialized executable with feeds loads in another process.
  const std::string proto = data->ToProto().SerializeAsString();
  std::string blob(8, '\0');
  for (int i = 0; i < 8; ++i) blob[i] = static_cast<char>((uint64_t{proto.size()} >> (8 * i)) & 0xff);
  blob += proto;
  auto* shape = new llvm::GlobalVariable(*module, llvm::ArrayType::get(b->getInt8Ty(), blob.size()), /*isConstant=*/true,
                                         llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantDataArray::getString(c, blob, /*AddNull=*/false),
                                         absl::StrCat(hlo->name(), ".shape"));
  shape->setAlignment(llvm::Align(8));
  llvm::Value* rc = b->CreateCall(routine, {run_context, shape, table});
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(c, "feed.failed", f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "feed.done", f);
  b->CreateCondBr(b->CreateICmpNE(rc, b->getInt32(0)), failed, done);
  llvm::IRBuilder<>(failed).CreateRet(b->getInt32(2));
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

}  // namespace

bool IsRuntimeCallOp(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kFft:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kTopk:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
      return true;
    case HloOpcode::kCopy: {
      // Complex, sub-byte and 8-/4-bit float arrays are relayouted as bytes.
      const PrimitiveType t = hlo.shape().element_type();
      return hlo.shape().IsArray() && (primitive_util::IsComplexType(t) || primitive_util::IsSubByteType(t) ||
                                       primitive_util::IsNarrowFloatType(t));
    }
    default:
      return false;
  }
}

absl::Status EmitRuntimeCall(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                             const std::vector<SerialOutput>& outputs, llvm::Value* run_context) {
  switch (hlo->opcode()) {
    case HloOpcode::kCholesky:
      return EmitCholesky(b, hlo, operands, outputs);
    case HloOpcode::kTriangularSolve:
      return EmitTriangularSolve(b, hlo, operands, outputs);
    case HloOpcode::kFft:
      return EmitFft(b, hlo, operands, outputs);
    case HloOpcode::kCopy:
      return EmitCopy(b, hlo, operands, outputs);
    case HloOpcode::kRngBitGenerator:
      return EmitRngBitGenerator(b, hlo, operands, outputs);
    case HloOpcode::kTopk:
      return EmitTopK(b, hlo, operands, outputs);
    case HloOpcode::kRng:
      return EmitRng(b, hlo, operands, outputs, run_context);
    case HloOpcode::kRngGetAndUpdateState:
      return EmitRngGetAndUpdateState(b, hlo, outputs, run_context);
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      return EmitFeed(b, hlo, operands, outputs, run_context);
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
      // As in the interpreter: one device, no peer and no host channels.
      return absl::UnimplementedError(absl::StrCat(
          std::string(HloOpcodeString(hlo->opcode())), " on channel ", hlo->attrs().channel_id(),
          hlo->attrs().is_host_transfer() ? " (host transfer)" : "",
          " needs a peer device or host; the cpu backend has one device and no host channels"));
    default:
      return absl::InternalError(absl::StrCat(hlo->name(), " is not a runtime call"));
  }
}

}  // namespace cpu
}  // namespace xla
