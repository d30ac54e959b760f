// The entry function: instructions in schedule order, each array-producing op as a kernel
// (its own function over a range of the outermost output dimension, run through the
// runtime's parallel_for when large), dots and large convolutions as GEMM calls (gemm_plan.h),
// while/conditional/call as control flow in the entry function, and copies where values must
// move between slots.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "backends/cpu/codegen/gemm_plan.h"
#include "backends/cpu/codegen/emit_runtime_call.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"

namespace xla {
namespace cpu {
namespace {

// Kernels smaller than this run on the calling thread without the parallel_for call.
constexpr int64_t kParallelElements = int64_t{1} << 15;

// An output at least this large (half the development machine's last-level cache) is written
// with streaming stores (jit.cc): it would not stay in cache for its readers anyway, and a
// normal store first reads every line it writes.
constexpr int64_t kStreamingOutputBytes = int64_t{16} << 20;

// How many times dearer than an add computing one element of a transcendental function is
// (a polynomial or a libm call), for ElementCost.
constexpr int64_t kTranscendentalCost = 8;

// The relative cost of one element of `hlo` (of a fusion: of its fused instructions), an
// add counting 1 and a transcendental function kTranscendentalCost: the runtime cuts loops
// into chunks of about equal work by it (runtime.h kStopCheckWork).
int64_t ElementCost(const HloInstruction* hlo) {
  const auto own = [](const HloInstruction* i) -> int64_t {
    switch (i->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kTuple:
      case HloOpcode::kBitcast:
      case HloOpcode::kReshape:
      case HloOpcode::kBroadcast:
        return 0;
      case HloOpcode::kAcos: case HloOpcode::kAcosh: case HloOpcode::kAsin: case HloOpcode::kAsinh:
      case HloOpcode::kAtan2: case HloOpcode::kAtanh: case HloOpcode::kCbrt: case HloOpcode::kCosine:
      case HloOpcode::kCosh: case HloOpcode::kErf: case HloOpcode::kExponential:
      case HloOpcode::kExponentialMinusOne: case HloOpcode::kLog: case HloOpcode::kLogPlusOne:
      case HloOpcode::kLogistic: case HloOpcode::kPower: case HloOpcode::kSine: case HloOpcode::kSinh:
      case HloOpcode::kTan: case HloOpcode::kTanh:
        return kTranscendentalCost;
      default:
        return 1;
    }
  };
  if (hlo->opcode() != HloOpcode::kFusion || hlo->to_apply() == nullptr) return std::max<int64_t>(1, own(hlo));
  int64_t cost = 0;
  for (const auto& i : hlo->to_apply()->instructions()) cost = std::min<int64_t>(cost + own(i.get()), 4096);
  return std::max<int64_t>(1, cost);
}

class ModuleEmitter {
 public:
  ModuleEmitter(const BufferPlan& plan, llvm::Module* module)
      : plan_(plan), module_(module), b_(module->getContext()), elemental_(&b_, module) {}

  absl::Status Emit(const std::string& name) {
    llvm::LLVMContext& c = module_->getContext();
    ptr_ = llvm::PointerType::get(c, 0);
    auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr_, ptr_}, false);
    main_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
    main_slots_ = main_->getArg(0);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", main_));
    RETURN_IF_ERROR(EmitComputation(*plan_.entry));
    for (size_t i = 0; i < plan_.output_copies.size(); ++i) {
      RETURN_IF_ERROR(EmitCopy(plan_.output_copies[i].first, plan_.output_copies[i].second,
                               &plan_.output_copy_shapes[i]));
    }
    b_.CreateRet(b_.getInt32(0));
    return absl::OkStatus();
  }

 private:
  absl::Status EmitComputation(const ComputationPlan& cp) {
    for (const HloInstruction* hlo : cp.schedule) RETURN_IF_ERROR(EmitInstruction(cp, hlo));
    return absl::OkStatus();
  }

