#include "scheduler/construct/Roofline.h"

#include "ir/IntArith.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tk::construct {

size_t unitLevel(const HardwareDesc &hw) {
  for (size_t l = 1; l < hw.levels.size(); ++l)
    if (!hw.levels[l].shared) return l;
  return hw.levels.size() - 1;
}

Estimate estimate(const Space &space, const ETIR &s) {
  const LoopNest &nest = space.nest();
  const HardwareDesc &hw = space.hw();
  size_t pu = unitLevel(hw), reg = hw.levels.size() - 1;
  Estimate e;
  int64_t par = 1;
  double padding = 1;
  for (size_t d = 0; d < nest.dims.size(); ++d) {
    double n = static_cast<double>(nest.dims[d].extent);
    // Checked: 2^40 x 2^40 tiles (two --shape-hint maxima) wrapped to 0
    // waves and a NaN estimate. Saturated, the units are all busy anyway.
    int64_t ext = nest.dims[d].extent, tile = s.tile[pu][d];
    if (!nest.dims[d].reduction)
      par = ir::checkedMul(par, ext / tile + (ext % tile != 0)).value_or(std::numeric_limits<int64_t>::max());
    for (size_t l : {pu, reg}) padding *= std::ceil(n / s.tile[l][d]) * s.tile[l][d] / n;
  }
  e.parallelTiles = par;
  int64_t waves = par / hw.units + (par % hw.units != 0);
  double busyUnits = static_cast<double>(par) / waves; // average units busy per wave
  // Independent accumulators in the register tile hide FMA latency: 8
  // vectors on a CPU (2 pipes x 4 cycles), 8 outputs per GPU thread.
  double outputs = 1;
  for (size_t d = 0; d < nest.dims.size(); ++d)
    if (!nest.dims[d].reduction) outputs *= static_cast<double>(s.tile[reg][d]);
  double eff = 1;
  int vd = nest.vectorDim();
  if (hw.family != ir::TargetFamily::Cuda && hw.vectorBits > 0 && vd >= 0) {
    double lanes = hw.vectorBits / 8.0 / nest.elemBytes;
    double tv = static_cast<double>(s.tile[reg][vd]);
    eff *= tv / (std::ceil(tv / lanes) * lanes);
    eff *= std::min(1.0, outputs / lanes / 8);
  } else {
    eff *= std::min(1.0, outputs / 8);
  }
  double flops = nest.points() * nest.flopsPerPoint * padding;
  e.computeSeconds = flops / (hw.gflopsF32 * 1e9 * busyUnits * std::max(eff, 1e-3));
  for (size_t l = 1; l < hw.levels.size(); ++l) {
    double bw = hw.unitBandwidth(l - 1) * 1e9 * (hw.levels[l - 1].shared ? std::min<double>(busyUnits * 1.0, hw.units) : busyUnits);
    e.memorySeconds = std::max(e.memorySeconds, nest.trafficBytes(s.tile[l], space.parentTile(s, l)) / bw);
  }
  e.seconds = std::max(e.computeSeconds, e.memorySeconds);
  return e;
}

} // namespace tk::construct
