#include "scheduler/cuda/ConstructRowKernel.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"

#include <map>

namespace tk {
using namespace ir;

namespace {

bool fail(std::string *reason, std::string why) {
  if (reason) *reason = std::move(why);
  return false;
}

bool isVar(const Expr &e, const std::string &name) { return e->kind == ExprKind::Var && e->name == name; }

// The reduction of `e` (null when none) and how many it holds.
const ExprNode *findReduce(const Expr &e, int *count) {
  const ExprNode *found = nullptr;
  *count = 0;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind == ExprKind::Reduce) ++*count, found = n.get();
  });
  return found;
}

// Whether statement `s` reads only tensors written before it, each at its
// own row (and column), without `else` values.
bool readsOwnRow(const Op &op, size_t s, const std::map<const TensorDecl *, size_t> &writer, std::string *reason) {
  const Assign &a = op.body[s];
  int count = 0;
  const ExprNode *r = findReduce(a.value, &count);
  std::string row = a.vars[0].name, column = a.vars.size() == 2 ? a.vars[1].name : r ? r->rvars[0].name : "";
  std::string bad;
  visitExpr(a.value, [&](const Expr &n) {
    if (n->kind != ExprKind::Load || !bad.empty()) return;
    auto w = writer.find(n->tensor.get());
    if (w == writer.end()) return; // an input: any element
    const std::string &name = n->tensor->name;
    if (w->second >= s) bad = "statement " + std::to_string(s + 1) + " reads '" + name + "' before it is written";
    else if (n->pad) bad = "'" + name + "' is read with an else value";
    else if (!isVar(n->args[0], row)) bad = "'" + name + "' is read at another row";
    else if (n->args.size() == 2 && !isVar(n->args[1], column)) bad = "'" + name + "' is read at another column";
  });
  return bad.empty() || fail(reason, bad);
}

} // namespace

bool rowKernelApplies(const Op &op, std::string *reason) {
  if (op.body.empty()) return fail(reason, "the op has no statements");
  Expr rows, columns;
  bool reduces = false;
  std::map<const TensorDecl *, size_t> writer;
  for (size_t s = 0; s < op.body.size(); ++s) {
    const Assign &a = op.body[s];
    const std::string name = "'" + a.target->name + "'";
    if (a.target->dtype != ScalarType::F32) return fail(reason, name + " is not f32");
    if (a.vars.empty() || a.vars.size() > 2) return fail(reason, name + " has rank " + std::to_string(a.vars.size()));
    if (!rows) rows = a.vars[0].extent;
    if (!sameExpr(rows, a.vars[0].extent)) return fail(reason, name + " has other rows than the first statement");
    if (!writer.emplace(a.target.get(), s).second) return fail(reason, name + " is written twice");
    auto sameColumns = [&](const Expr &e) {
      if (!columns) columns = e;
      return sameExpr(columns, e);
    };
    int count = 0;
    const ExprNode *r = findReduce(a.value, &count);
    if (a.vars.size() == 2 && count) return fail(reason, name + " has two dimensions and a reduction");
    if (a.vars.size() == 2 && !sameColumns(a.vars[1].extent)) return fail(reason, name + " has other columns");
    if (count > 1) return fail(reason, name + " has " + std::to_string(count) + " reductions");
    if (!r) continue;
    if (r->rvars.size() != 1) return fail(reason, name + " reduces over " + std::to_string(r->rvars.size()) + " variables");
    if (r->reduceOp == ReduceOp::Prod) return fail(reason, name + " is a product");
    if (r->type != ScalarType::F32) return fail(reason, name + " reduces a value that is not f32");
    if (!sameColumns(r->rvars[0].extent)) return fail(reason, name + " reduces over other columns");
    reduces = true;
  }
  if (!reduces) return fail(reason, "no statement reduces a row");
  for (size_t s = 0; s < op.body.size(); ++s)
    if (!readsOwnRow(op, s, writer, reason)) return false;
  return true;
}

