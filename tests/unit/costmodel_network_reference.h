// Test helpers of the cost-model network tests (costmodel_network.cpp): a
// tiny shape, batches in the layout Samples expects, a scope running the
// kernels at one SIMD level, and the network written plainly in double
// precision (the oracle of the gradient check).
#pragma once
#include <doctest/doctest.h>

#include "scheduler/costmodel/RankingLoss.h"
#include "scheduler/costmodel/Simd.h"
#include "scheduler/costmodel/TlpNetwork.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tk::costmodel::nettest {

// The smallest shape with every part: two heads, two attention heads.
inline NetworkShape tinyShape() {
  NetworkShape s;
  s.seqLen = 3;
  s.embed = 4;
  s.width = 8;
  s.heads = 2;
  s.outputs = {"cpu-a", "cpu-b"};
  s.layout = "test layout v1";
  return s;
}

// The sizes the cost model runs at (TLP's 25 positions, width 64, 8
// attention heads), one head.
inline NetworkShape fullSizeShape() {
  NetworkShape s;
  s.seqLen = 25;
  s.embed = 24;
  s.outputs = {"zen5"};
  return s;
}

// A batch in the layout Samples expects.
struct Batch {
  int seqLen, embed;
  std::vector<float> x;
  std::vector<int> lengths;
  Samples samples() const { return {static_cast<int>(lengths.size()), x.data(), lengths.data()}; }
  float &at(int sample, int pos, int feature) {
    return x[(static_cast<size_t>(sample) * seqLen + pos) * embed + feature];
  }
  void fillPadding(float pad) {
    for (size_t s = 0; s < lengths.size(); ++s)
      for (int p = lengths[s]; p < seqLen; ++p)
        for (int f = 0; f < embed; ++f) at(static_cast<int>(s), p, f) = pad;
  }
};

inline Batch randomBatch(const NetworkShape &shape, std::vector<int> lengths, std::mt19937 &rng, float lo = -1, float hi = 1) {
  Batch b{shape.seqLen, shape.embed, {}, std::move(lengths)};
  std::uniform_real_distribution<float> u(lo, hi);
  b.x.resize(b.lengths.size() * shape.seqLen * shape.embed);
  for (float &v : b.x) v = u(rng);
  return b;
}

// Runs the kernels at one SIMD level for its scope (Simd.h), so that the
// AVX2 and baseline code is tested on AVX-512 machines too.
struct AtSimdLevel {
  explicit AtSimdLevel(SimdLevel level) { setSimdLevel(level); }
  ~AtSimdLevel() { setSimdLevel(SimdLevel::Avx512); }
};

inline std::vector<SimdLevel> simdLevels() {
  std::vector<SimdLevel> levels;
  for (SimdLevel l : {SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512})
    if (l <= bestSimdLevel()) levels.push_back(l);
  return levels;
}

// The network written plainly in double precision from TlpNetwork.h's
// formulas: the oracle of the gradient check, whose finite differences can
// take steps of 1e-6 (too small to cross a ReLU's kink, and free of float
// rounding).
struct Reference {
  NetworkShape shape;
  std::vector<ParameterArray> arrays;
  std::vector<double> p;

  explicit Reference(const TlpNetwork &net)
      : shape(net.shape()), arrays(net.parameterArrays()), p(net.parameters().begin(), net.parameters().end()) {}

  const double *at(int index) const { return p.data() + arrays[index].offset; }

  // rows × cols (row-major) = bias + in (rows × k) · w (k × cols), optional ReLU.
  std::vector<double> layer(const std::vector<double> &in, int rows, int k, int wIndex, int cols, bool relu) const {
    std::vector<double> out(static_cast<size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        double z = at(wIndex + 1)[c];
        for (int i = 0; i < k; ++i) z += in[r * k + i] * at(wIndex)[i * cols + c];
        out[r * cols + c] = relu ? std::max(z, 0.0) : z;
      }
    return out;
  }

