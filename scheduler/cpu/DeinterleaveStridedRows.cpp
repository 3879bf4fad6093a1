#include "scheduler/cpu/DeinterleaveStridedRows.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"
#include "scheduler/IndexRange.h"
#include "scheduler/cpu/PhaseRowCopy.h"
#include "scheduler/PartitionLoops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

// Which child of a statement a path step descends into.
enum class Slot { Body, Then, Else };

// Columns a padded group's reads reach, as phase-row columns: lowest, and
// one past the highest (expressions over symbols).
struct Reach {
  Expr lo, end;
};

// Loads of one row of `src` with stride k, all served by one copy placed at
// the start of `site`'s `slot` child.
struct Group {
  const LStmt *site = nullptr;
  Slot slot = Slot::Body;
  const LStmt *host = nullptr; // parallel loop whose body holds the buffer; null: the site's child
  std::string key;
  PhaseRows rows; // what the copy writes (PhaseRowCopy.h)
  // Padding is decided once all reads are seen: the group is padded when
  // every read in it is either unguarded (in range) or has a guard that
  // only says "inside T" with one constant `else` value (`pads`, with the
  // columns it reaches), and at least one is the latter; `mixed`: some
  // read is neither.
  std::vector<Expr> pads;
  std::vector<Reach> reach;
  bool mixed = false;
};

// A rewritten read: group and the offset e of `k*x + e`.
struct Read {
  size_t group;
  Expr offset;
};

// The loops the pass rewrites reads in: serial or vectorized, innermost.
bool innermostLoop(const LStmt &s) {
  return s.kind == LStmt::Kind::For && s.forKind != ForKind::Parallel && !containsLoop(s.body);
}

// Calls fn on every expression a statement holds (not its children's).
void visitOwnExprs(const LStmt &s, const std::function<void(const Expr &)> &fn) {
  for (const Expr &e : {s.min, s.extent, s.value, s.pred, s.cond})
    if (e) visitExpr(e, fn);
  for (const Expr &e : s.indices) visitExpr(e, fn);
}

class Deinterleave {
public:
  explicit Deinterleave(const LoweredFunc &f) : fresh_(f) {
    visitLStmt(f.body, [&](const LStmt &n) {
      if (n.kind == LStmt::Kind::Store) written_.insert(n.tensor.get());
    });
  }

  LStmtPtr run(const LStmtPtr &body) {
    Analyse(*this).walkStmt(body);
    if (groups_.empty()) return body;
    sizePaddedRows();
    return Rewrite(*this).mutateStmt(body);
  }

private:
  using Path = std::vector<std::pair<const LStmt *, Slot>>;

  // Records the strided reads of the innermost loops, with path_ the
  // statements (and their children) around each.
  class Analyse : public LoopVisitor {
  public:
    explicit Analyse(Deinterleave &d) : d_(d) {}
    void walkExpr(const Expr &) override {}
    void walkStmt(const LStmtPtr &s) override {
      if (!s || !innermostLoop(*s)) return LoopVisitor::walkStmt(s);
      if (!d_.path_.empty() && storesAlong(s->body, s->var)) d_.collect(*s);
    }

  protected:
    void enterScope(const LStmt &s) override { d_.path_.push_back({&s, Slot::Body}); }
    void leaveScope(const LStmt &) override { d_.path_.pop_back(); }
    void visitIf(const LStmt &s) override {
      d_.path_.push_back({&s, Slot::Then});
      walkStmt(s.thenS);
      d_.path_.back().second = Slot::Else;
      walkStmt(s.elseS);
      d_.path_.pop_back();
    }

  private:
    Deinterleave &d_;
  };

