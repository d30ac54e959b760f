// RaggedAllToAll, DynamicReshape, CompositeCall and CustomCallWithConvDnums built with
// XlaBuilder: the instructions and attributes XLA's builder makes, accepted by the verifier,
// printed as text that parses back to the same module, and clear errors for bad operands.
// (ErfInv's values are checked on the interpreter: backends/builder_math_test.cc.)

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hlo/builder/builder_test_util.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

Shape Vf32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); }
Shape Vs32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(S32, dims); }

// The module `b` builds, verified, and checked to survive printing and parsing unchanged.
std::unique_ptr<HloModule> BuildVerified(XlaBuilder& b) {
  std::unique_ptr<HloModule> module = builder_testing::BuildVerified(b);
  if (module == nullptr) return nullptr;
  const std::string text = HloModuleToString(*module);
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << text;
  if (reparsed.ok()) EXPECT_EQ(HloModuleToString(**reparsed), text);
  return module;
}

const HloInstruction* Root(const HloModule& module) { return module.entry_computation()->root_instruction(); }

std::string Error(XlaBuilder& b) {
  absl::StatusOr<XlaComputation> computation = b.Build();
  EXPECT_FALSE(computation.ok());
  return computation.ok() ? "" : std::string(computation.status().message());
}

TEST(XlaBuilderMiscTest, RaggedAllToAllTakesHloOperandOrder) {
  XlaBuilder b("ragged");
  XlaOp input = Parameter(&b, 0, Vf32({8, 3}), "input");
  XlaOp output = Parameter(&b, 1, Vf32({10, 3}), "output");
  XlaOp input_offsets = Parameter(&b, 2, Vs32({2}), "input_offsets");
  XlaOp send_sizes = Parameter(&b, 3, Vs32({2}), "send_sizes");
  XlaOp output_offsets = Parameter(&b, 4, Vs32({2}), "output_offsets");
  XlaOp recv_sizes = Parameter(&b, 5, Vs32({2}), "recv_sizes");
  ReplicaGroup group;
  group.add_replica_ids(0);
  group.add_replica_ids(1);
  RaggedAllToAll(input, input_offsets, send_sizes, output, output_offsets, recv_sizes, {group});
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = Root(*module);
  EXPECT_EQ(root->opcode(), HloOpcode::kRaggedAllToAll);
  EXPECT_TRUE(ShapeUtil::Compatible(root->shape(), Vf32({10, 3}))) << root->shape().ToString();
  // XLA's operand order: input, output, then the offsets and sizes.
  const std::vector<std::string> names = {"input", "output", "input_offsets", "send_sizes", "output_offsets",
                                          "recv_sizes"};
  ASSERT_EQ(root->operand_count(), 6);
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(root->operand(i)->name().rfind(names[i], 0), 0u) << root->operand(i)->name();
  }
  ASSERT_EQ(root->attrs().replica_groups_size(), 1);
  EXPECT_EQ(root->attrs().replica_groups(0).replica_ids_size(), 2);

  XlaBuilder bad("ragged_bad");
  XlaOp in = Parameter(&bad, 0, Vf32({8, 3}), "input");
  XlaOp out = Parameter(&bad, 1, Vf32({10, 4}), "output");
  XlaOp sizes = Parameter(&bad, 2, Vs32({2}), "sizes");
  RaggedAllToAll(in, sizes, sizes, out, sizes, sizes);
  EXPECT_NE(Error(bad).find("may differ only in the major dimension"), std::string::npos);
}

