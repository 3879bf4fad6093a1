#include "scheduler/cuda/SharedAccesses.h"

#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "ir/TaskMapping.h"
#include "scheduler/Presburger.h"
#include "scheduler/WriteAnalysis.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// `e` as the user wrote it, for messages.
std::string userText(const Expr &e) {
  std::vector<std::pair<std::string, Expr>> names;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind == ExprKind::Var && sourceVarName(n->name) != n->name)
      names.push_back({n->name, var(sourceVarName(n->name), n->varKind, n->type)});
  });
  return printExpr(substitute(e, names));
}

// Threads per block of a launch (GpuLaunch's rule on mapping IR): the
// largest threads mapping, or 32 x the largest warps mapping; 1 without
// either. CheckTaskMappings has made their counts constant; 32 x warps
// saturates (a launch of 2^59 warps is refused later, by the launch check).
int64_t launchThreads(const MStmtPtr &body) {
  int64_t threads = 1, n = 0;
  visitMStmt(body, [&](const MStmt &m) {
    if (m.kind != MStmt::Kind::MapFor || !m.worker || !isConstInt(m.mapping.numWorkers(), &n)) return;
    if (*m.worker == WorkerKind::Threads) threads = std::max(threads, n);
    if (*m.worker == WorkerKind::Warps) threads = std::max(threads, checkedMul(n, 32).value_or(INT64_MAX));
  });
  return threads;
}

struct Collector : MappingVisitor {
  struct Context {
    std::vector<EventDim> dims;
    std::vector<std::pair<std::string, Expr>> subst; // innermost binding first; values over `@N`
    std::vector<Expr> guards;
    std::vector<std::string> guardTexts;
    std::vector<SchedEntry> sched;
    Expr thread; // null: every thread of the block runs it
    Expr warp;   // inside a warps mapping: its warp
  };
  std::vector<SharedLaunch> launches;
  SharedLaunch *launch = nullptr; // the blocks mapping being walked
  int64_t threads = 1;            // its threads per block
  int64_t seq = 0;                // pre-order number of the statement being visited
  SourceLoc at;                   // and its location
  std::vector<Context> contexts{Context{}};

  Context &ctx() { return contexts.back(); }
  Expr over(const Expr &e) { return simplify(substitute(e, ctx().subst)); }

  // Statement `n` in program order after the entries of `sched`. Pre-order
  // numbers order the statements of a body as their ancestors are ordered,
  // so a number right after another replaces it.
  static void place(std::vector<SchedEntry> &sched, int64_t n) {
    if (!sched.empty() && !sched.back().isDim) sched.back().seq = n;
    else sched.push_back({false, n, 0});
  }

  // Loop `s`'s dimensions `ids` in the schedule. Only a loop with a `sync`
  // in its body needs them: between two of its iterations, or between an
  // iteration and what follows the loop, nothing else can be a barrier.
  // (Fewer dimensions keep the integer sets of CheckSharedSync small.)
  void loopEntries(std::vector<SchedEntry> &sched, const MStmt &s, const std::vector<size_t> &ids) {
    bool sync = false;
    visitMStmt(s.body, [&](const MStmt &m) { sync |= m.kind == MStmt::Kind::Sync; });
    if (!sync || ids.empty()) return;
    place(sched, seq);
    for (size_t id : ids) sched.push_back({true, 0, id});
  }

  void walkStmt(const MStmtPtr &s) override {
    if (!s) return;
    ++seq;
    SourceLoc outer = at;
    at = s->loc;
    MappingVisitor::walkStmt(s);
    at = outer;
  }

  SharedEvent &event(SharedEvent::Kind kind, const TensorDecl *t, SourceLoc loc) {
    const Context &c = ctx();
    SharedEvent e;
    e.kind = kind;
    e.tensor = t;
    e.loc = loc.line > 0 ? loc : at;
    e.dims = c.dims;
    e.guards = c.guards;
    e.guardTexts = c.guardTexts;
    e.sched = c.sched;
    place(e.sched, seq);
    e.thread = c.thread;
    e.inThreadMapping = c.thread != nullptr;
    // Outside threads and warps mappings every thread runs the statement.
    if (!e.thread && kind != SharedEvent::Kind::Sync) {
      e.dims.push_back({EventDim::Kind::Thread, intImm(threads), "thread"});
      e.thread = Presburger::dimExpr(e.dims.size() - 1);
    }
    launch->events.push_back(std::move(e));
    return launch->events.back();
  }

