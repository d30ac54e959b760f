// The GPU machine's half of tests/gpu/device_check.sh (no LLVM in this binary):
//   gpu_check_runner BUNDLE_DIR
// loads every BUNDLE_DIR/cases/<name>.gpuexe (compiled here by gpu_bundle) on GPU 0 and
//  - for a checked case: runs it and the interpreter on the same seeded random arguments and
//    compares (|gpu - ref| <= atol + rtol * |ref| for floats, bits for the rest);
//  - for a "bench" case: times it (median of 10, arguments resident) against a device-to-
//    device copy of the same number of bytes read and written, measured in the same run;
//    for a "bench flops N" case, reports N / time (the bf16 matmul also against the same
//    GEMM called on cuBLAS directly, in the same run).
// Curated cases run first, then the benchmarks, then the conformance modules. Each row is
// printed as it is made (a run cut short still says how far it got); a markdown table comes
// last, with every row but the conformance modules that agree (counted instead).
// Environment: GPU_CHECK_BUDGET_S (default 330): no case starts after that many seconds;
// GPU_CHECK_CASE_TIMEOUT_S (default 60): a case still running then ends the run (exit 4);
// GPU_CHECK_SKIP: comma-separated case names not to run; GPU_CHECK_ONLY: the only ones to run.
// Exit status 0 when every checked case agrees.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/backend.h"
#include "backends/gpu/cublas_library.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_backend.h"
#ifdef GPU_CHECK_RUNNER_COMPILES
#include "backends/gpu/gpu_compiler.h"
#endif
#include "backends/gpu/testing/gpu_test_modules.h"
#include "hlo/float_types.h"
#include "hlo/hlo_parser.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double AsDouble(const uint8_t* p, PrimitiveType t) {
  switch (t) {
    case F32: { float v; std::memcpy(&v, p, 4); return v; }
    case F64: { double v; std::memcpy(&v, p, 8); return v; }
    case BF16: { uint16_t v; std::memcpy(&v, p, 2); return Bfloat16ToFloat(v); }
    case F16: { uint16_t v; std::memcpy(&v, p, 2); return HalfToFloat(v); }
    default: return 0;
  }
}

// "" when `actual` is within tolerance of `expected`, else the first difference.
std::string Compare(const Literal& expected, const Literal& actual, double rtol, double atol) {
  const Shape& shape = expected.shape();
  if (!ShapeUtil::Compatible(shape, actual.shape())) {
    return absl::StrCat("shape ", actual.shape().ToString(), " != ", shape.ToString());
  }
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < ShapeUtil::TupleElementCount(shape); ++i) {
      std::string d = Compare(expected.tuple_element(i), actual.tuple_element(i), rtol, atol);
      if (!d.empty()) return absl::StrCat("element ", i, ": ", d);
    }
    return "";
  }
  if (!shape.IsArray()) return "";
  // The same values in another layout (an entry_computation_layout may ask for any) compare
  // element by element in the expected one's.
  if (shape.has_layout() && actual.shape().has_layout() &&
      shape.layout().minor_to_major() != actual.shape().layout().minor_to_major()) {
    absl::StatusOr<Literal> relaid = actual.Relayout(shape.layout());
    if (!relaid.ok()) return relaid.status().ToString();
    return Compare(expected, *relaid, rtol, atol);
  }
  const PrimitiveType t = shape.element_type();
  const bool numeric = t == F32 || t == F64 || t == BF16 || t == F16;
  const int64_t width = expected.size_bytes() / std::max<int64_t>(ShapeUtil::ElementsIn(shape), 1);
  const auto* e = static_cast<const uint8_t*>(expected.untyped_data());
  const auto* a = static_cast<const uint8_t*>(actual.untyped_data());
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(shape); ++i) {
    if (std::memcmp(e + i * width, a + i * width, width) == 0) continue;
    if (numeric) {
      const double x = AsDouble(e + i * width, t), y = AsDouble(a + i * width, t);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (std::isfinite(x) && std::isfinite(y) && std::fabs(x - y) <= atol + rtol * std::fabs(x)) continue;
      return absl::StrCat("index ", i, ": ", y, " vs ", x);
    }
    return absl::StrCat("index ", i, ": bytes differ");
  }
  return "";
}

