// Random-number ops as gpu kernels: rng-bit-generator (its bits; the compiler computes the new
// state with plain HLO, gpu_compiler.cc) and rng. Both are grid-stride loops over the output's
// elements in which each element is computed on its own from the key, the counter and its
// row-major position, with the interpreter's arithmetic (backends/interpreter/ops_rng*.cc), so
// the values match it bit for bit (rng's transcendentals up to libdevice's last bit on a GPU).
// A thread computes the whole counter block of its element and keeps the word it needs, rather
// than sharing blocks between threads: a few integer rounds more per element, no
// synchronization, and any layout of the output.
//
// rng's key depends on the execution (its seed and how many rng ops ran before): the runtime
// computes it on the host and writes it after the output array (RngKernelKeyOffset,
// gpu_plan.h), where the kernel reads it.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "backends/interpreter/ops_rng_bits.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

// Random123's constants (Salmon et al., SC'11), as ops_rng_bits.cc uses them.
constexpr uint32_t kThreefryParity = 0x1BD11BDAu;
constexpr int kThreefryRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
constexpr uint32_t kPhiloxW32A = 0x9E3779B9u;
constexpr uint32_t kPhiloxW32B = 0xBB67AE85u;
constexpr uint64_t kPhiloxM4x32A = 0xD2511F53u;
constexpr uint64_t kPhiloxM4x32B = 0xCD9E8D57u;

class RngEmitter {
 public:
  explicit RngEmitter(llvm::IRBuilder<>* b) : b_(*b) {}

  llvm::Value* Low32(llvm::Value* v) { return b_.CreateTrunc(v, b_.getInt32Ty()); }
  llvm::Value* High32(llvm::Value* v) { return b_.CreateTrunc(b_.CreateLShr(v, 32), b_.getInt32Ty()); }
  llvm::Value* Join(llvm::Value* low, llvm::Value* high) {
    return b_.CreateOr(b_.CreateZExt(low, b_.getInt64Ty()), b_.CreateShl(b_.CreateZExt(high, b_.getInt64Ty()), 32));
  }
  llvm::Value* RotateLeft(llvm::Value* v, int distance) {
    return b_.CreateOr(b_.CreateShl(v, distance), b_.CreateLShr(v, 32 - distance));
  }

  // Threefry-2x32 with 20 rounds of the 64-bit counter `c` under the 64-bit key.
  std::vector<llvm::Value*> Threefry(llvm::Value* c, llvm::Value* key) {
    llvm::Value* ks[3] = {Low32(key), High32(key), nullptr};
    ks[2] = b_.CreateXor(b_.getInt32(kThreefryParity), b_.CreateXor(ks[0], ks[1]));
    llvm::Value* x0 = b_.CreateAdd(Low32(c), ks[0]);
    llvm::Value* x1 = b_.CreateAdd(High32(c), ks[1]);
    for (int group = 0; group < 5; ++group) {
      for (int r = 0; r < 4; ++r) {
        x0 = b_.CreateAdd(x0, x1);
        x1 = b_.CreateXor(RotateLeft(x1, kThreefryRotations[(group % 2) * 4 + r]), x0);
      }
      const int injection = group + 1;
      x0 = b_.CreateAdd(x0, ks[injection % 3]);
      x1 = b_.CreateAdd(x1, b_.CreateAdd(ks[(injection + 1) % 3], b_.getInt32(injection)));
    }
    return {x0, x1};
  }

