#include "backends/value_checks.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace backend {
namespace {

using ::testing::HasSubstr;

TEST(ValueChecksTest, DynamicReshapeSizeAtItsBoundOnly) {
  EXPECT_TRUE(CheckDynamicReshapeSize(0, 3, 3, "cpu backend").ok());
  const absl::Status below = CheckDynamicReshapeSize(1, 2, 3, "cpu backend");
  EXPECT_TRUE(absl::IsUnimplemented(below)) << below;
  EXPECT_THAT(std::string(below.message()), HasSubstr("cpu backend keeps static shapes"));
  EXPECT_THAT(std::string(below.message()), HasSubstr("dimension 1"));
  for (int64_t outside : {-1, 4}) {
    const absl::Status s = CheckDynamicReshapeSize(0, outside, 3, "gpu backend");
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("outside [0, 3]"));
  }
}

TEST(ValueChecksTest, RaggedAllToAllRowsMustExistAndAgree) {
  EXPECT_TRUE(CheckRaggedAllToAllRows(1, 3, 2, 3, 4, 5).ok());
  EXPECT_TRUE(CheckRaggedAllToAllRows(0, 0, 5, 0, 4, 5).ok());  // nothing sent, at the end
  const absl::Status differ = CheckRaggedAllToAllRows(0, 2, 0, 3, 4, 5);
  EXPECT_TRUE(absl::IsInvalidArgument(differ)) << differ;
  EXPECT_THAT(std::string(differ.message()), HasSubstr("differs from receive size 3"));
  struct Bad {
    int64_t in_offset, size, out_offset;
  };
  for (const Bad& b : {Bad{2, 3, 0}, Bad{0, 3, 3}, Bad{-1, 1, 0}, Bad{0, 1, -1}, Bad{0, -1, 0}}) {
    const absl::Status s = CheckRaggedAllToAllRows(b.in_offset, b.size, b.out_offset, b.size, 4, 5);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("out of bounds (4 and 5 rows)"));
  }
}

}  // namespace
}  // namespace backend
}  // namespace xla
