// fft, cholesky and triangular-solve as gpu kernels, computed in double / complex<double> and
// rounded once, as the interpreter computes them (backends/interpreter/ops_linalg_*.cc):
//  - fft over one axis of power-of-two length 2 to kLongestSharedMemoryFft (2048): the fast
//    form, a block per tile of rows running the interpreter's radix-2 decimation in time in
//    shared memory (EmitSharedMemoryFft), O(log n) per element. The gpu compiler turns every
//    other fft into a chain of these and short direct DFTs (gpu_fft_expander.h: one kernel per
//    axis for 2-d and 3-d, the four-step form for longer powers of two, Bluestein's for other
//    lengths over kLongestDirectFft), so after it only axes of one point and short
//    non-power-of-two ones take the direct form.
//  - fft, the direct form: a thread per output element sums its row (IRFFT rebuilding it from
//    the half spectrum by Hermitian symmetry and keeping the real part), O(n) per element,
//    for axes up to kLongestDirectFft (64) and of one point. More axes than one reach the
//    emitter only with nothing to compute (the expander leaves empty ffts alone).
//    Twiddles in both forms are the interpreter's (exact at quarter turns, cos/sin of
//    2*pi*m/n otherwise), computed on the host into a table per length up to
//    kLongestTwiddleTable; longer direct transforms compute them with the device's cos, sin.
//  - cholesky: the column-by-column factorization in the result's memory, a block per matrix
//    (each thread computing the pivot, then its rows of the column, a barrier per column) or,
//    for batches of many small matrices, a thread per matrix (CholeskyBlockPerMatrix); a
//    pivot that is not positive makes the whole factor NaN. Large matrices reach it only in
//    blocks (backends/cpu/passes/blocked_solvers.h). Only f64 and c128: the
//    gpu compiler computes narrower types through them (gpu_expanders.h), as the interpreter
//    computes in double.
//  - triangular-solve: a thread per (matrix, right-hand side) substitutes in the result's
//    memory, reading only the named triangle of a. f64 and c128 too.
// Complex values are (re, im) pairs of doubles here; real types have a zero imaginary part
// that the optimizer folds away.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_fft_expander.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace gpu {
namespace {

// exp(+2*pi*i * m / n) on the host, as the interpreter's twiddle (exact at quarter turns).
std::pair<double, double> HostTwiddle(int64_t m, int64_t n) {
  m %= n;
  if (4 * m % n == 0) {
    static constexpr double kRe[] = {1, 0, -1, 0}, kIm[] = {0, 1, 0, -1};
    return {kRe[4 * m / n], kIm[4 * m / n]};
  }
  const double angle = 2.0 * M_PI * static_cast<double>(m) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

// Lengths whose twiddles kernels read from a table (2n doubles: 64 KiB at most) rather than
// compute with cos and sin.
constexpr int64_t kLongestTwiddleTable = 4096;

struct Cx {
  llvm::Value* re;
  llvm::Value* im;
};

class LinalgEmitter {
 public:
  explicit LinalgEmitter(KernelContext& k) : k_(k), b_(*k.b) {}

  llvm::Value* Real(double v) { return llvm::ConstantFP::get(b_.getDoubleTy(), v); }
  llvm::Value* I64(int64_t v) { return b_.getInt64(v); }

  // Element `multi` of operand `i` (of `shape`), widened to a complex double.
  absl::StatusOr<Cx> Load(int64_t i, const Shape& shape, const std::vector<llvm::Value*>& multi) {
    ASSIGN_OR_RETURN(cpu::Generator g, k_.operand(i));
    cpu::IrIndex index;
    index.multi = multi;
    ASSIGN_OR_RETURN(llvm::Value* v, g(index));
    return Widen(v, shape.element_type());
  }
  // Element `multi` of the result (the kernel's first parameter).
  Cx LoadOut(const Shape& shape, const std::vector<llvm::Value*>& multi) {
    cpu::IrIndex index;
    index.multi = multi;
    return Widen(k_.elemental->LoadElement(k_.kernel->getArg(0), shape, index), shape.element_type());
  }
  void Store(Cx v, const Shape& shape, const std::vector<llvm::Value*>& multi) {
    cpu::IrIndex index;
    index.multi = multi;
    k_.elemental->StoreElement(Narrow(v, shape.element_type()), k_.kernel->getArg(0), shape, index);
  }

  Cx Widen(llvm::Value* v, PrimitiveType type) {
    cpu::ElementalEmitter& e = *k_.elemental;
    if (primitive_util::IsComplexType(type)) {
      auto [re, im] = e.ComplexParts(v, type);
      if (type == C64) return {b_.CreateFPExt(re, b_.getDoubleTy()), b_.CreateFPExt(im, b_.getDoubleTy())};
      return {re, im};
    }
    if (type == F64) return {v, Real(0)};
    if (type == F32) return {b_.CreateFPExt(v, b_.getDoubleTy()), Real(0)};
    return {b_.CreateFPExt(e.WidenToF32(v, type), b_.getDoubleTy()), Real(0)};
  }
  llvm::Value* Narrow(Cx v, PrimitiveType type) {
    cpu::ElementalEmitter& e = *k_.elemental;
    if (type == C128) return e.MakeComplex(v.re, v.im, type);
    if (type == C64) {
      return e.MakeComplex(b_.CreateFPTrunc(v.re, b_.getFloatTy()), b_.CreateFPTrunc(v.im, b_.getFloatTy()), type);
    }
    if (type == F64) return v.re;
    if (type == F32) return b_.CreateFPTrunc(v.re, b_.getFloatTy());
    return e.NarrowFromF64(v.re, type);
  }

  Cx Add(Cx a, Cx c) { return {b_.CreateFAdd(a.re, c.re), b_.CreateFAdd(a.im, c.im)}; }
  Cx Sub(Cx a, Cx c) { return {b_.CreateFSub(a.re, c.re), b_.CreateFSub(a.im, c.im)}; }
  Cx Conj(Cx a) { return {a.re, b_.CreateFNeg(a.im)}; }
  // (a + bi)(c + di) = (ac - bd) + (ad + bc)i, as std::complex computes finite products.
  Cx Mul(Cx a, Cx c) {
    return {b_.CreateFSub(b_.CreateFMul(a.re, c.re), b_.CreateFMul(a.im, c.im)),
            b_.CreateFAdd(b_.CreateFMul(a.re, c.im), b_.CreateFMul(a.im, c.re))};
  }
  Cx Scale(Cx a, llvm::Value* s) { return {b_.CreateFMul(a.re, s), b_.CreateFMul(a.im, s)}; }
  Cx DivReal(Cx a, llvm::Value* s) { return {b_.CreateFDiv(a.re, s), b_.CreateFDiv(a.im, s)}; }
  // a / c as std::complex<double> divides (the emitter's inline complex division, C99 Annex G
  // with libgcc's scaling); a real c divides each part, giving IEEE inf/NaN for a zero pivot.
  Cx Div(Cx a, Cx c, bool complex) {
    if (!complex) return {b_.CreateFDiv(a.re, c.re), Real(0)};
    cpu::ElementalEmitter& e = *k_.elemental;
    llvm::Value* q = e.EmitInlineComplexOp(HloOpcode::kDivide, e.MakeComplex(a.re, a.im, C128),
                                           e.MakeComplex(c.re, c.im, C128), C128);
    auto [re, im] = e.ComplexParts(q, C128);
    return {re, im};
  }

  // A complex double kept in memory across loop iterations.
  struct Slot {
    llvm::AllocaInst* re;
    llvm::AllocaInst* im;
  };
  Slot NewSlot() {
    llvm::IRBuilder<> entry(&k_.kernel->getEntryBlock(), k_.kernel->getEntryBlock().begin());
    return {entry.CreateAlloca(b_.getDoubleTy()), entry.CreateAlloca(b_.getDoubleTy())};
  }
  Cx Read(const Slot& s) { return {b_.CreateLoad(b_.getDoubleTy(), s.re), b_.CreateLoad(b_.getDoubleTy(), s.im)}; }
  void Write(const Slot& s, Cx v) {
    b_.CreateStore(v.re, s.re);
    b_.CreateStore(v.im, s.im);
  }

  // exp(sign * 2*pi*i * m / n) for 0 <= m < n: exact at quarter turns, as the interpreter's.
  // Up to kLongestTwiddleTable, read from a table the host computed as the interpreter does
  // (the same values, no cos and sin on the device).
  Cx Twiddle(llvm::Value* m, int64_t n, int sign) {
    if (n <= kLongestTwiddleTable) return TableTwiddle(m, n, sign);
    llvm::Value* four_m = b_.CreateMul(m, I64(4));
    llvm::Value* exact = b_.CreateICmpEQ(b_.CreateURem(four_m, I64(n)), I64(0));
    llvm::Value* quarter = b_.CreateUDiv(four_m, I64(n));
    llvm::Value* angle =
        b_.CreateFDiv(b_.CreateFMul(Real(2.0 * M_PI), b_.CreateUIToFP(m, b_.getDoubleTy())), Real(static_cast<double>(n)));
    llvm::Value* c = b_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, angle);
    llvm::Value* s = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, angle);
    if (sign < 0) s = b_.CreateFNeg(s);
    auto is = [&](int64_t q) { return b_.CreateICmpEQ(quarter, I64(q)); };
    llvm::Value* exact_re = b_.CreateSelect(is(0), Real(1), b_.CreateSelect(is(2), Real(-1), Real(0)));
    llvm::Value* exact_im = b_.CreateSelect(is(1), Real(sign), b_.CreateSelect(is(3), Real(-sign), Real(0)));
    return {b_.CreateSelect(exact, exact_re, c), b_.CreateSelect(exact, exact_im, s)};
  }

