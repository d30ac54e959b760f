// scatter and select-and-scatter kernels (ptx_emitter.h: ScatterStrategy). The index
// arithmetic is the cpu backend's (emit_scatter.cc); what differs is which thread applies
// which update, and whether it combines with an atomic.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_emitter.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "backends/gpu/ptx_sort.h"
#include "backends/gpu/ptx_sorted_updates.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

cpu::IrIndex Multi(const std::vector<llvm::Value*>& v) {
  cpu::IrIndex index;
  index.multi = v;
  return index;
}

// Floats and complex numbers: their sums and products round.
bool RoundsInUpdateOrder(PrimitiveType type) {
  return primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type);
}

// The op of a combiner that applies one commutative, associative binary op to its two
// parameters (in either order) and returns it, on a type the device updates atomically in
// place: the result is then the same whatever order the updates land in, up to float
// rounding. Every type but c128 fits a compare-and-swap of its 32- or 64-bit word (pred and
// 8/16-bit types inside the aligned word holding them); c128 adds as two f64 atomic adds.
std::optional<HloOpcode> AtomicCombinerOp(const HloComputation& combiner, PrimitiveType type) {
  const bool complex = primitive_util::IsComplexType(type);
  const bool floating = RoundsInUpdateOrder(type);
  if (!(type == PRED || primitive_util::IsIntegralType(type) || floating)) return std::nullopt;
  if (combiner.num_parameters() != 2) return std::nullopt;
  const HloInstruction* root = combiner.root_instruction();
  if (root->operand_count() != 2 || !root->shape().IsArray() || root->shape().rank() != 0 ||
      root->shape().element_type() != type) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter || a == b) return std::nullopt;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return root->opcode();
    case HloOpcode::kMultiply:
      if (type == C128) return std::nullopt;  // no 128-bit compare-and-swap in PTX 7.8
      return root->opcode();
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      if (complex) return std::nullopt;
      return root->opcode();
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (floating) return std::nullopt;
      return root->opcode();
    default:
      return std::nullopt;
  }
}

// Whether the atomic strategies may combine with `combiner` on `type`: floats and complex
// numbers round in the order the updates land, so a deterministic build keeps them serial.
bool AtomicCombinable(const HloComputation& combiner, PrimitiveType type, bool deterministic) {
  if (!AtomicCombinerOp(combiner, type).has_value()) return false;
  return !(deterministic && RoundsInUpdateOrder(type));
}

// The update elements of a scatter: every window position at every batch position.
int64_t UpdateElements(const cpu::ScatterIndexing& s) {
  return ShapeUtil::Product(s.batch_sizes()) * ShapeUtil::Product(s.window_extent());
}

// At most how many windows of select-and-scatter `hlo` hold one operand element.
int64_t WindowsPerOutput(const HloInstruction& hlo) {
  int64_t windows = 1;
  for (const WindowDimension& w : hlo.attrs().window().dimensions()) {
    const int64_t stride = std::max<int64_t>(w.stride(), 1);
    const int64_t span = (w.size() - 1) * std::max<int64_t>(w.window_dilation(), 1) + 1;
    windows *= (span + stride - 1) / stride;
    if (windows > kMaxWindowsPerOutput) return windows;
  }
  return windows;
}

// Whether `combiner` returns the update as it is (a set, as `x.at[i].set(v)` lowers): the
// interpreter's result at an element is then the last update it applies there.
bool Overwrites(const HloComputation& combiner) {
  const HloInstruction* root = combiner.root_instruction();
  while (root->opcode() == HloOpcode::kCopy) root = root->operand(0);
  return combiner.num_parameters() == 2 && root->opcode() == HloOpcode::kParameter && root->parameter_number() == 1;
}

// The update positions of a kLastUpdateWins scatter of `updates` update elements: position
// + 1 of the latest update aiming at each output element, 0 for none, in 32 bits when they
// fit.
int PositionBits(int64_t updates) { return updates < int64_t{UINT32_MAX} ? 32 : 64; }

