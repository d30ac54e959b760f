#include "backends/interpreter/interpreter_backend.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/executable_format.h"
#include "backends/interpreter/device_state.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using backend::Buffer;

class LiteralBuffer : public Buffer {
 public:
  LiteralBuffer(Literal value, int device) : value_(std::move(value)), device_(device) {}
  const Shape& shape() const override { return value_.shape(); }
  int device_ordinal() const override { return device_; }
  int64_t size_bytes() const override { return value_.shape().IsArray() ? value_.size_bytes() : 0; }
  std::vector<std::shared_ptr<Buffer>> tuple_elements() const override {
    std::vector<std::shared_ptr<Buffer>> elements;
    if (!value_.IsTuple()) return elements;
    for (int64_t i = 0; i < value_.tuple_element_count(); ++i) {
      elements.push_back(std::make_shared<LiteralBuffer>(value_.tuple_element(i).Clone(), device_));
    }
    return elements;
  }
  const Literal& value() const { return value_; }
  void* host_data() const override {
    if (!value_.shape().IsArray()) return nullptr;
    return const_cast<void*>(value_.untyped_data());
  }

 private:
  const Literal value_;
  const int device_;
};

class InterpreterExecutable : public backend::Executable {
 public:
  InterpreterExecutable(std::unique_ptr<HloModule> module, DeviceState* device)
      : module_(std::move(module)), device_(device) {}
  const HloModule& module() const override { return *module_; }

  absl::StatusOr<std::shared_ptr<Buffer>> Execute(absl::Span<const std::shared_ptr<Buffer>> arguments,
                                                  const backend::ExecuteOptions& options) override {
    const HloComputation& entry = *module_->entry_computation();
    if (static_cast<int64_t>(arguments.size()) != entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat("the computation takes ", entry.num_parameters(),
                                                     " arguments, got ", arguments.size()));
    }
    for (int64_t donated : options.donated_arguments) {
      if (donated < 0 || donated >= static_cast<int64_t>(arguments.size())) {
        return absl::InvalidArgumentError(absl::StrCat("donated argument ", donated, " does not exist"));
      }
    }
    std::vector<const Literal*> values;
    for (size_t i = 0; i < arguments.size(); ++i) {
      const auto* buffer = dynamic_cast<const LiteralBuffer*>(arguments[i].get());
      if (buffer == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", i, " is not an interpreter buffer"));
      }
      if (buffer->device_ordinal() != device_->ordinal()) {
        return absl::InvalidArgumentError(absl::StrCat("argument ", i, " lives on device ",
                                                       buffer->device_ordinal()));
      }
      values.push_back(&buffer->value());
    }
    Evaluator evaluator(device_, options.rng_seed, options.should_cancel);
    ASSIGN_OR_RETURN(Literal result, evaluator.Evaluate(entry, values));
    return std::shared_ptr<Buffer>(std::make_shared<LiteralBuffer>(std::move(result), device_->ordinal()));
  }

 private:
  std::unique_ptr<HloModule> module_;
  DeviceState* device_;
};

class InterpreterBackend : public backend::Backend {
 public:
  InterpreterBackend() : device_(0) {}
  std::string platform() const override { return "interpreter"; }
  int device_count() const override { return 1; }

  absl::StatusOr<backend::DeviceDescription> Describe(int device_ordinal) const override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    backend::DeviceDescription d;
    d.platform = "interpreter";
    d.name = "reference interpreter (host memory)";
    d.ordinal = device_ordinal;
    return d;
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> Compile(
      std::unique_ptr<HloModule> module, const backend::CompileOptions& options) override {
    RETURN_IF_ERROR(CheckDevice(options.device_ordinal));
    RETURN_IF_ERROR(VerifyHloModule(*module));
    // Fail at compile time, not halfway through a run, on ops nobody implements.
    const HandlerTable& table = GlobalHandlerTable();
    for (const auto& computation : module->computations()) {
      for (const auto& instruction : computation->instructions()) {
        if (instruction->opcode() != HloOpcode::kParameter &&
            table.Find(instruction->opcode()) == nullptr) {
          return absl::UnimplementedError(absl::StrCat("the interpreter does not implement ",
                                                       interpreter::Describe(*instruction)));
        }
      }
    }
    return std::unique_ptr<backend::Executable>(
        std::make_unique<InterpreterExecutable>(std::move(module), &device_));
  }

  // The interpreter has no object code: its executable is the module (with its config, which
  // holds the entry layout), and loading one compiles (verifies) it again, which is cheap.
  absl::StatusOr<std::string> SerializeExecutable(const backend::Executable& executable) override {
    const auto* own = dynamic_cast<const InterpreterExecutable*>(&executable);
    if (own == nullptr) return absl::InvalidArgumentError("not an interpreter executable");
    backend::ExecutableFields fields = backend::NewExecutableFields(platform());
    RETURN_IF_ERROR(backend::SetModuleField(own->module(), &fields));
    return backend::WriteExecutableContainer(fields);
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> DeserializeExecutable(std::string_view bytes,
                                                                             int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    ASSIGN_OR_RETURN(backend::ExecutableFields fields, backend::ReadExecutableContainer(bytes));
    RETURN_IF_ERROR(backend::CheckExecutableOrigin(fields, platform()));
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, backend::GetModuleField(fields));
    backend::CompileOptions options;
    options.device_ordinal = device_ordinal;
    return Compile(std::move(module), options);
  }

  absl::StatusOr<std::shared_ptr<Buffer>> TransferToDevice(const Literal& literal,
                                                           int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    return std::shared_ptr<Buffer>(std::make_shared<LiteralBuffer>(literal.Clone(), device_ordinal));
  }

  absl::StatusOr<Literal> TransferFromDevice(const Buffer& buffer) override {
    const auto* literal_buffer = dynamic_cast<const LiteralBuffer*>(&buffer);
    if (literal_buffer == nullptr) return absl::InvalidArgumentError("not an interpreter buffer");
    return literal_buffer->value().Clone();
  }

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(const Shape& shape, int device_ordinal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    ASSIGN_OR_RETURN(Literal zeros, Literal::Create(shape));
    return std::shared_ptr<Buffer>(std::make_shared<LiteralBuffer>(std::move(zeros), device_ordinal));
  }

  absl::Status TransferToInfeed(int device_ordinal, const Literal& literal) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    device_.PushInfeed(literal.Clone());
    return absl::OkStatus();
  }

  absl::StatusOr<Literal> TransferFromOutfeed(int device_ordinal, const Shape& shape,
                                              int64_t timeout_ms) override {
    RETURN_IF_ERROR(CheckDevice(device_ordinal));
    return device_.PopOutfeed(timeout_ms, shape);
  }

 private:
  absl::Status CheckDevice(int ordinal) const {
    if (ordinal != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the interpreter has one device (0); device ", ordinal, " does not exist"));
    }
    return absl::OkStatus();
  }

  DeviceState device_;
};

}  // namespace

std::unique_ptr<backend::Backend> CreateInterpreterBackend() {
  return std::make_unique<InterpreterBackend>();
}

}  // namespace interpreter
}  // namespace xla
