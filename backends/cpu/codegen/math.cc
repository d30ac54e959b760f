// Branch-free f32 approximations emitted inline, so loops over them vectorize (no scalar
// libm calls in hot loops). Error bounds, measured against the f64 libm result over many
// inputs by cpu_math_test.cc:
//   exp:      range reduction x = n ln2 + r (|r| <= ln2/2, ln2 split in two parts), degree-6
//             polynomial for e^r (NVPTX: ex2.approx of r log2 e), scaling by 2^n in two steps
//             (reaches subnormals): <= 2 ulp.
//   log:      x = m 2^e with m in [sqrt(1/2), sqrt(2)), degree-9 polynomial in m-1 (the classic
//             Cephes logf form): <= 2 ulp; log(0) = -inf, log(x<0) = NaN, log(inf) = inf.
//   tanh:     odd Taylor polynomial through x^19 for |x| < 0.625, 1 - 2/(e^{2|x|}+1) above,
//             +-1 past 9.1: <= 4 ulp. For NVPTX the large branch takes e^{2|x|} from the
//             device's ex2.approx (2 ulp) and the quotient from rcp.approx refined by one
//             Newton step, in a tenth of the instructions of the polynomial exp and an IEEE
//             division; its error, 2/(e+1) times e's, stays within about 4 ulp of tanh there
//             too (checked on the device: tests/gpu/device_check.sh, float_ops_f32).
//   logistic: 1 / (1 + e^{-x}) with the exp above: <= 4 ulp (as the interpreter's formula,
//             it rounds to 0 below about -88.7).
#include <cmath>

#include "backends/cpu/codegen/ir_emitter.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace xla {
namespace cpu {
namespace {

llvm::Value* F(llvm::IRBuilder<>* b, double v) { return llvm::ConstantFP::get(b->getFloatTy(), v); }

llvm::Value* Horner(llvm::IRBuilder<>* b, llvm::Value* x, std::initializer_list<double> coefficients) {
  llvm::Value* acc = nullptr;
  for (double c : coefficients) {
    // fmuladd: one FMA where the target has it (more accurate, and half the instructions).
    acc = acc == nullptr ? F(b, c)
                         : b->CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {acc, x, F(b, c)});
  }
  return acc;
}

// 2^n for integer-valued n in [-126, 127] (an i32), as a float.
llvm::Value* Pow2(llvm::IRBuilder<>* b, llvm::Value* n) {
  llvm::Value* bits = b->CreateShl(b->CreateAdd(n, b->getInt32(127)), 23);
  return b->CreateBitCast(bits, b->getFloatTy());
}

// e^r for the reduced argument r (|r| <= ln2/2): degree-6 polynomial.
llvm::Value* ExpReduced(llvm::IRBuilder<>* b, llvm::Value* r) {
  llvm::Value* r2 = b->CreateFMul(r, r);
  llvm::Value* p = Horner(b, r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                                 1.6666665459e-1, 5.0000001201e-1});
  return b->CreateFAdd(b->CreateFAdd(b->CreateFMul(p, r2), r), F(b, 1.0));
}

// x = n ln2 + r: returns n (integer-valued float) and sets *r. ln2 = 0.693359375 - 2.12194440e-4
// (the first part is exact in few bits, so n*hi is exact).
llvm::Value* ReduceByLn2(llvm::IRBuilder<>* b, llvm::Value* x, llvm::Value** r) {
  llvm::Value* n = b->CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b->CreateFMul(x, F(b, 1.4426950408889634)));
  *r = b->CreateFAdd(b->CreateFSub(x, b->CreateFMul(n, F(b, 0.693359375))), b->CreateFMul(n, F(b, 2.12194440e-4)));
  return n;
}

