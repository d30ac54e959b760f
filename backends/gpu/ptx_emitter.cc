#include "backends/gpu/ptx_emitter.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/codegen/jit.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/gpu/device_memory_pool.h"
#include "backends/gpu/libdevice.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "backends/gpu/ptx_sort.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace xla {
namespace gpu {

// The output's multi-dimensional index of storage position `linear` (its layout's order).
cpu::IrIndex IndexOf(llvm::IRBuilder<>* b, const Shape& shape, llvm::Value* linear) {
  cpu::IrIndex index;
  index.linear = linear;
  index.linear_shape = &shape;
  index.multi.assign(shape.rank(), nullptr);
  llvm::Value* rest = linear;
  for (int64_t d : shape.layout().minor_to_major()) {
    llvm::Value* size = b->getInt64(shape.dimensions(d));
    index.multi[d] = b->CreateURem(rest, size);
    rest = b->CreateUDiv(rest, size);
  }
  return index;
}

llvm::Value* ReadSpecialRegister(llvm::IRBuilder<>* b, llvm::Intrinsic::ID id) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), id);
  return b->CreateZExt(b->CreateCall(f), b->getInt64Ty());
}

// Every launch has kGpuThreadsPerBlock threads per block (gpu_backend.cc), so the block size is
// a constant here rather than %ntid. That is also a workaround: with ctaid * ntid, LLVM 16's
// DAG combiner could narrow the product to an i1 multiply when only its low bit was used
// (a dimension of size 2), which NVPTX cannot select (a fatal LLVM error, found by the
// kernel emulator's suites).
llvm::Value* GlobalThread(llvm::IRBuilder<>* b) {
  return b->CreateAdd(
      b->CreateMul(ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b->getInt64(kGpuThreadsPerBlock)),
      ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
}
llvm::Value* GridThreads(llvm::IRBuilder<>* b) {
  return b->CreateMul(ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                      b->getInt64(kGpuThreadsPerBlock));
}

// The arrays the kernel writes (its first parameters) with their shapes.
std::vector<cpu::SerialOutput> OutputArrays(const KernelContext& k, const HloInstruction* hlo) {
  std::vector<cpu::SerialOutput> outputs;
  const std::vector<const Shape*> shapes = KernelOutputs(hlo->shape());
  for (size_t i = 0; i < shapes.size(); ++i) outputs.push_back({k.kernel->getArg(static_cast<unsigned>(i)), *shapes[i]});
  return outputs;
}

// `linear` in row-major order over `dims` (all of them), as a multi-index.
std::vector<llvm::Value*> RowMajorIndex(llvm::IRBuilder<>* b, absl::Span<const int64_t> dims, llvm::Value* linear) {
  std::vector<llvm::Value*> multi(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    llvm::Value* size = b->getInt64(dims[d]);
    multi[d] = d == 0 ? linear : b->CreateURem(linear, size);
    linear = b->CreateUDiv(linear, size);
  }
  return multi;
}

namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";

void InitializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> NvptxTargetMachine(const GpuTarget& target) {
  InitializeNvptx();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (t == nullptr) return absl::UnavailableError(absl::StrCat("gpu: LLVM has no NVPTX target: ", error));
  llvm::TargetOptions options;
  // Kernels follow XLA's float semantics as the cpu backend does: no fast-math contraction
  // beyond what the elemental emitter writes itself.
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      kTriple, absl::StrCat("sm_", target.sm), absl::StrCat("+ptx", target.ptx), options, llvm::Reloc::Static,
      llvm::CodeModel::Small, llvm::CodeGenOpt::Aggressive));
  if (tm == nullptr) return absl::InternalError(absl::StrCat("gpu: no NVPTX target machine for sm_", target.sm));
  return tm;
}



// Consecutive elements a thread takes per loop iteration (GpuTarget::elements_per_thread):
// 4, so that its loads of a chunk are one 16-byte vector access for f32 and it has several in
// flight, unless the fused computation is large (its code is emitted once per element).
int ElementsPerThread(const HloInstruction& hlo, const GpuTarget& target) {
  if (target.elements_per_thread > 0) return target.elements_per_thread;
  if (hlo.opcode() == HloOpcode::kFusion && hlo.to_apply() != nullptr) {
    return hlo.to_apply()->instructions().size() <= 64 ? 4 : 1;
  }
  // A dot, convolution, gather, ... alone loops over its window per element: one at a time.
  return cpu::IsElementwise(hlo) ? 4 : 1;
}