  absl::Status EmitInstruction(const ComputationPlan& cp, const HloInstruction* hlo) {
    switch (hlo->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kAfterAll:
        return absl::OkStatus();
      case HloOpcode::kCall:
        return EmitComputation(*cp.callees.at(hlo)[0]);
      case HloOpcode::kWhile:
        return EmitWhile(cp, hlo);
      case HloOpcode::kConditional:
        return EmitConditional(cp, hlo);
      case HloOpcode::kDot:
      case HloOpcode::kConvolution: {
        ASSIGN_OR_RETURN(bool done, MaybeEmitGemm(cp, hlo));
        if (done) return absl::OkStatus();
        break;
      }
      case HloOpcode::kDynamicReshape:
        RETURN_IF_ERROR(EmitDynamicSizeChecks(cp, hlo));
        break;
      case HloOpcode::kRaggedAllToAll:
        RETURN_IF_ERROR(EmitRaggedAllToAllCheck(cp, hlo));
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (cp.slots(hlo) == cp.slots(hlo->operand(0))) return EmitInPlaceUpdate(cp, hlo);
        break;
      case HloOpcode::kScatter:
        return EmitSerialKernel(cp, hlo, EmitScatterLoops);
      case HloOpcode::kSelectAndScatter:
        if (cp.slots(hlo).size() == 1) {
          const std::optional<InnerSelectSplit> split = SplitInnerSelect(*hlo, plan_.slots[cp.slots(hlo)[0]].shape);
          if (split.has_value()) return EmitInnerSelect(cp, hlo, *split);
        }
        return EmitSerialKernel(cp, hlo, EmitSelectAndScatterLoops);
      case HloOpcode::kSort:
        return EmitSerialKernel(cp, hlo, EmitSortLoops);
      case HloOpcode::kReduceWindow:
        if (AsCumulativeWindow(*hlo).has_value()) return EmitCumulativeWindow(cp, hlo);
        if (!cp.slots(hlo).empty()) {
          const std::optional<InnerWindowSplit> split = SplitInnerWindow(*hlo, plan_.slots[cp.slots(hlo)[0]].shape);
          if (split.has_value()) return EmitInnerWindow(cp, hlo, *split);
        }
        break;
      default:
        if (IsAliasingInstruction(*hlo)) return absl::OkStatus();
        if (IsRuntimeCallOp(*hlo)) return EmitRuntimeCallInstruction(cp, hlo);
        break;
    }
    return EmitKernel(cp, hlo);
  }

  // An op computed by one runtime routine over whole arrays (emit_runtime_call.h), called
  // from the entry function with the slots' base pointers and the run context.
  absl::Status EmitRuntimeCallInstruction(const ComputationPlan& cp, const HloInstruction* hlo) {
    std::vector<SerialOutput> operands, outputs;
    // Every array leaf of every operand (tokens have none); each op checks the count.
    for (const HloInstruction* operand : hlo->operands()) {
      for (int slot : cp.slots(operand)) operands.push_back(SerialOutput{MainSlotPointer(slot), ReadShape(operand, slot)});
    }
    for (int s : cp.slots(hlo)) outputs.push_back(SerialOutput{MainSlotPointer(s), plan_.slots[s].shape});
    return EmitRuntimeCall(&b_, hlo, operands, outputs, main_->getArg(1));
  }

  // dynamic-reshape's sizes against the result's bounds, before its kernel: the values are
  // kept at the bounds, so any other size stops the execution (entry returns 2) with the
  // routine's error, as the interpreter refuses it.
  absl::Status EmitDynamicSizeChecks(const ComputationPlan& cp, const HloInstruction* hlo) {
    const Shape& out = hlo->shape();
    if (!out.IsArray() || hlo->operand_count() != out.rank() + 1) {
      return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape ", hlo->name(), " needs one size per result dimension"));
    }
    llvm::FunctionCallee check = module_->getOrInsertFunction(
        "__xla_cpu_check_dynamic_size",
        llvm::FunctionType::get(b_.getInt32Ty(), {ptr_, b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty()}, false));
    for (int64_t d = 0; d < out.rank(); ++d) {
      const HloInstruction* size = hlo->operand(d + 1);
      const std::vector<int>& slots = cp.slots(size);
      if (!size->shape().IsArray() || ShapeUtil::ElementsIn(size->shape()) != 1 || slots.size() != 1 ||
          !primitive_util::IsIntegralType(size->shape().element_type())) {
        return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape ", hlo->name(), ": sizes must be integer scalars"));
      }
      llvm::Value* rc = b_.CreateCall(check, {main_->getArg(1), b_.getInt64(d), LoadScalarSlot(cp, size),
                                              b_.getInt64(out.dimensions(static_cast<int>(d)))});
      StopUnlessZero(rc);
    }
    return absl::OkStatus();
  }

  // ragged-all-to-all's offsets and sizes against the rows of its input and output, before
  // its kernel (emit_ragged_all_to_all.cc) reads them.
  absl::Status EmitRaggedAllToAllCheck(const ComputationPlan& cp, const HloInstruction* hlo) {
    if (hlo->operand_count() != 6 || !hlo->operand(0)->shape().IsArray() || !hlo->operand(1)->shape().IsArray() ||
        hlo->operand(0)->shape().rank() < 1 || hlo->operand(1)->shape().rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat("ragged-all-to-all ", hlo->name(), " needs (input, output, "
                                                     "input_offsets, send_sizes, output_offsets, recv_sizes) arrays"));
    }
    std::vector<llvm::Value*> args = {main_->getArg(1)};
    for (int i = 2; i < 6; ++i) {
      const HloInstruction* o = hlo->operand(i);
      if (!o->shape().IsArray() || ShapeUtil::ElementsIn(o->shape()) != 1 ||
          !primitive_util::IsIntegralType(o->shape().element_type())) {
        return absl::InvalidArgumentError(absl::StrCat("ragged-all-to-all ", hlo->name(), ": offsets and sizes have ",
                                                       ShapeUtil::ElementsIn(o->shape()), " entries (one per peer): the "
                                                       "module needs that many devices; the cpu backend has one"));
      }
      args.push_back(LoadScalarSlot(cp, o));
    }
    args.push_back(b_.getInt64(hlo->operand(0)->shape().dimensions(0)));
    args.push_back(b_.getInt64(hlo->operand(1)->shape().dimensions(0)));
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::FunctionCallee check = module_->getOrInsertFunction(
        "__xla_cpu_check_ragged_all_to_all",
        llvm::FunctionType::get(b_.getInt32Ty(), {ptr_, i64, i64, i64, i64, i64, i64}, false));
    StopUnlessZero(b_.CreateCall(check, args));
    return absl::OkStatus();
  }