// e^x for x in [0, 20] (tanh's argument): no clamping, no special cases, and 2^n in one step;
// the same values as EmitExpF32 gives there, in about half the instructions.
llvm::Value* ExpOfSmallNonNegative(llvm::IRBuilder<>* b, llvm::Value* x) {
  llvm::Value* r = nullptr;
  llvm::Value* n = ReduceByLn2(b, x, &r);
  return b->CreateFMul(ExpReduced(b, r), Pow2(b, b->CreateFPToSI(n, b->getInt32Ty())));
}

}  // namespace

llvm::Value* ElementalEmitter::EmitExpF32(llvm::Value* x) {
  llvm::IRBuilder<>* b = b_;
  // Clamp so the integer math below stays in range; overflow/underflow are fixed at the end.
  llvm::Value* xc = b->CreateMinNum(b->CreateMaxNum(x, F(b, -104.0)), F(b, 89.0));
  llvm::Value* r = nullptr;
  llvm::Value* n = ReduceByLn2(b, xc, &r);
  // For NVPTX e^r is the device's ex2.approx of r log2(e) (|r log2(e)| <= 1/2: about 2 ulp,
  // as the polynomial), one instruction for nine.
  const bool nvptx = TargetsNvptx();
  llvm::Value* er = nvptx ? b->CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {},
                                               {b->CreateFMul(r, F(b, 1.4426950408889634))})
                          : ExpReduced(b, r);
  // 2^n = 2^(n/2) * 2^(n - n/2) so that n in [-150, 129] needs no out-of-range exponent.
  llvm::Value* ni = b->CreateFPToSI(n, b->getInt32Ty());
  llvm::Value* half = b->CreateAShr(ni, 1);
  llvm::Value* result = b->CreateFMul(b->CreateFMul(er, Pow2(b, half)), Pow2(b, b->CreateSub(ni, half)));
  // Past the thresholds the clamped argument's product itself rounds to inf (89: e^r 2^128)
  // or to 0 (-104: under half the smallest subnormal); the selects say so explicitly where an
  // instruction or two per exp costs little (the cpu's vector lanes), and are left out for
  // NVPTX, where softmax's exps are most of its instructions.
  if (!nvptx) {
    result = b->CreateSelect(b->CreateFCmpOGT(x, F(b, 88.72283935546875)), F(b, INFINITY), result);
    result = b->CreateSelect(b->CreateFCmpOLT(x, F(b, -103.972084045410)), F(b, 0.0), result);
  }
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

