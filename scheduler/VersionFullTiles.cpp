#include "scheduler/VersionFullTiles.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "scheduler/DropGuards.h"
#include "scheduler/EnclosingSerialLoops.h"
#include "scheduler/PartitionLoops.h"

#include <map>
#include <optional>
#include <set>

namespace tk {
using namespace ir;

namespace {

// Inclusive symbolic bounds [lo, hi] of a loop variable over the whole nest,
// in terms of variables bound outside it; null when they are unknown.
struct Interval {
  Expr lo, hi;
};
using Env = std::map<std::string, Interval>;

bool mentionsNestVar(const Expr &e, const Env &env) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && env.count(n->name); });
  return found;
}

// Bounds of an integer expression over every iteration of the nest. Only
// operations that are monotone in each operand (or bounded, like x % c) are
// followed; anything else in a nest variable gives up.
std::optional<Interval> bounds(const Expr &e, const Env &env) {
  if (!mentionsNestVar(e, env)) return Interval{e, e};
  if (e->kind == ExprKind::Var) {
    const Interval &v = env.at(e->name);
    if (!v.lo || !v.hi) return std::nullopt;
    return v;
  }
  if (e->kind != ExprKind::Binary || !isInteger(e->type)) return std::nullopt;
  const Expr &a = e->args[0], &b = e->args[1];
  int64_t c = 0;
  switch (e->binOp) {
  case BinOp::Add:
  case BinOp::Sub: {
    auto x = bounds(a, env), y = bounds(b, env);
    if (!x || !y) return std::nullopt;
    if (e->binOp == BinOp::Add) return Interval{add(x->lo, y->lo), add(x->hi, y->hi)};
    return Interval{sub(x->lo, y->hi), sub(x->hi, y->lo)};
  }
  case BinOp::Mul: {
    const Expr *other = isConstInt(b, &c) ? &a : isConstInt(a, &c) ? &b : nullptr;
    if (!other) return std::nullopt;
    auto x = bounds(*other, env);
    if (!x) return std::nullopt;
    Expr k = intImm(c);
    if (c >= 0) return Interval{mul(x->lo, k), mul(x->hi, k)};
    return Interval{mul(x->hi, k), mul(x->lo, k)};
  }
  case BinOp::Div:
  case BinOp::CDiv: {
    if (!isConstInt(b, &c) || c <= 0) return std::nullopt;
    auto x = bounds(a, env);
    if (!x) return std::nullopt;
    auto div = e->binOp == BinOp::Div ? floorDiv : ceilDiv;
    return Interval{div(x->lo, b), div(x->hi, b)};
  }
  case BinOp::Mod:
    if (!isConstInt(b, &c) || c <= 0) return std::nullopt;
    return Interval{intImm(0), intImm(c - 1)};
  case BinOp::Min:
  case BinOp::Max: {
    auto x = bounds(a, env), y = bounds(b, env);
    if (!x || !y) return std::nullopt;
    return Interval{binary(e->binOp, x->lo, y->lo), binary(e->binOp, x->hi, y->hi)};
  }
  default: return std::nullopt;
  }
}

// `a OP b` as `b OP' a`.
BinOp mirror(BinOp op) {
  switch (op) {
  case BinOp::LT: return BinOp::GT;
  case BinOp::LE: return BinOp::GE;
  case BinOp::GT: return BinOp::LT;
  case BinOp::GE: return BinOp::LE;
  default: return op;
  }
}

// The run-time condition under which the comparison `g` holds at every
// iteration of the nest, or null when it cannot be bounded.
Expr holdsEverywhere(const Expr &g, const Env &env) {
  if (g->kind != ExprKind::Binary || !isComparison(g->binOp) || !isInteger(g->args[0]->type) ||
      !isInteger(g->args[1]->type))
    return nullptr;
  // Bound the side with the nest's variables against the other side when
  // only one has them (`bi*128 + 127 < M` reads better than a difference).
  Expr a = g->args[0], b = g->args[1];
  if (mentionsNestVar(b, env)) {
    if (mentionsNestVar(a, env)) {
      a = simplify(sub(a, b));
      b = intImm(0);
    } else {
      return holdsEverywhere(binary(mirror(g->binOp), b, a), env);
    }
  }
  auto d = bounds(simplify(a), env);
  if (!d) return nullptr;
  switch (g->binOp) {
  case BinOp::LT:
  case BinOp::LE: return binary(g->binOp, d->hi, b);
  case BinOp::GT:
  case BinOp::GE: return binary(g->binOp, d->lo, b);
  default: return nullptr;
  }
}