  // An access of `t` (when shared) at `idx`, covering span[d] elements
  // from index d on (1 where span is shorter).
  void access(SharedEvent::Kind kind, const TensorDecl &t, const std::vector<Expr> &idx, SourceLoc loc,
              const std::vector<int64_t> &span = {}, bool collective = false) {
    if (!launch || t.scope != Scope::Shared) return;
    std::vector<Expr> index;
    for (const Expr &i : idx) index.push_back(over(i));
    SharedEvent &e = event(kind, &t, loc);
    e.collective = collective;
    for (const Expr &i : idx) e.source.push_back(userText(i));
    for (size_t d = 0; d < index.size(); ++d) {
      if (d < span.size() && span[d] > 1) {
        e.dims.push_back({EventDim::Kind::Offset, intImm(span[d]), "offset"});
        index[d] = simplify(add(index[d], Presburger::dimExpr(e.dims.size() - 1)));
      }
      e.index.push_back(index[d]);
    }
  }

  void visitLoad(const Expr &e) override {
    if (e->tensor) access(SharedEvent::Kind::Read, *e->tensor, e->args, e->loc);
    ExprVisitor::visitLoad(e);
  }

  void visitStore(const MStmt &s) override {
    MappingVisitor::visitStore(s);
    if (s.accum != AccumOp::None) access(SharedEvent::Kind::Read, *s.tensor, s.indices, s.loc);
    access(SharedEvent::Kind::Write, *s.tensor, s.indices, s.loc);
  }

  void visitSync(const MStmt &s) override {
    if (launch) event(SharedEvent::Kind::Sync, nullptr, s.loc);
  }

  void visitIf(const MStmt &s) override {
    walkExpr(s.cond);
    Context inner = ctx();
    Expr cond = over(s.cond);
    inner.guards.push_back(cond);
    inner.guardTexts.push_back(userText(s.cond));
    contexts.push_back(std::move(inner));
    walkNested(s.thenS);
    ctx().guards.back() = unary(UnOp::Not, cond);
    ctx().guardTexts.back() = "!(" + userText(s.cond) + ")";
    walkNested(s.elseS);
    contexts.pop_back();
  }

  void visitSeqFor(const MStmt &s) override {
    walkExpr(s.begin);
    walkExpr(s.end);
    Context c = ctx();
    Expr begin = over(s.begin);
    size_t id = c.dims.size();
    c.dims.push_back({EventDim::Kind::Loop, simplify(sub(over(s.end), begin)), sourceVarName(s.var)});
    loopEntries(c.sched, s, {id});
    c.subst.insert(c.subst.begin(), {s.var, simplify(add(begin, Presburger::dimExpr(id)))});
    contexts.push_back(std::move(c));
    walkBody(s);
    contexts.pop_back();
  }

  // One dimension per factor and mapping variable, as CheckTaskMappings
  // numbers them: v_d = sum over factors a of t_{a,d} * prod_{b > a} dims_b[d].
  // The thread (or warp) index is Hidet's worker id, the mixed radix of the
  // spatial factors in their rank order (ir/TaskMapping.h).
  void visitMapFor(const MStmt &s) override {
    for (const MappingAtom &a : s.mapping.atoms) walkExprs(a.dims);
    std::optional<WorkerKind> w = s.worker;
    bool blocks = w == WorkerKind::Blocks, threadsLike = w == WorkerKind::Threads || w == WorkerKind::Warps;
    if (blocks && !launch) {
      launch = &launches.emplace_back();
      threads = launchThreads(s.body);
    }
    Context c = ctx();
    std::vector<Expr> value(s.vars.size(), intImm(0));
    Expr worker = intImm(0);
    std::vector<size_t> blockDims, loopDims;
    for (const MappingAtom &a : s.mapping.atoms) {
      bool spatial = a.kind == MappingAtom::Kind::Spatial && w;
      EventDim::Kind kind = !spatial ? EventDim::Kind::Loop
                            : blocks ? EventDim::Kind::Block
                            : threadsLike ? EventDim::Kind::Thread
                                          : EventDim::Kind::Loop;
      std::vector<Expr> t(s.vars.size(), intImm(0));
      Expr digit = intImm(0), workers = intImm(1);
      for (int d : atomOrder(a)) {
        if (static_cast<size_t>(d) >= s.vars.size()) continue;
        Expr extent = over(a.dims[d]);
        size_t id = c.dims.size();
        c.dims.push_back({kind, extent, sourceVarName(s.vars[d])});
        if (kind == EventDim::Kind::Block) blockDims.push_back(id);
        if (kind == EventDim::Kind::Loop) loopDims.push_back(id);
        t[d] = Presburger::dimExpr(id);
        digit = add(mul(digit, extent), Presburger::dimExpr(id));
        workers = mul(workers, extent);
      }
      for (size_t d = 0; d < s.vars.size() && d < a.dims.size(); ++d)
        value[d] = add(mul(value[d], over(a.dims[d])), t[d]);
      if (spatial) worker = add(mul(worker, workers), digit);
    }
    for (size_t id : blockDims) c.sched.push_back({true, 0, id});
    loopEntries(c.sched, s, loopDims);
    worker = simplify(worker);
    if (w == WorkerKind::Threads) {
      // A threads mapping inside a warps one: its thread is in that warp.
      if (c.warp) c.guards.push_back(binary(BinOp::EQ, floorDiv(worker, intImm(32)), c.warp));
      if (c.warp) c.guardTexts.push_back("the thread is in warp " + printExpr(c.warp));
      c.thread = worker;
    } else if (w == WorkerKind::Warps) {
      size_t lane = c.dims.size();
      c.dims.push_back({EventDim::Kind::Lane, intImm(32), "lane"});
      c.warp = worker;
      c.thread = simplify(add(mul(worker, intImm(32)), Presburger::dimExpr(lane)));
    }
    for (size_t d = 0; d < s.vars.size(); ++d) c.subst.insert(c.subst.begin(), {s.vars[d], simplify(value[d])});
    contexts.push_back(std::move(c));
    walkBody(s);
    contexts.pop_back();
    if (blocks && contexts.size() == 1) launch = nullptr;
  }

