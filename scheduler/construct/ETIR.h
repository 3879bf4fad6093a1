// ETIR: the state of Gensor's construction — per memory level and loop
// dimension a tile size, virtual-thread factors, and the level being
// scheduled — with its actions (tile, invTile, cache, setVThread), their
// benefit formulas and the capacity checks that forbid a transition.
#pragma once
#include "scheduler/construct/HardwareDesc.h"
#include "scheduler/construct/LoopNest.h"

#include <string>
#include <vector>

namespace tk::construct {

struct ETIR {
  // tile[l][d] for hardware level l = 1 .. levels-1 (level 0, main memory,
  // holds the whole tensors); tile[0] is unused and holds the extents.
  std::vector<std::vector<int64_t>> tile;
  std::vector<int> vthread; // per dim; 1 = none
  size_t level = 1;         // the level whose tiles the actions change

  bool operator<(const ETIR &o) const;
  bool operator==(const ETIR &o) const;
  std::string str() const; // e.g. "l2 [64,32,8] | l1 [16,16,8]* | vt [1,1,1]"
};

struct Action {
  enum class Kind { Tile, InvTile, Cache, VThread } kind = Kind::Tile;
  int dim = -1;  // Tile, InvTile, VThread
  int factor = 1; // VThread
  std::string str(const LoopNest &nest) const;
};

// What the optimizer knows while it walks: the nest, the machine and the
// per-level step lists. Everything here is pure and deterministic.
class Space {
public:
  // `paddingThreshold`: Roller's th, a step is dropped when its padding
  // exceeds this fraction. 0 left 1000^3 only tiny tiles (best estimate
  // 42 ms against 6.8); 0.10, 0.25, 0.5 and 1 found the same best on the
  // four shapes ETIR.cpp lists.
  Space(LoopNest nest, HardwareDesc hw, double paddingThreshold = 0.25);

  const LoopNest &nest() const { return nest_; }
  const HardwareDesc &hw() const { return hw_; }
  size_t levels() const { return hw_.levels.size(); }
  bool isRegisterLevel(size_t l) const { return l + 1 == levels(); }

  // The level the construction starts at: 1 (below main memory), but on a
  // CPU the first level private to a core. CPU kernels have no loop for a
  // shared cache (L3), so such a level holds the same tile as the first
  // private one (syncShared): its traffic is that of the per-core tiles.
  size_t firstLevel() const;
  void syncShared(ETIR &s) const;
  // The tile of the level above l whose reduction blocks reload l's output
  // tile (the extents for the first level: its task runs the whole reduction).
  const std::vector<int64_t> &parentTile(const ETIR &s, size_t l) const;

  ETIR initial() const;
  // Roller-style step list of dim d at level l below a parent tile: powers
  // of two at the register level; elsewhere powers of two times the
  // transaction size (in elements) on the output's innermost dimension,
  // plus the parent tile itself; steps padding more than the threshold
  // (ceil(N/s)*s > N*(1+th)) are dropped, except the smallest. On a CPU
  // the register level has only the step 1 in reduction dimensions (the
  // code streams the reduction through the register tile).
  std::vector<int64_t> steps(size_t l, int d, int64_t parent) const;

  std::vector<Action> actions(const ETIR &s) const;
  ETIR apply(const ETIR &s, const Action &a) const;

  // Why `s` does not fit the machine ("" = it fits): a footprint over the
  // capacity of a level up to the current one; on GPUs, at the register
  // level, threads per block, registers per thread and registers per SM.
  std::string capacityViolation(const ETIR &s) const;

  // Benefit of taking `a` in `s` (0 when the result violates capacity):
  //   tile/invTile: Q(T) F(T') / (Q(T') F(T))
  //   cache:        (L_low + S/B_low) / (L_high + S/B_high), S = bytes exchanged (traffic)
  //   setVThread:   ceil(x/W) / ceil(x/(V W)), x = tile width, W = bank row in elements
  double benefit(const ETIR &s, const Action &a) const;

  // Threads per block of a GPU state: product over dims of block tile /
  // thread tile (the last two levels).
  int64_t gpuThreads(const ETIR &s) const;

private:
  LoopNest nest_;
  HardwareDesc hw_;
  double th_;
};

// The benefit formulas on their own (unit-tested directly).
double tilingBenefit(double qBefore, double fBefore, double qAfter, double fAfter);
double cachingBenefit(double latencyLow, double bandwidthLow, double latencyHigh, double bandwidthHigh, double bytes);
double vthreadBenefit(int64_t width, int64_t bankElems, int v);

} // namespace tk::construct