absl::Status EmitElementwiseBody(KernelContext& k, const HloInstruction* hlo, int per_thread) {
  llvm::IRBuilder<>& b = *k.b;
  const Shape& out = hlo->shape();
  llvm::Value* thread = GlobalThread(&b);
  llvm::Value* stride = GridThreads(&b);
  ASSIGN_OR_RETURN(cpu::Generator generator, k.elemental->MakeGenerator(hlo, k.operand));
  // A variadic reduce or reduce-window (or a fusion with one at its root) generates a struct
  // of one value per output.
  const std::vector<const Shape*> outputs = KernelOutputs(out);
  const Shape& first = *outputs[0];
  return EmitChunkedLoop(&b, thread, ShapeUtil::ElementsIn(first), stride, per_thread, "i",
                         [&](llvm::Value* i) -> absl::Status {
                           const cpu::IrIndex index = IndexOf(&b, first, i);
                           ASSIGN_OR_RETURN(llvm::Value* value, generator(index));
                           if (!out.IsTuple()) {
                             k.elemental->StoreElement(value, k.kernel->getArg(0), out, index);
                             return absl::OkStatus();
                           }
                           for (unsigned o = 0; o < outputs.size(); ++o) {
                             k.elemental->StoreElement(b.CreateExtractValue(value, {o}), k.kernel->getArg(o),
                                                       *outputs[o], index);
                           }
                           return absl::OkStatus();
                         });
}

// A dynamic-update-slice's update region (GpuPlanStep::in_place): a thread per update
// element writes it where the start indices, clamped into the operand as XLA clamps them,
// put it. The rest of the output already holds operand 0's value, which is not read. In a
// fusion (UpdatedSlice), the update is computed from the fusion's operands as it is written.
absl::Status EmitUpdateRegionBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  const HloInstruction* dus = UpdatedSlice(*hlo);
  if (dus == nullptr) return absl::InternalError(absl::StrCat("gpu: ", hlo->name(), " updates no slice"));
  cpu::OperandGenerator operand = k.operand;  // dus's operands
  if (dus != hlo) {
    ASSIGN_OR_RETURN(cpu::ElementalEmitter::FusionGenerators fused, k.elemental->MakeFusionGenerators(hlo, k.operand));
    operand = [fused, dus](int64_t i) -> absl::StatusOr<cpu::Generator> { return fused->at(dus->operand(i)); };
  }
  const Shape& out = hlo->shape();
  const Shape& update = dus->operand(1)->shape();
  std::vector<llvm::Value*> start;
  for (int64_t d = 0; d < out.rank(); ++d) {
    ASSIGN_OR_RETURN(cpu::Generator index, operand(2 + d));
    ASSIGN_OR_RETURN(llvm::Value* v, index(cpu::IrIndex{}));
    const PrimitiveType type = dus->operand(2 + d)->shape().element_type();
    v = primitive_util::IsUnsignedIntegralType(type) ? b.CreateZExtOrTrunc(v, b.getInt64Ty())
                                                     : b.CreateSExtOrTrunc(v, b.getInt64Ty());
    const int64_t most = std::max<int64_t>(0, out.dimensions(static_cast<int>(d)) - update.dimensions(static_cast<int>(d)));
    v = b.CreateSelect(b.CreateICmpSLT(v, b.getInt64(0)), b.getInt64(0), v);
    start.push_back(b.CreateSelect(b.CreateICmpSGT(v, b.getInt64(most)), b.getInt64(most), v));
  }
  ASSIGN_OR_RETURN(cpu::Generator read, operand(1));
  return EmitChunkedLoop(&b, GlobalThread(&b), ShapeUtil::ElementsIn(update), GridThreads(&b), 1, "u",
                         [&](llvm::Value* i) -> absl::Status {
                           const cpu::IrIndex at = IndexOf(&b, update, i);
                           ASSIGN_OR_RETURN(llvm::Value* value, read(at));
                           cpu::IrIndex target;
                           for (size_t d = 0; d < start.size(); ++d) {
                             target.multi.push_back(b.CreateAdd(at.multi[d], start[d], "", true, true));
                           }
                           k.elemental->StoreElement(value, k.kernel->getArg(0), out, target);
                           return absl::OkStatus();
                         });
}

}  // namespace

