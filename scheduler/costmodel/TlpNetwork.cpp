#include "scheduler/costmodel/TlpNetwork.h"

#include "scheduler/costmodel/Attention.h"
#include "scheduler/costmodel/DenseOps.h"
#include "scheduler/costmodel/NetworkFile.h"
#include "scheduler/costmodel/RankingLoss.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tk::costmodel {
namespace {

// splitmix64 (Steele, Lea and Flood): initial weights that depend on the
// seed alone, not on the standard library's distributions.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-bound, bound), from 24 random bits (exact in a float).
  float uniform(float bound) { return (static_cast<float>(next() >> 40) * 0x1p-23f - 1.0f) * bound; }

private:
  uint64_t state_;
};

// The half-width of the initial uniform distribution of an array: He for
// weights feeding a ReLU, Xavier for the linear attention and decoder
// projections, zero for biases. A score sums the decoder over up to seqLen
// positions, so its bound is divided by √seqLen: initial scores of the
// order of the labels, not of √seqLen times them (which MSE training would
// first have to shrink).
float initBound(int index, const NetworkShape &shape) {
  float e = static_cast<float>(shape.embed), w = static_cast<float>(shape.width);
  switch (index) {
  case kInputWeight: return std::sqrt(6.0f / e);
  case kQkvWeight:
  case kAttentionOutWeight: return std::sqrt(6.0f / (w + w));
  case kBlock1Weight:
  case kBlock2Weight: return std::sqrt(6.0f / w);
  default:
    bool weight = index >= kFirstDecoder && (index - kFirstDecoder) % 2 == 0;
    return weight ? std::sqrt(6.0f / (w + 1.0f) / static_cast<float>(shape.seqLen)) : 0.0f;
  }
}

} // namespace

// The activations of one batch (all valid positions of its samples packed
// as rows), kept for the backward pass, and the backward pass's arrays.
// Every array is resized, then written in full before it is read.
struct TlpNetwork::Pass {
  PackedSequences seqs;
  std::vector<float> x, h0, qkv, saved, att, h1, r1, h2, r2; // r: a residual block's ReLU output
  std::vector<float> pooled;                                 // per sequence: Σ of h3 over its rows
  std::vector<float> dh, d, wt, dQkv;                        // backward: see there
};

// One pass per thread, reused from batch to batch (and kept at the size of
// the largest): a batch's arrays take megabytes, which freed and allocated
// again per call would be mapped and faulted in afresh each time (a third
// of a prediction's time).
TlpNetwork::Pass &TlpNetwork::threadPass() {
  thread_local Pass p;
  return p;
}

TlpNetwork::TlpNetwork(NetworkShape shape, uint64_t seed) {
  if (std::string why = shapeError(shape); !why.empty()) throw InternalError("cost-model network shape: " + why);
  arrays_ = parameterLayout(shape);
  params_.resize(arrays_.back().offset + arrays_.back().count());
  SplitMix64 rng(seed);
  for (size_t a = 0; a < arrays_.size(); ++a) {
    float bound = initBound(static_cast<int>(a), shape);
    for (size_t i = 0; i < arrays_[a].count(); ++i) params_[arrays_[a].offset + i] = bound ? rng.uniform(bound) : 0.0f;
  }
  shape_ = std::move(shape);
  adamM_.assign(params_.size(), 0.0f);
  adamV_ = adamM_;
  steps_.assign(arrays_.size(), 0);
}

TlpNetwork::TlpNetwork(NetworkShape shape, std::vector<float> values)
    : shape_(std::move(shape)), arrays_(parameterLayout(shape_)), params_(std::move(values)),
      adamM_(params_.size(), 0.0f), adamV_(adamM_), steps_(arrays_.size(), 0) {}

int TlpNetwork::outputIndex(const std::string &name) const {
  auto it = std::find(shape_.outputs.begin(), shape_.outputs.end(), name);
  return it == shape_.outputs.end() ? -1 : static_cast<int>(it - shape_.outputs.begin());
}