  // Philox-4x32 with 10 rounds of the 128-bit counter (low, high) under the 64-bit key.
  std::vector<llvm::Value*> Philox(llvm::Value* low, llvm::Value* high, llvm::Value* key) {
    std::vector<llvm::Value*> x = {Low32(low), High32(low), Low32(high), High32(high)};
    llvm::Value* k0 = Low32(key);
    llvm::Value* k1 = High32(key);
    for (int round = 0; round < 10; ++round) {
      llvm::Value* p0 = b_.CreateMul(b_.CreateZExt(x[0], b_.getInt64Ty()), b_.getInt64(kPhiloxM4x32A));
      llvm::Value* p1 = b_.CreateMul(b_.CreateZExt(x[2], b_.getInt64Ty()), b_.getInt64(kPhiloxM4x32B));
      x = {b_.CreateXor(b_.CreateXor(High32(p1), x[1]), k0), Low32(p1), b_.CreateXor(b_.CreateXor(High32(p0), x[3]), k1),
           Low32(p0)};
      k0 = b_.CreateAdd(k0, b_.getInt32(kPhiloxW32A));
      k1 = b_.CreateAdd(k1, b_.getInt32(kPhiloxW32B));
    }
    return x;
  }

  // Element `i` of the Philox word stream from counter (low, high): a 32-bit word (word i % 4
  // of block i / 4) or, for `bits` 64, words (2w, 2w + 1) of block i / 2 joined, first low.
  llvm::Value* PhiloxElement(llvm::Value* key, llvm::Value* low, llvm::Value* high, llvm::Value* i, int bits) {
    const int per_block = bits == 64 ? 2 : 4;
    llvm::Value* block = b_.CreateUDiv(i, b_.getInt64(per_block));
    llvm::Value* w = b_.CreateURem(i, b_.getInt64(per_block));
    llvm::Value* l = b_.CreateAdd(low, block);
    llvm::Value* h = b_.CreateAdd(high, b_.CreateZExt(b_.CreateICmpULT(l, low), b_.getInt64Ty()));
    const std::vector<llvm::Value*> words = Philox(l, h, key);
    if (per_block == 2) {
      return b_.CreateSelect(b_.CreateICmpEQ(w, b_.getInt64(0)), Join(words[0], words[1]), Join(words[2], words[3]));
    }
    llvm::Value* v = words[3];
    for (int k = 2; k >= 0; --k) v = b_.CreateSelect(b_.CreateICmpEQ(w, b_.getInt64(k)), words[k], v);
    return v;
  }

  // Element `r` (row-major) of rng-bit-generator's Threefry bits over `dims`: for 64 bits the
  // block of counter + r; else the word `which` of the block counter + half, where the
  // elements pair up along the split dimension as interpreter::rng::HalfSplit describes.
  llvm::Value* ThreefryElement(llvm::Value* key, llvm::Value* counter, llvm::Value* r,
                               absl::Span<const int64_t> dims, int bits) {
    if (bits == 64) {
      const std::vector<llvm::Value*> w = Threefry(b_.CreateAdd(counter, r), key);
      return Join(w[0], w[1]);
    }
    llvm::Value* half = nullptr;
    llvm::Value* which = nullptr;
    LocateHalf(dims, r, &half, &which);
    const std::vector<llvm::Value*> w = Threefry(b_.CreateAdd(counter, half), key);
    return b_.CreateSelect(b_.CreateICmpEQ(which, b_.getInt64(0)), w[0], w[1]);
  }

  // interpreter::rng::HalfSplit::Locate in IR: row-major `r` of `dims` -> its half element
  // and which half (0 or 1).
  void LocateHalf(absl::Span<const int64_t> dims, llvm::Value* r, llvm::Value** half, llvm::Value** which) {
    const interpreter::rng::HalfSplit split = interpreter::rng::SplitIntoHalves(dims);
    const int64_t inner = split.inner, extent = split.extent, half_extent = split.half_extent();
    llvm::Value* in = b_.CreateURem(r, b_.getInt64(inner));
    llvm::Value* s = b_.CreateURem(b_.CreateUDiv(r, b_.getInt64(inner)), b_.getInt64(extent));
    llvm::Value* out = b_.CreateUDiv(r, b_.getInt64(inner * extent));
    llvm::Value* pair = b_.CreateAdd(b_.CreateMul(out, b_.getInt64(half_extent)), b_.CreateUDiv(s, b_.getInt64(2)));
    *half = b_.CreateAdd(b_.CreateMul(pair, b_.getInt64(inner)), in);
    *which = b_.CreateURem(s, b_.getInt64(2));
  }

