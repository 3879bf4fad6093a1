// LoopTune's Q-network: a multilayer perceptron (ReLU hidden layers, linear
// output) from the state vector to one value per action, with what DQN
// training needs (backpropagation of a Huber loss on chosen actions, Adam),
// and its weights file (format `tk-looptune-qnet 1`, docs/looptune.md).
#pragma once
#include "ir/Diagnostics.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tk::looptune {

inline constexpr int kQNetVersion = 1;

class QNetwork {
public:
  QNetwork() = default;
  // Layer widths from input to output, e.g. {200, 128, 128, 10}; weights
  // drawn He-uniform from `rng`, biases zero.
  QNetwork(std::vector<int> widths, std::mt19937 &rng);

  const std::vector<int> &widths() const { return widths_; }
  std::vector<float> forward(const std::vector<float> &x) const;

  // One Adam step on the mean Huber loss of (Q(x_i)[a_i] - target_i) over
  // the batch; returns that loss.
  float train(const std::vector<std::vector<float>> &xs, const std::vector<int> &actions,
              const std::vector<float> &targets, float learningRate);

  std::string serialize() const;
  // Parses file `file` of `sm`; errors (header, version, counts, numbers)
  // go to `diags` at their line and column.
  static std::optional<QNetwork> parse(int file, const SourceManager &sm, DiagEngine &diags);

private:
  struct Layer {
    int in = 0, out = 0;
    std::vector<float> w, b;           // w[o * in + i]
    std::vector<float> mw, vw, mb, vb; // Adam moments
  };
  std::vector<int> widths_;
  std::vector<Layer> layers_;
  long steps_ = 0;
};

} // namespace tk::looptune
