#include "frontend/PrintAST.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

namespace tk {

namespace {

std::string loc(SourceLoc l) { return fmt::format("  # {}:{}", l.line, l.col); }

// std::to_chars, not fmt: its shortest form picks fixed or exponent notation
// differently from fmt's "{}" (1e+15 vs 1000000000000000), and dumps must not change.
std::string formatFloat(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string list(const std::vector<ast::ExprPtr> &es) {
  std::string out;
  for (size_t i = 0; i < es.size(); ++i) out += (i ? ", " : "") + printASTExpr(*es[i]);
  return out;
}

std::string type(const ast::TypeRef &t) {
  return t.dtype + (t.hasShape ? "[" + list(t.shape) + "]" : "");
}

std::string idents(const std::vector<ast::Ident> &ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + ids[i].name;
  return out;
}

void printStmts(std::ostream &os, const std::vector<ast::StmtPtr> &stmts, int indent);

void printStmt(std::ostream &os, const ast::Stmt &s, int indent) {
  std::string pad(indent * 2, ' ');
  using K = ast::Stmt::Kind;
  switch (s.kind) {
  case K::Store:
    os << pad << s.target.name << (s.hasIndices ? "[" + list(s.indices) + "]" : "") << ' ' << s.accum << ' '
       << printASTExpr(*s.value) << (s.hint.name.empty() ? "" : " " + s.hint.name) << loc(s.loc) << '\n';
    return;
  case K::Prefetch:
    os << pad << s.scope.name << ' ' << s.target.name << '[' << list(s.indices) << ']' << loc(s.loc) << '\n';
    return;
  case K::MapFor: {
    os << pad << "for (" << idents(s.vars) << ") in ";
    for (size_t i = 0; i < s.atoms.size(); ++i) {
      const ast::MapAtom &a = s.atoms[i];
      os << (i ? " * " : "") << a.name << '(' << list(a.dims);
      if (!a.ranksKeyword.empty()) {
        os << ", " << a.ranksKeyword << "=[";
        for (size_t r = 0; r < a.ranks.size(); ++r) os << (r ? ", " : "") << a.ranks[r];
        os << ']';
      }
      os << ')';
    }
    if (!s.worker.name.empty()) os << " on " << s.worker.name;
    os << loc(s.loc) << '\n';
    printStmts(os, s.body, indent + 1);
    return;
  }
  case K::SeqFor:
    os << pad << "for " << s.vars[0].name << " in " << printASTExpr(*s.begin) << ".." << printASTExpr(*s.value)
       << loc(s.loc) << '\n';
    printStmts(os, s.body, indent + 1);
    return;
  case K::Local:
    os << pad << s.scope.name << ' ' << s.target.name << ": " << type(s.type) << loc(s.loc) << '\n';
    return;
  case K::Sync: os << pad << "sync" << loc(s.loc) << '\n'; return;
  case K::Intrinsic:
    os << pad << s.target.name << '(';
    for (size_t i = 0; i < s.indices.size(); ++i) os << (i ? ", " : "") << printASTExpr(*s.indices[i]);
    os << ')' << loc(s.loc) << '\n';
    return;
  case K::If:
    os << pad << "if " << printASTExpr(*s.cond) << loc(s.loc) << '\n';
    printStmts(os, s.body, indent + 1);
    if (s.hasElse) {
      os << pad << "else\n";
      printStmts(os, s.elseBody, indent + 1);
    }
    return;
  case K::Let:
    os << pad << "let " << s.name.name << " = " << printASTExpr(*s.value) << loc(s.loc) << '\n';
    return;
  case K::Require: os << pad << "require " << printASTExpr(*s.cond) << loc(s.loc) << '\n'; return;
  case K::Block:
    os << pad << "block" << loc(s.loc) << '\n';
    printStmts(os, s.body, indent + 1);
    return;
  }
}

void printStmts(std::ostream &os, const std::vector<ast::StmtPtr> &stmts, int indent) {
  for (const auto &s : stmts) printStmt(os, *s, indent);
}

} // namespace

std::string printASTExpr(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Int: return fmt::format("{}", e.intValue);
  case ast::ExprKind::Float: return formatFloat(e.floatValue);
  case ast::ExprKind::Bool: return e.intValue ? "true" : "false";
  case ast::ExprKind::Inf: return "inf";
  case ast::ExprKind::Name: return e.name;
  case ast::ExprKind::Access: {
    std::string s = e.name + "[" + list(e.args) + "]";
    return e.pad ? "(" + s + " else " + printASTExpr(*e.pad) + ")" : s;
  }
  case ast::ExprKind::Call: return e.name + "(" + list(e.args) + ")";
  case ast::ExprKind::Unary: return "(" + e.op + printASTExpr(*e.args[0]) + ")";
  case ast::ExprKind::Binary:
    return "(" + printASTExpr(*e.args[0]) + " " + e.op + " " + printASTExpr(*e.args[1]) + ")";
  case ast::ExprKind::Reduce: {
    std::string s = "(" + e.name + "(";
    for (size_t i = 0; i < e.rvars.size(); ++i) {
      s += (i ? ", " : "") + e.rvars[i].name;
      if (e.rvars[i].bound) s += " < " + printASTExpr(*e.rvars[i].bound);
    }
    return s + ") " + printASTExpr(*e.args[0]) + ")";
  }
  case ast::ExprKind::Hole: {
    if (e.candidates.empty()) return "?";
    return fmt::format("? in {{{}}}", fmt::join(e.candidates, ", "));
  }
  }
  return "?";
}

std::string printAST(const ast::File &file) {
  std::ostringstream os;
  for (const ast::Decl &d : file.decls) {
    switch (d.kind) {
    case ast::Decl::Kind::Import: os << "import \"" << d.path << '"' << loc(d.loc) << '\n'; break;
    case ast::Decl::Kind::Export: os << "export " << d.exported.name << loc(d.loc) << '\n'; break;
    case ast::Decl::Kind::Op: {
      const ast::OpDecl &op = *d.op;
      os << "op " << op.name << loc(op.loc) << '\n';
      for (const ast::Param &p : op.inputs) os << "  input " << p.name << ": " << type(p.type) << '\n';
      for (const ast::Param &p : op.outputs) os << "  output " << p.name << ": " << type(p.type) << '\n';
      for (const auto &w : op.where) os << "  where " << printASTExpr(*w) << '\n';
      printStmts(os, op.body, 1);
      break;
    }
    case ast::Decl::Kind::Kernel: {
      const ast::KernelDecl &k = *d.kernel;
      os << "kernel " << k.name << " implements " << k.op.name << " on " << k.target.name << loc(k.loc) << '\n';
      printStmts(os, k.body, 1);
      break;
    }
    }
  }
  return os.str();
}

} // namespace tk
