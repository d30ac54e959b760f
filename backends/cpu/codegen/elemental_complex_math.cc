// Complex math as inline IR, for device code, which cannot call the runtime routine
// __xla_cpu_complex_c64/c128 (elemental_complex.cc dispatches here for NVPTX modules; the cpu
// keeps the routine, bit-exact with the interpreter, except for abs and sign, which are
// bit-identical here: std::abs of a std::complex is glibc's cabs, that is hypot).
//
// Semantics are std::complex's on glibc/libgcc (C99 Annex G), which the interpreter computes:
// the special values (infinities, NaNs, signed zeros, branch cuts) follow glibc's rules, and
// finite results are within a few ulps. Everything is built from arithmetic, selects and the
// libm routines libdevice provides (exp, expm1, log, log1p, sin, cos, sinh, cosh, atan, atan2,
// asin, acos, hypot); scaling uses multiplications by powers of two, as there is no
// ldexp/logb on the device. Algorithms:
//   divide:  libgcc's: c64 in double by the plain formula, c128 by Smith's with scaling; then
//            Annex G's recovery of infinities and zeros.
//   log:     log|z| = log1p(x^2 + y^2 - 1)/2 near |z| = 1 (the squares exact through fma, the
//            sum in double-word arithmetic), else log(hypot) with scaling at the range ends.
//   sqrt:    Kahan's: t = sqrt((|x| + |z|)/2), the other part y/(2t), scaled at the ends.
//   asin, acos, asinh, acosh: Hull, Fairgrieve and Tang's algorithm (ACM TOMS 23(3), 1997):
//            A = (|z+1| + |z-1|)/2, B = x/A with the forms that avoid cancellation near 1,
//            asymptotic forms for |z| > 2^p.
//   atanh:   glibc's: Kahan's log1p(4x/((1-x)^2 + y^2))/4 + i atan2(2y, 1 - x^2 - y^2)/2 (the
//            denominator without cancellation), log|y| at the pole, 1/z for |z| >= 16/eps.
//   exp, sinh, cosh, tanh: from their real-part formulas, e^x as e^(x/2) e^(x/2) where e^x
//            alone would overflow; sin, cos, tan through sinh, cosh, tanh of iz.
//   pow, atan2, expm1, log1p, rsqrt, logistic: the interpreter's formulas
//            (backends/complex_math.h), composed from the ops above.
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "absl/types/span.h"

#include "backends/cpu/codegen/ir_emitter.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {
namespace {

using V = llvm::Value*;

struct Cx {
  V re;
  V im;
};

// Arithmetic on one component type (float or double) with its constants.
class ComplexMath {
 public:
  using Libm = std::function<V(const std::string& name, llvm::Type* t, absl::Span<V const> args)>;

  ComplexMath(llvm::IRBuilder<>* b, llvm::Type* t, Libm libm) : b_(b), t_(t), libm_(std::move(libm)) {
    f32_ = t->isFloatTy();
    p_ = f32_ ? 24 : 53;
  }

