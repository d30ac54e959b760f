#include "backends/gpu/testing/kernel_emulator.h"

#include <dlfcn.h>
#include <ucontext.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/ptx_emitter.h"
#include "hlo/status_macros.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

namespace xla {
namespace gpu {
namespace {

using KernelRunner = int (*)(const char* image, const char* kernel, const unsigned* grid, const unsigned* block,
                             void** params, void* context);
using SetKernelRunner = void (*)(KernelRunner, void*);
using Entry = void (*)(void** params);

constexpr size_t kFiberStackBytes = size_t{256} << 10;
constexpr char kSregFunction[] = "xla_gpu_emu_sreg";
constexpr char kBarrierFunction[] = "xla_gpu_emu_barrier";
constexpr char kShuffleFunction[] = "xla_gpu_emu_shfl_down";
constexpr char kEntryPrefix[] = "xla_gpu_emu_entry.";

// The special registers a kernel reads, by the code its calls pass to the emulator.
enum Sreg : int32_t { kTid = 0, kCtaid = 1, kNtid = 2, kNctaid = 3 };

struct EmulatedKernel {
  Entry entry = nullptr;
  bool barriers = false;  // a block's threads must run as fibers
  unsigned args = 0;
};

struct EmulatedModule {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<std::string, EmulatedKernel> kernels;
};

// Every launch runs under this lock; it guards the maps and the grid below too.
std::mutex mu;
std::unordered_map<std::string, std::string>& BitcodeByPtx() {
  static auto* map = new std::unordered_map<std::string, std::string>();
  return *map;
}
std::unordered_map<std::string, std::unique_ptr<EmulatedModule>>& ModulesByPtx() {
  static auto* map = new std::unordered_map<std::string, std::unique_ptr<EmulatedModule>>();
  return *map;
}
std::atomic<int> launches{0};
std::atomic<int> overwriting_launches{0};  // whose first output is one of their other arrays

// Fibers: each thread of a block with barriers runs on its own stack until its next barrier.
// On x86-64 a switch saves the callee-saved registers on the stack it leaves and takes the
// other's: ucontext's swapcontext also saves the signal mask, a system call per switch, which
// made those switches most of the emulated suites' time. Sanitizer builds keep ucontext, which
// the sanitizers know about.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define XLA_EMULATOR_STACK_SWITCH 1
extern "C" void xla_gpu_emu_switch(void** save_sp, void* next_sp);
asm(R"(
  .pushsection .text
  .globl xla_gpu_emu_switch
  .type xla_gpu_emu_switch, @function
xla_gpu_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size xla_gpu_emu_switch, .-xla_gpu_emu_switch
  .popsection
)");
struct FiberContext {
  void* sp = nullptr;
};
#else
struct FiberContext {
  ucontext_t context;
};
#endif

// The launch being run.
enum class FiberState : uint8_t { kRunnable, kAtBarrier, kDone };
struct Grid {
  uint32_t tid = 0, ctaid = 0, ntid = 1, nctaid = 1;
  Entry entry = nullptr;
  void** params = nullptr;
  bool fibers = false;
  FiberContext scheduler;
  std::vector<FiberContext> contexts;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<FiberState> state;
  // The values of a thread's shuffles by the parity of their count, and the count.
  std::vector<int32_t> exchange[2];
  std::vector<uint32_t> shuffles;
};
Grid grid;

int32_t EmulatedSreg(int32_t which) {
  switch (which) {
    case kTid: return static_cast<int32_t>(grid.tid);
    case kCtaid: return static_cast<int32_t>(grid.ctaid);
    case kNtid: return static_cast<int32_t>(grid.ntid);
    case kNctaid: return static_cast<int32_t>(grid.nctaid);
    default: return 0;
  }
}

void SwitchFiber(FiberContext* from, FiberContext* to) {
#ifdef XLA_EMULATOR_STACK_SWITCH
  xla_gpu_emu_switch(&from->sp, to->sp);
#else
  swapcontext(&from->context, &to->context);
#endif
}

void EmulatedBarrier() {
  if (!grid.fibers) {
    std::fprintf(stderr, "kernel emulator: a barrier in a kernel run without fibers\n");
    std::abort();
  }
  const uint32_t me = grid.tid;
  grid.state[me] = FiberState::kAtBarrier;
  SwitchFiber(&grid.contexts[me], &grid.scheduler);
}

// shfl.sync.down.i32 with the whole warp taking part: `value` of the lane `offset` up (this
// thread's own past lane `clamp` & 31), exchanged at a barrier of the block, which every
// thread of a kernel with shuffles reaches at each of them. The values alternate between two
// arrays: a thread writes one again only at its shuffle after next, which it reaches after
// every thread has passed the next shuffle's barrier, and so has read this one's values.
int32_t EmulatedShuffleDown(int32_t value, int32_t offset, int32_t clamp) {
  const uint32_t me = grid.tid;
  std::vector<int32_t>& exchange = grid.exchange[grid.shuffles[me]++ % 2];
  exchange[me] = value;
  EmulatedBarrier();
  const uint32_t lane = me % 32;
  uint32_t source = lane + static_cast<uint32_t>(offset) <= static_cast<uint32_t>(clamp & 31) ? me + offset : me;
  if (source >= grid.ntid) source = me;
  return exchange[source];
}

// A fiber's thread: the kernel, then back to the scheduler for good.
void FiberMain() {
  grid.entry(grid.params);
  const uint32_t me = grid.tid;
  grid.state[me] = FiberState::kDone;
  SwitchFiber(&grid.contexts[me], &grid.scheduler);
}

// Fiber `t` set to start FiberMain on its stack when first switched to.
void StartFiber(uint32_t t) {
#ifdef XLA_EMULATOR_STACK_SWITCH
  // The stack xla_gpu_emu_switch pops: six registers, then FiberMain's address to return to,
  // above it a null return address for FiberMain (which never returns), 16-byte aligned as a
  // call would leave it.
  auto top = reinterpret_cast<uintptr_t>(grid.stacks[t].get() + kFiberStackBytes) & ~uintptr_t{15};
  auto* slots = reinterpret_cast<void**>(top);
  slots[-1] = nullptr;
  slots[-2] = reinterpret_cast<void*>(&FiberMain);
  for (int r = 3; r <= 8; ++r) slots[-r] = nullptr;
  grid.contexts[t].sp = &slots[-8];
#else
  ucontext_t& c = grid.contexts[t].context;
  getcontext(&c);
  c.uc_stack.ss_sp = grid.stacks[t].get();
  c.uc_stack.ss_size = kFiberStackBytes;
  c.uc_link = nullptr;
  makecontext(&c, &FiberMain, 0);
#endif
}

// Every block in turn, the last first (a device runs blocks in no set order: a kernel that
// counts on block 0 running before block 1 fails here); a block's threads one after another,
// also the last first, or as fibers that each run to their next barrier (or end) before the
// next is resumed, when the kernel has barriers. Threads that ended count as arrived, as on
// the device.
void RunGrid(const EmulatedKernel& kernel, uint32_t blocks, uint32_t threads, void** params) {
  grid.entry = kernel.entry;
  grid.params = params;
  grid.ntid = threads;
  grid.nctaid = blocks;
  grid.fibers = kernel.barriers;
  if (!kernel.barriers) {
    for (uint32_t b = blocks; b-- > 0;) {
      grid.ctaid = b;
      for (uint32_t t = threads; t-- > 0;) {
        grid.tid = t;
        kernel.entry(params);
      }
    }
    return;
  }
  grid.contexts.resize(threads);
  grid.shuffles.assign(threads, 0);
  for (std::vector<int32_t>& exchange : grid.exchange) exchange.assign(threads, 0);
  grid.state.assign(threads, FiberState::kRunnable);
  while (grid.stacks.size() < threads) grid.stacks.emplace_back(new char[kFiberStackBytes]);
  for (uint32_t b = blocks; b-- > 0;) {
    grid.ctaid = b;
    for (uint32_t t = 0; t < threads; ++t) {
      StartFiber(t);
      grid.state[t] = FiberState::kRunnable;
      grid.shuffles[t] = 0;
    }
    for (bool waiting = true; waiting;) {
      for (uint32_t t = 0; t < threads; ++t) {
        if (grid.state[t] != FiberState::kRunnable) continue;
        grid.tid = t;
        SwitchFiber(&grid.scheduler, &grid.contexts[t]);
      }
      waiting = false;
      for (FiberState& s : grid.state) {
        if (s == FiberState::kAtBarrier) {
          s = FiberState::kRunnable;
          waiting = true;
        }
      }
    }
  }
  grid.fibers = false;
}

absl::Status Refuse(const std::string& why) { return absl::InternalError(absl::StrCat("kernel emulator: ", why)); }

absl::Status FromLlvm(llvm::Error error, const char* what) {
  std::string message;
  llvm::raw_string_ostream os(message);
  os << error;
  return Refuse(absl::StrCat(what, ": ", os.str()));
}

// The code of an NVPTX special register the emulator answers, or -1.
int32_t SregCode(llvm::StringRef name) {
  if (!name.consume_front("llvm.nvvm.read.ptx.sreg.")) return -1;
  if (name == "tid.x") return kTid;
  if (name == "ctaid.x") return kCtaid;
  if (name == "ntid.x") return kNtid;
  if (name == "nctaid.x") return kNctaid;
  return -1;
}

// True when `f` or a function it calls (defined in the module) reaches the barrier.
bool ReachesBarrier(const llvm::Function& f, std::unordered_set<const llvm::Function*>& seen) {
  if (!seen.insert(&f).second) return false;
  for (const llvm::BasicBlock& block : f) {
    for (const llvm::Instruction& i : block) {
      const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
      const llvm::Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
      if (callee == nullptr) continue;
      if (callee->getName() == kBarrierFunction || callee->getName() == kShuffleFunction) return true;
      if (!callee->isDeclaration() && ReachesBarrier(*callee, seen)) return true;
    }
  }
  return false;
}

// The kernels' IR, made host code: special registers and barriers become calls to the
// emulator, shared memory a host global, and each kernel gets an entry taking the launch's
// parameter array.
absl::StatusOr<std::unique_ptr<EmulatedModule>> LoadModule(const std::string& bitcode) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "kernels"), *context);
  if (!parsed) return FromLlvm(parsed.takeError(), "reading the kernels' bitcode");
  llvm::Module& m = **parsed;
  llvm::LLVMContext& c = *context;
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::FunctionCallee sreg = m.getOrInsertFunction(kSregFunction, llvm::FunctionType::get(i32, {i32}, false));
  llvm::FunctionCallee barrier =
      m.getOrInsertFunction(kBarrierFunction, llvm::FunctionType::get(llvm::Type::getVoidTy(c), false));
  llvm::FunctionCallee shuffle = m.getOrInsertFunction(kShuffleFunction, llvm::FunctionType::get(i32, {i32, i32, i32}, false));

