#include "backends/gpu/ptx_emitter.h"

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



// The reductions a row kernel computes once per row, in def-before-use order, or none when
// `hlo` does not fit one: a fusion whose output is row-major with rows in dimension 0, and
// whose every reduce is single-input, reduces x[rows, ...] over all but dimension 0 to a value
// of at most 64 bits (the root may be such a reduce, to [rows]).
std::vector<const HloInstruction*> RowReductions(const HloInstruction& hlo) {
  std::vector<const HloInstruction*> none, reductions;
  if (hlo.opcode() != HloOpcode::kFusion || hlo.to_apply() == nullptr) return none;
  const Shape& out = hlo.shape();
  if (!out.IsArray() || out.rank() < 1 || !out.has_layout()) return none;
  const int64_t rank = out.rank();
  for (int64_t i = 0; i < rank; ++i) {
    if (out.layout().minor_to_major()[i] != rank - 1 - i) return none;
  }
  const HloComputation* fused = hlo.to_apply();
  for (const HloInstruction* inner : fused->MakeInstructionPostOrder()) {
    if (inner->opcode() != HloOpcode::kReduce) continue;
    const Shape& in = inner->operand(0)->shape();
    if (inner->operand_count() != 2 || !inner->shape().IsArray() || in.rank() < 2 ||
        in.dimensions(0) != out.dimensions(0) || inner->shape().rank() != 1 ||
        inner->dimensions().size() != static_cast<size_t>(in.rank() - 1) ||
        primitive_util::IsComplexType(inner->shape().element_type()) ||
        primitive_util::BitWidth(inner->shape().element_type()) > 64) {
      return none;
    }
    for (size_t d = 0; d < inner->dimensions().size(); ++d) {
      if (inner->dimensions()[d] != static_cast<int64_t>(d) + 1) return none;
    }
    reductions.push_back(inner);
  }
  if (fused->root_instruction()->opcode() == HloOpcode::kReduce && rank != 1) return none;
  return reductions;
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

// Threads from `start` striding by `stride` over `n` elements in chunks of `per_thread`
// consecutive ones (chunk c is elements c*per_thread ...), `body` emitted once per element of
// a chunk with its index: LLVM's load-store vectorizer joins a chunk's adjacent accesses (every
// array is 16-byte aligned), and the thread's loads are all issued before their values are
// used. The last n % per_thread elements follow, one per thread.
template <typename F>
absl::Status EmitChunkedLoop(llvm::IRBuilder<>* b, llvm::Value* start, int64_t n, llvm::Value* stride, int per_thread,
                             const char* name, F body) {
  const int64_t chunks = n / per_thread;
  if (chunks > 0) {
    RETURN_IF_ERROR(EmitStridedLoop(b, start, b->getInt64(chunks), stride, name, [&](llvm::Value* c) -> absl::Status {
      llvm::Value* first = b->CreateMul(c, b->getInt64(per_thread), "", /*HasNUW=*/true, /*HasNSW=*/true);
      for (int i = 0; i < per_thread; ++i) {
        RETURN_IF_ERROR(body(i == 0 ? first : b->CreateAdd(first, b->getInt64(i), "", true, true)));
      }
      return absl::OkStatus();
    }));
  }
  if (n % per_thread == 0) return absl::OkStatus();
  return EmitStridedLoop(b, b->CreateAdd(start, b->getInt64(chunks * per_thread)), b->getInt64(n), stride,
                         (std::string(name) + ".tail").c_str(), body);
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

// The register value `v` of `type` as i64 bits and back (shared memory holds i64 slots).
llvm::Value* ToBits64(llvm::IRBuilder<>* b, llvm::Value* v) {
  llvm::Type* t = v->getType();
  if (!t->isIntegerTy()) v = b->CreateBitCast(v, b->getIntNTy(t->getPrimitiveSizeInBits()));
  return b->CreateZExt(v, b->getInt64Ty());
}
llvm::Value* FromBits64(llvm::IRBuilder<>* b, llvm::Value* bits, llvm::Type* t) {
  if (t->isIntegerTy()) return b->CreateTrunc(bits, t);
  return b->CreateBitCast(b->CreateTrunc(bits, b->getIntNTy(t->getPrimitiveSizeInBits())), t);
}

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kGpuThreadsPerBlock / kWarpSize;
static_assert(kGpuThreadsPerBlock % kWarpSize == 0, "blocks are whole warps");

// `v` (of at most 64 bits) of the lane `offset` lanes up in this warp (this lane's own past
// the warp's end): shfl.sync.down of its 32-bit halves, the whole warp taking part.
llvm::Value* ShuffleDown(llvm::IRBuilder<>* b, llvm::Module* module, llvm::Value* v, int offset) {
  llvm::Function* shfl = llvm::Intrinsic::getDeclaration(module, llvm::Intrinsic::nvvm_shfl_sync_down_i32);
  llvm::Value* bits = ToBits64(b, v);
  auto word = [&](llvm::Value* w) {
    return b->CreateZExt(b->CreateCall(shfl, {b->getInt32(-1), w, b->getInt32(offset), b->getInt32(kWarpSize - 1)}),
                         b->getInt64Ty());
  };
  llvm::Value* result = word(b->CreateTrunc(bits, b->getInt32Ty()));
  if (v->getType()->getPrimitiveSizeInBits() > 32) {
    llvm::Value* high = word(b->CreateTrunc(b->CreateLShr(bits, 32), b->getInt32Ty()));
    result = b->CreateOr(result, b->CreateShl(high, 32));
  }
  return FromBits64(b, result, v->getType());
}

// The block's threads' `partial`s combined by `f`: down each warp by shuffles (lane l takes
// lane l + 16, then l + 8, ..., so lane 0 holds its warp's value), then the warps' values in
// warp order through `set` (kWarpsPerBlock i64 slots of shared memory) by every thread, so
// that all of them return the block's value. One barrier: the caller keeps the next writes of
// `set` behind another one.
absl::StatusOr<llvm::Value*> BlockReduce(KernelContext& k, const HloComputation& f, llvm::Value* partial,
                                         llvm::Value* set, llvm::Value* tid) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  for (int offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                     e.EmitScalarComputation(f, {partial, ShuffleDown(&b, k.module, partial, offset)}));
    partial = r[0];
  }
  auto* set_type = llvm::ArrayType::get(b.getInt64Ty(), kWarpsPerBlock);
  auto slot = [&](llvm::Value* w) { return b.CreateInBoundsGEP(set_type, set, {b.getInt64(0), w}); };
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kWarpSize));
  llvm::Value* warp = b.CreateUDiv(tid, b.getInt64(kWarpSize));
  RETURN_IF_ERROR(EmitIf(&b, b.CreateICmpEQ(lane, b.getInt64(0)), "warp0", [&]() -> absl::Status {
    b.CreateStore(ToBits64(&b, partial), slot(warp));
    return absl::OkStatus();
  }));
  b.CreateCall(llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0));
  llvm::Type* type = partial->getType();
  llvm::Value* value = FromBits64(&b, b.CreateLoad(b.getInt64Ty(), slot(b.getInt64(0))), type);
  for (int w = 1; w < kWarpsPerBlock; ++w) {
    llvm::Value* other = FromBits64(&b, b.CreateLoad(b.getInt64Ty(), slot(b.getInt64(w))), type);
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e.EmitScalarComputation(f, {value, other}));
    value = r[0];
  }
  return value;
}