  // Twiddle from the module's table for length n (re for every m < n, then im; sign +1),
  // made by the first kernel that needs it.
  Cx TableTwiddle(llvm::Value* m, int64_t n, int sign) {
    auto* type = llvm::ArrayType::get(b_.getDoubleTy(), 2 * n);
    const std::string name = absl::StrCat("fft.twiddles.", n);
    llvm::GlobalVariable* table = k_.module->getNamedGlobal(name);
    if (table == nullptr) {
      std::vector<double> values(2 * n);
      for (int64_t i = 0; i < n; ++i) std::tie(values[i], values[n + i]) = HostTwiddle(i, n);
      table = new llvm::GlobalVariable(*k_.module, type, true, llvm::GlobalValue::InternalLinkage,
                                       llvm::ConstantDataArray::get(b_.getContext(), values), name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, 1);
      table->setAlignment(llvm::Align(8));
    }
    llvm::Value* re = b_.CreateLoad(b_.getDoubleTy(), b_.CreateInBoundsGEP(type, table, {I64(0), m}));
    llvm::Value* im = b_.CreateLoad(b_.getDoubleTy(), b_.CreateInBoundsGEP(type, table, {I64(0), b_.CreateAdd(m, I64(n))}));
    // 0 - s rather than -s: the interpreter's exact twiddles have +0 imaginary parts.
    return {re, sign < 0 ? b_.CreateFSub(Real(0), im) : im};
  }

