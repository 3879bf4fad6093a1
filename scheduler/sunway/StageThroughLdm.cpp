#include "scheduler/sunway/StageThroughLdm.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "ir/TensorSize.h"
#include "scheduler/sunway/LdmRewrite.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// The largest block B a loop without a constant bound is strip-mined into
// (swTVM's sizing: the largest power of two <= kMaxBlock that stages every
// tensor). Modelled with tk_sunway_bench (2026-11-28; the constant read
// from the environment in a build not committed): 128, 256, 512, 1024 and
// 2048 give the same modelled time on all 19 cases for tkc's constructed
// schedules, whose strip-mined loops are already bounded tiles (from 1024
// the three 64-channel 3x3 convolutions use 38.6 KiB of LDM instead of
// 47.5, at the same time). It then matters only for --schedule=swtvm and
// --schedule=default, the ablations of docs/sunway.md, measured at 512.
constexpr int64_t kMaxBlock = 512;

// Lets become their values, so every index is an expression over loops.
class InlineLets final : public LoopMutator {
public:
  Expr mutateExpr(const Expr &e) override { return map_.empty() || !e ? e : simplify(substitute(e, map_)); }

protected:
  LStmtPtr mutateLet(const LStmtPtr &s) override {
    map_.push_back({s->var, mutateExpr(s->value)});
    LStmtPtr body = mutateStmt(s->body);
    map_.pop_back();
    return body;
  }
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    auto n = std::make_shared<LStmt>(*s);
    n->min = mutateExpr(s->min);
    n->extent = mutateExpr(s->extent);
    auto saved = map_; // the loop's variable hides a let of its name
    map_.erase(std::remove_if(map_.begin(), map_.end(), [&](const auto &p) { return p.first == s->var; }), map_.end());
    n->body = mutateStmt(s->body);
    map_ = saved;
    return n;
  }

private:
  std::vector<std::pair<std::string, Expr>> map_;
};

// Whether an index of a main-memory access in `s` mentions `var`.
bool indexesMainMemory(const LStmtPtr &s, const std::string &var) {
  bool found = false;
  visitLExprs(s, [&](const Expr &e) {
    visitExpr(e, [&](const Expr &n) {
      if (n->kind == ExprKind::Load && n->tensor->scope == Scope::Global)
        for (const Expr &i : n->args) found |= mentionsVar(i, var);
    });
  });
  visitLStmt(s, [&](const LStmt &st) {
    if (st.kind == LStmt::Kind::Store && st.tensor->scope == Scope::Global)
      for (const Expr &i : st.indices) found |= mentionsVar(i, var);
  });
  return found;
}

// Strip-mines the loops that index main memory and may run more than
// `block` iterations: for v.blk { for v in block }. A loop already bounded
// by a constant (a tile TileOutputs clamps at the edge) stays; with
// `keepBounded`, whatever that constant (a row FuseRowsInLdm bounds by what
// fits the LDM, whose every pass must read the same buffer).
LStmtPtr stripMine(const LStmtPtr &r, int64_t block, bool keepBounded) {
  return transformLStmt(r, [&](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind != LStmt::Kind::For || s->forKind == ForKind::Parallel) return s;
    if (auto n = constantBound(s->extent, true); n && (keepBounded || *n <= block)) return s;
    if (!indexesMainMemory(s->body, s->var)) return s;
    std::string outer = s->var + ".blk";
    Expr b = intImm(block), start = mul(var(outer, VarKind::Loop), b);
    Expr extent = simplify(binary(BinOp::Min, b, sub(s->extent, start)));
    LStmtPtr inner = lFor(s->var, simplify(add(s->min, start)), extent, s->body, s->loc, s->forKind);
    return lFor(outer, intImm(0), simplify(ceilDiv(s->extent, b)), inner, s->loc);
  });
}