 private:
  llvm::IRBuilder<>& b_;
};

// The row-major position of `index` in an array of `dims`.
llvm::Value* RowMajorLinear(llvm::IRBuilder<>* b, absl::Span<const int64_t> dims, const cpu::IrIndex& index) {
  llvm::Value* r = b->getInt64(0);
  for (size_t d = 0; d < dims.size(); ++d) r = b->CreateAdd(b->CreateMul(r, b->getInt64(dims[d])), index.multi[d]);
  return r;
}

llvm::Value* LoadU64(llvm::IRBuilder<>* b, llvm::Value* base, int64_t i) {
  return b->CreateLoad(b->getInt64Ty(), b->CreateConstInBoundsGEP1_64(b->getInt64Ty(), base, i));
}

// A grid-stride loop over the storage positions of `out`, body(index, row-major position).
template <typename F>
absl::Status ForEachElement(KernelContext& k, const Shape& out, F body) {
  llvm::IRBuilder<>& b = *k.b;
  return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(ShapeUtil::ElementsIn(out)), GridThreads(&b), "i",
                         [&](llvm::Value* i) -> absl::Status {
                           const cpu::IrIndex index = IndexOf(&b, out, i);
                           return body(index, RowMajorLinear(&b, out.dimensions(), index));
                         });
}

RandomAlgorithm BitGeneratorAlgorithm(const HloInstruction& hlo) {
  const RandomAlgorithm algorithm = hlo.attrs().rng_algorithm();
  return algorithm == RNG_DEFAULT ? RNG_PHILOX : algorithm;
}

// rng-bit-generator with an array result (the bits): kernel (bits, state).
absl::Status EmitBitGeneratorBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  const Shape& out = hlo->shape();
  const PrimitiveType type = out.element_type();
  const int bits = primitive_util::BitWidth(type) == 64 ? 64 : 32;
  const int64_t state_size = hlo->operand(0)->shape().dimensions(0);
  llvm::Value* state = k.kernel->getArg(1);
  llvm::Value* key = LoadU64(&b, state, 0);
  llvm::Value* counter = LoadU64(&b, state, 1);
  // Philox's 128-bit counter is (state[1], state[2]); a u64[2] state gives (state[1], state[0]).
  llvm::Value* high = LoadU64(&b, state, state_size == 3 ? 2 : 0);
  const bool threefry = BitGeneratorAlgorithm(*hlo) == RNG_THREE_FRY;
  RngEmitter rng(&b);
  llvm::Type* element = k.elemental->RegisterType(type);
  return ForEachElement(k, out, [&](const cpu::IrIndex& index, llvm::Value* r) -> absl::Status {
    llvm::Value* word = threefry ? rng.ThreefryElement(key, counter, r, out.dimensions(), bits)
                                 : rng.PhiloxElement(key, counter, high, r, bits);
    // Narrower types keep the low bits of the 32-bit word.
    k.elemental->StoreElement(b.CreateTrunc(word, element), k.kernel->getArg(0), out, index);
    return absl::OkStatus();
  });
}

