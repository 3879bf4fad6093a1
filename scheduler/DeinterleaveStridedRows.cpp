#include "scheduler/DeinterleaveStridedRows.h"

#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "scheduler/PartitionLoops.h"

#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

constexpr int64_t kMaxStride = 8;

// Which child of a statement a path step descends into.
enum class Slot { Body, Then, Else };

// Loads of one row of `src` with stride k, all served by one copy placed at
// the start of `site`'s `slot` child.
struct Group {
  const LStmt *site = nullptr;
  Slot slot = Slot::Body;
  const LStmt *host = nullptr; // parallel loop whose body holds the buffer; null: the site's child
  TensorPtr src;
  std::vector<Expr> row;
  int64_t k = 0;
  std::string key;
  TensorPtr buf;
  std::string j, q; // the copy's loop variables
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

// 0 <= idx_d < shape_d for each given index (a prefix of t's dimensions).
Expr inBounds(const TensorDecl &t, const std::vector<Expr> &idx) {
  Expr ok = boolImm(true);
  for (size_t d = 0; d < idx.size(); ++d)
    ok = binary(BinOp::And, ok,
                binary(BinOp::And, binary(BinOp::LE, intImm(0), idx[d]), binary(BinOp::LT, idx[d], t.shape[d])));
  return simplify(ok);
}

class Deinterleave {
public:
  explicit Deinterleave(const LoweredFunc &f) {
    for (const Param &p : f.op->inputs) used_.insert(p.name);
    for (const TensorPtr &t : f.op->outputs) used_.insert(t->name);
    for (const std::string &s : f.op->symbols) used_.insert(s);
    visitLStmt(f.body, [&](const LStmt &n) {
      if (n.kind == LStmt::Kind::For || n.kind == LStmt::Kind::Let) used_.insert(n.var);
      if (n.tensor) used_.insert(n.tensor->name);
      if (n.kind == LStmt::Kind::Store) written_.insert(n.tensor.get());
      visitOwnExprs(n, [&](const Expr &e) {
        if (e->kind == ExprKind::Var) used_.insert(e->name);
      });
    });
  }

  LStmtPtr run(const LStmtPtr &body) {
    analyse(body);
    if (groups_.empty()) return body;
    return rewrite(body);
  }

private:
  using Path = std::vector<std::pair<const LStmt *, Slot>>;

  void analyse(const LStmtPtr &s) {
    if (!s) return;
    if (innermostLoop(*s)) {
      if (!path_.empty() && storesAlong(s->body, s->var)) collect(*s);
      return;
    }
    for (const LStmtPtr &c : s->stmts) analyse(c);
    path_.push_back({s.get(), Slot::Body});
    analyse(s->body);
    path_.back().second = Slot::Then;
    analyse(s->thenS);
    path_.back().second = Slot::Else;
    analyse(s->elseS);
    path_.pop_back();
  }

  // Records the strided reads of innermost loop `x`.
  void collect(const LStmt &x) {
    visitLStmt(x.body, [&](const LStmt &n) {
      visitOwnExprs(n, [&](const Expr &ld) {
        if (ld->kind != ExprKind::Load || ld->args.empty() || written_.count(ld->tensor.get())) return;
        std::vector<Expr> row(ld->args.begin(), ld->args.end() - 1);
        for (const Expr &i : row)
          if (mentionsVar(i, x.var)) return;
        LinearForm lf = linearize(simplify(ld->args.back()));
        int64_t k = 0;
        LinearForm rest;
        rest.constant = lf.constant;
        for (const auto &[atom, coef] : lf.terms) {
          if (atom->kind == ExprKind::Var && atom->name == x.var) {
            k += coef;
          } else {
            if (mentionsVar(atom, x.var)) return;
            rest.terms.push_back({atom, coef});
          }
        }
        if (k < 2 || k > kMaxStride) return;
        reads_[{&x, ld.get()}] = Read{groupFor(ld->tensor, row, k), fromLinear(rest)};
      });
    });
  }