void TlpNetwork::forward(const Samples &s, const std::vector<int> &which, Pass &p) const {
  const int e = shape_.embed, w = shape_.width;
  p.seqs.start.clear();
  p.seqs.length.clear();
  p.seqs.rows = 0;
  for (int i : which) {
    int len = s.lengths[i];
    if (len < 1 || len > shape_.seqLen)
      throw InternalError(fmt::format("cost model: sample {} has length {}, not 1..{}", i, len, shape_.seqLen));
    p.seqs.start.push_back(p.seqs.rows);
    p.seqs.length.push_back(len);
    p.seqs.rows += len;
  }
  const size_t rows = static_cast<size_t>(p.seqs.rows);
  const int n = p.seqs.rows;
  p.x.resize(rows * e);
  for (size_t q = 0; q < which.size(); ++q)
    std::copy_n(s.x + static_cast<size_t>(which[q]) * shape_.seqLen * e, static_cast<size_t>(p.seqs.length[q]) * e,
                p.x.data() + static_cast<size_t>(p.seqs.start[q]) * e);
  for (std::vector<float> *a : {&p.h0, &p.att, &p.h1, &p.r1, &p.h2, &p.r2}) a->resize(rows * w);
  p.qkv.resize(rows * 3 * w);
  p.saved.resize(attentionSavedSize(p.seqs, shape_.heads));
  linear(n, w, e, p.x.data(), array(kInputWeight), array(kInputBias), true, p.h0.data());
  linear(n, 3 * w, w, p.h0.data(), array(kQkvWeight), array(kQkvBias), false, p.qkv.data());
  attentionForward(p.seqs, w, shape_.heads, p.qkv.data(), p.att.data(), p.saved.data());
  linear(n, w, w, p.att.data(), array(kAttentionOutWeight), array(kAttentionOutBias), false, p.h1.data());
  for (size_t i = 0; i < rows * w; ++i) p.h1[i] += p.h0[i];
  linear(n, w, w, p.h1.data(), array(kBlock1Weight), array(kBlock1Bias), true, p.r1.data());
  for (size_t i = 0; i < rows * w; ++i) p.h2[i] = p.h1[i] + p.r1[i];
  linear(n, w, w, p.h2.data(), array(kBlock2Weight), array(kBlock2Bias), true, p.r2.data());
  // The decoder is linear, so Σ_rows (h3 w_o + b_o) = (Σ_rows h3) w_o +
  // length · b_o: pool h3 = h2 + r2 once, whichever output is asked for.
  p.pooled.assign(which.size() * w, 0.0f);
  for (size_t q = 0; q < which.size(); ++q) {
    float *pool = p.pooled.data() + q * w;
    for (int r = p.seqs.start[q]; r < p.seqs.start[q] + p.seqs.length[q]; ++r)
      for (int c = 0; c < w; ++c)
        pool[c] += p.h2[static_cast<size_t>(r) * w + c] + p.r2[static_cast<size_t>(r) * w + c];
  }
}

float TlpNetwork::score(const Pass &p, int sequence, int output) const {
  const int w = shape_.width;
  const float *pool = p.pooled.data() + static_cast<size_t>(sequence) * w, *wo = array(decoderWeightIndex(output));
  float s = 0.0f;
  for (int c = 0; c < w; ++c) s += pool[c] * wo[c];
  return s + static_cast<float>(p.seqs.length[sequence]) * array(decoderBiasIndex(output))[0];
}

void TlpNetwork::backward(Pass &p, const std::vector<float> &dScore, const std::vector<int> &outputs,
                          std::vector<float> &grad) const {
  const int e = shape_.embed, w = shape_.width, n = p.seqs.rows;
  const size_t rows = static_cast<size_t>(n);
  auto gradOf = [&](int index) { return grad.data() + arrays_[index].offset; };
  // dh: the gradient with respect to the current layer's output, from h3
  // down to h0; d: the same behind a ReLU or the attention output; wt: a
  // transposed weight matrix.
  p.dh.resize(rows * w);
  p.d.resize(rows * w);
  p.wt.resize(static_cast<size_t>(3) * w * w);
  p.dQkv.resize(rows * 3 * w);
  float *dh = p.dh.data(), *d = p.d.data(), *wt = p.wt.data();
  for (size_t q = 0; q < dScore.size(); ++q) {
    const int o = outputs[q], first = p.seqs.start[q], len = p.seqs.length[q];
    const float ds = dScore[q], *wo = array(decoderWeightIndex(o));
    float *gw = gradOf(decoderWeightIndex(o));
    for (int c = 0; c < w; ++c) gw[c] += ds * p.pooled[q * w + c];
    gradOf(decoderBiasIndex(o))[0] += ds * static_cast<float>(len);
    for (int r = first; r < first + len; ++r)
      for (int c = 0; c < w; ++c) dh[static_cast<size_t>(r) * w + c] = ds * wo[c];
  }
  // Residual blocks h_out = h_in + ReLU(h_in W + b): dh_in = dh_out + d Wᵀ.
  struct Block {
    const float *in, *act;
    int weight, bias;
  };
  for (Block b : {Block{p.h2.data(), p.r2.data(), kBlock2Weight, kBlock2Bias},
                  Block{p.h1.data(), p.r1.data(), kBlock1Weight, kBlock1Bias}}) {
    reluBackward(rows * w, dh, b.act, d);
    gemmTransA(w, w, n, b.in, d, gradOf(b.weight));
    addColumnSums(n, w, d, gradOf(b.bias));
    transpose(w, w, array(b.weight), wt);
    gemm(n, w, w, d, wt, dh);
  }
  // h1 = h0 + att W_o + b_o.
  gemmTransA(w, w, n, p.att.data(), dh, gradOf(kAttentionOutWeight));
  addColumnSums(n, w, dh, gradOf(kAttentionOutBias));
  transpose(w, w, array(kAttentionOutWeight), wt);
  std::fill_n(d, rows * w, 0.0f);
  gemm(n, w, w, dh, wt, d);
  // att = Attention(qkv), qkv = h0 W_qkv + b_qkv: dh becomes dL/dh0.
  attentionBackward(p.seqs, w, shape_.heads, p.qkv.data(), p.saved.data(), d, p.dQkv.data());
  gemmTransA(w, 3 * w, n, p.h0.data(), p.dQkv.data(), gradOf(kQkvWeight));
  addColumnSums(n, 3 * w, p.dQkv.data(), gradOf(kQkvBias));
  transpose(w, 3 * w, array(kQkvWeight), wt);
  gemm(n, w, 3 * w, p.dQkv.data(), wt, dh);
  // h0 = ReLU(x W_in + b_in).
  reluBackward(rows * w, dh, p.h0.data(), d);
  gemmTransA(e, w, n, p.x.data(), d, gradOf(kInputWeight));
  addColumnSums(n, w, d, gradOf(kInputBias));
}

