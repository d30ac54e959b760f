#include "backends/cpu/codegen/jit.h"

#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/status_macros.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

namespace xla {
namespace cpu {
namespace {

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// The one place llvm::Error becomes absl::Status.
absl::Status ToStatus(llvm::Error error, const char* what) {
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase& e) { message += e.message(); });
  return absl::InternalError(absl::StrCat("LLVM ", what, ": ", message));
}


// Vector stores to a kernel's streaming output (kStreamingSlotAttribute) become non-temporal,
// and the kernel fences before it returns (such stores are weakly ordered, and the runtime's
// parallel_for publishes the kernel's results to other threads). Done after optimization: the
// loop vectorizer refuses loops whose scalar stores are already non-temporal. Only stores
// aligned to their size qualify (x86 streams only those).
void MarkStreamingStores(llvm::Module& module) {
  if (!llvm::Triple(module.getTargetTriple()).isX86()) return;
  const llvm::DataLayout& layout = module.getDataLayout();
  llvm::LLVMContext& c = module.getContext();
  llvm::MDNode* one = llvm::MDNode::get(c, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), 1))});
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || !f.hasFnAttribute(kStreamingSlotAttribute) || f.arg_size() == 0) continue;
    int64_t slot = -1;
    if (f.getFnAttribute(kStreamingSlotAttribute).getValueAsString().getAsInteger(10, slot)) continue;
    // The slot's base pointer: a load of slots[slot] (slots is the kernel's first argument).
    auto is_slot_base = [&](const llvm::Value* v) {
      const auto* load = llvm::dyn_cast<llvm::LoadInst>(v);
      if (load == nullptr) return false;
      const llvm::Value* p = load->getPointerOperand();
      if (p == f.getArg(0)) return slot == 0;
      const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(p);
      if (gep == nullptr || gep->getPointerOperand() != f.getArg(0) || gep->getNumIndices() != 1) return false;
      const auto* index = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1));
      return index != nullptr &&
             index->getSExtValue() * static_cast<int64_t>(layout.getTypeAllocSize(gep->getSourceElementType())) ==
                 slot * static_cast<int64_t>(layout.getPointerSize());
    };
    bool marked = false;
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& instruction : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
        if (store == nullptr || !store->getValueOperand()->getType()->isVectorTy()) continue;
        const uint64_t size = layout.getTypeStoreSize(store->getValueOperand()->getType());
        if (store->getAlign().value() < size || !is_slot_base(llvm::getUnderlyingObject(store->getPointerOperand()))) {
          continue;
        }
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, one);
        marked = true;
      }
    }
    if (!marked) continue;
    for (llvm::BasicBlock& block : f) {
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) {
        llvm::IRBuilder<> b(ret);
        b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
      }
    }
  }
}

}  // namespace

void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine* tm) {
  llvm::PipelineTuningOptions options;
  options.LoopVectorization = true;
  options.SLPVectorization = true;
  // No unrolling beyond the vectorizer's interleaving: measured on the issue 6 benchmarks it
  // changed no kernel's time, while fully unrolled short rows and unrolled exp/tanh bodies
  // doubled compile time (busy machine: softmax 95 -> 43 ms, MLP 175 -> 89 ms, GELU 68 -> 28 ms).
  options.LoopUnrolling = false;
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
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

struct CompiledProgram::Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
};

CompiledProgram::CompiledProgram(std::unique_ptr<Jit> jit, EntryFunction entry, std::string entry_name,
                                 std::string object_file)
    : jit_(std::move(jit)), entry_(entry), entry_name_(std::move(entry_name)), object_file_(std::move(object_file)) {}
CompiledProgram::~CompiledProgram() = default;

std::string HostCpuDescription() {
  InitializeLlvm();
  std::string features;
  llvm::StringMap<bool> host_features;
  if (llvm::sys::getHostCPUFeatures(host_features)) {
    std::vector<std::string> on;
    for (const auto& f : host_features) {
      if (f.second) on.push_back(f.first().str());
    }
    std::sort(on.begin(), on.end());
    for (const auto& f : on) absl::StrAppend(&features, features.empty() ? "+" : ",+", f);
  }
  return absl::StrCat(llvm::sys::getHostCPUName().str(), " ", features);
}

