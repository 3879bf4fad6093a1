// Text form of the loop IR (`--emit=loop`). A `let` or `alloc` whose scope
// runs to the end of the enclosing block is printed as a declaration line
// followed by its body at the same indentation (no braces), so lowered task
// mappings do not drift to the right; elsewhere its body gets braces.
#include "ir/LoopIR.h"
#include "ir/PrintLoopIRLines.h"
#include "ir/PrintTypes.h"
#include "ir/Simplify.h"

#include <algorithm>
#include <sstream>

namespace tk::ir {

namespace {
struct Printer {
  std::ostringstream os;
  // Where each located statement's text begins, for printLoweredFuncLines.
  std::vector<std::pair<std::streamoff, SourceLoc>> marks;

  void pad(int depth) { os << std::string(2 * depth, ' '); }

  void body(const LStmtPtr &s, int depth) {
    if (!s) return;
    if (s->kind != LStmt::Kind::Block) return stmt(s, depth, true);
    for (size_t i = 0; i < s->stmts.size(); ++i) stmt(s->stmts[i], depth, i + 1 == s->stmts.size());
  }

  void braced(const LStmtPtr &s, int depth) {
    os << " {\n";
    body(s, depth + 1);
    pad(depth);
    os << "}\n";
  }

  // A scoped declaration: flattened when it is the last statement.
  void scoped(const LStmtPtr &s, int depth, bool last) {
    if (last) {
      os << ";\n";
      body(s->body, depth);
    } else {
      braced(s->body, depth);
    }
  }

  void stmt(const LStmtPtr &s, int depth, bool last) {
    if (!s) return;
    if (s->loc.valid()) marks.emplace_back(os.tellp(), s->loc);
    pad(depth);
    switch (s->kind) {
    case LStmt::Kind::Block:
      os << "{\n";
      body(s, depth + 1);
      pad(depth);
      os << "}\n";
      return;
    case LStmt::Kind::For: {
      switch (s->forKind) {
      case ForKind::Serial: break;
      case ForKind::Parallel: os << "parallel "; break;
      case ForKind::Vectorized: os << "vectorized "; break;
      case ForKind::Unrolled: os << "unrolled "; break;
      }
      os << "for " << s->var << " in " << printExpr(s->min) << ".."
         << printExpr(simplify(binary(BinOp::Add, s->min, s->extent)));
      if (s->worker) os << " on " << workerKindName(*s->worker);
      braced(s->body, depth);
      return;
    }
    case LStmt::Kind::Store:
      os << printAccess(*s->tensor, s->indices) << " = " << printExpr(s->value);
      if (s->pred) os << " when " << printExpr(s->pred);
      os << (s->stream ? " stream;\n" : ";\n");
      return;
    case LStmt::Kind::Alloc:
      os << "alloc " << scopeName(s->tensor->scope) << ' ' << s->tensor->name << ": "
         << printTensorType(*s->tensor);
      scoped(s, depth, last);
      return;
    case LStmt::Kind::Let:
      os << "let " << s->var << " = " << printExpr(s->value);
      scoped(s, depth, last);
      return;
    case LStmt::Kind::If:
      os << "if (" << printExpr(s->cond) << ')';
      if (!s->elseS) return braced(s->thenS, depth);
      os << " {\n";
      body(s->thenS, depth + 1);
      pad(depth);
      os << "} else";
      braced(s->elseS, depth);
      return;
    case LStmt::Kind::Check:
      os << "check " << printExpr(s->cond) << " or return " << s->errorCode << ";";
      if (!s->message.empty()) os << "  // " << s->message;
      os << '\n';
      return;
    case LStmt::Kind::Barrier:
      os << "barrier;\n";
      return;
    case LStmt::Kind::Intrinsic:
      os << gpuIntrinsicName(s->intrinsic) << '(';
      for (size_t i = 0; i < s->operands.size(); ++i) os << (i ? ", " : "") << printExpr(s->operands[i]);
      os << ')';
      if (s->pred) os << " when " << printExpr(s->pred);
      os << ";\n";
      return;
    case LStmt::Kind::Prefetch:
      os << "prefetch " << printAccess(*s->tensor, s->indices) << ";\n";
      return;
    case LStmt::Kind::Dma: {
      // dma_get A[i, k0] box [1, 64] -> A.ldm;  dma_put C.ldm -> C[i, j0] box [1, 64];
      std::string box = printAccess(*s->tensor, s->indices) + " box [";
      for (size_t i = 0; i < s->operands.size(); ++i) box += (i ? ", " : "") + printExpr(s->operands[i]);
      box += "]";
      std::string buf = s->buffer->name + (s->value ? "[" + printExpr(s->value) + "..]" : "");
      std::string flags = std::string(s->broadcast ? (s->rowBroadcast ? " broadcast_row" : " broadcast") : "") + (s->async ? " async" : "");
      if (s->put) os << "dma_put" << flags << " " << buf << " -> " << box << ";\n";
      else os << "dma_get" << flags << " " << box << " -> " << buf << ";\n";
      return;
    }
    case LStmt::Kind::DmaWait: os << "dma_wait " << s->buffer->name << ";\n"; return;
    }
  }
};

void print(const LoweredFunc &f, Printer &p) {
  p.os << "func " << f.name << '(';
  bool first = true;
  auto sep = [&] {
    if (!first) p.os << ", ";
    first = false;
  };
  if (f.op) {
    for (const Param &prm : f.op->inputs) {
      sep();
      p.os << prm.name << ": "
           << (prm.isScalar() ? std::string(scalarTypeName(prm.type)) : printTensorType(*prm.tensor));
    }
    for (const TensorPtr &t : f.op->outputs) {
      sep();
      p.os << t->name << ": out " << printTensorType(*t);
    }
    for (const std::string &s : f.op->symbols) {
      sep();
      p.os << s << ": i64";
    }
  }
  p.os << ") on " << targetFamilyName(f.target) << " {\n";
  p.body(f.body, 1);
  p.os << "}\n";
}
} // namespace

std::string printLoweredFunc(const LoweredFunc &f) {
  Printer p;
  print(f, p);
  return p.os.str();
}

std::string printLoweredFuncLines(const LoweredFunc &f, std::vector<SourceLoc> *lineLocs) {
  Printer p;
  print(f, p);
  std::string text = p.os.str();
  lineLocs->assign(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1, SourceLoc{});
  size_t line = 0;
  std::streamoff at = 0;
  for (const auto &[offset, loc] : p.marks) {
    for (; at < offset; ++at)
      if (text[static_cast<size_t>(at)] == '\n') ++line;
    if (!(*lineLocs)[line].valid()) (*lineLocs)[line] = loc;
  }
  return text;
}

} // namespace tk::ir
