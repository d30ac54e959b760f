#include "backends/gpu/ptx_emitter.h"

#include <cctype>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/codegen/jit.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/gpu/libdevice.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
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

// Kernel scaffolding shared by both kinds: the function, its parameters' generators.
struct KernelContext {
  llvm::Module* module;
  llvm::IRBuilder<>* b;
  llvm::Function* kernel;
  cpu::ElementalEmitter* elemental;
  cpu::OperandGenerator operand;
};

// Emits `then` under `condition` (no else), leaving the builder after it.
template <typename F>
absl::Status EmitIf(llvm::IRBuilder<>* b, llvm::Value* condition, const char* name, F then) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".then", f);
  llvm::BasicBlock* after = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".end", f);
  b->CreateCondBr(condition, body, after);
  b->SetInsertPoint(body);
  RETURN_IF_ERROR(then());
  b->CreateBr(after);
  b->SetInsertPoint(after);
  return absl::OkStatus();
}

// for (v = start; v < limit; v += step) body(v), start < limit tested first.
template <typename F>
absl::Status EmitStridedLoop(llvm::IRBuilder<>* b, llvm::Value* start, llvm::Value* limit, llvm::Value* step,
                             const char* name, F body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b->getContext(), name, f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".done", f);
  b->CreateCondBr(b->CreateICmpULT(start, limit), loop, done);
  b->SetInsertPoint(loop);
  llvm::PHINode* v = b->CreatePHI(b->getInt64Ty(), 2, name);
  v->addIncoming(start, before);
  RETURN_IF_ERROR(body(v));
  llvm::Value* next = b->CreateAdd(v, step);
  v->addIncoming(next, b->GetInsertBlock());
  b->CreateCondBr(b->CreateICmpULT(next, limit), loop, done);
  b->SetInsertPoint(done);
  return absl::OkStatus();
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

