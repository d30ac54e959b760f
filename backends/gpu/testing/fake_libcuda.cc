// A stand-in for libcuda.so.1 in tests of the driver loader and the gpu backend (no GPU
// needed). It exports cuGetProcAddress_v2, as the real driver's loader entry, plus test hooks
// (xla_fake_cuda_*). $XLA_FAKE_CUDA_MODE picks the behaviour: "ok" (two sm_90 devices of
// 1 GiB whose memory is host memory; modules load; kernels do not run unless a test installs
// a launch handler or a kernel runner that stands in for them), "zero_devices",
// "no_device" (cuInit fails as on a machine without GPUs), "missing_entry" (cuLaunchKernel
// cannot be resolved), "no_pinned_memory" (as "ok", but cuMemAllocHost fails).
//
// Streams: with $XLA_FAKE_CUDA_STREAMS=deferred, work given to a stream (copies, memsets,
// launches) is queued and runs, in order, only when the host waits for it
// (cuStreamSynchronize, cuEventSynchronize, a copy into pageable memory, cuMemFree), as a
// device runs it after the call has returned. A program that forgets to wait, or reuses
// memory queued work still reads, then computes wrong values here as it would on a GPU.
// Copies follow the driver's rules: from pageable memory the source is read at the call,
// from pinned memory (cuMemAllocHost) when the copy runs. Otherwise everything runs at once.
//
// Contexts, as the driver has them: each device has a primary context, and each thread a
// current one (cuCtxSetCurrent). Allocating, creating streams and events, loading modules,
// copying and launching need a current context (CUDA_ERROR_INVALID_CONTEXT without one);
// what they create belongs to it. A stream, event or kernel used while another device's
// context is current, a copy or memset whose device memory is another device's, or a launch
// whose 8-byte parameters point into another device's memory fails (CUDA_ERROR_INVALID_HANDLE,
// CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_ILLEGAL_ADDRESS): a program that mixes up its devices
// fails here as it would, or would silently go through peer memory, on a host with several
// GPUs. Each device has its own 1 GiB.
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

const char* Mode() {
  const char* m = std::getenv("XLA_FAKE_CUDA_MODE");
  return m == nullptr ? "ok" : m;
}

CUresult FakeInit(unsigned int) {
  return std::strcmp(Mode(), "no_device") == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}
CUresult FakeDriverGetVersion(int* v) {
  *v = 12080;
  return CUDA_SUCCESS;
}
constexpr size_t kDeviceBytes = size_t{1} << 30;
std::mutex mu;
struct Allocation {
  size_t bytes;
  int device;
};
std::map<CUdeviceptr, Allocation> allocations;  // guarded by mu
constexpr int kDevices = 2;

// The primary context of device d is 0x1000 + d; a thread's current one (-1: none).
thread_local int current_device = -1;
int ContextDevice(CUcontext c) {
  const auto v = reinterpret_cast<uintptr_t>(c);
  return v >= 0x1000 && v < 0x1000 + kDevices ? static_cast<int>(v - 0x1000) : -1;
}
// The device whose memory holds address `p` (-1: no device allocation holds it); mu held.
int DeviceOfLocked(CUdeviceptr p) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return -1;
  --it;
  return p < it->first + it->second.bytes ? it->second.device : -1;
}
std::string last_image;
std::atomic<int> launches{0};
std::atomic<int> device_to_host_copies{0};
std::atomic<int64_t> device_to_device_bytes{0};
std::vector<std::string> launched_names;  // guarded by mu: every launch's kernel, in order
// A CUmodule points to its image (PTX text); a CUfunction to one of these, whose first
// member is the kernel's name (launch handlers read it as a C string).
struct FakeFunction {
  std::string name;
  const std::string* image;
  int device;  // whose context loaded its module
  std::vector<size_t> param_bytes;  // from the .entry's .param list, for deferred launches
};
std::map<std::string*, int> images;  // each module's image and the device that loaded it
std::map<std::tuple<const std::string*, std::string>, FakeFunction*> functions;
// Called for each launch with the kernel's name and parameters when set; 0 is success.
using LaunchHandler = int (*)(const char* kernel, void** params, void* context);
std::atomic<LaunchHandler> launch_handler{nullptr};
std::atomic<void*> launch_context{nullptr};
// Called instead, when set, with the kernel's module image and launch dimensions too.
using KernelRunner = int (*)(const char* image, const char* kernel, const unsigned* grid, const unsigned* block,
                             void** params, void* context);
