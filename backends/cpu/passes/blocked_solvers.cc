#include "backends/cpu/passes/blocked_solvers.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/hlo_parser.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

int64_t RoundUp(int64_t n, int64_t b) { return (n + b - 1) / b * b; }

// The type the blocked form computes in: f64, or c128 for complex types (as the small
// solvers compute).
PrimitiveType Wide(PrimitiveType type) { return primitive_util::IsComplexType(type) ? C128 : F64; }

std::string ShapeText(const Shape& shape) { return shape.ToString(shape.has_layout()); }

// One computation's instructions as HLO text, each named uniquely in the module (`prefix`
// and a counter shared by the module's computations). Arrays carry the batch dimensions
// first, then the two given.
class Writer {
 public:
  Writer(PrimitiveType type, std::vector<int64_t> batch, std::string prefix, int* counter)
      : type_(type), batch_(std::move(batch)), prefix_(std::move(prefix)), counter_(counter) {}

  // The computation `name` ({ its instructions }), the entry's when `entry`.
  std::string Computation(const std::string& name, bool entry = false) const {
    return absl::StrCat(entry ? "ENTRY " : "", name, " {\n", text_, "}\n\n");
  }
  int64_t rank() const { return static_cast<int64_t>(batch_.size()) + 2; }
  bool complex() const { return primitive_util::IsComplexType(type_); }

  // `name = shape expr`; returns name.
  std::string Add(const std::string& shape, const std::string& expr) { return Emit("", shape, expr); }
  // The same as the computation's root.
  std::string AddRoot(const std::string& shape, const std::string& expr) { return Emit("ROOT ", shape, expr); }

