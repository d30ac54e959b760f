#include "backends/gpu/gpu_executable.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/gpu/cublas_library.h"
#include "backends/gpu/loop_trip_count.h"
#include "backends/value_checks.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

constexpr uint64_t kDefaultRngSeed = 42;   // as the interpreter's and the cpu backend's
constexpr int64_t kInfeedTimeoutMs = 10000;  // as the interpreter's and the cpu backend's

// A loaded plan: its PTX module on the device, a function per kernel step, the constants
// uploaded.
class GpuExecutable : public backend::Executable {
 public:
  GpuExecutable(Device* device, GpuPlan plan) : device_(device), plan_(std::move(plan)) {}
  ~GpuExecutable() override {
    if (cu_module_ != nullptr && UseContext(*device_).ok()) device_->driver->cuModuleUnload(cu_module_);
  }

  // Loads the PTX and uploads the constants through `lane`.
  absl::Status Load(Lane& lane) {
    RETURN_IF_ERROR(UseContext(*device_));
    functions_.resize(plan_.sequences.size());
    constants_.resize(plan_.sequences.size());
    counted_.resize(plan_.sequences.size());
    reuse_.resize(plan_.sequences.size());
    last_use_.resize(plan_.sequences.size());
    for (size_t q = 0; q < plan_.sequences.size(); ++q) {
      const std::vector<GpuPlanStep>& steps = plan_.sequences[q].steps;
      functions_[q].assign(steps.size(), {});
      constants_[q].resize(steps.size());
      counted_[q].assign(steps.size(), std::nullopt);
      reuse_[q].assign(steps.size(), {});
      for (size_t s = 0; s < steps.size(); ++s) {
        const GpuPlanStep& step = steps[s];
        if (step.kind == GpuPlanStep::Kind::kConstant) {
          ASSIGN_OR_RETURN(constants_[q][s], Upload(lane, step.hlo->literal()));
        }
        if (step.kind == GpuPlanStep::Kind::kWhile) counted_[q][s] = FindCountedLoop(*step.hlo);
        // An elementwise kernel (a thread per element, or per few consecutive ones) or a row
        // kernel of a fusion (a block per row): one launch.
        const bool row_kernel = step.rows > 0 && step.hlo->opcode() == HloOpcode::kFusion;
        if (step.kind == GpuPlanStep::Kind::kKernel && !step.in_place && (step.rows == 0 || row_kernel) &&
            !step.gemm && step.phases.empty() && step.scratch_bytes == 0) {
          reuse_[q][s] = ElementwiseReuseOperands(*step.hlo, row_kernel);
        }
      }
      last_use_[q].assign(steps.size(), -1);
      for (size_t s = 0; s < steps.size(); ++s) {
        for (int o : steps[s].operands) last_use_[q][o] = std::max(last_use_[q][o], static_cast<int>(s));
      }
    }
    if (plan_.ptx.empty()) return absl::OkStatus();
    ASSIGN_OR_RETURN(cu_module_, LoadPtx());
    for (size_t q = 0; q < plan_.sequences.size(); ++q) {
      const std::vector<GpuPlanStep>& steps = plan_.sequences[q].steps;
      for (size_t s = 0; s < steps.size(); ++s) {
        if (steps[s].kind != GpuPlanStep::Kind::kKernel) continue;
        std::vector<CUfunction>& launches = functions_[q][s];
        launches.assign(steps[s].phases.size() + 1, nullptr);
        for (size_t p = 0; p < launches.size(); ++p) {
          const std::string entry = p == 0 ? steps[s].kernel : PhaseEntry(steps[s].kernel, p);
          CUDA_RETURN_IF_ERROR(device_->driver, cuModuleGetFunction(&launches[p], cu_module_, entry.c_str()));
        }
      }
    }
    return absl::OkStatus();
  }

  const HloModule& module() const override { return *plan_.module; }
  const GpuPlan& plan() const { return plan_; }

