#include "backends/backend.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace backend {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, BackendFactory> factories;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

absl::StatusOr<std::string> Backend::SerializeExecutable(const Executable& executable) {
  return absl::UnimplementedError(
      absl::StrCat("the ", platform(), " backend cannot serialize executables (ahead-of-time compilation)"));
}

absl::StatusOr<std::unique_ptr<Executable>> Backend::DeserializeExecutable(std::string_view bytes,
                                                                           int device_ordinal) {
  return absl::UnimplementedError(
      absl::StrCat("the ", platform(), " backend cannot load serialized executables"));
}

bool RegisterBackendFactory(const std::string& platform, BackendFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.factories.emplace(platform, std::move(factory)).second;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& platform) {
  RegisterBuiltinBackends();
  BackendFactory factory;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(platform);
    if (it == r.factories.end()) {
      std::vector<std::string> names;
      for (const auto& [name, f] : r.factories) names.push_back(name);
      return absl::NotFoundError(absl::StrCat("no backend for platform '", platform,
                                              "'; available: ", absl::StrJoin(names, ", ")));
    }
    factory = it->second;
  }
  return factory();
}

std::vector<std::string> RegisteredPlatforms() {
  RegisterBuiltinBackends();
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories) names.push_back(name);
  return names;
}

}  // namespace backend
}  // namespace xla