  // --- Scalars.
  V K(double v) { return llvm::ConstantFP::get(t_, v); }
  V Pow2(int e) { return K(std::ldexp(1.0, e)); }
  V Eps() { return Pow2(1 - p_); }
  V MinNormal() { return K(f32_ ? 1.17549435082228750797e-38 : 2.2250738585072014e-308); }
  V Max() { return K(f32_ ? 3.40282346638528859812e+38 : 1.7976931348623157e308); }
  V Inf() { return K(INFINITY); }
  V NaN() { return K(NAN); }
  V Add(V a, V c) { return b_->CreateFAdd(a, c); }
  V Sub(V a, V c) { return b_->CreateFSub(a, c); }
  V Mul(V a, V c) { return b_->CreateFMul(a, c); }
  V Div(V a, V c) { return b_->CreateFDiv(a, c); }
  V Neg(V a) { return b_->CreateFNeg(a); }
  V Abs(V a) { return b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a); }
  V Sqrt(V a) { return b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a); }
  V CopySign(V m, V s) { return b_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, m, s); }
  V MaxNum(V a, V c) { return b_->CreateMaxNum(a, c); }
  V Fma(V a, V c, V d) { return b_->CreateIntrinsic(llvm::Intrinsic::fma, {t_}, {a, c, d}); }
  V Sel(V cond, V a, V c) { return b_->CreateSelect(cond, a, c); }
  Cx Sel(V cond, Cx a, Cx c) { return {Sel(cond, a.re, c.re), Sel(cond, a.im, c.im)}; }
  V Lt(V a, V c) { return b_->CreateFCmpOLT(a, c); }
  V Le(V a, V c) { return b_->CreateFCmpOLE(a, c); }
  V Gt(V a, V c) { return b_->CreateFCmpOGT(a, c); }
  V Ge(V a, V c) { return b_->CreateFCmpOGE(a, c); }
  V Eq(V a, V c) { return b_->CreateFCmpOEQ(a, c); }
  V IsZero(V a) { return Eq(a, K(0)); }
  V IsNan(V a) { return b_->CreateFCmpUNO(a, a); }
  V IsInf(V a) { return Eq(Abs(a), Inf()); }
  V IsFinite(V a) { return b_->CreateFCmpOLT(Abs(a), Inf()); }
  V SignBit(V a) {
    return b_->CreateICmpSLT(b_->CreateBitCast(a, b_->getIntNTy(f32_ ? 32 : 64)), b_->getIntN(f32_ ? 32 : 64, 0));
  }
  V And(V a, V c) { return b_->CreateAnd(a, c); }
  V Or(V a, V c) { return b_->CreateOr(a, c); }
  V Not(V a) { return b_->CreateNot(a); }
  V Call(const char* name, V a) { return libm_(Name(name), t_, {a}); }
  V Call(const char* name, V a, V c) { return libm_(Name(name), t_, {a, c}); }

  // ln 2, pi/2, ... rounded to the type.
  V Ln2() { return K(0.69314718055994530942); }
  V Pi() { return K(3.14159265358979323846); }
  V HalfPi() { return K(1.57079632679489661923); }
  V QuarterPi() { return K(0.78539816339744830962); }
  // Where e^x overflows (glibc's t: (max_exp - 1) ln 2, truncated).
  V ExpLimit() { return K(f32_ ? 88 : 709); }

  // --- Complex arithmetic.
  Cx Multiply(Cx a, Cx c) {
    auto [re, im] = AnnexGMultiply(b_, a.re, a.im, c.re, c.im);
    return {re, im};
  }

  // libgcc's __divsc3 / __divdc3.
  Cx Divide(Cx n, Cx d) {
    if (f32_) {
      // float: the plain formula in double, which cannot overflow or underflow there.
      llvm::Type* dt = b_->getDoubleTy();
      auto w = [&](V v) { return b_->CreateFPExt(v, dt); };
      V a = w(n.re), bb = w(n.im), c = w(d.re), dd = w(d.im);
      V denom = b_->CreateFAdd(b_->CreateFMul(c, c), b_->CreateFMul(dd, dd));
      V x = b_->CreateFDiv(b_->CreateFAdd(b_->CreateFMul(a, c), b_->CreateFMul(bb, dd)), denom);
      V y = b_->CreateFDiv(b_->CreateFSub(b_->CreateFMul(bb, c), b_->CreateFMul(a, dd)), denom);
      return Recover(n, d, {b_->CreateFPTrunc(x, t_), b_->CreateFPTrunc(y, t_)});
    }
    V rbig = Mul(Max(), K(0.5));
    V rmin = MinNormal();
    V rmin2 = Eps();
    V rminscal = Div(K(1), Eps());
    V rmax2 = Mul(rbig, rmin2);
    // One branch of Smith's algorithm: `c` is the larger part of the divisor (its imaginary
    // part when `swapped`). Returns the quotient and the operands as scaled, which libgcc's
    // recovery of infinities then reads.
    struct Branch {
      Cx q, n, d;
    };
    auto smith = [&](V a, V bb, V c, V dd, bool swapped) -> Branch {
      V halve = Ge(Abs(c), rbig);
      a = Sel(halve, Mul(a, K(0.5)), a);
      bb = Sel(halve, Mul(bb, K(0.5)), bb);
      c = Sel(halve, Mul(c, K(0.5)), c);
      dd = Sel(halve, Mul(dd, K(0.5)), dd);
      V tiny_c = Lt(Abs(c), rmin2);
      V tiny_num = Or(And(And(Lt(Abs(a), rmin), Lt(Abs(bb), rmax2)), Lt(Abs(c), rmax2)),
                      And(And(Lt(Abs(bb), rmin), Lt(Abs(a), rmax2)), Lt(Abs(c), rmax2)));
      V scale = Or(tiny_c, tiny_num);
      a = Sel(scale, Mul(a, rminscal), a);
      bb = Sel(scale, Mul(bb, rminscal), bb);
      c = Sel(scale, Mul(c, rminscal), c);
      dd = Sel(scale, Mul(dd, rminscal), dd);
      V ratio = Div(dd, c);
      V denom = Add(Mul(dd, ratio), c);
      V normal = Gt(Abs(ratio), rmin);
      Branch r;
      if (!swapped) {
        r.q.re = Sel(normal, Div(Add(Mul(bb, ratio), a), denom), Div(Add(a, Mul(dd, Div(bb, c))), denom));
        r.q.im = Sel(normal, Div(Sub(bb, Mul(a, ratio)), denom), Div(Sub(bb, Mul(dd, Div(a, c))), denom));
        r.d = {c, dd};
      } else {
        r.q.re = Sel(normal, Div(Add(Mul(a, ratio), bb), denom), Div(Add(Mul(dd, Div(a, c)), bb), denom));
        r.q.im = Sel(normal, Div(Sub(Mul(bb, ratio), a), denom), Div(Sub(Mul(dd, Div(bb, c)), a), denom));
        r.d = {dd, c};
      }
      r.n = {a, bb};
      return r;
    };
    V imag_larger = Lt(Abs(d.re), Abs(d.im));
    Branch by_imag = smith(n.re, n.im, d.im, d.re, true);
    Branch by_real = smith(n.re, n.im, d.re, d.im, false);
    return Recover(Sel(imag_larger, by_imag.n, by_real.n), Sel(imag_larger, by_imag.d, by_real.d),
                   Sel(imag_larger, by_imag.q, by_real.q));
  }

  // Annex G: results that came out NaN + iNaN for nonzero/zero, infinite/finite and
  // finite/infinite quotients.
  Cx Recover(Cx n, Cx d, Cx q) {
    V both_nan = And(IsNan(q.re), IsNan(q.im));
    V zero_den = And(And(IsZero(d.re), IsZero(d.im)), Or(Not(IsNan(n.re)), Not(IsNan(n.im))));
    V inf_c = CopySign(Inf(), d.re);
    Cx by_zero{Mul(inf_c, n.re), Mul(inf_c, n.im)};
    V n_inf = And(Or(IsInf(n.re), IsInf(n.im)), And(IsFinite(d.re), IsFinite(d.im)));
    V a1 = CopySign(Sel(IsInf(n.re), K(1), K(0)), n.re);
    V b1 = CopySign(Sel(IsInf(n.im), K(1), K(0)), n.im);
    Cx inf_num{Mul(Inf(), Add(Mul(a1, d.re), Mul(b1, d.im))), Mul(Inf(), Sub(Mul(b1, d.re), Mul(a1, d.im)))};
    V d_inf = And(Or(IsInf(d.re), IsInf(d.im)), And(IsFinite(n.re), IsFinite(n.im)));
    V c1 = CopySign(Sel(IsInf(d.re), K(1), K(0)), d.re);
    V d1 = CopySign(Sel(IsInf(d.im), K(1), K(0)), d.im);
    Cx inf_den{Mul(K(0), Add(Mul(n.re, c1), Mul(n.im, d1))), Mul(K(0), Sub(Mul(n.im, c1), Mul(n.re, d1)))};
    Cx r = Sel(d_inf, inf_den, q);
    r = Sel(n_inf, inf_num, r);
    r = Sel(zero_den, by_zero, r);
    return Sel(both_nan, r, q);
  }

  // --- Functions.
  // x^2 + y^2 - 1 for |x| >= |y| without cancellation: the squares exact through fma, the sum
  // in double-word arithmetic.
  V X2Y2M1(V x, V y) {
    V hx = Mul(x, x), lx = Fma(x, x, Neg(hx));
    V hy = Mul(y, y), ly = Fma(y, y, Neg(hy));
    auto two_sum = [&](V a, V c, V* err) {
      V s = Add(a, c);
      V cc = Sub(s, a);
      *err = Add(Sub(a, Sub(s, cc)), Sub(c, cc));
      return s;
    };
    V e1, e2;
    V s1 = two_sum(hx, K(-1), &e1);
    V s2 = two_sum(s1, hy, &e2);
    return Add(s2, Add(Add(e1, e2), Add(lx, ly)));
  }

  // log|z| without overflow, underflow or cancellation near |z| = 1.
  V LogAbs(V x, V y) {
    V ax = Abs(x), ay = Abs(y);
    // Selects, not maxnum/minnum, so that a NaN part stays in.
    V big = Sel(Gt(ax, ay), ax, ay), small = Sel(Gt(ax, ay), ay, ax);
    V sum = X2Y2M1(big, small);
    V middle_value = Mul(K(0.5), Call("log1p", sum));
    V middle = And(Ge(big, K(0.5)), Le(big, K(2)));
    // Ends: log(hypot) of values scaled into range.
    V down = Gt(big, Mul(Max(), K(0.25)));
    V up = Lt(big, MinNormal());
    const int up_exp = p_ + 1;
    V scale = Sel(down, K(0.25), Sel(up, Pow2(up_exp), K(1)));
    V shift = Sel(down, K(2 * 0.69314718055994530942),
                  Sel(up, K(-up_exp * 0.69314718055994530942), K(0)));
    V ends = Add(Call("log", Call("hypot", Mul(x, scale), Mul(y, scale))), shift);
    return Sel(middle, middle_value, ends);
  }

  Cx Log(Cx z) { return {LogAbs(z.re, z.im), Call("atan2", z.im, z.re)}; }

  Cx Exp(Cx z) {
    V x = z.re, y = z.im;
    V c = Call("cos", y), s = Call("sin", y);
    V big = Gt(x, ExpLimit());
    V e = Call("exp", Sel(big, Mul(x, K(0.5)), x));
    V scale = Sel(big, e, K(1));
    Cx r{Mul(Mul(e, c), scale), Mul(Mul(e, s), scale)};
    r.im = Sel(IsZero(y), y, r.im);
    V y_bad = Not(IsFinite(y));
    V x_pos_inf = Eq(x, Inf());
    V x_neg_inf = Eq(x, Neg(Inf()));
    r = Sel(And(x_pos_inf, y_bad), Cx{Inf(), NaN()}, r);
    r = Sel(And(x_neg_inf, y_bad), Cx{K(0), CopySign(K(0), y)}, r);
    return r;
  }

  // glibc's csqrt: Kahan's t = sqrt((|x| + |z|)/2) and y/(2t), scaled at the range ends.
  Cx Sqrt(Cx z) {
    V x = z.re, y = z.im;
    V ax = Abs(x), ay = Abs(y);
    V down = Gt(MaxNum(ax, ay), Mul(Max(), K(0.25)));
    V up = And(Lt(ax, Mul(MinNormal(), K(2))), Lt(ay, Mul(MinNormal(), K(2))));
    const int k = (p_ + 1) / 2;
    V xs = Mul(x, Sel(down, K(0.25), Sel(up, Pow2(2 * k), K(1))));
    V ys = Mul(y, Sel(down, K(0.25), Sel(up, Pow2(2 * k), K(1))));
    V d = Call("hypot", xs, ys);
    // Scaled down and |y| < 1: the division first, so it cannot underflow.
    V early = And(down, Lt(Abs(ys), K(1)));
    V pos = Gt(xs, K(0));
    V root = Sqrt(Mul(K(0.5), Sel(pos, Add(d, xs), Sub(d, xs))));
    V quotient = Div(ys, root);
    V other = Abs(Sel(early, quotient, Mul(K(0.5), quotient)));
    V root_scaled = Mul(root, Sel(early, K(2), K(1)));
    V r = Sel(pos, root_scaled, other);
    V s = Sel(pos, other, root_scaled);
    V final_scale = Sel(early, K(1), Sel(down, K(2), Sel(up, Pow2(-k), K(1))));
    Cx res{Mul(r, final_scale), CopySign(Mul(s, final_scale), y)};
    // A zero part.
    V zr = Sel(Ge(ay, Mul(MinNormal(), K(2))), Sqrt(Mul(K(0.5), ay)), Mul(K(0.5), Sqrt(Mul(K(2), ay))));
    Cx x_zero{zr, CopySign(zr, y)};
    Cx y_zero = Sel(Lt(x, K(0)), Cx{K(0), CopySign(Sqrt(Neg(x)), y)}, Cx{Abs(Sqrt(x)), CopySign(K(0), y)});
    res = Sel(IsZero(y), y_zero, res);
    res = Sel(IsZero(x), x_zero, res);
    // Infinite or NaN parts.
    V y_nan = IsNan(y);
    Cx x_inf = Sel(Lt(x, K(0)), Cx{Sel(y_nan, NaN(), K(0)), CopySign(Inf(), y)}, Cx{x, Sel(y_nan, NaN(), CopySign(K(0), y))});
    Cx special = Sel(IsInf(y), Cx{Inf(), y}, Sel(IsInf(x), x_inf, Cx{NaN(), NaN()}));
    return Sel(Finite(z), res, special);
  }

  // sinh (cosh = false) or cosh (cosh = true) of x + iy, as glibc's csinh/ccosh.
  Cx SinhCosh(Cx z, bool cosh) {
    V x = z.re, y = z.im;
    V c = Call("cos", y), s = Call("sin", y);
    V sx1 = CopySign(K(1), x);
    V ax = Abs(x);
    V large = Gt(ax, ExpLimit());
    V h = Call("exp", Mul(ax, K(0.5)));
    // The small factor first: 0.5 sin y could underflow.
    V half_h = Mul(h, K(0.5));
    V large_c = Mul(Mul(c, half_h), h);
    V large_s = Mul(Mul(s, half_h), h);
    V sh = Call("sinh", x), ch = Call("cosh", x);
    Cx r;
    if (!cosh) {
      r.re = Sel(large, Mul(sx1, large_c), Mul(sh, c));
      r.im = Sel(large, large_s, Mul(ch, s));
      r.im = Sel(IsZero(y), y, r.im);
    } else {
      r.re = Sel(large, large_c, Mul(ch, c));
      r.im = Sel(large, Mul(sx1, large_s), Mul(sh, s));
      r.im = Sel(IsZero(y), Mul(sx1, y), r.im);
    }
    V x_fin = IsFinite(x), y_fin = IsFinite(y);
    // x finite, y infinite or NaN.
    Cx bad_y = cosh ? Cx{NaN(), Sel(IsZero(x), K(0), NaN())} : Cx{Sel(IsZero(x), CopySign(K(0), x), NaN()), NaN()};
    r = Sel(And(x_fin, Not(y_fin)), bad_y, r);
    // x infinite, y infinite or NaN.
    r = Sel(And(IsInf(x), Not(y_fin)), Cx{Inf(), NaN()}, r);
    // x NaN.
    r = Sel(IsNan(x), Cx{NaN(), Sel(IsZero(y), y, NaN())}, r);
    return r;
  }

  Cx Tanh(Cx z) {
    V x = z.re, y = z.im;
    V c = Call("cos", y), s = Call("sin", y);
    V ax = Abs(x);
    // Past t = (max_exp - 1) ln2 / 2, tanh x is +-1 and the imaginary part 4 sin y cos y e^-2|x|,
    // divided by e^2t and then by the rest, as glibc does, so it rounds once when subnormal.
    V t = K(f32_ ? 44 : 354);
    V large = Gt(ax, t);
    V e2t = Call("exp", Mul(K(2), t));
    V rest = Sub(ax, t);
    V big_im = Div(Div(Mul(Mul(K(4), s), c), e2t), Sel(Gt(rest, t), e2t, Call("exp", Mul(K(2), rest))));
    Cx big{CopySign(K(1), x), big_im};
    V sh = Call("sinh", x), ch = Call("cosh", x);
    V den = Sel(Gt(Abs(sh), Mul(Abs(c), Eps())), Add(Mul(sh, sh), Mul(c, c)), Mul(c, c));
    Cx r = Sel(large, big, Cx{Div(Mul(sh, ch), den), Div(Mul(s, c), den)});
    // Infinite or NaN parts.
    V x_inf_im = CopySign(K(0), Sel(And(IsFinite(y), Gt(Abs(y), K(1))), Mul(s, c), y));
    Cx special = Sel(IsInf(x), Cx{CopySign(K(1), x), x_inf_im},
                     Sel(IsZero(y), Cx{x, y}, Cx{Sel(IsZero(x), x, NaN()), NaN()}));
    return Sel(Or(Not(IsFinite(x)), Not(IsFinite(y))), special, r);
  }

  // sin z = -i sinh(iz), except that an infinite imaginary part with an infinite or NaN real
  // part gives +inf (glibc's csin; Annex G leaves the sign unspecified).
  Cx Sin(Cx z) {
    Cx r = TimesMinusI(SinhCosh(TimesI(z), false));
    return Sel(And(Not(IsFinite(z.re)), IsInf(z.im)), Cx{NaN(), Inf()}, r);
  }

  // i z and -i z.
  Cx TimesI(Cx z) { return {Neg(z.im), z.re}; }
  Cx TimesMinusI(Cx z) { return {z.im, Neg(z.re)}; }

  // Hull et al.: asin (acos = false) or acos (acos = true) of x + iy for x, y >= 0, finite;
  // returns the real part and the magnitude of the imaginary part.
  Cx AsinAcosCore(V x, V y, bool acos) {
    V one = K(1);
    V xp1 = Add(x, one), xm1 = Sub(x, one), omx = Sub(one, x);
    V r = Call("hypot", xp1, y), s = Call("hypot", xm1, y);
    V a = Mul(K(0.5), Add(r, s));
    V bq = Div(x, a);
    V yy = Mul(y, y);
    V fpx = Mul(K(0.5), Add(a, x));
    V d_le = Sqrt(Mul(fpx, Add(Div(yy, Add(r, xp1)), Add(s, omx))));
    V sq = Sqrt(Add(Div(fpx, Add(r, xp1)), Div(fpx, Add(s, xm1))));
    V le1 = Le(x, one);
    V direct = Le(bq, K(0.6417));
    // x > 1: y * (sq / x), so that a subnormal y is rounded once.
    V re = acos ? Sel(direct, Call("acos", bq), Call("atan", Sel(le1, Div(d_le, x), Mul(y, Div(sq, x)))))
                : Sel(direct, Call("asin", bq), Call("atan", Div(x, Sel(le1, d_le, Mul(y, sq)))));
    V am1 = Sel(Lt(x, one), Mul(K(0.5), Add(Div(yy, Add(r, xp1)), Div(yy, Add(s, omx)))),
                Mul(K(0.5), Add(Div(yy, Add(r, xp1)), Add(s, xm1))));
    V im_near = Call("log1p", Add(am1, Sqrt(Mul(am1, Add(a, one)))));
    V im_far = Call("log", Add(a, Sqrt(Sub(Mul(a, a), one))));
    V im = Sel(Le(a, K(1.5)), im_near, im_far);
    // y negligible next to 1 - x: the first term of the series.
    V y_tiny = And(Lt(x, one), Lt(y, Mul(Pow2(-(p_ / 2 + 2)), omx)));
    im = Sel(y_tiny, Div(y, Sqrt(Mul(omx, xp1))), im);
    // x == 1: A - 1 = y/2 + O(y^2), so the imaginary part is sqrt(y) (y/2 may be subnormal).
    im = Sel(And(Eq(x, one), Lt(y, Mul(Eps(), Eps()))), Sqrt(y), im);
    // |z| > 2^p: asin z = -i log(2 i z) to within 2^-2p.
    V huge = Gt(MaxNum(x, y), Pow2(p_));
    re = Sel(huge, acos ? Call("atan2", y, x) : Call("atan2", x, y), re);
    im = Sel(huge, Add(LogAbs(x, y), Ln2()), im);
    return {re, im};
  }

  // glibc's casinh of an argument with an infinite or NaN part.
  Cx AsinhSpecial(V x, V y) {
    V y_inf_im = Sel(IsNan(x), NaN(), CopySign(Sel(IsFinite(x), HalfPi(), QuarterPi()), y));
    Cx y_inf{CopySign(Inf(), x), y_inf_im};
    V zero_im = Or(And(IsInf(x), IsFinite(y)), And(IsNan(x), IsZero(y)));
    Cx x_bad{x, Sel(zero_im, CopySign(K(0), y), NaN())};
    return Sel(IsInf(y), y_inf, Sel(Not(IsFinite(x)), x_bad, Cx{NaN(), NaN()}));
  }

  V Finite(Cx z) { return And(IsFinite(z.re), IsFinite(z.im)); }

  Cx Asinh(Cx z) {
    Cx core = AsinAcosCore(Abs(z.im), Abs(z.re), false);
    Cx r{CopySign(core.im, z.re), CopySign(core.re, z.im)};
    return Sel(Finite(z), r, AsinhSpecial(z.re, z.im));
  }

  Cx Asin(Cx z) {
    Cx core = AsinAcosCore(Abs(z.re), Abs(z.im), false);
    Cx r{CopySign(core.re, z.re), CopySign(core.im, z.im)};
    Cx special = TimesMinusI(AsinhSpecial(Neg(z.im), z.re));
    return Sel(Finite(z), r, special);
  }

  Cx Acos(Cx z) {
    Cx core = AsinAcosCore(Abs(z.re), Abs(z.im), true);
    Cx r{Sel(SignBit(z.re), Sub(Pi(), core.re), core.re), Neg(CopySign(core.im, z.im))};
    // glibc: pi/2 - casin(z) for infinite or NaN parts (a -0 real part becomes +0).
    Cx s = TimesMinusI(AsinhSpecial(Neg(z.im), z.re));
    V re = Sub(HalfPi(), s.re);
    Cx special{Sel(IsZero(re), K(0), re), Neg(s.im)};
    return Sel(Finite(z), r, special);
  }

  Cx Acosh(Cx z) {
    V x = z.re, y = z.im;
    Cx a = Acos(z);
    Cx r{Abs(a.im), CopySign(a.re, y)};
    V y_inf_im = Sel(IsNan(x), NaN(),
                     CopySign(Sel(IsInf(x), Sel(SignBit(x), K(3 * 0.78539816339744830962), QuarterPi()), HalfPi()), y));
    Cx y_inf{Inf(), y_inf_im};
    Cx x_inf{Inf(), Sel(IsFinite(y), CopySign(Sel(SignBit(x), Pi(), K(0)), y), NaN())};
    Cx other{NaN(), Sel(IsZero(x), HalfPi(), NaN())};
    Cx special = Sel(IsInf(y), y_inf, Sel(IsInf(x), x_inf, other));
    return Sel(Finite(z), r, special);
  }

  // glibc's catanh: Kahan's formulas with its guards near the pole and for large |z|.
  Cx Atanh(Cx z) {
    V x = z.re, y = z.im;
    V ax = Abs(x), ay = Abs(y);
    V one = K(1);
    // |z| >= 16/eps: 1/z with the imaginary part pi/2.
    V h = Call("hypot", Mul(x, K(0.5)), Mul(y, K(0.5)));
    V re_large = Sel(Le(ay, one), Div(one, x),
                     Sel(Le(ax, one), Div(Div(x, y), y), Mul(Div(Div(x, h), h), K(0.25))));
    V large = Ge(MaxNum(ax, ay), Div(K(16), Eps()));
    // Real part: log(|1 + z|^2 / |1 - z|^2) / 4.
    V eps2 = Mul(Eps(), Eps());
    V re_pole = Mul(CopySign(K(0.5), x), Sub(Ln2(), Call("log", ay)));
    V i2 = Sel(Ge(ay, eps2), Mul(y, y), K(0));
    V xp1 = Add(one, x), omx = Sub(one, x);
    V num = Add(i2, Mul(xp1, xp1));
    V den = Add(i2, Mul(omx, omx));
    V f = Div(num, den);
    V re = Sel(Lt(f, K(0.5)), Mul(K(0.25), Call("log", f)), Mul(K(0.25), Call("log1p", Div(Mul(K(4), x), den))));
    re = Sel(And(Eq(ax, one), Lt(ay, eps2)), re_pole, re);
    // Imaginary part: atan2(2y, 1 - x^2 - y^2) / 2, the denominator without cancellation.
    V swap = Lt(ax, ay);
    V bx = Sel(swap, ay, ax), by = Sel(swap, ax, ay);
    V d_simple = Sub(Mul(Sub(one, bx), Add(one, bx)), Mul(by, by));
    V d_tiny = Mul(Sub(one, bx), Add(one, bx));
    d_tiny = Sel(IsZero(d_tiny), K(0), d_tiny);
    V d_mid = Neg(X2Y2M1(bx, by));
    V d = Sel(Lt(by, Mul(Eps(), K(0.5))), d_tiny,
              Sel(Ge(bx, one), d_simple, Sel(Or(Ge(bx, K(0.75)), Ge(by, K(0.5))), d_mid, d_simple)));
    V im = Mul(K(0.5), Call("atan2", Mul(K(2), y), d));
    Cx r = Sel(large, Cx{re_large, CopySign(HalfPi(), y)}, Cx{re, im});
    // Infinite or NaN parts, as glibc's catanh.
    Cx to_axis{CopySign(K(0), x), CopySign(HalfPi(), y)};
    V x_inf_or_zero = Or(IsInf(x), IsZero(x));
    Cx x_special{CopySign(K(0), x), Sel(IsFinite(y), CopySign(HalfPi(), y), NaN())};
    Cx special = Sel(IsInf(y), to_axis, Sel(x_inf_or_zero, x_special, Cx{NaN(), NaN()}));
    return Sel(Finite(z), r, special);
  }

  // complex_math::Expm1 and Log1p, formula for formula.
  Cx Expm1(Cx z) {
    V hs = Call("sin", Mul(z.im, K(0.5)));
    return {Sub(Mul(Call("expm1", z.re), Call("cos", z.im)), Mul(Mul(K(2), hs), hs)),
            Mul(Call("exp", z.re), Call("sin", z.im))};
  }
  Cx Log1p(Cx z) {
    V a = z.re, bb = z.im;
    return {Mul(K(0.5), Call("log1p", Add(Mul(a, Add(K(2), a)), Mul(bb, bb)))), Call("atan2", bb, Add(K(1), a))};
  }

  // complex_math::Pow: 1 for a == 1 or b == 0, inf^(r + 0i) for r > 0 / r < 0, else
  // exp(b log a) (glibc's cpow).
  Cx Pow(Cx a, Cx bz) {
    Cx r = Exp(Multiply(bz, Log(a)));
    V a_pos_inf = And(IsZero(a.im), Eq(a.re, Inf()));
    V b_real = IsZero(bz.im);
    r = Sel(And(And(a_pos_inf, b_real), Lt(bz.re, K(0))), Cx{K(0), K(0)}, r);
    r = Sel(And(And(a_pos_inf, b_real), Gt(bz.re, K(0))), a, r);
    V unit = Or(And(Eq(a.re, K(1)), IsZero(a.im)), And(IsZero(bz.re), IsZero(bz.im)));
    return Sel(unit, Cx{K(1), K(0)}, r);
  }

  // complex_math::Atan2: -i log((x + i y) / sqrt(x^2 + y^2)), every product as Annex G's
  // (as the interpreter's compiled code forms them, the ones with the constants i and -i too).
  Cx Atan2(Cx y, Cx x) {
    Cx iy = Multiply(Cx{K(0), K(1)}, y);
    Cx num{Add(x.re, iy.re), Add(x.im, iy.im)};
    Cx xx = Multiply(x, x), yy = Multiply(y, y);
    Cx root = Sqrt(Cx{Add(xx.re, yy.re), Add(xx.im, yy.im)});
    return Multiply(Cx{K(-0.0), K(-1)}, Log(Divide(num, root)));
  }

  Cx Rsqrt(Cx z) { return Divide(Cx{K(1), K(0)}, Sqrt(z)); }

  // 1 / (1 + exp(-z)), the real 1 added to the real part only.
  Cx Logistic(Cx z) {
    Cx e = Exp(Cx{Neg(z.re), Neg(z.im)});
    return Divide(Cx{K(1), K(0)}, Cx{Add(K(1), e.re), e.im});
  }

  V AbsValue(Cx z) { return Call("hypot", z.re, z.im); }

  // z / |z|, 0 for z == 0 (the real divisor divides each part).
  Cx Sign(Cx z) {
    V m = AbsValue(z);
    Cx r{Div(z.re, m), Div(z.im, m)};
    return Sel(IsZero(m), Cx{K(0), K(0)}, r);
  }

 private:
  std::string Name(const char* base) const { return f32_ ? std::string(base) + "f" : std::string(base); }

  llvm::IRBuilder<>* b_;
  llvm::Type* t_;
  Libm libm_;
  bool f32_;
  int p_;
};

}  // namespace