  template <typename F>
  absl::Status For(llvm::Value* start, llvm::Value* limit, const char* name, F body) {
    return EmitStridedLoop(&b_, start, limit, I64(1), name, body);
  }
  template <typename F>
  absl::Status For(int64_t limit, const char* name, F body) {
    return For(I64(0), I64(limit), name, body);
  }
  // A grid-stride loop over `count` items, one per thread.
  template <typename F>
  absl::Status ForEachThread(int64_t count, F body) {
    return EmitStridedLoop(&b_, GlobalThread(&b_), I64(count), GridThreads(&b_), "item", body);
  }

  llvm::IRBuilder<>& b() { return b_; }

 private:
  KernelContext& k_;
  llvm::IRBuilder<>& b_;
};

bool IsFftType(PrimitiveType t) { return t == F32 || t == F64 || t == C64 || t == C128; }

// The shapes fft_length and fft_type imply, as the interpreter checks them.
absl::Status CheckFftShapes(const HloInstruction* hlo) {
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  const FftType type = hlo->attrs().fft_type();
  const bool complex_in = primitive_util::IsComplexType(in.element_type());
  const bool complex_out = primitive_util::IsComplexType(out.element_type());
  const bool types_ok = type == FFT || type == IFFT ? complex_in && complex_out
                        : type == RFFT              ? !complex_in && complex_out
                        : type == IRFFT             ? complex_in && !complex_out
                                                    : false;
  const int64_t rank = in.rank();
  const int64_t fft_rank = hlo->attrs().fft_length_size();
  std::vector<int64_t> full(in.dimensions().begin(), in.dimensions().end());
  bool lengths_ok = out.rank() == rank;
  for (int64_t i = 0; i < fft_rank; ++i) {
    lengths_ok &= hlo->attrs().fft_length(i) >= 0;
    full[rank - fft_rank + i] = hlo->attrs().fft_length(i);
  }
  std::vector<int64_t> half = full;
  half[rank - 1] = full[rank - 1] / 2 + 1;
  const std::vector<int64_t>& want_in = type == IRFFT ? half : full;
  const std::vector<int64_t>& want_out = type == RFFT ? half : full;
  if (!types_ok || !lengths_ok || in.dimensions() != absl::MakeConstSpan(want_in) ||
      out.dimensions() != absl::MakeConstSpan(want_out)) {
    return absl::InvalidArgumentError(absl::StrCat("fft ", hlo->name(), ": ", in.ToString(), " -> ", out.ToString(),
                                                   " does not match fft_type ", FftType_Name(type), " and fft_length"));
  }
  return absl::OkStatus();
}

bool IsSharedMemoryFft(const HloInstruction* hlo) {
  if (hlo->attrs().fft_length_size() != 1) return false;
  const int64_t n = hlo->attrs().fft_length(0);
  return n >= 2 && n <= kLongestSharedMemoryFft && (n & (n - 1)) == 0;
}