  std::vector<llvm::Function*> nvvm;
  for (llvm::Function& f : m) {
    if (f.getName().startswith("llvm.nvvm.")) nvvm.push_back(&f);
  }
  for (llvm::Function* f : nvvm) {
    const int32_t code = SregCode(f->getName());
    const bool is_barrier = f->getName() == "llvm.nvvm.barrier0";
    // The approximate math instructions, computed exactly on the host (the device's error
    // bounds are checked on the device).
    const bool is_ex2 = f->getName() == "llvm.nvvm.ex2.approx.f" || f->getName() == "llvm.nvvm.ex2.approx.ftz.f";
    const bool is_rcp = f->getName() == "llvm.nvvm.rcp.approx.ftz.f";
    const bool is_shuffle = f->getName() == "llvm.nvvm.shfl.sync.down.i32";
    if (code < 0 && !is_barrier && !is_ex2 && !is_rcp && !is_shuffle) {
      return Refuse(absl::StrCat("no host version of ", f->getName().str()));
    }
    for (llvm::User* user : llvm::make_early_inc_range(f->users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (call == nullptr) return Refuse(absl::StrCat(f->getName().str(), " is used other than by a call"));
      llvm::IRBuilder<> b(call);
      llvm::Value* replacement =
          is_ex2   ? b.CreateUnaryIntrinsic(llvm::Intrinsic::exp2, call->getArgOperand(0))
          : is_rcp ? b.CreateFDiv(llvm::ConstantFP::get(call->getType(), 1.0), call->getArgOperand(0))
          : is_shuffle ? b.CreateCall(shuffle, {call->getArgOperand(1), call->getArgOperand(2), call->getArgOperand(3)})
          : is_barrier ? b.CreateCall(barrier)
                       : b.CreateCall(sreg, {b.getInt32(code)});
      if (!call->getType()->isVoidTy()) call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
    f->eraseFromParent();
  }

  // Shared memory (address space 3): one host array per kernel, which is the running block's
  // since blocks run one at a time. The kernels keep their address-space pointers, which the
  // host's code generator treats as plain ones.
  std::vector<llvm::GlobalVariable*> shared;
  for (llvm::GlobalVariable& g : m.globals()) {
    if (g.getAddressSpace() == 3) shared.push_back(&g);
  }
  for (llvm::GlobalVariable* g : shared) {
    auto* host = new llvm::GlobalVariable(m, g->getValueType(), false, llvm::GlobalValue::InternalLinkage,
                                          llvm::Constant::getNullValue(g->getValueType()), g->getName() + ".host");
    host->setAlignment(g->getAlign());
    g->replaceAllUsesWith(llvm::ConstantExpr::getAddrSpaceCast(host, g->getType()));
    g->eraseFromParent();
  }
  if (llvm::NamedMDNode* annotations = m.getNamedMetadata("nvvm.annotations")) m.eraseNamedMetadata(annotations);

  auto module = std::make_unique<EmulatedModule>();
  std::vector<llvm::Function*> kernels;
  for (llvm::Function& f : m) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::PTX_Kernel) kernels.push_back(&f);
  }
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  for (llvm::Function* kernel : kernels) {
    kernel->setCallingConv(llvm::CallingConv::C);
    // entry(params): kernel(*(uint64_t*)params[0], *(uint64_t*)params[1], ...)
    auto* entry = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr}, false),
                                         llvm::GlobalValue::ExternalLinkage, kEntryPrefix + kernel->getName(), m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", entry));
    std::vector<llvm::Value*> args;
    for (unsigned i = 0; i < kernel->arg_size(); ++i) {
      llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry->getArg(0), i));
      llvm::Value* address = b.CreateLoad(b.getInt64Ty(), slot);
      args.push_back(b.CreateIntToPtr(address, kernel->getArg(i)->getType()));
    }
    b.CreateCall(kernel, args);
    b.CreateRetVoid();
    std::unordered_set<const llvm::Function*> seen;
    EmulatedKernel& emulated = module->kernels[kernel->getName().str()];
    emulated.barriers = ReachesBarrier(*kernel, seen);
    emulated.args = kernel->arg_size();
  }

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return FromLlvm(jtmb.takeError(), "host detection");
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::None);
  auto data_layout = jtmb->getDefaultDataLayoutForTarget();
  if (!data_layout) return FromLlvm(data_layout.takeError(), "host data layout");
  m.setTargetTriple(jtmb->getTargetTriple().str());
  m.setDataLayout(*data_layout);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(m, &os)) return Refuse(absl::StrCat("the host form of the kernels is invalid IR: ", os.str()));

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return FromLlvm(jit.takeError(), "JIT creation");
  llvm::orc::JITDylib& dylib = (*jit)->getMainJITDylib();
  llvm::orc::SymbolMap symbols;
  symbols[(*jit)->mangleAndIntern(kSregFunction)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&EmulatedSreg), llvm::JITSymbolFlags::Exported);
  symbols[(*jit)->mangleAndIntern(kBarrierFunction)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&EmulatedBarrier), llvm::JITSymbolFlags::Exported);
  symbols[(*jit)->mangleAndIntern(kShuffleFunction)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&EmulatedShuffleDown), llvm::JITSymbolFlags::Exported);
  if (auto error = dylib.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return FromLlvm(std::move(error), "emulator symbols");
  }
  // libm stands in for libdevice (expf for __nv_expf, ...).
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return FromLlvm(process.takeError(), "process symbols");
  dylib.addGenerator(std::move(*process));
  if (auto error = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(*parsed), std::move(context)))) {
    return FromLlvm(std::move(error), "adding the kernels");
  }
  for (auto& [name, kernel] : module->kernels) {
    auto address = (*jit)->lookup(kEntryPrefix + name);
    if (!address) return FromLlvm(address.takeError(), "compiling the kernels for the host");
    kernel.entry = address->toPtr<Entry>();
  }
  module->jit = std::move(*jit);
  return module;
}