  // The group of row `row` of `src` read with stride k from the current
  // path: its site is the nearest enclosing statement the row depends on.
  size_t groupFor(const TensorPtr &src, const std::vector<Expr> &row, int64_t k) {
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
    // Nothing the row depends on: copy once inside the outermost statement.
    if (at == 0) at = 1;
    const auto &[site, slot] = path_[at - 1];
    const LStmt *host = nullptr;
    for (size_t i = at; i > 0 && !host; --i)
      if (path_[i - 1].first->kind == LStmt::Kind::For && path_[i - 1].first->forKind == ForKind::Parallel)
        host = path_[i - 1].first;
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(site)) + ":" + std::to_string(int(slot)) + ":" +
                      src->name + ":" + std::to_string(k);
    for (const Expr &i : row) key += "," + printExpr(i);
    for (size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].key == key) return g;
    Group g;
    g.site = site, g.slot = slot, g.host = host, g.src = src, g.row = row, g.k = k, g.key = key;
    auto buf = std::make_shared<TensorDecl>();
    buf->name = fresh(src->name + "_phases");
    buf->dtype = src->dtype;
    buf->shape = {intImm(k), simplify(ceilDiv(src->shape.back(), intImm(k)))};
    buf->scope = Scope::Local;
    buf->role = TensorRole::Local;
    buf->loc = src->loc;
    g.buf = buf;
    g.j = fresh("j"), g.q = fresh("q");
    groups_.push_back(std::move(g));
    return groups_.size() - 1;
  }

  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int n = 1; used_.count(name); ++n) name = base + "_" + std::to_string(n);
    used_.insert(name);
    return name;
  }

  // if (row in bounds) {
  //   for j in 0..W / k { P[0, j] = T[row, j*k]; ...; P[k-1, j] = T[row, j*k + k-1] }
  //   for q in 0..W % k { P[q, W / k] = T[row, W / k * k + q] }
  // }
  LStmtPtr copy(const Group &g, SourceLoc loc) const {
    const Expr &w = g.src->shape.back();
    Expr whole = simplify(floorDiv(w, intImm(g.k)));
    Expr j = var(g.j, VarKind::Loop), q = var(g.q, VarKind::Loop);
    auto store = [&](Expr phase, Expr col, Expr elem) {
      LStmtPtr s = lStmt(LStmt::Kind::Store, loc);
      s->tensor = g.buf;
      s->indices = {std::move(phase), std::move(col)};
      std::vector<Expr> idx = g.row;
      idx.push_back(simplify(elem));
      s->value = load(g.src, idx);
      return s;
    };
    auto loop = [&](const std::string &v, Expr extent, LStmtPtr body) {
      LStmtPtr l = lStmt(LStmt::Kind::For, loc);
      l->var = v;
      l->min = intImm(0);
      l->extent = simplify(std::move(extent));
      l->body = std::move(body);
      return l;
    };
    std::vector<LStmtPtr> phases;
    for (int64_t p = 0; p < g.k; ++p) phases.push_back(store(intImm(p), j, add(mul(j, intImm(g.k)), intImm(p))));
    std::vector<LStmtPtr> body = {loop(g.j, whole, lBlock(std::move(phases), loc))};
    Expr tail = simplify(floorMod(w, intImm(g.k)));
    if (!provablyEquals(tail, 0))
      body.push_back(loop(g.q, tail, store(q, whole, add(mul(whole, intImm(g.k)), q))));
    LStmtPtr block = lBlock(std::move(body), loc);
    Expr ok = inBounds(*g.src, g.row);
    if (provablyEquals(ok, 1)) return block;
    LStmtPtr guard = lStmt(LStmt::Kind::If, loc);
    guard->cond = ok;
    guard->thenS = block;
    return guard;
  }

  // T[row, k*x + e] -> P[e mod k, x + e div k], keeping the read's guard.
  Expr readPhase(const LStmt &x, const Expr &ld) const {
    auto it = reads_.find({&x, ld.get()});
    if (it == reads_.end()) return ld;
    const Group &g = groups_[it->second.group];
    const Expr &e = it->second.offset;
    Expr pred = ld->pred;
    if (!pred && ld->pad) pred = inBounds(*ld->tensor, ld->args);
    Expr col = simplify(add(var(x.var, VarKind::Loop), floorDiv(e, intImm(g.k))));
    return load(g.buf, {simplify(floorMod(e, intImm(g.k))), col}, ld->pad, pred, ld->loc);
  }

  LStmtPtr rewrite(const LStmtPtr &s) {
    if (!s) return s;
    auto n = std::make_shared<LStmt>(*s);
    if (innermostLoop(*s)) {
      const LStmt &x = *s;
      // Reads are keyed by the original nodes: rewrite children first.
      n->body = rewriteLStmt(s->body, [&](const Expr &e) {
        return replaceReads(e, x);
      });
      return n;
    }
    for (LStmtPtr &c : n->stmts) c = rewrite(c);
    n->body = rewrite(s->body);
    n->thenS = rewrite(s->thenS);
    n->elseS = rewrite(s->elseS);
    for (const Group &g : groups_) {
      if (g.site != s.get()) continue;
      LStmtPtr &child = g.slot == Slot::Body ? n->body : g.slot == Slot::Then ? n->thenS : n->elseS;
      child = lBlock({copy(g, s->loc), child}, s->loc);
      if (!g.host) child = allocate(g, child);
    }
    for (const Group &g : groups_)
      if (g.host == s.get()) n->body = allocate(g, n->body);
    return n;
  }

  // Replaces the recorded loads of loop x, matching them by their original
  // nodes (a pre-order walk, before any child is rebuilt).
  Expr replaceReads(const Expr &e, const LStmt &x) const {
    if (!e) return e;
    if (e->kind == ExprKind::Load && reads_.count({&x, e.get()})) return readPhase(x, e);
    bool changed = false;
    auto n = std::make_shared<ExprNode>(*e);
    for (Expr &a : n->args) {
      Expr b = replaceReads(a, x);
      changed |= b != a;
      a = b;
    }
    for (Expr *p : {&n->pad, &n->pred}) {
      Expr b = replaceReads(*p, x);
      changed |= b != *p;
      *p = b;
    }
    return changed ? Expr(n) : e;
  }

  static LStmtPtr allocate(const Group &g, LStmtPtr body) {
    LStmtPtr a = lStmt(LStmt::Kind::Alloc, body->loc);
    a->tensor = g.buf;
    a->body = std::move(body);
    return a;
  }

  std::set<std::string> used_;
  std::set<const TensorDecl *> written_;
  Path path_;
  std::vector<Group> groups_;
  std::map<std::pair<const LStmt *, const ExprNode *>, Read> reads_;
};

} // namespace

LoweredFunc deinterleaveStridedRows(const LoweredFunc &f) {
  if (f.target != TargetFamily::Cpu) return f;
  LoweredFunc out = f;
  out.body = Deinterleave(f).run(f.body);
  return out;
}

} // namespace tk
