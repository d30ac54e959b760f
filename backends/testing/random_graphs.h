#ifndef XLA_BACKENDS_TESTING_RANDOM_GRAPHS_H_
#define XLA_BACKENDS_TESTING_RANDOM_GRAPHS_H_

// Random small HLO graphs for differential tests (a backend against the interpreter):
// elementwise ops, selects, broadcasts, reductions (one dimension, and whole rows broadcast
// back as softmax does), dots, slices, dynamic slices and updates (starts clamped), pads,
// concatenates, iotas, transposes and reverses over random shapes of f32 or s32, the last few
// values returned as a tuple. Seeded: a seed always gives the same module.

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"

namespace xla {
namespace testing {

struct RandomGraphValue {
  std::string name;
  std::vector<int64_t> dims;
};

inline std::string RandomGraphShapeText(const std::string& type, const std::vector<int64_t>& dims) {
  std::string s = type + "[";
  for (size_t i = 0; i < dims.size(); ++i) absl::StrAppend(&s, i ? "," : "", dims[i]);
  return s + "]";
}

class RandomGraph {
 public:
  // `type`: "f32" or "s32"; `dims`: the sizes dimensions are drawn from.
  RandomGraph(uint64_t seed, std::string type, std::vector<int64_t> dims = {1, 3, 4, 7})
      : rng_(seed), type_(std::move(type)), dims_(std::move(dims)) {}

  std::string Build(std::vector<Shape>* parameter_shapes) {
    const PrimitiveType t = type_ == "f32" ? F32 : S32;
    const int params = 2 + Pick(2);
    for (int i = 0; i < params; ++i) {
      std::vector<int64_t> dims;
      const int rank = 1 + Pick(2);
      for (int d = 0; d < rank; ++d) dims.push_back(Dim());
      Add(absl::StrCat("parameter(", i, ")"), dims);
      parameter_shapes->push_back(ShapeUtil::MakeShape(t, dims));
    }
    const int steps = 6 + Pick(10);
    for (int s = 0; s < steps; ++s) Step();
    // Root: the last few values.
    std::string root_shapes, root_names;
    const size_t first = values_.size() > 3 ? values_.size() - 3 : 0;
    for (size_t i = first; i < values_.size(); ++i) {
      absl::StrAppend(&root_shapes, i > first ? ", " : "", RandomGraphShapeText(type_, values_[i].dims));
      absl::StrAppend(&root_names, i > first ? ", " : "", values_[i].name);
    }
    body_ += absl::StrCat("  ROOT root = (", root_shapes, ") tuple(", root_names, ")\n");
    std::string combiners;
    for (const char* op : {"add", "maximum"}) {
      absl::StrAppend(&combiners, op, " {\n  x = ", type_, "[] parameter(0)\n  y = ", type_, "[] parameter(1)\n  ROOT s = ",
                      type_, "[] ", op, "(x, y)\n}\n\n");
    }
    return absl::StrCat("HloModule random\n\n", combiners, "ENTRY e {\n", body_, "}\n");
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % n); }
  int64_t Dim() { return dims_[Pick(static_cast<int>(dims_.size()))]; }
  // An instruction that is not one of the graph's values (a predicate, an iota, a start
  // index), by name.
  std::string Aux(const std::string& shape_text, const std::string& expr) {
    const std::string name = absl::StrCat("a", aux_++);
    body_ += absl::StrCat("  ", name, " = ", shape_text, " ", expr, "\n");
    return name;
  }
  // A scalar s32 constant `value` (a start index of dynamic slices).
  std::string Index(int64_t value) { return Aux("s32[]", absl::StrCat("constant(", value, ")")); }

  const RandomGraphValue& Add(const std::string& expr, std::vector<int64_t> dims) {
    RandomGraphValue v{absl::StrCat("v", values_.size()), std::move(dims)};
    body_ += absl::StrCat("  ", v.name, " = ", RandomGraphShapeText(type_, v.dims), " ", expr, "\n");
    values_.push_back(v);
    return values_.back();
  }

