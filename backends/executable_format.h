#ifndef XLA_BACKENDS_EXECUTABLE_FORMAT_H_
#define XLA_BACKENDS_EXECUTABLE_FORMAT_H_

// The container every backend writes serialized executables in (Backend::SerializeExecutable,
// as XLA's CompileAheadOfTime / Load): a fixed header, then named fields.
//
//   bytes 0-7    magic "XLAEXEC\n"
//   bytes 8-11   format version (u32, little-endian): kExecutableFormatVersion
//   bytes 12-15  zero (reserved)
//   bytes 16-23  payload size (u64)
//   bytes 24-31  FNV-1a-64 of the payload (u64); any single changed byte changes it
//   payload      fields, each: u32 name size, name, u64 value size, value
//
// Every container carries the fields "platform" and "xla_server_version"; the backend adds
// its own (the cpu backend: target triple, host CPU and features, module, buffer plan, object
// code). Reading checks the header, the size and the checksum before it parses a field, and
// bounds-checks every field, so truncated or corrupted bytes are INVALID_ARGUMENT, never a
// crash. The checksum detects accidents, not forgery: loading an executable runs its code, so
// load only bytes from a source you trust.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace backend {

// The xla-server release written into every serialized executable (and reported by
// GetVersion); a different one refuses to load them.
inline constexpr char kXlaServerVersion[] = "0.1";
// 2: cpu buffer plans carry output aliases (input_output_alias).
// 3: the cpu convolution routine's descriptors carry batch_group_count.
inline constexpr uint32_t kExecutableFormatVersion = 3;
inline constexpr size_t kExecutableHeaderBytes = 32;

class ExecutableFields {
 public:
  void Set(const std::string& name, std::string value) { fields_[name] = std::move(value); }
  bool Has(const std::string& name) const { return fields_.count(name) != 0; }
  // INVALID_ARGUMENT naming the field when it is missing.
  absl::StatusOr<std::string_view> Get(const std::string& name) const;
  const std::map<std::string, std::string>& all() const { return fields_; }

 private:
  std::map<std::string, std::string> fields_;
};

uint64_t Fnv1a64(std::string_view bytes);

// Header + fields (sorted by name).
std::string WriteExecutableContainer(const ExecutableFields& fields);
// Checks magic, format version, size and checksum, then parses the fields.
absl::StatusOr<ExecutableFields> ReadExecutableContainer(std::string_view bytes);

// Starts the fields of an executable of `platform` (platform and xla_server_version).
ExecutableFields NewExecutableFields(const std::string& platform);
// FAILED_PRECONDITION unless the fields were written for `platform` by this xla-server version.
absl::Status CheckExecutableOrigin(const ExecutableFields& fields, const std::string& platform);

// The field "module": the (optimized) module with its config (which holds the entry layout),
// as every backend stores it. Reading is INVALID_ARGUMENT when it does not parse or convert,
// or has no entry computation.
absl::Status SetModuleField(const HloModule& module, ExecutableFields* fields);
absl::StatusOr<std::unique_ptr<HloModule>> GetModuleField(const ExecutableFields& fields);

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_EXECUTABLE_FORMAT_H_