  std::string Array(PrimitiveType t, int64_t rows, int64_t cols) const {
    return absl::StrCat(TypeName(t), "[", Dims(rows, cols), "]");
  }
  std::string Array(int64_t rows, int64_t cols) const { return Array(type_, rows, cols); }
  static std::string Scalar(PrimitiveType t) { return absl::StrCat(TypeName(t), "[]"); }
  static std::string TypeName(PrimitiveType t) { return std::string(primitive_util::LowercasePrimitiveTypeName(t)); }
  // The batch dimensions' numbers, "0,1,..." ("" without batch dimensions).
  std::string BatchDims() const {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < batch_.size(); ++d) dims.push_back(static_cast<int64_t>(d));
    return absl::StrJoin(dims, ",");
  }
  // Start indices of a dynamic slice: zero for the batch dimensions, then `row`, `col`.
  std::string Starts(const std::string& zero, const std::string& row, const std::string& col) const {
    std::vector<std::string> starts(batch_.size(), zero);
    starts.push_back(row);
    starts.push_back(col);
    return absl::StrJoin(starts, ", ");
  }
  std::string Sizes(int64_t rows, int64_t cols) const { return absl::StrCat("dynamic_slice_sizes={", Dims(rows, cols), "}"); }

  // Entry parameter `number` of `shape` (its own type and layout), as [.., rows, cols] of
  // the computing type.
  std::string Parameter(const Shape& shape, int64_t number, int64_t rows, int64_t cols) {
    const std::string p = Add(ShapeText(shape), absl::StrCat("parameter(", number, ")"));
    return shape.element_type() == type_ ? p : Add(Array(rows, cols), absl::StrCat("convert(", p, ")"));
  }
  // `x` as the entry's root of `shape` (its own type and layout).
  void Result(const Shape& shape, const std::string& x) {
    AddRoot(ShapeText(shape), absl::StrCat(shape.element_type() == type_ ? "copy(" : "convert(", x, ")"));
  }

  // A scalar of the element type (real for complex types: (value, 0)).
  std::string Constant(const std::string& value) {
    if (!complex()) return Add(Scalar(type_), absl::StrCat("constant(", value, ")"));
    const PrimitiveType part = primitive_util::ComplexComponentType(type_);
    const std::string re = Add(Scalar(part), absl::StrCat("constant(", value, ")"));
    const std::string im = Add(Scalar(part), value == "nan" ? "constant(nan)" : "constant(0)");
    return Add(Scalar(type_), absl::StrCat("complex(", re, ", ", im, ")"));
  }
  std::string Broadcast(const std::string& scalar, const std::string& shape) {
    return Add(shape, absl::StrCat("broadcast(", scalar, "), dimensions={}"));
  }
  std::string Iota(int64_t rows, int64_t cols, int64_t dim) {
    return Add(Array(S32, rows, cols), absl::StrCat("iota(), iota_dimension=", dim));
  }
  // x with its last two dimensions swapped.
  std::string Transpose(const std::string& x, int64_t rows, int64_t cols) {
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank() - 2; ++d) perm.push_back(d);
    perm.push_back(rank() - 1);
    perm.push_back(rank() - 2);
    return Add(Array(cols, rows), absl::StrCat("transpose(", x, "), dimensions={", absl::StrJoin(perm, ","), "}"));
  }
  // The complex conjugate (x itself for real types). The imaginary part is 0 - im, so that a
  // zero one stays +0 (a factor's real diagonal keeps +0 imaginary parts, as the interpreter's).
  std::string Conj(const std::string& x, int64_t rows, int64_t cols) {
    if (!complex()) return x;
    const PrimitiveType part = primitive_util::ComplexComponentType(type_);
    const std::string re = Add(Array(part, rows, cols), absl::StrCat("real(", x, ")"));
    const std::string im = Add(Array(part, rows, cols), absl::StrCat("imag(", x, ")"));
    const std::string zero = Broadcast(Add(Scalar(part), "constant(0)"), Array(part, rows, cols));
    const std::string negated = Add(Array(part, rows, cols), absl::StrCat("subtract(", zero, ", ", im, ")"));
    return Add(Array(rows, cols), absl::StrCat("complex(", re, ", ", negated, ")"));
  }
  std::string Reverse(const std::string& x, int64_t rows, int64_t cols, bool both) {
    const std::string dims = both ? absl::StrCat(rank() - 2, ",", rank() - 1) : absl::StrCat(rank() - 2);
    return Add(Array(rows, cols), absl::StrCat("reverse(", x, "), dimensions={", dims, "}"));
  }
  // x [.., rows, cols] padded with zeros to [.., to_rows, to_cols].
  std::string Pad(const std::string& x, int64_t rows, int64_t cols, int64_t to_rows, int64_t to_cols) {
    std::vector<std::string> pads(batch_.size(), "0_0");
    pads.push_back(absl::StrCat("0_", to_rows - rows));
    pads.push_back(absl::StrCat("0_", to_cols - cols));
    return Add(Array(to_rows, to_cols), absl::StrCat("pad(", x, ", ", Constant("0"), "), padding=", absl::StrJoin(pads, "x")));
  }
  std::string Slice(const std::string& x, int64_t rows, int64_t cols) {
    std::vector<std::string> ranges;
    for (int64_t d : batch_) ranges.push_back(absl::StrCat("[0:", d, "]"));
    ranges.push_back(absl::StrCat("[0:", rows, "]"));
    ranges.push_back(absl::StrCat("[0:", cols, "]"));
    return Add(Array(rows, cols), absl::StrCat("slice(", x, "), slice={", absl::StrJoin(ranges, ", "), "}"));
  }
  // x [.., n, n] padded to [.., to, to] with ones on the new part of the diagonal.
  std::string PadWithIdentity(const std::string& x, int64_t n, int64_t to) {
    if (to == n) return x;
    const std::string padded = Pad(x, n, n, to, to);
    const std::string r = Iota(to, to, rank() - 2), c = Iota(to, to, rank() - 1);
    const std::string diagonal = Add(Array(PRED, to, to), absl::StrCat("compare(", r, ", ", c, "), direction=EQ"));
    const std::string ns = Broadcast(Add(Scalar(S32), absl::StrCat("constant(", n, ")")), Array(S32, to, to));
    const std::string beyond = Add(Array(PRED, to, to), absl::StrCat("compare(", r, ", ", ns, "), direction=GE"));
    const std::string added = Add(Array(PRED, to, to), absl::StrCat("and(", diagonal, ", ", beyond, ")"));
    const std::string ones = Broadcast(Constant("1"), Array(to, to));
    return Add(Array(to, to), absl::StrCat("select(", added, ", ", ones, ", ", padded, ")"));
  }
  // dot over the batch dimensions, contracting lhs dimension `lc` (counted from the first
  // matrix dimension, 0 or 1) with rhs dimension `rc`.
  std::string Dot(const std::string& lhs, const std::string& rhs, int64_t lc, int64_t rc, int64_t rows, int64_t cols) {
    const std::string batch = BatchDims();
    return Add(Array(rows, cols),
               absl::StrCat("dot(", lhs, ", ", rhs, "), lhs_batch_dims={", batch, "}, lhs_contracting_dims={",
                            rank() - 2 + lc, "}, rhs_batch_dims={", batch, "}, rhs_contracting_dims={", rank() - 2 + rc,
                            "}, operand_precision={highest,highest}"));
  }

 private:
  // "b0,b1,...,rows,cols".
  std::string Dims(int64_t rows, int64_t cols) const {
    std::vector<int64_t> dims = batch_;
    dims.push_back(rows);
    dims.push_back(cols);
    return absl::StrJoin(dims, ",");
  }
  std::string Emit(const char* root, const std::string& shape, const std::string& expr) {
    std::string name = absl::StrCat(prefix_, (*counter_)++);
    absl::StrAppend(&text_, "  ", root, name, " = ", shape, " ", expr, "\n");
    return name;
  }

  PrimitiveType type_;
  std::vector<int64_t> batch_;
  std::string prefix_;
  int* counter_;
  std::string text_;
};