  // The one element of an integer array `hlo` (checked by the caller) as an i64, read in
  // the entry function.
  llvm::Value* LoadScalarSlot(const ComputationPlan& cp, const HloInstruction* hlo) {
    const int slot = cp.slots(hlo)[0];
    const Shape shape = ReadShape(hlo, slot);
    llvm::Value* value = elemental_.LoadElement(MainSlotPointer(slot), shape, IrIndex{{}, b_.getInt64(0), &shape});
    return elemental_.IndexToI64(value, shape.element_type());
  }

  // The entry function returns 2 (error in the run context) unless `rc` is 0.
  void StopUnlessZero(llvm::Value* rc) {
    llvm::LLVMContext& c = module_->getContext();
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(c, "check.failed", main_);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(c, "check.ok", main_);
    b_.CreateCondBr(b_.CreateICmpNE(rc, b_.getInt32(0)), failed, ok);
    llvm::IRBuilder<>(failed).CreateRet(b_.getInt32(2));
    b_.SetInsertPoint(ok);
  }

  llvm::BasicBlock* CancelBlock() {
    if (cancel_block_ == nullptr) {
      cancel_block_ = llvm::BasicBlock::Create(module_->getContext(), "cancelled", main_);
      llvm::IRBuilder<> cb(cancel_block_);
      cb.CreateRet(cb.getInt32(1));
    }
    return cancel_block_;
  }

