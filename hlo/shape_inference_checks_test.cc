// CheckHloShape: declared shapes of instructions checked against operands and attributes.

#include "hlo/shape_inference_checks.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/shape_inference.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

class CheckTest : public ::testing::Test {
 protected:
  HloInstruction* Param(const Shape& shape) {
    auto p = HloInstruction::Create(HloOpcode::kParameter, shape);
    p->mutable_attrs()->set_parameter_number(next_param_++);
    p->set_name("p" + std::to_string(next_param_ - 1));
    return comp_.AddInstruction(std::move(p));
  }
  HloInstruction* Add(HloOpcode op, const Shape& shape, std::vector<HloInstruction*> operands) {
    auto i = HloInstruction::Create(op, shape, operands);
    i->set_name("i" + std::to_string(comp_.instruction_count()));
    return comp_.AddInstruction(std::move(i));
  }
  HloComputation comp_{"entry"};
  int64_t next_param_ = 0;
};

TEST_F(CheckTest, InferableOpMustMatch) {
  HloInstruction* a = Param(Shape(F32, {2, 3}));
  HloInstruction* b = Param(Shape(F32, {2, 3}));
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kAdd, Shape(F32, {2, 3}), {a, b})).ok());
  absl::Status bad = CheckHloShape(*Add(HloOpcode::kAdd, Shape(F32, {3, 2}), {a, b}));
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("add 'i3'"));
  EXPECT_THAT(bad.message(), HasSubstr("should be f32[2,3] but is declared as f32[3,2]"));
  // Layouts and dynamism of the declared shape are not compared.
  Shape with_layout = Shape(F32, {2, 3});
  with_layout.set_layout(Layout({0, 1}));
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kAdd, with_layout, {a, b})).ok());
  EXPECT_TRUE(InferHloShape(*Add(HloOpcode::kAdd, with_layout, {a, b})).ok());
}

TEST_F(CheckTest, BroadcastDimensionsMapping) {
  HloInstruction* a = Param(Shape(F32, {3}));
  HloInstruction* ok = Add(HloOpcode::kBroadcast, Shape(F32, {2, 3}), {a});
  ok->mutable_attrs()->add_dimensions(1);
  EXPECT_TRUE(CheckHloShape(*ok).ok());
  HloInstruction* wrong_size = Add(HloOpcode::kBroadcast, Shape(F32, {3, 2}), {a});
  wrong_size->mutable_attrs()->add_dimensions(1);
  EXPECT_THAT(CheckHloShape(*wrong_size).message(), HasSubstr("must equal result dimension"));
  HloInstruction* out_of_range = Add(HloOpcode::kBroadcast, Shape(F32, {3}), {a});
  out_of_range->mutable_attrs()->add_dimensions(1);
  EXPECT_THAT(CheckHloShape(*out_of_range).message(), HasSubstr("out of range"));
  HloInstruction* wrong_type = Add(HloOpcode::kBroadcast, Shape(S32, {3}), {a});
  wrong_type->mutable_attrs()->add_dimensions(0);
  EXPECT_THAT(CheckHloShape(*wrong_type).message(), HasSubstr("element type"));
}

TEST_F(CheckTest, ReshapeConvertBitcastIota) {
  HloInstruction* a = Param(Shape(F32, {2, 6}));
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kReshape, Shape(F32, {3, 4}), {a})).ok());
  EXPECT_THAT(CheckHloShape(*Add(HloOpcode::kReshape, Shape(F32, {3, 5}), {a})).message(),
              HasSubstr("element counts"));
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kConvert, Shape(S8, {2, 6}), {a})).ok());
  EXPECT_THAT(CheckHloShape(*Add(HloOpcode::kConvert, Shape(S8, {6, 2}), {a})).message(),
              HasSubstr("keep its dimensions"));
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kBitcastConvert, Shape(U32, {2, 6}), {a})).ok());
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kBitcastConvert, Shape(U8, {2, 6, 4}), {a})).ok());
  EXPECT_FALSE(CheckHloShape(*Add(HloOpcode::kBitcastConvert, Shape(U8, {2, 6}), {a})).ok());
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kBitcast, Shape(F32, {12}), {a})).ok());
  EXPECT_THAT(CheckHloShape(*Add(HloOpcode::kBitcast, Shape(F32, {13}), {a})).message(),
              HasSubstr("byte size"));
  HloInstruction* iota = Add(HloOpcode::kIota, Shape(S32, {4, 5}), {});
  iota->mutable_attrs()->add_dimensions(1);
  EXPECT_TRUE(CheckHloShape(*iota).ok());
  HloInstruction* bad_iota = Add(HloOpcode::kIota, Shape(S32, {4, 5}), {});
  bad_iota->mutable_attrs()->add_dimensions(2);
  EXPECT_THAT(CheckHloShape(*bad_iota).message(), HasSubstr("iota_dimension"));
}