// A 1-d fft of power-of-two length n <= kLongestSharedMemoryFft: the interpreter's radix-2
// decimation in time, a block per tile of rows. The threads load the tile's rows into shared
// memory in bit-reversed order (IRFFT rebuilding the full row from the half spectrum), run
// the log2(n) butterfly stages with a barrier after each, and store (RFFT the half
// spectrum, IRFFT the real part); a block takes as many rows as fill kLongestSharedMemoryFft
// elements, so short rows keep every thread busy. The twiddles are a constant table computed
// on the host as the interpreter computes them, so only the order of rounding can differ.
absl::Status EmitSharedMemoryFft(KernelContext& k, const HloInstruction* hlo) {
  LinalgEmitter e(k);
  llvm::IRBuilder<>& b = e.b();
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  const FftType type = hlo->attrs().fft_type();
  const int64_t n = hlo->attrs().fft_length(0);
  int64_t log2n = 0;
  while ((int64_t{1} << log2n) < n) ++log2n;
  const std::vector<int64_t> batch_dims(out.dimensions().begin(), out.dimensions().end() - 1);
  int64_t rows = 1;
  for (int64_t d : batch_dims) rows *= d;
  if (rows == 0) return absl::OkStatus();  // never launched
  const int64_t per_tile = std::min(kLongestSharedMemoryFft / n, rows);
  const int64_t tile = per_tile * n;
  const int64_t tiles = (rows + per_tile - 1) / per_tile;
  const int64_t half = n / 2 + 1;
  const int64_t out_length = type == RFFT ? half : n;

  // The tile: real parts, then imaginary parts.
  auto* tile_type = llvm::ArrayType::get(b.getDoubleTy(), 2 * tile);
  auto* shared = new llvm::GlobalVariable(*k.module, tile_type, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(tile_type), k.kernel->getName() + ".fft", nullptr,
                                          llvm::GlobalValue::NotThreadLocal, 3);
  shared->setAlignment(llvm::Align(8));
  auto re_at = [&](llvm::Value* i) { return b.CreateInBoundsGEP(tile_type, shared, {e.I64(0), i}); };
  auto im_at = [&](llvm::Value* i) { return b.CreateInBoundsGEP(tile_type, shared, {e.I64(0), b.CreateAdd(i, e.I64(tile))}); };
  auto read = [&](llvm::Value* i) -> Cx {
    return {b.CreateLoad(b.getDoubleTy(), re_at(i)), b.CreateLoad(b.getDoubleTy(), im_at(i))};
  };
  auto write = [&](llvm::Value* i, Cx v) {
    b.CreateStore(v.re, re_at(i));
    b.CreateStore(v.im, im_at(i));
  };
  const int sign = type == FFT || type == RFFT ? -1 : 1;
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = e.I64(kGpuThreadsPerBlock);
  const bool complex_in = primitive_util::IsComplexType(in.element_type());
  // The multi-index of element j of row `row` (row-major over the batch dimensions).
  auto at = [&](llvm::Value* row, llvm::Value* j) {
    std::vector<llvm::Value*> multi = RowMajorIndex(&b, batch_dims, row);
    multi.push_back(j);
    return multi;
  };
  return EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), e.I64(tiles),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "tile", [&](llvm::Value* t) -> absl::Status {
        llvm::Value* first_row = b.CreateMul(t, e.I64(per_tile));
        RETURN_IF_ERROR(EmitStridedLoop(&b, tid, e.I64(tile), threads, "load", [&](llvm::Value* i) -> absl::Status {
          llvm::Value* local = b.CreateLShr(i, e.I64(log2n));
          llvm::Value* j = b.CreateAnd(i, e.I64(n - 1));
          llvm::Value* row = b.CreateAdd(first_row, local);
          // Rows past the last (in the last tile) read the last row and are never stored.
          llvm::Value* exists = b.CreateICmpULT(row, e.I64(rows));
          row = b.CreateSelect(exists, row, e.I64(rows - 1));
          Cx x;
          if (type == IRFFT) {
            // X[j] for j < n/2 + 1, else conj(X[n - j]).
            llvm::Value* stored = b.CreateICmpULT(j, e.I64(half));
            ASSIGN_OR_RETURN(x, e.Load(0, in, at(row, b.CreateSelect(stored, j, b.CreateSub(e.I64(n), j)))));
            x.im = b.CreateSelect(stored, x.im, b.CreateFNeg(x.im));
          } else {
            ASSIGN_OR_RETURN(x, e.Load(0, in, at(row, j)));
            if (!complex_in) x.im = e.Real(0);
          }
          llvm::Value* reversed = b.CreateLShr(b.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, j), e.I64(64 - log2n));
          write(b.CreateAdd(b.CreateShl(local, e.I64(log2n)), reversed), x);
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);
        // Stage s combines pairs `span` = 2^(s-1) apart with twiddle (k * n / 2^s) for the
        // pair's position k in its group.
        RETURN_IF_ERROR(e.For(e.I64(1), e.I64(log2n + 1), "stage", [&](llvm::Value* s) -> absl::Status {
          llvm::Value* s_less = b.CreateSub(s, e.I64(1));
          llvm::Value* span = b.CreateShl(e.I64(1), s_less);
          RETURN_IF_ERROR(EmitStridedLoop(&b, tid, e.I64(tile / 2), threads, "pair", [&](llvm::Value* q) -> absl::Status {
            llvm::Value* local = b.CreateLShr(q, e.I64(log2n - 1));
            llvm::Value* p = b.CreateAnd(q, e.I64(n / 2 - 1));
            llvm::Value* kk = b.CreateAnd(p, b.CreateSub(span, e.I64(1)));
            llvm::Value* group = b.CreateLShr(p, s_less);
            llvm::Value* i0 = b.CreateAdd(b.CreateShl(local, e.I64(log2n)), b.CreateAdd(b.CreateShl(group, s), kk));
            llvm::Value* i1 = b.CreateAdd(i0, span);
            Cx w = e.TableTwiddle(b.CreateShl(kk, b.CreateSub(e.I64(log2n), s)), n, sign);
            Cx x0 = read(i0);
            Cx x1 = e.Mul(read(i1), w);
            write(i0, e.Add(x0, x1));
            write(i1, e.Sub(x0, x1));
            return absl::OkStatus();
          }));
          b.CreateCall(barrier);
          return absl::OkStatus();
        }));
        RETURN_IF_ERROR(
            EmitStridedLoop(&b, tid, e.I64(per_tile * out_length), threads, "store", [&](llvm::Value* i) -> absl::Status {
              llvm::Value* local = b.CreateUDiv(i, e.I64(out_length));
              llvm::Value* j = b.CreateURem(i, e.I64(out_length));
              llvm::Value* row = b.CreateAdd(first_row, local);
              return EmitIf(&b, b.CreateICmpULT(row, e.I64(rows)), "exists", [&]() -> absl::Status {
                Cx x = read(b.CreateAdd(b.CreateShl(local, e.I64(log2n)), j));
                // As the interpreter: IFFT multiplies by 1/n, IRFFT divides the real part by n.
                if (type == IFFT) x = e.Scale(x, e.Real(1.0 / static_cast<double>(n)));
                if (type == IRFFT) x = {b.CreateFDiv(x.re, e.Real(static_cast<double>(n))), e.Real(0)};
                e.Store(x, out, at(row, j));
                return absl::OkStatus();
              });
            }));
        b.CreateCall(barrier);  // the tile is read before the next one is loaded
        return absl::OkStatus();
      });
}

