// Modules from .tk source text for the unit tests that go through the
// frontend: the stdlib is the source tree's; a module that does not build
// fails the test with its diagnostics.
#pragma once
#include "frontend/Frontend.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

namespace tk::unittest {

// The module of `src` (read as file `path`, for `target`). `diagnostics`,
// when given, receives every message printed (warnings included).
inline ir::Module moduleFromSource(const std::string &src, std::string *diagnostics = nullptr,
                                   const std::string &path = "t.tk", ir::TargetFamily target = ir::TargetFamily::Cpu) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream out;
  diags.setStream(&out);
  FrontendOptions fo;
  fo.stdlibDir = TK_SOURCE_STDLIB_DIR;
  fo.target = target;
  auto m = buildModule(path, fo, sm, diags, nullptr, &src);
  REQUIRE_MESSAGE(m, out.str());
  if (diagnostics) *diagnostics = out.str();
  return *m;
}

// The first op of `src`'s module.
inline ir::OpPtr firstOpFromSource(const std::string &src) {
  ir::Module m = moduleFromSource(src);
  REQUIRE(!m.ops.empty());
  return m.ops.front();
}

} // namespace tk::unittest