// How a row kernel's threads hold a row: `slots` > 0 when each keeps its elements of the row
// in registers between the passes (chunks tid, tid + threads, ... of `per_thread` consecutive
// elements, one slot each), so the row is read from memory once and every reduction's input
// computed once; 0 when they loop over the row in each pass instead.
struct RowResidency {
  int64_t slots = 0;
  int per_thread = 1;
};

// Registers a thread may give one kept value's elements (4-byte registers: 64 f32 elements).
constexpr int64_t kResidentBytesPerThread = 256;
constexpr int64_t kMaxResidentSlots = 16;

RowResidency ResidentRows(const HloInstruction& hlo, const std::vector<const HloInstruction*>& reductions,
                          int per_thread, const GpuTarget& target) {
  if (!target.resident_rows || reductions.empty()) return {};
  // The passes are unrolled: a small fused computation only.
  if (hlo.to_apply()->instructions().size() > 64) return {};
  const Shape& in = reductions[0]->operand(0)->shape();
  int64_t widest = 4;
  for (const HloInstruction* reduction : reductions) {
    const Shape& shape = reduction->operand(0)->shape();
    if (shape.dimensions() != in.dimensions()) return {};
    widest = std::max<int64_t>(widest, (primitive_util::BitWidth(shape.element_type()) + 7) / 8);
  }
  const HloInstruction* root = hlo.to_apply()->root_instruction();
  if (root->opcode() != HloOpcode::kReduce && hlo.shape().dimensions() != in.dimensions()) return {};
  const int64_t row_elements = ShapeUtil::ElementsIn(in) / std::max<int64_t>(in.dimensions(0), 1);
  RowResidency r;
  r.per_thread = row_elements % per_thread == 0 ? per_thread : 1;
  const int64_t chunks = row_elements / r.per_thread;
  r.slots = (chunks + kGpuThreadsPerBlock - 1) / kGpuThreadsPerBlock;
  if (r.slots == 0 || r.slots > kMaxResidentSlots || r.slots * r.per_thread * widest > kResidentBytesPerThread) return {};
  return r;
}

