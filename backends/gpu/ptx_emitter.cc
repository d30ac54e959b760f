#include "backends/gpu/ptx_emitter.h"

#include <cctype>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace xla {
namespace gpu {
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

void Optimize(llvm::Module& module, llvm::TargetMachine* tm) {
  llvm::PipelineTuningOptions options;
  options.LoopUnrolling = false;  // as on cpu (jit.cc): compile time, not speed
  llvm::PassBuilder pb(tm, options);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

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

absl::Status EmitKernel(llvm::Module* module, const HloInstruction* hlo, const std::string& name) {
  llvm::LLVMContext& c = module->getContext();
  llvm::IRBuilder<> b(c);
  auto* ptr = llvm::PointerType::get(c, 1);  // global memory
  std::vector<llvm::Type*> params(hlo->operand_count() + 1, ptr);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (unsigned i = 0; i < params.size(); ++i) kernel->addParamAttr(i, llvm::Attribute::NoAlias);

  llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", kernel);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(c, "loop", kernel);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "done", kernel);
  b.SetInsertPoint(entry);
  const Shape& out = hlo->shape();
  const int64_t elements = ShapeUtil::ElementsIn(out);
  llvm::Value* thread = b.CreateAdd(
      b.CreateMul(ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                  ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  llvm::Value* stride = b.CreateMul(ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                                    ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x));
  b.CreateCondBr(b.CreateICmpULT(thread, b.getInt64(elements)), loop, done);

  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(thread, entry);
  cpu::ElementalEmitter elemental(&b, module);
  std::vector<std::shared_ptr<Shape>> operand_shapes;
  for (const HloInstruction* operand : hlo->operands()) operand_shapes.push_back(std::make_shared<Shape>(operand->shape()));
  cpu::OperandGenerator operand = [&](int64_t k) -> absl::StatusOr<cpu::Generator> {
    llvm::Value* base = kernel->getArg(static_cast<unsigned>(k + 1));
    std::shared_ptr<Shape> shape = operand_shapes[k];
    return cpu::Generator([&elemental, base, shape, &b](const cpu::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      if (shape->rank() == 0) return elemental.LoadElement(base, *shape, cpu::IrIndex{{}, b.getInt64(0), shape.get()});
      return elemental.LoadElement(base, *shape, index);
    });
  };
  ASSIGN_OR_RETURN(cpu::Generator generator, elemental.MakeGenerator(hlo, operand));
  const cpu::IrIndex index = IndexOf(&b, out, i);
  ASSIGN_OR_RETURN(llvm::Value* value, generator(index));
  elemental.StoreElement(value, kernel->getArg(0), out, index);
  llvm::Value* next = b.CreateAdd(i, stride);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, b.getInt64(elements)), loop, done);

  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return absl::OkStatus();
}

// LLVM intrinsics NVPTX instruction selection handles. Any other one (llvm.exp.*, llvm.pow.*,
// llvm.sin.*, ...) would stop LLVM with a fatal error inside the server, so it is refused
// before code generation.
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

// The kernel a function's first caller is in, as "opcode name" for error messages.
std::string CallerOp(const llvm::Function& f, const PtxModule& result) {
  for (const llvm::User* user : f.users()) {
    const auto* call = llvm::dyn_cast<llvm::CallBase>(user);
    if (call == nullptr) continue;
    const std::string kernel = call->getFunction()->getName().str();
    for (const PtxKernel& k : result.kernels) {
      if (k.name == kernel) return absl::StrCat(std::string(HloOpcodeString(k.hlo->opcode())), " ", k.hlo->name());
    }
    return kernel;
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
  if (!hlo.shape().IsArray() || !cpu::IsSupportedElementType(hlo.shape().element_type())) return false;
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray() || !cpu::IsSupportedElementType(operand->shape().element_type())) return false;
  }
  switch (hlo.opcode()) {
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
      return true;
    default:
      return cpu::IsElementwise(hlo);
  }
}

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
                     ShapeUtil::ElementsIn(hlo->shape())};
    // PTX identifiers: letters, digits, _ and $ (HLO names also have '.' and '-').
    for (char& ch : kernel.name) {
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
    }
    RETURN_IF_ERROR(EmitKernel(module.get(), hlo, kernel.name));
    result.kernels.push_back(kernel);
  }
  std::string verify_errors;
  llvm::raw_string_ostream verify_stream(verify_errors);
  if (llvm::verifyModule(*module, &verify_stream)) {
    return absl::InternalError(absl::StrCat("gpu backend emitted invalid IR: ", verify_stream.str()));
  }
  RETURN_IF_ERROR(CheckNoHostCalls(*module, result));
  Optimize(*module, tm.get());
  // Optimization may turn loops into calls (library routines, intrinsics): checked again.
  RETURN_IF_ERROR(CheckNoHostCalls(*module, result));
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, out, nullptr, llvm::CGFT_AssemblyFile)) {
    return absl::InternalError("gpu: the NVPTX target cannot emit assembly");
  }
  codegen.run(*module);
  result.ptx = std::string(ptx.str());
  return result;
}

}  // namespace gpu
}  // namespace xla
