// Every opcode has an interpreter handler, except parameter (the evaluator binds
// arguments itself). A new opcode without one fails here, not in a user's run.
#include <string>
#include <vector>

#include "backends/interpreter/evaluator.h"
#include "gtest/gtest.h"

namespace xla {
namespace interpreter {
namespace {

TEST(InterpreterCoverageTest, EveryOpcodeHasAHandler) {
  const HandlerTable& table = GlobalHandlerTable();
  std::vector<std::string> missing;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode opcode = static_cast<HloOpcode>(i);
    if (opcode == HloOpcode::kParameter) continue;
    if (table.Find(opcode) == nullptr) missing.emplace_back(HloOpcodeString(opcode));
  }
  std::string list;
  for (const std::string& name : missing) list += name + " ";
  EXPECT_TRUE(missing.empty()) << "opcodes without a handler: " << list;
}

}  // namespace
}  // namespace interpreter
}  // namespace xla
