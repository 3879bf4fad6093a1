// The weights file of a cost-model network (TlpNetwork::serialize/parse):
// versioned text that round-trips every float exactly.
//
//   tk-costmodel 1
//   seqLen 25 embed 24 width 64 heads 8
//   layout <the layout signature: the rest of this line>
//   outputs 2 zen5-2c a100
//   input.weight 1536
//   <the array's values: one line per row, 9 significant digits>
//   input.bias 64
//   ...
//
// The arrays follow in the order of parameterLayout (NetworkShape.h), each
// as its name, its count and its values.
#pragma once
#include "ir/Diagnostics.h"
#include "scheduler/costmodel/NetworkShape.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::costmodel {

inline constexpr int kNetworkFileVersion = 1;

// A network's shape and flat parameter vector (parameterLayout order).
struct NetworkWeights {
  NetworkShape shape;
  std::vector<float> values;
};

// The file text of a valid shape and its parameterLayout-sized values.
std::string formatNetworkFile(const NetworkShape &shape, const std::vector<float> &values);

// Reads file `file` of `sm`. Errors (wrong header, unsupported version, a
// bad, missing or out-of-range size, an invalid shape, a wrong array name,
// a count other than the shape's, a non-number or non-finite value, a file
// that ends early or has text after the last array) go to `diags` at their
// line and column, and give nullopt. Memory stays proportional to the
// file's length whatever counts it declares.
std::optional<NetworkWeights> parseNetworkFile(int file, const SourceManager &sm, DiagEngine &diags);

} // namespace tk::costmodel