  absl::StatusOr<std::shared_ptr<backend::Buffer>> Execute(absl::Span<const std::shared_ptr<backend::Buffer>> arguments,
                                                           const backend::ExecuteOptions& options) override {
    const HloComputation& entry = *plan_.module->entry_computation();
    if (static_cast<int64_t>(arguments.size()) != entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat("gpu: ", plan_.module->name(), " takes ", entry.num_parameters(),
                                                     " arguments, got ", arguments.size()));
    }
    Run run{options, options.rng_seed != 0 ? options.rng_seed : kDefaultRngSeed};
    // The caller's span holds every argument while this runs, so an argument is never
    // Unshared, except the buffers of a donated one (backend.h): the caller's one reference
    // to each then does not count (Run::given), any other still does.
    for (int64_t d : options.donated_arguments) {
      if (d < 0 || d >= static_cast<int64_t>(arguments.size())) {
        return absl::InvalidArgumentError(absl::StrCat("gpu: donated argument ", d, " does not exist"));
      }
      if (arguments[d] != nullptr) Give(arguments[d], &run.given);
    }
    LaneLease lease(device_);
    RETURN_IF_ERROR(UseContext(*device_));
    run.lane = &lease.lane();
    std::vector<std::shared_ptr<backend::Buffer>> args;
    for (size_t i = 0; i < arguments.size(); ++i) {
      ASSIGN_OR_RETURN(args.emplace_back(),
                       PrepareArgument(*run.lane, arguments[i], entry.parameter_instruction(i)->shape(), i));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> result, RunSequence(0, std::move(args), run));
    RETURN_IF_ERROR(lease.Finish());
    return result;
  }

 private:
  // One execution's options and rng draws so far (the interpreter's draw count, which makes
  // each rng op's key; see RngKernelKey).
  struct Run {
    const backend::ExecuteOptions& options;
    uint64_t rng_seed;
    uint64_t rng_draws = 0;
    Lane* lane = nullptr;  // the execution's stream: every step's work is queued on it in order
    // The buffers of donated arguments: one reference to each, the caller's (its span's or a
    // parent tuple's), may be disregarded (Unshared).
    absl::flat_hash_set<const backend::Buffer*> given;
  };

  // Adds `buffer` and its tuple elements, depth first, to `given`. Each holds at least one
  // reference from the caller's side (the span's, or its parent tuple's); Unshared allows
  // exactly one, so a buffer held anywhere else as well is never taken.
  static void Give(const std::shared_ptr<backend::Buffer>& buffer, absl::flat_hash_set<const backend::Buffer*>* given) {
    given->insert(buffer.get());
    for (const std::shared_ptr<backend::Buffer>& element : buffer->tuple_elements()) Give(element, given);
  }

  // Runs sequence `q` on `args` (its parameters' values); the result may still be being
  // computed on the stream. Every value lives until the stream is done with it: freed blocks
  // may be reused by later kernels of this stream only, which run after the readers. A caller
  // passes a value it no longer needs by move (Pass), so that the callee may write it in
  // place (TakeOperand); the caller's arguments are never written unless donated.
  absl::StatusOr<std::shared_ptr<backend::Buffer>> RunSequence(int q, std::vector<std::shared_ptr<backend::Buffer>> args,
                                                               Run& run) {
    const CudaDriver* d = device_->driver;
    Lane& lane = *run.lane;
    const GpuSequence& sequence = plan_.sequences[q];
    std::vector<std::shared_ptr<backend::Buffer>> values(sequence.steps.size());
    auto cancelled = [&]() -> absl::Status {
      if (!run.options.should_cancel || !run.options.should_cancel()) return absl::OkStatus();
      d->cuStreamSynchronize(lane.stream);
      return absl::CancelledError(absl::StrCat("execution of ", plan_.module->name(), " cancelled"));
    };
    for (size_t s = 0; s < sequence.steps.size(); ++s) {
      const GpuPlanStep& step = sequence.steps[s];
      switch (step.kind) {
        case GpuPlanStep::Kind::kParameter:
          values[s] = std::move(args[step.index]);
          break;
        case GpuPlanStep::Kind::kConstant:
          values[s] = constants_[q][s];
          break;
        case GpuPlanStep::Kind::kTuple: {
          std::vector<std::shared_ptr<backend::Buffer>> elements;
          for (int o : step.operands) elements.push_back(values[o]);
          values[s] = std::make_shared<GpuBuffer>(device_, step.hlo->shape(), std::move(elements));
          break;
        }
        case GpuPlanStep::Kind::kGetTupleElement:
          values[s] = values[step.operands[0]]->tuple_elements().at(step.index);
          break;
        case GpuPlanStep::Kind::kCall: {
          std::vector<std::shared_ptr<backend::Buffer>> operands;
          for (int o : step.operands) operands.push_back(Pass(values, sequence, q, s, o));
          ASSIGN_OR_RETURN(values[s], RunSequence(step.callees[0], std::move(operands), run));
          break;
        }
        // Control flow is decided on the host: the condition's pred or the branch index is
        // computed on the device and read back (a few bytes, one copy per iteration or
        // branch, which waits for the kernels before it). Everything else stays on the device.
        // A counted loop (loop_trip_count.h) reads back at most its counter's first value and
        // its bound, once: its iterations are enqueued back to back.
        case GpuPlanStep::Kind::kWhile: {
          std::shared_ptr<backend::Buffer> state = Pass(values, sequence, q, s, step.operands[0]);
          ASSIGN_OR_RETURN(const std::optional<int64_t> trips, Trips(lane, counted_[q][s], *state));
          if (trips.has_value()) {
            for (int64_t i = 0; i < *trips; ++i) {
              RETURN_IF_ERROR(cancelled());
              ASSIGN_OR_RETURN(state, RunSequence(step.callees[1], Only(std::move(state)), run));
            }
            values[s] = std::move(state);
            break;
          }
          while (true) {
            RETURN_IF_ERROR(cancelled());
            ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> keep_going, RunSequence(step.callees[0], Only(state), run));
            ASSIGN_OR_RETURN(int64_t go, ReadControl(lane, *keep_going));
            if (go == 0) break;
            ASSIGN_OR_RETURN(state, RunSequence(step.callees[1], Only(std::move(state)), run));
          }
          values[s] = std::move(state);
          break;
        }
        case GpuPlanStep::Kind::kConditional: {
          const std::shared_ptr<backend::Buffer>& selector = values[step.operands[0]];
          ASSIGN_OR_RETURN(int64_t index, ReadControl(lane, *selector));
          const int64_t branches = static_cast<int64_t>(step.callees.size());
          int64_t branch = index;
          if (selector->shape().element_type() == PRED) {
            branch = index != 0 ? 0 : 1;  // {true, false}
          } else if (index < 0 || index >= branches) {
            branch = branches - 1;  // out of range: the last branch, as XLA defines
          }
          ASSIGN_OR_RETURN(values[s], RunSequence(step.callees[branch],
                                                  Only(Pass(values, sequence, q, s, step.operands[branch + 1])), run));
          break;
        }
        case GpuPlanStep::Kind::kAlias: {
          const std::shared_ptr<backend::Buffer>& from = values[step.operands[0]];
          if (step.hlo->opcode() != HloOpcode::kBitcast && step.hlo->opcode() != HloOpcode::kReshape) {
            values[s] = from;
            break;
          }
          auto array = std::dynamic_pointer_cast<GpuBuffer>(from);
          if (array == nullptr || !from->shape().IsArray() || array->size_bytes() != ShapeUtil::ByteSizeOf(step.hlo->shape())) {
            return absl::InternalError(absl::StrCat("gpu: ", step.hlo->name(), " views no gpu array of its size"));
          }
          values[s] = std::make_shared<GpuBuffer>(device_, step.hlo->shape(), std::move(array));
          break;
        }
        case GpuPlanStep::Kind::kToken:
          values[s] = std::make_shared<GpuBuffer>(device_, nullptr, step.hlo->shape(), 0, 0);
          break;
        // The host's own data, moved in one copy each (gpu_plan.h): the device's rng state
        // and its feed queues live on the host, as the interpreter keeps them.
        case GpuPlanStep::Kind::kRngState: {
          const uint64_t state[2] = {device_->host->GetAndUpdateRngState(step.hlo->attrs().delta()), 0};
          ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> out, AllocateArray(lane, step.hlo->shape()));
          CUDA_RETURN_IF_ERROR(d, cuMemcpyHtoDAsync(out->address(), state, sizeof(state), lane.stream));
          values[s] = std::move(out);
          break;
        }
        case GpuPlanStep::Kind::kInfeed: {
          RETURN_IF_ERROR(cancelled());
          const Shape& data = step.hlo->shape().tuple_shapes(0);
          ASSIGN_OR_RETURN(Literal value, device_->host->PopInfeed(kInfeedTimeoutMs));
          if (!ShapeUtil::Compatible(value.shape(), data)) {
            return absl::InvalidArgumentError(absl::StrCat("the infeed value has shape ", value.shape().ToString(),
                                                           ", the infeed ", step.hlo->name(), " expects ",
                                                           data.ToString()));
          }
          ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> in, UploadAs(lane, value, data));
          std::vector<std::shared_ptr<backend::Buffer>> elements = {
              std::move(in), std::make_shared<GpuBuffer>(device_, nullptr, step.hlo->shape().tuple_shapes(1), 0, 0)};
          values[s] = std::make_shared<GpuBuffer>(device_, step.hlo->shape(), std::move(elements));
          break;
        }
        case GpuPlanStep::Kind::kOutfeed: {
          // Download waits for the kernels that compute the value.
          ASSIGN_OR_RETURN(Literal value, Download(lane, *values[step.operands[0]]));
          device_->host->PushOutfeed(std::move(value));
          values[s] = std::make_shared<GpuBuffer>(device_, nullptr, step.hlo->shape(), 0, 0);
          break;
        }
        case GpuPlanStep::Kind::kKernel:
          RETURN_IF_ERROR(cancelled());
          RETURN_IF_ERROR(RunKernel(run, values, sequence, q, s));
          break;
      }
      // A value no later step reads is dropped now (the root's excepted): its blocks go back
      // to the lane (gpu_lanes.h) for later kernels to reuse, rather than staying allocated
      // until the sequence ends, so a long program needs memory for its live values only.
      for (int o : step.operands) {
        if (o != sequence.root && last_use_[q][o] == static_cast<int>(s)) values[o].reset();
      }
    }
    return values[sequence.root];
  }

  // A vector of the one value `value` (not an initializer list, whose copy would keep holding
  // it while the callee runs).
  static std::vector<std::shared_ptr<backend::Buffer>> Only(std::shared_ptr<backend::Buffer> value) {
    std::vector<std::shared_ptr<backend::Buffer>> one;
    one.push_back(std::move(value));
    return one;
  }

  // Operand `o` of step `s` for a callee: moved out of `values` when this is its last read
  // (no later step and no other operand passed with it reads it, and it is not the result),
  // so that the callee may hold it alone; else a copy of the reference. A conditional passes
  // one operand, to the branch it runs (lax.cond gives every branch the same value).
  std::shared_ptr<backend::Buffer> Pass(std::vector<std::shared_ptr<backend::Buffer>>& values,
                                        const GpuSequence& sequence, int q, int s, int o) const {
    const GpuPlanStep& step = sequence.steps[s];
    const bool once = step.kind == GpuPlanStep::Kind::kConditional ||
                      std::count(step.operands.begin(), step.operands.end(), o) == 1;
    if (o == sequence.root || last_use_[q][o] != s || !once) return values[o];
    return std::move(values[o]);
  }

  // True when `value` is the only reference to its array and to every buffer it views (apart
  // from a donating caller's, Run::given): no other value of this execution, no caller, no
  // constant and no other execution can read its bytes.
  static bool Unshared(const std::shared_ptr<backend::Buffer>& value, const Run& run) {
    const auto* array = dynamic_cast<const GpuBuffer*>(value.get());
    auto sole = [&run](const backend::Buffer* buffer, long count) { return count == 1 + run.given.count(buffer); };
    if (array == nullptr || !value->shape().IsArray() || !sole(array, value.use_count())) return false;
    for (; array->viewed() != nullptr; array = array->viewed().get()) {
      if (!sole(array->viewed().get(), array->viewed().use_count())) return false;
    }
    return true;
  }

  // Operand `from`'s buffer as output `shape` of step `s` (an in-place step's output i takes
  // operand InPlaceOperand(i), an elementwise one ElementwiseReuseOperands), taken from
  // `values`, when no later step reads that value, no other operand of the step is it and
  // nothing else holds it (Unshared); else null.
  std::shared_ptr<GpuBuffer> TakeOperand(const Run& run, std::vector<std::shared_ptr<backend::Buffer>>& values,
                                         const GpuSequence& sequence, int q, int s, int64_t from,
                                         const Shape& shape) const {
    const GpuPlanStep& step = sequence.steps[s];
    if (from < 0 || from >= static_cast<int64_t>(step.operands.size())) return nullptr;
    const int o = step.operands[from];
    std::shared_ptr<backend::Buffer>& operand = values[o];
    const auto* array = dynamic_cast<const GpuBuffer*>(operand.get());
    if (o == sequence.root || last_use_[q][o] != s || std::count(step.operands.begin(), step.operands.end(), o) != 1 ||
        array == nullptr || !ShapeUtil::CompatibleIgnoringElementType(operand->shape(), shape) ||
        array->size_bytes() != ShapeUtil::ByteSizeOf(shape) || !Unshared(operand, run)) {
      return nullptr;
    }
    auto taken = std::static_pointer_cast<GpuBuffer>(std::move(operand));
    if (ShapeUtil::Equal(taken->shape(), shape)) return taken;
    return std::make_shared<GpuBuffer>(device_, shape, std::move(taken));  // its bytes, the step's layout
  }

  // Kernel step `s` of sequence `q`: its outputs allocated (or, for an in-place step, taken
  // from its operands: TakeOperand), its launches queued on the stream (through cuBLAS for a
  // gemm when it loads).
  absl::Status RunKernel(Run& run, std::vector<std::shared_ptr<backend::Buffer>>& values, const GpuSequence& sequence,
                         int q, int s) {
    const CudaDriver* d = device_->driver;
    Lane& lane = *run.lane;
    const GpuPlanStep& step = sequence.steps[s];
    // A dynamic-update-slice, alone or at a fusion's root, whose kernel writes its update only.
    const HloInstruction* dus = step.in_place ? UpdatedSlice(*step.hlo) : nullptr;
    // One array per output (sort and scatter of several operands write a tuple).
    const std::vector<const Shape*> shapes = KernelOutputs(step.hlo->shape());
    std::vector<std::shared_ptr<GpuBuffer>> outs(shapes.size());
    std::vector<bool> took(shapes.size(), false);  // output i is its in-place operand's buffer
    std::vector<int64_t> taken_from(step.operands.size(), -1);  // operand -> the output that took it
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (step.in_place) {
        const int64_t from = InPlaceOperand(*step.hlo, static_cast<int64_t>(i));
        outs[i] = TakeOperand(run, values, sequence, q, s, from, *shapes[i]);
        if (outs[i] != nullptr) taken_from[from] = static_cast<int64_t>(i);
      }
      // An elementwise or row kernel writes over the first operand it can take (one output array).
      for (const int64_t from : reuse_[q][s]) {
        if (outs[i] != nullptr) break;
        outs[i] = TakeOperand(run, values, sequence, q, s, from, *shapes[i]);
        if (outs[i] != nullptr) taken_from[from] = static_cast<int64_t>(i);
      }
      if (outs[i] != nullptr) {
        took[i] = true;
        continue;
      }
      if (step.hlo->opcode() == HloOpcode::kRng) {
        ASSIGN_OR_RETURN(outs[i], AllocateRngOutput(lane, *shapes[i], RngKey(step, run)));
        continue;
      }
      ASSIGN_OR_RETURN(outs[i], AllocateArray(lane, *shapes[i]));
      // An in-place dynamic-update-slice writes only its update region: the rest is its
      // operand's.
      if (dus != nullptr && outs[i]->size_bytes() > 0) {
        const auto* from = dynamic_cast<const GpuBuffer*>(values[step.operands[InPlaceOperand(*step.hlo, 0)]].get());
        if (from == nullptr || from->size_bytes() != outs[i]->size_bytes()) {
          return absl::InternalError(absl::StrCat("gpu: ", step.hlo->name(), "'s operand 0 is no gpu array of its shape"));
        }
        CUDA_RETURN_IF_ERROR(d, cuMemcpyDtoDAsync(outs[i]->address(), from->address(),
                                                  static_cast<size_t>(outs[i]->size_bytes()), lane.stream));
      }
    }
    std::vector<CUdeviceptr> pointers;
    for (const std::shared_ptr<GpuBuffer>& out : outs) pointers.push_back(out->address());
    if (step.hlo->shape().IsTuple()) {
      values[s] = std::make_shared<GpuBuffer>(device_, step.hlo->shape(),
                                              std::vector<std::shared_ptr<backend::Buffer>>(outs.begin(), outs.end()));
    } else {
      values[s] = outs[0];
    }
    RETURN_IF_ERROR(CheckOperandValues(lane, step, values));
    if (step.elements == 0) return absl::OkStatus();
    for (size_t i = 0; i < step.operands.size(); ++i) {
      // An operand whose buffer became an output is passed as that output (a dynamic-update-
      // slice's kernel does not read it; a scatter's fill sees the two are one).
      if (taken_from[i] >= 0) {
        pointers.push_back(outs[taken_from[i]]->address());
        continue;
      }
      const auto* in = dynamic_cast<const GpuBuffer*>(values[step.operands[i]].get());
      if (in == nullptr) return absl::InternalError("gpu: kernel operand is not a gpu array");
      pointers.push_back(in->address());
    }
    if (step.gemm && pointers.size() == 3) {
      ASSIGN_OR_RETURN(bool ran, RunGemm(lane, *step.hlo, pointers[0], pointers[1], pointers[2]));
      if (ran) return absl::OkStatus();
    }
    std::shared_ptr<GpuBuffer> scratch;  // lives until the execution's lease drains (retired to the lane)
    if (step.scratch_bytes > 0) {
      ASSIGN_OR_RETURN(scratch, AllocateArray(lane, ShapeUtil::MakeShape(U8, {step.scratch_bytes})));
      pointers.push_back(scratch->address());
    }
    std::vector<void*> params;
    for (CUdeviceptr& p : pointers) params.push_back(&p);
    // Grid-stride kernels: enough blocks to fill the device several times over (a row
    // kernel's blocks take a row at a time; eight of them fill a multiprocessor), fewer
    // where the plan caps them (GpuPlanStep::max_blocks), never under one per multiprocessor.
    // An in-place dynamic-update-slice's launch covers its update; a scatter's fill (launch 0)
    // has nothing to do when every output is its operand and no scratch needs clearing.
    const std::vector<CUfunction>& launches = functions_[q][s];
    const bool filled = step.in_place && dus == nullptr && step.scratch_bytes == 0 &&
                        std::find(took.begin(), took.end(), false) == took.end();
    for (size_t p = filled ? 1 : 0; p < launches.size(); ++p) {
      const bool rows = p == 0 && step.rows > 0;
      const int64_t first = dus != nullptr ? ShapeUtil::ElementsIn(dus->operand(1)->shape()) : step.elements;
      const int64_t items = p == 0 ? (rows ? step.rows : first) : step.phases[p - 1];
      if (items == 0) continue;
      const int64_t wanted = rows ? items : (items + kGpuThreadsPerBlock - 1) / kGpuThreadsPerBlock;
      int64_t most = device_->multiprocessors * (rows ? 8 : 32);
      if (p == 0 && step.max_blocks > 0) {
        most = std::min(most, std::max<int64_t>(step.max_blocks, device_->multiprocessors));
      }
      const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(wanted, most));
      CUDA_RETURN_IF_ERROR(d, cuLaunchKernel(launches[p], blocks, 1, 1, kGpuThreadsPerBlock, 1, 1, 0, lane.stream,
                                             params.data(), nullptr));
    }
    return absl::OkStatus();
  }

  // The key of rng step `step` in this execution: the interpreter's, from the seed, the
  // instruction's name and the execution's rng draws so far (counting this one).
  static uint64_t RngKey(const GpuPlanStep& step, Run& run) {
    return RngKernelKey(run.rng_seed, step.hlo->name(), run.rng_draws++);
  }

  // An rng kernel's output: the array of `shape`, then the 8-byte key the kernel reads
  // (RngKernelKeyOffset), written from the host before the launch. That key is how the
  // execution's seed and draw count, host integers, reach the kernel.
  absl::StatusOr<std::shared_ptr<GpuBuffer>> AllocateRngOutput(Lane& lane, const Shape& shape, uint64_t key) {
    const int64_t bytes = ShapeUtil::ByteSizeOf(shape);
    if (bytes == 0) return std::make_shared<GpuBuffer>(device_, &lane, shape, 0, 0);  // no launch
    const int64_t offset = RngKernelKeyOffset(shape);
    ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> out, AllocateArray(lane, shape, offset + kRngKernelKeyBytes - bytes));
    RETURN_IF_ERROR(CopyToDevice(lane, out->address() + static_cast<CUdeviceptr>(offset), &key, sizeof(key)));
    return out;
  }

  // `literal` (compatible with `want`) in new buffers laid out as `want` (an array without a
  // layout row-major); tokens have no data.
  absl::StatusOr<std::shared_ptr<backend::Buffer>> UploadAs(Lane& lane, const Literal& literal, const Shape& want) {
    if (want.IsTuple()) {
      std::vector<std::shared_ptr<backend::Buffer>> elements;
      for (int64_t i = 0; i < want.tuple_shapes_size(); ++i) {
        ASSIGN_OR_RETURN(elements.emplace_back(), UploadAs(lane, literal.tuple_element(i), want.tuple_shapes(i)));
      }
      return std::make_shared<GpuBuffer>(device_, want, std::move(elements));
    }
    if (!want.IsArray()) return std::make_shared<GpuBuffer>(device_, nullptr, want, 0, 0);
    Shape laid_out = want;
    ShapeUtil::SetDefaultLayoutsIfMissing(&laid_out);
    ASSIGN_OR_RETURN(Literal relaid, literal.Relayout(laid_out.layout()));
    return Upload(lane, relaid);
  }

  // A while condition's pred[] or a conditional's pred[] / s32[] selector, read back.
  absl::StatusOr<int64_t> ReadControl(Lane& lane, const backend::Buffer& buffer) {
    const PrimitiveType type = buffer.shape().IsArray() ? buffer.shape().element_type() : PRIMITIVE_TYPE_INVALID;
    if ((type != PRED && type != S32) || ShapeUtil::ElementsIn(buffer.shape()) != 1) {
      return absl::InternalError(absl::StrCat("gpu: control flow reads a ", buffer.shape().ToString(true),
                                              " buffer, not a pred[] or s32[]"));
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> value, ReadIntegers(lane, {&buffer}));
    return value[0];
  }

  // The iterations of counted loop `counted` (none: not one) starting from `state`: its first
  // value and bound are constants, or elements of `state` read back here, once per loop
  // rather than a predicate per iteration; nullopt when it is no counted loop or the values
  // read would let the counter wrap (the condition is then read each iteration).
  absl::StatusOr<std::optional<int64_t>> Trips(Lane& lane, const std::optional<CountedLoop>& counted,
                                               const backend::Buffer& state) {
    if (!counted.has_value()) return std::optional<int64_t>();
    int64_t first = counted->first.value_or(0), limit = counted->limit.value_or(0);
    std::vector<const backend::Buffer*> read;
    const std::vector<std::shared_ptr<backend::Buffer>> elements = state.tuple_elements();
    for (const int64_t k : {counted->first_element, counted->limit_element}) {
      if (k < 0) continue;
      if (k >= static_cast<int64_t>(elements.size())) return absl::InternalError("gpu: a loop's state lacks its counter");
      read.push_back(elements[k].get());
    }
    if (!read.empty()) {
      ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIntegers(lane, read));
      size_t next = 0;
      if (counted->first_element >= 0) first = values[next++];
      if (counted->limit_element >= 0) limit = values[next++];
    }
    return TripCount(*counted, first, limit);
  }

  // The values of one-element integer or pred arrays, each read back to the host (a copy of
  // a few bytes that waits for the kernels before it).
  absl::StatusOr<std::vector<int64_t>> ReadIntegers(Lane& lane, absl::Span<const backend::Buffer* const> buffers) {
    std::vector<int64_t> values;
    for (const backend::Buffer* buffer : buffers) {
      const Shape& shape = buffer->shape();
      const PrimitiveType type = shape.IsArray() ? shape.element_type() : PRIMITIVE_TYPE_INVALID;
      if ((type != PRED && !primitive_util::IsIntegralType(type)) || ShapeUtil::ElementsIn(shape) != 1) {
        return absl::InternalError(absl::StrCat("gpu: reads a ", shape.ToString(true), " buffer as one integer"));
      }
      ASSIGN_OR_RETURN(Literal value, Download(lane, *buffer));
      values.push_back(value.GetAsInt64(0));
    }
    return values;
  }

  // ragged-all-to-all and dynamic-reshape read rows and elements where run-time values say
  // (ptx_emitter.cc): those values are read back and checked here, as every backend checks
  // them (backends/value_checks.h), before the kernel could read past a buffer. This waits
  // for the kernels before it: the host needs the values.
  absl::Status CheckOperandValues(Lane& lane, const GpuPlanStep& step,
                                  const std::vector<std::shared_ptr<backend::Buffer>>& values) {
    const HloInstruction& hlo = *step.hlo;
    if (hlo.opcode() != HloOpcode::kDynamicReshape && hlo.opcode() != HloOpcode::kRaggedAllToAll) {
      return absl::OkStatus();
    }
    std::vector<const backend::Buffer*> scalars;
    for (size_t i = hlo.opcode() == HloOpcode::kRaggedAllToAll ? 2 : 1; i < step.operands.size(); ++i) {
      scalars.push_back(values[step.operands[i]].get());
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ReadIntegers(lane, scalars));
    absl::Status checked;
    if (hlo.opcode() == HloOpcode::kDynamicReshape) {
      if (static_cast<int64_t>(v.size()) != hlo.shape().rank()) {
        return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": dynamic-reshape needs one size per result dimension"));
      }
      for (size_t d = 0; d < v.size() && checked.ok(); ++d) {
        checked = backend::CheckDynamicReshapeSize(static_cast<int64_t>(d), v[d],
                                                   hlo.shape().dimensions(static_cast<int>(d)), "gpu backend");
      }
    } else {
      if (v.size() != 4) return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": ragged-all-to-all takes 6 operands"));
      checked = backend::CheckRaggedAllToAllRows(v[0], v[1], v[2], v[3], hlo.operand(0)->shape().dimensions(0),
                                                 hlo.operand(1)->shape().dimensions(0));
    }
    if (checked.ok()) return checked;
    return absl::Status(checked.code(), absl::StrCat(hlo.name(), ": ", checked.message()));
  }

  // The argument as the parameter wants it: on this device, with the parameter's layout
  // (a differently laid out array is relaid out through the host: a known slow path).
  absl::StatusOr<std::shared_ptr<backend::Buffer>> PrepareArgument(Lane& lane, const std::shared_ptr<backend::Buffer>& arg,
                                                                   const Shape& want, size_t i) {
    if (arg == nullptr || arg->device_ordinal() != device_->ordinal) {
      return absl::InvalidArgumentError(absl::StrCat("gpu: argument ", i, " is not on device ", device_->ordinal));
    }
    if (!ShapeUtil::Compatible(arg->shape(), want)) {
      return absl::InvalidArgumentError(absl::StrCat("gpu: argument ", i, " of ", plan_.module->name(), " is ",
                                                     arg->shape().ToString(true), ", the parameter wants ",
                                                     want.ToString(true)));
    }
    if (!want.IsArray() || !want.has_layout()) return arg;
    // A buffer whose shape has no layout holds its array row-major.
    const Shape& have = arg->shape();
    if (have.has_layout() ? have.layout().minor_to_major() == want.layout().minor_to_major() : RowMajor(want)) {
      return arg;
    }
    ASSIGN_OR_RETURN(Literal host, Download(lane, *arg));
    ASSIGN_OR_RETURN(Literal relaid, host.Relayout(want.layout()));
    return Upload(lane, relaid);
  }

  // out = lhs . rhs through cuBLAS (a dot IsCublasGemm accepted); false when cuBLAS is not
  // available here (missing, or it loads but cannot initialize, as a cuBLAS newer than the
  // driver or one without a real driver does), and the dot's kernel runs instead. Row-major C[m,n] = A[m,k] B[k,n] is the
  // column-major product C^T = B^T A^T, so B goes first. f32 may use TF32 only when every
  // operand's precision is DEFAULT (XLA's "fastest"); HIGH and HIGHEST keep full f32.
  absl::StatusOr<bool> RunGemm(Lane& lane, const HloInstruction& dot, CUdeviceptr out, CUdeviceptr lhs,
                               CUdeviceptr rhs) {
    const Shape& ls = dot.operand(0)->shape();
    const Shape& rs = dot.operand(1)->shape();
    const std::optional<CublasGemmForm> form = CublasGemm(dot);
    if (!form.has_value()) return absl::InternalError(absl::StrCat("gpu: ", dot.name(), " is no cuBLAS gemm"));
    const int64_t r = ls.rank();
    // Stored transposed, the lhs is [k, m] and the rhs [n, k] (CublasGemmForm).
    const int64_t batch = r == 3 ? ls.dimensions(0) : 1;
    const int64_t m = ls.dimensions(form->lhs_transposed ? r - 1 : r - 2);
    const int64_t k = ls.dimensions(form->lhs_transposed ? r - 2 : r - 1);
    const int64_t n = rs.dimensions(form->rhs_transposed ? r - 2 : r - 1);
    if (k == 0 || batch > (int64_t{1} << 31) - 1) return false;  // the kernel writes the zeros
    if (device_->cublas_unusable) return false;
    absl::StatusOr<const CublasLibrary*> lib = CublasLibrary::Default();
    if (!lib.ok()) return false;
    const CublasLibrary& blas = **lib;
    if (lane.cublas == nullptr) {
      const cublasStatus_t st = blas.create(&lane.cublas);
      if (st == CUBLAS_STATUS_NOT_INITIALIZED) {
        lane.cublas = nullptr;
        device_->cublas_unusable = true;
        return false;
      }
      if (st != CUBLAS_STATUS_SUCCESS) return blas.ToStatus(st, "cublasCreate_v2");
      const cublasStatus_t set = blas.set_stream(lane.cublas, reinterpret_cast<cudaStream_t>(lane.stream));
      if (set != CUBLAS_STATUS_SUCCESS) return blas.ToStatus(set, "cublasSetStream_v2");
    }
    auto data_type = [](PrimitiveType t) {
      switch (t) {
        case F64: return CUDA_R_64F;
        case BF16: return CUDA_R_16BF;
        case F16: return CUDA_R_16F;
        default: return CUDA_R_32F;
      }
    };
    const PrimitiveType in_type = ls.element_type();
    bool all_default = true;
    for (int p : dot.attrs().precision_config().operand_precision()) all_default &= p == PrecisionConfig::DEFAULT;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (in_type == F64) compute = CUBLAS_COMPUTE_64F;
    if (in_type == F32 && all_default) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    const float alpha_f = 1, beta_f = 0;
    const double alpha_d = 1, beta_d = 0;
    const void* alpha = in_type == F64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
    const void* beta = in_type == F64 ? static_cast<const void*>(&beta_d) : &beta_f;
    // Column-major, B^T comes first: a row-major [k, n] rhs is an [n, k] matrix of leading
    // dimension n, a row-major [n, k] one its transpose (leading dimension k); likewise the lhs
    // ([m, k]: [k, m] of leading dimension k; [k, m]: transposed, leading dimension m).
    const cublasOperation_t op_b = form->rhs_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_a = form->lhs_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int ld_b = static_cast<int>(form->rhs_transposed ? k : n), ld_a = static_cast<int>(form->lhs_transposed ? m : k);
    const cublasStatus_t st = blas.gemm_strided_batched(lane.cublas, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                                   static_cast<int>(k), alpha, reinterpret_cast<const void*>(rhs), data_type(in_type),
                                   ld_b, k * n, reinterpret_cast<const void*>(lhs), data_type(in_type),
                                   ld_a, m * k, beta, reinterpret_cast<void*>(out),
                                   data_type(dot.shape().element_type()), static_cast<int>(n), m * n,
                                   static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) return blas.ToStatus(st, "cublasGemmStridedBatchedEx");
    return true;
  }

  // Loads the PTX with the JIT's error log, so a rejected kernel says why.
  absl::StatusOr<CUmodule> LoadPtx() {
    std::vector<char> log(8192, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size()))};
    CUmodule module = nullptr;
    const CUresult r = device_->driver->cuModuleLoadDataEx(&module, plan_.ptx.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS) {
      absl::Status s = device_->driver->ToStatus(r, "cuModuleLoadDataEx");
      return absl::Status(s.code(), absl::StrCat(s.message(), " loading the kernels of ", plan_.module->name(), ": ",
                                                 log.data()));
    }
    return module;
  }

  Device* const device_;
  const GpuPlan plan_;
  CUmodule cu_module_ = nullptr;
  // Per sequence and step: a kernel step's entries, its launches in order (GpuPlanStep::phases).
  std::vector<std::vector<std::vector<CUfunction>>> functions_;
  std::vector<std::vector<std::shared_ptr<backend::Buffer>>> constants_;  // per sequence and step (constants)
  std::vector<std::vector<std::optional<CountedLoop>>> counted_;  // per sequence and step (counted whiles)
  // Per sequence and step: the operands an elementwise kernel may write over (ElementwiseReuseOperands).
  std::vector<std::vector<std::vector<int64_t>>> reuse_;
  std::vector<std::vector<int>> last_use_;  // per sequence and step: the last step reading its value (-1: none)
};

}  // namespace

absl::StatusOr<std::unique_ptr<backend::Executable>> LoadGpuExecutable(Device* device, GpuPlan plan) {
  auto executable = std::make_unique<GpuExecutable>(device, std::move(plan));
  LaneLease lease(device);
  RETURN_IF_ERROR(executable->Load(lease.lane()));
  RETURN_IF_ERROR(lease.Finish());
  return std::unique_ptr<backend::Executable>(std::move(executable));
}

const GpuPlan* GpuExecutablePlan(const backend::Executable& executable) {
  const auto* gpu = dynamic_cast<const GpuExecutable*>(&executable);
  return gpu == nullptr ? nullptr : &gpu->plan();
}

}  // namespace gpu
}  // namespace xla
