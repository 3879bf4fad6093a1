// The driver's dependency output (gcc's -MD/-MMD/-M/-MM/-MT/-MQ/-MP,
// docs/driver.md "Dependency files"): which files a compile depends on and
// the depfile text naming them.
#pragma once
#include "backends/Backend.h"
#include "frontend/driver/CommandLine.h"
#include "frontend/driver/InputFile.h"
#include "ir/Diagnostics.h"

#include <string>
#include <vector>

namespace tk::driver {

// The depfile text for a compile of `in` that wrote `outputs`: the -MT/-MQ
// targets, else `outputs` (escaped); every dependency but a stream input,
// less the stdlib's files for -MMD/-MM; an empty rule per dependency but
// the input for -MP.
std::string depfileText(const DriverOptions &o, const Input &in, const std::vector<std::string> &outputs,
                        const std::vector<std::string> &deps, const std::string &stdlib);

// -M / -MM: the dependencies of compiling `in` (its imports and the files
// the options read: the hardware description, tuning records), for the
// object named `object`, written to -MF, else -o, else stdout. Returns
// false after reporting an error to `diags`; `writeError` receives an
// output failure's message.
bool writeDependenciesOnly(const DriverOptions &o, const Input &in, const std::string &object,
                           const backend::Backend &be, const backend::Target &target, const std::string &stdlib,
                           SourceManager &sm, DiagEngine &diags, std::string *writeError);

} // namespace tk::driver