// Loops, blocks, stores and prefetches only: no control flow or allocation
// whose meaning a copy could change, and every variable comes from a loop.
bool plainNest(const LStmtPtr &s) {
  bool plain = true;
  visitLStmt(s, [&](const LStmt &n) {
    plain &= n.kind == LStmt::Kind::Block || n.kind == LStmt::Kind::Store || n.kind == LStmt::Kind::Prefetch ||
             (n.kind == LStmt::Kind::For && n.forKind != ForKind::Parallel);
  });
  return plain;
}

// A plain nest that sets elements to constants (an initialisation), or
// ifs around such nests (a first depth block's zeroing, streamed or not):
// their conditions are bound outside the nest, so every copy keeps them.
bool initialises(const LStmtPtr &s) {
  if (s->kind == LStmt::Kind::Block && s->stmts.size() == 1) return initialises(s->stmts[0]);
  if (s->kind == LStmt::Kind::If) return initialises(s->thenS) && (!s->elseS || initialises(s->elseS));
  bool constants = true;
  visitLStmt(s, [&](const LStmt &n) {
    constants &= n.kind != LStmt::Kind::Store ||
                 n.value->kind == ExprKind::FloatImm || n.value->kind == ExprKind::IntImm;
  });
  return s->kind == LStmt::Kind::For && plainNest(s) && constants;
}

// True when every serial loop (`loops`) that the guard `g` mentions indexes
// the store `st`: the guard then marks where the tensor's edge cuts the
// tile (false in the last tile along a dimension only), not a window offset
// that reaches past the edge from every tile at its loop's ends (a
// pooling's `ow*2 + s - 1 >= 0`, with `s` reduced). Task positions (lets
// of a parallel loop) do not count: they pick the tile.
bool edgeOfStore(const Expr &g, const LStmt &st, const std::set<std::string> &loops) {
  bool edge = true;
  for (const std::string &v : loops)
    if (mentionsVar(g, v))
      edge &= std::any_of(st.indices.begin(), st.indices.end(), [&](const Expr &i) { return mentionsVar(i, v); });
  return edge;
}

// How many loops deep `s` nests (0: no loop): the most loops around one of
// its stores.
int loopDepth(const LStmtPtr &s) {
  struct Depth : LoopVisitor {
    size_t deepest = 0;
    void walkExpr(const Expr &) override {}
    void visitStore(const LStmt &) override {
      size_t loops = 0;
      for (const Binding &b : scope().vars()) loops += b.kind == BindingKind::Loop;
      deepest = std::max(deepest, loops);
    }
  } depth;
  depth.walkStmt(s);
  return int(depth.deepest);
}

// True when the loops of `a` and `b` that share a variable name share its
// bounds too: versioned as one, the variable has one interval.
bool sameLoopBounds(const LStmtPtr &a, const LStmtPtr &b) {
  std::map<std::string, std::pair<Expr, Expr>> seen;
  visitLStmt(a, [&](const LStmt &n) {
    if (n.kind == LStmt::Kind::For) seen.emplace(n.var, std::make_pair(n.min, n.extent));
  });
  bool same = true;
  visitLStmt(b, [&](const LStmt &n) {
    auto it = n.kind == LStmt::Kind::For ? seen.find(n.var) : seen.end();
    if (it != seen.end()) same &= sameExpr(it->second.first, n.min) && sameExpr(it->second.second, n.extent);
  });
  return same;
}

std::set<std::string> keys(const std::map<std::string, Expr> &m) {
  std::set<std::string> out;
  for (const auto &entry : m) out.insert(entry.first);
  return out;
}