  // Records the strided reads of innermost loop `x`.
  void collect(const LStmt &x) {
    size_t top = windowTop(x);
    visitLStmt(x.body, [&](const LStmt &n) {
      visitOwnExprs(n, [&](const Expr &ld) {
        if (ld->kind != ExprKind::Load || ld->args.empty() || written_.count(ld->tensor.get())) return;
        std::vector<Expr> row(ld->args.begin(), ld->args.end() - 1);
        for (const Expr &i : row)
          if (mentionsVar(i, x.var)) return;
        std::optional<VarTerm> split = splitOnVar(ld->args.back(), x.var);
        if (!split || split->coef < 2 || split->coef > kMaxDeinterleavedStride) return;
        int64_t k = split->coef;
        Expr e = fromLinear(split->rest);
        size_t g = groupFor(top, ld->tensor, row, k);
        if (std::optional<Reach> reach = paddedReach(x, ld, e, k)) {
          groups_[g].pads.push_back(ld->pad);
          groups_[g].reach.push_back(*reach);
        } else if (ld->pred || ld->pad) {
          groups_[g].mixed = true;
        }
        reads_[{&x, ld.get()}] = Read{g, e};
      });
    });
  }

  // Where a read T[row, k*x + e] with a constant `else` value and a guard
  // that only says "inside T" reaches in phase-row columns x + e div k,
  // over the iterations of x and of the loops e depends on; nullopt when
  // the read does not qualify or a bound is not expressible over symbols.
  std::optional<Reach> paddedReach(const LStmt &x, const Expr &ld, const Expr &e, int64_t k) const {
    if (!ld->pad || (ld->pad->kind != ExprKind::FloatImm && ld->pad->kind != ExprKind::IntImm) || !guardOnlyBounds(ld))
      return std::nullopt;
    std::map<std::string, const LStmt *> loops{{x.var, &x}};
    std::set<std::string> bound;
    for (const auto &[a, slot] : path_) {
      if (a->kind == LStmt::Kind::For) loops[a->var] = a;
      else if (a->kind == LStmt::Kind::Let) bound.insert(a->var);
    }
    std::optional<IndexRange> xs = affineRange(var(x.var, VarKind::Loop), loops, bound);
    std::optional<IndexRange> es = affineRange(e, loops, bound);
    if (!xs || !es) return std::nullopt;
    return Reach{simplify(add(xs->lo, floorDiv(es->lo, intImm(k)))),
                 simplify(add(add(xs->hi, floorDiv(es->hi, intImm(k))), intImm(1)))};
  }

  // Decides which groups are padded, and sizes their rows to hold every
  // column their reads reach.
  void sizePaddedRows() {
    for (Group &g : groups_) {
      if (g.mixed || g.pads.empty()) continue;
      bool same = true;
      for (const Expr &p : g.pads) same = same && printExpr(p) == printExpr(g.pads[0]);
      if (!same) continue;
      PhaseRows &p = g.rows;
      p.pad = g.pads[0];
      Expr below = intImm(0), end = p.buf->shape.back();
      for (const Reach &r : g.reach) {
        below = binary(BinOp::Max, below, sub(intImm(0), r.lo));
        end = binary(BinOp::Max, end, r.end);
      }
      p.left = simplify(below);
      p.cols = simplify(add(p.left, end));
      p.buf->shape.back() = p.cols;
    }
  }

