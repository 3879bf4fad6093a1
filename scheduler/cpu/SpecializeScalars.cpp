#include "scheduler/cpu/SpecializeScalars.h"

#include "ir/IRRewrite.h"
#include "ir/Simplify.h"

#include <algorithm>
#include <functional>
#include <set>

namespace tk {
using namespace ir;

namespace {

bool mentionsVarOfKind(const Expr &e, VarKind kind) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && n->varKind == kind; });
  return found;
}

// Scalars `s` appearing as `s * e` (or `e * s`) with a loop variable in e,
// inside the indices of loads and stores.
std::set<std::string> scalingScalars(const LStmtPtr &body, const std::set<std::string> &scalars) {
  std::set<std::string> out;
  auto scan = [&](const Expr &index) {
    visitExpr(index, [&](const Expr &n) {
      if (n->kind != ExprKind::Binary || n->binOp != BinOp::Mul) return;
      for (int side = 0; side < 2; ++side) {
        const Expr &s = n->args[side], &other = n->args[1 - side];
        if (s->kind == ExprKind::Var && scalars.count(s->name) && mentionsVarOfKind(other, VarKind::Loop))
          out.insert(s->name);
      }
    });
  };
  auto scanLoads = [&](const Expr &e) {
    if (!e) return;
    visitExpr(e, [&](const Expr &n) {
      if (n->kind == ExprKind::Load)
        for (const Expr &i : n->args) scan(i);
    });
  };
  visitLStmt(body, [&](const LStmt &s) {
    for (const Expr &i : s.indices) scan(i);
    scanLoads(s.value);
    scanLoads(s.pred);
    scanLoads(s.cond);
  });
  return out;
}

// (scalar, value) pairs an `if` of the function already tests as
// `scalar == value` (alone or in a conjunction).
std::set<std::pair<std::string, int64_t>> testedValues(const LStmtPtr &body) {
  std::set<std::pair<std::string, int64_t>> out;
  std::function<void(const Expr &)> scan = [&](const Expr &c) {
    if (c->kind != ExprKind::Binary) return;
    if (c->binOp == BinOp::And) {
      scan(c->args[0]);
      scan(c->args[1]);
      return;
    }
    int64_t v = 0;
    if (c->binOp == BinOp::EQ && c->args[0]->kind == ExprKind::Var && isConstInt(c->args[1], &v))
      out.insert({c->args[0]->name, v});
  };
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::If) scan(s.cond);
  });
  return out;
}

// `body` with the scalars bound to constants, simplified, constant ifs folded.
LStmtPtr bindScalars(const LStmtPtr &body, const std::vector<std::pair<std::string, Expr>> &values) {
  LStmtPtr out = rewriteLStmt(body, [&](const Expr &e) { return simplify(substitute(e, values)); });
  return transformLStmt(out, [](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind != LStmt::Kind::If || (s->cond->kind != ExprKind::IntImm && s->cond->kind != ExprKind::BoolImm)) return s;
    const LStmtPtr &taken = s->cond->intValue ? s->thenS : s->elseS;
    return taken ? taken : lBlock({}, s->loc);
  });
}

} // namespace

LoweredFunc specializeScalars(const LoweredFunc &f) {
  std::set<std::string> ints;
  for (const Param &p : f.op->inputs)
    if (p.isScalar() && isInteger(p.type)) ints.insert(p.name);
  std::vector<std::string> chosen;
  std::set<std::string> scaling = scalingScalars(f.body, ints);
  for (const Param &p : f.op->inputs)
    if (scaling.count(p.name) && chosen.size() < 2) chosen.push_back(p.name);
  if (chosen.empty()) return f;

  auto scalar = [&](const std::string &n) {
    for (const Param &p : f.op->inputs)
      if (p.name == n) return var(n, VarKind::Symbol, p.type);
    return var(n, VarKind::Symbol);
  };
  // Versions, most common first: all 1, then each one at 2.
  std::vector<std::vector<int64_t>> versions{std::vector<int64_t>(chosen.size(), 1)};
  for (size_t k = 0; k < chosen.size(); ++k) {
    versions.push_back(std::vector<int64_t>(chosen.size(), 1));
    versions.back()[k] = 2;
  }
  // A version whose every value an `if` already selects (a constructor's
  // own unit-stride version) would duplicate that code: the general copy
  // keeps it.
  auto tested = testedValues(f.body);
  versions.erase(std::remove_if(versions.begin(), versions.end(),
                                [&](const std::vector<int64_t> &vals) {
                                  for (size_t k = 0; k < chosen.size(); ++k)
                                    if (!tested.count({chosen[k], vals[k]})) return false;
                                  return true;
                                }),
                 versions.end());
  LStmtPtr result = f.body;
  for (size_t v = versions.size(); v-- > 0;) {
    std::vector<std::pair<std::string, Expr>> values;
    Expr cond;
    for (size_t k = 0; k < chosen.size(); ++k) {
      Expr value = intImm(versions[v][k], scalar(chosen[k])->type);
      values.push_back({chosen[k], value});
      cond = conjoin(cond, binary(BinOp::EQ, scalar(chosen[k]), value));
    }
    result = lIf(cond, bindScalars(f.body, values), result, f.body->loc);
  }
  LoweredFunc out = f;
  out.body = result;
  return out;
}

} // namespace tk