template <typename F>
double MedianSeconds(int runs, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Makes GPU 0's primary context current on this thread, for the raw driver references.
absl::Status UseGpu0(const CudaDriver* d) {
  CUdevice device;
  CUcontext context;
  CUDA_RETURN_IF_ERROR(d, cuDeviceGet(&device, 0));
  CUDA_RETURN_IF_ERROR(d, cuDevicePrimaryCtxRetain(&context, device));
  CUDA_RETURN_IF_ERROR(d, cuCtxSetCurrent(context));
  return absl::OkStatus();
}

// Seconds for a device-to-device copy of `bytes` (median of 10).
absl::StatusOr<double> CopySeconds(const CudaDriver* d, size_t bytes) {
  RETURN_IF_ERROR(UseGpu0(d));
  CUdeviceptr a = 0, b = 0;
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&a, bytes));
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&b, bytes));
  CUstream stream;
  CUDA_RETURN_IF_ERROR(d, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUresult r = CUDA_SUCCESS;
  const double s = MedianSeconds(10, [&] {
    if (r == CUDA_SUCCESS) r = d->cuMemcpyDtoDAsync(b, a, bytes, stream);
    if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(stream);
  });
  d->cuStreamDestroy(stream);
  d->cuMemFree(a);
  d->cuMemFree(b);
  if (r != CUDA_SUCCESS) return d->ToStatus(r, "cuMemcpyDtoDAsync");
  return s;
}

// Seconds for one n x n x n bf16 GEMM (f32 accumulation, bf16 result) called on cuBLAS
// directly (median of 10 after a warm-up): the reference for the backend's bf16 dot.
absl::StatusOr<double> CublasBf16GemmSeconds(const CudaDriver* d, int n) {
  ASSIGN_OR_RETURN(const CublasLibrary* blas, CublasLibrary::Default());
  RETURN_IF_ERROR(UseGpu0(d));
  const size_t bytes = size_t{2} * n * n;
  CUdeviceptr a = 0, b = 0, c = 0;
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&a, bytes));
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&b, bytes));
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&c, bytes));
  CUstream stream;
  CUDA_RETURN_IF_ERROR(d, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  // Seeded random operands, as the backend's case gets (a GEMM of constants runs faster).
  ASSIGN_OR_RETURN(Literal host, Literal::Create(ShapeUtil::MakeShape(BF16, {n, n})));
  uint64_t state = 7;
  testing::FillRandom(&host, host.shape(), &state);
  CUDA_RETURN_IF_ERROR(d, cuMemcpyHtoDAsync(a, host.untyped_data(), bytes, stream));
  CUDA_RETURN_IF_ERROR(d, cuMemcpyHtoDAsync(b, host.untyped_data(), bytes, stream));
  CUDA_RETURN_IF_ERROR(d, cuStreamSynchronize(stream));
  cublasHandle_t handle = nullptr;
  cublasStatus_t st = blas->create(&handle);
  if (st != CUBLAS_STATUS_SUCCESS) return blas->ToStatus(st, "cublasCreate");
  blas->set_stream(handle, reinterpret_cast<cudaStream_t>(stream));
  const float one = 1, zero = 0;
  CUresult r = CUDA_SUCCESS;
  auto gemm = [&] {
    if (st == CUBLAS_STATUS_SUCCESS) {
      st = blas->gemm_strided_batched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, reinterpret_cast<void*>(b),
                                      CUDA_R_16BF, n, 0, reinterpret_cast<void*>(a), CUDA_R_16BF, n, 0, &zero,
                                      reinterpret_cast<void*>(c), CUDA_R_16BF, n, 0, 1, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT);
    }
    if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(stream);
  };
  gemm();
  const double s = MedianSeconds(10, gemm);
  blas->destroy(handle);
  d->cuStreamDestroy(stream);
  d->cuMemFree(a);
  d->cuMemFree(b);
  d->cuMemFree(c);
  if (st != CUBLAS_STATUS_SUCCESS) return blas->ToStatus(st, "cublasGemmStridedBatchedEx");
  if (r != CUDA_SUCCESS) return d->ToStatus(r, "cuStreamSynchronize");
  return s;
}