// The one atomic instruction that applies `op` to a `type` element, where the device has one:
// integer add, min, max and bit ops and f32/f64 add on 32- and 64-bit types. Multiply, float
// max and min (NaN and -0 as the combiner has them), complex numbers and types narrower than
// 32 bits have none.
std::optional<llvm::AtomicRMWInst::BinOp> NativeAtomic(HloOpcode op, PrimitiveType type) {
  if (primitive_util::BitWidth(type) < 32 || primitive_util::IsComplexType(type)) return std::nullopt;
  const bool floating = type == F32 || type == F64;
  const bool is_signed = type == S32 || type == S64;
  switch (op) {
    case HloOpcode::kAdd:
      return floating ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add;
    case HloOpcode::kMaximum:
      if (floating) return std::nullopt;
      return is_signed ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
    case HloOpcode::kMinimum:
      if (floating) return std::nullopt;
      return is_signed ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
    case HloOpcode::kAnd:
      return llvm::AtomicRMWInst::And;
    case HloOpcode::kOr:
      return llvm::AtomicRMWInst::Or;
    case HloOpcode::kXor:
      return llvm::AtomicRMWInst::Xor;
    default:
      return std::nullopt;
  }
}

// Atomically element `index` of `out` = combine(its value), on a type AtomicCombinerOp
// accepts: NativeAtomic's instruction when there is one (`value` is the other operand), else
// a compare-and-swap loop.
absl::Status EmitAtomicCombine(KernelContext& k, HloOpcode op, const cpu::SerialOutput& out, const cpu::IrIndex& index,
                               llvm::Value* value, const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*)>& combine) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const PrimitiveType type = out.shape.element_type();
  llvm::Type* element = e.StorageType(type);
  llvm::Value* address = b.CreateGEP(element, out.base, e.StorageOffset(out.shape, index));
  const std::optional<llvm::AtomicRMWInst::BinOp> native = NativeAtomic(op, type);
  if (native.has_value()) {
    b.CreateAtomicRMW(*native, address, value, llvm::MaybeAlign(), llvm::AtomicOrdering::Monotonic);
    return absl::OkStatus();
  }
  if (primitive_util::IsComplexType(type) && op == HloOpcode::kAdd) {
    // Complex addition adds the real parts and the imaginary parts (real first in memory and
    // in the low bits of the value): an atomic add on each.
    llvm::Type* part = type == C64 ? b.getFloatTy() : b.getDoubleTy();
    const unsigned bits = part->getPrimitiveSizeInBits();
    for (unsigned i = 0; i < 2; ++i) {
      llvm::Value* part_bits = b.CreateTrunc(i == 0 ? value : b.CreateLShr(value, bits), b.getIntNTy(bits));
      b.CreateAtomicRMW(llvm::AtomicRMWInst::FAdd, b.CreateConstGEP1_64(part, address, i),
                        b.CreateBitCast(part_bits, part), llvm::MaybeAlign(), llvm::AtomicOrdering::Monotonic);
    }
    return absl::OkStatus();
  }
  // The compare-and-swap works on whole words: an 8- or 16-bit element's (pred, sub-byte
  // integers and 4-bit floats take a byte each) is the aligned 32-bit word holding it
  // (buffers are allocated in whole aligned words), whose other bytes it keeps.
  const unsigned width = static_cast<unsigned>(element->getPrimitiveSizeInBits());
  const bool part_word = width < 32;
  llvm::Type* word = b.getIntNTy(part_word ? 32 : width);
  llvm::Value* word_address = address;
  llvm::Value* shift = nullptr;
  if (part_word) {
    llvm::Value* at = b.CreatePtrToInt(address, b.getInt64Ty());
    word_address = b.CreateIntToPtr(b.CreateAnd(at, b.getInt64(~int64_t{3})), address->getType());
    const int64_t byte_in_word = width == 8 ? 3 : 2;  // elements are aligned to their size
    shift = b.CreateTrunc(b.CreateShl(b.CreateAnd(at, b.getInt64(byte_in_word)), b.getInt64(3)), word);
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b.getContext(), "cas", f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "cas.done", f);
  llvm::Value* first = b.CreateLoad(word, word_address);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* seen = b.CreatePHI(word, 2, "seen");
  seen->addIncoming(first, before);
  llvm::Value* old_bits = part_word ? b.CreateTrunc(b.CreateLShr(seen, shift), b.getIntNTy(width)) : seen;
  ASSIGN_OR_RETURN(llvm::Value* updated, combine(e.FromStorage(b.CreateBitCast(old_bits, element), type)));
  llvm::Value* new_word = b.CreateBitCast(e.ToStorage(updated, type), b.getIntNTy(width));
  if (part_word) {
    llvm::Value* mask = b.CreateShl(b.getInt32((1u << width) - 1), shift);
    new_word = b.CreateOr(b.CreateAnd(seen, b.CreateNot(mask)), b.CreateShl(b.CreateZExt(new_word, word), shift));
  }
  llvm::Value* pair = b.CreateAtomicCmpXchg(word_address, seen, new_word, llvm::MaybeAlign(),
                                            llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  seen->addIncoming(b.CreateExtractValue(pair, {0}), b.GetInsertBlock());
  b.CreateCondBr(b.CreateExtractValue(pair, {1}), done, loop);
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<cpu::Generator>> AllOperands(KernelContext& k, const HloInstruction* hlo) {
  std::vector<cpu::Generator> operands;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(i));
  }
  return operands;
}

