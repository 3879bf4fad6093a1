#include "frontend/driver/Dependencies.h"

#include "frontend/Frontend.h"
#include "frontend/driver/CompileOptions.h"
#include "frontend/driver/Depfile.h"
#include "frontend/driver/Hardware.h"
#include "frontend/driver/OutputFile.h"

#include <filesystem>

namespace tk::driver {

namespace fs = std::filesystem;

std::string depfileText(const DriverOptions &o, const Input &in, const std::vector<std::string> &outputs,
                        const std::vector<std::string> &deps, const std::string &stdlib) {
  std::vector<std::string> targets = o.depTargets;
  if (targets.empty())
    for (const std::string &p : outputs) targets.push_back(escapeDepfilePath(p));
  std::vector<std::string> kept;
  std::error_code ec;
  fs::path lib = stdlib.empty() ? fs::path() : fs::weakly_canonical(stdlib, ec);
  for (const std::string &d : deps) {
    if (in.isStream() && d == in.name) continue; // no file for make to look at
    if (o.depsSkipStdlib && !lib.empty()) {
      fs::path rel = fs::weakly_canonical(d, ec).lexically_relative(lib);
      if (!rel.empty() && *rel.begin() != "..") continue;
    }
    kept.push_back(d);
  }
  std::vector<std::string> phony;
  if (o.depPhony)
    for (const std::string &d : kept)
      if (d != in.name) phony.push_back(d);
  return makeDepfile(targets, kept, phony);
}

bool writeDependenciesOnly(const DriverOptions &o, const Input &in, const std::string &object,
                           const backend::Backend &be, const backend::Target &target, const std::string &stdlib,
                           SourceManager &sm, DiagEngine &diags, std::string *writeError) {
  std::vector<std::string> deps;
  std::optional<ir::Module> m =
      buildModule(in.name, frontendOptions(o, stdlib, target.desc.family), sm, diags, &deps, in.source());
  if (!m || diags.hasErrors()) return false;
  if (o.emit != EmitKind::Ast && o.emit != EmitKind::Tensor &&
      !constructOptions(o, be.defaultHardware(target), stdlib, sm, diags, nullptr, &deps))
    return false;
  if (!o.tuningRecords.empty()) deps.push_back(o.tuningRecords);
  std::string dest = !o.depfilePath.empty() ? o.depfilePath : !o.output.empty() ? o.output : "-";
  return writeOutputFile(dest, depfileText(o, in, {object}, deps, stdlib), writeError);
}

} // namespace tk::driver
