// The backend registry (backends/Backend.h): every registered backend is
// found by its family, resolves and claims each of its target names, and
// writes the outputs asked for, in order, with their file-name suffixes.
#include <doctest/doctest.h>

#include "backends/Backend.h"

using namespace tk::backend;
using tk::ir::TargetFamily;

TEST_CASE("backends: each registered backend resolves by family") {
  const std::vector<const Backend *> &all = registeredBackends();
  REQUIRE(all.size() >= 2);
  for (const Backend *b : all) {
    CAPTURE(b->name());
    CHECK(findBackend(b->family()) == b);
    for (const std::string &name : b->targetNames()) {
      CAPTURE(name);
      std::string err;
      std::optional<Target> t = resolveTarget(name, &err);
      REQUIRE(t);
      CHECK(b->claims(name));
      CHECK(t->name == name);
      CHECK(t->desc.family == b->family());
      CHECK(t->desc.vectorBits >= 128);
    }
    // A build writes what the backend can emit: an object first, or, for
    // Sunway, the sources and their Makefile.
    REQUIRE_FALSE(b->buildOutputs().empty());
    for (OutputKind k : b->buildOutputs()) CHECK(b->canEmit(k));
    CHECK((b->buildOutputs().front() == OutputKind::Object) == b->canEmit(OutputKind::Object));
  }
  REQUIRE(findBackend(TargetFamily::Cpu));
  CHECK(findBackend(TargetFamily::Cpu)->name() == "x86");
  REQUIRE(findBackend(TargetFamily::Cuda));
  CHECK(findBackend(TargetFamily::Cuda)->name() == "nvptx");
  REQUIRE(findBackend(TargetFamily::Sunway));
  CHECK(findBackend(TargetFamily::Sunway)->name() == "sunway");
  CHECK(allTargetNames() ==
        "host x86_64 x86_64-avx2 x86_64-avx512 x86_64-avx512vnni cuda-sm_80 cuda-sm_90 cuda-sm_90a cuda sunway sunway-pro");
  CHECK_FALSE(findBackend(TargetFamily::Sunway)->canEmit(OutputKind::Object));
  CHECK(findBackend(TargetFamily::Sunway)->canEmit(OutputKind::CpeSource));
  CHECK(findBackend(TargetFamily::Cpu)->canEmit(OutputKind::Assembly));
  CHECK_FALSE(findBackend(TargetFamily::Cpu)->canEmit(OutputKind::Ptx));
  CHECK(findBackend(TargetFamily::Cuda)->canEmit(OutputKind::Ptx));
  CHECK_FALSE(findBackend(TargetFamily::Cuda)->canEmit(OutputKind::Assembly));
}

TEST_CASE("backends: unknown target names are refused by the backend that claims them") {
  std::string err;
  CHECK_FALSE(resolveTarget("riscv", &err));
  CHECK(err.rfind("unknown target 'riscv' (expected one of: host x86_64", 0) == 0);
  CHECK_FALSE(resolveTarget("cuda-sm80", &err));
  CHECK(err.rfind("unknown CUDA target 'cuda-sm80'", 0) == 0);
  CHECK_FALSE(resolveTarget("x86_64-avx3", &err));
  CHECK(err.rfind("unknown CPU target 'x86_64-avx3'", 0) == 0);
}

TEST_CASE("backends: one emit writes every output asked for, in order") {
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  std::string err;
  std::optional<Target> cuda = resolveTarget("cuda-sm_80", &err);
  REQUIRE(cuda);
  const Backend &nvptx = *findBackend(TargetFamily::Cuda);
  // No functions: the PTX module header and a host object without exports.
  auto outs = nvptx.emit({}, *cuda, EmitOptions{2, "empty.tk"}, nvptx.buildOutputs(), diags);
  REQUIRE(outs);
  REQUIRE(outs->size() == 2);
  CHECK((*outs)[0].kind == OutputKind::Object);
  CHECK((*outs)[0].suffix == ".o");
  CHECK((*outs)[0].bytes.rfind("\x7f" "ELF", 0) == 0);
  CHECK((*outs)[1].kind == OutputKind::Ptx);
  CHECK((*outs)[1].suffix == ".ptx");
  CHECK((*outs)[1].bytes.find(".target sm_80") != std::string::npos);

  std::optional<Target> cpu = resolveTarget("x86_64", &err);
  REQUIRE(cpu);
  auto ll = findBackend(TargetFamily::Cpu)->emit({}, *cpu, EmitOptions{0, "empty.tk"},
                                                 {OutputKind::LLVMIR, OutputKind::Assembly}, diags);
  REQUIRE(ll);
  REQUIRE(ll->size() == 2);
  CHECK((*ll)[0].suffix == ".ll");
  CHECK((*ll)[0].bytes.find("source_filename = \"empty.tk\"") != std::string::npos);
  CHECK((*ll)[1].suffix == ".s");
  CHECK_FALSE(diags.hasErrors());
}