absl::Status EmitElementwiseBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  const Shape& out = hlo->shape();
  llvm::Value* thread = b.CreateAdd(
      b.CreateMul(ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                  ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  llvm::Value* stride = b.CreateMul(ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                                    ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x));
  ASSIGN_OR_RETURN(cpu::Generator generator, k.elemental->MakeGenerator(hlo, k.operand));
  // A variadic reduce or reduce-window (or a fusion with one at its root) generates a struct
  // of one value per output.
  const std::vector<const Shape*> outputs = KernelOutputs(out);
  const Shape& first = *outputs[0];
  return EmitStridedLoop(&b, thread, b.getInt64(ShapeUtil::ElementsIn(first)), stride, "i",
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

absl::Status EmitRowBody(KernelContext& k, const HloInstruction* hlo, const std::vector<const HloInstruction*>& reductions) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& out = hlo->shape();
  const int64_t rows = out.dimensions(0);
  const HloInstruction* root = hlo->to_apply()->root_instruction();
  ASSIGN_OR_RETURN(cpu::ElementalEmitter::FusionGenerators generators, e.MakeFusionGenerators(hlo, k.operand));
  ASSIGN_OR_RETURN(cpu::Generator root_generator, e.MakeGenerator(hlo, k.operand));
  // One block of kGpuThreadsPerBlock threads reduces through this shared array.
  auto* slots_type = llvm::ArrayType::get(b.getInt64Ty(), kGpuThreadsPerBlock);
  auto* slots = new llvm::GlobalVariable(*k.module, slots_type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(slots_type), k.kernel->getName() + ".slots", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b.getInt64(kGpuThreadsPerBlock);
  auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(slots_type, slots, {b.getInt64(0), i}); };
  RETURN_IF_ERROR(EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(rows),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "row", [&](llvm::Value* row) -> absl::Status {
        llvm::Value* row_result = nullptr;
        for (const HloInstruction* reduction : reductions) {
          const HloInstruction* input = reduction->operand(0);
          llvm::Type* type = e.RegisterType(reduction->shape().element_type());
          const cpu::Generator& in = generators->at(input);
          ASSIGN_OR_RETURN(llvm::Value* init, generators->at(reduction->operand(1))(cpu::IrIndex{}));
          // This thread's partial over the row's elements tid, tid + threads, ...
          llvm::AllocaInst* partial = nullptr;
          {
            llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
            partial = entry.CreateAlloca(type);
          }
          b.CreateStore(init, partial);
          const absl::Span<const int64_t> in_dims = input->shape().dimensions();
          const std::vector<int64_t> row_dims(in_dims.begin() + 1, in_dims.end());
          RETURN_IF_ERROR(EmitStridedLoop(&b, tid, b.getInt64(ShapeUtil::ElementsIn(input->shape()) / rows), threads,
                                          "part", [&](llvm::Value* j) -> absl::Status {
                                            cpu::IrIndex index;
                                            index.multi = RowMajorIndex(&b, row_dims, j);
                                            index.multi.insert(index.multi.begin(), row);
                                            ASSIGN_OR_RETURN(llvm::Value* x, in(index));
                                            ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                                                             e.EmitScalarComputation(*reduction->to_apply(),
                                                                                     {b.CreateLoad(type, partial), x}));
                                            b.CreateStore(r[0], partial);
                                            return absl::OkStatus();
                                          }));
          // The block's partials, combined in a tree through shared memory.
          b.CreateStore(ToBits64(&b, b.CreateLoad(type, partial)), slot(tid));
          b.CreateCall(barrier);
          for (int half = kGpuThreadsPerBlock / 2; half >= 1; half /= 2) {
            RETURN_IF_ERROR(EmitIf(&b, b.CreateICmpULT(tid, b.getInt64(half)), "tree", [&]() -> absl::Status {
              llvm::Value* mine = FromBits64(&b, b.CreateLoad(b.getInt64Ty(), slot(tid)), type);
              llvm::Value* other =
                  FromBits64(&b, b.CreateLoad(b.getInt64Ty(), slot(b.CreateAdd(tid, b.getInt64(half)))), type);
              ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e.EmitScalarComputation(*reduction->to_apply(), {mine, other}));
              b.CreateStore(ToBits64(&b, r[0]), slot(tid));
              return absl::OkStatus();
            }));
            b.CreateCall(barrier);
          }
          llvm::Value* value = FromBits64(&b, b.CreateLoad(b.getInt64Ty(), slot(b.getInt64(0))), type);
          b.CreateCall(barrier);  // every thread has read slot 0 before it is written again
          e.SetFusedOverride(reduction, [value](const cpu::IrIndex&, const cpu::Generator&) -> absl::StatusOr<llvm::Value*> {
            return value;
          });
          if (reduction == root) row_result = value;
        }
        if (row_result != nullptr) {  // the root is the reduction: one value per row
          return EmitIf(&b, b.CreateICmpEQ(tid, b.getInt64(0)), "store", [&]() -> absl::Status {
            e.StoreElement(row_result, k.kernel->getArg(0), out, cpu::IrIndex{{row}, row, &out});
            return absl::OkStatus();
          });
        }
        const std::vector<int64_t> out_row_dims(out.dimensions().begin() + 1, out.dimensions().end());
        const int64_t row_elements = ShapeUtil::ElementsIn(out) / std::max<int64_t>(rows, 1);
        return EmitStridedLoop(&b, tid, b.getInt64(row_elements), threads, "elem", [&](llvm::Value* j) -> absl::Status {
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

llvm::Value* GlobalThread(llvm::IRBuilder<>* b) {
  return b->CreateAdd(b->CreateMul(ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                   ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                      ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
}
llvm::Value* GridThreads(llvm::IRBuilder<>* b) {
  return b->CreateMul(ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                      ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x));
}

// The arrays the kernel writes (its first parameters) with their shapes.
std::vector<cpu::SerialOutput> OutputArrays(const KernelContext& k, const HloInstruction* hlo) {
  std::vector<cpu::SerialOutput> outputs;
  const std::vector<const Shape*> shapes = KernelOutputs(hlo->shape());
  for (size_t i = 0; i < shapes.size(); ++i) outputs.push_back({k.kernel->getArg(static_cast<unsigned>(i)), *shapes[i]});
  return outputs;
}

// Emits `body` for v = first, first * 2, ... while v <= last (doubling), or v = first,
// first / 2, ... while v >= 1 (halving); the bounds are the same for every thread of a block.
template <typename F>
absl::Status EmitPowersOfTwoLoop(llvm::IRBuilder<>* b, llvm::Value* first, llvm::Value* last, bool doubling,
                                 const char* name, F body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b->getContext(), name, f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".done", f);
  auto more = [&](llvm::Value* v) {
    return doubling ? b->CreateICmpULE(v, last) : b->CreateICmpUGE(v, b->getInt64(1));
  };
  b->CreateCondBr(more(first), loop, done);
  b->SetInsertPoint(loop);
  llvm::PHINode* v = b->CreatePHI(b->getInt64Ty(), 2, name);
  v->addIncoming(first, before);
  RETURN_IF_ERROR(body(v));
  llvm::Value* next = doubling ? b->CreateShl(v, b->getInt64(1)) : b->CreateLShr(v, b->getInt64(1));
  v->addIncoming(next, b->GetInsertBlock());
  b->CreateCondBr(more(next), loop, done);
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

// Rows of up to this many elements sort in shared memory, a block per row (a permutation of
// 32-bit positions: 32 KiB); longer ones by insertion, a thread per row, up to
// kLongestInsertionSort; longer rows are refused rather than left to a quadratic sort.
constexpr int64_t kLongestBlockSort = 8192;
constexpr int64_t kLongestInsertionSort = 16384;

// The block sort of EmitSortBody: rows of `length` elements, `inner` elements apart.
absl::Status EmitBlockSort(KernelContext& k, const HloInstruction* hlo, const std::vector<cpu::Generator>& operands,
                           const std::vector<cpu::SerialOutput>& outputs, int64_t length, int64_t inner) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& shape = outputs[0].shape;
  const size_t n = outputs.size();
  int64_t padded = 1;
  while (padded < length) padded *= 2;
  auto* order_type = llvm::ArrayType::get(b.getInt32Ty(), padded);
  auto* order = new llvm::GlobalVariable(*k.module, order_type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(order_type), k.kernel->getName() + ".order", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(order_type, order, {b.getInt64(0), i}); };
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b.getInt64(kGpuThreadsPerBlock);
  llvm::Value* limit = b.getInt64(length);
  return EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(ShapeUtil::ElementsIn(shape) / length),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "row", [&](llvm::Value* row) -> absl::Status {
        llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner)), b.getInt64(length * inner)),
                                         b.CreateURem(row, b.getInt64(inner)));
        auto at = [&](llvm::Value* j) { return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner)))); };
        RETURN_IF_ERROR(EmitStridedLoop(&b, tid, b.getInt64(padded), threads, "init", [&](llvm::Value* i) -> absl::Status {
          b.CreateStore(b.CreateTrunc(i, b.getInt32Ty()), slot(i));
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);
        // Position x goes before position y: real elements before the padding, then the
        // comparator's order, ties in position order.
        auto before = [&](llvm::Value* x, llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
          llvm::Value* last = b.getInt64(length - 1);
          const cpu::IrIndex xi = at(b.CreateSelect(b.CreateICmpULT(x, limit), x, last));
          const cpu::IrIndex yi = at(b.CreateSelect(b.CreateICmpULT(y, limit), y, last));
          std::vector<llvm::Value*> xy, yx;
          for (size_t t = 0; t < n; ++t) {
            ASSIGN_OR_RETURN(llvm::Value* xv, operands[t](xi));
            ASSIGN_OR_RETURN(llvm::Value* yv, operands[t](yi));
            xy.insert(xy.end(), {xv, yv});
            yx.insert(yx.end(), {yv, xv});
          }
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> x_less, e.EmitScalarComputation(*hlo->to_apply(), xy));
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> y_less, e.EmitScalarComputation(*hlo->to_apply(), yx));
          if (x_less.size() != 1 || y_less.size() != 1 || !x_less[0]->getType()->isIntegerTy(1)) {
            return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
          }
          llvm::Value* ordered =
              b.CreateOr(x_less[0], b.CreateAnd(b.CreateNot(y_less[0]), b.CreateICmpULT(x, y)));
          return b.CreateAnd(b.CreateICmpULT(x, limit), b.CreateOr(b.CreateICmpUGE(y, limit), ordered));
        };
        RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.getInt64(2), b.getInt64(padded), true, "merge", [&](llvm::Value* size) {
          return EmitPowersOfTwoLoop(&b, b.CreateLShr(size, b.getInt64(1)), nullptr, false, "stage", [&](llvm::Value* stride) -> absl::Status {
            RETURN_IF_ERROR(EmitStridedLoop(&b, tid, b.getInt64(padded), threads, "pair", [&](llvm::Value* i) -> absl::Status {
              llvm::Value* partner = b.CreateXor(i, stride);
              return EmitIf(&b, b.CreateICmpUGT(partner, i), "exchange", [&]() -> absl::Status {
                llvm::Value* x = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty());
                llvm::Value* y = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(partner)), b.getInt64Ty());
                ASSIGN_OR_RETURN(llvm::Value* x_first, before(x, y));
                llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(i, size), b.getInt64(0));
                return EmitIf(&b, b.CreateXor(ascending, x_first), "swap", [&]() -> absl::Status {
                  b.CreateStore(b.CreateTrunc(y, b.getInt32Ty()), slot(i));
                  b.CreateStore(b.CreateTrunc(x, b.getInt32Ty()), slot(partner));
                  return absl::OkStatus();
                });
              });
            }));
            b.CreateCall(barrier);
            return absl::OkStatus();
          });
        }));
        RETURN_IF_ERROR(EmitStridedLoop(&b, tid, limit, threads, "gather", [&](llvm::Value* i) -> absl::Status {
          const cpu::IrIndex from = at(b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty()));
          const cpu::IrIndex to = at(i);
          for (size_t t = 0; t < n; ++t) {
            ASSIGN_OR_RETURN(llvm::Value* v, operands[t](from));
            e.StoreElement(v, outputs[t].base, outputs[t].shape, to);
          }
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);  // every thread has read the order before the next row writes it
        return absl::OkStatus();
      });
}