// A call of libm's `name` on values of `t` (libdevice's function on a GPU, libdevice.h).
llvm::Value* CallMath(KernelContext& k, const char* name, llvm::Type* t, llvm::Value* x) {
  const std::string f = t->isFloatTy() ? absl::StrCat(name, "f") : std::string(name);
  llvm::FunctionCallee callee = k.module->getOrInsertFunction(f, llvm::FunctionType::get(t, {t}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory();
  }
  return k.b->CreateCall(callee, {x});
}

// rng: kernel (out, a, b), the key after out's array. The interpreter's scheme
// (ops_rng.cc): Philox words of the key from counter 0, turned into values as XLA's
// RngExpander does; f16 and bf16 computed in f32 and rounded once.
absl::Status EmitRngOpBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& out = hlo->shape();
  const PrimitiveType type = out.element_type();
  llvm::Value* base = k.kernel->getArg(0);
  llvm::Value* key =
      b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, RngKernelKeyOffset(out)));
  llvm::Value* zero = b.getInt64(0);
  RngEmitter rng(&b);
  ASSIGN_OR_RETURN(cpu::Generator a_generator, k.operand(0));
  ASSIGN_OR_RETURN(cpu::Generator b_generator, k.operand(1));
  ASSIGN_OR_RETURN(llvm::Value* a, a_generator(cpu::IrIndex{}));
  ASSIGN_OR_RETURN(llvm::Value* c, b_generator(cpu::IrIndex{}));

  if (primitive_util::IsIntegralType(type)) {
    // a + (bits mod (b - a)) in the unsigned type of the word's width (x mod 0 = x); signed
    // bounds sign-extend, so the sum wraps back into [a, b) when truncated.
    const int bits = primitive_util::BitWidth(type) == 64 ? 64 : 32;
    llvm::Type* word_type = b.getIntNTy(bits);
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    llvm::Value* lo = is_signed ? b.CreateSExtOrTrunc(a, word_type) : b.CreateZExtOrTrunc(a, word_type);
    llvm::Value* hi = is_signed ? b.CreateSExtOrTrunc(c, word_type) : b.CreateZExtOrTrunc(c, word_type);
    llvm::Value* range = b.CreateSub(hi, lo);
    llvm::Value* empty = b.CreateICmpEQ(range, llvm::ConstantInt::get(word_type, 0));
    llvm::Value* divisor = b.CreateSelect(empty, llvm::ConstantInt::get(word_type, 1), range);
    return ForEachElement(k, out, [&](const cpu::IrIndex& index, llvm::Value* r) -> absl::Status {
      llvm::Value* word = b.CreateTrunc(rng.PhiloxElement(key, zero, zero, r, bits), word_type);
      llvm::Value* dist = b.CreateSelect(empty, word, b.CreateURem(word, divisor));
      llvm::Value* half = b.CreateLShr(dist, 1);
      llvm::Value* v = b.CreateAdd(b.CreateAdd(lo, half), b.CreateSub(dist, half));
      e.StoreElement(b.CreateTrunc(v, e.RegisterType(type)), base, out, index);
      return absl::OkStatus();
    });
  }

  const bool wide = type == F64;
  llvm::Type* ft = wide ? b.getDoubleTy() : b.getFloatTy();
  const int bits = wide ? 64 : 32;
  const int mantissa = wide ? 52 : 23;
  if (!wide && type != F32) {
    a = e.WidenToF32(a, type);
    c = e.WidenToF32(c, type);
  }
  auto narrow = [&](llvm::Value* v) { return wide || type == F32 ? v : e.NarrowFromF32(v, type); };
  // [0, 1): the top mantissa-width bits of word i, scaled (exact).
  auto unit = [&](llvm::Value* i) {
    llvm::Value* word = rng.PhiloxElement(key, zero, zero, i, bits);
    llvm::Value* top = b.CreateLShr(b.CreateTrunc(word, b.getIntNTy(bits)), bits - mantissa);
    return b.CreateFMul(b.CreateUIToFP(top, ft), llvm::ConstantFP::get(ft, std::ldexp(1.0, -mantissa)));
  };
  if (hlo->attrs().distribution() == RNG_UNIFORM) {
    llvm::Value* range = b.CreateFSub(c, a);
    return ForEachElement(k, out, [&](const cpu::IrIndex& index, llvm::Value* r) -> absl::Status {
      // Two roundings, as XLA's multiply then add.
      e.StoreElement(narrow(b.CreateFAdd(b.CreateFMul(unit(r), range), a)), base, out, index);
      return absl::OkStatus();
    });
  }
  // Normal: Box-Muller on pairs of uniform values along the split dimension, then mu + sigma z
  // (a is mu, b is sigma).
  const interpreter::rng::HalfSplit split = interpreter::rng::SplitIntoHalves(out.dimensions());
  const int64_t inner = split.inner;
  llvm::Value* floor = llvm::ConstantFP::get(ft, wide ? static_cast<double>(1.0e-7f) : 1.0e-7f);
  llvm::Value* two_pi = llvm::ConstantFP::get(ft, wide ? 2.0 * M_PI : static_cast<float>(2.0 * M_PI));
  llvm::Function* sqrt = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::sqrt, {ft});
  return ForEachElement(k, out, [&](const cpu::IrIndex& index, llvm::Value* r) -> absl::Status {
    llvm::Value* half = nullptr;
    llvm::Value* which = nullptr;
    rng.LocateHalf(out.dimensions(), r, &half, &which);
    llvm::Value* in = b.CreateURem(half, b.getInt64(inner));
    llvm::Value* pair = b.CreateUDiv(half, b.getInt64(inner));
    llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateMul(pair, b.getInt64(2)), b.getInt64(inner)), in);
    llvm::Value* x0 = unit(first);
    llvm::Value* x1 = unit(b.CreateAdd(first, b.getInt64(inner)));
    llvm::Value* u1 = b.CreateSelect(b.CreateFCmpOLT(x0, floor), floor, x0);  // std::max(x0, floor)
    llvm::Value* v1 = b.CreateFMul(two_pi, x1);
    llvm::Value* u2 = b.CreateCall(sqrt, {b.CreateFMul(llvm::ConstantFP::get(ft, -2.0), CallMath(k, "log", ft, u1))});
    llvm::Value* trig = b.CreateSelect(b.CreateICmpEQ(which, b.getInt64(0)), CallMath(k, "sin", ft, v1),
                                       CallMath(k, "cos", ft, v1));
    llvm::Value* z = b.CreateFMul(trig, u2);
    e.StoreElement(narrow(b.CreateFAdd(a, b.CreateFMul(c, z))), base, out, index);
    return absl::OkStatus();
  });
}

