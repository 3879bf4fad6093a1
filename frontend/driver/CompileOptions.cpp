#include "frontend/driver/CompileOptions.h"

namespace tk::driver {

FrontendOptions frontendOptions(const DriverOptions &o, const std::string &stdlib, ir::TargetFamily family) {
  FrontendOptions fo;
  fo.includeDirs = o.includeDirs;
  fo.stdlibDir = stdlib;
  fo.target = family;
  return fo;
}

PipelineOptions pipelineOptions(const DriverOptions &o, const TargetDesc &target) {
  PipelineOptions po;
  po.target = target;
  po.constructContractions = o.constructContractions;
  po.swtvmLdmSizing = o.swtvmLdmSizing;
  po.sunwayFixedBuffers = o.sunwayFixedBuffers;
  po.sunwayNaturalOrder = o.sunwayNaturalOrder;
  po.sunwayDoubleBuffer = o.sunwayDoubleBuffer;
  po.sunwayBroadcast = o.sunwayBroadcast;
  po.checkMappings = o.checkMappings;
  return po;
}

} // namespace tk::driver