// Launch 0 of a scatter or of a select-and-scatter that needs two: the outputs hold the
// operands (scatter) or the init value (select-and-scatter), a thread per element; with
// `position_bits`, each element's update position in scratch memory is cleared too. A scatter
// updating in place (UpdatesInPlace) copies operand o only into an output that is not that
// operand's buffer (GpuPlanStep::in_place).
KernelBody FillBody(const HloInstruction* hlo, int position_bits = 0) {
  return [hlo, position_bits](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
    const Shape& shape = outputs[0].shape;
    const bool scatter = hlo->opcode() == HloOpcode::kScatter;
    llvm::Value* init = nullptr;  // select-and-scatter's, read once per thread
    if (!scatter) {
      ASSIGN_OR_RETURN(init, operands[2](cpu::IrIndex{}));
    }
    std::vector<llvm::Value*> apart(outputs.size(), nullptr);  // output o is not operand o's buffer
    if (scatter && UpdatesInPlace(*hlo)) {
      for (size_t o = 0; o < outputs.size(); ++o) {
        apart[o] = b.CreateICmpNE(outputs[o].base, k.kernel->getArg(static_cast<unsigned>(outputs.size() + o)));
      }
    }
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(ShapeUtil::ElementsIn(shape)), GridThreads(&b), "fill",
                           [&](llvm::Value* i) -> absl::Status {
                             const cpu::IrIndex index = IndexOf(&b, shape, i);
                             for (size_t o = 0; o < outputs.size(); ++o) {
                               auto store = [&]() -> absl::Status {
                                 llvm::Value* v = init;
                                 if (scatter) {
                                   ASSIGN_OR_RETURN(v, operands[o](index));
                                 }
                                 k.elemental->StoreElement(v, outputs[o].base, outputs[o].shape, index);
                                 return absl::OkStatus();
                               };
                               if (apart[o] == nullptr) {
                                 RETURN_IF_ERROR(store());
                               } else {
                                 RETURN_IF_ERROR(EmitIf(&b, apart[o], "copy", store));
                               }
                             }
                             if (position_bits > 0) {
                               llvm::Type* position = b.getIntNTy(position_bits);
                               b.CreateStore(llvm::ConstantInt::get(position, 0),
                                             b.CreateGEP(position, k.scratch, k.elemental->StorageOffset(shape, index)));
                             }
                             return absl::OkStatus();
                           });
  };
}

