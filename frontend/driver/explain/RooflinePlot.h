// The roofline of `tkc explain`: an op's arithmetic intensity placed under
// the machine's compute and memory roofs from its hardware description.
#pragma once
#include "ir/TensorIR.h"
#include "scheduler/construct/HardwareDesc.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tk::explain {

// What one call of an op computes and moves at given sizes: floating-point
// (or integer) operations of its statements, each reduction counting its
// combine, and the compulsory traffic (every input read once, every output
// written once; intermediates are assumed to stay in cache). `unknown`
// names what kept a figure from being computed (a size without a value).
struct OpWork {
  double ops = 0;
  double bytes = 0;
  std::string unknown;
  double intensity() const { return bytes > 0 ? ops / bytes : 0; }
};
OpWork opWork(const ir::Op &op, const std::map<std::string, int64_t> &values);

// The whole machine's roofs for arithmetic on `dtype`: peak rate (all units)
// and main-memory bandwidth (the slowest level of `hw`).
struct Roofs {
  double peakGops = 0;
  double bandwidthGBs = 0;
  double ridge() const { return bandwidthGBs > 0 ? peakGops / bandwidthGBs : 0; }
  double attainable(double intensity) const;
};
Roofs machineRoofs(const construct::HardwareDesc &hw, ir::ScalarType dtype);

// A log-log SVG plot of the roofs with the op at its intensity: the
// modelled rate (min of the roofs), and the measured one when given.
std::string rooflineSvg(const Roofs &roofs, const OpWork &work, std::optional<double> measuredGops);

} // namespace tk::explain