void Observe(const std::string& ptx, const std::string& bitcode) {
  std::lock_guard<std::mutex> lock(mu);
  BitcodeByPtx()[ptx] = bitcode;
}

int Run(const char* image, const char* kernel, const unsigned* grid_dims, const unsigned* block_dims, void** params,
        void*) {
  std::lock_guard<std::mutex> lock(mu);
  ++launches;
  if (grid_dims[1] != 1 || grid_dims[2] != 1 || block_dims[1] != 1 || block_dims[2] != 1) {
    std::fprintf(stderr, "kernel emulator: %s launched with a grid or block of more than one dimension\n", kernel);
    return 1;
  }
  const std::string ptx(image);
  auto& modules = ModulesByPtx();
  auto it = modules.find(ptx);
  if (it == modules.end()) {
    auto bitcode = BitcodeByPtx().find(ptx);
    if (bitcode == BitcodeByPtx().end()) {
      std::fprintf(stderr, "kernel emulator: %s is in a module this process did not emit\n", kernel);
      return 1;
    }
    absl::StatusOr<std::unique_ptr<EmulatedModule>> loaded = LoadModule(bitcode->second);
    if (!loaded.ok()) {
      std::fprintf(stderr, "kernel emulator: %s: %s\n", kernel, std::string(loaded.status().message()).c_str());
      return 1;
    }
    it = modules.emplace(ptx, *std::move(loaded)).first;
  }
  auto k = it->second->kernels.find(kernel);
  if (k == it->second->kernels.end()) {
    std::fprintf(stderr, "kernel emulator: no kernel %s in its module\n", kernel);
    return 1;
  }
  for (unsigned i = 1; i < k->second.args; ++i) {
    if (*static_cast<uint64_t*>(params[i]) == *static_cast<uint64_t*>(params[0])) {
      ++overwriting_launches;
      break;
    }
  }
  RunGrid(k->second, grid_dims[0], block_dims[0], params);
  return 0;
}

}  // namespace

