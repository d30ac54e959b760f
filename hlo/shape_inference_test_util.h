#ifndef XLA_HLO_SHAPE_INFERENCE_TEST_UTIL_H_
#define XLA_HLO_SHAPE_INFERENCE_TEST_UTIL_H_

// Helpers for the shape_inference_*_test.cc files: build shapes and attrs directly and
// run InferHloShape, comparing results by their text.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/shape.h"
#include "hlo/shape_inference.h"

namespace xla {
namespace testing_si {

inline Shape S(PrimitiveType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }
inline Shape Dyn(PrimitiveType t, std::vector<int64_t> dims, std::vector<int> dynamic) {
  Shape s(t, std::move(dims));
  for (int d : dynamic) s.set_dynamic_dimension(d, true);
  return s;
}
inline Shape T(std::vector<Shape> e) { return Shape::MakeTuple(std::move(e)); }
inline Shape Tok() { return Shape::MakeToken(); }

inline ProgramShape Prog(std::vector<Shape> params, Shape result) {
  ProgramShape p;
  p.parameters() = std::move(params);
  p.result() = std::move(result);
  return p;
}

// Runs inference; returns the result text or "ERROR: <message>".
inline std::string Infer(HloOpcode op, const std::vector<Shape>& operands,
                         const HloInstructionProto& attrs = HloInstructionProto(),
                         const std::vector<ProgramShape>& called = {}) {
  std::vector<const Shape*> ops;
  for (const Shape& s : operands) ops.push_back(&s);
  std::vector<const ProgramShape*> progs;
  for (const ProgramShape& p : called) progs.push_back(&p);
  absl::StatusOr<Shape> r = InferHloShape(op, ops, attrs, progs);
  if (!r.ok()) {
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    return "ERROR: " + std::string(r.status().message());
  }
  return r->ToString(false);
}

inline HloInstructionProto Dims(std::vector<int64_t> dims) {
  HloInstructionProto a;
  for (int64_t d : dims) a.add_dimensions(d);
  return a;
}

inline ::testing::Matcher<std::string> IsError(const std::string& fragment) {
  return ::testing::AllOf(::testing::StartsWith("ERROR: "), ::testing::HasSubstr(fragment));
}

}  // namespace testing_si
}  // namespace xla

#endif  // XLA_HLO_SHAPE_INFERENCE_TEST_UTIL_H_