std::atomic<KernelRunner> kernel_runner{nullptr};
std::atomic<void*> runner_context{nullptr};

bool Deferred() {
  const char* m = std::getenv("XLA_FAKE_CUDA_STREAMS");
  return m != nullptr && std::strcmp(m, "deferred") == 0;
}

struct FakeStream {
  int device = -1;    // whose context created it
  std::mutex run_mu;  // one drain at a time, so queued work runs in order
  std::mutex mu;      // guards the members below
  std::deque<std::function<CUresult()>> queued;
  uint64_t submitted = 0, done = 0;
  CUresult error = CUDA_SUCCESS;  // the first failure since the last wait, reported by it
};
std::set<FakeStream*> streams;  // guarded by mu
std::map<uintptr_t, size_t> pinned;  // host allocations of cuMemAllocHost, guarded by mu

bool IsPinned(const void* p) {
  std::lock_guard<std::mutex> lock(mu);
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = pinned.upper_bound(a);
  if (it == pinned.begin()) return false;
  --it;
  return a < it->first + it->second;
}

// Runs `work` now, or queues it on `stream` when deferred (the null stream always runs now).
CUresult Submit(CUstream stream, std::function<CUresult()> work) {
  if (stream == nullptr || !Deferred()) return work();
  auto* s = reinterpret_cast<FakeStream*>(stream);
  std::lock_guard<std::mutex> lock(s->mu);
  s->queued.push_back(std::move(work));
  ++s->submitted;
  return CUDA_SUCCESS;
}

// Runs `s`'s queued work up to position `upto` (its first `upto` submissions); returns and
// clears the first failure.
CUresult Drain(FakeStream* s, uint64_t upto) {
  std::lock_guard<std::mutex> run(s->run_mu);
  while (true) {
    std::function<CUresult()> work;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      if (s->done >= upto || s->queued.empty()) break;
      work = std::move(s->queued.front());
      s->queued.pop_front();
    }
    const CUresult r = work();
    std::lock_guard<std::mutex> lock(s->mu);
    ++s->done;
    if (r != CUDA_SUCCESS && s->error == CUDA_SUCCESS) s->error = r;
  }
  std::lock_guard<std::mutex> lock(s->mu);
  const CUresult r = s->error;
  s->error = CUDA_SUCCESS;
  return r;
}
CUresult DrainAll(CUstream stream) {
  if (stream == nullptr) return CUDA_SUCCESS;
  return Drain(reinterpret_cast<FakeStream*>(stream), UINT64_MAX);
}