TEST(XlaBuilderMiscTest, DynamicReshapeBoundsAndFlagsItsDimensions) {
  XlaBuilder b("dynamic_reshape");
  XlaOp x = Parameter(&b, 0, Vf32({4, 6}), "x");
  XlaOp rows = Parameter(&b, 1, ShapeUtil::MakeScalarShape(S32), "rows");
  XlaOp cols = ConstantR0<int32_t>(&b, 8);
  DynamicReshape(x, {rows, cols}, {3, 8}, {true, false});
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = Root(*module);
  EXPECT_EQ(root->opcode(), HloOpcode::kDynamicReshape);
  EXPECT_EQ(root->operand_count(), 3);
  EXPECT_EQ(root->shape().dimensions(0), 3);
  EXPECT_EQ(root->shape().dimensions(1), 8);
  EXPECT_TRUE(root->shape().is_dynamic_dimension(0));
  EXPECT_FALSE(root->shape().is_dynamic_dimension(1));

  XlaBuilder counts("dynamic_reshape_counts");
  XlaOp y = Parameter(&counts, 0, Vf32({4, 6}), "y");
  XlaOp n = ConstantR0<int32_t>(&counts, 4);
  DynamicReshape(y, {n}, {4, 6}, {true, false});
  EXPECT_NE(Error(counts).find("1 sizes, 2 bounds and 2 dynamic flags"), std::string::npos);

  XlaBuilder types("dynamic_reshape_types");
  XlaOp z = Parameter(&types, 0, Vf32({4, 6}), "z");
  XlaOp wide = ConstantR0<int64_t>(&types, 4);
  DynamicReshape(z, {wide, wide}, {4, 6}, {true, false});
  EXPECT_NE(Error(types).find("must be an s32 scalar"), std::string::npos);

  XlaBuilder negative("dynamic_reshape_negative");
  XlaOp v = Parameter(&negative, 0, Vf32({4, 6}), "v");
  XlaOp four = ConstantR0<int32_t>(&negative, 4);
  DynamicReshape(v, {four, four}, {4, -6}, {true, false});
  EXPECT_NE(Error(negative).find("negative bound -6"), std::string::npos);

  // Static bounds must hold the operand's elements exactly.
  XlaBuilder counts_differ("dynamic_reshape_count");
  XlaOp u = Parameter(&counts_differ, 0, Vf32({4, 6}), "u");
  XlaOp five = ConstantR0<int32_t>(&counts_differ, 5);
  DynamicReshape(u, {five, five}, {5, 5}, {false, false});
  EXPECT_FALSE(Error(counts_differ).empty());

  XlaBuilder tuple("dynamic_reshape_tuple");
  XlaOp t = Tuple(&tuple, {Parameter(&tuple, 0, Vf32({4}), "t")});
  DynamicReshape(t, {ConstantR0<int32_t>(&tuple, 4)}, {4}, {true});
  EXPECT_NE(Error(tuple).find("dynamic-reshape of ("), std::string::npos);
}

TEST(XlaBuilderMiscTest, CompositeCallIsACallNamingItsComposite) {
  XlaBuilder sub("my_op_impl");
  XlaOp a = Parameter(&sub, 0, Vf32({4}), "a");
  Mul(a, a);
  XlaComputation impl = sub.Build().value();

  XlaBuilder b("composite");
  XlaOp x = Parameter(&b, 0, Vf32({4}), "x");
  CompositeCall(&b, impl, {x}, "my.square", "{exponent = 2 : i32}", 3);
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = Root(*module);
  EXPECT_EQ(root->opcode(), HloOpcode::kCall);
  EXPECT_TRUE(root->attrs().is_composite());
  const auto& map = root->attrs().frontend_attributes().map();
  EXPECT_EQ(map.at("composite.name"), "my.square");
  EXPECT_EQ(map.at("composite.attributes"), "{exponent = 2 : i32}");
  EXPECT_EQ(map.at("composite.version"), "3");
  EXPECT_TRUE(ShapeUtil::Compatible(root->shape(), Vf32({4})));

  // Defaults: no attributes ("{}") and version 0.
  XlaBuilder plain("composite_plain");
  XlaOp y = Parameter(&plain, 0, Vf32({4}), "y");
  CompositeCall(&plain, impl, {y}, "my.square");
  std::unique_ptr<HloModule> defaults = BuildVerified(plain);
  ASSERT_NE(defaults, nullptr);
  const auto& defaults_map = Root(*defaults)->attrs().frontend_attributes().map();
  EXPECT_EQ(defaults_map.at("composite.attributes"), "{}");
  EXPECT_EQ(defaults_map.at("composite.version"), "0");

  XlaBuilder unnamed("composite_unnamed");
  CompositeCall(&unnamed, impl, {Parameter(&unnamed, 0, Vf32({4}), "z")}, "");
  EXPECT_NE(Error(unnamed).find("needs a name"), std::string::npos);
  XlaBuilder wrong("composite_wrong");
  CompositeCall(&wrong, impl, {Parameter(&wrong, 0, Vf32({5}), "z")}, "my.square");
  EXPECT_FALSE(Error(wrong).empty());
}