  // The group of row `row` of `src` read with stride k in an innermost loop
  // from the current path: its site is the nearest enclosing statement the
  // row depends on, or the statement above the loop's window loops, which
  // start at path index `top` (windowTop).
  size_t groupFor(size_t top, const TensorPtr &src, const std::vector<Expr> &row, int64_t k) {
    auto rowMentions = [&](const std::string &v) {
      for (const Expr &i : row)
        if (mentionsVar(i, v)) return true;
      return false;
    };
    size_t at = path_.size();
    while (at > 0) {
      const LStmt &a = *path_[at - 1].first;
      bool stop = a.kind == LStmt::Kind::If || (a.kind == LStmt::Kind::For && a.forKind == ForKind::Parallel) ||
                  ((a.kind == LStmt::Kind::For || a.kind == LStmt::Kind::Let) && rowMentions(a.var));
      if (stop) break;
      --at;
    }
    std::vector<const LStmt *> dims;
    if (at > top) {
      for (size_t i = top; i < path_.size(); ++i)
        if (rowMentions(path_[i].first->var)) dims.push_back(path_[i].first);
      at = top;
    }
    // Nothing the row depends on: copy once inside the outermost statement.
    if (at == 0) at = 1;
    const auto &[site, slot] = path_[at - 1];
    const LStmt *host = nullptr;
    for (size_t i = at; i > 0 && !host; --i)
      if (path_[i - 1].first->kind == LStmt::Kind::For && path_[i - 1].first->forKind == ForKind::Parallel)
        host = path_[i - 1].first;
    std::string key = fmt::format("{}:{}:{}:{}", reinterpret_cast<uintptr_t>(site), int(slot), src->name, k);
    for (const Expr &i : row) key += "," + printExpr(i);
    for (size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].key == key) return g;
    Group g;
    g.site = site, g.slot = slot, g.host = host, g.key = key;
    g.rows.src = src, g.rows.row = row, g.rows.k = k, g.rows.dims = dims;
    // Phase-major: each phase's rows for all window positions d are
    // contiguous, so the ranges the copy writes per phase stay disjoint
    // even over the whole d loop (LLVM widens its run-time overlap checks
    // to the enclosing loop; with d outermost they would always overlap).
    std::vector<Expr> shape{intImm(k)};
    for (const LStmt *l : dims) {
      shape.push_back(l->extent);
      g.rows.d.push_back(fresh_("d"));
    }
    shape.push_back(simplify(ceilDiv(src->shape.back(), intImm(k))));
    g.rows.buf = scratchTensor(fresh_(src->name + "_phases"), src->dtype, shape, Scope::Local, src->loc);
    g.rows.j = fresh_("j"), g.rows.q = fresh_("q");
    groups_.push_back(std::move(g));
    return groups_.size() - 1;
  }

  // Window loops: when x's body is one store T[..] = T[..] (+) L (a sum,
  // max or min of one read, not a product: pooling) inside a perfect nest
  // of serial loops that T's element does not move with (the window r, s),
  // the backend keeps T in registers across that whole nest
  // (MatchContraction.h) — as long as nothing is copied inside it. Returns
  // the path index of the outermost such loop, when it has bounds that
  // ignore the other window loops and a parent statement to copy in; else
  // path_.size() (no window loops).
  size_t windowTop(const LStmt &x) const {
    const LStmt *st = soleStmt(x.body.get());
    if (!st || st->kind != LStmt::Kind::Store || st->value->kind != ExprKind::Binary) return path_.size();
    BinOp op = st->value->binOp;
    if (op != BinOp::Add && op != BinOp::Max && op != BinOp::Min) return path_.size();
    for (const Expr &a : st->value->args)
      if (a->kind == ExprKind::Binary && a->binOp == BinOp::Mul) return path_.size();
    auto moves = [&](const std::string &v) {
      for (const Expr &i : st->indices)
        if (mentionsVar(i, v)) return true;
      return mentionsVar(st->pred, v);
    };
    size_t top = path_.size();
    const LStmt *inner = &x;
    while (top > 1) {
      const auto &[l, slot] = path_[top - 1];
      const LStmt *body = soleStmt(l->body.get());
      bool window = l->kind == LStmt::Kind::For && l->forKind == ForKind::Serial && slot == Slot::Body &&
                    body == inner && !moves(l->var);
      if (!window) break;
      inner = l;
      --top;
    }
    for (size_t i = top; i < path_.size(); ++i)
      for (size_t o = top; o < path_.size(); ++o)
        if (mentionsVar(path_[i].first->min, path_[o].first->var) ||
            mentionsVar(path_[i].first->extent, path_[o].first->var))
          return path_.size();
    return top;
  }

  // T[row, k*x + e] -> P[e mod k, x + e div k], keeping the read's guard;
  // in a padded group P[e mod k, L + x + e div k] without a guard.
  Expr readPhase(const LStmt &x, const Expr &ld) const {
    auto it = reads_.find({&x, ld.get()});
    if (it == reads_.end()) return ld;
    const PhaseRows &g = groups_[it->second.group].rows;
    const Expr &e = it->second.offset;
    std::vector<Expr> idx = {simplify(floorMod(e, intImm(g.k)))};
    for (const LStmt *l : g.dims) idx.push_back(simplify(sub(var(l->var, VarKind::Loop), l->min)));
    Expr col = add(var(x.var, VarKind::Loop), floorDiv(e, intImm(g.k)));
    if (g.pad) {
      idx.push_back(simplify(add(g.left, col)));
      return load(g.buf, idx, nullptr, nullptr, ld->loc);
    }
    idx.push_back(simplify(col));
    Expr pred = ld->pred;
    if (!pred && ld->pad) pred = withinTensor(*ld->tensor, ld->args);
    return load(g.buf, idx, ld->pad, pred, ld->loc);
  }

  // Places each group's copy (and buffer) at its site and rewrites the
  // recorded reads of the innermost loops.
  class Rewrite : public LoopMutator {
  public:
    explicit Rewrite(const Deinterleave &d) : d_(d) {}
    Expr mutateExpr(const Expr &e) override { return e; }
    LStmtPtr mutateStmt(const LStmtPtr &s) override {
      if (!s) return s;
      if (innermostLoop(*s)) {
        LStmtPtr body = ReplaceReads(d_, *s).mutateStmt(s->body);
        if (body == s->body) return s;
        auto n = std::make_shared<LStmt>(*s);
        n->body = body;
        return n;
      }
      LStmtPtr n = LoopMutator::mutateStmt(s);
      bool placed = std::any_of(d_.groups_.begin(), d_.groups_.end(),
                                [&](const Group &g) { return g.site == s.get() || g.host == s.get(); });
      if (!placed) return n;
      if (n == s) n = std::make_shared<LStmt>(*s);
      for (const Group &g : d_.groups_) {
        if (g.site != s.get()) continue;
        LStmtPtr &child = g.slot == Slot::Body ? n->body : g.slot == Slot::Then ? n->thenS : n->elseS;
        LStmtPtr c = phaseRowCopy(g.rows, s->loc);
        std::vector<LStmtPtr> stmts = c->kind == LStmt::Kind::Block ? c->stmts : std::vector<LStmtPtr>{c};
        stmts.push_back(child);
        child = lBlock(std::move(stmts), s->loc);
        if (!g.host) child = allocated(g, child);
      }
      for (const Group &g : d_.groups_)
        if (g.host == s.get()) n->body = allocated(g, n->body);
      return n;
    }

  private:
    const Deinterleave &d_;
  };

  // Replaces the recorded loads of innermost loop x, matching them by
  // their original nodes (before any child is rebuilt).
  class ReplaceReads : public LoopMutator {
  public:
    ReplaceReads(const Deinterleave &d, const LStmt &x) : d_(d), x_(x) {}

  protected:
    Expr mutateLoad(const Expr &e) override {
      if (d_.reads_.count({&x_, e.get()})) return d_.readPhase(x_, e);
      return LoopMutator::mutateLoad(e);
    }

  private:
    const Deinterleave &d_;
    const LStmt &x_;
  };

  // `body` inside g's buffer, whose padding columns are filled first.
  static LStmtPtr allocated(const Group &g, const LStmtPtr &body) {
    LStmtPtr fill = phaseRowPadFill(g.rows, body->loc);
    return lAlloc(g.rows.buf, fill ? lBlock({fill, body}, body->loc) : body, body->loc);
  }

  FreshNames fresh_;
  std::set<const TensorDecl *> written_;
  Path path_;
  std::vector<Group> groups_;
  std::map<std::pair<const LStmt *, const ExprNode *>, Read> reads_;
};

} // namespace

LoweredFunc deinterleaveStridedRows(const LoweredFunc &f) {
  LoweredFunc out = f;
  out.body = Deinterleave(f).run(f.body);
  return out;
}

} // namespace tk
