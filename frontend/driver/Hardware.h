// Hardware: the construction optimizer's settings from the command line —
// the hardware description (`--hw`, else the host CPU), shape hints and the
// trace stream.
#pragma once
#include "frontend/driver/CommandLine.h"
#include "ir/Diagnostics.h"
#include "scheduler/construct/FillHoles.h"

#include <iosfwd>

namespace tk::driver {

// `--hw=NAME` without a '/' or a `.hw` suffix names `<stdlib>/targets/NAME.hw`;
// `host` (and no --hw) is the detected CPU. The file is added to `sm` so
// parse errors are located in it. Returns nullopt after reporting errors.
std::optional<construct::ConstructOptions> constructOptions(const DriverOptions &o, const std::string &stdlibDir,
                                                            SourceManager &sm, DiagEngine &diags,
                                                            std::ostream *trace);

} // namespace tk::driver