TEST(XlaBuilderMiscTest, CustomCallWithConvDnumsCarriesWindowDimensionNumbersAndLiteral) {
  XlaBuilder b("conv_custom_call");
  XlaOp input = Parameter(&b, 0, Vf32({1, 8, 8, 3}), "input");
  XlaOp filter = Parameter(&b, 1, Vf32({3, 3, 3, 4}), "filter");
  Window window;
  for (int i = 0; i < 2; ++i) {
    WindowDimension* d = window.add_dimensions();
    d->set_size(3);
    d->set_stride(1);
    d->set_padding_low(1);
    d->set_padding_high(1);
    d->set_window_dilation(1);
    d->set_base_dilation(1);
  }
  ConvolutionDimensionNumbers dnums;
  dnums.set_input_batch_dimension(0);
  dnums.set_input_feature_dimension(3);
  dnums.add_input_spatial_dimensions(1);
  dnums.add_input_spatial_dimensions(2);
  dnums.set_kernel_input_feature_dimension(2);
  dnums.set_kernel_output_feature_dimension(3);
  dnums.add_kernel_spatial_dimensions(0);
  dnums.add_kernel_spatial_dimensions(1);
  dnums.set_output_batch_dimension(0);
  dnums.set_output_feature_dimension(3);
  dnums.add_output_spatial_dimensions(1);
  dnums.add_output_spatial_dimensions(2);
  const Literal scale = Literal::CreateR0<float>(0.5f);
  CustomCallWithConvDnums(&b, "my_conv", {input, filter}, Vf32({1, 8, 8, 4}), {}, "opaque-config",
                          /*has_side_effect=*/false, {}, &scale, window, dnums);
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = Root(*module);
  EXPECT_EQ(root->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(root->attrs().custom_call_target(), "my_conv");
  EXPECT_EQ(root->attrs().backend_config(), "opaque-config");
  ASSERT_EQ(root->attrs().window().dimensions_size(), 2);
  EXPECT_EQ(root->attrs().window().dimensions(1).padding_high(), 1);
  EXPECT_EQ(root->attrs().convolution_dimension_numbers().input_feature_dimension(), 3);
  EXPECT_EQ(root->attrs().convolution_dimension_numbers().kernel_output_feature_dimension(), 3);
  ASSERT_TRUE(root->has_literal());
  EXPECT_EQ(root->literal().GetAsDouble(int64_t{0}), 0.5);
  EXPECT_FALSE(root->attrs().constrain_layout());  // no operand shapes: unconstrained

  // With operand layouts, constrained; a wrong count of them is refused by name.
  XlaBuilder laid("conv_custom_call_layouts");
  XlaOp p = Parameter(&laid, 0, Vf32({2, 2}), "p");
  CustomCallWithConvDnums(&laid, "my_conv", {p}, Vf32({2, 2}), {Vf32({2, 2})}, "", false, {}, nullptr, window, dnums);
  std::unique_ptr<HloModule> constrained = BuildVerified(laid);
  ASSERT_NE(constrained, nullptr);
  EXPECT_TRUE(Root(*constrained)->attrs().constrain_layout());
  XlaBuilder miscounted("conv_custom_call_miscounted");
  XlaOp q = Parameter(&miscounted, 0, Vf32({2, 2}), "q");
  CustomCallWithConvDnums(&miscounted, "my_conv", {q}, Vf32({2, 2}), {Vf32({2, 2}), Vf32({2, 2})}, "", false, {},
                          nullptr, window, dnums);
  EXPECT_NE(Error(miscounted).find("2 operand shapes given for 1 operands"), std::string::npos);
}

}  // namespace
}  // namespace xla