// Versions the plain nests found anywhere in the tree it mutates.
class Versioner : public LoopMutator {
public:
  // `levels`: how many loop levels may still get their own version.
  // `failed`: the condition that just failed one level out (a copy testing
  // it again would never run).
  LStmtPtr nest(const LStmtPtr &root, int levels, const std::string &failed = "") {
    Env env;
    bindLoops(root, env);
    GatherGuards gathered(env, outer_.names());
    gathered.walkStmt(root);
    std::map<std::string, Expr> &removable = gathered.removable;
    const std::set<std::string> &lanes = gathered.lanes;
    const std::map<std::string, Expr> &windows = gathered.windows;
    // A window condition whose bound the test checks anyway (the rows of a
    // packing copy, bounded like the rows of the tile's stores) goes too:
    // its loop then keeps a constant trip count.
    std::set<std::string> tested;
    for (const auto &entry : removable) tested.insert(printExpr(entry.second));
    for (const auto &entry : windows)
      if (tested.count(printExpr(entry.second))) removable.insert(entry);
    Expr cond = allHold(removable, {});
    int64_t known = constant(cond);
    if (known == 1) return dropGuards(root, keys(removable));
    std::string text = cond ? printExpr(cond) : "";
    // A loop that no removable guard mentions (a channel block around the
    // filter blocks) gives nothing to test per iteration: descending through
    // it does not use up a level, so the loop that the guards do vary with
    // still gets its own copy one level further in — as long as what gets
    // copied there keeps a register tile whole (reduction, row and lane
    // loops: three levels), not inside a matmul tile's k loop, where a copy
    // per row would leave the rows to scalar code.
    bool spends = root->kind != LStmt::Kind::For || gathered.guardVars.count(root->var) || loopDepth(root->body) < 4;
    LStmtPtr slow = levels > 1 || !spends ? inner(root, spends ? levels - 1 : levels, text) : root;
    if (!cond || known == 0 || text == failed) return slow;
    // When the full test fails, a tile may still be whole in its outer
    // dimensions and only cut along the innermost one (a 56-wide image row
    // in 64-lane tiles): a second copy drops the outer guards and keeps the
    // innermost ones, which the backend turns into lane masks.
    if (!lanes.empty() && lanes.size() < removable.size()) {
      std::map<std::string, Expr> outer;
      for (const auto &entry : removable)
        if (!lanes.count(entry.first)) outer.insert(entry);
      Expr outerCond = allHold(outer, {});
      if (outerCond && constant(outerCond) != 0) {
        slow = lIf(outerCond, dropGuards(root, keys(outer)), slow, root->loc);
      }
    }
    return lIf(cond, dropGuards(root, keys(removable)), slow, root->loc);
  }

  // The conjunction of the conditions (each tested once: guards of
  // different accesses often need the same bound), simplified; null when
  // there are none.
  static Expr allHold(const std::map<std::string, Expr> &removable, std::set<std::string> seen) {
    Expr cond;
    for (const auto &entry : removable)
      if (seen.insert(printExpr(entry.second)).second) cond = conjoin(cond, entry.second);
    return cond ? simplify(cond) : cond;
  }

  // 1 / 0 for a constant true / false condition, -1 otherwise.
  static int64_t constant(const Expr &c) {
    if (!c || (c->kind != ExprKind::IntImm && c->kind != ExprKind::BoolImm)) return -1;
    return c->intValue != 0;
  }


  // Expressions are not rewritten here.
  Expr mutateExpr(const Expr &e) override { return e; }

protected:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    // Two levels: one level measured 0.98x the speed on the 50-shape sweep
    // (matmul and conv2d alike, tkc GFLOP/s, 3 runs against 2) for 9% less
    // text in nn.tk (152 -> 138 KB).
    if (s->forKind != ForKind::Parallel && plainNest(s)) return nest(s, 2);
    return LoopMutator::mutateFor(s);
  }

  LStmtPtr mutateBlock(const LStmtPtr &s) override {
    std::vector<LStmtPtr> stmts = siblings(s->stmts, [&](const LStmtPtr &x) { return mutateStmt(x); }, 2, "");
    if (stmts == s->stmts) return s;
    auto c = std::make_shared<LStmt>(*s);
    c->stmts = std::move(stmts);
    return c;
  }

  void enterScope(const LStmt &s) override { outer_.enterScope(s); }
  void leaveScope(const LStmt &s) override { outer_.leaveScope(s); }

