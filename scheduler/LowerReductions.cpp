#include "scheduler/LowerReductions.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"

#include <set>

namespace tk {
using namespace ir;

namespace {

struct Pending {
  TensorPtr acc;
  Expr reduce; // the Reduce node, variables already renamed
};

struct Lowerer {
  std::set<std::string> used; // every name in the function, for fresh accumulator names

  std::string fresh(const std::string &base, const std::set<std::string> &avoid) {
    std::string name = base;
    for (int i = 1; used.count(name) || avoid.count(name); ++i) name = base + "_" + std::to_string(i);
    used.insert(name);
    return name;
  }

  // Replaces every outermost Reduce in `e` by a load of a new accumulator.
  Expr extract(const Expr &e, const std::set<std::string> &scope, std::vector<Pending> &pending) {
    if (!e) return e;
    if (e->kind == ExprKind::Reduce) {
      auto red = std::make_shared<ExprNode>(*e);
      std::vector<std::pair<std::string, Expr>> renames;
      for (IndexVar &v : red->rvars) {
        if (!scope.count(v.name)) continue;
        std::string n = fresh(v.name, scope);
        renames.push_back({v.name, var(n, VarKind::Loop, ScalarType::I64, v.loc)});
        v.name = n;
      }
      red->args[0] = substitute(e->args[0], renames);
      // The frontend builds sums of f16/bf16/i8 in f32/i32 already; a
      // Reduce of a narrower type from elsewhere still accumulates wide and
      // is converted once, at the end.
      ScalarType accType = accumulatorType(e->reduceOp, e->type);
      TensorPtr acc = scratchTensor(fresh("acc", scope), accType, {}, Scope::Register, e->loc);
      pending.push_back({acc, red});
      Expr result = load(acc, {}, nullptr, nullptr, e->loc);
      return accType == e->type ? result : cast(e->type, result, e->loc);
    }
    bool changed = false;
    auto n = std::make_shared<ExprNode>(*e);
    for (Expr &a : n->args) {
      Expr x = extract(a, scope, pending);
      changed |= x != a;
      a = x;
    }
    for (Expr *p : {&n->pad, &n->pred}) {
      Expr x = extract(*p, scope, pending);
      changed |= x != *p;
      *p = x;
    }
    return changed ? n : e;
  }

  // acc = identity; for (rvars) { acc = acc op body }  (body lowered recursively)
  void compute(const Pending &p, const std::set<std::string> &scope, std::vector<LStmtPtr> &out) {
    const Expr &r = p.reduce;
    auto init = lStmt(LStmt::Kind::Store, r->loc);
    init->tensor = p.acc;
    init->value = reductionIdentity(r->reduceOp, p.acc->dtype);
    auto update = lStmt(LStmt::Kind::Store, r->loc);
    update->tensor = p.acc;
    update->value = reductionCombine(r->reduceOp, load(p.acc, {}), r->args[0]);
    std::set<std::string> inner = scope;
    for (const IndexVar &v : r->rvars) inner.insert(v.name);
    LStmtPtr body = lower(update, inner);
    for (size_t i = r->rvars.size(); i-- > 0;) body = lFor(r->rvars[i].name, intImm(0), r->rvars[i].extent, body, r->loc);
    out.push_back(init);
    out.push_back(body);
  }

  // Hoists the reductions of `s`'s own expressions in front of it.
  LStmtPtr hoist(LStmtPtr s, const std::set<std::string> &scope) {
    std::vector<Pending> pending;
    auto ex = [&](Expr &e) { e = extract(e, scope, pending); };
    for (Expr &i : s->indices) ex(i);
    ex(s->value);
    ex(s->pred);
    ex(s->cond);
    ex(s->min);
    ex(s->extent);
    if (pending.empty()) return s;
    std::vector<LStmtPtr> seq;
    for (const Pending &p : pending) compute(p, scope, seq);
    seq.push_back(s);
    LStmtPtr out = lBlock(std::move(seq), s->loc);
    for (size_t i = pending.size(); i-- > 0;) out = lAlloc(pending[i].acc, out, s->loc);
    return out;
  }

  LStmtPtr lower(const LStmtPtr &s, const std::set<std::string> &scope) {
    if (!s) return s;
    auto n = std::make_shared<LStmt>(*s);
    std::set<std::string> inner = scope;
    if (s->kind == LStmt::Kind::For || s->kind == LStmt::Kind::Let) inner.insert(s->var);
    for (LStmtPtr &c : n->stmts) c = lower(c, scope);
    n->body = lower(s->body, inner);
    n->thenS = lower(s->thenS, scope);
    n->elseS = lower(s->elseS, scope);
    return hoist(n, scope);
  }
};

} // namespace

LoweredFunc lowerReductions(const LoweredFunc &f) {
  Lowerer l;
  for (const std::string &s : f.op->symbols) l.used.insert(s);
  for (const Param &p : f.op->inputs) l.used.insert(p.name);
  for (const TensorPtr &t : f.op->outputs) l.used.insert(t->name);
  visitLStmt(f.body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::For || s.kind == LStmt::Kind::Let) l.used.insert(s.var);
    if (s.kind == LStmt::Kind::Alloc) l.used.insert(s.tensor->name);
  });
  std::set<std::string> scope(f.op->symbols.begin(), f.op->symbols.end());
  for (const Param &p : f.op->inputs)
    if (p.isScalar()) scope.insert(p.name);
  LoweredFunc out = f;
  out.body = l.lower(f.body, scope);
  return out;
}

} // namespace tk
