#include "frontend/driver/EmitKinds.h"

#include "ir/SpellReductions.h"

#include <fmt/format.h>

namespace tk::driver {

const char *defaultExtension(EmitKind k) {
  switch (k) {
  case EmitKind::LLVM: return ".ll";
  case EmitKind::Asm: return ".s";
  case EmitKind::Header: return ".h";
  case EmitKind::Obj: return ".o";
  case EmitKind::Ptx: return ".ptx";
  default: return nullptr; // IR dumps go to stdout
  }
}

bool isCodeEmit(EmitKind k) {
  return k == EmitKind::LLVM || k == EmitKind::Asm || k == EmitKind::Obj || k == EmitKind::Ptx;
}

backend::OutputKind outputKind(EmitKind k) {
  switch (k) {
  case EmitKind::LLVM: return backend::OutputKind::LLVMIR;
  case EmitKind::Asm: return backend::OutputKind::Assembly;
  case EmitKind::Ptx: return backend::OutputKind::Ptx;
  default: return backend::OutputKind::Object;
  }
}

std::string emitKindRefusal(const DriverOptions &o, const backend::Backend &be) {
  if (!isCodeEmit(o.emit) || be.canEmit(outputKind(o.emit))) return "";
  // A target whose build is a set of sources (sunway) has no single object.
  if (o.emit == EmitKind::Obj && !be.canEmit(backend::OutputKind::Object)) {
    if (!o.output.empty() && o.output.back() == '/') return "";
    return fmt::format("target '{}' writes several files (NAME.host.c, NAME.slave.c, NAME.params.h, "
                       "NAME.h and a Makefile): name a directory with -o DIR/",
                       o.target);
  }
  const char *name = o.emit == EmitKind::Asm ? "asm" : o.emit == EmitKind::Ptx ? "ptx" : "llvm";
  for (const backend::Backend *other : backend::registeredBackends()) {
    if (!other->canEmit(outputKind(o.emit))) continue;
    std::vector<std::string> names = other->targetNames();
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return fmt::format("--emit={} needs a {} target (--target={})", name, ir::targetFamilyName(other->family()), list);
  }
  return fmt::format("--emit={} is not available for any target of this build", name);
}

std::string kernelAsSource(const ir::Kernel &k) {
  return ir::printKernelSource(*ir::spellReductions(k), k.name + "_schedule");
}

} // namespace tk::driver