// Launch 1 of a scatter: the updates combined into the filled outputs by `strategy`; for
// kLastUpdateWins, launch 1 records the latest update position at each element and launch 2
// (`store`) has that update's thread store it.
KernelBody ScatterUpdateBody(const HloInstruction* hlo, ScatterStrategy strategy, bool store = false) {
  return [hlo, strategy, store](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    cpu::ElementalEmitter& e = *k.elemental;
    ASSIGN_OR_RETURN(const cpu::ScatterIndexing s, cpu::ScatterIndexing::Make(hlo));
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
    const cpu::Generator& indices = operands[s.outputs()];
    const int64_t windows = ShapeUtil::Product(s.window_extent());
    switch (strategy) {
      case ScatterStrategy::kSerial:
        return EmitIf(&b, b.CreateICmpEQ(GlobalThread(&b), b.getInt64(0)), "serial",
                      [&]() { return cpu::EmitScatterUpdates(&e, s, operands, outputs); });
      case ScatterStrategy::kWindowThreads:
        return EmitStridedLoop(
            &b, GlobalThread(&b), b.getInt64(windows), GridThreads(&b), "w", [&](llvm::Value* i) -> absl::Status {
              const std::vector<llvm::Value*> w = RowMajorIndex(&b, s.window_extent(), i);
              return cpu::EmitLoopsOver(&b, s.batch_sizes(), "sb", [&](const std::vector<llvm::Value*>& g) -> absl::Status {
                ASSIGN_OR_RETURN(const cpu::ScatterIndexing::Start start, s.EmitStart(&e, indices, g));
                return EmitIf(&b, start.fits, "fits", [&]() { return s.EmitUpdate(&e, operands, outputs, start, g, w); });
              });
            });
      case ScatterStrategy::kUpdateThreads:
      case ScatterStrategy::kAtomicUpdates:
      case ScatterStrategy::kLastUpdateWins: {
        const int64_t total = UpdateElements(s);
        return EmitStridedLoop(
            &b, GlobalThread(&b), b.getInt64(total), GridThreads(&b), "u", [&](llvm::Value* i) -> absl::Status {
              const std::vector<llvm::Value*> g =
                  RowMajorIndex(&b, s.batch_sizes(), b.CreateUDiv(i, b.getInt64(windows)));
              const std::vector<llvm::Value*> w = RowMajorIndex(&b, s.window_extent(), b.CreateURem(i, b.getInt64(windows)));
              ASSIGN_OR_RETURN(const cpu::ScatterIndexing::Start start, s.EmitStart(&e, indices, g));
              return EmitIf(&b, start.fits, "fits", [&]() -> absl::Status {
                if (strategy == ScatterStrategy::kUpdateThreads) return s.EmitUpdate(&e, operands, outputs, start, g, w);
                if (strategy == ScatterStrategy::kLastUpdateWins) {
                  // i is the update's position in the interpreter's order.
                  const cpu::IrIndex at = s.OutputIndex(&b, start, w);
                  llvm::Type* position = b.getIntNTy(PositionBits(total));
                  llvm::Value* slot = b.CreateGEP(position, k.scratch, e.StorageOffset(outputs[0].shape, at));
                  llvm::Value* mine = b.CreateZExtOrTrunc(b.CreateAdd(i, b.getInt64(1)), position);
                  if (!store) {
                    b.CreateAtomicRMW(llvm::AtomicRMWInst::UMax, slot, mine, llvm::MaybeAlign(),
                                      llvm::AtomicOrdering::Monotonic);
                    return absl::OkStatus();
                  }
                  return EmitIf(&b, b.CreateICmpEQ(b.CreateLoad(position, slot), mine), "last", [&]() -> absl::Status {
                    ASSIGN_OR_RETURN(llvm::Value* update, operands[s.outputs() + 1](s.UpdateIndex(g, w)));
                    e.StoreElement(update, outputs[0].base, outputs[0].shape, at);
                    return absl::OkStatus();
                  });
                }
                const PrimitiveType type = outputs[0].shape.element_type();
                const std::optional<HloOpcode> op = AtomicCombinerOp(*hlo->to_apply(), type);
                if (!op.has_value()) return absl::InternalError("scatter: the combiner is not atomic");
                ASSIGN_OR_RETURN(llvm::Value* update, operands[s.outputs() + 1](s.UpdateIndex(g, w)));
                return EmitAtomicCombine(k, *op, outputs[0], s.OutputIndex(&b, start, w), update,
                                         [&](llvm::Value* old) -> absl::StatusOr<llvm::Value*> {
                                           ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                                                            e.EmitScalarComputation(*hlo->to_apply(), {old, update}));
                                           return r.at(0);
                                         });
              });
            });
      }
      default:
        return absl::InternalError("scatter: not a scatter strategy");
    }
  };
}

// The batch and window positions of update element `i` (the interpreter's order).
std::pair<std::vector<llvm::Value*>, std::vector<llvm::Value*>> UpdatePosition(llvm::IRBuilder<>* b,
                                                                               const cpu::ScatterIndexing& s,
                                                                               llvm::Value* i) {
  const int64_t windows = ShapeUtil::Product(s.window_extent());
  return {RowMajorIndex(b, s.batch_sizes(), b->CreateUDiv(i, b->getInt64(windows))),
          RowMajorIndex(b, s.window_extent(), b->CreateURem(i, b->getInt64(windows)))};
}