  void Step() {
    const RandomGraphValue a = values_[Pick(static_cast<int>(values_.size()))];
    if (a.dims.empty()) {  // scalars (full reductions) come back as vectors
      Add(absl::StrCat("broadcast(", a.name, "), dimensions={}"), {Dim()});
      return;
    }
    switch (Pick(15)) {
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
        for (const RandomGraphValue& b : values_) {
          if (b.dims == a.dims && b.name != a.name) {
            Add(absl::StrCat(op, "(", a.name, ", ", b.name, ")"), a.dims);
            return;
          }
        }
        for (const RandomGraphValue& b : values_) {
          if (b.dims.size() == 1 && a.dims.size() == 2) {
            for (int d = 0; d < 2; ++d) {
              if (a.dims[d] == b.dims[0]) {
                const RandomGraphValue& bc = Add(absl::StrCat("broadcast(", b.name, "), dimensions={", d, "}"), a.dims);
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
        const RandomGraphValue& zero = Add(absl::StrCat("constant(0)"), {});
        const std::string zname = zero.name;
        Add(absl::StrCat("reduce(", a.name, ", ", zname, "), dimensions={", d, "}, to_apply=add"), dims);
        break;
      }
      case 4: {  // dot
        for (const RandomGraphValue& b : values_) {
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
      case 7: {  // a row reduction (sum or max over all but dimension 0) broadcast back, as softmax's
        if (a.dims.size() != 2) break;
        const bool max = Pick(2) == 0;
        const RandomGraphValue& init = Add(max ? std::string(type_ == "f32" ? "constant(-inf)" : "constant(-2147483648)")
                                    : std::string("constant(0)"),
                                {});
        const std::string iname = init.name;
        const RandomGraphValue& row = Add(absl::StrCat("reduce(", a.name, ", ", iname, "), dimensions={1}, to_apply=",
                                            max ? "maximum" : "add"),
                               {a.dims[0]});
        const std::string rname = row.name;
        const RandomGraphValue& back = Add(absl::StrCat("broadcast(", rname, "), dimensions={0}"), a.dims);
        const std::string bname = back.name;
        Add(absl::StrCat("subtract(", a.name, ", ", bname, ")"), a.dims);
        break;
      }
      case 9: {  // select by a comparison with another value of the same dimensions (or its negation)
        std::string other = a.name;
        for (const RandomGraphValue& b : values_) {
          if (b.dims == a.dims && b.name != a.name) other = b.name;
        }
        if (other == a.name) {
          const RandomGraphValue& n = Add(absl::StrCat("negate(", a.name, ")"), a.dims);
          other = n.name;
        }
        const std::string pred = Aux(RandomGraphShapeText("pred", a.dims),
                                     absl::StrCat("compare(", a.name, ", ", other, "), direction=", Pick(2) == 0 ? "GT" : "LE"));
        Add(absl::StrCat("select(", pred, ", ", a.name, ", ", other, ")"), a.dims);
        break;
      }
      case 10: {  // concatenate along one dimension with a value matching it in the others (or itself)
        const int d = Pick(static_cast<int>(a.dims.size()));
        RandomGraphValue b = a;
        for (const RandomGraphValue& c : values_) {
          if (c.dims.size() != a.dims.size() || c.name == a.name) continue;
          bool fits = true;
          for (size_t k = 0; k < c.dims.size(); ++k) fits = fits && (static_cast<int>(k) == d || c.dims[k] == a.dims[k]);
          if (fits) b = c;
        }
        std::vector<int64_t> dims = a.dims;
        dims[d] += b.dims[d];
        Add(absl::StrCat("concatenate(", a.name, ", ", b.name, "), dimensions={", d, "}"), dims);
        break;
      }
      case 11: {  // pad one dimension (low, high and interior padding), the others not at all
        const int d = Pick(static_cast<int>(a.dims.size()));
        const int64_t low = Pick(3), high = Pick(3) - 1, interior = Pick(2);
        std::vector<int64_t> dims = a.dims;
        dims[d] = low + high + a.dims[d] + (a.dims[d] - 1) * interior;
        if (dims[d] < 1) break;
        const RandomGraphValue& zero = Add("constant(1)", {});
        const std::string zname = zero.name;
        std::string config;
        for (size_t k = 0; k < a.dims.size(); ++k) {
          absl::StrAppend(&config, k ? "x" : "", static_cast<int>(k) == d ? absl::StrCat(low, "_", high, "_", interior) : "0_0");
        }
        Add(absl::StrCat("pad(", a.name, ", ", zname, "), padding=", config), dims);
        break;
      }
      case 12: {  // dynamic-slice at constant starts, some past the end (clamped into range)
        std::vector<int64_t> sizes;
        std::string starts, size_text;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          sizes.push_back(1 + Pick(static_cast<int>(a.dims[d])));
          const std::string start = Index(Pick(static_cast<int>(a.dims[d]) + 2) - 1);
          absl::StrAppend(&starts, ", ", start);
          absl::StrAppend(&size_text, d ? "," : "", sizes.back());
        }
        Add(absl::StrCat("dynamic-slice(", a.name, starts, "), dynamic_slice_sizes={", size_text, "}"), sizes);
        break;
      }
      case 13: {  // dynamic-update-slice of a slice of another value (or of a) into a
        RandomGraphValue from = a;
        for (const RandomGraphValue& c : values_) {
          if (c.dims.size() == a.dims.size() && c.name != a.name) from = c;
        }
        std::vector<int64_t> sizes;
        std::string spec, starts;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          sizes.push_back(1 + Pick(static_cast<int>(std::min(a.dims[d], from.dims[d]))));
          absl::StrAppend(&spec, d ? ", " : "", "[0:", sizes.back(), "]");
        }
        const RandomGraphValue& update = Add(absl::StrCat("slice(", from.name, "), slice={", spec, "}"), sizes);
        const std::string uname = update.name;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          absl::StrAppend(&starts, ", ", Index(Pick(static_cast<int>(a.dims[d]) + 2) - 1));
        }
        Add(absl::StrCat("dynamic-update-slice(", a.name, ", ", uname, starts, ")"), a.dims);
        break;
      }
      case 14: {  // an iota along one dimension added to a
        const std::string iota = Aux(RandomGraphShapeText(type_, a.dims),
                                     absl::StrCat("iota(), iota_dimension=", Pick(static_cast<int>(a.dims.size()))));
        Add(absl::StrCat("add(", a.name, ", ", iota, ")"), a.dims);
        break;
      }
      case 8:  // reverse along one dimension
        Add(absl::StrCat("reverse(", a.name, "), dimensions={", Pick(static_cast<int>(a.dims.size())), "}"), a.dims);
        break;
      case 6: {  // transpose or broadcast to a new major dimension
        if (a.dims.size() == 2) {
          Add(absl::StrCat("transpose(", a.name, "), dimensions={1,0}"), {a.dims[1], a.dims[0]});
        } else {
          Add(absl::StrCat("broadcast(", a.name, "), dimensions={1}"), {Dim(), a.dims[0]});
        }
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  std::string type_;
  std::vector<int64_t> dims_;
  int aux_ = 0;
  std::string body_;
  std::vector<RandomGraphValue> values_;
};

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_RANDOM_GRAPHS_H_
