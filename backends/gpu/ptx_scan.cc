// Cumulative reduce-windows on the gpu (ptx_kernel_util.h): a thread per row scans it
// (EmitRowScansBody), or, for few long rows, ScanLaunches cuts each row into chunks that threads
// scan at once, scans the chunks' totals per row, and gives each element its chunk's prefix.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/cumulative_window.h"
#include "backends/gpu/ptx_emitter.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

// Elements a thread scans in the first launch.
constexpr int64_t kScanChunk = 512;

// Where a scan's pieces are: `rows` rows of `length` along the window's dimension, each cut
// into `chunks` chunks; scan position k of a row is element k (forward) or length - 1 - k.
struct ScanShape {
  cpu::CumulativeWindow window;
  int64_t length = 0, rows = 0, chunks = 0;
  std::vector<int64_t> others;  // the input's dimensions with 1 along the window's
  Shape totals;                 // [rows, chunks] of the element type, in scratch memory
};

ScanShape ShapeOf(const HloInstruction* hlo, const cpu::CumulativeWindow& w) {
  const Shape& input = hlo->operand(0)->shape();
  ScanShape s;
  s.window = w;
  s.length = input.dimensions(static_cast<int>(w.dimension));
  s.rows = ShapeUtil::ElementsIn(input) / s.length;
  s.chunks = (s.length + kScanChunk - 1) / kScanChunk;
  s.others.assign(input.dimensions().begin(), input.dimensions().end());
  s.others[w.dimension] = 1;
  s.totals = ShapeUtil::MakeShapeWithDescendingLayout(input.element_type(), {s.rows, s.chunks});
  return s;
}

// The element at scan position `k` of row `row`.
cpu::IrIndex At(llvm::IRBuilder<>* b, const ScanShape& s, llvm::Value* row, llvm::Value* k) {
  std::vector<llvm::Value*> index = RowMajorIndex(b, s.others, row);
  index[s.window.dimension] = s.window.reverse ? b->CreateSub(b->getInt64(s.length - 1), k) : k;
  cpu::IrIndex at;
  at.multi = index;
  return at;
}

absl::StatusOr<llvm::Value*> Reduce(KernelContext& k, const HloInstruction* hlo, llvm::Value* a, llvm::Value* b) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, k.elemental->EmitScalarComputation(*hlo->to_apply(), {a, b}));
  if (r.size() != 1) return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": reducer arity"));
  return r[0];
}

cpu::IrIndex TotalAt(llvm::IRBuilder<>* b, llvm::Value* row, llvm::Value* chunk) {
  cpu::IrIndex at;
  at.multi = {row, chunk};
  return at;
}

// Launch 0: a thread per chunk scans it into the output and keeps its total.
KernelBody ChunkScans(const HloInstruction* hlo, ScanShape s) {
  return [hlo, s](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    ASSIGN_OR_RETURN(const cpu::Generator x, k.operand(0));
    const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
    llvm::Function* f = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* running = entry.CreateAlloca(k.elemental->RegisterType(out.shape.element_type()));
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(s.rows * s.chunks), GridThreads(&b), "chunk",
                           [&](llvm::Value* q) -> absl::Status {
                             llvm::Value* row = b.CreateUDiv(q, b.getInt64(s.chunks));
                             llvm::Value* chunk = b.CreateURem(q, b.getInt64(s.chunks));
                             llvm::Value* first = b.CreateMul(chunk, b.getInt64(kScanChunk));
                             llvm::Value* last = b.CreateBinaryIntrinsic(
                                 llvm::Intrinsic::umin, b.CreateAdd(first, b.getInt64(kScanChunk)), b.getInt64(s.length));
                             ASSIGN_OR_RETURN(llvm::Value* v, x(At(&b, s, row, first)));
                             b.CreateStore(v, running);
                             k.elemental->StoreElement(v, out.base, out.shape, At(&b, s, row, first));
                             RETURN_IF_ERROR(cpu::EmitForLoop(&b, b.CreateAdd(first, b.getInt64(1)), last, "scan",
                                                              [&](llvm::Value* j) -> absl::Status {
                               const cpu::IrIndex at = At(&b, s, row, j);
                               ASSIGN_OR_RETURN(llvm::Value* xj, x(at));
                               ASSIGN_OR_RETURN(llvm::Value* r, Reduce(k, hlo, b.CreateLoad(running->getAllocatedType(), running), xj));
                               b.CreateStore(r, running);
                               k.elemental->StoreElement(r, out.base, out.shape, at);
                               return absl::OkStatus();
                             }));
                             k.elemental->StoreElement(b.CreateLoad(running->getAllocatedType(), running), k.scratch,
                                                       s.totals, TotalAt(&b, row, chunk));
                             return absl::OkStatus();
                           });
  };
}