// f64 computes in double, every other float type in f32 rounded once (the 8- and 4-bit ones by
// the elemental emitter's inline rounding).
bool IsRngFloat(PrimitiveType type) {
  return primitive_util::IsFloatingPointType(type) && cpu::IsSupportedElementType(type);
}

}  // namespace

bool IsRngKernel(const HloInstruction& hlo) {
  const Shape& out = hlo.shape();
  if (!out.IsArray()) return false;
  const PrimitiveType type = out.element_type();
  if (hlo.opcode() == HloOpcode::kRngBitGenerator) {
    if (hlo.operand_count() != 1) return false;
    const Shape& state = hlo.operand(0)->shape();
    if (!state.IsArray() || state.element_type() != U64 || state.rank() != 1) return false;
    const int64_t size = state.dimensions(0);
    const RandomAlgorithm algorithm = BitGeneratorAlgorithm(hlo);
    const bool state_fits = algorithm == RNG_THREE_FRY ? size == 2 : algorithm == RNG_PHILOX && (size == 2 || size == 3);
    return state_fits && primitive_util::IsIntegralType(type) && cpu::IsSupportedElementType(type);
  }
  if (hlo.opcode() == HloOpcode::kRng) {
    if (hlo.operand_count() != 2) return false;
    for (const HloInstruction* bound : hlo.operands()) {
      if (!bound->shape().IsArray() || bound->shape().rank() != 0 || bound->shape().element_type() != type) return false;
    }
    const RandomDistribution distribution = hlo.attrs().distribution();
    if (distribution == RNG_NORMAL) return IsRngFloat(type);
    return distribution == RNG_UNIFORM && (IsRngFloat(type) || (primitive_util::IsIntegralType(type) &&
                                                                  cpu::IsSupportedElementType(type)));
  }
  return false;
}

absl::Status EmitRngBody(KernelContext& k, const HloInstruction* hlo) {
  if (!IsRngKernel(*hlo)) return absl::InternalError(absl::StrCat("gpu backend: no rng kernel for ", hlo->name()));
  if (hlo->opcode() == HloOpcode::kRngBitGenerator) return EmitBitGeneratorBody(k, hlo);
  return EmitRngOpBody(k, hlo);
}

}  // namespace gpu
}  // namespace xla