// Seconds for the driver to copy `bytes` of pageable host memory to the device and back
// (medians of 5), with no staging of ours: the reference for the backend's transfers.
absl::StatusOr<std::pair<double, double>> PageableCopySeconds(const CudaDriver* d, std::vector<char>& host) {
  RETURN_IF_ERROR(UseGpu0(d));
  CUdeviceptr a = 0;
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&a, host.size()));
  CUstream stream;
  CUDA_RETURN_IF_ERROR(d, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUresult r = CUDA_SUCCESS;
  const double up = MedianSeconds(5, [&] {
    if (r == CUDA_SUCCESS) r = d->cuMemcpyHtoDAsync(a, host.data(), host.size(), stream);
    if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(stream);
  });
  const double down = MedianSeconds(5, [&] {
    if (r == CUDA_SUCCESS) r = d->cuMemcpyDtoHAsync(host.data(), a, host.size(), stream);
    if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(stream);
  });
  d->cuStreamDestroy(stream);
  d->cuMemFree(a);
  if (r != CUDA_SUCCESS) return d->ToStatus(r, "cuMemcpy (pageable)");
  return std::make_pair(up, down);
}

// Seconds for the driver to copy `bytes` from the device into a fresh Literal each time (median
// of 5): what a download costs with the new memory's first-touch faults, without our staging.
absl::StatusOr<double> FreshDownloadSeconds(const CudaDriver* d, int64_t bytes) {
  RETURN_IF_ERROR(UseGpu0(d));
  CUdeviceptr a = 0;
  CUDA_RETURN_IF_ERROR(d, cuMemAlloc(&a, static_cast<size_t>(bytes)));
  CUstream stream;
  CUDA_RETURN_IF_ERROR(d, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUresult r = CUDA_SUCCESS;
  const double s = MedianSeconds(5, [&] {
    absl::StatusOr<Literal> fresh = Literal::Create(ShapeUtil::MakeShape(U8, {bytes}));
    if (!fresh.ok()) return;
    if (r == CUDA_SUCCESS) r = d->cuMemcpyDtoHAsync(fresh->untyped_data(), a, static_cast<size_t>(bytes), stream);
    if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(stream);
  });
  d->cuStreamDestroy(stream);
  d->cuMemFree(a);
  if (r != CUDA_SUCCESS) return d->ToStatus(r, "cuMemcpyDtoH (fresh)");
  return s;
}

// Table rows for 256 MiB TransferToDevice / TransferFromDevice through the backend (its
// lanes' pinned staging) against the driver's own pageable copies, in the same run.
std::vector<std::string> TransferRows(const CudaDriver* driver, backend::Backend& gpu) {
  constexpr int64_t kElements = int64_t{64} << 20;
  const double bytes = 4.0 * kElements;
  std::vector<std::string> rows;
  absl::StatusOr<Literal> host = Literal::Create(ShapeUtil::MakeShape(F32, {kElements}));
  if (!host.ok()) return {absl::StrCat("| transfers | ", host.status().ToString(), " | |")};
  std::memset(host->untyped_data(), 1, host->size_bytes());
  std::shared_ptr<backend::Buffer> buffer;
  absl::Status status;
  const double up = MedianSeconds(5, [&] {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> b = gpu.TransferToDevice(*host, 0);
    if (b.ok()) buffer = *b;
    else status = b.status();
  });
  const double down = MedianSeconds(5, [&] {
    if (buffer == nullptr) return;
    absl::StatusOr<Literal> l = gpu.TransferFromDevice(*buffer);
    if (!l.ok()) status = l.status();
  });
  if (!status.ok() || buffer == nullptr) return {absl::StrCat("| transfers | FAILED: ", status.ToString(), " | |")};
  std::vector<char> raw(static_cast<size_t>(bytes), 1);
  absl::StatusOr<std::pair<double, double>> reference = PageableCopySeconds(driver, raw);
  auto row = [&](const char* what, double seconds, double (*pick)(const std::pair<double, double>&)) {
    std::string vs = reference.ok() ? absl::StrCat(bytes / pick(*reference) / 1e9, " GB/s driver pageable; ratio ",
                                                   pick(*reference) / seconds)
                                    : reference.status().ToString();
    return absl::StrCat("| ", what, " 256 MiB | ", seconds * 1e3, " ms, ", bytes / seconds / 1e9, " GB/s | ", vs, " |");
  };
  rows.push_back(row("transfer to device", up, [](const std::pair<double, double>& p) { return p.first; }));
  rows.push_back(row("transfer from device", down, [](const std::pair<double, double>& p) { return p.second; }));
  absl::StatusOr<double> fresh = FreshDownloadSeconds(driver, static_cast<int64_t>(bytes));
  rows.push_back(fresh.ok() ? absl::StrCat("| driver pageable into a fresh literal 256 MiB | ", *fresh * 1e3, " ms, ",
                                           bytes / *fresh / 1e9, " GB/s | ratio to ours ", *fresh / down, " |")
                            : absl::StrCat("| driver pageable into a fresh literal | ", fresh.status().ToString(), " | |"));
  return rows;
}

// Cases whose arguments or result are larger are listed as skipped (the benchmarks take 1-2 GiB).
constexpr int64_t kMaxArgumentBytes = int64_t{4} << 30;

int64_t LeafBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& s : shape.tuple_shapes()) n += LeafBytes(s);
    return n;
  }
  return shape.IsArray() ? ShapeUtil::ByteSizeOf(shape) : 0;
}