std::vector<float> TlpNetwork::predict(const Samples &s, int output) const {
  if (output < 0 || output >= static_cast<int>(shape_.outputs.size()))
    throw InternalError(fmt::format("cost model: no output {}", output));
  std::vector<int> all(s.count);
  std::iota(all.begin(), all.end(), 0);
  Pass &p = threadPass();
  forward(s, all, p);
  std::vector<float> scores(s.count);
  for (int q = 0; q < s.count; ++q) scores[q] = score(p, q, output);
  return scores;
}

float TlpNetwork::lossAndGradient(const Samples &s, const float *labels, const int *group, const int *output, Loss loss,
                                  std::vector<float> &grad) const {
  grad.assign(params_.size(), 0.0f);
  std::vector<int> which, outputs, groups;
  std::vector<float> labelOf;
  for (int i = 0; i < s.count; ++i) {
    if (output[i] == -1) continue;
    if (output[i] < 0 || output[i] >= static_cast<int>(shape_.outputs.size()))
      throw InternalError(fmt::format("cost model: sample {} has output {}", i, output[i]));
    which.push_back(i);
    outputs.push_back(output[i]);
    groups.push_back(group[i]);
    labelOf.push_back(labels[i]);
  }
  if (which.empty()) return 0.0f;
  Pass &p = threadPass();
  forward(s, which, p);
  const int n = static_cast<int>(which.size());
  std::vector<float> scores(n), dScore(n);
  for (int q = 0; q < n; ++q) scores[q] = score(p, q, outputs[q]);
  float value = loss == Loss::LambdaRank
                    ? lambdaRankLoss(n, scores.data(), labelOf.data(), groups.data(), outputs.data(), dScore.data())
                    : mseLoss(n, scores.data(), labelOf.data(), dScore.data());
  backward(p, dScore, outputs, grad);
  return value;
}

float TlpNetwork::trainStep(const Samples &s, const float *labels, const int *group, const int *output,
                            const TrainOptions &o) {
  std::vector<float> grad;
  float loss = lossAndGradient(s, labels, group, output, o.loss, grad);
  // The backbone always steps; a decoder only when its output has labels
  // here, so that the heads of hardware absent from a batch neither decay
  // nor coast on old momentum.
  std::vector<char> stepped(arrays_.size(), 0);
  bool labelled = false;
  for (int i = 0; i < s.count; ++i)
    if (output[i] >= 0) {
      labelled = true;
      stepped[decoderWeightIndex(output[i])] = stepped[decoderBiasIndex(output[i])] = 1;
    }
  if (!labelled) return 0.0f;
  std::fill(stepped.begin(), stepped.begin() + kFirstDecoder, 1);

  double norm2 = 0;
  for (float g : grad) norm2 += static_cast<double>(g) * g;
  const float norm = static_cast<float>(std::sqrt(norm2));
  const float clip = o.clipNorm > 0 && norm > o.clipNorm ? o.clipNorm / norm : 1.0f;

  const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  for (size_t a = 0; a < arrays_.size(); ++a) {
    if (!stepped[a]) continue;
    const int64_t t = ++steps_[a];
    const float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(b1), static_cast<double>(t)));
    const float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(b2), static_cast<double>(t)));
    for (size_t i = arrays_[a].offset; i < arrays_[a].offset + arrays_[a].count(); ++i) {
      float g = grad[i] * clip;
      adamM_[i] = b1 * adamM_[i] + (1 - b1) * g;
      adamV_[i] = b2 * adamV_[i] + (1 - b2) * g * g;
      params_[i] -=
          o.learningRate * ((adamM_[i] / c1) / (std::sqrt(adamV_[i] / c2) + eps) + o.weightDecay * params_[i]);
    }
  }
  return loss;
}

std::string TlpNetwork::serialize() const { return formatNetworkFile(shape_, params_); }

std::optional<TlpNetwork> TlpNetwork::parse(int file, const SourceManager &sm, DiagEngine &diags) {
  std::optional<NetworkWeights> w = parseNetworkFile(file, sm, diags);
  if (!w) return std::nullopt;
  return TlpNetwork(std::move(w->shape), std::move(w->values));
}

} // namespace tk::costmodel
