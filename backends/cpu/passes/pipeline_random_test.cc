// Differential test of the whole pipeline on random modules: small random graphs of
// elementwise, broadcast, reduce, dot, slice, transpose, reshape, select and constant ops
// over random shapes, run on the interpreter before and after RunCpuPipeline; results
// must be bit-identical (the pipeline only reorganizes, never reassociates).
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "backends/cpu/passes/pipeline.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

struct Value {
  std::string name;
  std::vector<int64_t> dims;
};

std::string ShapeText(const std::vector<int64_t>& dims) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
}

class RandomModule {
 public:
  explicit RandomModule(uint64_t seed, int max_ops = 24) : rng_(seed), max_ops_(max_ops) {}

  std::string Build() {
    const int64_t rows = Pick(1, 6), cols = Pick(1, 6);
    Emit("p0", {rows, cols}, "parameter(0)");
    Emit("p1", {rows, cols}, "parameter(1)");
    Emit("p2", {cols}, "parameter(2)");
    const int ops = static_cast<int>(Pick(4, max_ops_));
    for (int i = 0; i < ops; ++i) Step();
    // The root: the last values plus one random earlier one.
    std::vector<std::string> names, shapes;
    for (size_t i = values_.size() >= 2 ? values_.size() - 2 : 0; i < values_.size(); ++i) {
      names.push_back(values_[i].name);
      shapes.push_back(ShapeText(values_[i].dims));
    }
    const Value& extra = values_[Pick(0, static_cast<int64_t>(values_.size()) - 1)];
    names.push_back(extra.name);
    shapes.push_back(ShapeText(extra.dims));
    body_ += absl::StrCat("  ROOT root = (", absl::StrJoin(shapes, ", "), ") tuple(", absl::StrJoin(names, ", "),
                          ")\n");
    return absl::StrCat(
        "HloModule random\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n"
        "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n\n"
        "ENTRY e {\n",
        body_, "}\n");
  }

 private:
  int64_t Pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  const Value& Emit(const std::string& name, std::vector<int64_t> dims, const std::string& rhs) {
    body_ += absl::StrCat("  ", name, " = ", ShapeText(dims), " ", rhs, "\n");
    values_.push_back({name, std::move(dims)});
    return values_.back();
  }
  std::string Fresh() { return absl::StrCat("v", counter_++); }
  const Value& Any() { return values_[Pick(0, static_cast<int64_t>(values_.size()) - 1)]; }
  // A value with the same dims as `v` (possibly v itself).
  const Value& Partner(const Value& v) {
    std::vector<const Value*> same;
    for (const Value& w : values_) {
      if (w.dims == v.dims) same.push_back(&w);
    }
    return *same[Pick(0, static_cast<int64_t>(same.size()) - 1)];
  }

