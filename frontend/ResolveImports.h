// ResolveImports: parses the main file and, transitively, every file it
// imports, each once.
#pragma once
#include "frontend/AST.h"
#include "frontend/Frontend.h"

#include <memory>
#include <vector>

namespace tk {

// Takes: the main file, already added to `sm`. An `import "p";` is looked
// up relative to the importing file's directory, then in each of
// opts.includeDirs, then in opts.stdlibDir; the first regular file found
// wins. A file reached twice (cycles included) is read once. Appends the
// path of each imported file to `dependencies` (when non-null) in the order
// read. Returns the ASTs, main file first, or an empty vector after an
// error (syntax error anywhere, missing or unreadable import).
std::vector<std::unique_ptr<ast::File>> loadProgram(int mainFile, const FrontendOptions &opts, SourceManager &sm,
                                                    DiagEngine &diags, std::vector<std::string> *dependencies);

// Reads a whole file; false when it is not a readable regular file, would
// block, or holds more than 64 MiB.
bool readSourceFile(const std::string &path, std::string &contents);

} // namespace tk