bool ElementalEmitter::TargetsNvptx() const { return llvm::StringRef(module_->getTargetTriple()).startswith("nvptx"); }

bool ElementalEmitter::InlineComplexMath() const {
  if (TargetsNvptx()) return true;
  const char* v = std::getenv("XLA_CPU_INLINE_COMPLEX_MATH");
  return v != nullptr && std::string(v) == "1";
}

llvm::Value* ElementalEmitter::EmitInlineComplexOp(HloOpcode op, llvm::Value* a, llvm::Value* c, PrimitiveType type) {
  llvm::Type* part = type == C64 ? b_->getFloatTy() : b_->getDoubleTy();
  ComplexMath m(b_, part, [this](const std::string& name, llvm::Type* t, absl::Span<V const> args) {
    return CallLibm(name.c_str(), t, args);
  });
  auto [ar, ai] = ComplexParts(a, type);
  Cx x{ar, ai};
  Cx y{nullptr, nullptr};
  if (c != nullptr) {
    auto [cr, ci] = ComplexParts(c, type);
    y = Cx{cr, ci};
  }
  Cx r;
  switch (op) {
    case HloOpcode::kAbs: return m.AbsValue(x);
    case HloOpcode::kSign: r = m.Sign(x); break;
    case HloOpcode::kDivide: r = m.Divide(x, y); break;
    case HloOpcode::kPower: r = m.Pow(x, y); break;
    case HloOpcode::kAtan2: r = m.Atan2(x, y); break;
    case HloOpcode::kExponential: r = m.Exp(x); break;
    case HloOpcode::kExponentialMinusOne: r = m.Expm1(x); break;
    case HloOpcode::kLog: r = m.Log(x); break;
    case HloOpcode::kLogPlusOne: r = m.Log1p(x); break;
    case HloOpcode::kSqrt: r = m.Sqrt(x); break;
    case HloOpcode::kRsqrt: r = m.Rsqrt(x); break;
    case HloOpcode::kLogistic: r = m.Logistic(x); break;
    case HloOpcode::kSinh: r = m.SinhCosh(x, false); break;
    case HloOpcode::kCosh: r = m.SinhCosh(x, true); break;
    case HloOpcode::kTanh: r = m.Tanh(x); break;
    // sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz) (C99 G.6).
    case HloOpcode::kSine: r = m.Sin(x); break;
    case HloOpcode::kCosine: r = m.SinhCosh(m.TimesI(x), true); break;
    case HloOpcode::kTan: r = m.TimesMinusI(m.Tanh(m.TimesI(x))); break;
    case HloOpcode::kAsin: r = m.Asin(x); break;
    case HloOpcode::kAcos: r = m.Acos(x); break;
    case HloOpcode::kAsinh: r = m.Asinh(x); break;
    case HloOpcode::kAcosh: r = m.Acosh(x); break;
    case HloOpcode::kAtanh: r = m.Atanh(x); break;
    default: return nullptr;
  }
  return MakeComplex(r.re, r.im, type);
}

}  // namespace cpu
}  // namespace xla