// A scatter's keys: the output element's storage offset, where the update's window fits.
MakeKeyOf ScatterKeys(const HloInstruction* hlo) {
  return [hlo](KernelContext& k) -> absl::StatusOr<KeyOf> {
    ASSIGN_OR_RETURN(const cpu::ScatterIndexing s, cpu::ScatterIndexing::Make(hlo));
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
    return KeyOf([&k, s, operands, out](llvm::Value* i, const std::function<void(llvm::Value*)>& store) -> absl::Status {
      llvm::IRBuilder<>& b = *k.b;
      cpu::ElementalEmitter& e = *k.elemental;
      const auto position = UpdatePosition(&b, s, i);
      ASSIGN_OR_RETURN(const cpu::ScatterIndexing::Start start, s.EmitStart(&e, operands[s.outputs()], position.first));
      return EmitIf(&b, start.fits, "fits", [&]() {
        store(e.StorageOffset(out.shape, s.OutputIndex(&b, start, position.second)));
        return absl::OkStatus();
      });
    });
  };
}

// A select-and-scatter's keys: the selected element's row-major position, where the source's
// window holds any operand element.
MakeKeyOf SelectedKeys(const HloInstruction* hlo) {
  return [hlo](KernelContext& k) -> absl::StatusOr<KeyOf> {
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const Shape& source = hlo->operand(1)->shape();
    const std::vector<int64_t> source_dims(source.dimensions().begin(), source.dimensions().end());
    return KeyOf([&k, hlo, operands, source_dims](llvm::Value* i,
                                                   const std::function<void(llvm::Value*)>& store) -> absl::Status {
      llvm::IRBuilder<>& b = *k.b;
      const std::vector<llvm::Value*> s = RowMajorIndex(&b, source_dims, i);
      ASSIGN_OR_RETURN(const cpu::WindowSelection selection, cpu::EmitSelectInWindow(k.elemental, hlo, operands[0], s));
      return EmitIf(&b, selection.have, "have", [&]() {
        llvm::Value* element = b.getInt64(0);
        for (size_t d = 0; d < selection.position.size(); ++d) {
          element = b.CreateAdd(b.CreateMul(element, b.getInt64(hlo->shape().dimensions(static_cast<int>(d)))),
                                selection.position[d]);
        }
        store(element);
        return absl::OkStatus();
      });
    });
  };
}

// A scatter's update at `position`: its window fits (its key is not all ones), and the
// combiner applies to every output at once.
MakeApplyOne ScatterApply(const HloInstruction* hlo) {
  return [hlo](KernelContext& k) -> absl::StatusOr<ApplyOne> {
    ASSIGN_OR_RETURN(const cpu::ScatterIndexing s, cpu::ScatterIndexing::Make(hlo));
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
    return ApplyOne([&k, s, operands, outputs](llvm::Value*, llvm::Value* position) -> absl::Status {
      const auto [g, w] = UpdatePosition(k.b, s, position);
      ASSIGN_OR_RETURN(const cpu::ScatterIndexing::Start start, s.EmitStart(k.elemental, operands[s.outputs()], g));
      return s.EmitUpdate(k.elemental, operands, outputs, start, g, w);
    });
  };
}

// A select-and-scatter's source element at `position` (row-major) into the selected element
// (row-major `element`): output = scatter(source, output), as the interpreter has it.
MakeApplyOne SelectedApply(const HloInstruction* hlo) {
  return [hlo](KernelContext& k) -> absl::StatusOr<ApplyOne> {
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
    const Shape& source = hlo->operand(1)->shape();
    const std::vector<int64_t> source_dims(source.dimensions().begin(), source.dimensions().end());
    const std::vector<int64_t> out_dims(out.shape.dimensions().begin(), out.shape.dimensions().end());
    return ApplyOne([&k, hlo, operands, out, source_dims, out_dims](llvm::Value* element,
                                                                    llvm::Value* position) -> absl::Status {
      cpu::ElementalEmitter& e = *k.elemental;
      ASSIGN_OR_RETURN(llvm::Value* src, operands[1](Multi(RowMajorIndex(k.b, source_dims, position))));
      const cpu::IrIndex at = Multi(RowMajorIndex(k.b, out_dims, element));
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                       e.EmitScalarComputation(*hlo->scatter(), {src, e.LoadElement(out.base, out.shape, at)}));
      e.StoreElement(r.at(0), out.base, out.shape, at);
      return absl::OkStatus();
    });
  };
}