absl::Status InstallKernelEmulator(const std::string& fake_libcuda) {
  void* lib = dlopen(fake_libcuda.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return Refuse(absl::StrCat("cannot load the fake libcuda ", fake_libcuda));
  auto set_runner = reinterpret_cast<SetKernelRunner>(dlsym(lib, "xla_fake_cuda_set_kernel_runner"));
  if (set_runner == nullptr) return Refuse(absl::StrCat(fake_libcuda, " is not the fake libcuda"));
  SetKernelIrObserver(&Observe);
  set_runner(&Run, nullptr);
  return absl::OkStatus();
}

int EmulatedLaunches() { return launches.load(); }
int EmulatedOverwritingLaunches() { return overwriting_launches.load(); }

absl::StatusOr<backend::Backend*> EmulatedGpuBackend(const std::string& fake_libcuda, const std::string& fake_cublas) {
  static const absl::StatusOr<backend::Backend*> made = [&]() -> absl::StatusOr<backend::Backend*> {
    setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
    setenv("XLA_FAKE_CUDA_STREAMS", "deferred", 1);
    setenv("XLA_GPU_LIBCUBLAS", fake_cublas.empty() ? "/nonexistent/libcublas.so" : fake_cublas.c_str(), 1);
    RETURN_IF_ERROR(InstallKernelEmulator(fake_libcuda));
    if (!fake_cublas.empty()) {
      // The fake cuBLAS queues its products on the fake driver's streams.
      void* cuda = dlopen(fake_libcuda.c_str(), RTLD_NOW | RTLD_LOCAL);
      void* blas = dlopen(fake_cublas.c_str(), RTLD_NOW | RTLD_LOCAL);
      void* submit = cuda == nullptr ? nullptr : dlsym(cuda, "xla_fake_cuda_submit");
      auto set = reinterpret_cast<void (*)(void*)>(blas == nullptr ? nullptr : dlsym(blas, "xla_fake_cublas_set_submit"));
      if (submit == nullptr || set == nullptr) return Refuse(absl::StrCat(fake_cublas, " is not the fake cuBLAS"));
      set(submit);
    }
    ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::Load(fake_libcuda));
    ASSIGN_OR_RETURN(std::unique_ptr<backend::Backend> b, CreateGpuBackend(driver, CompileGpuPlan));
    return b.release();
  }();
  return made;
}

}  // namespace gpu
}  // namespace xla
