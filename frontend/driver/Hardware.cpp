#include "frontend/driver/Hardware.h"

#include "frontend/ResolveImports.h"
#include "frontend/driver/HostHardware.h"

namespace tk::driver {

std::optional<construct::ConstructOptions> constructOptions(const DriverOptions &o, std::string_view defaultHardware,
                                                            const std::string &stdlibDir, SourceManager &sm,
                                                            DiagEngine &diags, std::ostream *trace) {
  construct::ConstructOptions c;
  for (const auto &[sym, v] : o.shapeHints) c.shapes[sym] = v;
  c.gensor.trace = trace;
  // Without --hw a CPU target is tuned for the machine compiling it, but a
  // CUDA target must not depend on the build machine's CPU: its backend
  // names a GPU description so the chosen tiles are the same everywhere.
  std::string path = o.hardware.empty() ? std::string(defaultHardware) : o.hardware;
  if (path.empty() || path == "host") {
    c.hw = detectHostHardware();
    return c;
  }
  bool isName = path.find('/') == std::string::npos && (path.size() < 3 || path.substr(path.size() - 3) != ".hw");
  if (isName) path = stdlibDir + "/targets/" + path + ".hw";
  std::string text;
  if (!readSourceFile(path, text)) {
    diags.error(SourceLoc{}, "cannot read hardware description '" + path + "'" +
                                 (isName ? " (no such target in the stdlib's targets/ directory)"
                                         : " (no such regular file, or larger than 64 MiB)"));
    return std::nullopt;
  }
  int id = sm.addFile(path, text);
  auto hw = construct::parseHardwareDesc(text, id, diags);
  if (!hw) return std::nullopt;
  c.hw = std::move(*hw);
  return c;
}

} // namespace tk::driver
