#include "frontend/driver/Hardware.h"

#include <fstream>
#include <sstream>

namespace tk::driver {

std::optional<construct::ConstructOptions> constructOptions(const DriverOptions &o, const std::string &stdlibDir,
                                                            SourceManager &sm, DiagEngine &diags,
                                                            std::ostream *trace) {
  construct::ConstructOptions c;
  for (const auto &[sym, v] : o.shapeHints) c.shapes[sym] = v;
  c.gensor.trace = trace;
  if (o.hardware.empty() || o.hardware == "host") {
    c.hw = construct::detectHostHardware();
    return c;
  }
  std::string path = o.hardware;
  bool isName = path.find('/') == std::string::npos && (path.size() < 3 || path.substr(path.size() - 3) != ".hw");
  if (isName) path = stdlibDir + "/targets/" + path + ".hw";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(SourceLoc{}, "cannot read hardware description '" + path + "'" +
                                 (isName ? " (no such target in the stdlib's targets/ directory)" : ""));
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  int id = sm.addFile(path, ss.str());
  auto hw = construct::parseHardwareDesc(ss.str(), id, diags);
  if (!hw) return std::nullopt;
  c.hw = std::move(*hw);
  return c;
}

} // namespace tk::driver
