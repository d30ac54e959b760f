#ifndef XLA_BACKENDS_GPU_TESTING_CHECKED_RUN_H_
#define XLA_BACKENDS_GPU_TESTING_CHECKED_RUN_H_

// Runs a module on the emulated gpu (emulated_gpu.h) and checks what its buffers went through:
// for the tests of steps that write over their operands' memory (an in-place update, an
// elementwise kernel reusing an operand's buffer), which must agree with the interpreter and
// leave every value they do not own as it was.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_lanes.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/testing/hlo_test_util.h"
#include "hlo/hlo_parser.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace testing {

// Bytes the fake driver has copied device to device since the process started.
inline int64_t DeviceToDeviceBytes() { return FakeCudaCount<int64_t>("xla_fake_cuda_device_to_device_bytes"); }

// `hlo` compiled for the emulated gpu.
inline absl::StatusOr<std::unique_ptr<backend::Executable>> CompileOnGpu(const std::string& hlo) {
  backend::Backend* gpu = EmulatedGpu();
  if (gpu == nullptr) return absl::UnavailableError("no emulated gpu");
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseAndReturnUnverifiedModule(hlo));
  return gpu->Compile(std::move(module), backend::CompileOptions());
}

struct Outcome {
  Literal result;
  int64_t copied = 0;   // device-to-device bytes while it ran
  int overwriting = 0;  // launches writing over one of their operands (EmulatedOverwritingLaunches)
  int64_t result_argument = -1;  // the argument whose device memory an array result is (-1: none)
};

// Runs `hlo` on the emulated gpu with `args`, checks the result against the interpreter's and
// that every argument's device buffer still holds the argument afterwards, except the donated
// ones (`donated`, ExecuteOptions::donated_arguments), which the caller gives up; `keep`: the
// caller holds a second reference to each donated buffer, so that it must survive too.
inline absl::StatusOr<Outcome> RunChecked(const std::string& hlo, const std::vector<Literal>& args,
                                          const std::vector<int64_t>& donated = {}, bool keep = false) {
  backend::Backend* gpu = EmulatedGpu();
  if (gpu == nullptr) return absl::UnavailableError("no emulated gpu");
  ASSIGN_OR_RETURN(Literal expected, ::xla::testing::RunHloOn(*::xla::testing::SharedInterpreter(), hlo, args));
  ASSIGN_OR_RETURN(std::unique_ptr<backend::Executable> executable, CompileOnGpu(hlo));
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  std::vector<CUdeviceptr> addresses;
  for (const Literal& arg : args) {
    ASSIGN_OR_RETURN(buffers.emplace_back(), gpu->TransferToDevice(arg, 0));
    const auto* array = dynamic_cast<const GpuBuffer*>(buffers.back().get());
    addresses.push_back(array == nullptr || array->size_bytes() == 0 ? 0 : array->address());
  }
  backend::ExecuteOptions options;
  options.donated_arguments = donated;
  std::vector<std::shared_ptr<backend::Buffer>> kept(buffers.size());
  for (int64_t d : donated) kept[d] = keep ? buffers[d] : nullptr;
  const int64_t before = DeviceToDeviceBytes();
  const int overwriting = EmulatedOverwritingLaunches();
  ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> out, executable->Execute(buffers, options));
  Outcome outcome;
  ASSIGN_OR_RETURN(outcome.result, gpu->TransferFromDevice(*out));
  outcome.copied = DeviceToDeviceBytes() - before;
  outcome.overwriting = EmulatedOverwritingLaunches() - overwriting;
  if (const auto* array = dynamic_cast<const GpuBuffer*>(out.get()); array != nullptr && out->shape().IsArray()) {
    const auto at = std::find(addresses.begin(), addresses.end(), array->address());
    if (array->size_bytes() > 0 && at != addresses.end()) outcome.result_argument = at - addresses.begin();
  }
  if (!::xla::testing::LiteralNear(expected, outcome.result.Clone(), 0, 0)) {
    return absl::InternalError(absl::StrCat("gpu disagrees with the interpreter: ", outcome.result.ToString()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::count(donated.begin(), donated.end(), static_cast<int64_t>(i)) > 0 && !keep) continue;
    ASSIGN_OR_RETURN(Literal after, gpu->TransferFromDevice(*buffers[i]));
    if (!(after == args[i])) return absl::InternalError(absl::StrCat("argument ", i, " was overwritten"));
  }
  return outcome;
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_CHECKED_RUN_H_
