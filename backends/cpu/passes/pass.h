#ifndef XLA_BACKENDS_CPU_PASSES_PASS_H_
#define XLA_BACKENDS_CPU_PASSES_PASS_H_

// The HLO-to-HLO pass interface of the CPU backend and a pipeline that runs passes in order
// (optionally verifying the module after each one) or repeats them to a fixed point.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

class HloPass {
 public:
  virtual ~HloPass() = default;
  virtual std::string_view name() const = 0;
  // Rewrites `module` in place; returns whether anything changed. An error leaves the
  // module in an unspecified but destructible state.
  virtual absl::StatusOr<bool> Run(HloModule* module) = 0;
};

// Runs its passes in the order added. With verify_after_each_pass, the module is verified
// (hlo/hlo_verifier.h) after every pass that changed it and a failure names the pass.
class HloPassPipeline : public HloPass {
 public:
  explicit HloPassPipeline(std::string name, bool verify_after_each_pass = false)
      : name_(std::move(name)), verify_(verify_after_each_pass) {}

  template <typename T, typename... Args>
  T* AddPass(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = pass.get();
    passes_.push_back(std::move(pass));
    return raw;
  }
  void AddPass(std::unique_ptr<HloPass> pass) { passes_.push_back(std::move(pass)); }

  std::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  bool verify_after_each_pass() const { return verify_; }
  // Names of the passes that changed the module in the last Run, in order (for tests and
  // debugging).
  const std::vector<std::string>& changed_passes() const { return changed_; }

 private:
  std::string name_;
  bool verify_;
  std::vector<std::unique_ptr<HloPass>> passes_;
  std::vector<std::string> changed_;
};

// Repeats `pass` until it reports no change, at most `max_iterations` times (a pass pair
// that undoes each other's rewrites must not loop forever).
class FixedPointPass : public HloPass {
 public:
  FixedPointPass(std::unique_ptr<HloPass> pass, int max_iterations = 25)
      : pass_(std::move(pass)), max_iterations_(max_iterations), name_(absl_name()) {}

  std::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  std::string absl_name() const { return std::string("fixed-point(") + std::string(pass_->name()) + ")"; }
  std::unique_ptr<HloPass> pass_;
  int max_iterations_;
  std::string name_;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_PASS_H_