KernelPtr constructRowKernel(const OpPtr &op, int warps) {
  FreshNames fresh(*op);
  const SourceLoc loc = op->loc;
  const std::string rowV = fresh("row"), warpV = fresh("warp"), laneV = fresh("lane"), stripV = fresh("strip");
  const Expr row = var(rowV, VarKind::Loop), warp = var(warpV, VarKind::Loop), lane = var(laneV, VarKind::Loop);
  const Expr rows = op->body[0].vars[0].extent;
  Expr columns;
  for (const Assign &a : op->body) {
    int count = 0;
    const ExprNode *r = findReduce(a.value, &count);
    if (!columns) columns = a.vars.size() == 2 ? a.vars[1].extent : r ? r->rvars[0].extent : nullptr;
  }
  const int64_t width = 32 * int64_t(warps);
  const Expr column = add(add(mul(var(stripV, VarKind::Loop), intImm(width)), mul(warp, intImm(32))), lane);
  auto overStrips = [&](MStmtPtr body, SourceLoc at) {
    return mSeqFor(stripV, simplify(ceilDiv(columns, intImm(width))), std::move(body), at);
  };

  std::vector<MStmtPtr> allocs;
  auto alloc = [&](const std::string &base, int64_t n, Scope scope) {
    TensorPtr t = scratchTensor(fresh(base), ScalarType::F32, {intImm(n)}, scope, loc);
    allocs.push_back(mAlloc(t, loc));
    return t;
  };
  auto element = [](const TensorPtr &t) { return load(t, {intImm(0)}); };
  auto set = [&](const TensorPtr &t, Expr v, AccumOp op = AccumOp::None) {
    return mStore(t, {intImm(0)}, std::move(v), op, loc);
  };

  // Rank-1 tensors live in per-thread registers; rank-2 ones are their
  // value at the column read (the name of their column variable, value).
  std::map<const TensorDecl *, TensorPtr> registers;
  std::map<const TensorDecl *, std::pair<std::string, Expr>> values;
  auto readsResolved = [&](const Expr &e) {
    return transformExpr(e, [&](const Expr &n) -> Expr {
      if (n->kind != ExprKind::Load) return n;
      if (auto r = registers.find(n->tensor.get()); r != registers.end()) return element(r->second);
      if (auto v = values.find(n->tensor.get()); v != values.end())
        return substitute(v->second.second, {{v->second.first, n->args[1]}});
      return n;
    });
  };

  std::vector<std::vector<MStmtPtr>> phases(1);
  const Expr firstThread = binary(BinOp::And, binary(BinOp::EQ, warp, intImm(0)), binary(BinOp::EQ, lane, intImm(0)));
  for (const Assign &a : op->body) {
    const TensorPtr &t = a.target;
    const bool output = isOutputOf(*op, t.get());
    Expr value = substitute(a.value, {{a.vars[0].name, row}});
    if (a.vars.size() == 2) {
      Expr v = readsResolved(value);
      values[t.get()] = {a.vars[1].name, v};
      if (output)
        phases.back().push_back(
            overStrips(mStore(t, {row, column}, substitute(v, {{a.vars[1].name, column}}), AccumOp::None, a.loc), a.loc));
      continue;
    }
    int count = 0;
    if (const ExprNode *r = findReduce(value, &count)) {
      const ReduceOp op = r->reduceOp;
      TensorPtr acc = alloc(t->name + "_acc", 1, Scope::Register);
      TensorPtr part = alloc(t->name + "_warps", warps, Scope::Shared);
      Expr term = readsResolved(substitute(r->args[0], {{r->rvars[0].name, column}}));
      std::vector<MStmtPtr> &mine = phases.back();
      mine.push_back(set(acc, reductionIdentity(op, ScalarType::F32)));
      // Past N the term's loads read 0 and `select` keeps the identity:
      // branch-free, unlike an `if`, whose tail loop made ptxas spill.
      Expr inRow = binary(BinOp::LT, column, columns);
      mine.push_back(overStrips(set(acc, select(inRow, term, reductionIdentity(op, ScalarType::F32)), accumFor(op)), a.loc));
      for (int d : {16, 8, 4, 2, 1})
        mine.push_back(set(acc, reductionCombine(op, element(acc), shuffle(ShuffleOp::Xor, element(acc), intImm(d)))));
      mine.push_back(mIf(binary(BinOp::EQ, lane, intImm(0)), mStore(part, {warp}, element(acc), AccumOp::None, loc), nullptr, loc));
      // After the barrier every thread combines the warps' values.
      phases.emplace_back();
      const std::string k = fresh("k");
      phases.back().push_back(set(acc, reductionIdentity(op, ScalarType::F32)));
      phases.back().push_back(mMapFor({k}, MappingAtom::Kind::Repeat, {intImm(warps)}, std::nullopt,
                                      set(acc, load(part, {var(k, VarKind::Loop)}), accumFor(op)), loc));
      value = transformExpr(value, [&](const Expr &n) { return n->kind == ExprKind::Reduce ? element(acc) : n; });
    }
    TensorPtr reg = alloc(t->name + "_row", 1, Scope::Register);
    phases.back().push_back(set(reg, readsResolved(value)));
    registers[t.get()] = reg;
    if (output) phases.back().push_back(mIf(firstThread, mStore(t, {row}, element(reg), AccumOp::None, a.loc), nullptr, a.loc));
  }

  std::vector<MStmtPtr> body = allocs;
  for (std::vector<MStmtPtr> &phase : phases) {
    if (phase.empty()) continue;
    if (body.size() > allocs.size()) body.push_back(mStmt(MStmt::Kind::Sync, loc));
    body.push_back(mMapFor({warpV, laneV}, MappingAtom::Kind::Spatial, {intImm(warps), intImm(32)}, WorkerKind::Threads,
                           mBlock(std::move(phase), loc), loc));
  }
  MStmtPtr blocks = mMapFor({rowV}, MappingAtom::Kind::Spatial, {rows}, WorkerKind::Blocks, mBlock(body, loc), loc);
  return synthesizedKernel(op, TargetFamily::Cuda, blocks);
}

} // namespace tk
