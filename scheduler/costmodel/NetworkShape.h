// The shape of a TLP cost-model network (sizes, decoder heads, the caller's
// feature-layout signature) and the parameter arrays it implies, in the one
// order in which they are initialised, stored, trained and written to the
// weights file (NetworkFile.h).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tk::costmodel {

struct NetworkShape {
  int seqLen = 0, embed = 0, width = 64, heads = 8;
  std::vector<std::string> outputs; // decoder heads (hardware ids), >= 1
  std::string layout;               // opaque feature-layout signature chosen by the caller
};

// Bounds on shapes (and on what the weights file parser accepts).
inline constexpr int kMaxDimension = 4096; // seqLen, embed, width
inline constexpr int kMaxOutputs = 256;

// Why `shape` cannot make a network, or "" if it can: every size in
// 1..kMaxDimension, width % heads == 0, 1..kMaxOutputs distinct output names
// that are non-empty and free of whitespace (they are words of the weights
// file), and a layout without line breaks (it is one line of it).
std::string shapeError(const NetworkShape &shape);

// One parameter array: rows × cols floats (row-major; cols == count for a
// vector) at `offset` in the network's flat parameter vector.
struct ParameterArray {
  std::string name;
  size_t offset = 0;
  int rows = 0, cols = 0;
  size_t count() const { return static_cast<size_t>(rows) * cols; }
};

// The arrays of a valid shape, in order and contiguous from offset 0
// (E = embed, W = width):
//   input.weight E×W, input.bias W          up-projection
//   attention.qkv.weight W×3W, .bias 3W     query | key | value columns
//   attention.out.weight W×W, .bias W       output projection
//   block1.weight W×W, .bias W              first residual block
//   block2.weight W×W, .bias W              second residual block
//   decoder.<output>.weight W, .bias 1      one pair per output, in order
std::vector<ParameterArray> parameterLayout(const NetworkShape &shape);

// Indices into parameterLayout's result.
enum ParameterIndex : int {
  kInputWeight,
  kInputBias,
  kQkvWeight,
  kQkvBias,
  kAttentionOutWeight,
  kAttentionOutBias,
  kBlock1Weight,
  kBlock1Bias,
  kBlock2Weight,
  kBlock2Bias,
  kFirstDecoder, // then decoder o's weight at kFirstDecoder + 2·o, its bias after it
};
inline int decoderWeightIndex(int output) { return kFirstDecoder + 2 * output; }
inline int decoderBiasIndex(int output) { return kFirstDecoder + 2 * output + 1; }

} // namespace tk::costmodel