CUresult FakeDeviceGetCount(int* n) {
  *n = std::strcmp(Mode(), "zero_devices") == 0 ? 0 : kDevices;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= kDevices) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetName(char* name, int len, CUdevice d) {
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU %d", d);
  return CUDA_SUCCESS;
}
CUresult FakeDeviceTotalMem(size_t* bytes, CUdevice) {
  *bytes = kDeviceBytes;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult FakePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  *c = reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + d));
  return CUDA_SUCCESS;
}
CUresult FakePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult FakeCtxSetCurrent(CUcontext c) {
  if (c != nullptr && ContextDevice(c) < 0) return CUDA_ERROR_INVALID_CONTEXT;
  current_device = c == nullptr ? -1 : ContextDevice(c);
  return CUDA_SUCCESS;
}
// The stream's device for work submitted on `stream` (the null stream: the current
// context's), or an error: no current context, or a stream of another device's context.
CUresult WorkDevice(CUstream stream, int* device) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (stream != nullptr && reinterpret_cast<const FakeStream*>(stream)->device != current_device) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *device = current_device;
  return CUDA_SUCCESS;
}
// Whether [p, p + n) of device memory lies on `device` (a copy or memset may not reach into
// another device's memory).
bool OnDevice(CUdeviceptr p, size_t n, int device) {
  std::lock_guard<std::mutex> lock(mu);
  return n == 0 || (DeviceOfLocked(p) == device && DeviceOfLocked(p + n - 1) == device);
}
// Device memory is host memory here, so transfers are memcpy and tests can check contents.
CUresult FakeMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(mu);
  size_t used = 0;
  for (const auto& [base, a] : allocations) used += a.device == current_device ? a.bytes : 0;
  if (used + bytes > kDeviceBytes) return CUDA_ERROR_OUT_OF_MEMORY;
  void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<CUdeviceptr>(memory);
  allocations[*p] = Allocation{bytes, current_device};
  return CUDA_SUCCESS;
}
CUresult FakeMemFree(CUdeviceptr p) {
  std::vector<FakeStream*> all;
  {
    std::lock_guard<std::mutex> lock(mu);
    all.assign(streams.begin(), streams.end());
  }
  for (FakeStream* s : all) Drain(s, UINT64_MAX);  // as cuMemFree waits for the device
  std::lock_guard<std::mutex> lock(mu);
  if (allocations.erase(p) == 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult FakeMemAllocHost(void** p, size_t bytes) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (std::strcmp(Mode(), "no_pinned_memory") == 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (*p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> lock(mu);
  pinned[reinterpret_cast<uintptr_t>(*p)] = bytes;
  return CUDA_SUCCESS;
}
CUresult FakeMemFreeHost(void* p) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (pinned.erase(reinterpret_cast<uintptr_t>(p)) == 0) return CUDA_ERROR_INVALID_VALUE;
  }
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult FakeMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n, CUstream stream) {
  int device;
  if (const CUresult r = WorkDevice(stream, &device); r != CUDA_SUCCESS) return r;
  if (!OnDevice(dst, n, device)) return CUDA_ERROR_INVALID_VALUE;
  if (IsPinned(src)) {
    return Submit(stream, [=] {
      std::memcpy(reinterpret_cast<void*>(dst), src, n);
      return CUDA_SUCCESS;
    });
  }
  auto staged = std::make_shared<std::string>(static_cast<const char*>(src), n);  // read now
  return Submit(stream, [=] {
    std::memcpy(reinterpret_cast<void*>(dst), staged->data(), n);
    return CUDA_SUCCESS;
  });
}
CUresult FakeMemcpyDtoH(void* dst, CUdeviceptr src, size_t n, CUstream stream) {
  int device;
  if (const CUresult r = WorkDevice(stream, &device); r != CUDA_SUCCESS) return r;
  if (!OnDevice(src, n, device)) return CUDA_ERROR_INVALID_VALUE;
  ++device_to_host_copies;
  auto copy = [=] {
    std::memcpy(dst, reinterpret_cast<const void*>(src), n);
    return CUDA_SUCCESS;
  };
  if (IsPinned(dst)) return Submit(stream, copy);
  // Into pageable memory the call returns once the copy is done: after the work before it.
  if (const CUresult r = DrainAll(stream); r != CUDA_SUCCESS) return r;
  return copy();
}
CUresult FakeMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  int device;
  if (const CUresult r = WorkDevice(stream, &device); r != CUDA_SUCCESS) return r;
  if (!OnDevice(dst, n, device) || !OnDevice(src, n, device)) return CUDA_ERROR_INVALID_VALUE;
  device_to_device_bytes += static_cast<int64_t>(n);
  return Submit(stream, [=] {
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
    return CUDA_SUCCESS;
  });
}
CUresult FakeMemsetD8(CUdeviceptr dst, unsigned char v, size_t n, CUstream stream) {
  int device;
  if (const CUresult r = WorkDevice(stream, &device); r != CUDA_SUCCESS) return r;
  if (!OnDevice(dst, n, device)) return CUDA_ERROR_INVALID_VALUE;
  return Submit(stream, [=] {
    std::memset(reinterpret_cast<void*>(dst), v, n);
    return CUDA_SUCCESS;
  });
}
CUresult FakeStreamCreate(CUstream* s, unsigned int) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  auto* stream = new FakeStream;
  stream->device = current_device;
  std::lock_guard<std::mutex> lock(mu);
  streams.insert(stream);
  *s = reinterpret_cast<CUstream>(stream);
  return CUDA_SUCCESS;
}
CUresult FakeStreamDestroy(CUstream s) {
  auto* stream = reinterpret_cast<FakeStream*>(s);
  Drain(stream, UINT64_MAX);
  std::lock_guard<std::mutex> lock(mu);
  if (streams.erase(stream) == 0) return CUDA_ERROR_INVALID_HANDLE;
  delete stream;
  return CUDA_SUCCESS;
}
CUresult FakeStreamSynchronize(CUstream s) { return DrainAll(s); }
// An event marks a position in a stream's work: recorded, it completes once the stream has
// run everything submitted before the record.
struct FakeEvent {
  int device = -1;  // whose context created it
  FakeStream* stream = nullptr;
  uint64_t position = 0;
};
CUresult FakeEventCreate(CUevent* e, unsigned int) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  auto* event = new FakeEvent;
  event->device = current_device;
  *e = reinterpret_cast<CUevent>(event);
  return CUDA_SUCCESS;
}
CUresult FakeEventDestroy(CUevent e) {
  delete reinterpret_cast<FakeEvent*>(e);
  return CUDA_SUCCESS;
}
CUresult FakeEventRecord(CUevent e, CUstream s) {
  auto* event = reinterpret_cast<FakeEvent*>(e);
  int device;
  if (const CUresult r = WorkDevice(s, &device); r != CUDA_SUCCESS) return r;
  if (event->device != device) return CUDA_ERROR_INVALID_HANDLE;
  event->stream = reinterpret_cast<FakeStream*>(s);
  event->position = 0;
  if (event->stream != nullptr) {
    std::lock_guard<std::mutex> lock(event->stream->mu);
    event->position = event->stream->submitted;
  }
  return CUDA_SUCCESS;
}
CUresult FakeEventQuery(CUevent e) {
  auto* event = reinterpret_cast<FakeEvent*>(e);
  if (event->stream == nullptr) return CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(event->stream->mu);
  return event->stream->done >= event->position ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult FakeEventSynchronize(CUevent e) {
  auto* event = reinterpret_cast<FakeEvent*>(e);
  return event->stream == nullptr ? CUDA_SUCCESS : Drain(event->stream, event->position);
}
CUresult FakeModuleLoadDataEx(CUmodule* m, const void* image, unsigned int, CUjit_option*, void**) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(mu);
  last_image = static_cast<const char*>(image);
  auto* held = new std::string(last_image);
  images[held] = current_device;
  *m = reinterpret_cast<CUmodule>(held);
  return CUDA_SUCCESS;
}
CUresult FakeModuleUnload(CUmodule m) {
  std::lock_guard<std::mutex> lock(mu);
  auto* image = reinterpret_cast<std::string*>(m);
  if (images.erase(image) == 0) return CUDA_ERROR_INVALID_HANDLE;
  for (auto it = functions.begin(); it != functions.end();) {
    if (std::get<0>(it->first) == image) {
      delete it->second;
      it = functions.erase(it);
    } else {
      ++it;
    }
  }
  delete image;
  return CUDA_SUCCESS;
}
// The sizes of the parameters of the .entry at `entry` in PTX text (".param .u64 name, ...").
std::vector<size_t> ParamBytes(const std::string& image, size_t entry) {
  std::vector<size_t> bytes;
  const size_t end = image.find(')', entry);
  for (size_t at = image.find(".param", entry); at < end; at = image.find(".param", at + 1)) {
    size_t type = image.find('.', at + 6);
    size_t bits = type == std::string::npos ? 64 : std::strtoul(image.c_str() + type + 2, nullptr, 10);
    bytes.push_back(bits >= 8 ? bits / 8 : 8);
  }
  return bytes;
}
CUresult FakeModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  std::lock_guard<std::mutex> lock(mu);
  auto* image = reinterpret_cast<std::string*>(m);
  auto loaded = images.find(image);
  if (loaded == images.end()) return CUDA_ERROR_INVALID_HANDLE;
  const size_t entry = image->find(std::string(".entry ") + name + "(");
  if (entry == std::string::npos) return CUDA_ERROR_NOT_FOUND;
  FakeFunction*& function = functions[{image, name}];
  if (function == nullptr) function = new FakeFunction{name, image, loaded->second, ParamBytes(*image, entry)};
  *f = reinterpret_cast<CUfunction>(function);
  return CUDA_SUCCESS;
}
CUresult FakeLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned, CUstream stream, void** params, void**) {
  ++launches;
  const auto* function = reinterpret_cast<const FakeFunction*>(f);
  {
    std::lock_guard<std::mutex> lock(mu);
    launched_names.push_back(function->name);
  }
  int device;
  if (const CUresult r = WorkDevice(stream, &device); r != CUDA_SUCCESS) return r;
  if (function->device != device) return CUDA_ERROR_INVALID_HANDLE;
  // The parameters' values are read at the launch, as the driver reads them.
  auto values = std::make_shared<std::vector<std::string>>();
  for (size_t i = 0; i < function->param_bytes.size(); ++i) {
    values->emplace_back(static_cast<const char*>(params[i]), function->param_bytes[i]);
    if (function->param_bytes[i] != sizeof(CUdeviceptr)) continue;
    CUdeviceptr p;
    std::memcpy(&p, params[i], sizeof(p));
    std::lock_guard<std::mutex> lock(mu);
    const int owner = DeviceOfLocked(p);
    if (owner >= 0 && owner != device) return CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  const std::vector<unsigned> dims = {gx, gy, gz, bx, by, bz};
  return Submit(stream, [function, values, dims]() -> CUresult {
    std::vector<void*> held;
    for (std::string& v : *values) held.push_back(v.data());
    if (KernelRunner runner = kernel_runner.load(); runner != nullptr) {
      return runner(function->image->c_str(), function->name.c_str(), dims.data(), dims.data() + 3, held.data(),
                    runner_context.load()) == 0
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_LAUNCH_FAILED;
    }
    LaunchHandler handler = launch_handler.load();
    if (handler == nullptr) return CUDA_ERROR_NOT_SUPPORTED;  // the fake runs no device code
    return handler(function->name.c_str(), held.data(), launch_context.load()) == 0 ? CUDA_SUCCESS
                                                                                 : CUDA_ERROR_LAUNCH_FAILED;
  });
}
CUresult FakeGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_READY: *s = "CUDA_ERROR_NOT_READY"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult FakeGetErrorString(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE: *s = "no CUDA-capable device is detected"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
// Every other entry point: resolvable, never called by the tests.
CUresult FakeNotSupported() { return CUDA_ERROR_NOT_SUPPORTED; }

}  // namespace

extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  struct Entry {
    const char* name;
    void* fn;
  };
  static const Entry kEntries[] = {
      {"cuInit", reinterpret_cast<void*>(&FakeInit)},
      {"cuDriverGetVersion", reinterpret_cast<void*>(&FakeDriverGetVersion)},
      {"cuDeviceGetCount", reinterpret_cast<void*>(&FakeDeviceGetCount)},
      {"cuGetErrorName", reinterpret_cast<void*>(&FakeGetErrorName)},
      {"cuGetErrorString", reinterpret_cast<void*>(&FakeGetErrorString)},
      {"cuDeviceGet", reinterpret_cast<void*>(&FakeDeviceGet)},
      {"cuDeviceGetName", reinterpret_cast<void*>(&FakeDeviceGetName)},
      {"cuDeviceTotalMem", reinterpret_cast<void*>(&FakeDeviceTotalMem)},
      {"cuDeviceGetAttribute", reinterpret_cast<void*>(&FakeDeviceGetAttribute)},
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void*>(&FakePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease", reinterpret_cast<void*>(&FakePrimaryCtxRelease)},
      {"cuCtxSetCurrent", reinterpret_cast<void*>(&FakeCtxSetCurrent)},
      {"cuMemAlloc", reinterpret_cast<void*>(&FakeMemAlloc)},
      {"cuMemFree", reinterpret_cast<void*>(&FakeMemFree)},
      {"cuMemAllocHost", reinterpret_cast<void*>(&FakeMemAllocHost)},
      {"cuMemFreeHost", reinterpret_cast<void*>(&FakeMemFreeHost)},
      {"cuMemcpyHtoDAsync", reinterpret_cast<void*>(&FakeMemcpyHtoD)},
      {"cuMemcpyDtoDAsync", reinterpret_cast<void*>(&FakeMemcpyDtoD)},
      {"cuMemcpyDtoHAsync", reinterpret_cast<void*>(&FakeMemcpyDtoH)},
      {"cuMemsetD8Async", reinterpret_cast<void*>(&FakeMemsetD8)},
      {"cuStreamCreate", reinterpret_cast<void*>(&FakeStreamCreate)},
      {"cuStreamDestroy", reinterpret_cast<void*>(&FakeStreamDestroy)},
      {"cuStreamSynchronize", reinterpret_cast<void*>(&FakeStreamSynchronize)},
      {"cuEventCreate", reinterpret_cast<void*>(&FakeEventCreate)},
      {"cuEventDestroy", reinterpret_cast<void*>(&FakeEventDestroy)},
      {"cuEventRecord", reinterpret_cast<void*>(&FakeEventRecord)},
      {"cuEventQuery", reinterpret_cast<void*>(&FakeEventQuery)},
      {"cuEventSynchronize", reinterpret_cast<void*>(&FakeEventSynchronize)},
      {"cuModuleLoadDataEx", reinterpret_cast<void*>(&FakeModuleLoadDataEx)},
      {"cuModuleUnload", reinterpret_cast<void*>(&FakeModuleUnload)},
      {"cuModuleGetFunction", reinterpret_cast<void*>(&FakeModuleGetFunction)},
      {"cuLaunchKernel", reinterpret_cast<void*>(&FakeLaunchKernel)},
  };
  *pfn = nullptr;
  if (std::strcmp(Mode(), "missing_entry") == 0 && std::strcmp(symbol, "cuLaunchKernel") == 0) {
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *status = CU_GET_PROC_ADDRESS_SUCCESS;
  for (const Entry& e : kEntries) {
    if (std::strcmp(symbol, e.name) == 0) {
      *pfn = e.fn;
      return CUDA_SUCCESS;
    }
  }
  *pfn = reinterpret_cast<void*>(&FakeNotSupported);
  return CUDA_SUCCESS;
}

// Test hooks (looked up with dlsym by gpu_backend_test).
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_live_allocations() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(allocations.size());
}
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_launches() { return launches.load(); }
extern "C" __attribute__((visibility("default"))) const char* xla_fake_cuda_last_image() {
  std::lock_guard<std::mutex> lock(mu);
  return last_image.c_str();
}
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_device_to_host_copies() {
  return device_to_host_copies.load();
}
extern "C" __attribute__((visibility("default"))) int64_t xla_fake_cuda_device_to_device_bytes() {
  return device_to_device_bytes.load();
}
// Launches so far of kernels whose names end with `suffix`.
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_launches_ending(const char* suffix) {
  std::lock_guard<std::mutex> lock(mu);
  const size_t n = std::strlen(suffix);
  int count = 0;
  for (const std::string& name : launched_names) {
    count += name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
  }
  return count;
}
// `handler` (null: none) runs each launched kernel in place of the device: the parameters
// are pointers to the kernel's CUdeviceptr arguments, which are host addresses here.
extern "C" __attribute__((visibility("default"))) void xla_fake_cuda_set_launch_handler(LaunchHandler handler,
                                                                                      void* context) {
  launch_context.store(context);
  launch_handler.store(handler);
}
// `runner` (null: none) runs each launched kernel in place of the device, before any launch
// handler: it gets the PTX the kernel's module was loaded from, the launch's grid and block
// dimensions, and the parameters as a launch handler does (kernel_emulator.h is one).
extern "C" __attribute__((visibility("default"))) void xla_fake_cuda_set_kernel_runner(KernelRunner runner,
                                                                                     void* context) {
  runner_context.store(context);
  kernel_runner.store(runner);
}
// Queues `work(context)` on `stream` as the driver's own work (it runs in order with the
// stream's copies and launches; a nonzero return fails the stream's next wait): how the fake
// cuBLAS (fake_libcublas.cc) computes on the device.
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_submit(CUstream stream, int (*work)(void*),
                                                                         void* context) {
  return static_cast<int>(
      Submit(stream, [work, context]() { return work(context) == 0 ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED; }));
}