namespace {

// An NVVM annotation of kernel function `kernel` (a launch bound ptxas reads).
void AnnotateKernel(llvm::Function* kernel, const char* key, int value) {
  llvm::LLVMContext& c = kernel->getContext();
  kernel->getParent()
      ->getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(c, {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(c, key),
                                         llvm::ConstantAsMetadata::get(
                                             llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), value))}));
}

}  // namespace

// The alignment kernels assume of their array parameters (16-byte vector accesses).
constexpr uint64_t kKernelArrayAlignment = 16;
static_assert(kDeviceAlignment % kKernelArrayAlignment == 0, "pool blocks must be aligned for the kernels' vector accesses");

absl::Status EmitKernelFunction(llvm::Module* module, const HloInstruction* hlo, const std::string& name,
                                const KernelBody& body, bool scratch) {
  llvm::LLVMContext& c = module->getContext();
  llvm::IRBuilder<> b(c);
  auto* ptr = llvm::PointerType::get(c, 1);  // global memory
  const unsigned outputs = static_cast<unsigned>(KernelOutputs(hlo->shape()).size());
  std::vector<llvm::Type*> params(hlo->operand_count() + outputs, ptr);
  // Scratch memory, when the kernel needs some, comes last (gpu_plan.h).
  if (scratch) params.push_back(ptr);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  // Every launch has kGpuThreadsPerBlock threads (gpu_backend.cc): ptxas may then give a
  // thread up to 65536 / 256 registers instead of planning for 1024-thread blocks.
  AnnotateKernel(kernel, "maxntidx", kGpuThreadsPerBlock);
  for (unsigned i = 0; i < params.size(); ++i) {
    kernel->addParamAttr(i, llvm::Attribute::NoAlias);
    // Every array starts a pool block (kDeviceAlignment, asserted below), and views of one
    // (bitcasts, tuple elements) start where it does.
    kernel->addParamAttr(i, llvm::Attribute::getWithAlignment(c, llvm::Align(kKernelArrayAlignment)));
  }
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", kernel));
  cpu::ElementalEmitter elemental(&b, module);
  std::vector<std::shared_ptr<Shape>> operand_shapes;
  for (const HloInstruction* operand : hlo->operands()) operand_shapes.push_back(std::make_shared<Shape>(operand->shape()));
  KernelContext k{module, &b, kernel, &elemental, nullptr};
  if (scratch) k.scratch = kernel->getArg(static_cast<unsigned>(params.size() - 1));
  k.operand = [&](int64_t i) -> absl::StatusOr<cpu::Generator> {
    llvm::Value* base = kernel->getArg(static_cast<unsigned>(i) + outputs);
    std::shared_ptr<Shape> shape = operand_shapes[i];
    return cpu::Generator([&elemental, base, shape, &b](const cpu::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      if (shape->rank() == 0) return elemental.LoadElement(base, *shape, cpu::IrIndex{{}, b.getInt64(0), shape.get()});
      return elemental.LoadElement(base, *shape, index);
    });
  };
  RETURN_IF_ERROR(body(k));
  b.CreateRetVoid();
  return absl::OkStatus();
}

