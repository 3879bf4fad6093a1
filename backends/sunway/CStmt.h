// C99 text of loop-IR statements for one side of a Sunway build: the MPE
// side (the exported function's body: checks, intermediates, spawns) and
// the CPE side (a spawned loop's body: loops, stores, LDM buffers, DMA).
// Each statement is preceded where it starts a loop by a comment naming
// the .tk line it comes from.
#pragma once
#include "backends/sunway/CExpr.h"
#include "ir/LoopIR.h"

#include <functional>
#include <map>
#include <string>

namespace tk::sunway {

enum class Side { Mpe, Cpe };

class CWriter {
public:
  // `spawn` writes (through line()) what the MPE does for a parallel loop
  // over the CPEs; `intermediate` what it does for the alloc of a global
  // buffer (its body follows).
  struct MpeHooks {
    std::function<void(CWriter &, const ir::LStmt &)> spawn;
    std::function<void(CWriter &, const ir::LStmt &)> intermediate;
  };
  CWriter(Side side, CNames &names, int depth, MpeHooks hooks = {})
      : side_(side), names_(names), depth_(depth), hooks_(std::move(hooks)) {}

  void stmt(const ir::LStmtPtr &s);
  // One line at the current depth.
  void line(const std::string &text);
  void indent(int by) { depth_ += by; }
  CNames &names() { return names_; }
  const std::string &text() const { return out_; }

private:
  void forLoop(const ir::LStmt &s);
  void store(const ir::LStmt &s);
  void alloc(const ir::LStmt &s);
  void dma(const ir::LStmt &s);
  void comment(const ir::LStmt &s);

  // The reply word and issue count of a buffer with async transfers.
  struct AsyncReply {
    std::string reply, issued;
  };

  Side side_;
  CNames &names_;
  std::map<const ir::TensorDecl *, AsyncReply> async_;
  int depth_;
  MpeHooks hooks_;
  std::string out_;
  int lastLine_ = 0;
};

} // namespace tk::sunway
