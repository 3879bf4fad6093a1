#include "scheduler/looptune/LowerTunedNest.h"

#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "ir/VerifyLoopIR.h"
#include "scheduler/PredicateAccesses.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

namespace tk::looptune {
namespace {

using ir::Expr;
using ir::LStmtPtr;

LStmtPtr forLoop(const std::string &var, Expr extent, LStmtPtr body, bool parallel, SourceLoc loc) {
  LStmtPtr s = ir::lFor(var, ir::intImm(0), ir::simplify(extent), std::move(body), loc,
                        parallel ? ir::ForKind::Parallel : ir::ForKind::Serial);
  if (parallel) s->worker = ir::WorkerKind::Cores;
  return s;
}

LStmtPtr store(const ir::TensorPtr &t, std::vector<Expr> idx, Expr value, SourceLoc loc) {
  auto s = std::make_shared<ir::LStmt>();
  s->kind = ir::LStmt::Kind::Store;
  s->loc = loc;
  s->tensor = t;
  s->indices = std::move(idx);
  s->value = std::move(value);
  return s;
}

Expr loopVar(const std::string &name) { return ir::var(name, ir::VarKind::Loop); }

// Loop variable names: a variable's innermost loop keeps its name, outer
// ones get `_s<step>`; names that clash with the op's symbols get `_`.
std::vector<std::string> loopNames(const TuneNest &n) {
  std::set<std::string> taken(n.op->symbols.begin(), n.op->symbols.end());
  for (const NestVar &v : n.vars) taken.insert(v.name);
  std::vector<std::string> names;
  for (const NestLoop &l : n.loops) {
    const std::string &base = n.vars[l.var].name;
    if (l.step == 1) {
      names.push_back(base);
      continue;
    }
    std::string s = fmt::format("{}_s{}", base, l.step);
    while (taken.count(s)) s += "_";
    taken.insert(s);
    names.push_back(s);
  }
  return names;
}

LStmtPtr initNest(const TuneNest &n, const ir::Assign &a) {
  std::vector<Expr> idx;
  for (const NestVar &v : n.vars)
    if (!v.reduction) idx.push_back(loopVar(v.name));
  LStmtPtr s = store(a.target, idx, ir::reductionIdentity(a.value->reduceOp, a.target->dtype), a.loc);
  for (int i = static_cast<int>(idx.size()) - 1; i >= 0; --i)
    s = forLoop(n.vars[i].name, ir::intImm(n.vars[i].extent), s, i == 0, a.loc);
  return s;
}

} // namespace

ir::LoweredFunc lowerTunedNest(const TuneNest &n, const std::string &symbol) {
  const ir::Assign &a = n.op->body[0];
  std::vector<std::string> names = loopNames(n);
  // Per variable: its value so far (sum of loop variables times steps) and
  // the range the next inner loop over it covers (constant or expression).
  std::vector<Expr> value(n.vars.size(), ir::intImm(0));
  std::vector<Expr> range(n.vars.size());
  for (size_t v = 0; v < n.vars.size(); ++v) range[v] = ir::intImm(n.vars[v].extent);
  std::vector<Expr> extents;
  for (size_t l = 0; l < n.loops.size(); ++l) {
    const NestLoop &loop = n.loops[l];
    Expr r = ir::simplify(range[loop.var]);
    Expr step = ir::intImm(loop.step);
    extents.push_back(ir::ceilDiv(r, step));
    Expr t = loopVar(names[l]);
    value[loop.var] = ir::add(value[loop.var], ir::mul(t, step));
    bool divides = r->kind == ir::ExprKind::IntImm && r->intValue % loop.step == 0;
    range[loop.var] = divides ? step : ir::binary(ir::BinOp::Min, step, ir::sub(r, ir::mul(t, step)));
  }
  std::vector<std::pair<std::string, Expr>> subst;
  for (size_t v = 0; v < n.vars.size(); ++v) subst.push_back({n.vars[v].name, ir::simplify(value[v])});
  std::vector<Expr> idx;
  for (size_t v = 0; v < n.vars.size(); ++v)
    if (!n.vars[v].reduction) idx.push_back(subst[v].second);
  bool reduction = a.value->kind == ir::ExprKind::Reduce;
  Expr body = ir::substitute(reduction ? a.value->args[0] : a.value, subst);
  if (reduction) body = ir::reductionCombine(a.value->reduceOp, ir::load(a.target, idx), body);
  LStmtPtr s = store(a.target, idx, body, a.loc);
  for (int l = static_cast<int>(n.loops.size()) - 1; l >= 0; --l)
    s = forLoop(names[l], extents[l], s, l == 0 && !n.vars[n.loops[0].var].reduction, a.loc);
  std::vector<LStmtPtr> stmts;
  if (reduction) stmts.push_back(initNest(n, a));
  stmts.push_back(s);
  ir::LoweredFunc f;
  f.name = symbol;
  f.op = n.op;
  f.target = ir::TargetFamily::Cpu;
  f.body = ir::lBlock(std::move(stmts), n.op->loc);
  f.loc = n.op->loc;
  f = predicateAccesses(f);
  ir::verifyLoopIR(f, true);
  return f;
}

} // namespace tk::looptune