// A value per (kept instruction, element of the thread's row) in registers (allocas that
// become them): filled by the pass that reduces the instruction, read by later ones.
class RowRegisters {
 public:
  RowRegisters(KernelContext& k, const std::vector<const HloInstruction*>& reductions, int64_t elements)
      : k_(k) {
    llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
    for (const HloInstruction* reduction : reductions) {
      const HloInstruction* input = reduction->operand(0);
      if (kept_.count(input)) continue;
      Kept& kept = kept_[input];
      kept.type = k.elemental->RegisterType(input->shape().element_type());
      for (int64_t i = 0; i < elements; ++i) kept.values.push_back(entry.CreateAlloca(kept.type));
    }
    for (auto& [input, kept] : kept_) {
      const HloInstruction* inner = input;
      k.elemental->SetFusedOverride(inner, [this, inner](const cpu::IrIndex& index, const cpu::Generator& compute)
                                               -> absl::StatusOr<llvm::Value*> {
        const Kept& kept = kept_.at(inner);
        auto element = element_of_.find(index.multi);
        if (!kept.ready || element == element_of_.end()) return compute(index);
        return k_.b->CreateLoad(kept.type, kept.values[element->second]);
      });
    }
  }
  // Element `i` of the thread's row is at `index` in this row.
  void SetIndex(int64_t i, const cpu::IrIndex& index) { element_of_[index.multi] = i; }
  // A new row: nothing kept yet.
  void StartRow() {
    for (auto& [input, kept] : kept_) kept.ready = false;
  }
  void Keep(const HloInstruction* input, int64_t i, llvm::Value* v) {
    if (!kept_.at(input).ready) k_.b->CreateStore(v, kept_.at(input).values[i]);
  }
  // `input`'s elements are all stored: later passes read them.
  void Ready(const HloInstruction* input) { kept_.at(input).ready = true; }

 private:
  struct Kept {
    llvm::Type* type = nullptr;
    std::vector<llvm::AllocaInst*> values;
    bool ready = false;
  };
  KernelContext& k_;
  std::map<const HloInstruction*, Kept> kept_;
  std::map<std::vector<llvm::Value*>, int64_t> element_of_;
};

