// FillHoles: the construction optimizer applied to a kernel's `?` holes.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"
#include "scheduler/construct/Gensor.h"
#include "scheduler/costmodel/Decisions.h"
#include "scheduler/costmodel/Records.h"

#include <functional>
#include <map>

namespace tk::construct {

struct ConstructOptions {
  HardwareDesc hw;
  std::map<std::string, int64_t> shapes; // assumed symbol values (--shape-hint)
  GensorOptions gensor;
  // --rank=measure, --measure-top: the latency of one call of a candidate
  // kernel at `shapes` (the driver compiles and times it); unset = no
  // timing. The first `measureTopK` distinct candidates (by estimate, or by
  // the model's score) are timed.
  std::function<costmodel::Latency(const ir::KernelPtr &)> measure;
  size_t measureTopK = 4;
  // --rank=model: the learned cost model's score of each candidate's
  // decisions (higher = predicted faster); `modelCandidates` candidates are
  // scored (docs/costmodel.md).
  std::function<std::vector<double>(const std::vector<costmodel::DecisionSequence> &)> rankByModel;
  size_t modelCandidates = 64;
  // --records-out: called for every candidate that was timed, with its
  // decisions, where it came from (rule, gensor, random) and its latency.
  std::function<void(const ir::Op &, const costmodel::DecisionSequence &, const std::string &, const costmodel::Latency &)>
      recordMeasured;
};

// The indices of `seqs` best first by opts.rankByModel's scores (equal
// scores keep their order), the scores in *scores. Requires rankByModel.
std::vector<size_t> modelOrder(const ConstructOptions &opts, const std::vector<costmodel::DecisionSequence> &seqs,
                               std::vector<double> *scores);

// Which loop dimension of the op's nest, at which hardware level, a hole
// tiles: found from how the kernel uses it — as a coefficient or a loop
// extent in an index of an op tensor (`C[bi*T + i, ..]`, `repeat(T, ..)`),
// at the register level when a `register` local's shape mentions it, else
// at the level spread over the units. A tensor the analysed statement does
// not access (another statement's output) maps through its dimension's
// extent at `shapes` to the first nest dimension of the nearest extent: the hole
// then only picks a tile size, and any candidate is correct. nullopt when
// the uses say nothing.
struct HoleRole {
  int dim = -1;
  size_t level = 0;
};
std::optional<HoleRole> holeRole(const ir::Kernel &k, const LoopNest &nest, const HardwareDesc &hw, int holeId,
                                 const std::map<std::string, int64_t> &shapes);

// The decisions of an assignment of a kernel's holes, for records and the
// cost model: the nest's primitives (costmodel::nestDecisions), then per
// hole, in the kernel's order, the loop its value makes of its role's
// dimension as a `nest_loop` (dimension, step = the value, iterations,
// tail), the primitive LoopTune's loops use (docs/records.md).
costmodel::DecisionSequence holeDecisions(const LoopNest &nest, const HardwareDesc &hw,
                                          const std::vector<std::pair<HoleRole, int64_t>> &holes);

// Takes a verified kernel; returns a copy whose valueless holes carry the
// values the optimizer chose: it constructs a tiling for the op's nest
// (runGensor), takes for each hole the candidate nearest (in log scale) to
// the tile of its role (a hole without candidates may take any integer up
// to 1024 and powers of two up to 65536), and, when a `require` then evaluates to false,
// tries the next-nearest assignments (at most 4096). Holes with a value
// keep it. With opts.rankByModel or opts.measure set, the candidates are
// the nearest legal assignments to each of Gensor's ranked states
// (distinct; up to opts.modelCandidates, else opts.measureTopK), ordered by
// the model's score, and the fastest of the first opts.measureTopK timed
// is taken (a tie keeps the first; timing stops once the calls timed add
// up to 2 s); each timed one goes to opts.recordMeasured (candidate
// "holes-gensor"). Returns nullptr after
// reporting, at the hole or the `require`, why no legal assignment exists.
ir::KernelPtr fillHolesByConstruction(const ir::Kernel &k, const ConstructOptions &opts, DiagEngine &diags);

} // namespace tk::construct
