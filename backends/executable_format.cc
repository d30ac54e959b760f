#include "backends/executable_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/escaping.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/status_macros.h"

namespace xla {
namespace backend {
namespace {

constexpr char kMagic[8] = {'X', 'L', 'A', 'E', 'X', 'E', 'C', '\n'};

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetLE(std::string_view bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

// Field names and values from the bytes, safe to print.
std::string Printable(std::string_view text) { return absl::CHexEscape(absl::string_view(text.data(), text.size())); }

}  // namespace

absl::StatusOr<std::string_view> ExecutableFields::Get(const std::string& name) const {
  auto it = fields_.find(name);
  if (it == fields_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("serialized executable lacks the field '", name, "'"));
  }
  return std::string_view(it->second);
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string WriteExecutableContainer(const ExecutableFields& fields) {
  std::string payload;
  for (const auto& [name, value] : fields.all()) {
    PutU32(&payload, static_cast<uint32_t>(name.size()));
    payload += name;
    PutU64(&payload, value.size());
    payload += value;
  }
  std::string out(kMagic, sizeof(kMagic));
  PutU32(&out, kExecutableFormatVersion);
  PutU32(&out, 0);
  PutU64(&out, payload.size());
  PutU64(&out, Fnv1a64(payload));
  out += payload;
  return out;
}

absl::StatusOr<ExecutableFields> ReadExecutableContainer(std::string_view bytes) {
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::InvalidArgumentError("not a serialized xla-server executable (bad magic)");
  }
  if (bytes.size() < kExecutableHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrCat("serialized executable truncated: ", bytes.size(),
                                                   " bytes, the header alone is ", kExecutableHeaderBytes));
  }
  const uint64_t version = GetLE(bytes, 8, 4);
  if (version != kExecutableFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat("serialized executable has format version ", version,
                                                      "; this xla-server reads version ", kExecutableFormatVersion));
  }
  if (GetLE(bytes, 12, 4) != 0) return absl::InvalidArgumentError("serialized executable: corrupted header");
  const uint64_t size = GetLE(bytes, 16, 8);
  const uint64_t have = bytes.size() - kExecutableHeaderBytes;
  if (size != have) {
    return absl::InvalidArgumentError(absl::StrCat("serialized executable ", size > have ? "truncated" : "has trailing bytes",
                                                   ": the header announces ", size, " payload bytes, there are ", have));
  }
  std::string_view payload = bytes.substr(kExecutableHeaderBytes);
  if (Fnv1a64(payload) != GetLE(bytes, 24, 8)) {
    return absl::InvalidArgumentError("serialized executable is corrupted (checksum mismatch)");
  }
  ExecutableFields fields;
  size_t at = 0;
  while (at < payload.size()) {
    if (payload.size() - at < 4) return absl::InvalidArgumentError("serialized executable: truncated field name");
    const uint64_t name_size = GetLE(payload, at, 4);
    at += 4;
    if (payload.size() - at < name_size + 8) return absl::InvalidArgumentError("serialized executable: truncated field");
    std::string name(payload.substr(at, name_size));
    at += name_size;
    const uint64_t value_size = GetLE(payload, at, 8);
    at += 8;
    if (payload.size() - at < value_size) {
      return absl::InvalidArgumentError(absl::StrCat("serialized executable: field '", Printable(name), "' truncated"));
    }
    if (fields.Has(name)) {
      return absl::InvalidArgumentError(absl::StrCat("serialized executable: field '", Printable(name), "' repeated"));
    }
    fields.Set(name, std::string(payload.substr(at, value_size)));
    at += value_size;
  }
  return fields;
}

ExecutableFields NewExecutableFields(const std::string& platform) {
  ExecutableFields fields;
  fields.Set("platform", platform);
  fields.Set("xla_server_version", kXlaServerVersion);
  return fields;
}

absl::Status CheckExecutableOrigin(const ExecutableFields& fields, const std::string& platform) {
  auto written_for = fields.Get("platform");
  if (!written_for.ok()) return written_for.status();
  if (*written_for != platform) {
    return absl::FailedPreconditionError(absl::StrCat("the executable was compiled for platform '",
                                                      Printable(*written_for), "', not '", platform, "'"));
  }
  auto version = fields.Get("xla_server_version");
  if (!version.ok()) return version.status();
  if (*version != kXlaServerVersion) {
    return absl::FailedPreconditionError(absl::StrCat("the executable was written by xla-server ",
                                                      Printable(*version), "; this is xla-server ",
                                                      kXlaServerVersion, ": compile it again"));
  }
  return absl::OkStatus();
}

absl::Status SetModuleField(const HloModule& module, ExecutableFields* fields) {
  std::string bytes;
  if (!HloModuleToProtoWithConfig(module).SerializeToString(&bytes)) {
    return absl::InternalError("cannot serialize the module (over 2 GiB?)");
  }
  fields->Set("module", std::move(bytes));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> GetModuleField(const ExecutableFields& fields) {
  ASSIGN_OR_RETURN(std::string_view bytes, fields.Get("module"));
  HloModuleProtoWithConfig proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("serialized executable: the module does not parse");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, HloModuleFromProtoWithConfig(proto));
  if (module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError("serialized executable: the module has no entry computation");
  }
  return module;
}

}  // namespace backend
}  // namespace xla