// The direct form of a 1-d fft: a thread per output element sums its row in the
// interpreter's order (x[j] w^(j k mod n) for j = 0, 1, ...), IRFFT rebuilding the row from
// the half spectrum; IFFT multiplies by 1/n and IRFFT divides by n, as the interpreter.
absl::Status EmitDirectFft(KernelContext& k, const HloInstruction* hlo) {
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  if (ShapeUtil::ElementsIn(out) == 0) return absl::OkStatus();  // never launched
  if (hlo->attrs().fft_length_size() != 1) {
    return absl::InternalError(absl::StrCat("gpu backend: fft ", hlo->name(), " over ", hlo->attrs().fft_length_size(),
                                            " axes reached the kernel emitter; the gpu compiler makes it one "
                                            "kernel per axis first (gpu_fft_expander.h)"));
  }
  LinalgEmitter e(k);
  llvm::IRBuilder<>& b = e.b();
  const FftType type = hlo->attrs().fft_type();
  const int64_t n = hlo->attrs().fft_length(0);
  const int64_t half = n / 2 + 1;
  const int sign = type == FFT || type == RFFT ? -1 : 1;
  const bool complex_in = primitive_util::IsComplexType(in.element_type());
  LinalgEmitter::Slot sum = e.NewSlot();
  return e.ForEachThread(ShapeUtil::ElementsIn(out), [&](llvm::Value* i) -> absl::Status {
    const std::vector<llvm::Value*> at = RowMajorIndex(&b, out.dimensions(), i);
    std::vector<llvm::Value*> from = at;
    e.Write(sum, {e.Real(0), e.Real(0)});
    if (n > 0) {  // RFFT of no points has one zero output
      RETURN_IF_ERROR(e.For(n, "dft", [&](llvm::Value* j) -> absl::Status {
        Cx x;
        if (type == IRFFT) {
          // X[j] for j < n/2 + 1, else conj(X[n - j]).
          llvm::Value* stored = b.CreateICmpULT(j, e.I64(half));
          from.back() = b.CreateSelect(stored, j, b.CreateSub(e.I64(n), j));
          ASSIGN_OR_RETURN(x, e.Load(0, in, from));
          x.im = b.CreateSelect(stored, x.im, b.CreateFNeg(x.im));
        } else {
          from.back() = j;
          ASSIGN_OR_RETURN(x, e.Load(0, in, from));
          if (!complex_in) x.im = e.Real(0);
        }
        // w^(j k) with the product reduced mod n first (exact for every length here).
        llvm::Value* m = b.CreateURem(b.CreateMul(j, at.back()), e.I64(n));
        e.Write(sum, e.Add(e.Read(sum), e.Mul(x, e.Twiddle(m, n, sign))));
        return absl::OkStatus();
      }));
    }
    Cx result = e.Read(sum);
    if (type == IFFT) result = e.Scale(result, e.Real(1.0 / static_cast<double>(n)));
    if (type == IRFFT) result = {b.CreateFDiv(result.re, e.Real(static_cast<double>(n))), e.Real(0)};
    e.Store(result, out, at);
    return absl::OkStatus();
  });
}