  void Step() {
    const Value v = Any();
    const std::string name = Fresh();
    switch (Pick(0, 11)) {
      case 0:
      case 1: {
        static const char* kUnary[] = {"negate", "abs", "exponential", "tanh", "sine", "floor", "logistic", "sqrt"};
        Emit(name, v.dims, absl::StrCat(kUnary[Pick(0, 7)], "(", v.name, ")"));
        break;
      }
      case 2:
      case 3: {
        static const char* kBinary[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum"};
        const Value w = Partner(v);
        Emit(name, v.dims, absl::StrCat(kBinary[Pick(0, 5)], "(", v.name, ", ", w.name, ")"));
        break;
      }
      case 4: {  // broadcast of a constant or of a lower-rank value, combined with v
        const std::string c = Fresh();
        static const char* kConstants[] = {"0", "1", "-0", "2.5", "-1"};
        Emit(c, {}, absl::StrCat("constant(", kConstants[Pick(0, 4)], ")"));
        const std::string b = Fresh();
        Emit(b, v.dims, absl::StrCat("broadcast(", c, "), dimensions={}"));
        static const char* kOps[] = {"add", "multiply", "subtract", "divide"};
        Emit(name, v.dims, absl::StrCat(kOps[Pick(0, 3)], "(", v.name, ", ", b, ")"));
        break;
      }
      case 5:  // reduce the last dimension
        if (v.dims.empty()) return;
        {
          std::vector<int64_t> out(v.dims.begin(), v.dims.end() - 1);
          const std::string z = Fresh();
          const bool use_max = Pick(0, 1) == 1;
          Emit(z, {}, use_max ? "constant(-inf)" : "constant(0)");
          Emit(name, out,
               absl::StrCat("reduce(", v.name, ", ", z, "), dimensions={", v.dims.size() - 1,
                            "}, to_apply=", use_max ? "max" : "add"));
          // and broadcast it back, as softmax does
          if (!out.empty()) {
            std::vector<int64_t> bdims;
            for (size_t d = 0; d + 1 < v.dims.size(); ++d) bdims.push_back(static_cast<int64_t>(d));
            const std::string b = Fresh();
            Emit(b, v.dims, absl::StrCat("broadcast(", name, "), dimensions={", absl::StrJoin(bdims, ","), "}"));
            Emit(Fresh(), v.dims, absl::StrCat("subtract(", v.name, ", ", b, ")"));
          }
        }
        break;
      case 6:
        if (v.dims.size() != 2) return;
        Emit(name, {v.dims[1], v.dims[0]}, absl::StrCat("transpose(", v.name, "), dimensions={1,0}"));
        break;
      case 7: {
        int64_t n = 1;
        for (int64_t d : v.dims) n *= d;
        Emit(name, {n}, absl::StrCat("reshape(", v.name, ")"));
        break;
      }
      case 8: {
        if (v.dims.empty()) return;
        std::vector<int64_t> out = v.dims;
        std::vector<std::string> ranges;
        for (size_t d = 0; d < v.dims.size(); ++d) {
          const int64_t start = v.dims[d] > 1 ? Pick(0, 1) : 0;
          out[d] = v.dims[d] - start;
          ranges.push_back(absl::StrCat("[", start, ":", v.dims[d], "]"));
        }
        Emit(name, out, absl::StrCat("slice(", v.name, "), slice={", absl::StrJoin(ranges, ", "), "}"));
        break;
      }
      case 9: {  // v x transpose(v)
        if (v.dims.size() != 2) return;
        const std::string t = Fresh();
        Emit(t, {v.dims[1], v.dims[0]}, absl::StrCat("transpose(", v.name, "), dimensions={1,0}"));
        Emit(name, {v.dims[0], v.dims[0]},
             absl::StrCat("dot(", v.name, ", ", t, "), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
        break;
      }
      case 10: {
        const Value w = Partner(v);
        const std::string p = Fresh();
        body_ += absl::StrCat("  ", p, " = pred[", absl::StrJoin(v.dims, ","), "] compare(", v.name, ", ", w.name,
                              "), direction=LT\n");
        Emit(name, v.dims, absl::StrCat("select(", p, ", ", v.name, ", ", w.name, ")"));
        break;
      }
      case 11: {  // broadcast a vector parameter along rows
        if (v.dims.size() != 2) return;
        const Value& vec = values_[2];  // p2: f32[cols]
        if (vec.dims[0] != v.dims[1]) return;
        const std::string b = Fresh();
        Emit(b, v.dims, absl::StrCat("broadcast(", vec.name, "), dimensions={1}"));
        Emit(name, v.dims, absl::StrCat("add(", v.name, ", ", b, ")"));
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  int max_ops_;
  std::vector<Value> values_;
  std::string body_;
  int counter_ = 0;
};

TEST(PipelineRandomTest, RandomModulesKeepTheirResults) {
  int fused = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const std::string text = RandomModule(seed).Build();
    auto before = testing::ParseOrNull(text);
    ASSERT_NE(before, nullptr) << text;
    auto after = testing::ParseOrNull(text);
    CpuPipelineOptions options;
    options.verify_after_each_pass = true;
    absl::Status status = RunCpuPipeline(after.get(), options);
    ASSERT_TRUE(status.ok()) << status << "\n" << text;
    EXPECT_TRUE(testing::SameResults(*before, *after, seed)) << "seed " << seed << "\n" << text;
    fused += testing::CountOpcode(*after->entry_computation(), HloOpcode::kFusion) > 0;
  }
  // Most random graphs have something to fuse; if none did, fusion would be untested here.
  EXPECT_GT(fused, 150);
}

// Pass cost must stay near-linear: a module of thousands of instructions goes through the
// pipeline quickly (the server compiles user modules of this size).
TEST(PipelineRandomTest, LargeModuleIsFast) {
  const std::string text = RandomModule(99, 12000).Build();
  auto module = testing::ParseOrNull(text);
  ASSERT_NE(module, nullptr);
  const int64_t instructions = module->entry_computation()->instruction_count();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunCpuPipeline(module.get()).ok());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("pipeline: %lld instructions in %.3f s\n", static_cast<long long>(instructions), seconds);
  EXPECT_LT(seconds, 5.0);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