// Launch 1: a thread per row replaces its chunks' totals by what precedes each chunk: the
// init value and the totals before it.
KernelBody TotalScans(const HloInstruction* hlo, ScanShape s) {
  return [hlo, s](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    ASSIGN_OR_RETURN(const cpu::Generator init, k.operand(1));
    llvm::Function* f = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* running = entry.CreateAlloca(k.elemental->RegisterType(s.totals.element_type()));
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(s.rows), GridThreads(&b), "row",
                           [&](llvm::Value* row) -> absl::Status {
                             ASSIGN_OR_RETURN(llvm::Value* start, init(cpu::IrIndex{}));
                             b.CreateStore(start, running);
                             return cpu::EmitForLoop(&b, b.getInt64(0), b.getInt64(s.chunks), "total",
                                                     [&](llvm::Value* c) -> absl::Status {
                               const cpu::IrIndex at = TotalAt(&b, row, c);
                               llvm::Value* total = k.elemental->LoadElement(k.scratch, s.totals, at);
                               llvm::Value* before = b.CreateLoad(running->getAllocatedType(), running);
                               k.elemental->StoreElement(before, k.scratch, s.totals, at);
                               ASSIGN_OR_RETURN(llvm::Value* r, Reduce(k, hlo, before, total));
                               b.CreateStore(r, running);
                               return absl::OkStatus();
                             });
                           });
  };
}

// Launch 2: a thread per element puts what precedes its chunk in front of its value.
KernelBody ApplyPrefixes(const HloInstruction* hlo, ScanShape s) {
  return [hlo, s](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    const cpu::SerialOutput out = OutputArrays(k, hlo)[0];
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(s.rows * s.length), GridThreads(&b), "element",
                           [&](llvm::Value* e) -> absl::Status {
                             llvm::Value* row = b.CreateUDiv(e, b.getInt64(s.length));
                             llvm::Value* position = b.CreateURem(e, b.getInt64(s.length));
                             llvm::Value* chunk = b.CreateUDiv(position, b.getInt64(kScanChunk));
                             const cpu::IrIndex at = At(&b, s, row, position);
                             llvm::Value* before = k.elemental->LoadElement(k.scratch, s.totals, TotalAt(&b, row, chunk));
                             ASSIGN_OR_RETURN(llvm::Value* r,
                                              Reduce(k, hlo, before, k.elemental->LoadElement(out.base, out.shape, at)));
                             k.elemental->StoreElement(r, out.base, out.shape, at);
                             return absl::OkStatus();
                           });
  };
}

}  // namespace

int64_t RowScanBlocks(const HloInstruction& hlo, const cpu::CumulativeWindow& w) {
  const Shape& input = hlo.operand(0)->shape();
  const int64_t rows = ShapeUtil::ElementsIn(input) / input.dimensions(static_cast<int>(w.dimension));
  return (rows + kGpuThreadsPerBlock - 1) / kGpuThreadsPerBlock;
}

absl::Status EmitRowScansBody(KernelContext& k, const HloInstruction* hlo, const cpu::CumulativeWindow& w) {
  llvm::IRBuilder<>& b = *k.b;
  const ScanShape s = ShapeOf(hlo, w);
  std::vector<cpu::Generator> operands;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(i));
  }
  const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
  return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(s.rows), GridThreads(&b), "row", [&](llvm::Value* r) {
    return cpu::EmitCumulativeRow(k.elemental, hlo, w, operands, outputs, RowMajorIndex(&b, s.others, r));
  });
}

absl::StatusOr<std::vector<KernelLaunch>> ScanLaunches(const HloInstruction* hlo, int64_t* scratch_bytes) {
  std::vector<KernelLaunch> launches;
  const std::optional<cpu::CumulativeWindow> w = cpu::AsCumulativeWindow(*hlo);
  if (!w.has_value() || hlo->operand_count() != 2 || !cpu::ReassociatingReducer(*hlo->to_apply())) return launches;
  const ScanShape s = ShapeOf(hlo, *w);
  // Rows enough to fill the device, or short ones: a thread per row scans them.
  if (s.rows >= kManyScanRows || s.length < kLongScanRow) return launches;
  *scratch_bytes = ShapeUtil::ByteSizeOf(s.totals);
  const int64_t elements = s.rows * s.length;
  launches.push_back({ChunkScans(hlo, s), elements});
  launches.push_back({TotalScans(hlo, s), s.rows});
  launches.push_back({ApplyPrefixes(hlo, s), elements});
  return launches;
}

}  // namespace gpu
}  // namespace xla