// (x / c rounded down, c > 0.)
llvm::Value* FloorDiv(llvm::IRBuilder<>* b, llvm::Value* x, int64_t c) {
  llvm::Value* adjusted = b->CreateSelect(b->CreateICmpSLT(x, b->getInt64(0)), b->CreateSub(x, b->getInt64(c - 1)), x);
  return b->CreateSDiv(adjusted, b->getInt64(c));
}

// select-and-scatter as one launch, a thread per output element p: the windows that can hold
// p, visited in row-major order of their source positions (the interpreter's order), each
// selecting as the interpreter does; those that select p combine their source into it.
absl::Status EmitOutputThreadsBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
  const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
  const Shape& source_shape = hlo->operand(1)->shape();
  const Window& window = hlo->attrs().window();
  const int64_t rank = out.shape.rank();
  const PrimitiveType type = out.shape.element_type();
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* acc = entry.CreateAlloca(e.RegisterType(type));
  ASSIGN_OR_RETURN(llvm::Value* init, operands[2](cpu::IrIndex{}));  // read once per thread
  return EmitStridedLoop(
      &b, GlobalThread(&b), b.getInt64(ShapeUtil::ElementsIn(out.shape)), GridThreads(&b), "p",
      [&](llvm::Value* i) -> absl::Status {
        const cpu::IrIndex p = IndexOf(&b, out.shape, i);
        b.CreateStore(init, acc);
        // Window s holds p in dimension d when s * stride + k * dilation = q for a k of the
        // window, q being p's position in the padded, base-dilated operand.
        std::vector<llvm::Value*> q(rank), lo(rank), hi(rank);
        for (int64_t d = 0; d < rank; ++d) {
          const WindowDimension& w = window.dimensions(static_cast<int>(d));
          const int64_t stride = std::max<int64_t>(w.stride(), 1);
          const int64_t span = (w.size() - 1) * std::max<int64_t>(w.window_dilation(), 1);
          q[d] = b.CreateAdd(b.CreateMul(p.multi[d], b.getInt64(std::max<int64_t>(w.base_dilation(), 1))),
                             b.getInt64(w.padding_low()));
          lo[d] = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b.getInt64(0),
                                          FloorDiv(&b, b.CreateAdd(q[d], b.getInt64(stride - 1 - span)), stride));
          hi[d] = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.getInt64(source_shape.dimensions(static_cast<int>(d))),
                                          b.CreateAdd(FloorDiv(&b, q[d], stride), b.getInt64(1)));
        }
        std::vector<llvm::Value*> s(rank);
        std::function<absl::Status(int64_t)> level = [&](int64_t d) -> absl::Status {
          if (d < rank) {
            return cpu::EmitForLoop(&b, lo[d], hi[d], "s", [&](llvm::Value* v) {
              s[d] = v;
              return level(d + 1);
            });
          }
          llvm::Value* holds = b.getTrue();
          for (int64_t x = 0; x < rank; ++x) {
            const WindowDimension& w = window.dimensions(static_cast<int>(x));
            const int64_t dilation = std::max<int64_t>(w.window_dilation(), 1);
            if (dilation == 1) continue;
            llvm::Value* offset = b.CreateSub(q[x], b.CreateMul(s[x], b.getInt64(std::max<int64_t>(w.stride(), 1))));
            holds = b.CreateAnd(holds, b.CreateICmpEQ(b.CreateSRem(offset, b.getInt64(dilation)), b.getInt64(0)));
          }
          return EmitIf(&b, holds, "holds", [&]() -> absl::Status {
            ASSIGN_OR_RETURN(const cpu::WindowSelection selection, cpu::EmitSelectInWindow(&e, hlo, operands[0], s));
            llvm::Value* chosen = selection.have;
            for (int64_t x = 0; x < rank; ++x) chosen = b.CreateAnd(chosen, b.CreateICmpEQ(selection.position[x], p.multi[x]));
            return EmitIf(&b, chosen, "chosen", [&]() -> absl::Status {
              ASSIGN_OR_RETURN(llvm::Value* src, operands[1](Multi(s)));
              ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                               e.EmitScalarComputation(*hlo->scatter(), {src, b.CreateLoad(e.RegisterType(type), acc)}));
              b.CreateStore(r.at(0), acc);
              return absl::OkStatus();
            });
          });
        };
        RETURN_IF_ERROR(level(0));
        e.StoreElement(b.CreateLoad(e.RegisterType(type), acc), out.base, out.shape, p);
        return absl::OkStatus();
      });
}