  // Operands are Loads naming the first element they cover (MappingIR.h).
  void visitIntrinsic(const MStmt &s) override {
    auto operand = [&](size_t i) -> const Expr * {
      return i < s.operands.size() && s.operands[i] && s.operands[i]->kind == ExprKind::Load ? &s.operands[i]
                                                                                               : nullptr;
    };
    auto indices = [&](size_t i) {
      if (const Expr *o = operand(i)) walkExprs((*o)->args);
    };
    switch (s.intrinsic) {
    case GpuIntrinsic::CpAsync: { // this thread writes n consecutive elements
      indices(0);
      if (s.operands.size() > 1) walkExpr(s.operands[1]);
      int64_t n = 1;
      const Expr *dst = operand(0);
      if (!dst || s.operands.size() < 3 || !isConstInt(s.operands[2], &n)) return;
      std::vector<int64_t> span((*dst)->args.size(), 1);
      if (!span.empty()) span.back() = n;
      return access(SharedEvent::Kind::Write, *(*dst)->tensor, (*dst)->args, s.loc, span);
    }
    case GpuIntrinsic::LdMatrix:
    case GpuIntrinsic::LdMatrixTrans: { // the warp reads a tile (docs/gpu.md)
      indices(0);
      indices(1);
      const Expr *frag = operand(0), *tile = operand(1);
      int64_t len = 0;
      if (!frag || !tile || (*frag)->tensor->shape.empty() || !isConstInt((*frag)->tensor->shape.back(), &len)) return;
      bool trans = s.intrinsic == GpuIntrinsic::LdMatrixTrans;
      int64_t rows = len == 8 || trans ? 16 : 8, cols = len == 8 || !trans ? 16 : 8;
      std::vector<int64_t> span((*tile)->args.size(), 1);
      if (span.size() < 2) return;
      span[span.size() - 2] = rows;
      span.back() = cols;
      return access(SharedEvent::Kind::Read, *(*tile)->tensor, (*tile)->args, s.loc, span, true);
    }
    case GpuIntrinsic::AtomicAdd:
      indices(0);
      if (s.operands.size() > 1) walkExpr(s.operands[1]);
      if (const Expr *target = operand(0))
        access(SharedEvent::Kind::Atomic, *(*target)->tensor, (*target)->args, s.loc);
      return;
    default: return MappingVisitor::visitIntrinsic(s); // mma (registers), commit, wait
    }
  }
};

} // namespace

std::vector<SharedLaunch> sharedAccesses(const Kernel &k) {
  Collector c;
  c.walkStmt(k.body);
  std::vector<SharedLaunch> out;
  for (SharedLaunch &l : c.launches)
    if (std::any_of(l.events.begin(), l.events.end(), [](const SharedEvent &e) { return e.tensor; }))
      out.push_back(std::move(l));
  return out;
}

} // namespace tk