absl::Status EmitRowBody(KernelContext& k, const HloInstruction* hlo, const std::vector<const HloInstruction*>& reductions,
                         int per_thread, const RowResidency& resident) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& out = hlo->shape();
  const int64_t rows = out.dimensions(0);
  const HloInstruction* root = hlo->to_apply()->root_instruction();
  ASSIGN_OR_RETURN(cpu::ElementalEmitter::FusionGenerators generators, e.MakeFusionGenerators(hlo, k.operand));
  ASSIGN_OR_RETURN(cpu::Generator root_generator, e.MakeGenerator(hlo, k.operand));
  // A set of kWarpsPerBlock slots per reduction in a row for the warps' values: a reduction's
  // barrier keeps the next one's writes after every read of the previous set, and with one
  // reduction a barrier ends the row.
  const int64_t sets = static_cast<int64_t>(reductions.size());
  auto* set_type = llvm::ArrayType::get(b.getInt64Ty(), kWarpsPerBlock);
  auto* slots_type = llvm::ArrayType::get(set_type, sets);
  auto* slots = new llvm::GlobalVariable(*k.module, slots_type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(slots_type), k.kernel->getName() + ".slots", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b.getInt64(kGpuThreadsPerBlock);
  const Shape& in_shape = reductions[0]->operand(0)->shape();
  const int64_t in_row_elements = ShapeUtil::ElementsIn(in_shape) / std::max<int64_t>(rows, 1);
  const std::vector<int64_t> in_row_dims(in_shape.dimensions().begin() + 1, in_shape.dimensions().end());
  const int64_t chunks = resident.slots > 0 ? in_row_elements / resident.per_thread : 0;
  std::unique_ptr<RowRegisters> kept;
  if (resident.slots > 0) kept = std::make_unique<RowRegisters>(k, reductions, resident.slots * resident.per_thread);
  // Resident: `body(i, index)` for each element i of the thread's row, slot by slot, a slot
  // that not every thread has under a condition.
  std::vector<cpu::IrIndex> element_index;
  auto for_each_kept = [&](const std::function<absl::Status(int64_t, const cpu::IrIndex&)>& body) -> absl::Status {
    for (int64_t s = 0; s < resident.slots; ++s) {
      auto slot_body = [&]() -> absl::Status {
        for (int i = 0; i < resident.per_thread; ++i) {
          const int64_t element = s * resident.per_thread + i;
          RETURN_IF_ERROR(body(element, element_index[element]));
        }
        return absl::OkStatus();
      };
      if ((s + 1) * kGpuThreadsPerBlock <= chunks) {
        RETURN_IF_ERROR(slot_body());
      } else {
        RETURN_IF_ERROR(EmitIf(&b, b.CreateICmpULT(b.CreateAdd(tid, b.getInt64(s * kGpuThreadsPerBlock)), b.getInt64(chunks)),
                               "slot", slot_body));
      }
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(rows),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "row", [&](llvm::Value* row) -> absl::Status {
        if (kept != nullptr) {
          // The indices of the thread's elements, computed once for every pass (so that the
          // kept values are found by index).
          kept->StartRow();
          element_index.clear();
          for (int64_t s = 0; s < resident.slots; ++s) {
            llvm::Value* first = b.CreateMul(b.CreateAdd(tid, b.getInt64(s * kGpuThreadsPerBlock)),
                                             b.getInt64(resident.per_thread), "", true, true);
            for (int i = 0; i < resident.per_thread; ++i) {
              llvm::Value* j = b.CreateAdd(first, b.getInt64(i), "", true, true);
              cpu::IrIndex index;
              index.multi = RowMajorIndex(&b, in_row_dims, j);
              index.multi.insert(index.multi.begin(), row);
              index.linear = b.CreateAdd(b.CreateMul(row, b.getInt64(in_row_elements)), j);
              index.linear_shape = &out;  // used only where it is the operand's shape too
              kept->SetIndex(static_cast<int64_t>(element_index.size()), index);
              element_index.push_back(index);
            }
          }
        }
        llvm::Value* row_result = nullptr;
        for (size_t r = 0; r < reductions.size(); ++r) {
          const HloInstruction* reduction = reductions[r];
          const HloInstruction* input = reduction->operand(0);
          llvm::Type* type = e.RegisterType(reduction->shape().element_type());
          const cpu::Generator& in = generators->at(input);
          ASSIGN_OR_RETURN(llvm::Value* init, generators->at(reduction->operand(1))(cpu::IrIndex{}));
          // This thread's partial over its elements of the row.
          llvm::AllocaInst* partial = nullptr;
          {
            llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
            partial = entry.CreateAlloca(type);
          }
          b.CreateStore(init, partial);
          auto accumulate = [&](llvm::Value* x) -> absl::Status {
            ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                             e.EmitScalarComputation(*reduction->to_apply(), {b.CreateLoad(type, partial), x}));
            b.CreateStore(r[0], partial);
            return absl::OkStatus();
          };
          if (kept != nullptr) {
            RETURN_IF_ERROR(for_each_kept([&](int64_t i, const cpu::IrIndex& index) -> absl::Status {
              ASSIGN_OR_RETURN(llvm::Value* x, in(index));
              kept->Keep(input, i, x);
              return accumulate(x);
            }));
            kept->Ready(input);
          } else {
            RETURN_IF_ERROR(EmitChunkedLoop(&b, tid, in_row_elements, threads, per_thread, "part",
                                            [&](llvm::Value* j) -> absl::Status {
                                              cpu::IrIndex index;
                                              index.multi = RowMajorIndex(&b, in_row_dims, j);
                                              index.multi.insert(index.multi.begin(), row);
                                              ASSIGN_OR_RETURN(llvm::Value* x, in(index));
                                              return accumulate(x);
                                            }));
          }
          llvm::Value* set = b.CreateInBoundsGEP(slots_type, slots, {b.getInt64(0), b.getInt64(static_cast<int64_t>(r))});
          ASSIGN_OR_RETURN(llvm::Value* value,
                           BlockReduce(k, *reduction->to_apply(), b.CreateLoad(type, partial), set, tid));
          e.SetFusedOverride(reduction, [value](const cpu::IrIndex&, const cpu::Generator&) -> absl::StatusOr<llvm::Value*> {
            return value;
          });
          if (reduction == root) row_result = value;
        }
        // One set: every thread has read it before the next row's writes.
        if (sets == 1) b.CreateCall(llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0));
        if (row_result != nullptr) {  // the root is the reduction: one value per row
          return EmitIf(&b, b.CreateICmpEQ(tid, b.getInt64(0)), "store", [&]() -> absl::Status {
            e.StoreElement(row_result, k.kernel->getArg(0), out, cpu::IrIndex{{row}, row, &out});
            return absl::OkStatus();
          });
        }
        if (kept != nullptr) {
          return for_each_kept([&](int64_t, const cpu::IrIndex& index) -> absl::Status {
            ASSIGN_OR_RETURN(llvm::Value* v, root_generator(index));
            e.StoreElement(v, k.kernel->getArg(0), out, index);
            return absl::OkStatus();
          });
        }
        const std::vector<int64_t> out_row_dims(out.dimensions().begin() + 1, out.dimensions().end());
        const int64_t row_elements = ShapeUtil::ElementsIn(out) / std::max<int64_t>(rows, 1);
        return EmitChunkedLoop(&b, tid, row_elements, threads, per_thread, "elem", [&](llvm::Value* j) -> absl::Status {
          cpu::IrIndex index;
          index.multi = RowMajorIndex(&b, out_row_dims, j);
          index.multi.insert(index.multi.begin(), row);
          index.linear = b.CreateAdd(b.CreateMul(row, b.getInt64(row_elements)), j);
          index.linear_shape = &out;
          ASSIGN_OR_RETURN(llvm::Value* v, root_generator(index));
          e.StoreElement(v, k.kernel->getArg(0), out, index);
          return absl::OkStatus();
        });
      }));
  e.ClearFusedOverrides();
  return absl::OkStatus();
}

}  // namespace

