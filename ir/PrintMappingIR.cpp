// Text form of the mapping IR (`--emit=mapping`): the kernel header with its
// requirements and holes, then one statement per line, two-space indents.
#include "ir/MappingIR.h"
#include "ir/PrintTypes.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace tk::ir {

static std::string_view accumSymbol(AccumOp a) {
  switch (a) {
  case AccumOp::None: return "=";
  case AccumOp::Add: return "+=";
  case AccumOp::Mul: return "*=";
  case AccumOp::Max: return "max=";
  case AccumOp::Min: return "min=";
  }
  return "=";
}

std::string_view gpuIntrinsicName(GpuIntrinsic g) {
  switch (g) {
  case GpuIntrinsic::Mma: return "mma";
  case GpuIntrinsic::LdMatrix: return "ldmatrix";
  case GpuIntrinsic::LdMatrixTrans: return "ldmatrix_trans";
  case GpuIntrinsic::CpAsync: return "cp_async";
  case GpuIntrinsic::CpAsyncCommit: return "cp_async_commit";
  case GpuIntrinsic::CpAsyncWait: return "cp_async_wait";
  case GpuIntrinsic::AtomicAdd: return "atomic_add";
  }
  return "?";
}

namespace {
struct Printer {
  std::ostringstream os;
  bool source = false; // reductions as `.tk` spells them (printKernelSource)

  // Values and conditions (indices, extents and mapping dims hold no
  // reduction, so their IR text is already source).
  std::string expr(const Expr &e) const { return source ? printExprSource(e) : printExpr(e); }

  void pad(int depth) { os << std::string(2 * depth, ' '); }

  // Statements of a body, without the braces around them.
  void body(const MStmtPtr &s, int depth) {
    if (!s) return;
    if (s->kind == MStmt::Kind::Block)
      for (const MStmtPtr &c : s->stmts) stmt(c, depth);
    else
      stmt(s, depth);
  }

  void braced(const MStmtPtr &s, int depth) {
    os << " {\n";
    body(s, depth + 1);
    pad(depth);
    os << '}';
  }

  void stmt(const MStmtPtr &s, int depth) {
    if (!s) return;
    switch (s->kind) {
    case MStmt::Kind::Block:
      pad(depth);
      os << "{\n";
      body(s, depth + 1);
      pad(depth);
      os << "}\n";
      return;
    case MStmt::Kind::MapFor:
      pad(depth);
      os << "for (";
      for (size_t i = 0; i < s->vars.size(); ++i) os << (i ? ", " : "") << s->vars[i];
      os << ") in " << printMapping(s->mapping);
      if (s->worker) os << " on " << workerKindName(*s->worker);
      braced(s->body, depth);
      os << '\n';
      return;
    case MStmt::Kind::SeqFor:
      pad(depth);
      os << "for " << s->var << " in " << printExpr(s->begin) << ".." << printExpr(s->end);
      braced(s->body, depth);
      os << '\n';
      return;
    case MStmt::Kind::Alloc:
      pad(depth);
      os << scopeName(s->tensor->scope) << ' ' << s->tensor->name << ": " << printTensorType(*s->tensor) << ";\n";
      return;
    case MStmt::Kind::Store:
      pad(depth);
      os << printAccess(*s->tensor, s->indices) << ' ' << accumSymbol(s->accum) << ' ' << expr(s->value)
         << (s->stream ? " stream;\n" : ";\n");
      return;
    case MStmt::Kind::Sync:
      pad(depth);
      os << "sync;\n";
      return;
    case MStmt::Kind::Prefetch:
      pad(depth);
      os << "prefetch " << printAccess(*s->tensor, s->indices) << ";\n";
      return;
    case MStmt::Kind::Intrinsic:
      pad(depth);
      os << gpuIntrinsicName(s->intrinsic) << '(';
      for (size_t i = 0; i < s->operands.size(); ++i) os << (i ? ", " : "") << expr(s->operands[i]);
      os << ");\n";
      return;
    case MStmt::Kind::If:
      pad(depth);
      os << "if (" << expr(s->cond) << ')';
      braced(s->thenS, depth);
      if (s->elseS) {
        os << " else";
        braced(s->elseS, depth);
      }
      os << '\n';
      return;
    }
  }
};
} // namespace

std::string printKernel(const Kernel &k) {
  Printer p;
  p.os << "kernel " << k.name << " implements " << (k.op ? k.op->name : "?") << " on "
       << targetFamilyName(k.target);
  if (k.synthesized) p.os << " (default schedule)";
  p.os << '\n';
  for (const Constraint &c : k.requires_) p.os << "  require " << printExpr(c.cond) << '\n';
  for (const Hole &h : k.holes) {
    p.os << "  hole ?" << h.id;
    if (!h.candidates.empty()) {
      p.os << " in {";
      for (size_t i = 0; i < h.candidates.size(); ++i) p.os << (i ? ", " : "") << h.candidates[i];
      p.os << '}';
    }
    if (h.value) p.os << " = " << *h.value;
    p.os << '\n';
  }
  p.os << "{\n";
  p.body(k.body, 1);
  p.os << "}\n";
  return p.os.str();
}

} // namespace tk::ir

namespace tk::ir {

std::string printKernelSource(const Kernel &k, const std::string &name) {
  Printer p;
  p.source = true;
  p.os << "kernel " << name << " implements " << (k.op ? k.op->name : "?") << " on " << targetFamilyName(k.target)
       << " {\n";
  for (const Constraint &c : k.requires_) p.os << "  require " << printExpr(c.cond) << ";\n";
  p.body(k.body, 1);
  p.os << "}\n";
  std::string text = p.os.str();
  // Source names never hold a '.', so `x.n` is one of the frontend's
  // unique loop names; it becomes the first free `x_n`, `x__n`, ...
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
  std::set<std::string> used;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), ident); it != std::sregex_iterator(); ++it)
    used.insert(it->str());
  static const std::regex dotted("([A-Za-z_][A-Za-z0-9_]*)\\.([0-9]+)");
  std::map<std::string, std::string> spelt;
  std::string out;
  auto last = text.cbegin();
  for (auto it = std::sregex_iterator(text.begin(), text.end(), dotted); it != std::sregex_iterator(); ++it) {
    const std::smatch &m = *it;
    // A float literal's digits (`1.5`) are not a name.
    if (m.position(0) > 0 && std::isdigit(static_cast<unsigned char>(text[m.position(0) - 1]))) continue;
    std::string &to = spelt[m.str()];
    if (to.empty()) {
      std::string sep = "_";
      while (used.count(m.str(1) + sep + m.str(2))) sep += "_";
      to = m.str(1) + sep + m.str(2);
      used.insert(to);
    }
    out.append(last, m[0].first);
    out += to;
    last = m[0].second;
  }
  out.append(last, text.cend());
  return out;
}

} // namespace tk::ir