  double score(const float *x, int len, int output) const {
    const int e = shape.embed, w = shape.width, dh = w / shape.heads;
    std::vector<double> in(x, x + len * e);
    std::vector<double> h0 = layer(in, len, e, kInputWeight, w, true);
    std::vector<double> qkv = layer(h0, len, w, kQkvWeight, 3 * w, false), att(len * w, 0.0);
    for (int h = 0; h < shape.heads; ++h)
      for (int i = 0; i < len; ++i) {
        std::vector<double> s(len);
        for (int j = 0; j < len; ++j) {
          for (int d = 0; d < dh; ++d) s[j] += qkv[i * 3 * w + h * dh + d] * qkv[j * 3 * w + w + h * dh + d];
          s[j] /= std::sqrt(static_cast<double>(dh));
        }
        double mx = *std::max_element(s.begin(), s.end()), sum = 0;
        for (double &v : s) sum += (v = std::exp(v - mx));
        for (int j = 0; j < len; ++j)
          for (int d = 0; d < dh; ++d) att[i * w + h * dh + d] += s[j] / sum * qkv[j * 3 * w + 2 * w + h * dh + d];
      }
    std::vector<double> h1 = layer(att, len, w, kAttentionOutWeight, w, false);
    for (int i = 0; i < len * w; ++i) h1[i] += h0[i];
    std::vector<double> h2 = layer(h1, len, w, kBlock1Weight, w, true);
    for (int i = 0; i < len * w; ++i) h2[i] += h1[i];
    std::vector<double> h3 = layer(h2, len, w, kBlock2Weight, w, true);
    double total = 0;
    for (int i = 0; i < len; ++i) {
      total += at(decoderBiasIndex(output))[0];
      for (int c = 0; c < w; ++c) total += (h3[i * w + c] + h2[i * w + c]) * at(decoderWeightIndex(output))[c];
    }
    return total;
  }

  double mse(const Batch &b, const std::vector<float> &labels, const std::vector<int> &output) const {
    double sum = 0;
    for (size_t i = 0; i < labels.size(); ++i) {
      double err = score(b.x.data() + i * shape.seqLen * shape.embed, b.lengths[i], output[i]) - labels[i];
      sum += err * err;
    }
    return sum / static_cast<double>(labels.size());
  }
};

// Checks the float MSE gradient of `net` at every SIMD level against the
// reference's central differences, for every `stride`-th parameter, with
// NaN padding; then that other padding changes neither loss nor gradient.
inline void checkGradients(TlpNetwork &net, Batch &b, size_t stride) {
  const NetworkShape &shape = net.shape();
  const int n = static_cast<int>(b.lengths.size());
  b.fillPadding(std::numeric_limits<float>::quiet_NaN());
  std::vector<int> group(n), output(n);
  std::vector<float> labels(n);
  Reference ref(net);
  for (int i = 0; i < n; ++i) {
    group[i] = i % 2;
    output[i] = (i / 2) % 2;
    const float *x = b.x.data() + static_cast<size_t>(i) * shape.seqLen * shape.embed;
    labels[i] = static_cast<float>(ref.score(x, b.lengths[i], output[i])) + (i % 2 ? 0.5f : -0.3f);
  }
  // The checked parameters: every stride-th of each array.
  std::vector<size_t> checked;
  for (const ParameterArray &a : net.parameterArrays())
    for (size_t i = a.offset; i < a.offset + a.count(); i += stride) checked.push_back(i);
  std::vector<double> expected(net.parameterCount());
  for (size_t i : checked) {
    const double keep = ref.p[i], eps = 1e-6;
    ref.p[i] = keep + eps;
    double up = ref.mse(b, labels, output);
    ref.p[i] = keep - eps;
    double down = ref.mse(b, labels, output);
    ref.p[i] = keep;
    expected[i] = (up - down) / (2 * eps);
  }
  for (SimdLevel level : simdLevels()) {
    AtSimdLevel at(level);
    CAPTURE(static_cast<int>(level));
    for (int i = 0; i < n; ++i) {
      Samples one{1, b.x.data() + static_cast<size_t>(i) * shape.seqLen * shape.embed, b.lengths.data() + i};
      CHECK(net.predict(one, output[i])[0] == doctest::Approx(ref.score(one.x, b.lengths[i], output[i])).epsilon(1e-5));
    }
    std::vector<float> grad;
    const float loss = net.lossAndGradient(b.samples(), labels.data(), group.data(), output.data(), Loss::Mse, grad);
    CHECK(loss == doctest::Approx(ref.mse(b, labels, output)).epsilon(1e-4));
    REQUIRE(grad.size() == net.parameterCount());
    size_t nonzero = 0;
    for (size_t i : checked) {
      INFO("parameter " << i << ": analytic " << grad[i] << ", reference " << expected[i]);
      CHECK(std::fabs(grad[i] - expected[i]) <= 1e-4 + 1e-3 * std::fabs(expected[i]));
      nonzero += std::fabs(expected[i]) > 1e-4;
    }
    CHECK(nonzero > checked.size() * 3 / 4); // real gradients, not zeros

    b.fillPadding(1e30f);
    std::vector<float> grad2;
    CHECK(net.lossAndGradient(b.samples(), labels.data(), group.data(), output.data(), Loss::Mse, grad2) == loss);
    CHECK(grad2 == grad);
    b.fillPadding(std::numeric_limits<float>::quiet_NaN());
  }
}


} // namespace tk::costmodel::nettest