// The alignment kernels assume of their array parameters (16-byte vector accesses).
constexpr uint64_t kKernelArrayAlignment = 16;
static_assert(kDeviceAlignment % kKernelArrayAlignment == 0, "pool blocks must be aligned for the kernels' vector accesses");

absl::Status EmitKernelFunction(llvm::Module* module, const HloInstruction* hlo, const std::string& name,
                                const KernelBody& body) {
  llvm::LLVMContext& c = module->getContext();
  llvm::IRBuilder<> b(c);
  auto* ptr = llvm::PointerType::get(c, 1);  // global memory
  const unsigned outputs = static_cast<unsigned>(KernelOutputs(hlo->shape()).size());
  std::vector<llvm::Type*> params(hlo->operand_count() + outputs, ptr);
  // Scratch memory, when the kernel needs some, comes last (gpu_plan.h).
  ASSIGN_OR_RETURN(const LongSortScratch sort_scratch, SortScratch(*hlo));
  if (sort_scratch.slots > 0) params.push_back(ptr);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  // Every launch has kGpuThreadsPerBlock threads (gpu_backend.cc): ptxas may then give a
  // thread up to 65536 / 256 registers instead of planning for 1024-thread blocks.
  module->getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(c, {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(c, "maxntidx"),
                                         llvm::ConstantAsMetadata::get(b.getInt32(kGpuThreadsPerBlock))}));
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
  if (sort_scratch.slots > 0) k.scratch = kernel->getArg(static_cast<unsigned>(params.size() - 1));
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

