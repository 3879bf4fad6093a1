// Fuzz harness for the whole frontend: tk::buildModule (parse, imports,
// semantic checks, IR construction) on one input, diagnostics discarded.
//
//   tk_fuzz_frontend [FILE]     (stdin when FILE is absent)
//
// The input keeps its own path as the main file's name, so its relative
// imports resolve next to it (an import of itself is a self-import); without
// FILE it is named tests/fuzz/fuzz.tk (which does not exist). `std/...`
// imports resolve in the source stdlib/.
//
// Exit status: 0 when the input compiles, 1 when it gets diagnostics. An
// internal error aborts (AFL records an abort as a crash, an exit status
// not); so does any uncaught exception. Compiled with afl-g++ (classic
// afl-as instrumentation) it reads one input per process through AFL's fork
// server. afl-g++ defines __AFL_LOOP too, but its runtime lacks persistent
// mode, so that mode is used only when CMake also defines
// TK_FUZZ_PERSISTENT (compilers afl-clang-fast++, afl-g++-fast, ...).
#include "frontend/Frontend.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace {

const char *const kDefaultName = TK_FUZZ_DEFAULT_MAIN; // <source>/tests/fuzz/fuzz.tk

int runOne(const std::string &path, const std::string &text) {
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  std::ostringstream sink;
  diags.setStream(&sink);
  tk::FrontendOptions opts;
  opts.stdlibDir = TK_SOURCE_STDLIB_DIR;
  try {
    return tk::buildModule(path, opts, sm, diags, nullptr, &text) ? 0 : 1;
  } catch (const tk::InternalError &e) {
    std::cerr << "internal error: " << e.what() << '\n';
    std::abort();
  }
}

} // namespace

#if defined(TK_FUZZ_PERSISTENT) && defined(__AFL_LOOP)
__AFL_FUZZ_INIT();
int main() {
  __AFL_INIT();
  unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(10000)) {
    std::string text(reinterpret_cast<const char *>(buf), __AFL_FUZZ_TESTCASE_LEN);
    runOne(kDefaultName, text);
  }
  return 0;
}
#else
int main(int argc, char **argv) {
  std::string text;
  std::string path = kDefaultName;
  if (argc > 1) {
    path = argv[1];
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "tk_fuzz_frontend: cannot read " << path << '\n';
      return 2;
    }
    text.assign(std::istreambuf_iterator<char>(in), {});
  } else {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  }
  return runOne(path, text);
}
#endif