// Launch 1 of a select-and-scatter that fills first: a thread per source element combining
// atomically, or one thread for all in order.
KernelBody SelectAndScatterUpdateBody(const HloInstruction* hlo, ScatterStrategy strategy) {
  return [hlo, strategy](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    cpu::ElementalEmitter& e = *k.elemental;
    ASSIGN_OR_RETURN(const std::vector<cpu::Generator> operands, AllOperands(k, hlo));
    const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
    if (strategy == ScatterStrategy::kSerial) {
      return EmitIf(&b, b.CreateICmpEQ(GlobalThread(&b), b.getInt64(0)), "serial",
                    [&]() { return cpu::EmitSelectAndScatterUpdates(&e, hlo, operands, out); });
    }
    const std::optional<HloOpcode> op = AtomicCombinerOp(*hlo->scatter(), out.shape.element_type());
    if (strategy != ScatterStrategy::kAtomicSources || !op.has_value()) {
      return absl::InternalError("select-and-scatter: not an update strategy");
    }
    const Shape& source_shape = hlo->operand(1)->shape();
    const std::vector<int64_t> source_dims(source_shape.dimensions().begin(), source_shape.dimensions().end());
    return EmitStridedLoop(
        &b, GlobalThread(&b), b.getInt64(ShapeUtil::ElementsIn(source_shape)), GridThreads(&b), "s",
        [&](llvm::Value* i) -> absl::Status {
          const std::vector<llvm::Value*> s = RowMajorIndex(&b, source_dims, i);
          ASSIGN_OR_RETURN(const cpu::WindowSelection selection, cpu::EmitSelectInWindow(&e, hlo, operands[0], s));
          return EmitIf(&b, selection.have, "have", [&]() -> absl::Status {
            ASSIGN_OR_RETURN(llvm::Value* src, operands[1](Multi(s)));
            return EmitAtomicCombine(k, *op, out, Multi(selection.position), src,
                                     [&](llvm::Value* old) -> absl::StatusOr<llvm::Value*> {
                                       ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                                                        e.EmitScalarComputation(*hlo->scatter(), {src, old}));
                                       return r.at(0);
                                     });
          });
        });
  };
}

}  // namespace