// sort, with the comparator (emitted inline) called on (lhs_0, rhs_0, lhs_1, rhs_1, ...) as
// XLA defines, every operand moving together. A row is the elements whose indices differ only
// in the sort dimension.
//  - Rows of up to kLongestBlockSort: a block per row (a row kernel, *rows set) sorts the
//    row's positions in shared memory with a bitonic network, padded to a power of two, in the
//    order (comparator, then position): stable whatever is_stable says, as the interpreter.
//    Then the threads gather the operands' elements into the outputs in that order.
//  - Longer rows: a thread per row copies it into the outputs and sorts it there by insertion
//    (stable; O(length^2)).
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
  const size_t n = outputs.size();
  if (hlo->operand_count() != static_cast<int64_t>(n) || hlo->to_apply() == nullptr || hlo->dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": malformed"));
  }
  const Shape& shape = outputs[0].shape;
  for (const cpu::SerialOutput& out : outputs) {
    if (!out.shape.has_layout() || out.shape.layout().minor_to_major() != shape.layout().minor_to_major()) {
      return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), " outputs differ in layout"));
    }
  }
  const int64_t dim = hlo->dimensions(0);
  const int64_t length = shape.rank() == 0 ? 1 : shape.dimensions(static_cast<int>(dim));
  // In storage order the sort dimension has `inner` elements more minor and `outer` more major.
  int64_t inner = 1, outer = 1;
  bool minor = true;
  for (int64_t d : shape.layout().minor_to_major()) {
    if (d == dim) {
      minor = false;
      continue;
    }
    (minor ? inner : outer) *= shape.dimensions(static_cast<int>(d));
  }
  std::vector<cpu::Generator> operands;
  for (size_t t = 0; t < n; ++t) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(static_cast<int64_t>(t)));
  }
  if (ShapeUtil::ElementsIn(shape) == 0) return absl::OkStatus();  // never launched
  if (length > kLongestInsertionSort) {
    return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), " has rows of ", length,
                                                 " elements; it sorts rows of up to ", kLongestInsertionSort));
  }
  if (length <= kLongestBlockSort) {
    *rows = inner * outer;
    return EmitBlockSort(k, hlo, operands, outputs, length, inner);
  }
  llvm::AllocaInst* hole = nullptr;  // where the element being inserted goes
  {
    llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
    hole = entry.CreateAlloca(b.getInt64Ty());
  }
  llvm::Function* f = k.kernel;
  llvm::LLVMContext& c = b.getContext();
  return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(inner * outer), GridThreads(&b), "row", [&](llvm::Value* row) -> absl::Status {
    llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner)), b.getInt64(length * inner)),
                                     b.CreateURem(row, b.getInt64(inner)));
    auto at = [&](llvm::Value* j) { return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner)))); };
    RETURN_IF_ERROR(cpu::EmitForLoop(&b, b.getInt64(0), b.getInt64(length), "copy", [&](llvm::Value* j) -> absl::Status {
      const cpu::IrIndex index = at(j);
      for (size_t t = 0; t < n; ++t) {
        ASSIGN_OR_RETURN(llvm::Value* v, operands[t](index));
        e.StoreElement(v, outputs[t].base, outputs[t].shape, index);
      }
      return absl::OkStatus();
    }));
    return cpu::EmitForLoop(&b, b.getInt64(1), b.getInt64(length), "insert", [&](llvm::Value* next) -> absl::Status {
      std::vector<llvm::Value*> x;
      const cpu::IrIndex from = at(next);
      for (size_t t = 0; t < n; ++t) x.push_back(e.LoadElement(outputs[t].base, outputs[t].shape, from));
      b.CreateStore(next, hole);
      llvm::BasicBlock* check = llvm::BasicBlock::Create(c, "shift.check", f);
      llvm::BasicBlock* compare = llvm::BasicBlock::Create(c, "shift.compare", f);
      llvm::BasicBlock* move = llvm::BasicBlock::Create(c, "shift.move", f);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "shift.done", f);
      b.CreateBr(check);
      b.SetInsertPoint(check);
      llvm::Value* j = b.CreateLoad(b.getInt64Ty(), hole);
      b.CreateCondBr(b.CreateICmpSGT(j, b.getInt64(0)), compare, done);
      b.SetInsertPoint(compare);
      llvm::Value* before = b.CreateSub(j, b.getInt64(1));
      const cpu::IrIndex prev_index = at(before);
      std::vector<llvm::Value*> prev, args;
      for (size_t t = 0; t < n; ++t) {
        prev.push_back(e.LoadElement(outputs[t].base, outputs[t].shape, prev_index));
        args.push_back(x[t]);
        args.push_back(prev.back());
      }
      // x goes before its predecessor only when strictly less: equal elements keep their order.
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, e.EmitScalarComputation(*hlo->to_apply(), args));
      if (less.size() != 1 || !less[0]->getType()->isIntegerTy(1)) {
        return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
      }
      b.CreateCondBr(less[0], move, done);
      b.SetInsertPoint(move);
      const cpu::IrIndex to = at(j);
      for (size_t t = 0; t < n; ++t) e.StoreElement(prev[t], outputs[t].base, outputs[t].shape, to);
      b.CreateStore(before, hole);
      b.CreateBr(check);
      b.SetInsertPoint(done);
      const cpu::IrIndex slot = at(b.CreateLoad(b.getInt64Ty(), hole));
      for (size_t t = 0; t < n; ++t) e.StoreElement(x[t], outputs[t].base, outputs[t].shape, slot);
      return absl::OkStatus();
    });
  });
}