TEST_F(CheckTest, DotPreferredElementType) {
  HloInstruction* a = Param(Shape(S8, {2, 3}));
  HloInstruction* b = Param(Shape(S8, {3, 4}));
  auto make = [&](PrimitiveType t) {
    HloInstruction* d = Add(HloOpcode::kDot, Shape(t, {2, 4}), {a, b});
    d->mutable_attrs()->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
    d->mutable_attrs()->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
    return d;
  };
  EXPECT_TRUE(CheckHloShape(*make(S32)).ok());
  EXPECT_TRUE(CheckHloShape(*make(S8)).ok());
  // Pure inference gives the operand type.
  EXPECT_EQ(InferHloShape(*make(S32))->ToString(), "s8[2,4]");
}

TEST_F(CheckTest, InfeedRecvCustomCallForms) {
  HloInstruction* tok = Add(HloOpcode::kAfterAll, Shape::MakeToken(), {});
  EXPECT_TRUE(CheckHloShape(*tok).ok());
  Shape infeed_shape = Shape::MakeTuple({Shape(F32, {3}), Shape::MakeToken()});
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kInfeed, infeed_shape, {tok})).ok());
  EXPECT_THAT(CheckHloShape(*Add(HloOpcode::kInfeed, Shape(F32, {3}), {tok})).message(),
              HasSubstr("(data, token[])"));
  Shape recv_shape = Shape::MakeTuple({Shape(F32, {3}), Shape(U32, {}), Shape::MakeToken()});
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kRecv, recv_shape, {tok})).ok());
  EXPECT_TRUE(CheckHloShape(*Add(HloOpcode::kCustomCall, Shape(F32, {7}), {tok})).ok());
}

TEST_F(CheckTest, CalledComputationSignature) {
  HloComputation add("add");
  // Parameters are registered by number when added, so the number is set first.
  auto px = HloInstruction::Create(HloOpcode::kParameter, Shape(F32, {}));
  px->mutable_attrs()->set_parameter_number(0);
  HloInstruction* x = add.AddInstruction(std::move(px));
  auto py = HloInstruction::Create(HloOpcode::kParameter, Shape(F32, {}));
  py->mutable_attrs()->set_parameter_number(1);
  HloInstruction* y = add.AddInstruction(std::move(py));
  add.set_root_instruction(
      add.AddInstruction(HloInstruction::Create(HloOpcode::kAdd, Shape(F32, {}), {x, y})));

  HloInstruction* in = Param(Shape(F32, {4, 5}));
  HloInstruction* init = Param(Shape(F32, {}));
  HloInstruction* r = Add(HloOpcode::kReduce, Shape(F32, {4}), {in, init});
  r->mutable_attrs()->add_dimensions(1);
  r->AppendComputation(&add);
  EXPECT_TRUE(CheckHloShape(*r).ok()) << CheckHloShape(*r);
  HloInstruction* bad = Add(HloOpcode::kReduce, Shape(F32, {5}), {in, init});
  bad->mutable_attrs()->add_dimensions(1);
  bad->AppendComputation(&add);
  EXPECT_THAT(CheckHloShape(*bad).message(), HasSubstr("should be f32[4]"));
}

}  // namespace
}  // namespace xla