llvm::Value* ElementalEmitter::EmitLogF32(llvm::Value* x) {
  llvm::IRBuilder<>* b = b_;
  llvm::Type* i32 = b->getInt32Ty();
  // Subnormals: scale by 2^23 first.
  llvm::Value* tiny = b->CreateFCmpOLT(x, F(b, 1.17549435e-38));
  llvm::Value* xs = b->CreateSelect(tiny, b->CreateFMul(x, F(b, 8388608.0)), x);
  llvm::Value* bits = b->CreateBitCast(xs, i32);
  llvm::Value* e = b->CreateSub(b->CreateLShr(bits, 23), b->getInt32(126));  // x = m 2^e, m in [0.5, 1)
  e = b->CreateSub(e, b->CreateSelect(tiny, b->getInt32(23), b->getInt32(0)));
  llvm::Value* m = b->CreateBitCast(b->CreateOr(b->CreateAnd(bits, b->getInt32(0x007FFFFF)), b->getInt32(0x3F000000)),
                                    b->getFloatTy());
  llvm::Value* small = b->CreateFCmpOLT(m, F(b, 0.707106781186547524));
  llvm::Value* ef = b->CreateSIToFP(b->CreateSub(e, b->CreateZExt(small, i32)), b->getFloatTy());
  llvm::Value* z = b->CreateFSub(b->CreateSelect(small, b->CreateFAdd(m, m), m), F(b, 1.0));
  llvm::Value* z2 = b->CreateFMul(z, z);
  llvm::Value* y = Horner(b, z, {7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                                 1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                                 3.3333331174e-1});
  y = b->CreateFMul(b->CreateFMul(y, z), z2);
  y = b->CreateFAdd(y, b->CreateFMul(ef, F(b, -2.12194440e-4)));
  y = b->CreateFAdd(y, b->CreateFMul(z2, F(b, -0.5)));
  llvm::Value* result = b->CreateFAdd(b->CreateFAdd(z, y), b->CreateFMul(ef, F(b, 0.693359375)));
  result = b->CreateSelect(b->CreateFCmpOEQ(x, F(b, INFINITY)), x, result);
  result = b->CreateSelect(b->CreateFCmpOEQ(x, F(b, 0.0)), F(b, -INFINITY), result);
  result = b->CreateSelect(b->CreateFCmpOLT(x, F(b, 0.0)), F(b, NAN), result);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

llvm::Value* ElementalEmitter::EmitTanhF32(llvm::Value* x) {
  llvm::IRBuilder<>* b = b_;
  llvm::Value* ax = b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Small |x|: tanh x = x + x^3 P(x^2).
  llvm::Value* x2 = b->CreateFMul(x, x);
  // Coefficients of x^(2k+1), k = 1..9: -1/3, 2/15, -17/315, 62/2835, -1382/155925,
  // 21844/6081075, -929569/638512875, 6404582/10854718875, -443861162/1856156927625.
  llvm::Value* q = Horner(b, x2, {-443861162.0 / 1856156927625.0, 6404582.0 / 10854718875.0,
                                  -929569.0 / 638512875.0, 21844.0 / 6081075.0, -1382.0 / 155925.0,
                                  62.0 / 2835.0, -17.0 / 315.0, 2.0 / 15.0, -1.0 / 3.0});
  llvm::Value* small_result = b->CreateFAdd(x, b->CreateFMul(b->CreateFMul(x, x2), q));
  // Large |x|: 1 - 2 / (e^{2|x|} + 1), with the sign of x.
  llvm::Value* large = nullptr;
  if (TargetsNvptx()) {
    // 2|x| log2(e), then 2^that; d = e + 1 >= 4, so rcp.approx (no subnormals near) plus
    // r (2 - d r) is within an ulp of 1/d.
    llvm::Value* t = b->CreateFMul(b->CreateMinNum(ax, F(b, 10.0)), F(b, 2.0 * 1.4426950408889634));
    llvm::Value* e = b->CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {}, {t});
    llvm::Value* d = b->CreateFAdd(e, F(b, 1.0));
    llvm::Value* r = b->CreateIntrinsic(llvm::Intrinsic::nvvm_rcp_approx_ftz_f, {}, {d});
    llvm::Value* residual = b->CreateIntrinsic(llvm::Intrinsic::fma, {b->getFloatTy()}, {b->CreateFNeg(d), r, F(b, 1.0)});
    r = b->CreateIntrinsic(llvm::Intrinsic::fma, {b->getFloatTy()}, {r, residual, r});
    large = b->CreateIntrinsic(llvm::Intrinsic::fma, {b->getFloatTy()}, {F(b, -2.0), r, F(b, 1.0)});
  } else {
    llvm::Value* e = ExpOfSmallNonNegative(b, b->CreateFMul(b->CreateMinNum(ax, F(b, 10.0)), F(b, 2.0)));
    large = b->CreateFSub(F(b, 1.0), b->CreateFDiv(F(b, 2.0), b->CreateFAdd(e, F(b, 1.0))));
  }
  large = b->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  llvm::Value* result = b->CreateSelect(b->CreateFCmpOLT(ax, F(b, 0.625)), small_result, large);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

llvm::Value* ElementalEmitter::EmitLogisticF32(llvm::Value* x) {
  llvm::IRBuilder<>* b = b_;
  llvm::Value* e = EmitExpF32(b->CreateFNeg(x));
  return b->CreateFDiv(F(b, 1.0), b->CreateFAdd(F(b, 1.0), e));
}

}  // namespace cpu
}  // namespace xla
