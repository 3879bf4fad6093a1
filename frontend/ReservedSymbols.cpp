#include "frontend/ReservedSymbols.h"

#include <set>
#include <string_view>

namespace tk::sema {

namespace {

// The C math library, each in its double, float (`f`) and long double
// (`l`) form. Generated code calls the float forms (expf, tanhf, erff, ...)
// and LLVM may turn intrinsics into any of them.
constexpr std::string_view kMath[] = {
    "acos", "acosh", "asin",  "asinh",  "atan",   "atan2",     "atanh",     "cbrt",      "ceil",   "copysign",
    "cos",  "cosh",  "erf",   "erfc",   "exp",    "exp10",     "exp2",      "expm1",     "fabs",   "fdim",
    "floor", "fma",  "fmax",  "fmin",   "fmod",   "frexp",     "hypot",     "ilogb",     "ldexp",  "lgamma",
    "llrint", "llround", "log", "log10", "log1p", "log2",      "logb",      "lrint",     "lround", "modf",
    "nan",  "nearbyint", "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round", "scalbln",
    "scalbn", "sin", "sincos", "sinh",  "sqrt",   "tan",       "tanh",      "tgamma",    "trunc",
};

// C library functions the runtime or generated code calls, and common ones
// any program linking a kernel object may call: defining them would
// interpose them for the whole program.
constexpr std::string_view kLibc[] = {
    "abort",   "abs",     "aligned_alloc", "atexit",  "atoi",    "atol",    "bsearch", "calloc",  "clock",
    "clock_gettime", "exit", "fclose", "fopen",  "fprintf", "fputs",   "fread",   "free",    "fwrite",
    "getenv",  "labs",    "malloc",  "memchr",  "memcmp",  "memcpy",  "memmove", "memset",  "posix_memalign",
    "printf",  "putchar", "puts",    "qsort",   "rand",    "realloc", "snprintf", "sprintf", "srand",
    "strcmp",  "strcpy",  "strlen",  "strncmp", "strtod",  "strtof",  "strtol",  "sysconf", "time",
    "write",   "read",    "open",    "close",   "main",
};

const std::set<std::string_view> &reserved() {
  static const std::set<std::string_view> names = [] {
    std::set<std::string_view> s;
    static std::set<std::string> suffixed; // storage for the f/l forms
    for (std::string_view m : kMath) {
      s.insert(m);
      for (const char *suffix : {"f", "l"}) s.insert(*suffixed.insert(std::string(m) + suffix).first);
    }
    for (std::string_view c : kLibc) s.insert(c);
    return s;
  }();
  return names;
}

bool startsWith(const std::string &s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

} // namespace

bool isReservedSymbol(const std::string &symbol, std::string *why) {
  if (reserved().count(symbol)) {
    *why = "it is the name of a C library function (a kernel object must not define it: calls to '" + symbol +
           "', including the generated code's own, would bind to the op)";
    return true;
  }
  for (std::string_view p : {"tkrt_", "pthread_", "sched_"}) {
    if (startsWith(symbol, p)) {
      *why = "names starting with '" + std::string(p) + "' belong to the runtime and the libraries it uses";
      return true;
    }
  }
  if (startsWith(symbol, "__") || (symbol.size() > 1 && symbol[0] == '_' && symbol[1] >= 'A' && symbol[1] <= 'Z')) {
    *why = "C reserves names starting with '__' or '_' and a capital letter for the implementation";
    return true;
  }
  return false;
}

} // namespace tk::sema