// (s32[], arrays...) as the loop's state shape.
std::string StateShape(const std::vector<std::string>& arrays) {
  return absl::StrCat("(s32[], ", absl::StrJoin(arrays, ", "), ")");
}

// The loop condition `name`: i < trips over the state `state`.
std::string Condition(const std::string& name, const std::string& state, int64_t trips, const std::string& prefix,
                      int* counter) {
  Writer w(S32, {}, prefix, counter);
  const std::string p = w.Add(state, "parameter(0)");
  const std::string i = w.Add("s32[]", absl::StrCat("get-tuple-element(", p, "), index=0"));
  const std::string n = w.Add("s32[]", absl::StrCat("constant(", trips, ")"));
  w.AddRoot("pred[]", absl::StrCat("compare(", i, ", ", n, "), direction=LT"));
  return w.Computation(name);
}

// The loop state's elements in `w` (parameter 0 of `state` shape), named; element 0 is the
// counter i, and k = i * block.
std::vector<std::string> Unpack(Writer& w, const std::string& state, const std::vector<std::string>& shapes) {
  const std::string p = w.Add(state, "parameter(0)");
  std::vector<std::string> out;
  out.push_back(w.Add("s32[]", absl::StrCat("get-tuple-element(", p, "), index=0")));
  for (size_t e = 0; e < shapes.size(); ++e) {
    out.push_back(w.Add(shapes[e], absl::StrCat("get-tuple-element(", p, "), index=", e + 1)));
  }
  return out;
}

// Ends a body: (i + 1, elements...) as its root.
void Repack(Writer& w, const std::string& state, const std::string& i, const std::vector<std::string>& elements) {
  const std::string next = w.Add("s32[]", absl::StrCat("add(", i, ", ", w.Add("s32[]", "constant(1)"), ")"));
  std::vector<std::string> all = {next};
  all.insert(all.end(), elements.begin(), elements.end());
  w.AddRoot(state, absl::StrCat("tuple(", absl::StrJoin(all, ", "), ")"));
}

