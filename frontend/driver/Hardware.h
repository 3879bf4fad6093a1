// Hardware: the construction optimizer's settings from the command line —
// the hardware description (`--hw`, else the host CPU), shape hints and the
// trace stream.
#pragma once
#include "frontend/driver/CommandLine.h"
#include "ir/Diagnostics.h"
#include "scheduler/construct/FillHoles.h"

#include <iosfwd>
#include <string_view>

namespace tk::driver {

// `--hw=NAME` without a '/' or a `.hw` suffix names `<stdlib>/targets/NAME.hw`;
// `host` is the detected CPU. Without --hw, `defaultHardware` (the target's
// backend's Backend::defaultHardware()) is used the same way. The file is
// added to `sm` so parse errors are located in it, and its path to `deps`
// (when given: it changes the output, so the depfile lists it). Returns
// nullopt after reporting errors.
std::optional<construct::ConstructOptions> constructOptions(const DriverOptions &o, std::string_view defaultHardware,
                                                            const std::string &stdlibDir, SourceManager &sm,
                                                            DiagEngine &diags, std::ostream *trace,
                                                            std::vector<std::string> *deps = nullptr);

} // namespace tk::driver