  // dynamic-update-slice sharing its operand's buffer: only the update region is written.
  absl::Status EmitInPlaceUpdate(const ComputationPlan& cp, const HloInstruction* hlo) {
    const int out = cp.slots(hlo)[0];
    const Shape& out_shape = plan_.slots[out].shape;
    Shape update_shape = hlo->operand(1)->shape();
    ShapeUtil::SetDefaultLayoutsIfMissing(&update_shape);
    if (ShapeUtil::ElementsIn(update_shape) == 0) return absl::OkStatus();
    if (hlo->operand_count() != 2 + out_shape.rank()) {
      return absl::UnimplementedError(absl::StrCat("cpu backend: ", hlo->name(), " needs scalar start indices"));
    }
    llvm::LLVMContext& c = module_->getContext();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                                    absl::StrCat("kernel.", hlo->name()), module_);
    llvm::IRBuilderBase::InsertPoint saved = b_.saveIP();
    kernel_ = kernel;
    kernel_bases_.clear();
    elemental_.ClearCache();
    kernel_entry_ = llvm::BasicBlock::Create(c, "entry", kernel);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "body", kernel);
    b_.SetInsertPoint(kernel_entry_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    absl::Status status = [&]() -> absl::Status {
      ASSIGN_OR_RETURN(Generator update, SlotReader(cp, hlo->operand(1)));
      std::vector<llvm::Value*> start;
      for (int64_t d = 0; d < out_shape.rank(); ++d) {
        ASSIGN_OR_RETURN(Generator g, SlotReader(cp, hlo->operand(2 + d)));
        ASSIGN_OR_RETURN(llvm::Value* s, g(IrIndex{}));
        const PrimitiveType t = hlo->operand(2 + d)->shape().element_type();
        s = primitive_util::IsUnsignedIntegralType(t) ? b_.CreateZExtOrTrunc(s, b_.getInt64Ty())
                                                      : b_.CreateSExtOrTrunc(s, b_.getInt64Ty());
        const int64_t max_start = std::max<int64_t>(
            0, out_shape.dimensions(static_cast<int>(d)) - update_shape.dimensions(static_cast<int>(d)));
        s = b_.CreateSelect(b_.CreateICmpSLT(s, b_.getInt64(0)), b_.getInt64(0), s);
        s = b_.CreateSelect(b_.CreateICmpSGT(s, b_.getInt64(max_start)), b_.getInt64(max_start), s);
        start.push_back(s);
      }
      RETURN_IF_ERROR(EmitLoopNest(&b_, update_shape, kernel->getArg(1), kernel->getArg(2),
                                   [&](const IrIndex& index) -> absl::Status {
                                     ASSIGN_OR_RETURN(llvm::Value* v, update(index));
                                     IrIndex target;
                                     for (size_t d = 0; d < start.size(); ++d) {
                                       target.multi.push_back(b_.CreateAdd(index.multi[d], start[d]));
                                     }
                                     elemental_.StoreElement(v, KernelSlotPointer(out), out_shape, target);
                                     return absl::OkStatus();
                                   }));
      b_.CreateRetVoid();
      return absl::OkStatus();
    }();
    b_.restoreIP(saved);
    kernel_ = nullptr;
    if (!status.ok()) {
      kernel->eraseFromParent();
      return status;
    }
    const int64_t outer = update_shape.rank() == 0
                              ? 1
                              : update_shape.dimensions(static_cast<int>(update_shape.layout().minor_to_major().back()));
    b_.CreateCall(kernel, {main_slots_, b_.getInt64(0), b_.getInt64(outer)});
    return absl::OkStatus();
  }

  // A kernel run once on the calling thread whose body `loops` emits (ops whose output
  // elements are not independent: scatter, select-and-scatter).
  using SerialLoops = absl::Status (*)(ElementalEmitter*, const HloInstruction*, const std::vector<Generator>&,
                                       const std::vector<SerialOutput>&);
  absl::Status EmitSerialKernel(const ComputationPlan& cp, const HloInstruction* hlo, SerialLoops loops) {
    return EmitItemsKernel(cp, hlo, 1, 1,
                           [&](const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               llvm::Value*, llvm::Value*) { return loops(&elemental_, hlo, operands, outputs); });
  }

  // The scans of a cumulative reduce-window, rows (or tiles of rows) shared out by parallel_for.
  absl::Status EmitCumulativeWindow(const ComputationPlan& cp, const HloInstruction* hlo) {
    const std::vector<int>& out = cp.slots(hlo);
    if (out.empty()) return absl::InternalError(absl::StrCat(hlo->name(), " has no output slots"));
    ASSIGN_OR_RETURN(const CumulativeWindowSplit split, SplitCumulativeWindow(*hlo, plan_.slots[out[0]].shape));
    return EmitItemsKernel(cp, hlo, split.items(), split.length * split.tile,
                           [&](const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               llvm::Value* begin, llvm::Value* end) {
                             return EmitCumulativeWindowRange(&elemental_, hlo, split, operands, outputs, begin, end);
                           });
  }

  // An InnerSelectSplit select-and-scatter: its items shared out by parallel_for.
  absl::Status EmitInnerSelect(const ComputationPlan& cp, const HloInstruction* hlo, const InnerSelectSplit& split) {
    const int64_t work = ShapeUtil::ElementsIn(hlo->shape()) / std::max<int64_t>(split.items(), 1) * 4;
    return EmitItemsKernel(cp, hlo, split.items(), work,
                           [&](const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               llvm::Value* begin, llvm::Value* end) {  // one output slot (checked by the caller)
                             return EmitInnerSelectRange(&elemental_, hlo, split, operands, outputs[0], begin, end);
                           });
  }

  // An InnerWindowSplit reduce-window: its outer positions shared out by parallel_for.
  absl::Status EmitInnerWindow(const ComputationPlan& cp, const HloInstruction* hlo, const InnerWindowSplit& split) {
    return EmitItemsKernel(cp, hlo, split.outer, split.inner * split.window,
                           [&](const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               llvm::Value* begin, llvm::Value* end) {
                             return EmitInnerWindowRange(&elemental_, hlo, split, operands, outputs, begin, end);
                           });
  }

  // A kernel over `items` independent items whose body `range` emits for items [begin, end),
  // called through parallel_for when items * work_per_item is large, else once for all.
  using ItemRange = std::function<absl::Status(const std::vector<Generator>&, const std::vector<SerialOutput>&,
                                               llvm::Value* begin, llvm::Value* end)>;
  absl::Status EmitItemsKernel(const ComputationPlan& cp, const HloInstruction* hlo, int64_t items,
                               int64_t work_per_item, const ItemRange& range) {
    const std::vector<int>& out = cp.slots(hlo);
    if (out.empty()) return absl::InternalError(absl::StrCat(hlo->name(), " has no output slots"));
    llvm::LLVMContext& c = module_->getContext();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                                    absl::StrCat("kernel.", hlo->name()), module_);
    llvm::IRBuilderBase::InsertPoint saved = b_.saveIP();
    kernel_ = kernel;
    kernel_bases_.clear();
    elemental_.ClearCache();
    kernel_entry_ = llvm::BasicBlock::Create(c, "entry", kernel);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "body", kernel);
    b_.SetInsertPoint(kernel_entry_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    absl::Status status = [&]() -> absl::Status {
      std::vector<Generator> operands;
      for (const HloInstruction* operand : hlo->operands()) {
        ASSIGN_OR_RETURN(Generator g, SlotReader(cp, operand));
        operands.push_back(std::move(g));
      }
      std::vector<SerialOutput> outputs;
      for (int s : out) outputs.push_back(SerialOutput{KernelSlotPointer(s), plan_.slots[s].shape});
      RETURN_IF_ERROR(range(operands, outputs, kernel->getArg(1), kernel->getArg(2)));
      b_.CreateRetVoid();
      return absl::OkStatus();
    }();
    b_.restoreIP(saved);
    kernel_ = nullptr;
    if (!status.ok()) {
      kernel->eraseFromParent();
      return status;
    }
    CallKernel(kernel, items, work_per_item);
    return absl::OkStatus();
  }

  // Calls kernel(slots, begin, end) over [0, items): through parallel_for when the items are
  // several and their work adds up to kParallelElements, else once for all. The runtime is
  // told work_per_item * cost_factor per item (cost_factor: ElementCost of an elementwise
  // kernel's element).
  void CallKernel(llvm::Function* kernel, int64_t items, int64_t work_per_item, int64_t cost_factor = 1) {
    if (items > 1 && items * work_per_item >= kParallelElements) {
      llvm::FunctionCallee parallel_for = module_->getOrInsertFunction(
          "__xla_cpu_parallel_for",
          llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false));
      const int64_t cost = work_per_item > std::numeric_limits<int64_t>::max() / cost_factor
                               ? std::numeric_limits<int64_t>::max() / std::max<int64_t>(items, 1)
                               : work_per_item * cost_factor;
      b_.CreateCall(parallel_for, {kernel, main_slots_, b_.getInt64(items), b_.getInt64(cost)});
    } else if (items > 0) {
      b_.CreateCall(kernel, {main_slots_, b_.getInt64(0), b_.getInt64(items)});
    }
  }

  // Shape to read `hlo`'s value from `slot` with (aliasing reshapes see the same bytes
  // under their own row-major dimensions).
  Shape ReadShape(const HloInstruction* hlo, int slot) const {
    const Shape& s = plan_.slots[slot].shape;
    if (hlo->shape().IsArray() && s.dimensions() != hlo->shape().dimensions()) {
      Shape own = hlo->shape();
      ShapeUtil::SetDefaultLayoutsIfMissing(&own);
      return own;
    }
    return s;
  }

  llvm::Value* MainSlotPointer(int slot) {
    llvm::Value* p = b_.CreateInBoundsGEP(ptr_, main_slots_, b_.getInt64(slot));
    return b_.CreateLoad(ptr_, p);
  }

  // Base pointer of `slot` inside the current kernel, loaded once in its entry block.
  llvm::Value* KernelSlotPointer(int slot) {
    auto it = kernel_bases_.find(slot);
    if (it != kernel_bases_.end()) return it->second;
    llvm::IRBuilder<> eb(kernel_entry_->getTerminator());
    llvm::Value* p = eb.CreateInBoundsGEP(ptr_, kernel_->getArg(0), eb.getInt64(slot));
    llvm::LoadInst* load = eb.CreateLoad(ptr_, p);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(module_->getContext(), {}));
    // Temporaries and outputs are 64-byte aligned (buffer_plan.cc, host_memory_pool.h); saying
    // so lets vector stores to them be aligned, which streaming stores need (jit.cc).
    const SlotKind kind = plan_.slots[slot].kind;
    if (kind == SlotKind::kTemp || kind == SlotKind::kOutput) {
      load->setMetadata(llvm::LLVMContext::MD_align,
                        llvm::MDNode::get(module_->getContext(), {llvm::ConstantAsMetadata::get(eb.getInt64(64))}));
    }
    kernel_bases_[slot] = load;
    return load;
  }

  absl::StatusOr<Generator> SlotReader(const ComputationPlan& cp, const HloInstruction* operand) {
    const auto& slots = cp.slots(operand);
    if (slots.size() != 1) {
      return absl::UnimplementedError(absl::StrCat("cpu backend: operand ", operand->name(), " is not an array"));
    }
    const int slot = slots[0];
    auto shape = std::make_shared<Shape>(ReadShape(operand, slot));
    return Generator([this, slot, shape](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      if (shape->rank() == 0) {
        return elemental_.LoadElement(KernelSlotPointer(slot), *shape, IrIndex{{}, b_.getInt64(0), shape.get()});
      }
      return elemental_.LoadElement(KernelSlotPointer(slot), *shape, index);
    });
  }

  // A kernel computing `hlo` elementally into its slots.
  absl::Status EmitKernel(const ComputationPlan& cp, const HloInstruction* hlo) {
    const std::vector<int>& out = cp.slots(hlo);
    if (out.empty()) {
      return absl::UnimplementedError(absl::StrCat("cpu backend does not implement ",
                                                   std::string(HloOpcodeString(hlo->opcode())), " (", hlo->name(), ")"));
    }
    std::vector<Shape> shapes;
    for (int s : out) shapes.push_back(plan_.slots[s].shape);
    for (const Shape& s : shapes) {
      if (s.dimensions() != shapes[0].dimensions()) {
        return absl::UnimplementedError(absl::StrCat("cpu backend does not implement ",
                                                     std::string(HloOpcodeString(hlo->opcode())), " (", hlo->name(),
                                                     "): its outputs differ in shape"));
      }
    }
    const Shape& iteration = shapes[0];
    const int64_t elements = ShapeUtil::ElementsIn(iteration);
    llvm::LLVMContext& c = module_->getContext();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                                    absl::StrCat("kernel.", hlo->name()), module_);
    kernel->addParamAttr(0, llvm::Attribute::NoAlias);
    llvm::IRBuilderBase::InsertPoint saved = b_.saveIP();
    kernel_ = kernel;
    kernel_bases_.clear();
    elemental_.ClearCache();
    kernel_entry_ = llvm::BasicBlock::Create(c, "entry", kernel);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "body", kernel);
    b_.SetInsertPoint(kernel_entry_);
    if (iteration.rank() > 0 &&
        iteration.dimensions(static_cast<int>(iteration.layout().minor_to_major().back())) >= kParallelForAlignedFrom) {
      // Called with begin 0, or by parallel_for with begin a multiple of kParallelForAlignment.
      b_.CreateAssumption(b_.CreateICmpEQ(b_.CreateAnd(kernel->getArg(1), kParallelForAlignment - 1), b_.getInt64(0)));
    }
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    OperandGenerator operand = [&](int64_t i) { return SlotReader(cp, hlo->operand(i)); };
    absl::StatusOr<Generator> gen = elemental_.MakeGenerator(hlo, operand);
    absl::Status status = gen.status();
    if (status.ok()) {
      status = EmitKernelLoops(&elemental_, hlo, operand, iteration, kernel->getArg(1), kernel->getArg(2),
                               [&](const IrIndex& index) -> absl::Status {
                              ASSIGN_OR_RETURN(llvm::Value* v, (*gen)(index));
                              if (out.size() == 1) {
                                elemental_.StoreElement(v, KernelSlotPointer(out[0]), shapes[0], index);
                                return absl::OkStatus();
                              }
                              for (size_t i = 0; i < out.size(); ++i) {
                                elemental_.StoreElement(b_.CreateExtractValue(v, {static_cast<unsigned>(i)}),
                                                        KernelSlotPointer(out[i]), shapes[i], index);
                              }
                              return absl::OkStatus();
                            });
    }
    if (status.ok()) b_.CreateRetVoid();
    b_.restoreIP(saved);
    kernel_ = nullptr;
    if (!status.ok()) {
      kernel->eraseFromParent();
      return status;
    }
    if (out.size() == 1 && plan_.slots[out[0]].bytes >= kStreamingOutputBytes) {
      kernel->addFnAttr(kStreamingSlotAttribute, std::to_string(out[0]));
    }
    if (elements == 0) return absl::OkStatus();
    const int64_t outer = iteration.rank() == 0
                              ? 1
                              : iteration.dimensions(static_cast<int>(iteration.layout().minor_to_major().back()));
    // Work per output element: reductions (also as fusion roots) read many inputs each.
    const HloInstruction* root = hlo->opcode() == HloOpcode::kFusion && hlo->to_apply() != nullptr
                                     ? hlo->to_apply()->root_instruction()
                                     : hlo;
    int64_t work_per_element = 1;
    if (root->opcode() == HloOpcode::kReduce && root->operand(0)->shape().IsArray()) {
      work_per_element = std::max<int64_t>(1, ShapeUtil::ElementsIn(root->operand(0)->shape()) /
                                                  std::max<int64_t>(1, ShapeUtil::ElementsIn(root->shape().IsArray() ? root->shape() : iteration)));
    }
    CallKernel(kernel, outer, elements / outer * work_per_element, ElementCost(hlo));
    return absl::OkStatus();
  }

  // Copies slot `from` into slot `to` (a kernel when the layouts differ).
  // `value_shape`: the copied value's own shape, when its dimensions differ from the slot's
  // (a bitcast or reshape aliasing the slot).
  absl::Status EmitCopy(int from, int to, const Shape* value_shape = nullptr) {
    if (from == to) return absl::OkStatus();
    const Slot& dst = plan_.slots[to];
    Shape src_shape = plan_.slots[from].shape;
    if (ShapeUtil::ElementsIn(src_shape) != ShapeUtil::ElementsIn(dst.shape) ||
        src_shape.element_type() != dst.shape.element_type()) {
      return absl::InternalError(absl::StrCat("copy between slots of shapes ", src_shape.ToString(true), " and ",
                                              dst.shape.ToString(true)));
    }
    // Different dimensions: the value is a row-major reshape of the slot's bytes.
    if (src_shape.dimensions() != dst.shape.dimensions()) {
      src_shape = value_shape != nullptr && value_shape->dimensions() == dst.shape.dimensions()
                      ? *value_shape
                      : ShapeUtil::MakeShapeWithDescendingLayout(dst.shape.element_type(), dst.shape.dimensions());
    }
    if (src_shape.layout().minor_to_major() == dst.shape.layout().minor_to_major()) {
      if (dst.bytes > 0) {
        b_.CreateMemCpy(MainSlotPointer(to), llvm::MaybeAlign(1), MainSlotPointer(from), llvm::MaybeAlign(1),
                        b_.getInt64(dst.bytes));
      }
      return absl::OkStatus();
    }
    // A relayout: a copy instruction over a parameter bound to the source slot.
    ComputationPlan cp;
    auto param = HloInstruction::Create(HloOpcode::kParameter, src_shape);
    auto copy = HloInstruction::Create(HloOpcode::kCopy, dst.shape, {param.get()});
    copy->set_name("relayout");
    cp.values[param.get()] = {from};
    cp.values[copy.get()] = {to};
    absl::Status status = EmitKernel(cp, copy.get());
    copy->DetachFromOperands();
    return status;
  }

  absl::Status EmitWhile(const ComputationPlan& cp, const HloInstruction* hlo) {
    const std::vector<int>& state = cp.slots(hlo);
    const std::vector<int>& init = cp.slots(hlo->operand(0));
    for (size_t i = 0; i < state.size(); ++i) RETURN_IF_ERROR(EmitCopy(init[i], state[i]));
    const ComputationPlan& condition = *cp.callees.at(hlo)[0];
    const ComputationPlan& body = *cp.callees.at(hlo)[1];
    llvm::LLVMContext& c = module_->getContext();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(c, "while.header", main_);
    llvm::BasicBlock* body_block = llvm::BasicBlock::Create(c, "while.body", main_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, "while.exit", main_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    // Every iteration asks the runtime whether the execution was cancelled (returns 1).
    llvm::FunctionCallee cancelled = module_->getOrInsertFunction(
        "__xla_cpu_cancelled", llvm::FunctionType::get(b_.getInt32Ty(), {ptr_}, false));
    llvm::BasicBlock* go_on = llvm::BasicBlock::Create(c, "while.cond", main_);
    b_.CreateCondBr(b_.CreateICmpNE(b_.CreateCall(cancelled, {main_->getArg(1)}), b_.getInt32(0)), CancelBlock(),
                    go_on);
    b_.SetInsertPoint(go_on);
    RETURN_IF_ERROR(EmitComputation(condition));
    const std::vector<int>& pred = condition.slots(hlo->while_condition()->root_instruction());
    if (pred.size() != 1) return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": condition must return pred[]"));
    llvm::Value* go = b_.CreateLoad(b_.getInt8Ty(), MainSlotPointer(pred[0]));
    b_.CreateCondBr(b_.CreateICmpNE(go, b_.getInt8(0)), body_block, exit);
    b_.SetInsertPoint(body_block);
    RETURN_IF_ERROR(EmitComputation(body));
    const std::vector<int>& result = body.slots(hlo->while_body()->root_instruction());
    const std::vector<int>& shadow = cp.while_shadow.at(hlo);
    for (size_t i = 0; i < result.size(); ++i) {
      if (shadow[i] >= 0) RETURN_IF_ERROR(EmitCopy(result[i], shadow[i]));
    }
    for (size_t i = 0; i < result.size(); ++i) {
      RETURN_IF_ERROR(EmitCopy(shadow[i] >= 0 ? shadow[i] : result[i], state[i]));
    }
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  absl::Status EmitConditional(const ComputationPlan& cp, const HloInstruction* hlo) {
    const std::vector<int>& out = cp.slots(hlo);
    const auto& branches = cp.callees.at(hlo);
    const int selector = cp.slots(hlo->operand(0)).at(0);
    const PrimitiveType type = hlo->operand(0)->shape().element_type();
    llvm::Value* index;
    if (type == PRED) {
      llvm::Value* p = b_.CreateLoad(b_.getInt8Ty(), MainSlotPointer(selector));
      index = b_.CreateSelect(b_.CreateICmpNE(p, b_.getInt8(0)), b_.getInt32(0), b_.getInt32(1));
    } else if (type == S32) {
      llvm::Value* i = b_.CreateLoad(b_.getInt32Ty(), MainSlotPointer(selector));
      const int32_t n = static_cast<int32_t>(branches.size());
      index = b_.CreateSelect(b_.CreateOr(b_.CreateICmpSLT(i, b_.getInt32(0)), b_.CreateICmpSGE(i, b_.getInt32(n))),
                              b_.getInt32(n - 1), i);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": branch index must be pred or s32"));
    }
    llvm::LLVMContext& c = module_->getContext();
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(c, "cond.merge", main_);
    llvm::SwitchInst* sw = b_.CreateSwitch(index, merge, static_cast<unsigned>(branches.size()));
    for (size_t i = 0; i < branches.size(); ++i) {
      llvm::BasicBlock* block = llvm::BasicBlock::Create(c, absl::StrCat("cond.branch", i), main_);
      sw->addCase(b_.getInt32(static_cast<int32_t>(i)), block);
      b_.SetInsertPoint(block);
      RETURN_IF_ERROR(EmitComputation(*branches[i]));
      const std::vector<int>& result = branches[i]->slots(hlo->called_computations()[i]->root_instruction());
      for (size_t k = 0; k < out.size(); ++k) RETURN_IF_ERROR(EmitCopy(result[k], out[k]));
      b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
    return absl::OkStatus();
  }

  // XLA_CPU_GEMM_PATHS=0 in the environment of a compile: the dots and convolutions that
  // issue 6's GEMM paths took over stay on the generators (what bench/cpu_bench compares
  // them with). Read at every compile, so one process can build both.
  static bool GeneratorOnly() {
    const char* v = std::getenv("XLA_CPU_GEMM_PATHS");
    return v != nullptr && std::string(v) == "0";
  }

  // Dots and convolutions that runtime/gemm.h computes as GEMMs over whole arrays (which
  // ones: gemm_plan.h); false = not handled (the generator computes it).
  absl::StatusOr<bool> MaybeEmitGemm(const ComputationPlan& cp, const HloInstruction* hlo) {
    if (hlo->operand_count() != 2 || cp.slots(hlo).size() != 1 || cp.slots(hlo->operand(0)).size() != 1 ||
        cp.slots(hlo->operand(1)).size() != 1) {
      return false;
    }
    const HloInstruction* lhs = hlo->operand(0);
    const HloInstruction* rhs = hlo->operand(1);
    const int ls = cp.slots(lhs)[0], rs = cp.slots(rhs)[0], os = cp.slots(hlo)[0];
    const Shape lshape = ReadShape(lhs, ls), rshape = ReadShape(rhs, rs);
    const Shape& oshape = plan_.slots[os].shape;
    if (hlo->opcode() == HloOpcode::kConvolution) {
      if (GeneratorOnly()) return false;
      std::optional<std::vector<int64_t>> conv = PlanConvolutionCall(*hlo, lshape, rshape, oshape);
      if (!conv || !PreferConvolutionCall(*conv)) return false;
      EmitDescriptorCall("__xla_cpu_conv", *conv, MainSlotPointer(ls), MainSlotPointer(rs), MainSlotPointer(os));
      return true;
    }
    std::optional<DotCall> dot = PlanDotCall(*hlo, lshape, rshape, oshape);
    if (!dot || !PreferDotCall(*dot)) return false;
    if (GeneratorOnly()) {
      // Only what went to sgemm/dgemm before: unbatched f32/f64 dots of one type.
      const std::vector<int64_t>& d = dot->descriptor;
      const int64_t t = d[kDotOutType];
      if (d[kDotBatch] != 1 || (t != F32 && t != F64) || d[kDotLhsType] != t || d[kDotRhsType] != t) return false;
    }
    llvm::Value* a = MainSlotPointer(ls);
    llvm::Value* b = MainSlotPointer(rs);
    if (dot->swap_operands) std::swap(a, b);
    EmitDescriptorCall("__xla_cpu_dot", dot->descriptor, a, b, MainSlotPointer(os));
    return true;
  }

  // `routine`(descriptor as a private constant, x, y, out) in the entry function.
  void EmitDescriptorCall(const char* routine, const std::vector<int64_t>& descriptor, llvm::Value* x, llvm::Value* y,
                          llvm::Value* out) {
    std::vector<uint64_t> words(descriptor.begin(), descriptor.end());
    llvm::Constant* data = llvm::ConstantDataArray::get(module_->getContext(), words);
    auto* global = new llvm::GlobalVariable(*module_, data->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage, data, "descriptor");
    llvm::FunctionCallee callee =
        module_->getOrInsertFunction(routine, llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, ptr_, ptr_}, false));
    b_.CreateCall(callee, {global, x, y, out});
  }

  const BufferPlan& plan_;
  llvm::Module* module_;
  llvm::IRBuilder<> b_;
  ElementalEmitter elemental_;
  llvm::PointerType* ptr_ = nullptr;
  llvm::Function* main_ = nullptr;
  llvm::BasicBlock* cancel_block_ = nullptr;
  llvm::Value* main_slots_ = nullptr;
  llvm::Function* kernel_ = nullptr;
  llvm::BasicBlock* kernel_entry_ = nullptr;
  absl::flat_hash_map<int, llvm::Value*> kernel_bases_;
};

}  // namespace

absl::Status EmitEntryFunction(const HloModule& module, const BufferPlan& plan, llvm::Module* llvm_module,
                               const std::string& name) {
  (void)module;
  ModuleEmitter emitter(plan, llvm_module);
  return emitter.Emit(name);
}

}  // namespace cpu
}  // namespace xla
