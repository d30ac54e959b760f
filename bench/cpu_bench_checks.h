#ifndef XLA_BENCH_CPU_BENCH_CHECKS_H_
#define XLA_BENCH_CPU_BENCH_CHECKS_H_

// Sanity checks of cpu_bench's results against double-precision references computed here,
// so a fast path that computes the wrong thing cannot pass as a benchmark figure. (The
// backend's tests compare against the interpreter; these only guard the benchmark.)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/cpu_bench_workloads.h"
#include "hlo/literal.h"

namespace xla {
namespace bench {

inline bool Near(double got, double want, double tolerance) {
  return std::abs(got - want) <= tolerance * (1 + std::abs(want));
}

// Softmax of one row in double.
inline std::vector<double> SoftmaxRow(std::vector<double> row) {
  double m = -INFINITY, sum = 0;
  for (double v : row) m = std::max(m, v);
  for (double& v : row) sum += (v = std::exp(v - m));
  for (double& v : row) v /= sum;
  return row;
}

// Row `r` of the MLP (dense layers with ReLU between, softmax at the end) in double.
inline std::vector<double> MlpRow(const std::vector<Literal>& inputs, int64_t r) {
  const absl::Span<const float> x = inputs[0].data<float>();
  const int64_t in = inputs[0].shape().dimensions(1);
  std::vector<double> h(x.begin() + r * in, x.begin() + (r + 1) * in);
  for (size_t l = 1; l + 1 < inputs.size(); l += 2) {
    const absl::Span<const float> w = inputs[l].data<float>();
    const absl::Span<const float> b = inputs[l + 1].data<float>();
    const int64_t out = inputs[l].shape().dimensions(1);
    std::vector<double> next(b.begin(), b.end());
    for (size_t k = 0; k < h.size(); ++k) {
      for (int64_t j = 0; j < out; ++j) next[j] += h[k] * w[k * out + j];
    }
    if (l + 3 < inputs.size()) {
      for (double& v : next) v = std::max(v, 0.0);
    }
    h = std::move(next);
  }
  return SoftmaxRow(std::move(h));
}

inline std::string CompareRow(absl::Span<const float> out, int64_t r, const std::vector<double>& want) {
  const int64_t cols = static_cast<int64_t>(want.size());
  for (int64_t c = 0; c < cols; ++c) {
    if (!Near(out[r * cols + c], want[c], 1e-4)) {
      return absl::StrFormat("[%d,%d] = %g, want %g", r, c, out[r * cols + c], want[c]);
    }
  }
  return "";
}

inline std::string CheckRowsSumToOne(absl::Span<const float> out, int64_t cols) {
  for (int64_t r = 0; r * cols < static_cast<int64_t>(out.size()); ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += out[r * cols + c];
    if (!Near(sum, 1.0, 1e-4)) return absl::StrFormat("row %d of the softmax sums to %g", r, sum);
  }
  return "";
}

// Empty when `result` is what workload `w` computes from `inputs`.
inline std::string CheckResult(const Workload& w, const std::vector<Literal>& inputs, const Literal& result) {
  const absl::Span<const float> out = result.data<float>();
  const absl::Span<const float> x = inputs[0].data<float>();
  if (w.name == "gelu") {
    for (size_t i = 0; i < x.size(); i += 997) {
      const double v = x[i];
      const double want = 0.5 * v * (1 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
      if (!Near(out[i], want, 1e-5)) return absl::StrFormat("gelu[%d] = %g, want %g", i, out[i], want);
    }
    return "";
  }
  if (w.name == "sum") {
    double want = 0;
    for (float v : x) want += v;
    // f32 partial sums of 64M values in [-1, 1): a loose bound relative to the magnitude summed.
    if (std::abs(out[0] - want) > 1e-6 * x.size()) return absl::StrFormat("sum = %g, want %g", out[0], want);
    return "";
  }
  if (w.name == "cumsum") {
    double want = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      want += x[i];
      // f32 running sums of values in [-1, 1): a loose bound, as for sum.
      if (i % 4099 == 0 && std::abs(out[i] - want) > 1e-6 * static_cast<double>(i + 1)) {
        return absl::StrFormat("cumsum[%d] = %g, want %g", i, out[i], want);
      }
    }
    return "";
  }
  if (w.name == "sort") {  // x's values in nondecreasing order
    std::vector<float> want(x.begin(), x.end());
    std::sort(want.begin(), want.end());
    for (size_t i = 0; i < want.size(); ++i) {
      if (out[i] != want[i]) return absl::StrFormat("sort[%d] = %g, want %g", i, out[i], want[i]);
    }
    return "";
  }
  if (w.name == "argsort") {  // each row: the positions of its values in stable sorted order
    const int64_t cols = w.parameters[0].dimensions(1);
    for (int64_t r = 0; r * cols < static_cast<int64_t>(x.size()); r += 17) {
      std::vector<int64_t> want(cols);
      for (int64_t c = 0; c < cols; ++c) want[c] = c;
      std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) { return x[r * cols + a] < x[r * cols + b]; });
      for (int64_t c = 0; c < cols; ++c) {
        if (out[r * cols + c] != static_cast<float>(want[c])) {
          return absl::StrFormat("argsort[%d,%d] = %g, want %d", r, c, out[r * cols + c], want[c]);
        }
      }
    }
    return "";
  }
  if (w.name == "lexsort") {  // the positions of (floor(16 a), b) in stable lexicographic order
    const absl::Span<const float> b = inputs[1].data<float>();
    const auto key = [&](int64_t p) { return std::make_pair(std::floor(x[p] * 16.0f), b[p]); };
    std::vector<int64_t> want(x.size());
    for (size_t p = 0; p < want.size(); ++p) want[p] = static_cast<int64_t>(p);
    std::stable_sort(want.begin(), want.end(), [&](int64_t p, int64_t q) { return key(p) < key(q); });
    for (size_t p = 0; p < want.size(); ++p) {
      if (out[p] != static_cast<float>(want[p])) {
        return absl::StrFormat("lexsort[%d] = %g, want %d", p, out[p], want[p]);
      }
    }
    return "";
  }
  if (w.name == "sort_complex") {  // (floor(16 a), b) pairs in lexicographic order
    const absl::Span<const float> b = inputs[1].data<float>();
    std::vector<std::pair<float, float>> want(x.size());
    for (size_t p = 0; p < want.size(); ++p) want[p] = {std::floor(x[p] * 16.0f), b[p]};
    std::sort(want.begin(), want.end());
    for (size_t p = 0; p < want.size(); ++p) {
      if (out[p] != want[p].first || out[want.size() + p] != want[p].second) {
        return absl::StrFormat("sort_complex[%d] = (%g, %g), want (%g, %g)", p, out[p], out[want.size() + p],
                               want[p].first, want[p].second);
      }
    }
    return "";
  }
  // Each row: its k largest values, then their positions (ties first-come).
  if (w.name == "topk" || w.name == "topk_row") {
    const int64_t cols = w.parameters[0].dimensions(1), k = result.shape().dimensions(1) / 2;
    for (int64_t r = 0; r * cols < static_cast<int64_t>(x.size()); r += 13) {
      std::vector<int64_t> want(cols);
      for (int64_t c = 0; c < cols; ++c) want[c] = c;
      std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) { return x[r * cols + a] > x[r * cols + b]; });
      for (int64_t j = 0; j < k; ++j) {
        if (out[r * 2 * k + j] != x[r * cols + want[j]] || out[r * 2 * k + k + j] != static_cast<float>(want[j])) {
          return absl::StrFormat("topk row %d rank %d = (%g, %g), want (%g, %d)", r, j, out[r * 2 * k + j],
                                 out[r * 2 * k + k + j], x[r * cols + want[j]], want[j]);
        }
      }
    }
    return "";
  }
  if (w.name.rfind("rfft", 0) == 0) {  // sampled outputs of sampled rows (rfft2: images) against a DFT in double
    const Shape& shape = w.parameters[0];
    const bool two_d = shape.rank() == 3;
    const int64_t n = shape.dimensions(shape.rank() - 1), h = n / 2 + 1, n1 = two_d ? shape.dimensions(1) : 1;
    const int64_t rows = shape.dimensions(0), points = n * n1;
    for (int64_t r = 0; r < rows; r += two_d ? 3 : 29) {
      for (int64_t k = 0; k < n1 * h; k += n1 * h / 7 + 1) {
        const int64_t k1 = k / h, k2 = k % h;
        double re = 0, im = 0;
        for (int64_t j = 0; j < points; ++j) {
          const double turns = static_cast<double>((j / n) * k1 % n1) / n1 + static_cast<double>((j % n) * k2 % n) / n;
          re += x[r * points + j] * std::cos(-2 * M_PI * turns);
          im += x[r * points + j] * std::sin(-2 * M_PI * turns);
        }
        const float got_re = out[(r * n1 + k1) * 2 * h + k2], got_im = out[(r * n1 + k1) * 2 * h + h + k2];
        const double bound = 1e-5 * std::sqrt(static_cast<double>(points));
        if (std::abs(got_re - re) > bound || std::abs(got_im - im) > bound) {
          return absl::StrFormat("%s[%d,%d] = (%g, %g), want (%g, %g)", w.name, r, k, got_re, got_im, re, im);
        }
      }
    }
    return "";
  }
  if (w.name.rfind("fft", 0) == 0) {  // sampled outputs of sampled rows (fft2: images) against a DFT in double
    const absl::Span<const float> b = inputs[1].data<float>();
    const Shape& shape = w.parameters[0];
    const bool two_d = shape.rank() == 3;
    const int64_t n = shape.dimensions(shape.rank() - 1), n1 = two_d ? shape.dimensions(1) : 1;
    const int64_t rows = shape.dimensions(0), points = n * n1;  // a row: one line, or one n1 x n image
    for (int64_t r = 0; r < rows; r += two_d ? 3 : 29) {
      for (int64_t k = 0; k < points; k += points / 7 + 1) {
        const int64_t k1 = k / n, k2 = k % n;
        double re = 0, im = 0;
        for (int64_t j = 0; j < points; ++j) {
          const double turns = static_cast<double>((j / n) * k1 % n1) / n1 + static_cast<double>((j % n) * k2 % n) / n;
          const double angle = -2 * M_PI * turns, xr = x[r * points + j], xi = b[r * points + j];
          re += xr * std::cos(angle) - xi * std::sin(angle);
          im += xr * std::sin(angle) + xi * std::cos(angle);
        }
        // f32 inputs in [-1, 1): outputs of size ~sqrt(points), a loose bound as for sum.
        const float got_re = out[(r * n1 + k1) * 2 * n + k2], got_im = out[(r * n1 + k1) * 2 * n + n + k2];
        const double bound = 1e-5 * std::sqrt(static_cast<double>(points));
        if (std::abs(got_re - re) > bound || std::abs(got_im - im) > bound) {
          return absl::StrFormat("%s[%d,%d] = (%g, %g), want (%g, %g)", w.name, r, k, got_re, got_im, re, im);
        }
      }
    }
    return "";
  }
  if (w.name == "maxpool") {  // sampled outputs: the maximum of their 3 x 3 window (padding skipped)
    const Shape& in = w.parameters[0];
    const int64_t h = in.dimensions(1), wd = in.dimensions(2), c = in.dimensions(3), oh = h / 2, ow = wd / 2;
    const int64_t outputs = in.dimensions(0) * oh * ow * c;
    for (int64_t o = 0; o < outputs; o += 997) {
      const int64_t ch = o % c, x0 = (o / c) % ow, y0 = (o / c / ow) % oh, n = o / c / ow / oh;
      float want = -INFINITY;
      for (int64_t dy = 0; dy < 3; ++dy) {
        for (int64_t dx = 0; dx < 3; ++dx) {
          const int64_t y = 2 * y0 + dy - 1, x1 = 2 * x0 + dx - 1;
          if (y >= 0 && y < h && x1 >= 0 && x1 < wd) want = std::max(want, x[((n * h + y) * wd + x1) * c + ch]);
        }
      }
      if (out[o] != want) return absl::StrFormat("maxpool output %d = %g, want %g", o, out[o], want);
    }
    return "";
  }
  if (w.name == "maxpool_grad") {  // sampled elements: the gradients of the windows whose first maximum they are
    const absl::Span<const float> g = inputs[1].data<float>();
    const Shape& in = w.parameters[0];
    const int64_t h = in.dimensions(1), wd = in.dimensions(2), c = in.dimensions(3), oh = h / 2, ow = wd / 2;
    for (int64_t e = 0; e < in.dimensions(0) * h * wd * c; e += 991) {
      const int64_t ch = e % c, x0 = (e / c) % wd, y0 = (e / c / wd) % h, n = e / c / wd / h;
      double want = 0;
      for (int64_t oy = std::max<int64_t>(0, y0 / 2 - 1); oy <= std::min(oh - 1, (y0 + 1) / 2); ++oy) {
        for (int64_t ox = std::max<int64_t>(0, x0 / 2 - 1); ox <= std::min(ow - 1, (x0 + 1) / 2); ++ox) {
          int64_t best = -1;  // the window's first maximum, as y * wd + x
          float best_value = 0;
          for (int64_t dy = 0; dy < 3; ++dy) {
            for (int64_t dx = 0; dx < 3; ++dx) {
              const int64_t y = 2 * oy + dy - 1, x1 = 2 * ox + dx - 1;
              if (y < 0 || y >= h || x1 < 0 || x1 >= wd) continue;
              const float v = x[((n * h + y) * wd + x1) * c + ch];
              if (best < 0 || v > best_value) best = y * wd + x1, best_value = v;
            }
          }
          if (best == y0 * wd + x0) want += g[((n * oh + oy) * ow + ox) * c + ch];
        }
      }
      if (std::abs(out[e] - want) > 1e-5) return absl::StrFormat("maxpool_grad element %d = %g, want %g", e, out[e], want);
    }
    return "";
  }
  if (w.name == "cumsum_cols") {  // d[i, j] = x[0, j] + ... + x[i, j]
    const int64_t rows = w.parameters[0].dimensions(0), cols = w.parameters[0].dimensions(1);
    for (int64_t j = 0; j < cols; j += 37) {
      double want = 0;
      for (int64_t i = 0; i < rows; ++i) {
        want += x[i * cols + j];
        if (std::abs(out[i * cols + j] - want) > 1e-6 * static_cast<double>(i + 1)) {
          return absl::StrFormat("cumsum_cols[%d,%d] = %g, want %g", i, j, out[i * cols + j], want);
        }
      }
    }
    return "";
  }
  if (w.name == "matmul" || w.name == "matmul_wT") {
    const absl::Span<const float> y = inputs[1].data<float>();
    const int64_t n = w.parameters[0].dimensions(0);
    const bool transposed = w.name == "matmul_wT";  // d = x . y^T
    for (int64_t i = 0; i < n; i += 131) {
      for (int64_t j = 0; j < n; j += 127) {
        double want = 0;
        for (int64_t k = 0; k < n; ++k) want += static_cast<double>(x[i * n + k]) * y[transposed ? j * n + k : k * n + j];
        if (!Near(out[i * n + j], want, 1e-4)) return absl::StrFormat("d[%d,%d] = %g, want %g", i, j, out[i * n + j], want);
      }
    }
    return "";
  }
  if (w.name == "softmax" || w.name == "mlp") {
    for (float v : out) {
      if (!(v >= 0 && v <= 1)) return absl::StrFormat("softmax value %g outside [0, 1]", v);
    }
    const Shape& shape = result.shape();
    const int64_t rows = shape.dimensions(0), cols = shape.dimensions(1);
    for (int64_t r : {int64_t{0}, rows / 3, rows - 1}) {
      std::vector<double> want;
      if (w.name == "mlp") {
        want = MlpRow(inputs, r);
      } else {
        want = SoftmaxRow(std::vector<double>(x.begin() + r * cols, x.begin() + (r + 1) * cols));
      }
      if (std::string error = CompareRow(out, r, want); !error.empty()) return error;
    }
    return CheckRowsSumToOne(out, cols);
  }
  if (w.name == "bmm") {
    const absl::Span<const float> y = inputs[1].data<float>();
    const int64_t batch = w.parameters[0].dimensions(0), n = w.parameters[0].dimensions(1);
    for (int64_t b = 0; b < batch; b += 7) {
      for (int64_t i = 0; i < n; i += 37) {
        for (int64_t j = 0; j < n; j += 41) {
          double want = 0;
          for (int64_t k = 0; k < n; ++k) want += static_cast<double>(x[(b * n + i) * n + k]) * y[(b * n + k) * n + j];
          const float got = out[(b * n + i) * n + j];
          if (!Near(got, want, 1e-4)) return absl::StrFormat("d[%d,%d,%d] = %g, want %g", b, i, j, got, want);
        }
      }
    }
    return "";
  }
  if (w.name == "conv") {
    // NHWC input, HWIO filters, 3x3 SAME.
    const absl::Span<const float> f = inputs[1].data<float>();
    const Shape& xs = w.parameters[0];
    const int64_t batch = xs.dimensions(0), size = xs.dimensions(1), in = xs.dimensions(3);
    const int64_t outs = w.parameters[1].dimensions(3);
    for (int64_t b = 0; b < batch; b += 3) {
      for (int64_t h : {int64_t{0}, size / 2, size - 1}) {
        for (int64_t v : {int64_t{0}, size / 3, size - 1}) {
          for (int64_t o = 0; o < outs; o += 13) {
            double want = 0;
            for (int64_t dh = 0; dh < 3; ++dh) {
              for (int64_t dv = 0; dv < 3; ++dv) {
                const int64_t ih = h + dh - 1, iv = v + dv - 1;
                if (ih < 0 || ih >= size || iv < 0 || iv >= size) continue;
                for (int64_t c = 0; c < in; ++c) {
                  want += static_cast<double>(x[((b * size + ih) * size + iv) * in + c]) * f[((dh * 3 + dv) * in + c) * outs + o];
                }
              }
            }
            const float got = out[((b * size + h) * size + v) * outs + o];
            if (!Near(got, want, 1e-4)) return absl::StrFormat("c[%d,%d,%d,%d] = %g, want %g", b, h, v, o, got, want);
          }
        }
      }
    }
    return "";
  }
  if (w.name == "conv_depthwise") {  // c[n, h, v, k] = sum over taps of x[n, h+dh-1, v+dv-1, k] w[dh, dv, 0, k]
    const absl::Span<const float> f = inputs[1].data<float>();
    const Shape& xs = w.parameters[0];
    const int64_t batch = xs.dimensions(0), size = xs.dimensions(1), channels = xs.dimensions(3);
    for (int64_t e = 0; e < batch * size * size * channels; e += 1009) {
      const int64_t k = e % channels, v = e / channels % size, h = e / channels / size % size, n = e / channels / size / size;
      double want = 0;
      for (int64_t dh = 0; dh < 3; ++dh) {
        for (int64_t dv = 0; dv < 3; ++dv) {
          const int64_t ih = h + dh - 1, iv = v + dv - 1;
          if (ih < 0 || ih >= size || iv < 0 || iv >= size) continue;
          want += static_cast<double>(x[((n * size + ih) * size + iv) * channels + k]) * f[(dh * 3 + dv) * channels + k];
        }
      }
      // Summed in f64 in window order and rounded once: the f32 rounding of the exact sum.
      if (out[e] != static_cast<float>(want)) return absl::StrFormat("c[%d] = %g, want %g", e, out[e], want);
    }
    return "";
  }
  if (w.name == "conv_dw_wgrad") {  // dw[kh, kw, 0, k] = sum over n, h, v of x[n, h+kh-1, v+kw-1, k] g[n, h, v, k]
    const absl::Span<const float> g = inputs[1].data<float>();
    const Shape& xs = w.parameters[0];
    const int64_t batch = xs.dimensions(0), size = xs.dimensions(1), channels = xs.dimensions(3);
    for (int64_t tap = 0; tap < 9; ++tap) {
      for (int64_t k = 0; k < channels; k += 7) {
        double want = 0;  // in the interpreter's order: taps (h, v) row-major, then n
        for (int64_t h = 0; h < size; ++h) {
          for (int64_t v = 0; v < size; ++v) {
            const int64_t ih = h + tap / 3 - 1, iv = v + tap % 3 - 1;
            if (ih < 0 || ih >= size || iv < 0 || iv >= size) continue;
            for (int64_t n = 0; n < batch; ++n) {
              want += static_cast<double>(x[((n * size + ih) * size + iv) * channels + k]) *
                      g[((n * size + h) * size + v) * channels + k];
            }
          }
        }
        const float got = out[tap * channels + k];
        if (got != static_cast<float>(want)) return absl::StrFormat("dw[%d, %d] = %g, want %g", tap, k, got, want);
      }
    }
    return "";
  }
  if (w.name == "conv_wgrad") {  // dw[kh, kw, c, o] = sum over n, h, v of x[n, h+kh-1, v+kw-1, c] g[n, h, v, o]
    const absl::Span<const float> g = inputs[1].data<float>();
    const Shape& xs = w.parameters[0];
    const int64_t batch = xs.dimensions(0), size = xs.dimensions(1), in = xs.dimensions(3);
    const int64_t outs = w.parameters[1].dimensions(3);
    for (int64_t tap = 0; tap < 9; tap += 4) {
      for (int64_t c = 0; c < in; c += 21) {
        for (int64_t o = 0; o < outs; o += 17) {
          double want = 0;
          for (int64_t n = 0; n < batch; ++n) {
            for (int64_t h = 0; h < size; ++h) {
              for (int64_t v = 0; v < size; ++v) {
                const int64_t ih = h + tap / 3 - 1, iv = v + tap % 3 - 1;
                if (ih < 0 || ih >= size || iv < 0 || iv >= size) continue;
                want += static_cast<double>(x[((n * size + ih) * size + iv) * in + c]) *
                        g[((n * size + h) * size + v) * outs + o];
              }
            }
          }
          const float got = out[(tap * in + c) * outs + o];
          if (!Near(got, want, 1e-4)) return absl::StrFormat("dw[%d,%d,%d,%d] = %g, want %g", tap / 3, tap % 3, c, o, got, want);
        }
      }
    }
    return "";
  }
  return "no check for this workload";
}

}  // namespace bench
}  // namespace xla

#endif  // XLA_BENCH_CPU_BENCH_CHECKS_H_