namespace {

// The kernel (and its later launches) for `kernel->hlo`: sets kernel->rows > 0 for a row
// kernel (and its block cap), kernel->phases for later launches, kernel->scratch_bytes.
absl::Status EmitKernel(llvm::Module* module, PtxKernel* kernel, const GpuTarget& target) {
  const HloInstruction* hlo = kernel->hlo;
  // Kernels of several launches: scatters, and sorts spread over the grid. Scratch memory:
  // a kLastUpdateWins scatter's update positions, a long sort's permutations (ptx_sort.h).
  std::vector<KernelLaunch> launches;
  if (hlo->opcode() == HloOpcode::kScatter || hlo->opcode() == HloOpcode::kSelectAndScatter) {
    kernel->in_place = UpdatesInPlace(*hlo);  // a scatter's fill skips outputs that are their operands
    ASSIGN_OR_RETURN(launches, ScatterLaunches(hlo, DeterministicOps(), &kernel->scratch_bytes));
    if (launches.empty()) return absl::InternalError(absl::StrCat("gpu: ", hlo->name(), " has no launches"));
  } else if (hlo->opcode() == HloOpcode::kReduceWindow) {
    ASSIGN_OR_RETURN(launches, ScanLaunches(hlo, &kernel->scratch_bytes));
  } else {
    ASSIGN_OR_RETURN(const LongSortScratch sort, SortScratch(*hlo));
    kernel->scratch_bytes = sort.bytes();
    if (hlo->opcode() == HloOpcode::kSort) {
      ASSIGN_OR_RETURN(launches, SpreadSortLaunches(hlo));
    }
  }
  const bool scratch = kernel->scratch_bytes > 0;
  if (!launches.empty()) {
    if (launches[0].items != kernel->elements) {
      return absl::InternalError(absl::StrCat("gpu: ", hlo->name(), "'s first launch does not cover its output"));
    }
    for (size_t p = 0; p < launches.size(); ++p) {
      RETURN_IF_ERROR(EmitKernelFunction(module, hlo, p == 0 ? kernel->name : PhaseEntry(kernel->name, p),
                                         launches[p].body, scratch));
      if (p > 0) kernel->phases.push_back(launches[p].items);
    }
    return absl::OkStatus();
  }
  if (const std::optional<cpu::CumulativeWindow> w = cpu::AsCumulativeWindow(*hlo)) {
    // A cumulative reduce-window ScanLaunches left to a thread per row.
    kernel->max_blocks = RowScanBlocks(*hlo, *w);
    return EmitKernelFunction(module, hlo, kernel->name, [&](KernelContext& k) { return EmitRowScansBody(k, hlo, *w); },
                              scratch);
  }
  if (hlo->opcode() != HloOpcode::kScatter && UpdatesInPlace(*hlo)) {
    kernel->in_place = true;
    return EmitKernelFunction(module, hlo, kernel->name,
                              [&](KernelContext& k) { return EmitUpdateRegionBody(k, hlo); }, scratch);
  }
  const std::vector<const HloInstruction*> reductions = RowReductions(*hlo);
  kernel->rows = reductions.empty() ? 0 : hlo->shape().dimensions(0);
  const int per_thread = ElementsPerThread(*hlo, target);
  const RowResidency resident = ResidentRows(*hlo, reductions, per_thread, target);
  // A resident row is read once: nothing to keep in L2 between passes.
  if (kernel->rows > 0 && resident.slots == 0) kernel->max_blocks = RowBlockCap(*hlo, kernel->rows, target.row_l2_budget);
  // A transposing kernel: a block per tile at a time (ptx_transpose.cc), as many as tiles.
  const bool special = IsRngKernel(*hlo) || IsLinalgKernel(*hlo) || hlo->opcode() == HloOpcode::kSort;
  const std::optional<TiledTranspose> tiled =
      target.tiled_transposes && !special && reductions.empty() ? FindTiledTranspose(*hlo) : std::nullopt;
  if (tiled.has_value()) kernel->max_blocks = tiled->tiles;
  RETURN_IF_ERROR(EmitKernelFunction(module, hlo, kernel->name, [&](KernelContext& k) -> absl::Status {
    if (IsRngKernel(*hlo)) return EmitRngBody(k, hlo);
    if (IsLinalgKernel(*hlo)) return EmitLinalgBody(k, hlo);
    if (hlo->opcode() == HloOpcode::kSort) return EmitSortBody(k, hlo, &kernel->rows);
    if (tiled.has_value()) return EmitTiledTransposeBody(k, hlo, *tiled);
    return reductions.empty() ? EmitElementwiseBody(k, hlo, per_thread) : EmitRowBody(k, hlo, reductions, per_thread, resident);
  }, scratch));
  if (!reductions.empty() && target.row_min_blocks_per_sm > 0) {
    AnnotateKernel(module->getFunction(kernel->name), "minctasm", target.row_min_blocks_per_sm);
  }
  return absl::OkStatus();
}

// LLVM intrinsics NVPTX instruction selection handles. Any other one (llvm.exp.*, llvm.pow.*,
// llvm.sin.* of types libdevice has no function for, ...) would stop LLVM with a fatal error
// inside the server, so it is refused before code generation.
bool NvptxLowers(llvm::StringRef name) {
  static constexpr const char* kPrefixes[] = {
      "llvm.nvvm.", "llvm.fabs.", "llvm.sqrt.", "llvm.fma.", "llvm.fmuladd.", "llvm.floor.", "llvm.ceil.",
      "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.roundeven.", "llvm.minnum.",
      "llvm.maxnum.", "llvm.minimum.", "llvm.maximum.", "llvm.copysign.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.",
      "llvm.abs.", "llvm.smax.", "llvm.smin.", "llvm.umax.", "llvm.umin.", "llvm.fshl.", "llvm.fshr.", "llvm.bswap.",
      "llvm.bitreverse.", "llvm.memcpy.", "llvm.memmove.", "llvm.memset.", "llvm.assume", "llvm.lifetime.",
      "llvm.experimental.noalias.scope.decl", "llvm.sadd.with.overflow.", "llvm.uadd.with.overflow.",
      "llvm.ssub.with.overflow.", "llvm.usub.with.overflow.", "llvm.smul.with.overflow.", "llvm.umul.with.overflow.",
      "llvm.vector.reduce.", "llvm.is.fpclass.", "llvm.fptosi.sat.", "llvm.fptoui.sat.", "llvm.uadd.sat.", "llvm.usub.sat.", "llvm.sadd.sat.",
      "llvm.ssub.sat."};
  for (const char* prefix : kPrefixes) {
    if (name.startswith(prefix)) return true;
  }
  return false;
}

// The op kernel function `kernel` computes, as "opcode name" for error messages.
std::string KernelOp(const llvm::Function& kernel, const PtxModule& result) {
  const std::string name = kernel.getName().str();
  for (const PtxKernel& k : result.kernels) {
    if (k.name == name) return absl::StrCat(std::string(HloOpcodeString(k.hlo->opcode())), " ", k.hlo->name());
  }
  return name;
}

// The op a function's first caller computes.
std::string CallerOp(const llvm::Function& f, const PtxModule& result) {
  for (const llvm::User* user : f.users()) {
    const auto* call = llvm::dyn_cast<llvm::CallBase>(user);
    if (call != nullptr) return KernelOp(*call->getFunction(), result);
  }
  return "a kernel";
}

// A kernel may call LLVM intrinsics the NVPTX back end lowers, nothing else.
absl::Status CheckNoHostCalls(const llvm::Module& module, const PtxModule& result) {
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration() || f.use_empty()) continue;
    if (f.isIntrinsic()) {
      if (NvptxLowers(f.getName())) continue;
      return absl::UnimplementedError(absl::StrCat("gpu backend: ", CallerOp(f, result), " needs ", f.getName().str(),
                                                   ", which the NVPTX code generator does not lower"));
    }
    return absl::UnimplementedError(absl::StrCat("gpu backend: ", CallerOp(f, result), " needs the host routine ",
                                                 f.getName().str(), ", which device code cannot call"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsKernelCandidate(const HloInstruction& hlo) {
  if (IsRngKernel(hlo) || IsLinalgKernel(hlo)) return true;
  const std::vector<const Shape*> outputs = KernelOutputs(hlo.shape());
  if (outputs.empty()) return false;
  for (const Shape* output : outputs) {
    if (!cpu::IsSupportedElementType(output->element_type())) return false;
  }
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray() || !cpu::IsSupportedElementType(operand->shape().element_type())) return false;
  }
  switch (hlo.opcode()) {
    // Several outputs (a tuple of arrays) when they sort, scatter or reduce several operands.
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
      return true;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kFusion:  // the pipeline fuses a variadic reduce's inputs into it
      if (hlo.shape().IsTuple()) return true;
      break;
    default:
      if (!hlo.shape().IsArray()) return false;
  }
  switch (hlo.opcode()) {
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kFusion:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kIota:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kReduce:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    // A thread per output element with the cpu emitter's loops: correct for every type, slow
    // for big contractions, which go to cuBLAS instead (dots IsCublasGemm accepts, and the
    // convolutions gpu_conv_gemm.h turns into them).
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kGather:
    case HloOpcode::kMap:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    // One device: replica and partition 0. Ragged and scaled dots as a thread per output
    // element, as dot. ragged-all-to-all and dynamic-reshape read rows and elements where
    // run-time values say: the backend checks those values on the host before the launch
    // (a kernel reading past a buffer would end the device's context).
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kStochasticConvert:
      return true;
    default:
      return cpu::IsElementwise(hlo);
  }
}

namespace {
std::atomic<KernelIrObserver> kernel_ir_observer{nullptr};
}  // namespace

void SetKernelIrObserver(KernelIrObserver observer) { kernel_ir_observer.store(observer); }

absl::StatusOr<PtxModule> EmitPtx(absl::Span<const HloInstruction* const> kernels, const std::string& module_name,
                                  const GpuTarget& target) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, NvptxTargetMachine(target));
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>(module_name, context);
  module->setTargetTriple(kTriple);
  module->setDataLayout(tm->createDataLayout());
  PtxModule result;
  for (const HloInstruction* hlo : kernels) {
    if (!IsKernelCandidate(*hlo)) {
      return absl::UnimplementedError(absl::StrCat("gpu backend: no kernel for ", std::string(HloOpcodeString(hlo->opcode())), " ",
                                                   hlo->name(), " (", hlo->shape().ToString(true), ")"));
    }
    PtxKernel kernel{absl::StrCat("k", result.kernels.size(), "_", hlo->name()), hlo,
                     ShapeUtil::ElementsIn(*KernelOutputs(hlo->shape())[0])};
    // PTX identifiers: letters, digits, _ and $ (HLO names also have '.' and '-').
    for (char& ch : kernel.name) {
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
    }
    RETURN_IF_ERROR(EmitKernel(module.get(), &kernel, target));
    result.kernels.push_back(kernel);
  }
  std::string verify_errors;
  llvm::raw_string_ostream verify_stream(verify_errors);
  if (llvm::verifyModule(*module, &verify_stream)) {
    return absl::InternalError(absl::StrCat("gpu backend emitted invalid IR: ", verify_stream.str()));
  }
  const KernelIrObserver observer = kernel_ir_observer.load();
  std::string bitcode;
  if (observer != nullptr) {
    llvm::raw_string_ostream bitcode_stream(bitcode);
    llvm::WriteBitcodeToFile(*module, bitcode_stream);
  }
  // libm calls and transcendental intrinsics become libdevice's device functions; what is
  // left that NVPTX cannot lower is refused by name.
  RETURN_IF_ERROR(LinkLibdevice(*module, target.sm,
                                [&result](const llvm::Function& kernel) { return KernelOp(kernel, result); }));
  RETURN_IF_ERROR(CheckNoHostCalls(*module, result));
  cpu::OptimizeLlvmModule(*module, tm.get());
  // Optimization may turn loops into calls (library routines, intrinsics): checked again.
  RETURN_IF_ERROR(CheckNoHostCalls(*module, result));
  // XLA_GPU_DUMP_IR=<dir>: the optimized IR of every module, as code generation gets it
  // (<module>.ll, then <module>.1.ll, ... for later modules of the same name).
  if (const char* dir = std::getenv("XLA_GPU_DUMP_IR"); dir != nullptr && *dir != '\0') {
    std::string path = absl::StrCat(dir, "/", module_name, ".ll");
    for (int n = 1; llvm::sys::fs::exists(path); ++n) path = absl::StrCat(dir, "/", module_name, ".", n, ".ll");
    std::error_code ec;
    llvm::raw_fd_ostream dump(path, ec);
    if (!ec) module->print(dump, nullptr);
  }
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, out, nullptr, llvm::CGFT_AssemblyFile)) {
    return absl::InternalError("gpu: the NVPTX target cannot emit assembly");
  }
  codegen.run(*module);
  result.ptx = std::string(ptx.str());
  if (observer != nullptr) observer(result.ptx, bitcode);
  return result;
}

}  // namespace gpu
}  // namespace xla