bool DeterministicOps() {
  const char* v = std::getenv("XLA_GPU_DETERMINISTIC_OPS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

absl::StatusOr<ScatterStrategy> ChooseScatterStrategy(const HloInstruction& hlo, bool deterministic) {
  if (hlo.opcode() == HloOpcode::kScatter) {
    ASSIGN_OR_RETURN(const cpu::ScatterIndexing s, cpu::ScatterIndexing::Make(&hlo));
    if (hlo.attrs().unique_indices()) return ScatterStrategy::kUpdateThreads;
    if (s.outputs() == 1 && AtomicCombinable(*hlo.to_apply(), hlo.shape().element_type(), deterministic)) {
      return ScatterStrategy::kAtomicUpdates;
    }
    if (s.outputs() == 1 && Overwrites(*hlo.to_apply()) && UpdateElements(s) > 0 && ShapeUtil::ElementsIn(hlo.shape()) > 0) {
      return ScatterStrategy::kLastUpdateWins;
    }
    // Windows the indices never move: a thread per window position, each taking the batch
    // positions in order, while those are no more than the threads; sorted updates beyond.
    const int64_t windows = ShapeUtil::Product(s.window_extent());
    const bool sortable =
        SortedKeysFor(UpdateElements(s), ShapeUtil::ElementsIn(*KernelOutputs(hlo.shape())[0])).has_value();
    if (s.WindowsDisjoint() && windows > 1 && (ShapeUtil::Product(s.batch_sizes()) <= windows || !sortable)) {
      return ScatterStrategy::kWindowThreads;
    }
    return sortable ? ScatterStrategy::kSortedUpdates : ScatterStrategy::kSerial;
  }
  RETURN_IF_ERROR(cpu::CheckSelectAndScatter(&hlo));
  if (WindowsPerOutput(hlo) <= kMaxWindowsPerOutput) return ScatterStrategy::kOutputThreads;
  if (AtomicCombinable(*hlo.scatter(), hlo.shape().element_type(), deterministic)) return ScatterStrategy::kAtomicSources;
  const bool sortable =
      SortedKeysFor(ShapeUtil::ElementsIn(hlo.operand(1)->shape()), ShapeUtil::ElementsIn(hlo.shape())).has_value();
  return sortable ? ScatterStrategy::kSortedSources : ScatterStrategy::kSerial;
}

absl::StatusOr<std::vector<KernelLaunch>> ScatterLaunches(const HloInstruction* hlo, bool deterministic,
                                                          int64_t* scratch_bytes) {
  ASSIGN_OR_RETURN(const ScatterStrategy strategy, ChooseScatterStrategy(*hlo, deterministic));
  *scratch_bytes = 0;
  const std::vector<const Shape*> outputs = KernelOutputs(hlo->shape());
  if (outputs.empty()) return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": no array outputs"));
  const int64_t elements = ShapeUtil::ElementsIn(*outputs[0]);
  std::vector<KernelLaunch> launches;
  if (strategy == ScatterStrategy::kOutputThreads) {
    launches.push_back({[hlo](KernelContext& k) { return EmitOutputThreadsBody(k, hlo); }, elements});
    return launches;
  }
  if (hlo->opcode() == HloOpcode::kSelectAndScatter) {
    const int64_t sources = ShapeUtil::ElementsIn(hlo->operand(1)->shape());
    launches.push_back({FillBody(hlo), elements});
    if (strategy == ScatterStrategy::kSortedSources) {
      const std::optional<SortedKeys> keys = SortedKeysFor(sources, elements);
      if (!keys.has_value()) {
        return absl::InternalError(absl::StrCat("select-and-scatter ", hlo->name(), ": its keys do not fit"));
      }
      *scratch_bytes = keys->bytes();
      AppendSortedLaunches(*keys, sources, SelectedKeys(hlo), SelectedApply(hlo), &launches);
      return launches;
    }
    launches.push_back({SelectAndScatterUpdateBody(hlo, strategy),
                        strategy == ScatterStrategy::kSerial ? std::min<int64_t>(sources, 1) : sources});
    return launches;
  }
  ASSIGN_OR_RETURN(const cpu::ScatterIndexing s, cpu::ScatterIndexing::Make(hlo));
  const int64_t updates = UpdateElements(s);
  if (strategy == ScatterStrategy::kLastUpdateWins) {
    *scratch_bytes = elements * (PositionBits(updates) / 8);
    launches.push_back({FillBody(hlo, PositionBits(updates)), elements});
    launches.push_back({ScatterUpdateBody(hlo, strategy), updates});
    launches.push_back({ScatterUpdateBody(hlo, strategy, /*store=*/true), updates});
    return launches;
  }
  launches.push_back({FillBody(hlo), elements});
  if (strategy == ScatterStrategy::kSortedUpdates) {
    const std::optional<SortedKeys> keys = SortedKeysFor(updates, elements);
    if (!keys.has_value()) return absl::InternalError(absl::StrCat("scatter ", hlo->name(), ": its keys do not fit"));
    *scratch_bytes = keys->bytes();
    AppendSortedLaunches(*keys, updates, ScatterKeys(hlo), ScatterApply(hlo), &launches);
    return launches;
  }
  int64_t items = updates;
  if (strategy == ScatterStrategy::kWindowThreads) items = updates == 0 ? 0 : ShapeUtil::Product(s.window_extent());
  if (strategy == ScatterStrategy::kSerial) items = std::min<int64_t>(updates, 1);
  launches.push_back({ScatterUpdateBody(hlo, strategy), items});
  return launches;
}

}  // namespace gpu
}  // namespace xla