// The entry computation's infeeds (their data shapes) and outfeeds (what they send), in
// program order; `nested` when a called computation has one (how many values an execution
// takes or sends then depends on the data: such modules are not checked here).
struct Feeds {
  std::vector<Shape> infeeds, outfeeds;
  bool nested = false;
};

Feeds FindFeeds(const HloModule& module) {
  Feeds feeds;
  for (const auto& computation : module.computations()) {
    const bool entry = computation.get() == module.entry_computation();
    for (const auto& instruction : computation->instructions()) {
      const HloOpcode op = instruction->opcode();
      if (op != HloOpcode::kInfeed && op != HloOpcode::kOutfeed) continue;
      if (!entry) feeds.nested = true;
      else if (op == HloOpcode::kInfeed) feeds.infeeds.push_back(instruction->shape().tuple_shapes(0));
      else feeds.outfeeds.push_back(instruction->operand(0)->shape());
    }
  }
  return feeds;
}

// Queues one value per infeed (the same value for each infeed of a shape, so the order in
// which a backend runs independent infeeds cannot matter), runs, then takes every outfeed's.
absl::StatusOr<std::shared_ptr<backend::Buffer>> ExecuteFed(backend::Backend& on, backend::Executable& exe,
                                                            absl::Span<const std::shared_ptr<backend::Buffer>> args,
                                                            const Feeds& feeds, std::vector<Literal>* outfed) {
  for (const Shape& shape : feeds.infeeds) {
    ASSIGN_OR_RETURN(Literal value, Literal::Create(shape));
    uint64_t state = std::hash<std::string>()(shape.ToString(true));
    testing::FillRandom(&value, shape, &state);
    RETURN_IF_ERROR(on.TransferToInfeed(0, value));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> result, exe.Execute(args, backend::ExecuteOptions()));
  for (const Shape& shape : feeds.outfeeds) {
    ASSIGN_OR_RETURN(Literal value, on.TransferFromOutfeed(0, shape, /*timeout_ms=*/10000));
    if (outfed != nullptr) outfed->push_back(std::move(value));
  }
  return result;
}

double EnvSeconds(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atof(v) : fallback;
}

// Curated checks first (the quickest word on correctness), then the benchmarks, then the
// conformance modules; by name within each.
int CaseRank(const std::string& name, const std::string& check) {
  if (name.rfind("conformance_", 0) == 0) return 2;
  return check.rfind("bench", 0) == 0 ? 1 : 0;
}

std::mutex report_mu;  // the watchdog reads a Report while the loop adds to it

struct Report {
  std::vector<std::string> rows;  // for the closing table
  int agreed = 0, failed = 0, conformance_agreed = 0, not_run = 0;

