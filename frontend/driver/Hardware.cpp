#include "frontend/driver/Hardware.h"

#include "frontend/ResolveImports.h"
#include "frontend/driver/HostHardware.h"

namespace tk::driver {

std::optional<construct::ConstructOptions> constructOptions(const DriverOptions &o, std::string_view defaultHardware,
                                                            const std::string &stdlibDir, SourceManager &sm,
                                                            DiagEngine &diags, std::ostream *trace,
                                                            std::vector<std::string> *deps) {
  construct::ConstructOptions c;
  for (const auto &[sym, v] : o.shapeHints) c.shapes[sym] = v;
  c.gensor.trace = trace;
  // Without --hw only the host target is tuned for the machine compiling
  // it; a named target (x86_64-avx2, cuda) gets its backend's description
  // so the chosen tiles are the same on every build machine.
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
  if (deps) deps->push_back(path);
  int id = sm.addFile(path, text);
  auto hw = construct::parseHardwareDesc(text, id, diags);
  if (!hw) return std::nullopt;
  c.hw = std::move(*hw);
  return c;
}

} // namespace tk::driver