absl::Status EmitFft(KernelContext& k, const HloInstruction* hlo) {
  RETURN_IF_ERROR(CheckFftShapes(hlo));
  return IsSharedMemoryFft(hlo) ? EmitSharedMemoryFft(k, hlo) : EmitDirectFft(k, hlo);
}

// The batch (leading) dimensions of a [..., r, c] shape, and their element count.
std::vector<int64_t> BatchDims(const Shape& s) {
  return std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end() - 2);
}

// Whether a cholesky of `matrices` matrices of order n gives each matrix a block (its threads
// taking the rows below each pivot, a barrier per column: about n^2 dependent steps per
// thread) rather than a thread (n^3 / 3). The device holds about 270k threads but only about
// 1k blocks at once, so a thread per matrix wins only for batches over ~350 n matrices.
bool CholeskyBlockPerMatrix(int64_t matrices, int64_t n) { return n >= 16 && matrices <= 350 * n; }

absl::Status EmitCholesky(KernelContext& k, const HloInstruction* hlo) {
  LinalgEmitter e(k);
  llvm::IRBuilder<>& b = e.b();
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  const int64_t rank = out.rank();
  const int64_t n = out.dimensions(rank - 1);
  const bool lower = hlo->attrs().cholesky_options().lower();
  const bool complex = primitive_util::IsComplexType(out.element_type());
  const std::vector<int64_t> batch_dims = BatchDims(out);
  const int64_t matrices = ShapeUtil::Product(batch_dims);
  const bool per_block = CholeskyBlockPerMatrix(matrices, n);
  llvm::AllocaInst* ok = nullptr;
  {
    llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
    ok = entry.CreateAlloca(b.getInt1Ty());
  }
  LinalgEmitter::Slot acc = e.NewSlot();
  llvm::Function* barrier =
      per_block ? llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0) : nullptr;
  llvm::Value* tid = per_block ? ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x) : nullptr;
  llvm::Value* threads = e.I64(kGpuThreadsPerBlock);
  auto body = [&](llvm::Value* batch) -> absl::Status {
    const std::vector<llvm::Value*> base = RowMajorIndex(&b, batch_dims, batch);
    auto at = [&](llvm::Value* r, llvm::Value* c) {
      std::vector<llvm::Value*> m = base;
      m.push_back(r);
      m.push_back(c);
      return m;
    };
    // The Hermitian matrix's lower triangle, read from the named triangle of the operand.
    auto a = [&](llvm::Value* i, llvm::Value* j) -> absl::StatusOr<Cx> {
      if (lower) return e.Load(0, in, at(i, j));
      ASSIGN_OR_RETURN(Cx v, e.Load(0, in, at(j, i)));
      return e.Conj(v);
    };
    // The lower factor L lives in the result: at (i, j) for lower, conjugated at (j, i) for upper.
    auto get = [&](llvm::Value* i, llvm::Value* j) {
      return lower ? e.LoadOut(out, at(i, j)) : e.Conj(e.LoadOut(out, at(j, i)));
    };
    auto set = [&](llvm::Value* i, llvm::Value* j, Cx v) {
      if (lower) e.Store(v, out, at(i, j));
      else e.Store(e.Conj(v), out, at(j, i));
    };
    b.CreateStore(b.getTrue(), ok);
    RETURN_IF_ERROR(e.For(n, "col", [&](llvm::Value* j) -> absl::Status {
      // Every thread of a block computes the pivot from row j of L (finished before the
      // last barrier), in the same order, so they agree on it and on `ok`.
      ASSIGN_OR_RETURN(Cx ajj, a(j, j));
      b.CreateStore(ajj.re, acc.re);
      RETURN_IF_ERROR(e.For(e.I64(0), j, "dot", [&](llvm::Value* q) -> absl::Status {
        Cx l = get(j, q);
        llvm::Value* norm = b.CreateFAdd(b.CreateFMul(l.re, l.re), b.CreateFMul(l.im, l.im));
        b.CreateStore(b.CreateFSub(b.CreateLoad(b.getDoubleTy(), acc.re), norm), acc.re);
        return absl::OkStatus();
      }));
      llvm::Value* d = b.CreateLoad(b.getDoubleTy(), acc.re);
      // !(d > 0): NaN or not positive; the loop goes on (on NaNs) and the factor is NaN after.
      b.CreateStore(b.CreateAnd(b.CreateLoad(b.getInt1Ty(), ok), b.CreateFCmpOGT(d, e.Real(0))), ok);
      llvm::Value* pivot = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, d);
      // The diagonal is real (stored as is for upper too: no -0 imaginary part); nothing
      // reads it before the fill.
      auto store_pivot = [&]() -> absl::Status {
        e.Store({pivot, e.Real(0)}, out, at(j, j));
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(per_block ? EmitIf(&b, b.CreateICmpEQ(tid, e.I64(0)), "pivot", store_pivot) : store_pivot());
      auto row = [&](llvm::Value* i) -> absl::Status {
        ASSIGN_OR_RETURN(Cx aij, a(i, j));
        e.Write(acc, aij);
        RETURN_IF_ERROR(e.For(e.I64(0), j, "dot", [&](llvm::Value* q) -> absl::Status {
          e.Write(acc, e.Sub(e.Read(acc), e.Mul(get(i, q), e.Conj(get(j, q)))));
          return absl::OkStatus();
        }));
        set(i, j, e.DivReal(e.Read(acc), pivot));
        return absl::OkStatus();
      };
      llvm::Value* next = b.CreateAdd(j, e.I64(1));
      if (!per_block) return e.For(next, e.I64(n), "row", row);
      RETURN_IF_ERROR(EmitStridedLoop(&b, b.CreateAdd(next, tid), e.I64(n), threads, "row", row));
      b.CreateCall(barrier);  // column j is written before any thread reads it
      return absl::OkStatus();
    }));
    // Zeros in the other triangle, or NaN everywhere when a pivot was not positive.
    llvm::Value* failed = b.CreateNot(b.CreateLoad(b.getInt1Ty(), ok));
    const double nan = std::nan("");
    auto fill = [&](llvm::Value* r, llvm::Value* c) {
      llvm::Value* other = lower ? b.CreateICmpUGT(c, r) : b.CreateICmpULT(c, r);
      Cx kept = e.LoadOut(out, at(r, c));
      llvm::Value* re = b.CreateSelect(failed, e.Real(nan), b.CreateSelect(other, e.Real(0), kept.re));
      llvm::Value* im = b.CreateSelect(failed, e.Real(complex ? nan : 0), b.CreateSelect(other, e.Real(0), kept.im));
      e.Store({re, im}, out, at(r, c));
      return absl::OkStatus();
    };
    if (per_block) {
      return EmitStridedLoop(&b, tid, e.I64(n * n), threads, "fill", [&](llvm::Value* x) -> absl::Status {
        return fill(b.CreateUDiv(x, e.I64(n)), b.CreateURem(x, e.I64(n)));
      });
    }
    return e.For(n, "fill_r", [&](llvm::Value* r) -> absl::Status {
      return e.For(n, "fill_c", [&](llvm::Value* c) -> absl::Status { return fill(r, c); });
    });
  };
  if (!per_block) return e.ForEachThread(matrices, body);
  // A block per matrix (blocks striding over them); the threads take the rows.
  return EmitStridedLoop(&b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), e.I64(matrices),
                         ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "matrix", body);
}

