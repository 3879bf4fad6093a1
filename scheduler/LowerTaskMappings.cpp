#include "scheduler/LowerTaskMappings.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "ir/TaskMapping.h"

#include <fmt/format.h>

#include <set>

namespace tk {
using namespace ir;

namespace {

struct Lowerer {
  TargetFamily family;
  std::set<std::string> used; // every name bound in the kernel, for fresh names

  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int i = 1; used.count(name); ++i) name = fmt::format("{}_{}", base, i);
    used.insert(name);
    return name;
  }

  LStmtPtr mapFor(const MStmt &s) {
    const TaskMapping &m = s.mapping;
    bool single = m.atoms.size() == 1;
    bool hasSpatial = false;
    for (const MappingAtom &a : m.atoms) hasSpatial |= a.kind == MappingAtom::Kind::Spatial;
    // A lone rank-1 spatial factor: the worker id is the mapping variable.
    bool direct = single && hasSpatial && s.vars.size() == 1;
    std::string wname;
    if (hasSpatial) {
      std::string base = "w";
      for (const std::string &v : s.vars) base += "_" + v;
      wname = direct ? s.vars[0] : fresh(base);
    }
    MappingTasks tasks = mappingTasks(m, var(wname, VarKind::Loop), [&](size_t, size_t d) {
      return single ? s.vars[d] : fresh(s.vars[d]);
    });

    // Repeat dimensions of extent 1 (`spatial(M, 1) * repeat(1, K)`) need
    // no loop: their coordinate is 0.
    std::vector<std::pair<std::string, Expr>> unit;
    for (auto it = tasks.loops.begin(); it != tasks.loops.end();) {
      if (!provablyEquals(it->extent, 1)) {
        ++it;
        continue;
      }
      unit.push_back({it->var, intImm(0)});
      it = tasks.loops.erase(it);
    }
    if (!unit.empty())
      for (Expr &c : tasks.coords) c = simplify(substitute(c, unit));

    // The mapping variables of one task, bound around a lowered body.
    auto bindCoords = [&](LStmtPtr body) {
      for (size_t d = s.vars.size(); d-- > 0;) {
        const Expr &c = tasks.coords[d];
        if (c->kind == ExprKind::Var && c->name == s.vars[d]) continue;
        auto let = lStmt(LStmt::Kind::Let, s.loc);
        let->var = s.vars[d];
        let->value = c;
        let->body = body;
        body = let;
      }
      return body;
    };
    // On cuda a thread's repeat tasks are its register tile: fully unrolled
    // (Hidet's reading of `repeat`), so that its registers are indexed by
    // constants even where LLVM's own size threshold would keep a loop
    // (matmul_simt_large's 16 k steps of 64 multiply-adds).
    auto repeatLoops = [&](LStmtPtr body) {
      for (size_t i = tasks.loops.size(); i-- > 0;) {
        Expr extent = simplify(tasks.loops[i].extent);
        bool unroll = family == TargetFamily::Cuda && isConstInt(extent);
        body = lFor(tasks.loops[i].var, intImm(0), extent, body, s.loc, unroll ? ForKind::Unrolled : ForKind::Serial);
      }
      return body;
    };
    auto workerLoop = [&](LStmtPtr body) {
      bool lanes = *s.worker == WorkerKind::Lanes;
      auto loop = lFor(wname, intImm(0), m.numWorkers(), body, s.loc, lanes ? ForKind::Vectorized : ForKind::Parallel);
      if (!lanes) loop->worker = s.worker;
      return loop;
    };
    if (!hasSpatial || !s.worker) return repeatLoops(bindCoords(lower(s.body)));
    std::vector<std::vector<MStmtPtr>> phases = phasesBetweenSyncs(s);
    if (phases.size() == 1) return workerLoop(repeatLoops(bindCoords(lower(s.body))));
    // On cpu a core runs each of its tasks start to finish, so a barrier
    // cannot wait inside one parallel loop: the body is split at its `sync`s
    // into parallel loops that run one after another. Every worker runs the
    // same repeat loops, so they move outside: a barrier per repeat task,
    // as on a GPU. CheckBarriers refuses the placements this cannot express.
    std::vector<LStmtPtr> loops;
    for (const std::vector<MStmtPtr> &phase : phases)
      loops.push_back(workerLoop(bindCoords(block(phase, 0, s.loc))));
    return repeatLoops(lBlock(std::move(loops), s.loc));
  }