// scatter and select-and-scatter: the cpu backend's loops (emit_scatter.cc), run by one
// thread. They are serial on purpose: updates that hit the same element (non-unique indices,
// overlapping windows) combine in the interpreter's order, and the combiner need not commute
// or associate, so no two of them may run at once. indices_are_sorted and unique_indices
// change nothing here. Those loops also fill the outputs from the operands serially; run by a
// kernel of its own the copy would be parallel, which needs the cpu backend to emit the
// update loops apart from the fill (a thread per window would then serve unique_indices).
absl::Status EmitSerialBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  std::vector<cpu::Generator> operands;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(i));
  }
  const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
  return EmitIf(&b, b.CreateICmpEQ(GlobalThread(&b), b.getInt64(0)), "serial", [&]() -> absl::Status {
    if (hlo->opcode() == HloOpcode::kScatter) return cpu::EmitScatterLoops(k.elemental, hlo, operands, outputs);
    return cpu::EmitSelectAndScatterLoops(k.elemental, hlo, operands, outputs);
  });
}

// A kernel for `hlo`; *rows is set > 0 for a row kernel.
absl::Status EmitKernel(llvm::Module* module, const HloInstruction* hlo, const std::string& name, int64_t* rows) {
  llvm::LLVMContext& c = module->getContext();
  llvm::IRBuilder<> b(c);
  auto* ptr = llvm::PointerType::get(c, 1);  // global memory
  const unsigned outputs = static_cast<unsigned>(KernelOutputs(hlo->shape()).size());
  std::vector<llvm::Type*> params(hlo->operand_count() + outputs, ptr);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (unsigned i = 0; i < params.size(); ++i) kernel->addParamAttr(i, llvm::Attribute::NoAlias);
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", kernel));
  cpu::ElementalEmitter elemental(&b, module);
  std::vector<std::shared_ptr<Shape>> operand_shapes;
  for (const HloInstruction* operand : hlo->operands()) operand_shapes.push_back(std::make_shared<Shape>(operand->shape()));
  KernelContext k{module, &b, kernel, &elemental, nullptr};
  k.operand = [&](int64_t i) -> absl::StatusOr<cpu::Generator> {
    llvm::Value* base = kernel->getArg(static_cast<unsigned>(i) + outputs);
    std::shared_ptr<Shape> shape = operand_shapes[i];
    return cpu::Generator([&elemental, base, shape, &b](const cpu::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      if (shape->rank() == 0) return elemental.LoadElement(base, *shape, cpu::IrIndex{{}, b.getInt64(0), shape.get()});
      return elemental.LoadElement(base, *shape, index);
    });
  };
  const std::vector<const HloInstruction*> reductions = RowReductions(*hlo);
  *rows = reductions.empty() ? 0 : hlo->shape().dimensions(0);
  if (hlo->opcode() == HloOpcode::kSort) {
    RETURN_IF_ERROR(EmitSortBody(k, hlo, rows));
  } else if (hlo->opcode() == HloOpcode::kScatter || hlo->opcode() == HloOpcode::kSelectAndScatter) {
    RETURN_IF_ERROR(EmitSerialBody(k, hlo));
  } else {
    RETURN_IF_ERROR(reductions.empty() ? EmitElementwiseBody(k, hlo) : EmitRowBody(k, hlo, reductions));
  }
  b.CreateRetVoid();
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
    // for big contractions (cuBLAS and GEMM-shaped convolution are to come).
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kGather:
    case HloOpcode::kMap:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    // One device: replica and partition 0. Ragged and scaled dots as a thread per output
    // element, as dot. (Not ragged-all-to-all: the cpu backend checks its offsets on the host
    // before its kernel reads rows at them, and a kernel reading past a buffer would end the
    // device's context.)
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
    RETURN_IF_ERROR(EmitKernel(module.get(), hlo, kernel.name, &kernel.rows));
    result.kernels.push_back(kernel);
  }
  std::string verify_errors;
  llvm::raw_string_ostream verify_stream(verify_errors);
  if (llvm::verifyModule(*module, &verify_stream)) {
    return absl::InternalError(absl::StrCat("gpu backend emitted invalid IR: ", verify_stream.str()));
  }
  // libm calls and transcendental intrinsics become libdevice's device functions; what is
  // left that NVPTX cannot lower is refused by name.
  RETURN_IF_ERROR(LinkLibdevice(*module, target.sm,
                                [&result](const llvm::Function& kernel) { return KernelOp(kernel, result); }));
  RETURN_IF_ERROR(CheckNoHostCalls(*module, result));
  cpu::OptimizeLlvmModule(*module, tm.get());
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
