// ShapeSampler: random symbol and scalar-parameter values for an op, chosen
// the way shape bugs are found: extents of 1, a large prime (2039) along one
// dimension, and sizes that are no multiple of any tile (odd, prime, one off
// a power of two), under a work budget so each run stays fast.
#pragma once
#include "ir/Interpreter.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tk::e2e {

struct SampleRequest {
  // Value forced on one symbol (e.g. {"M", 2039}); empty name = none.
  std::string forcedSymbol;
  int64_t forcedValue = 0;
  bool allOnes = false;  // every symbol 1 (scalars still drawn)
  // Upper bound on the product of all symbol values, a proxy for the work
  // the reference interpreter does (M*K*N for matmul, N*C*H*W*F*R*S for conv).
  double workBudget = 1e5;
  // The sizes random symbols are drawn from, ascending; empty: the default
  // set below. Whole tiles (multiples of 8, 64) take a kernel's full-tile
  // and aligned vector paths, which the default set's odd sizes mostly avoid.
  std::vector<int64_t> sizes;
};

// Draws values satisfying every `where` constraint with non-negative derived
// extents and a non-empty first output, by rejection sampling; nullopt when
// none was found in a few thousand draws. Symbols come from {1, 2, 3, 4, 5,
// 7, 8, 9, 13, 16, 17, 31, 33, 63, 65, 127} (or req.sizes); integer scalars
// from 0..3; float scalars uniformly from [1e-3, 0.5].
std::optional<ir::InterpArgs> sampleValid(const ir::Op &op, const SampleRequest &req, std::mt19937_64 &rng);

// What makes a call fail with status 1 (docs/abi.md).
enum class Violation { Where, NegativeExtent };

// Draws values (symbols from 0..9, integer scalars from -2..4) for which a
// `where` constraint is false, or for which every constraint holds but a
// derived extent is negative; nullopt when none was found.
std::optional<ir::InterpArgs> sampleViolating(const ir::Op &op, Violation kind, std::mt19937_64 &rng);

// "M=2039 K=3 N=7 stride=2" for logs.
std::string describeArgs(const ir::Op &op, const ir::InterpArgs &args);

} // namespace tk::e2e