  // The statements of a cores mapping's body between its top-level `sync`s
  // (one phase when there is none, or when the target has real barriers).
  std::vector<std::vector<MStmtPtr>> phasesBetweenSyncs(const MStmt &s) const {
    if (family != TargetFamily::Cpu || s.worker != WorkerKind::Cores || s.body->kind != MStmt::Kind::Block)
      return {{s.body}};
    std::vector<std::vector<MStmtPtr>> phases(1);
    for (const MStmtPtr &c : s.body->stmts) {
      if (c->kind == MStmt::Kind::Sync) phases.emplace_back();
      else phases.back().push_back(c);
    }
    return phases;
  }

  // Statements of a block; an Alloc scopes the rest of its block.
  LStmtPtr block(const std::vector<MStmtPtr> &stmts, size_t from, SourceLoc loc) {
    std::vector<LStmtPtr> out;
    for (size_t i = from; i < stmts.size(); ++i) {
      if (stmts[i]->kind == MStmt::Kind::Alloc) {
        out.push_back(lAlloc(stmts[i]->tensor, block(stmts, i + 1, loc), stmts[i]->loc));
        break;
      }
      out.push_back(lower(stmts[i]));
    }
    return out.size() == 1 ? out[0] : lBlock(std::move(out), loc);
  }

  // Translates every kind from mapping to loop IR, so it stays a
  // hand-written dispatch: a mutator rewrites within one level.
  LStmtPtr lower(const MStmtPtr &s) {
    switch (s->kind) {
    case MStmt::Kind::Block: return block(s->stmts, 0, s->loc);
    case MStmt::Kind::MapFor: return mapFor(*s);
    case MStmt::Kind::SeqFor:
      return lFor(s->var, s->begin, simplify(sub(s->end, s->begin)), lower(s->body), s->loc);
    case MStmt::Kind::Alloc: return block({s}, 0, s->loc);
    case MStmt::Kind::Store: {
      auto st = lStmt(LStmt::Kind::Store, s->loc);
      st->tensor = s->tensor;
      st->indices = s->indices;
      st->value = accumulate(s->accum, load(s->tensor, s->indices, nullptr, nullptr, s->loc), s->value);
      st->stream = s->stream;
      return st;
    }
    case MStmt::Kind::Sync: return lStmt(LStmt::Kind::Barrier, s->loc);
    case MStmt::Kind::Prefetch: {
      auto st = lStmt(LStmt::Kind::Prefetch, s->loc);
      st->tensor = s->tensor;
      st->indices = s->indices;
      return st;
    }
    case MStmt::Kind::Intrinsic: {
      auto st = lStmt(LStmt::Kind::Intrinsic, s->loc);
      st->intrinsic = s->intrinsic;
      st->operands = s->operands;
      return st;
    }
    case MStmt::Kind::If: return lIf(s->cond, lower(s->thenS), s->elseS ? lower(s->elseS) : nullptr, s->loc);
    }
    return lBlock({}, s->loc);
  }
};

} // namespace

LoweredFunc lowerTaskMappings(const Kernel &k, const std::string &symbol, const TargetDesc &target) {
  Lowerer l{target.family, {}};
  for (const std::string &s : k.op->symbols) l.used.insert(s);
  for (const Param &p : k.op->inputs) l.used.insert(p.name);
  for (const TensorPtr &t : k.op->outputs) l.used.insert(t->name);
  visitMStmt(k.body, [&](const MStmt &s) {
    for (const std::string &v : s.vars) l.used.insert(v);
    if (s.kind == MStmt::Kind::SeqFor) l.used.insert(s.var);
    if (s.kind == MStmt::Kind::Alloc) l.used.insert(s.tensor->name);
  });
  LoweredFunc f;
  f.name = symbol;
  f.op = k.op;
  f.target = target.family;
  f.loc = k.loc;
  f.body = rewriteLStmt(l.lower(k.body), [](const Expr &e) { return simplify(e); });
  return f;
}

} // namespace tk
