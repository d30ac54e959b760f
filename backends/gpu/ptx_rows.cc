// Row kernels (ptx_kernel_util.h says what they are): a block per row of a fusion with row
// reductions, the row's reductions combined by warp shuffles and shared memory, a thread's
// elements of a short row kept in registers between passes.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/ptx_kernel_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {
namespace {

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

}  // namespace

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

}  // namespace gpu
}  // namespace xla
