// Text form of the mapping IR (`--emit=mapping`): the kernel header with its
// requirements and holes, then one statement per line, two-space indents.
#include "ir/MappingIR.h"
#include "ir/PrintTypes.h"

#include <algorithm>
#include <cctype>
#include <map>
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

  // Operand i of a GPU statement. In source, a fragment (every operand of
  // mma, the destination of ldmatrix) is spelt as the user writes it: the
  // register tensor indexed by all but its fragment dimension, whose index
  // sema adds (always 0).
  std::string operand(const MStmt &s, size_t i) const {
    const Expr &e = s.operands[i];
    bool fragment = s.intrinsic == GpuIntrinsic::Mma ||
                    (i == 0 && (s.intrinsic == GpuIntrinsic::LdMatrix || s.intrinsic == GpuIntrinsic::LdMatrixTrans));
    if (!source || !fragment || e->kind != ExprKind::Load || e->args.empty()) return expr(e);
    std::vector<Expr> outer(e->args.begin(), e->args.end() - 1);
    return outer.empty() ? e->tensor->name : printAccess(*e->tensor, outer);
  }

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
      for (size_t i = 0; i < s->operands.size(); ++i) os << (i ? ", " : "") << operand(*s, i);
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

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Source names never hold a '.', so an identifier followed by `.n` (digits)
// is one of the frontend's unique loop names; each becomes the first free
// `x_n`, `x__n`, ... (free: no identifier of the text spells it).
std::string spellUniqueNames(const std::string &text) {
  struct Token {
    size_t begin, end;
    bool dotted;
  };
  std::vector<Token> tokens;
  std::set<std::string> used;
  for (size_t i = 0; i < text.size();) {
    // A number's digits and exponent (`1.5`, `1e-05`) are not names.
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && (identChar(text[i]) || text[i] == '.')) ++i;
      continue;
    }
    if (!identStart(text[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < text.size() && identChar(text[i])) ++i;
    used.insert(text.substr(b, i - b));
    size_t d = i + 1;
    while (i < text.size() && text[i] == '.' && d < text.size() && std::isdigit(static_cast<unsigned char>(text[d]))) {
      while (d < text.size() && std::isdigit(static_cast<unsigned char>(text[d]))) ++d;
      i = d;
      d = i + 1;
    }
    tokens.push_back({b, i, text.find('.', b) < i});
  }
  std::map<std::string, std::string> spelt;
  std::string out;
  size_t last = 0;
  for (const Token &t : tokens) {
    if (!t.dotted) continue;
    std::string name = text.substr(t.begin, t.end - t.begin);
    std::string &to = spelt[name];
    if (to.empty()) {
      size_t dot = name.find('.');
      std::string sep = "_", stem = name.substr(0, dot), rest = name.substr(dot + 1);
      std::replace(rest.begin(), rest.end(), '.', '_');
      while (used.count(stem + sep + rest)) sep += "_";
      to = stem + sep + rest;
      used.insert(to);
    }
    out.append(text, last, t.begin - last);
    out += to;
    last = t.end;
  }
  out.append(text, last, std::string::npos);
  return out;
}

} // namespace

std::string printKernelSource(const Kernel &k, const std::string &name) {
  Printer p;
  p.source = true;
  p.os << "kernel " << name << " implements " << (k.op ? k.op->name : "?") << " on " << targetFamilyName(k.target)
       << " {\n";
  for (const Constraint &c : k.requires_) p.os << "  require " << printExpr(c.cond) << ";\n";
  p.body(k.body, 1);
  p.os << "}\n";
  return spellUniqueNames(p.os.str());
}

} // namespace tk::ir
