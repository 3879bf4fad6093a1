#include "tests/random/Program.h"

#include "tests/random/KernelGen.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::randprog {

const char *kindName(ProgramKind k) {
  switch (k) {
  case ProgramKind::Op: return "op";
  case ProgramKind::Kernel: return "kernel";
  case ProgramKind::BadMapping: return "bad-mapping";
  case ProgramKind::NameClash: return "name-clash";
  }
  return "?";
}

namespace {

// Symbols an exported function must not shadow: libm functions tkc's code
// calls (docs/abi.md), C library functions LLVM and the runtime call, and
// the runtime's own entry points.
const std::vector<std::string> &clashingNames() {
  static const std::vector<std::string> names = {"tanhf", "expf",   "logf",   "sqrtf",  "erff",  "powf",
                                                 "tanh",  "exp",    "erf",    "log",    "sqrt",  "pow",
                                                 "memset", "memcpy", "malloc", "free",  "tkrt_parallel_for", "tkrt_alloc"};
  return names;
}

int countLines(const std::string &s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

} // namespace

Program generateProgram(uint64_t seed, const ProgramKind *forced) {
  Rng rng(seed);
  Program p;
  p.seed = seed;
  static const std::vector<ProgramKind> kinds = {ProgramKind::Op, ProgramKind::Kernel, ProgramKind::BadMapping,
                                                 ProgramKind::NameClash};
  p.kind = forced ? *forced : kinds[rng.weighted({50, 25, 18, 7})];
  std::string opName = p.kind == ProgramKind::NameClash ? rng.pick(clashingNames()) : fmt::format("rp{}", seed);
  bool withKernel = p.kind == ProgramKind::Kernel || p.kind == ProgramKind::BadMapping;
  OpOptions oo;
  oo.kernelMode = withKernel;
  GeneratedOp op = generateOp(rng, opName, oo);
  std::string header = fmt::format("// tk_randprog --seed {} ({})\n", seed, kindName(p.kind));
  p.text = header + op.text;
  p.symbol = opName;
  if (withKernel) {
    static const std::vector<Flaw> flaws = {Flaw::Shrink,         Flaw::Half,         Flaw::FloorTiles, Flaw::HalfIndex,
                                            Flaw::EvenIndex,      Flaw::ReverseStore, Flaw::NegativeRepeat,
                                            Flaw::OverlapTiles,   Flaw::IdleWorker,   Flaw::Shift};
    Flaw flaw = p.kind == ProgramKind::BadMapping ? rng.pick(flaws) : Flaw::None;
    GeneratedKernel k = generateKernel(rng, op, "k_" + opName, flaw);
    if (k.flaw == Flaw::None) p.kind = ProgramKind::Kernel; // no output with a symbolic extent to get wrong
    else p.note = std::string(flawName(k.flaw)) + " (output " + k.flawedOutput + ")";
    p.text = fmt::format("// tk_randprog --seed {} ({})\n{}\n", seed, kindName(p.kind), op.text);
    p.kernelFirstLine = countLines(p.text) + 1;
    p.text += k.text;
    p.kernelLastLine = countLines(p.text);
    p.symbol = "k_" + opName;
  }
  return p;
}

} // namespace tk::randprog