  // Prints the row now, keeping it for the table unless it is a conformance module's pass.
  void Add(const std::string& row, bool keep = true) {
    std::lock_guard<std::mutex> lock(report_mu);
    std::cout << row << std::endl;
    if (keep) rows.push_back(row);
  }
  void PrintTable(const std::string& device, int driver_version) const {
    std::cout << "\n## gpu device check: " << device << ", driver " << driver_version
              << "\n\n| case | result | time / reference |\n| --- | --- | --- |\n";
    for (const std::string& row : rows) std::cout << row << "\n";
    if (conformance_agreed > 0) {
      std::cout << "| conformance modules not listed | " << conformance_agreed << " agree | |\n";
    }
    std::cout << "\n" << agreed << " checked cases agree, " << failed << " failed";
    if (not_run > 0) std::cout << ", " << not_run << " not run (time budget or GPU_CHECK_SKIP)";
    std::cout << std::endl;
  }
};

int Run(const std::filesystem::path& bundle) {
  const auto begin = std::chrono::steady_clock::now();
  const double budget_s = EnvSeconds("GPU_CHECK_BUDGET_S", 330);
  const double case_timeout_s = EnvSeconds("GPU_CHECK_CASE_TIMEOUT_S", 60);
  std::vector<std::string> skip, only;
  if (const char* v = std::getenv("GPU_CHECK_SKIP"); v != nullptr) skip = absl::StrSplit(v, ',', absl::SkipEmpty());
  if (const char* v = std::getenv("GPU_CHECK_ONLY"); v != nullptr) only = absl::StrSplit(v, ',', absl::SkipEmpty());
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Default();
  if (!driver.ok()) {
    std::cout << "no GPU: " << driver.status() << "\n";
    return 3;
  }
#ifdef GPU_CHECK_RUNNER_COMPILES
  // The emulated rehearsal (tests/gpu/CMakeLists.txt): the kernel emulator runs only kernels
  // this process emitted, so each case is compiled from its .hlo here.
  absl::StatusOr<std::unique_ptr<backend::Backend>> gpu = CreateGpuBackend(*driver, CompileGpuPlan);
#else
  absl::StatusOr<std::unique_ptr<backend::Backend>> gpu = CreateGpuBackend(*driver);
#endif
  if (!gpu.ok()) {
    std::cout << "no GPU: " << gpu.status() << "\n";
    return 3;
  }
  backend::RegisterBuiltinBackends();
  absl::StatusOr<std::unique_ptr<backend::Backend>> interpreter = backend::CreateBackend("interpreter");
  if (!interpreter.ok()) {
    std::cout << interpreter.status() << "\n";
    return 2;
  }
  absl::StatusOr<backend::DeviceDescription> device = (*gpu)->Describe(0);
  const std::string device_name = device.ok() ? device->name : "?";
  absl::StatusOr<const CublasLibrary*> blas = CublasLibrary::Default();
  std::cout << "gpu: " << device_name << ", driver " << (*driver)->driver_version() << ", cuBLAS "
            << (blas.ok() ? (*blas)->library : blas.status().ToString()) << std::endl;

  struct Case {
    std::filesystem::path path;
    std::string name, check;
    int rank;
  };
  std::vector<Case> cases;
  for (const auto& entry : std::filesystem::directory_iterator(bundle / "cases")) {
    if (entry.path().extension() != ".gpuexe") continue;
    std::filesystem::path base = entry.path();
    Case c{entry.path(), entry.path().stem().string(), ReadFile(base.replace_extension(".check")), 0};
    c.rank = CaseRank(c.name, c.check);
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return std::tie(a.rank, a.name) < std::tie(b.rank, b.name); });

  Report report;
  for (const std::string& row : TransferRows(*driver, **gpu)) report.Add(row);

  // The watchdog: a case still running after case_timeout_s prints the table so far and
  // ends the process (a hung kernel cannot be taken back; the rest would wait behind it).
  // Static: the detached watchdog may still look at them after Run returns.
  static std::atomic<int> running{-1};
  static std::atomic<double> running_since{0};
  static std::atomic<double> limit{0};  // case_timeout_s; four times more for the interpreter's reference
  limit = case_timeout_s;
  std::thread([&] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const int i = running.load();
      if (i < 0) continue;  // between cases, or Run has returned (its locals are gone)
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (now - running_since.load() > limit.load()) {
        Report late;
        {
          std::lock_guard<std::mutex> lock(report_mu);
          late = report;
        }
        late.Add(absl::StrCat("| ", cases[i].name, " | TIMED OUT: still running after ", limit.load(), " s | |"));
        late.failed++;
        late.PrintTable(device_name, (*driver)->driver_version());
        std::_Exit(4);
      }
    }
  }).detach();

  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string& name = c.name;
    const std::string& check = c.check;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    if (elapsed > budget_s || std::find(skip.begin(), skip.end(), name) != skip.end()) {
      ++report.not_run;
      if (c.rank < 2) report.Add(absl::StrCat("| ", name, " | not run (", elapsed > budget_s ? "time" : "skipped", ") | |"));
      continue;
    }
    running_since = elapsed;
    limit = case_timeout_s;
    running = static_cast<int>(i);
    std::filesystem::path base = c.path;
    const std::string hlo = ReadFile(base.replace_extension(".hlo"));
    auto fail = [&](const std::string& why) {
      ++report.failed;
      report.Add(absl::StrCat("| ", name, " | FAILED: ", why, " | |"));
    };
