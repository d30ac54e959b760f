// Differential testing: random small graphs of elementwise / broadcast / reduce / dot /
// slice / transpose ops over random shapes, run on cpu and on the interpreter and compared
// (bit-exact for s32 graphs; a tolerance for f32, whose sums and dots are reassociated).
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

struct Value {
  std::string name;
  std::vector<int64_t> dims;
};

std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims) {
  std::string s = type + "[";
  for (size_t i = 0; i < dims.size(); ++i) absl::StrAppend(&s, i ? "," : "", dims[i]);
  return s + "]";
}

class GraphBuilder {
 public:
  GraphBuilder(uint64_t seed, std::string type) : rng_(seed), type_(std::move(type)) {}

  std::string Build(std::vector<Shape>* parameter_shapes) {
    const PrimitiveType t = type_ == "f32" ? F32 : S32;
    const int params = 2 + Pick(2);
    for (int i = 0; i < params; ++i) {
      std::vector<int64_t> dims;
      const int rank = 1 + Pick(2);
      for (int d = 0; d < rank; ++d) dims.push_back(kDims[Pick(4)]);
      Add(absl::StrCat("parameter(", i, ")"), dims);
      parameter_shapes->push_back(ShapeUtil::MakeShape(t, dims));
    }
    const int steps = 6 + Pick(10);
    for (int s = 0; s < steps; ++s) Step();
    // Root: the last few values.
    std::string root_shapes, root_names;
    const size_t first = values_.size() > 3 ? values_.size() - 3 : 0;
    for (size_t i = first; i < values_.size(); ++i) {
      absl::StrAppend(&root_shapes, i > first ? ", " : "", ShapeText(type_, values_[i].dims));
      absl::StrAppend(&root_names, i > first ? ", " : "", values_[i].name);
    }
    body_ += absl::StrCat("  ROOT root = (", root_shapes, ") tuple(", root_names, ")\n");
    return absl::StrCat("HloModule random\n\nadd {\n  x = ", type_, "[] parameter(0)\n  y = ", type_,
                        "[] parameter(1)\n  ROOT s = ", type_, "[] add(x, y)\n}\n\nENTRY e {\n", body_, "}\n");
  }

 private:
  static constexpr int64_t kDims[4] = {1, 3, 4, 7};

  int Pick(int n) { return static_cast<int>(rng_() % n); }

  const Value& Add(const std::string& expr, std::vector<int64_t> dims) {
    Value v{absl::StrCat("v", values_.size()), std::move(dims)};
    body_ += absl::StrCat("  ", v.name, " = ", ShapeText(type_, v.dims), " ", expr, "\n");
    values_.push_back(v);
    return values_.back();
  }

  void Step() {
    const Value a = values_[Pick(static_cast<int>(values_.size()))];
    if (a.dims.empty()) {  // scalars (full reductions) come back as vectors
      Add(absl::StrCat("broadcast(", a.name, "), dimensions={}"), {kDims[Pick(4)]});
      return;
    }
    switch (Pick(7)) {
      case 0: {  // unary
        const char* f32_ops[] = {"negate", "abs", "tanh", "logistic", "sine", "floor"};
        const char* s32_ops[] = {"negate", "abs", "not", "popcnt", "sign", "count-leading-zeros"};
        Add(absl::StrCat(type_ == "f32" ? f32_ops[Pick(6)] : s32_ops[Pick(6)], "(", a.name, ")"), a.dims);
        break;
      }
      case 1:
      case 2: {  // binary, broadcasting a lower-rank value of a matching dimension
        const char* f32_ops[] = {"add", "subtract", "multiply", "maximum", "minimum"};
        const char* s32_ops[] = {"add", "subtract", "multiply", "maximum", "and", "xor", "divide", "remainder"};
        const std::string op = type_ == "f32" ? f32_ops[Pick(5)] : s32_ops[Pick(8)];
        for (const Value& b : values_) {
          if (b.dims == a.dims && b.name != a.name) {
            Add(absl::StrCat(op, "(", a.name, ", ", b.name, ")"), a.dims);
            return;
          }
        }
        for (const Value& b : values_) {
          if (b.dims.size() == 1 && a.dims.size() == 2) {
            for (int d = 0; d < 2; ++d) {
              if (a.dims[d] == b.dims[0]) {
                const Value& bc = Add(absl::StrCat("broadcast(", b.name, "), dimensions={", d, "}"), a.dims);
                const std::string bname = bc.name;
                Add(absl::StrCat(op, "(", a.name, ", ", bname, ")"), a.dims);
                return;
              }
            }
          }
        }
        Add(absl::StrCat(op, "(", a.name, ", ", a.name, ")"), a.dims);
        break;
      }
      case 3: {  // reduce one dimension with add
        const int d = Pick(static_cast<int>(a.dims.size()));
        std::vector<int64_t> dims = a.dims;
        dims.erase(dims.begin() + d);
        const Value& zero = Add(absl::StrCat("constant(0)"), {});
        const std::string zname = zero.name;
        Add(absl::StrCat("reduce(", a.name, ", ", zname, "), dimensions={", d, "}, to_apply=add"), dims);
        break;
      }
      case 4: {  // dot
        for (const Value& b : values_) {
          if (a.dims.size() == 2 && b.dims.size() >= 1 && b.dims[0] == a.dims[1]) {
            std::vector<int64_t> dims = {a.dims[0]};
            if (b.dims.size() == 2) dims.push_back(b.dims[1]);
            Add(absl::StrCat("dot(", a.name, ", ", b.name, "), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                dims);
            return;
          }
        }
        break;
      }
      case 5: {  // slice
        std::vector<int64_t> dims;
        std::string spec;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          const int64_t start = Pick(static_cast<int>(a.dims[d]));
          const int64_t limit = start + 1 + Pick(static_cast<int>(a.dims[d] - start));
          absl::StrAppend(&spec, d ? ", " : "", "[", start, ":", limit, "]");
          dims.push_back(limit - start);
        }
        Add(absl::StrCat("slice(", a.name, "), slice={", spec, "}"), dims);
        break;
      }
      case 6: {  // transpose or broadcast to a new major dimension
        if (a.dims.size() == 2) {
          Add(absl::StrCat("transpose(", a.name, "), dimensions={1,0}"), {a.dims[1], a.dims[0]});
        } else {
          Add(absl::StrCat("broadcast(", a.name, "), dimensions={1}"), {kDims[Pick(4)], a.dims[0]});
        }
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  std::string type_;
  std::string body_;
  std::vector<Value> values_;
};

void RunRandomGraphs(const std::string& type, int count, double rtol) {
  for (int i = 0; i < count; ++i) {
    std::vector<Shape> shapes;
    GraphBuilder builder(1000 + i, type);
    const std::string hlo = builder.Build(&shapes);
    std::mt19937_64 rng(i);
    std::vector<Literal> args;
    for (const Shape& s : shapes) args.push_back(testing::RandomLiteral(s, &rng, /*specials=*/false));
    EXPECT_TRUE(testing::SameOnBothBackends(hlo, args, rtol, rtol)) << "graph " << i;
  }
}

TEST(CpuDifferential, RandomF32Graphs) { RunRandomGraphs("f32", 40, 2e-4); }
TEST(CpuDifferential, RandomS32GraphsBitExact) { RunRandomGraphs("s32", 40, -1); }

}  // namespace
}  // namespace cpu
}  // namespace xla
