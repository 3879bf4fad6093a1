// ReservedSymbols: C symbols an exported op or kernel must not define.
#pragma once
#include <string>

namespace tk::sema {

// True when `symbol` is a name the compiled object or the program it links
// into already relies on, with *why set to the reason: a C math or memory
// function the generated code or the runtime calls (an op named `tanhf`
// would bind the object's own call to itself), another C library function
// a program may use, `main`, the runtime's `tkrt_` prefix, or a name C
// reserves for the implementation (`__x`, `_X`).
bool isReservedSymbol(const std::string &symbol, std::string *why);

} // namespace tk::sema