// Blocks for a row kernel over `rows` rows of `hlo` such that the rows in flight fit in
// `l2_budget` bytes of L2 (0: no cap, also when they all fit).
int64_t RowBlockCap(const HloInstruction& hlo, int64_t rows, int64_t l2_budget) {
  int64_t row_bytes = 0;
  for (const HloInstruction* operand : hlo.operands()) {
    const Shape& shape = operand->shape();
    if (shape.IsArray() && shape.rank() >= 1 && shape.dimensions(0) == rows) {
      row_bytes += ShapeUtil::ByteSizeOf(shape) / std::max<int64_t>(rows, 1);
    }
  }
  if (l2_budget <= 0 || row_bytes <= 0) return 0;
  const int64_t cap = std::max<int64_t>(l2_budget / row_bytes, 1);
  return cap >= rows ? 0 : cap;
}

// The kernel (and its later launches) for `kernel->hlo`: sets kernel->rows > 0 for a row
// kernel (and its block cap), kernel->phases for later launches.
absl::Status EmitKernel(llvm::Module* module, PtxKernel* kernel, const GpuTarget& target) {
  const HloInstruction* hlo = kernel->hlo;
  // Kernels of several launches: scatters, and sorts spread over the grid.
  std::vector<KernelLaunch> launches;
  if (hlo->opcode() == HloOpcode::kScatter || hlo->opcode() == HloOpcode::kSelectAndScatter) {
    ASSIGN_OR_RETURN(launches, ScatterLaunches(hlo, DeterministicOps()));
    if (launches.empty()) return absl::InternalError(absl::StrCat("gpu: ", hlo->name(), " has no launches"));
  } else if (hlo->opcode() == HloOpcode::kSort) {
    ASSIGN_OR_RETURN(launches, SpreadSortLaunches(hlo));
  }
  if (!launches.empty()) {
    if (launches[0].items != kernel->elements) {
      return absl::InternalError(absl::StrCat("gpu: ", hlo->name(), "'s first launch does not cover its output"));
    }
    for (size_t p = 0; p < launches.size(); ++p) {
      RETURN_IF_ERROR(EmitKernelFunction(module, hlo, p == 0 ? kernel->name : PhaseEntry(kernel->name, p),
                                         launches[p].body));
      if (p > 0) kernel->phases.push_back(launches[p].items);
    }
    return absl::OkStatus();
  }
  const std::vector<const HloInstruction*> reductions = RowReductions(*hlo);
  kernel->rows = reductions.empty() ? 0 : hlo->shape().dimensions(0);
  const int per_thread = ElementsPerThread(*hlo, target);
  const RowResidency resident = ResidentRows(*hlo, reductions, per_thread, target);
  // A resident row is read once: nothing to keep in L2 between passes.
  if (kernel->rows > 0 && resident.slots == 0) kernel->max_blocks = RowBlockCap(*hlo, kernel->rows, target.row_l2_budget);
  RETURN_IF_ERROR(EmitKernelFunction(module, hlo, kernel->name, [&](KernelContext& k) -> absl::Status {
    if (IsRngKernel(*hlo)) return EmitRngBody(k, hlo);
    if (IsLinalgKernel(*hlo)) return EmitLinalgBody(k, hlo);
    if (hlo->opcode() == HloOpcode::kSort) return EmitSortBody(k, hlo, &kernel->rows);
    return reductions.empty() ? EmitElementwiseBody(k, hlo, per_thread) : EmitRowBody(k, hlo, reductions, per_thread, resident);
  }));
  if (!reductions.empty() && target.row_min_blocks_per_sm > 0) {
    llvm::LLVMContext& c = module->getContext();
    module->getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(
            c, {llvm::ValueAsMetadata::get(module->getFunction(kernel->name)), llvm::MDString::get(c, "minctasm"),
                llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), target.row_min_blocks_per_sm))}));
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
