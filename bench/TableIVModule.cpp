#include "bench/TableIVModule.h"

namespace tk::bench {

std::optional<ir::Module> tableIVModule(SourceManager &sm, DiagEngine &diags) {
  FrontendOptions fo;
  fo.stdlibDir = TK_SOURCE_STDLIB_DIR;
  std::string src = "import \"std/linalg.tk\";\nimport \"std/nn.tk\";\n";
  return buildModule("bench.tk", fo, sm, diags, nullptr, &src);
}

} // namespace tk::bench