absl::StatusOr<std::unique_ptr<CompiledProgram>> CompiledProgram::Compile(const HloModule& module,
                                                                          const BufferPlan& plan) {
  InitializeLlvm();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return ToStatus(jtmb.takeError(), "host detection");
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto tm = jtmb->createTargetMachine();
  if (!tm) return ToStatus(tm.takeError(), "target machine");

  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name(), *context);
  llvm_module->setDataLayout((*tm)->createDataLayout());
  llvm_module->setTargetTriple((*tm)->getTargetTriple().str());
  const std::string entry_name = "xla_cpu_entry";
  RETURN_IF_ERROR(EmitEntryFunction(module, plan, llvm_module.get(), entry_name));
  // Every function gets the host CPU and features, so the vectorizer sees AVX-512/AVX2.
  for (llvm::Function& f : *llvm_module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", (*tm)->getTargetCPU());
    f.addFnAttr("target-features", (*tm)->getTargetFeatureString());
    f.addFnAttr(llvm::Attribute::NoUnwind);
  }
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(*llvm_module, &os)) {
    return absl::InternalError(absl::StrCat("cpu backend emitted invalid IR: ", os.str()));
  }
  OptimizeLlvmModule(*llvm_module, tm->get());
  MarkStreamingStores(*llvm_module);
  // XLA_CPU_DUMP_IR=<dir>: write the optimized IR of every compiled module there.
  if (const char* dir = std::getenv("XLA_CPU_DUMP_IR"); dir != nullptr && *dir != '\0') {
    std::error_code ec;
    llvm::raw_fd_ostream out(absl::StrCat(dir, "/", module.name(), ".ll"), ec);
    if (!ec) llvm_module->print(out, nullptr);
  }

  // To an object file with the target machine the JIT would use (the host's, at O3).
  llvm::orc::SimpleCompiler compiler(**tm);
  auto object = compiler(*llvm_module);
  if (!object) return ToStatus(object.takeError(), "code generation");
  return Load(std::string_view((*object)->getBufferStart(), (*object)->getBufferSize()), entry_name);
}

absl::StatusOr<HostTarget> DetectHostTarget() {
  InitializeLlvm();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return ToStatus(jtmb.takeError(), "host detection");
  HostTarget target;
  target.triple = jtmb->getTargetTriple().str();
  target.cpu = jtmb->getCPU();
  target.features = jtmb->getFeatures().getString();
  return target;
}

absl::StatusOr<std::unique_ptr<CompiledProgram>> CompiledProgram::Load(std::string_view object_file,
                                                                       const std::string& entry_name) {
  InitializeLlvm();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return ToStatus(jtmb.takeError(), "host detection");
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto lljit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!lljit) return ToStatus(lljit.takeError(), "JIT creation");
  llvm::orc::JITDylib& dylib = (*lljit)->getMainJITDylib();
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : RuntimeSymbols()) {
    symbols[(*lljit)->mangleAndIntern(s.name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(s.address), llvm::JITSymbolFlags::Exported);
  }
  if (auto error = dylib.define(llvm::orc::absoluteSymbols(std::move(symbols)))) return ToStatus(std::move(error), "symbols");
  // memcpy/memset and the like that LLVM itself may emit.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*lljit)->getDataLayout().getGlobalPrefix());
  if (!process) return ToStatus(process.takeError(), "process symbols");
  dylib.addGenerator(std::move(*process));
  std::string object_copy(object_file);
  if (auto error = (*lljit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object_copy.data(), object_copy.size()), "xla_cpu_object"))) {
    return ToStatus(std::move(error), "adding the object file");
  }
  auto address = (*lljit)->lookup(entry_name);
  if (!address) return ToStatus(address.takeError(), "symbol lookup");
  auto jit = std::make_unique<Jit>();
  jit->lljit = std::move(*lljit);
  auto entry = address->toPtr<EntryFunction>();
  return std::unique_ptr<CompiledProgram>(
      new CompiledProgram(std::move(jit), entry, entry_name, std::move(object_copy)));
}

}  // namespace cpu
}  // namespace xla