absl::Status EmitTriangularSolve(KernelContext& k, const HloInstruction* hlo) {
  LinalgEmitter e(k);
  llvm::IRBuilder<>& b = e.b();
  const Shape& a_shape = hlo->operand(0)->shape();
  const Shape& b_shape = hlo->operand(1)->shape();
  const Shape& out = hlo->shape();
  const int64_t rank = out.rank();
  const TriangularSolveOptions& o = hlo->attrs().triangular_solve_options();
  const bool left = o.left_side();
  const bool unit = o.unit_diagonal();
  const bool transpose = o.transpose_a() == TriangularSolveOptions::TRANSPOSE ||
                         o.transpose_a() == TriangularSolveOptions::ADJOINT;
  const bool conjugate = o.transpose_a() == TriangularSolveOptions::ADJOINT;
  const bool complex = primitive_util::IsComplexType(out.element_type());
  const int64_t rows = out.dimensions(rank - 2), cols = out.dimensions(rank - 1);
  const int64_t m = a_shape.dimensions(rank - 1);
  const int64_t rhs = left ? cols : rows;  // independent right-hand sides
  // The system is t x = b (left) or x t = b, with t = op(triangle of a); coef(i, j) is the
  // coefficient of x_j in equation i, and equations are solved forward when `forward`.
  bool forward = o.lower() != transpose;
  if (!left) forward = !forward;
  const std::vector<int64_t> batch_dims = BatchDims(out);
  LinalgEmitter::Slot acc = e.NewSlot();
  return e.ForEachThread(ShapeUtil::Product(batch_dims) * rhs, [&](llvm::Value* item) -> absl::Status {
    llvm::Value* c = b.CreateURem(item, e.I64(std::max<int64_t>(rhs, 1)));
    const std::vector<llvm::Value*> base = RowMajorIndex(&b, batch_dims, b.CreateUDiv(item, e.I64(std::max<int64_t>(rhs, 1))));
    auto at = [&](llvm::Value* r, llvm::Value* col) {
      std::vector<llvm::Value*> v = base;
      v.push_back(r);
      v.push_back(col);
      return v;
    };
    // x_i of this right-hand side, where b and the result hold it.
    auto x_at = [&](llvm::Value* i) { return left ? at(i, c) : at(c, i); };
    // v(i, j): a's named triangle, ones on the diagonal when unit_diagonal, conjugated for
    // ADJOINT; the other triangle is never read (a select, so a NaN there does not leak).
    auto v = [&](llvm::Value* i, llvm::Value* j) -> absl::StatusOr<Cx> {
      ASSIGN_OR_RETURN(Cx x, e.Load(0, a_shape, at(i, j)));
      llvm::Value* in_triangle = o.lower() ? b.CreateICmpULE(j, i) : b.CreateICmpUGE(j, i);
      Cx value{b.CreateSelect(in_triangle, x.re, e.Real(0)), b.CreateSelect(in_triangle, x.im, e.Real(0))};
      if (unit) {
        llvm::Value* diagonal = b.CreateICmpEQ(i, j);
        value = {b.CreateSelect(diagonal, e.Real(1), value.re), b.CreateSelect(diagonal, e.Real(0), value.im)};
      }
      return conjugate ? e.Conj(value) : value;
    };
    auto t = [&](llvm::Value* r, llvm::Value* s) { return transpose ? v(s, r) : v(r, s); };
    auto coef = [&](llvm::Value* i, llvm::Value* j) { return left ? t(i, j) : t(j, i); };
    // The result starts as b.
    RETURN_IF_ERROR(e.For(m, "copy", [&](llvm::Value* i) -> absl::Status {
      ASSIGN_OR_RETURN(Cx bi, e.Load(1, b_shape, x_at(i)));
      e.Store(bi, out, x_at(i));
      return absl::OkStatus();
    }));
    return e.For(m, "step", [&](llvm::Value* step) -> absl::Status {
      llvm::Value* i = forward ? step : b.CreateSub(e.I64(m - 1), step);
      e.Write(acc, e.LoadOut(out, x_at(i)));
      llvm::Value* from = forward ? e.I64(0) : b.CreateAdd(i, e.I64(1));
      llvm::Value* to = forward ? i : e.I64(m);
      RETURN_IF_ERROR(e.For(from, to, "sub", [&](llvm::Value* j) -> absl::Status {
        ASSIGN_OR_RETURN(Cx cij, coef(i, j));
        e.Write(acc, e.Sub(e.Read(acc), e.Mul(cij, e.LoadOut(out, x_at(j)))));
        return absl::OkStatus();
      }));
      Cx s = e.Read(acc);
      if (!unit) {
        ASSIGN_OR_RETURN(Cx cii, coef(i, i));
        s = e.Div(s, cii, complex);
      }
      e.Store(s, out, x_at(i));
      return absl::OkStatus();
    });
  });
}

}  // namespace