// Cholesky, lower, of the [.., n, n] operand (see the header).
absl::StatusOr<std::string> CholeskyText(const HloInstruction& hlo, int64_t block, const std::vector<int64_t>& batch,
                                         int64_t n) {
  const PrimitiveType type = Wide(hlo.shape().element_type());
  const bool lower = hlo.attrs().cholesky_options().lower();
  const int64_t big = RoundUp(n, block), trips = big / block;
  int counter = 0;
  const std::string prefix = absl::StrCat(hlo.name(), ".b");
  Writer body(type, batch, prefix, &counter);
  const std::string matrix = body.Array(big, big), state = StateShape({matrix, matrix});
  {
    std::vector<std::string> s = Unpack(body, state, {matrix, matrix});
    const std::string &i = s[0], &a = s[1], &l = s[2];
    const std::string b = body.Add("s32[]", absl::StrCat("constant(", block, ")"));
    const std::string k = body.Add("s32[]", absl::StrCat("multiply(", i, ", ", b, ")"));
    const std::string z = body.Add("s32[]", "constant(0)");
    const std::string column =
        body.Add(body.Array(big, block), absl::StrCat("dynamic-slice(", a, ", ", body.Starts(z, z, k), "), ",
                                                      body.Sizes(big, block)));
    const std::string row =
        body.Add(body.Array(block, big), absl::StrCat("dynamic-slice(", l, ", ", body.Starts(z, k, z), "), ",
                                                      body.Sizes(block, big)));
    // L . conj(row)^T: the finished columns' part of the block's columns.
    const std::string done = body.Dot(l, body.Conj(row, block, big), 1, 1, big, block);
    const std::string rest = body.Add(body.Array(big, block), absl::StrCat("subtract(", column, ", ", done, ")"));
    const std::string diagonal =
        body.Add(body.Array(block, block), absl::StrCat("dynamic-slice(", rest, ", ", body.Starts(z, k, z), "), ",
                                                        body.Sizes(block, block)));
    const std::string l11 = body.Add(body.Array(block, block), absl::StrCat("cholesky(", diagonal, "), lower=true"));
    const std::string panel =
        body.Add(body.Array(big, block), absl::StrCat("triangular-solve(", l11, ", ", rest,
                                                      "), left_side=false, lower=true, transpose_a=ADJOINT"));
    const std::string zeros = body.Broadcast(body.Constant("0"), body.Array(big, block));
    const std::string placed = body.Add(body.Array(big, block), absl::StrCat("dynamic-update-slice(", zeros, ", ", l11,
                                                                             ", ", body.Starts(z, k, z), ")"));
    const std::string rows = body.Iota(big, block, body.rank() - 2);
    const std::string end = body.Broadcast(body.Add("s32[]", absl::StrCat("add(", k, ", ", b, ")")),
                                           body.Array(S32, big, block));
    const std::string below = body.Add(body.Array(PRED, big, block), absl::StrCat("compare(", rows, ", ", end, "), direction=GE"));
    const std::string column_of_l =
        body.Add(body.Array(big, block), absl::StrCat("select(", below, ", ", panel, ", ", placed, ")"));
    const std::string updated =
        body.Add(matrix, absl::StrCat("dynamic-update-slice(", l, ", ", column_of_l, ", ", body.Starts(z, z, k), ")"));
    Repack(body, state, i, {a, updated});
  }
  Writer any(PRED, {}, prefix, &counter);
  const std::string x = any.Add("pred[]", "parameter(0)"), y = any.Add("pred[]", "parameter(1)");
  any.AddRoot("pred[]", absl::StrCat("or(", x, ", ", y, ")"));
  Writer e(type, batch, prefix, &counter);
  std::string a = e.Parameter(hlo.operand(0)->shape(), 0, n, n);
  // The upper factor of a is the conjugate transpose of the lower factor of a^H.
  if (!lower) a = e.Conj(e.Transpose(a, n, n), n, n);
  a = e.PadWithIdentity(a, n, big);
  const std::string zeros = e.Broadcast(e.Constant("0"), matrix);
  const std::string init =
      e.Add(state, absl::StrCat("tuple(", e.Add("s32[]", "constant(0)"), ", ", a, ", ", zeros, ")"));
  const std::string loop = e.Add(state, absl::StrCat("while(", init, "), condition=", prefix, "cond, body=", prefix, "body"));
  std::string l = e.Add(matrix, absl::StrCat("get-tuple-element(", loop, "), index=2"));
  if (big != n) l = e.Slice(l, n, n);
  // A pivot that was not positive left its block NaN: the whole factor is NaN then.
  const std::string nan_at = e.Add(e.Array(PRED, n, n), absl::StrCat("compare(", l, ", ", l, "), direction=NE"));
  const std::string any_nan =
      e.Add(absl::StrCat("pred[", absl::StrJoin(batch, ","), "]"),
            absl::StrCat("reduce(", nan_at, ", ", e.Add("pred[]", "constant(false)"), "), dimensions={", e.rank() - 2,
                         ",", e.rank() - 1, "}, to_apply=", prefix, "any"));
  const std::string failed =
      e.Add(e.Array(PRED, n, n), absl::StrCat("broadcast(", any_nan, "), dimensions={", e.BatchDims(), "}"));
  std::string result = e.Add(e.Array(n, n), absl::StrCat("select(", failed, ", ", e.Broadcast(e.Constant("nan"), e.Array(n, n)),
                                                         ", ", l, ")"));
  if (!lower) result = e.Conj(e.Transpose(result, n, n), n, n);
  e.Result(hlo.shape(), result);
  return absl::StrCat("HloModule blocked_cholesky\n\n", any.Computation(prefix + "any"),
                      Condition(prefix + "cond", state, trips, prefix, &counter), body.Computation(prefix + "body"),
                      e.Computation(prefix + "main", /*entry=*/true));
}

