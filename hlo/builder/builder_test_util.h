#ifndef XLA_HLO_BUILDER_BUILDER_TEST_UTIL_H_
#define XLA_HLO_BUILDER_BUILDER_TEST_UTIL_H_

// What the XlaBuilder tests share.

#include <gtest/gtest.h>

#include <memory>

#include "hlo/builder/xla_builder.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_verifier.h"

namespace xla {
namespace builder_testing {

// The module `b` builds, verified (null after a failed expectation).
inline std::unique_ptr<HloModule> BuildVerified(XlaBuilder& b) {
  absl::StatusOr<XlaComputation> computation = b.Build();
  EXPECT_TRUE(computation.ok()) << computation.status();
  if (!computation.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<HloModule>> module = computation->ToModule();
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  return std::move(*module);
}

}  // namespace builder_testing
}  // namespace xla

#endif  // XLA_HLO_BUILDER_BUILDER_TEST_UTIL_H_
