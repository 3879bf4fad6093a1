// Writing compiler outputs so build systems can rely on them.
#pragma once
#include <string>

namespace tk::driver {

// Writes `bytes` to `path` ("-" = stdout). When the file already holds
// exactly these bytes it is left alone, so its timestamp does not change
// and dependent build steps are not re-run. Otherwise the bytes go to a
// temporary file in the same directory that is then renamed over `path`, so
// readers never see a half-written file. A path that names a device, FIFO
// or socket (`-o /dev/null`) is opened and written in place, never renamed
// over and never read. Returns false with *error set.
bool writeOutputFile(const std::string &path, const std::string &bytes, std::string *error);

} // namespace tk::driver
