#include "frontend/antlr/BuildAST.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tk {

using tkgen::TkParser;

namespace {

class Builder {
public:
  Builder(const TokenLocator &loc, DiagEngine &diags) : loc_(loc), diags_(diags) {}
  bool failed = false;

  SourceLoc at(antlr4::Token *t) const { return loc_.at(t); }
  SourceLoc at(antlr4::tree::TerminalNode *n) const { return loc_.at(n->getSymbol()); }
  SourceLoc at(antlr4::ParserRuleContext *c) const { return loc_.at(c->getStart()); }

  ast::Ident ident(antlr4::tree::TerminalNode *n) const { return {n->getText(), at(n)}; }
  ast::Ident ident(TkParser::NameContext *n) const { return {n->getText(), at(n)}; }

  int64_t intLiteral(antlr4::tree::TerminalNode *n) {
    std::string s = n->getText();
    int64_t v = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec != std::errc() || res.ptr != s.data() + s.size()) {
      diags_.error(at(n), "integer literal " + s + " does not fit in 64 bits");
      failed = true;
    }
    return v;
  }

  double floatLiteral(antlr4::tree::TerminalNode *n) {
    std::string s = n->getText();
    double v = std::strtod(s.c_str(), nullptr);
    if (std::isinf(v)) {
      diags_.error(at(n), "floating-point literal " + s + " is out of range (write inf for infinity)");
      failed = true;
    }
    return v;
  }