#ifdef GPU_CHECK_RUNNER_COMPILES
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseAndReturnUnverifiedModule(hlo);
    absl::StatusOr<std::unique_ptr<backend::Executable>> exe =
        parsed.ok() ? (*gpu)->Compile(*std::move(parsed), backend::CompileOptions()) : parsed.status();
#else
    absl::StatusOr<std::unique_ptr<backend::Executable>> exe = (*gpu)->DeserializeExecutable(ReadFile(c.path), 0);
#endif
    if (!exe.ok()) {
      fail(absl::StrCat("load: ", exe.status().ToString()));
      continue;
    }
    const HloComputation& entry = *(*exe)->module().entry_computation();
    // Some conformance modules only parse: their parameters can be far larger than a device.
    int64_t arg_bytes = 0;
    for (const HloInstruction* p : entry.parameter_instructions()) arg_bytes += LeafBytes(p->shape());
    const int64_t result_bytes = LeafBytes(entry.root_instruction()->shape());
    if (arg_bytes > kMaxArgumentBytes || result_bytes > kMaxArgumentBytes) {
      report.Add(absl::StrCat("| ", name, " | skipped: ", arg_bytes, " bytes of arguments, ", result_bytes,
                              " of result | |"));
      continue;
    }
    uint64_t state = std::hash<std::string>()(name);
    std::vector<Literal> args;
    std::vector<std::shared_ptr<backend::Buffer>> on_gpu;
    absl::Status upload;
    for (const HloInstruction* p : entry.parameter_instructions()) {
      absl::StatusOr<Literal> arg = Literal::Create(p->shape());
      if (!arg.ok()) {
        upload = arg.status();
        break;
      }
      testing::FillRandom(&*arg, p->shape(), &state);
      absl::StatusOr<std::shared_ptr<backend::Buffer>> b = (*gpu)->TransferToDevice(*arg, 0);
      if (!b.ok()) {
        upload = b.status();
        break;
      }
      on_gpu.push_back(*b);
      args.push_back(*std::move(arg));
    }
    if (!upload.ok()) {
      fail(absl::StrCat("arguments: ", upload.ToString()));
      continue;
    }
    const Feeds feeds = FindFeeds((*exe)->module());
    if (feeds.nested) {
      report.Add(absl::StrCat("| ", name, " | skipped: an infeed or outfeed inside a called computation | |"));
      continue;
    }
    // The first execution's result (and outfeeds) are compared: a module's rng state, say,
    // moves on with every execution, as the interpreter's does with its one.
    absl::Status run_status;
    std::shared_ptr<backend::Buffer> result;
    std::vector<Literal> gpu_outfed;
    auto execute = [&] {
      absl::StatusOr<std::shared_ptr<backend::Buffer>> r =
          ExecuteFed(**gpu, **exe, on_gpu, feeds, result == nullptr ? &gpu_outfed : nullptr);
      if (!r.ok()) run_status = r.status();
      else if (result == nullptr) result = *r;
    };
    const bool bench = check.rfind("bench", 0) == 0;
    execute();  // a warm-up too: the first launch loads modules and grows the pool
    const double seconds = run_status.ok() ? MedianSeconds(bench ? 10 : 3, execute) : 0;
    if (!run_status.ok()) {
      fail(run_status.ToString());
      continue;
    }
    if (check.rfind("bench flops ", 0) == 0) {
      const double flops = std::stod(check.substr(12));
      std::string vs = "no reference in this run";
      if (name == "matmul_bf16_8192") {
        absl::StatusOr<double> ref = CublasBf16GemmSeconds(*driver, 8192);
        vs = ref.ok() ? absl::StrCat(flops / *ref / 1e12, " TFLOP/s cuBLAS direct; ratio ", *ref / seconds)
                      : ref.status().ToString();
      }
      report.Add(absl::StrCat("| ", name, " | ", seconds * 1e3, " ms, ", flops / seconds / 1e12, " TFLOP/s | ", vs,
                              " |"));
      continue;
    }
    if (bench) {
      const int64_t bytes = LeafBytes(entry.root_instruction()->shape());
      absl::StatusOr<double> copy = CopySeconds(*driver, static_cast<size_t>(bytes));
      const double gbs = 2.0 * bytes / seconds / 1e9;  // read + write, as the copy
      std::string vs = copy.ok() ? absl::StrCat(2.0 * bytes / *copy / 1e9, " GB/s copy; ratio ", *copy / seconds)
                                 : copy.status().ToString();
      report.Add(absl::StrCat("| ", name, " | ", seconds * 1e3, " ms, ", gbs, " GB/s | ", vs, " |"));
      continue;
    }
    // The interpreter's reference of a large case (a convolution of 10^9 terms) takes longer.
    running_since = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    limit = 4 * case_timeout_s;
    double rtol = 0, atol = 0;
    std::istringstream(check) >> rtol >> atol;
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
    absl::StatusOr<std::unique_ptr<backend::Executable>> ref =
        module.ok() ? (*interpreter)->Compile(*std::move(module), backend::CompileOptions()) : module.status();
    if (!ref.ok()) {
      fail(absl::StrCat("interpreter: ", ref.status().ToString()));
      continue;
    }
    std::vector<std::shared_ptr<backend::Buffer>> on_ref;
    for (const Literal& a : args) on_ref.push_back(*(*interpreter)->TransferToDevice(a, 0));
    std::vector<Literal> ref_outfed;
    absl::StatusOr<std::shared_ptr<backend::Buffer>> expected_buffer =
        ExecuteFed(**interpreter, **ref, on_ref, feeds, &ref_outfed);
    absl::StatusOr<Literal> actual = (*gpu)->TransferFromDevice(*result);
    if (!expected_buffer.ok() || !actual.ok()) {
      fail(!expected_buffer.ok() ? expected_buffer.status().ToString() : actual.status().ToString());
      continue;
    }
    absl::StatusOr<Literal> expected = (*interpreter)->TransferFromDevice(**expected_buffer);
    std::string diff = Compare(*expected, *actual, rtol, atol);
    for (size_t k = 0; diff.empty() && k < ref_outfed.size() && k < gpu_outfed.size(); ++k) {
      diff = Compare(ref_outfed[k], gpu_outfed[k], rtol, atol);
      if (!diff.empty()) diff = absl::StrCat("outfeed ", k, ": ", diff);
    }
    if (!diff.empty()) {
      fail(diff);
      continue;
    }
    ++report.agreed;
    if (c.rank == 2) ++report.conformance_agreed;
    report.Add(absl::StrCat("| ", name, " | agrees (rtol ", rtol, ", atol ", atol, ") | ", seconds * 1e3, " ms |"),
               /*keep=*/c.rank != 2);
  }
  running = -1;
  report.PrintTable(device_name, (*driver)->driver_version());
  return report.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gpu
}  // namespace xla

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gpu_check_runner BUNDLE_DIR\n";
    return 2;
  }
  return xla::gpu::Run(argv[1]);
}