bool IsLinalgKernel(const HloInstruction& hlo) {
  const Shape& out = hlo.shape();
  if (!out.IsArray() || hlo.operand_count() < 1 || !hlo.operand(0)->shape().IsArray()) return false;
  switch (hlo.opcode()) {
    case HloOpcode::kFft: {
      const int64_t fft_rank = hlo.attrs().fft_length_size();
      return IsFftType(out.element_type()) && IsFftType(hlo.operand(0)->shape().element_type()) && fft_rank >= 1 &&
             fft_rank <= 3 && fft_rank <= out.rank();
    }
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
      // Narrower types are computed through these (gpu_expanders.h).
      return (out.element_type() == F64 || out.element_type() == C128) && out.rank() >= 2 &&
             hlo.operand(0)->shape().element_type() == out.element_type();
    default:
      return false;
  }
}

absl::Status EmitLinalgBody(KernelContext& k, const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kFft:
      return EmitFft(k, hlo);
    case HloOpcode::kCholesky:
      return EmitCholesky(k, hlo);
    case HloOpcode::kTriangularSolve:
      return EmitTriangularSolve(k, hlo);
    default:
      return absl::InternalError(absl::StrCat("gpu backend: no linalg kernel for ", hlo->name()));
  }
}

}  // namespace gpu
}  // namespace xla
