#include "backends/gpu/libdevice.h"

#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace xla {
namespace gpu {
namespace {

constexpr char kDefaultLibdevice[] = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";

// libm routines libdevice defines under the same name with "__nv_" in front (the f32 ones
// with libm's "f" suffix). The elemental emitter calls a subset; the rest cost nothing here.
constexpr const char* kLibmRoutines[] = {
    "exp",   "exp2",  "exp10", "expm1", "log",   "log2",  "log10", "log1p", "sin",    "cos",  "tan",
    "sinh",  "cosh",  "tanh",  "asin",  "acos",  "atan",  "asinh", "acosh", "atanh",  "cbrt", "erf",
    "erfc",  "lgamma", "tgamma", "pow", "atan2", "fmod",  "hypot", "remainder", "nextafter", "fdim"};

// LLVM intrinsics (llvm.<name>.f32 / .f64) that are those routines.
constexpr const char* kIntrinsics[] = {"sin", "cos", "exp", "exp2", "exp10", "log", "log2", "log10", "pow"};

// The constant libdevice's __nvvm_reflect(`what`) answers.
int ReflectValue(llvm::StringRef what, int sm) {
  if (what == "__CUDA_ARCH") return sm * 10;
  if (what == "__CUDA_PREC_SQRT") return 1;  // IEEE square roots, as the cpu backend's
  return 0;                                  // __CUDA_FTZ: keep denormals; unknown: off
}

// The kernel a value of `f`'s first caller, for error messages.
const llvm::Function* FirstCaller(const llvm::Function& f) {
  for (const llvm::User* user : f.users()) {
    if (const auto* call = llvm::dyn_cast<llvm::CallBase>(user)) return call->getFunction();
  }
  return nullptr;
}

void ResolveReflect(llvm::Module& module, int sm) {
  llvm::Function* reflect = module.getFunction("__nvvm_reflect");
  if (reflect == nullptr) return;
  for (llvm::User* user : llvm::make_early_inc_range(reflect->users())) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(user);
    if (call == nullptr || call->arg_size() != 1) continue;
    llvm::StringRef what;
    const llvm::Value* arg = call->getArgOperand(0)->stripPointerCasts();
    if (const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(arg); global != nullptr && global->hasInitializer()) {
      if (const auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer());
          data != nullptr && data->isCString()) {
        what = data->getAsCString();
      }
    }
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), ReflectValue(what, sm)));
    call->eraseFromParent();
  }
  if (reflect->use_empty()) reflect->eraseFromParent();
}

}  // namespace

std::string LibdevicePath() {
  const char* path = std::getenv("XLA_GPU_LIBDEVICE");
  return path != nullptr && *path != '\0' ? path : kDefaultLibdevice;
}

std::string LibdeviceFunctionFor(const std::string& name) {
  for (const char* routine : kLibmRoutines) {
    const std::string r = routine;
    if (name == r || name == r + "f") return "__nv_" + name;
  }
  llvm::StringRef n(name);
  if (!n.consume_front("llvm.")) return "";
  if (n == "powi.f32.i32") return "__nv_powif";
  if (n == "powi.f64.i32") return "__nv_powi";
  for (const char* intrinsic : kIntrinsics) {
    llvm::StringRef rest = n;
    if (!rest.consume_front(intrinsic) || !rest.consume_front(".")) continue;
    if (rest == "f32") return absl::StrCat("__nv_", intrinsic, "f");
    if (rest == "f64") return absl::StrCat("__nv_", intrinsic);
  }
  return "";
}

absl::Status LinkLibdevice(llvm::Module& module, int sm,
                           const std::function<std::string(const llvm::Function&)>& describe) {
  std::vector<std::pair<llvm::Function*, std::string>> renames;
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() || f.use_empty()) continue;
    std::string target = LibdeviceFunctionFor(f.getName().str());
    if (!target.empty()) renames.emplace_back(&f, std::move(target));
  }
  std::vector<llvm::Instruction*> remainders;
  for (llvm::Function& f : module) {
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& i : block) {
        if (i.getOpcode() == llvm::Instruction::FRem && (i.getType()->isFloatTy() || i.getType()->isDoubleTy())) {
          remainders.push_back(&i);
        }
      }
    }
  }
  if (renames.empty() && remainders.empty()) return absl::OkStatus();

  const std::string path = LibdevicePath();
  auto refuse = [&](const std::string& why) {
    const llvm::Function* kernel = nullptr;
    std::string routine;
    if (!renames.empty()) {
      kernel = FirstCaller(*renames.front().first);
      routine = renames.front().first->getName().str();
    } else {
      kernel = remainders.front()->getFunction();
      routine = "fmod";
    }
    return absl::UnimplementedError(absl::StrCat(
        "gpu backend: ", kernel != nullptr ? describe(*kernel) : std::string("a kernel"), " needs ", routine,
        ", which device code gets from libdevice: ", why,
        " (set XLA_GPU_LIBDEVICE to the CUDA toolkit's nvvm/libdevice/libdevice.10.bc)"));
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes = llvm::MemoryBuffer::getFile(path);
  if (!bytes) return refuse(absl::StrCat("libdevice was not found at ", path, " (", bytes.getError().message(), ")"));
  // Lazily: the linker reads only the functions the kernels need.
  llvm::Expected<std::unique_ptr<llvm::Module>> libdevice =
      llvm::getOwningLazyBitcodeModule(std::move(*bytes), module.getContext());
  if (!libdevice) {
    return refuse(absl::StrCat("libdevice at ", path, " does not load: ", llvm::toString(libdevice.takeError())));
  }
  (*libdevice)->setTargetTriple(module.getTargetTriple());  // its own is nvptx64-nvidia-gpulibs
  (*libdevice)->setDataLayout(module.getDataLayout());

  for (auto& [declaration, target] : renames) {
    const llvm::Function* definition = (*libdevice)->getFunction(target);
    // Same name, other signature (say llvm.pow.f16): left for the caller's refusal.
    if (definition == nullptr || definition->getFunctionType() != declaration->getFunctionType()) continue;
    llvm::FunctionCallee callee = module.getOrInsertFunction(target, declaration->getFunctionType());
    declaration->replaceAllUsesWith(callee.getCallee());
    declaration->eraseFromParent();
  }
  for (llvm::Instruction* remainder : remainders) {
    llvm::Type* t = remainder->getType();
    llvm::FunctionCallee fmod =
        module.getOrInsertFunction(t->isFloatTy() ? "__nv_fmodf" : "__nv_fmod", llvm::FunctionType::get(t, {t, t}, false));
    llvm::IRBuilder<> b(remainder);
    llvm::Value* call = b.CreateCall(fmod, {remainder->getOperand(0), remainder->getOperand(1)});
    remainder->replaceAllUsesWith(call);
    remainder->eraseFromParent();
  }

  if (llvm::Linker::linkModules(module, std::move(*libdevice), llvm::Linker::Flags::LinkOnlyNeeded)) {
    return absl::InternalError(absl::StrCat("gpu: linking libdevice (", path, ") into the kernels failed"));
  }
  // Only the kernels stay visible: the optimizer inlines libdevice's functions into them and
  // drops the rest.
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  ResolveReflect(module, sm);
  if (module.getModuleFlag("nvvm-reflect-ftz") == nullptr) {
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});  // NVPTX's own reflect pass agrees
  }
  return absl::OkStatus();
}

}  // namespace gpu
}  // namespace xla