private:
  // The statements of a block, each through `each`, but an initialisation
  // followed by a plain loop nest (the nest that accumulates into what it
  // set) is versioned as one: both then stay adjacent in every copy, which
  // the x86 backend needs to start the nest's register tile from the
  // constant (tileStart). Their guards are those of the same
  // elements, so the joint test rarely costs a full copy.
  std::vector<LStmtPtr> siblings(const std::vector<LStmtPtr> &stmts, const std::function<LStmtPtr(const LStmtPtr &)> &each,
                                 int levels, const std::string &failed) {
    std::vector<LStmtPtr> out;
    for (size_t i = 0; i < stmts.size(); ++i) {
      const LStmtPtr &x = stmts[i];
      if (i + 1 < stmts.size() && initialises(x) && stmts[i + 1]->kind == LStmt::Kind::For &&
          stmts[i + 1]->forKind != ForKind::Parallel && plainNest(stmts[i + 1]) && sameLoopBounds(x, stmts[i + 1])) {
        // Unversioned, the pair is spliced back: no block of its own.
        LStmtPtr v = nest(lBlock({x, stmts[i + 1]}, x->loc), levels, failed);
        if (v->kind == LStmt::Kind::Block) out.insert(out.end(), v->stmts.begin(), v->stmts.end());
        else out.push_back(v);
        ++i;
      } else {
        out.push_back(each(x));
      }
    }
    return out;
  }

  // The loops directly below `loop` (through blocks) get their own version;
  // for a pair (siblings), those directly below each of them. A descent
  // through blocks only, not a walk of the tree: what lies below those
  // loops is nest()'s.
  LStmtPtr inner(const LStmtPtr &loop, int levels, const std::string &failed) {
    if (loop->kind == LStmt::Kind::Block) {
      auto b = std::make_shared<LStmt>(*loop);
      for (LStmtPtr &x : b->stmts) x = inner(x, levels, failed);
      return b;
    }
    if (loop->kind == LStmt::Kind::If) { // a conditional initialisation (initialises)
      auto c = std::make_shared<LStmt>(*loop);
      c->thenS = inner(loop->thenS, levels, failed);
      if (loop->elseS) c->elseS = inner(loop->elseS, levels, failed);
      return c;
    }
    std::function<LStmtPtr(const LStmtPtr &)> go = [&](const LStmtPtr &s) -> LStmtPtr {
      if (s->kind == LStmt::Kind::For) return nest(s, levels, failed);
      if (s->kind != LStmt::Kind::Block) return s;
      auto b = std::make_shared<LStmt>(*s);
      b->stmts = siblings(s->stmts, go, levels, failed);
      return b;
    };
    auto c = std::make_shared<LStmt>(*loop);
    outer_.push(loop->var);
    c->body = go(loop->body);
    outer_.pop();
    return c;
  }

  static void bindLoops(const LStmtPtr &s, Env &env) {
    visitLStmt(s, [&](const LStmt &n) {
      if (n.kind != LStmt::Kind::For) return;
      // Outer loops are visited first (pre-order), so the bounds of this
      // loop's min and extent may use their intervals.
      auto lo = bounds(n.min, env);
      auto hi = bounds(simplify(sub(add(n.min, n.extent), intImm(1))), env);
      env[n.var] = Interval{lo ? simplify(lo->lo) : nullptr, hi ? simplify(hi->hi) : nullptr};
    });
  }

  // The bounded guards of the stores (and their loads) under a nest's
  // root; scope() holds the nest's loops around the current store. A
  // window condition of a store's innermost loop is left to
  // PartitionLoops: it fails at the loop's edges whatever the tile, and
  // would keep every tile on the guarded copy. Window conditions that can
  // be bounded go to `windows` instead.
  class GatherGuards : public LoopVisitor {
  public:
    GatherGuards(const Env &env, const std::set<std::string> &outer) : env_(env), outer_(outer) {}
    std::map<std::string, Expr> removable; // guard text -> when it always holds
    std::set<std::string> lanes;           // of those, the ones on a store's innermost loop
    std::map<std::string, Expr> windows;
    std::set<std::string> guardVars;       // the nest's loop variables the removable guards mention

  protected:
    void visitStore(const LStmt &s) override {
      std::vector<std::string> stack;
      for (const Binding &b : scope().vars()) stack.push_back(b.name);
      std::set<std::string> around = outer_;
      around.insert(stack.begin(), stack.end() - (stack.empty() ? 0 : 1));
      std::set<std::string> loops = around;
      loops.insert(stack.begin(), stack.end());
      auto collect = [&](const Expr &pred) {
        if (!pred) return;
        std::vector<Expr> parts;
        guardConjuncts(pred, parts);
        for (const Expr &g : parts) {
          Expr holds = holdsEverywhere(g, env_);
          if (!holds) continue;
          std::string text = printExpr(g);
          if (!stack.empty() && !edgeOfStore(g, s, loops) && isWindowCondition(g, stack.back(), around)) {
            windows.emplace(text, simplify(holds));
            continue;
          }
          removable.emplace(text, simplify(holds));
          for (const std::string &v : loops)
            if (mentionsVar(g, v)) guardVars.insert(v);
          if (!stack.empty() && mentionsVar(g, stack.back())) lanes.insert(text);
        }
      };
      auto loads = [&](const Expr &e) {
        if (e) visitExpr(e, [&](const Expr &n) {
          if (n->kind == ExprKind::Load) collect(n->pred);
        });
      };
      collect(s.pred);
      for (const Expr &i : s.indices) loads(i);
      loads(s.value);
    }

  private:
    const Env &env_;
    const std::set<std::string> &outer_;
  };

  EnclosingSerialLoops outer_; // serial loops enclosing the nest being versioned
};

} // namespace

LoweredFunc versionFullTiles(const LoweredFunc &f) {
  LoweredFunc out = f;
  out.body = Versioner().mutateStmt(f.body);
  return out;
}

} // namespace tk