// Triangular-solve brought to left side, lower, no transpose (see the header).
absl::StatusOr<std::string> TriangularSolveText(const HloInstruction& hlo, int64_t block,
                                                const std::vector<int64_t>& batch, int64_t m) {
  const PrimitiveType type = Wide(hlo.shape().element_type());
  const TriangularSolveOptions& o = hlo.attrs().triangular_solve_options();
  const bool transposed = o.transpose_a() == TriangularSolveOptions::TRANSPOSE ||
                          o.transpose_a() == TriangularSolveOptions::ADJOINT;
  const Shape& b_shape = hlo.operand(1)->shape();
  const int64_t rows = b_shape.dimensions(b_shape.rank() - 2), cols = b_shape.dimensions(b_shape.rank() - 1);
  const int64_t k_cols = o.left_side() ? cols : rows;  // right-hand sides after the rewrite
  const int64_t big = RoundUp(m, block), trips = big / block;
  int counter = 0;
  const std::string prefix = absl::StrCat(hlo.name(), ".b");
  Writer body(type, batch, prefix, &counter);
  const std::string matrix = body.Array(big, big), rhs_shape = body.Array(big, k_cols);
  const std::string state = StateShape({matrix, rhs_shape, rhs_shape});
  {
    std::vector<std::string> s = Unpack(body, state, {matrix, rhs_shape, rhs_shape});
    const std::string &i = s[0], &t = s[1], &rhs = s[2], &x = s[3];
    const std::string b = body.Add("s32[]", absl::StrCat("constant(", block, ")"));
    const std::string k = body.Add("s32[]", absl::StrCat("multiply(", i, ", ", b, ")"));
    const std::string z = body.Add("s32[]", "constant(0)");
    const std::string t_rows = body.Add(
        body.Array(block, big), absl::StrCat("dynamic-slice(", t, ", ", body.Starts(z, k, z), "), ", body.Sizes(block, big)));
    // The finished rows of x times their columns of t (x's other rows are still zero).
    const std::string done = body.Dot(t_rows, x, 1, 0, block, k_cols);
    const std::string b_rows =
        body.Add(body.Array(block, k_cols),
                 absl::StrCat("dynamic-slice(", rhs, ", ", body.Starts(z, k, z), "), ", body.Sizes(block, k_cols)));
    const std::string rest = body.Add(body.Array(block, k_cols), absl::StrCat("subtract(", b_rows, ", ", done, ")"));
    const std::string diagonal =
        body.Add(body.Array(block, block),
                 absl::StrCat("dynamic-slice(", t, ", ", body.Starts(z, k, k), "), ", body.Sizes(block, block)));
    const std::string solved = body.Add(
        body.Array(block, k_cols),
        absl::StrCat("triangular-solve(", diagonal, ", ", rest, "), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                     o.unit_diagonal() ? ", unit_diagonal=true" : ""));
    const std::string updated =
        body.Add(rhs_shape, absl::StrCat("dynamic-update-slice(", x, ", ", solved, ", ", body.Starts(z, k, z), ")"));
    Repack(body, state, i, {t, rhs, updated});
  }
  Writer e(type, batch, prefix, &counter);
  std::string t = e.Parameter(hlo.operand(0)->shape(), 0, m, m);
  std::string rhs = e.Parameter(b_shape, 1, rows, cols);
  // t = op(a): lower when the named triangle is and op keeps it there.
  bool lower = o.lower() != transposed;
  if (transposed) t = e.Transpose(t, m, m);
  if (o.transpose_a() == TriangularSolveOptions::ADJOINT) t = e.Conj(t, m, m);
  // x t = b is t^T x^T = b^T.
  if (!o.left_side()) {
    t = e.Transpose(t, m, m);
    rhs = e.Transpose(rhs, rows, m);
    lower = !lower;
  }
  // An upper t solves as the lower J t J (J reversing the order) on J b, giving J x.
  if (!lower) {
    t = e.Reverse(t, m, m, true);
    rhs = e.Reverse(rhs, m, k_cols, false);
  }
  // Keep the triangle only (and not the diagonal when it is taken as ones), so that the
  // other values, NaN included, never meet a dot.
  const std::string r = e.Iota(m, m, e.rank() - 2), c = e.Iota(m, m, e.rank() - 1);
  const std::string keep = e.Add(e.Array(PRED, m, m), absl::StrCat("compare(", c, ", ", r, "), direction=",
                                                                  o.unit_diagonal() ? "LT" : "LE"));
  t = e.Add(e.Array(m, m), absl::StrCat("select(", keep, ", ", t, ", ", e.Broadcast(e.Constant("0"), e.Array(m, m)), ")"));
  t = e.PadWithIdentity(t, m, big);
  if (big != m) rhs = e.Pad(rhs, m, k_cols, big, k_cols);
  const std::string zeros = e.Broadcast(e.Constant("0"), rhs_shape);
  const std::string init =
      e.Add(state, absl::StrCat("tuple(", e.Add("s32[]", "constant(0)"), ", ", t, ", ", rhs, ", ", zeros, ")"));
  const std::string loop = e.Add(state, absl::StrCat("while(", init, "), condition=", prefix, "cond, body=", prefix, "body"));
  std::string x = e.Add(rhs_shape, absl::StrCat("get-tuple-element(", loop, "), index=3"));
  if (big != m) x = e.Slice(x, m, k_cols);
  if (!lower) x = e.Reverse(x, m, k_cols, false);
  if (!o.left_side()) x = e.Transpose(x, m, k_cols);
  e.Result(hlo.shape(), x);
  return absl::StrCat("HloModule blocked_triangular_solve\n\n",
                      Condition(prefix + "cond", state, trips, prefix, &counter), body.Computation(prefix + "body"),
                      e.Computation(prefix + "main", /*entry=*/true));
}

// The order of the matrices `hlo` solves with, or -1 when it is not a cholesky or
// triangular-solve of well-formed array shapes.
int64_t SolverOrder(const HloInstruction& hlo, std::vector<int64_t>* batch) {
  const bool cholesky = hlo.opcode() == HloOpcode::kCholesky;
  if (!cholesky && hlo.opcode() != HloOpcode::kTriangularSolve) return -1;
  if (hlo.operand_count() != (cholesky ? 1 : 2) || !hlo.shape().IsArray()) return -1;
  const Shape& a = hlo.operand(0)->shape();
  if (!a.IsArray() || a.rank() < 2 || a.element_type() != hlo.shape().element_type()) return -1;
  const int64_t rank = a.rank(), m = a.dimensions(rank - 1);
  if (a.dimensions(rank - 2) != m || hlo.shape().rank() != rank) return -1;
  if (!primitive_util::IsFloatingPointType(a.element_type()) && !primitive_util::IsComplexType(a.element_type())) {
    return -1;
  }
  for (int64_t d = 0; d < rank - 2; ++d) {
    if (hlo.shape().dimensions(d) != a.dimensions(d)) return -1;
  }
  if (cholesky) {
    if (hlo.shape().dimensions() != a.dimensions()) return -1;
  } else {
    const Shape& b = hlo.operand(1)->shape();
    if (!b.IsArray() || b.dimensions() != hlo.shape().dimensions() || b.element_type() != a.element_type()) return -1;
    const bool left = hlo.attrs().triangular_solve_options().left_side();
    if (b.dimensions(rank - (left ? 2 : 1)) != m) return -1;
  }
  batch->assign(a.dimensions().begin(), a.dimensions().end() - 2);
  return m;
}

// Moves the computations of `text`'s module into `module` (callees remapped to the copies)
// and returns the copy of its entry.
absl::StatusOr<HloComputation*> Splice(HloModule* module, const std::string& text) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> parsed, ParseAndReturnUnverifiedModule(text));
  absl::flat_hash_map<const HloComputation*, HloComputation*> copies;
  HloComputation* entry = nullptr;
  for (HloComputation* computation : parsed->MakeComputationPostOrder()) {
    HloComputation* copy = module->CloneComputation(*computation, computation->name());
    for (const auto& instruction : copy->instructions()) {
      for (size_t c = 0; c < instruction->called_computations().size(); ++c) {
        instruction->set_called_computation(static_cast<int64_t>(c), copies.at(instruction->called_computations()[c]));
      }
    }
    copies[computation] = copy;
    if (computation == parsed->entry_computation()) entry = copy;
  }
  if (entry == nullptr) return absl::InternalError("blocked solver: no entry computation");
  return entry;
}

}  // namespace

