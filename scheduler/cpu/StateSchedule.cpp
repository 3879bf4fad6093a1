#include "scheduler/cpu/StateSchedule.h"

#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"
#include "scheduler/cpu/PackOperand.h"
#include "scheduler/Refusal.h"
#include "scheduler/construct/Roofline.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

int64_t roundUp(int64_t v, int64_t m) { return (std::max<int64_t>(v, 1) + m - 1) / m * m; }

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }

bool isOne(const Expr &e) {
  int64_t c;
  return isConstInt(e, &c) && c == 1;
}

// The loop variable `name` times `scale`, or 0 when its loop (of one
// iteration) was left out.
Expr scaled(const std::string &name, bool present, int64_t scale) {
  return present ? mul(loopVar(name), intImm(scale)) : intImm(0);
}

} // namespace

bool stateScheduleApplies(const Op &op, std::string *reason) {
  if (op.body.size() != 1 || !op.intermediates.empty()) return refuse(reason, "the op has more than one statement");
  if (op.body[0].vars.empty()) return refuse(reason, "the output is a scalar");
  return true;
}

KernelPtr stateSchedule(const OpPtr &op, const construct::Space &space, const construct::ETIR &s) {
  std::string why;
  if (!stateScheduleApplies(*op, &why)) throw InternalError("stateSchedule: " + why);
  const Assign &a = op->body[0];
  const construct::LoopNest &nest = space.nest();
  SourceLoc loc = a.loc;
  size_t rank = a.vars.size();
  size_t reg = space.levels() - 1, above = std::max<size_t>(reg - 1, 1);
  size_t unit = std::min(construct::unitLevel(space.hw()), above);
  auto dimOf = [&](const std::string &name) {
    for (size_t d = 0; d < nest.dims.size(); ++d)
      if (nest.dims[d].name == name) return d;
    throw InternalError("stateSchedule: " + name + " is not a dimension of the nest of " + op->name);
  };
  bool streamed = a.value->kind == ExprKind::Reduce && !readsTensor(a.value, a.target.get());
  FreshNames fresh(*op, a);

  // Output tiles, each a multiple of the faster one.
  std::vector<int64_t> G(rank), L(rank), P(rank);
  for (size_t o = 0; o < rank; ++o) {
    size_t d = dimOf(a.vars[o].name);
    G[o] = std::max<int64_t>(1, s.tile[reg][d]);
    L[o] = roundUp(s.tile[above][d], G[o]);
    P[o] = roundUp(s.tile[unit][d], L[o]);
  }
  std::vector<std::string> bv(rank), lv(rank), gv(rank), tv(rank);
  std::vector<bool> hasL(rank), hasG(rank), hasT(rank);
  for (size_t o = 0; o < rank; ++o) {
    const std::string &n = a.vars[o].name;
    bv[o] = fresh("b" + n), lv[o] = fresh("l" + n), gv[o] = fresh("g" + n), tv[o] = fresh("t" + n);
    hasL[o] = P[o] > L[o], hasG[o] = L[o] > G[o], hasT[o] = G[o] > 1;
  }
  std::vector<std::pair<std::string, Expr>> vmap;
  std::vector<Expr> outIdx;
  for (size_t o = 0; o < rank; ++o) {
    Expr i = add(add(mul(loopVar(bv[o]), intImm(P[o])), scaled(lv[o], hasL[o], L[o])),
                 add(scaled(gv[o], hasG[o], G[o]), hasT[o] ? loopVar(tv[o]) : intImm(0)));
    outIdx.push_back(simplify(i));
    vmap.push_back({a.vars[o].name, outIdx.back()});
  }

  // The register tile: repeat over the output dimensions it spans.
  std::vector<std::string> tileVars;
  std::vector<Expr> tileDims;
  for (size_t o = 0; o < rank; ++o)
    if (hasT[o]) tileVars.push_back(tv[o]), tileDims.push_back(intImm(G[o]));
  auto registerTile = [&](MStmtPtr st) {
    return tileVars.empty() ? st : mMapFor(tileVars, MappingAtom::Kind::Repeat, tileDims, std::nullopt, st, loc);
  };
  auto gLoops = [&](MStmtPtr body) {
    for (size_t o = rank; o-- > 0;)
      if (hasG[o]) body = seqFor(gv[o], intImm(L[o] / G[o]), body, loc);
    return body;
  };
  auto lLoops = [&](MStmtPtr body) {
    for (size_t o = rank; o-- > 0;)
      if (hasL[o]) body = seqFor(lv[o], intImm(P[o] / L[o]), body, loc);
    return body;
  };

  MStmtPtr task;
  if (!streamed) {
    MStmtPtr st = mStore(a.target, outIdx, substitute(a.value, vmap), AccumOp::None, loc);
    task = lLoops(gLoops(registerTile(st)));
  } else {
    const std::vector<IndexVar> &rv = a.value->rvars;
    std::vector<std::string> pb(rv.size()), rb(rv.size()), rr(rv.size());
    std::vector<int64_t> RP(rv.size()), RL(rv.size());
    std::vector<Expr> blockLeft(rv.size()), blocks(rv.size()); // points left in the unit block; unit blocks
    for (size_t q = 0; q < rv.size(); ++q) {
      size_t d = dimOf(rv[q].name);
      RL[q] = std::max<int64_t>(1, s.tile[above][d]);
      RP[q] = std::max(RL[q], s.tile[unit][d]);
      pb[q] = fresh("pb" + rv[q].name), rb[q] = fresh("rb" + rv[q].name), rr[q] = fresh("r" + rv[q].name);
      blocks[q] = simplify(ceilDiv(rv[q].extent, intImm(RP[q])));
      Expr start = scaled(pb[q], !isOne(blocks[q]), RP[q]);
      blockLeft[q] = simplify(binary(BinOp::Min, intImm(RP[q]), sub(rv[q].extent, start)));
      Expr idx = add(add(start, scaled(rb[q], RP[q] > RL[q], RL[q])), loopVar(rr[q]));
      vmap.push_back({rv[q].name, simplify(idx)});
    }
    Expr summand = substitute(a.value->args[0], vmap);
    MStmtPtr body = registerTile(mStore(a.target, outIdx, summand, accumFor(a.value->reduceOp), loc));
    for (size_t q = rv.size(); q-- > 0;) {
      Expr left = sub(blockLeft[q], scaled(rb[q], RP[q] > RL[q], RL[q]));
      body = seqFor(rr[q], simplify(binary(BinOp::Min, intImm(RL[q]), left)), body, loc);
    }
    body = gLoops(body);
    for (size_t q = rv.size(); q-- > 0;)
      if (RP[q] > RL[q]) body = seqFor(rb[q], simplify(ceilDiv(blockLeft[q], intImm(RL[q]))), body, loc);
    body = lLoops(body);
    for (size_t q = rv.size(); q-- > 0;)
      if (!isOne(blocks[q])) body = seqFor(pb[q], blocks[q], body, loc);

    // Zero (the identity) the task's output tile first.
    std::vector<std::string> zv;
    std::vector<Expr> zd, zIdx;
    for (size_t o = 0; o < rank; ++o) {
      Expr base = mul(loopVar(bv[o]), intImm(P[o]));
      if (P[o] == 1) {
        zIdx.push_back(simplify(base));
        continue;
      }
      zv.push_back(fresh("z" + a.vars[o].name));
      zd.push_back(intImm(P[o]));
      zIdx.push_back(simplify(add(base, loopVar(zv.back()))));
    }
    MStmtPtr init = mStore(a.target, zIdx, reductionIdentity(a.value->reduceOp, a.target->dtype), AccumOp::None, loc);
    if (!zv.empty()) init = mMapFor(zv, MappingAtom::Kind::Repeat, zd, std::nullopt, init, loc);
    task = mBlock({init, body}, loc);
  }

  std::vector<Expr> spatial;
  for (size_t o = 0; o < rank; ++o) spatial.push_back(simplify(ceilDiv(a.vars[o].extent, intImm(P[o]))));
  return synthesizedKernel(
      op, TargetFamily::Cpu, mBlock({mMapFor(bv, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, task, loc)}, op->loc));
}

} // namespace tk