bool hasBarrier(const LStmtPtr &s) {
  bool found = false;
  visitLStmt(s, [&](const LStmt &st) { found |= st.kind == LStmt::Kind::Barrier; });
  return found;
}

// One CPE loop body staged with blocks of `block` iterations; `dropped`
// counts the tensors left in main memory, `doubled` the double-buffered
// boxes of the `aheadable` ones (read-only, at a serial loop level).
struct Staged {
  LStmtPtr body;
  int dropped = 0, doubled = 0, aheadable = 0;
  bool complete() const { return dropped == 0 && doubled == aheadable; }
  // Fewer tensors in main memory first, then more boxes fetched ahead.
  bool betterThan(const Staged &o) const {
    return !o.body || dropped < o.dropped || (dropped == o.dropped && doubled > o.doubled);
  }
};

// `cpe`: the CPE loop's variable when boxes may be broadcast, else empty.
Staged stage(const LStmtPtr &body, int64_t block, int64_t budget, bool doubleBuffer, const std::string &cpe,
             bool rows, bool keepBounded = false) {
  LStmtPtr r = stripMine(body, block, keepBounded);
  std::vector<LdmPlan> plans = planLdmBoxes(r, budget, doubleBuffer, cpe, rows);
  Staged out{applyLdmPlans(r, plans, cpe), 0};
  for (const LdmPlan &p : plans) {
    out.dropped += !p.placed, out.doubled += p.doubleBuffer;
    out.aheadable += doubleBuffer && p.aheadable();
  }
  return out;
}

class StageCpeLoops final : public LoopMutator {
public:
  StageCpeLoops(int64_t budget, bool doubleBuffer, bool broadcast, bool rows)
      : budget_(budget), doubleBuffer_(doubleBuffer), broadcast_(broadcast), rows_(rows) {}

protected:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    if (s->forKind != ForKind::Parallel || s->worker != WorkerKind::Cpes || hasBarrier(s->body)) return s;
    LStmtPtr body = InlineLets().mutateStmt(s->body);
    // The kernel's own ldm tensors (CheckLdmBudget made sure they fit)
    // leave the rest for the staging buffers.
    int64_t budget = budget_;
    visitLStmt(body, [&](const LStmt &st) {
      if (st.kind == LStmt::Kind::Alloc && st.tensor->scope == Scope::Ldm) budget -= constantSize(*st.tensor).bytes;
    });
    // swTVM's sizing: the largest block for which every tensor that has
    // a level gets one; then, double-buffered, a smaller block where that
    // leaves room for more second buffers (a box of all the blocks'
    // iterations, sized for 512, can leave none for the next box of
    // another tensor: a convolution's weights over 512 channels).
    std::string cpe = broadcast_ ? s->var : "";
    Staged best;
    for (int64_t b = kMaxBlock; b >= 1; b /= 2) {
      Staged st = stage(body, b, budget, doubleBuffer_, cpe, rows_);
      if (st.betterThan(best)) best = st;
      if (st.complete()) break;
    }
    // Blocks that split bounded loops can leave a tensor that several of
    // them read without a level (a row read by each pass of a row
    // operator); whole bounded loops may give it one.
    if (best.dropped > 0) {
      Staged st = stage(body, kMaxBlock, budget, doubleBuffer_, cpe, rows_, true);
      if (st.betterThan(best)) best = st;
    }
    auto n = std::make_shared<LStmt>(*s);
    n->body = best.body;
    return n;
  }

private:
  int64_t budget_;
  bool doubleBuffer_, broadcast_, rows_;
};

} // namespace

LoweredFunc stageThroughLdm(const LoweredFunc &f, int64_t ldmBytes, bool doubleBuffer, bool broadcast,
                            bool rowBroadcast) {
  LoweredFunc out = f;
  out.body = StageCpeLoops(ldmBytes, doubleBuffer, broadcast, rowBroadcast).mutateStmt(f.body);
  return out;
}

} // namespace tk