absl::StatusOr<std::string> BlockedSolverText(const HloInstruction& hlo, int64_t block) {
  std::vector<int64_t> batch;
  const int64_t m = SolverOrder(hlo, &batch);
  if (m < 0 || block < 1) {
    return absl::InvalidArgumentError(absl::StrCat("no blocked form for ", hlo.name(), " (block ", block, ")"));
  }
  if (hlo.opcode() == HloOpcode::kCholesky) return CholeskyText(hlo, block, batch, m);
  return TriangularSolveText(hlo, block, batch, m);
}

absl::StatusOr<bool> BlockSolvers(HloModule* module, int64_t block) {
  if (block < 1) return absl::InvalidArgumentError(absl::StrCat("solver block ", block));
  std::vector<std::pair<HloComputation*, HloInstruction*>> large;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      std::vector<int64_t> batch;
      if (SolverOrder(*hlo, &batch) > 2 * block) large.emplace_back(computation, hlo);
    }
  }
  for (auto [computation, hlo] : large) {
    ASSIGN_OR_RETURN(std::string text, BlockedSolverText(*hlo, block));
    ASSIGN_OR_RETURN(HloComputation * blocked, Splice(module, text));
    std::vector<HloInstruction*> operands(hlo->operands().begin(), hlo->operands().end());
    HloInstruction* call = AddWithShape(computation, HloOpcode::kCall, hlo->shape(), operands);
    call->AppendComputation(blocked);
    RETURN_IF_ERROR(hlo->ReplaceAllUsesWith(call));
    if (computation->root_instruction() == hlo) computation->set_root_instruction(call);
    RETURN_IF_ERROR(computation->RemoveInstruction(hlo));
  }
  return !large.empty();
}

}  // namespace cpu
}  // namespace xla
