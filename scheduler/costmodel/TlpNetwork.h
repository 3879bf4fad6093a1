// The network of TLP's learned cost model ("Tensor program cost model from
// schedule primitives"): from a schedule's feature sequence (one vector of
// `embed` floats per schedule primitive) to a score per hardware output,
// higher meaning faster. Per sample, with W = width:
//   h0 = ReLU(x W_in + b_in)                       up-projection, per position
//   h1 = h0 + MultiHeadSelfAttention(h0)           `heads` heads over valid keys
//   h2 = h1 + ReLU(h1 W_1 + b_1)                   residual blocks
//   h3 = h2 + ReLU(h2 W_2 + b_2)
//   score_o = Σ over valid positions (h3 w_o + b_o)   decoder of output o
// The backbone is shared by all outputs (multi-task). Positions at or past a
// sample's length are padding: they are never read. Training is one Adam
// step per batch on a ranking (LambdaRank) or regression (MSE) loss
// (RankingLoss.h). Single-threaded and deterministic: the same seed and
// batches give bit-identical weights on one SIMD level (Simd.h; the levels
// differ in rounding only). Each thread keeps the activation arrays of its
// largest batch between calls (about 8 MB for 64 samples of 25 positions
// at width 64).
#pragma once
#include "ir/Diagnostics.h"
#include "scheduler/costmodel/NetworkShape.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tk::costmodel {

// A batch: count samples of shape().seqLen positions × shape().embed floats
// each in x (row-major, sample after sample), and each sample's number of
// valid positions, 1..seqLen, in lengths. The values of padding positions
// may be anything (NaN included).
struct Samples {
  int count = 0;
  const float *x = nullptr;
  const int *lengths = nullptr;
};

enum class Loss { LambdaRank, Mse };

struct TrainOptions {
  float learningRate = 7e-4f, weightDecay = 1e-6f;
  float clipNorm = 0.5f; // largest global gradient norm; 0: no clipping
  Loss loss = Loss::LambdaRank;
};

class TlpNetwork {
public:
  // An empty network without outputs, to be assigned to.
  TlpNetwork() = default;
  // A fresh network of `shape` (shapeError(shape) must be empty, else
  // InternalError): weights drawn from a splitmix64 stream seeded by `seed`,
  // He-uniform before a ReLU and Xavier-uniform elsewhere (the decoders'
  // divided by √seqLen, as a score sums seqLen positions); biases zero.
  TlpNetwork(NetworkShape shape, uint64_t seed);

  const NetworkShape &shape() const { return shape_; }
  // The index of output (hardware id) `name`, or -1.
  int outputIndex(const std::string &name) const;

  // One score per sample from decoder `output` (0 <= output <
  // shape().outputs.size()). Bad lengths or outputs throw InternalError.
  std::vector<float> predict(const Samples &s, int output) const;

  // One Adam step (β 0.9/0.999, ε 1e-8, decoupled weight decay) on the batch,
  // after clipping the gradient to global norm o.clipNorm; returns the batch
  // loss before the step. For sample i (each array has s.count entries):
  // labels[i] in (0, 1] (the best latency of its task / its latency),
  // group[i] its task (LambdaRank compares only samples of the same group
  // and output), output[i] its decoder, or -1 for no label (ignored
  // entirely). A decoder no sample of the batch uses is not stepped at all
  // (no decay, moments untouched). A batch without labels changes nothing
  // and returns 0.
  float trainStep(const Samples &s, const float *labels, const int *group, const int *output, const TrainOptions &o);

  // The batch loss of trainStep and its gradient with respect to
  // parameters() (resized to parameterCount()), without clipping or
  // stepping: what trainStep descends, exposed for gradient checks.
  float lossAndGradient(const Samples &s, const float *labels, const int *group, const int *output, Loss loss,
                        std::vector<float> &grad) const;

  // The weights file (NetworkFile.h); the Adam state is not saved.
  std::string serialize() const;
  // Reads a weights file; errors go to `diags` at their line and column
  // (NetworkFile.h) and give nullopt. The result has a fresh Adam state.
  static std::optional<TlpNetwork> parse(int file, const SourceManager &sm, DiagEngine &diags);

  size_t parameterCount() const { return params_.size(); }
  // The parameters as one vector, and its arrays (parameterLayout(shape())).
  const std::vector<ParameterArray> &parameterArrays() const { return arrays_; }
  std::span<const float> parameters() const { return params_; }

private:
  struct Pass;               // one batch's activations (TlpNetwork.cpp)
  static Pass &threadPass(); // the calling thread's, reused by every network
  TlpNetwork(NetworkShape shape, std::vector<float> values);
  const float *array(int index) const { return params_.data() + arrays_[index].offset; }
  void forward(const Samples &s, const std::vector<int> &which, Pass &p) const;
  float score(const Pass &p, int sequence, int output) const;
  void backward(Pass &p, const std::vector<float> &dScore, const std::vector<int> &outputs,
                std::vector<float> &grad) const;

  NetworkShape shape_;
  std::vector<ParameterArray> arrays_;
  std::vector<float> params_, adamM_, adamV_;
  std::vector<int64_t> steps_; // Adam steps taken by each array
};

} // namespace tk::costmodel
