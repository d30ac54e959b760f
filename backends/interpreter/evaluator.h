#ifndef XLA_BACKENDS_INTERPRETER_EVALUATOR_H_
#define XLA_BACKENDS_INTERPRETER_EVALUATOR_H_

// The reference evaluator: walks a computation in post order and computes every
// instruction's value as a Literal with a per-opcode handler. Handlers live in op-family
// files (ops_*.cc), each registering its opcodes in a HandlerTable; an opcode nobody
// registered is UNIMPLEMENTED naming it.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/interpreter/device_state.h"
#include "backends/work_counter.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_opcode.h"
#include "hlo/literal.h"

namespace xla {
namespace interpreter {

class Evaluator;

// What a handler may use besides its operands.
struct EvalContext {
  Evaluator* evaluator = nullptr;  // to evaluate called computations
  DeviceState* device = nullptr;   // infeed/outfeed queues, rng state; never null
};

// Computes `instruction`'s value from its operands' values (in operand order). The
// result must have the instruction's shape (layout aside: any layout is accepted and the
// evaluator relayouts where the declared shape has one).
using OpHandler = std::function<absl::StatusOr<Literal>(
    EvalContext& ctx, const HloInstruction& instruction, absl::Span<const Literal* const> operands)>;

class HandlerTable {
 public:
  void Register(HloOpcode opcode, OpHandler handler) {
    handlers_[static_cast<int>(opcode)] = std::move(handler);
  }
  const OpHandler* Find(HloOpcode opcode) const {
    const OpHandler& h = handlers_[static_cast<int>(opcode)];
    return h ? &h : nullptr;
  }

 private:
  std::array<OpHandler, kHloOpcodeCount> handlers_;
};

// One registration function per op family (ops_<family>.cc).
void RegisterControlHandlers(HandlerTable* table);      // parameter, constant, tuple, call, while...
void RegisterElementwiseHandlers(HandlerTable* table);  // unary/binary/ternary math, convert, compare
void RegisterShapeHandlers(HandlerTable* table);        // broadcast, reshape, slice, pad, gather...
void RegisterReductionHandlers(HandlerTable* table);    // reduce, reduce-window, sort, topk...
void RegisterLinalgHandlers(HandlerTable* table);       // dot, convolution, fft, cholesky...
void RegisterRngHandlers(HandlerTable* table);          // rng, rng-bit-generator
void RegisterDeviceHandlers(HandlerTable* table);       // collectives, infeed/outfeed, custom-call

// The table with every family registered (built once).
const HandlerTable& GlobalHandlerTable();

class Evaluator {
 public:
  static constexpr uint64_t kDefaultRngSeed = 42;
  // One Evaluator serves one execution; `rng_seed` of 0 means kDefaultRngSeed.
  // `should_cancel`, when set, is polled before every instruction (a cancelled execution
  // stops at the next op boundary with CANCELLED).
  explicit Evaluator(DeviceState* device, uint64_t rng_seed = 0,
                     std::function<bool()> should_cancel = nullptr)
      : device_(device),
        rng_seed_(rng_seed != 0 ? rng_seed : kDefaultRngSeed),
        should_cancel_(std::move(should_cancel)) {}

  uint64_t rng_seed() const { return rng_seed_; }
  // 0, 1, 2...: how many rng draws this execution made before. An rng inside a loop uses
  // it so that every iteration gets fresh values while whole runs stay reproducible.
  uint64_t NextRngDraw() { return rng_draws_++; }

  // CANCELLED when `should_cancel` says so. Long-running ops poll it inside their loops
  // (CancelPoll: every few thousand reducer calls, every ~2^20 multiply-adds of a dot, a
  // convolution or a factorization), so that one op does not outlive its execution's deadline.
  absl::Status CheckCancelled() const;

  // Evaluates `computation` on `arguments` (one per parameter, in parameter order).
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal* const> arguments);

 private:
  DeviceState* device_;
  const uint64_t rng_seed_;
  const std::function<bool()> should_cancel_;
  uint64_t rng_draws_ = 0;
  int depth_ = 0;  // nesting of called computations, bounded to stop runaway recursion
};

// Polls an evaluator's cancellation from a long op's own loop (a dot's rows, a convolution's
// output positions, a reducer's calls) once per `every` units of work counted by Done: cheap
// enough to be unseen (a clock read per poll), often enough that an op of billions of steps
// stops within milliseconds of its deadline. A null evaluator is never cancelled.
class CancelPoll {
 public:
  explicit CancelPoll(int64_t every) : counter_(every) {}
  absl::Status Done(const Evaluator* evaluator, int64_t work = 1) {
    if (!counter_.Add(work) || evaluator == nullptr) return absl::OkStatus();
    return evaluator->CheckCancelled();
  }

 private:
  WorkCounter counter_;
};
// Multiply-adds (or as cheap steps) between two polls: about a millisecond of the
// interpreter's scalar loops.
inline constexpr int64_t kCancelPollSteps = int64_t{1} << 20;

// "opcode 'x' (instruction 'name')": for error messages.
std::string Describe(const HloInstruction& instruction);

}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_EVALUATOR_H_
