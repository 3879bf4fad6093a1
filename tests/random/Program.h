// One generated test program: a .tk file, the exported symbol to test and
// what the campaign expects of it.
#pragma once
#include <cstdint>
#include <string>

namespace tk::randprog {

enum class ProgramKind {
  Op,         // an op with its default schedule: must compile and match the reference
  Kernel,     // an op and a kernel with a valid task mapping: the same
  BadMapping, // a kernel whose mapping under-covers or conflicts: refused, warned or caught at run time
  NameClash,  // an op named like a libm / C library / runtime symbol: correct, or refused with an error
};

const char *kindName(ProgramKind k);

struct Program {
  uint64_t seed = 0;
  ProgramKind kind = ProgramKind::Op;
  std::string text;
  std::string symbol;  // the export tk_difftest checks
  int kernelFirstLine = 0, kernelLastLine = 0; // 1-based; 0 when there is no kernel
  std::string note;    // BadMapping: what is wrong with the mapping
};

// The program for `seed`; the same seed always gives the same text.
// `forced` selects a kind instead of drawing one.
Program generateProgram(uint64_t seed, const ProgramKind *forced = nullptr);

} // namespace tk::randprog
