// LdmTiles: how big a block of an op statement one CPE holds in its LDM —
// a tile size per loop dimension of the op's nest (output dimensions and
// reduction variables) — and what a tiling costs in DMA under the Sunway
// cost model (docs/sunway.md, "Performance model"). Two sizings:
//   - swTVM's (the paper's algorithm, kept for comparison and ablation):
//     the loop dimensions that index the lowest dimension of some tensor
//     (its sizeiters) start at min(extent, 64), the others at 1; the largest
//     halves while the buffers exceed the LDM, then each sizeiter in nest
//     order doubles while they still fit, round after round. Matmul in f32
//     under 64 KiB gets x = 1, y = 128, k = 64 as in the paper.
//   - the fastest: every power-of-two tile (and each full extent) that fits,
//     ranked by modelled time: output tiles spread over the 64 CPEs, each
//     tile's inputs read once per reduction block, its output written once.
#pragma once
#include "scheduler/construct/HardwareDesc.h"
#include "scheduler/construct/LoopNest.h"

#include <cstdint>
#include <vector>

namespace tk {

// A tiling of a nest and its modelled cost (per call, all CPEs together).
struct LdmTiling {
  std::vector<int64_t> tile; // per nest dimension
  int spread = -1;           // the output dimension the CPEs run in lockstep along (TileOutputs), or -1
  int rows = -1;             // with spread: 8 x 8 rounds, the CPE rows along this dimension (TileOutputs)
  double ldmBytes = 0;       // buffers one CPE holds at once
  double dmaBytes = 0;       // moved between main memory and LDM
  double transfers = 0;      // DMA transfers (each pays the main-memory latency)
  double seconds = 0;        // modelled time of the op
};

// The cost of `tile` for `nest` on `hw` (a Sunway description: its `main`
// level's bandwidth and latency, units and per-unit FLOP rate). With
// `doubleBuffer` the inputs take two buffers each and their blocks after a
// tile's first are fetched ahead (StageThroughLdm's double buffering).
// With `spread` an output dimension, the tiles go round by round in
// lockstep along it (TileOutputs) and each input that does not depend on
// it is broadcast: read once per round and reduction block for all CPEs.
// With `rows` too, the rounds are 8 x 8 tiles (the CPE columns along
// `spread`, the rows along `rows`): an input that depends on `rows` alone
// is row-broadcast (a box per CPE row per round and block), one that
// depends on `spread` alone is broadcast as the union of the 8 columns'
// boxes (whose LDM buffer holds all 8).
LdmTiling costLdmTiling(const construct::LoopNest &nest, const construct::HardwareDesc &hw,
                        const std::vector<int64_t> &tile, bool doubleBuffer, int spread = -1, int rows = -1);

// Whether input `a` of `nest` is the same for every tile along output
// dimension `d` (no index of it depends on d).
bool sharesAlong(const construct::LoopNest &nest, const construct::Access &a, int d);

// swTVM's sizing under `budgetBytes` of LDM per CPE (which knows no double
// buffering; the cost counts it when the LDM has room left for it).
LdmTiling swtvmLdmTiling(const construct::LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                         bool doubleBuffer);

// Without LDM sizing (the ablation of swTVM's): swTVM's first guess, every
// sizeiter at min(extent, 64) and the others at 1, halved only while the
// buffers do not fit `budgetBytes`, never grown.
LdmTiling fixedLdmTiling(const construct::LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                         bool doubleBuffer);

// The tiling of least modelled time whose buffers fit `budgetBytes`, each
// tiling costed double-buffered when `doubleBuffer` and its second input
// buffers fit too, and with `broadcast` also in lockstep along each output
// dimension where an input is shared; all ones when even that does not fit.
// With `rows` too, in 8 x 8 rounds instead, along each pair of output
// dimensions where an input has a box per CPE row or per CPE column, when
// there is such a pair. (Not searched by default: on the bench's shapes
// the model finds them no faster, and they double the search's time.)
LdmTiling fastestLdmTiling(const construct::LoopNest &nest, const construct::HardwareDesc &hw, int64_t budgetBytes,
                           bool doubleBuffer, bool broadcast = false, bool rows = false);

} // namespace tk