  ast::ExprPtr node(ast::ExprKind k, SourceLoc l) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = k;
    e->loc = l;
    return e;
  }

  std::vector<ast::ExprPtr> exprs(const std::vector<TkParser::ExprContext *> &cs) {
    std::vector<ast::ExprPtr> out;
    for (auto *c : cs) out.push_back(expr(c));
    return out;
  }

  ast::ExprPtr expr(TkParser::ExprContext *c) {
    if (auto *p = dynamic_cast<TkParser::PrimaryExprContext *>(c)) return primary(p->primary());
    if (auto *u = dynamic_cast<TkParser::UnaryExprContext *>(c)) {
      auto e = node(ast::ExprKind::Unary, at(u->op));
      e->op = u->op->getText();
      e->args.push_back(expr(u->expr()));
      return e;
    }
    if (auto *b = dynamic_cast<TkParser::BinaryExprContext *>(c)) {
      auto e = node(ast::ExprKind::Binary, at(b->op));
      e->op = b->op->getText();
      e->args.push_back(expr(b->expr(0)));
      e->args.push_back(expr(b->expr(1)));
      return e;
    }
    auto *r = dynamic_cast<TkParser::ReduceExprContext *>(c);
    if (!r) throw InternalError("BuildAST: unknown expression alternative");
    auto e = node(ast::ExprKind::Reduce, at(r->reducer));
    e->name = r->reducer->getText();
    for (auto *v : r->reduceVar())
      e->rvars.push_back({v->name()->getText(), v->expr() ? expr(v->expr()) : nullptr, at(v->name())});
    e->args.push_back(expr(r->expr()));
    return e;
  }

  ast::ExprPtr primary(TkParser::PrimaryContext *c) {
    if (auto *i = dynamic_cast<TkParser::IntLitContext *>(c)) {
      auto e = node(ast::ExprKind::Int, at(c));
      e->intValue = intLiteral(i->INT());
      return e;
    }
    if (auto *f = dynamic_cast<TkParser::FloatLitContext *>(c)) {
      auto e = node(ast::ExprKind::Float, at(c));
      e->floatValue = floatLiteral(f->FLOAT());
      return e;
    }
    if (auto *b = dynamic_cast<TkParser::BoolLitContext *>(c)) {
      auto e = node(ast::ExprKind::Bool, at(c));
      e->intValue = b->TRUE() != nullptr;
      return e;
    }
    if (dynamic_cast<TkParser::InfLitContext *>(c)) return node(ast::ExprKind::Inf, at(c));
    if (auto *h = dynamic_cast<TkParser::HoleExprContext *>(c)) {
      auto e = node(ast::ExprKind::Hole, at(c));
      for (auto *n : h->INT()) e->candidates.push_back(intLiteral(n));
      return e;
    }
    if (auto *call = dynamic_cast<TkParser::CallExprContext *>(c)) {
      auto e = node(ast::ExprKind::Call, at(c));
      e->name = call->callee->getText();
      e->args = exprs(call->expr());
      return e;
    }
    if (auto *a = dynamic_cast<TkParser::AccessExprContext *>(c)) {
      auto e = node(ast::ExprKind::Access, at(c));
      e->name = a->name()->getText();
      e->args = exprs(a->expr());
      if (a->padValue()) e->pad = padValue(a->padValue());
      return e;
    }
    if (auto *n = dynamic_cast<TkParser::NameExprContext *>(c)) {
      auto e = node(ast::ExprKind::Name, at(c));
      e->name = n->name()->getText();
      return e;
    }
    auto *p = dynamic_cast<TkParser::ParenExprContext *>(c);
    if (!p) throw InternalError("BuildAST: unknown primary alternative");
    ast::ExprPtr inner = expr(p->expr());
    inner->parenthesized = true;
    return inner;
  }

  ast::ExprPtr padValue(TkParser::PadValueContext *c) {
    ast::ExprPtr v;
    if (c->expr()) {
      v = expr(c->expr());
    } else if (c->INT()) {
      v = node(ast::ExprKind::Int, at(c->INT()));
      v->intValue = intLiteral(c->INT());
    } else if (c->FLOAT()) {
      v = node(ast::ExprKind::Float, at(c->FLOAT()));
      v->floatValue = floatLiteral(c->FLOAT());
    } else if (c->INF()) {
      v = node(ast::ExprKind::Inf, at(c->INF()));
    } else if (c->TRUE() || c->FALSE()) {
      v = node(ast::ExprKind::Bool, at(c));
      v->intValue = c->TRUE() != nullptr;
    } else {
      v = node(ast::ExprKind::Name, at(c->name()));
      v->name = c->name()->getText();
    }
    if (!c->neg) return v;
    auto e = node(ast::ExprKind::Unary, at(c->neg));
    e->op = "-";
    e->args.push_back(std::move(v));
    return e;
  }

  ast::TypeRef typeRef(TkParser::TypeRefContext *c) {
    ast::TypeRef t;
    t.dtype = c->ID()->getText();
    t.loc = at(c);
    t.hasShape = c->shape != nullptr;
    t.shape = exprs(c->expr());
    return t;
  }

  ast::Param param(TkParser::ParamContext *c) { return {c->name()->getText(), typeRef(c->typeRef()), at(c)}; }

  std::vector<ast::StmtPtr> block(TkParser::BlockContext *c) {
    std::vector<ast::StmtPtr> out;
    for (auto *s : c->stmt()) out.push_back(stmt(s));
    return out;
  }

  ast::StmtPtr newStmt(ast::Stmt::Kind k, SourceLoc l) {
    auto s = std::make_unique<ast::Stmt>();
    s->kind = k;
    s->loc = l;
    return s;
  }

  ast::StmtPtr ifStmt(TkParser::IfStmtContext *c) {
    auto s = newStmt(ast::Stmt::Kind::If, at(c));
    s->cond = expr(c->expr());
    s->body = block(c->block(0));
    if (c->ELSE()) {
      s->hasElse = true;
      if (c->ifStmt())
        s->elseBody.push_back(ifStmt(c->ifStmt()));
      else
        s->elseBody = block(c->block(1));
    }
    return s;
  }

  ast::MapAtom mapAtom(TkParser::MapAtomContext *c) {
    ast::MapAtom a;
    a.name = c->name(0)->getText();
    a.loc = at(c);
    a.dims = exprs(c->expr());
    if (c->ASSIGN()) {
      a.ranksKeyword = c->name(1)->getText();
      a.ranksLoc = at(c->name(1));
      for (auto *n : c->INT()) a.ranks.push_back(intLiteral(n));
    }
    return a;
  }

  ast::StmtPtr stmt(TkParser::StmtContext *c) {
    using K = ast::Stmt::Kind;
    if (auto *s = dynamic_cast<TkParser::StoreStmtContext *>(c)) {
      auto st = newStmt(K::Store, at(c));
      st->target = ident(s->name(0));
      st->hasIndices = s->idx != nullptr;
      auto es = s->expr();
      for (size_t i = 0; i + 1 < es.size(); ++i) st->indices.push_back(expr(es[i]));
      st->accum = s->assignOp()->getText();
      st->value = expr(es.back());
      if (s->hint) st->hint = ident(s->hint);
      return st;
    }
    if (auto *p = dynamic_cast<TkParser::PrefetchStmtContext *>(c)) {
      auto st = newStmt(K::Prefetch, at(c));
      st->scope = ident(p->name(0));
      st->target = ident(p->name(1));
      for (auto *e : p->expr()) st->indices.push_back(expr(e));
      return st;
    }
    if (auto *m = dynamic_cast<TkParser::MapForStmtContext *>(c)) {
      auto st = newStmt(K::MapFor, at(c));
      for (auto *v : m->loopVars()->name()) st->vars.push_back(ident(v));
      st->parenVars = m->loopVars()->LPAREN() != nullptr;
      for (auto *a : m->mapping()->mapAtom()) st->atoms.push_back(mapAtom(a));
      if (m->name()) st->worker = ident(m->name());
      st->body = block(m->block());
      return st;
    }
    if (auto *f = dynamic_cast<TkParser::SeqForStmtContext *>(c)) {
      auto st = newStmt(K::SeqFor, at(c));
      st->vars.push_back(ident(f->name()));
      st->begin = expr(f->expr(0));
      st->value = expr(f->expr(1));
      st->body = block(f->block());
      return st;
    }
    if (auto *l = dynamic_cast<TkParser::LocalStmtContext *>(c)) {
      auto st = newStmt(K::Local, at(c));
      st->scope = ident(l->name(0));
      st->target = ident(l->name(1));
      st->type = typeRef(l->typeRef());
      return st;
    }
    if (dynamic_cast<TkParser::SyncStmtContext *>(c)) return newStmt(K::Sync, at(c));
    if (auto *n = dynamic_cast<TkParser::IntrinsicStmtContext *>(c)) {
      auto st = newStmt(K::Intrinsic, at(c));
      st->target = ident(n->name());
      for (auto *e : n->expr()) st->indices.push_back(expr(e));
      return st;
    }
    if (auto *i = dynamic_cast<TkParser::IfStmtAltContext *>(c)) return ifStmt(i->ifStmt());
    if (auto *l = dynamic_cast<TkParser::LetStmtContext *>(c)) {
      auto st = newStmt(K::Let, at(c));
      st->name = ident(l->name());
      st->value = expr(l->expr());
      return st;
    }
    if (auto *r = dynamic_cast<TkParser::RequireStmtContext *>(c)) {
      auto st = newStmt(K::Require, at(c));
      st->cond = expr(r->expr());
      return st;
    }
    auto *b = dynamic_cast<TkParser::BlockStmtContext *>(c);
    if (!b) throw InternalError("BuildAST: unknown statement alternative");
    auto st = newStmt(K::Block, at(c));
    st->body = block(b->block());
    return st;
  }

  ast::Decl decl(TkParser::DeclContext *c) {
    ast::Decl d;
    d.loc = at(c);
    if (auto *i = c->importDecl()) {
      d.kind = ast::Decl::Kind::Import;
      std::string s = i->STRING()->getText();
      d.path = s.substr(1, s.size() - 2);
      d.exported = {d.path, at(i->STRING())};
    } else if (auto *e = c->exportDecl()) {
      d.kind = ast::Decl::Kind::Export;
      d.exported = ident(e->name());
    } else if (auto *o = c->opDecl()) {
      d.kind = ast::Decl::Kind::Op;
      d.op = std::make_unique<ast::OpDecl>();
      d.op->name = o->name()->getText();
      d.op->loc = d.loc;
      d.op->nameLoc = at(o->name());
      for (auto *p : o->param()) d.op->inputs.push_back(param(p));
      for (auto *p : o->outputs()->param()) d.op->outputs.push_back(param(p));
      d.op->tupleOutputs = o->outputs()->LPAREN() != nullptr;
      if (o->whereClause()) d.op->where = exprs(o->whereClause()->expr());
      d.op->body = block(o->block());
    } else {
      auto *k = c->kernelDecl();
      d.kind = ast::Decl::Kind::Kernel;
      d.kernel = std::make_unique<ast::KernelDecl>();
      d.kernel->name = k->name(0)->getText();
      d.kernel->loc = d.loc;
      d.kernel->nameLoc = at(k->name(0));
      d.kernel->op = ident(k->name(1));
      d.kernel->target = ident(k->name(2));
      d.kernel->body = block(k->block());
    }
    return d;
  }

private:
  const TokenLocator &loc_;
  DiagEngine &diags_;
};

} // namespace

bool appendDecl(TkParser::DeclContext *tree, const TokenLocator &loc, DiagEngine &diags, ast::File &file) {
  Builder b(loc, diags);
  file.decls.push_back(b.decl(tree));
  return !b.failed;
}

} // namespace tk
