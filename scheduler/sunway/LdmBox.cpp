#include "scheduler/sunway/LdmBox.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "scheduler/IndexRange.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tk {
using namespace ir;

namespace {

struct Access {
  TensorPtr tensor;
  std::vector<Expr> indices;
  Expr pred;
  bool store = false;
  bool readsSelf = false;          // a store whose value reads its tensor
  std::vector<const LStmt *> path; // enclosing For and If statements, outermost first
};

// Every main-memory load and store of the body, in program order (a
// store's reads before it), with the statements around it.
class CollectAccesses final : public LoopVisitor {
public:
  std::vector<Access> out;
  std::set<const TensorDecl *> unstageable; // copied by a dma already

  void walkStmt(const LStmtPtr &s) override {
    bool scoped = s && (s->kind == LStmt::Kind::For || s->kind == LStmt::Kind::If);
    if (scoped) path_.push_back(s.get());
    LoopVisitor::walkStmt(s);
    if (scoped) path_.pop_back();
  }

protected:
  void visitFor(const LStmt &s) override {
    path_.pop_back(); // the bounds are read before the loop runs
    walkExpr(s.min);
    walkExpr(s.extent);
    path_.push_back(&s);
    walkBody(s);
  }
  void visitLoad(const Expr &e) override {
    LoopVisitor::visitLoad(e);
    if (e->tensor->scope == Scope::Global) out.push_back({e->tensor, e->args, e->pred, false, false, path_});
  }
  void visitStore(const LStmt &s) override {
    LoopVisitor::visitStore(s);
    if (s.tensor->scope != Scope::Global) return;
    bool self = false;
    visitExpr(s.value, [&](const Expr &n) { self |= n->kind == ExprKind::Load && n->tensor == s.tensor; });
    out.push_back({s.tensor, s.indices, s.pred, true, self, path_});
  }
  void visitDma(const LStmt &s) override {
    unstageable.insert(s.tensor.get());
    LoopVisitor::visitDma(s);
  }

private:
  std::vector<const LStmt *> path_;
};

// The loops of `a` inside level position `k` of its path (-1: the whole
// body), by name; nullopt when two of them share a name.
std::optional<std::map<std::string, const LStmt *>> innerLoops(const Access &a, int k) {
  std::map<std::string, const LStmt *> loops;
  for (size_t i = static_cast<size_t>(k + 1); i < a.path.size(); ++i)
    if (a.path[i]->kind == LStmt::Kind::For && !loops.emplace(a.path[i]->var, a.path[i]).second) return std::nullopt;
  return loops;
}

struct Option {
  int k;              // level: position in the common path, -1 = whole body
  std::vector<Expr> lo, hi;
  int64_t capacity;
  bool get;
};

// Whether `n` is the CPE's column (cpe % 8, op Mod) or row (cpe / 8, op
// Div) in the 8 x 8 array.
bool cpeBy8(const Expr &n, BinOp op, const std::string &cpe) {
  int64_t m;
  return n->kind == ExprKind::Binary && n->binOp == op && n->args[0]->kind == ExprKind::Var &&
         n->args[0]->name == cpe && isConstInt(n->args[1], &m) && m == 8;
}

// A CPE's column in the 8 x 8 array, cpe % 8, as a loop over the 8 columns,
// so that a box's range over it is the union of the 8 columns' boxes. A
// tile loop whose bounds depend on the CPE (clamped at the end of a
// dimension) runs over its constant bound instead: the union box may then
// reach past what some column reads, which a get-only box may (it is
// clamped to the tensor).
struct ColumnUnion {
  std::string cpe;
  LStmtPtr loop;
  std::vector<LStmtPtr> widened; // the loops standing for clamped ones
  explicit ColumnUnion(std::string c) : cpe(std::move(c)), loop(lFor(cpe + ".col", intImm(0), intImm(8), nullptr)) {}
  // `loops` with the column loop added and the CPE-dependent ones widened;
  // false when one has no constant bound.
  bool widen(std::map<std::string, const LStmt *> &loops) {
    for (auto &[name, l] : loops) {
      if (!mentionsVar(l->min, cpe) && !mentionsVar(l->extent, cpe)) continue;
      int64_t lo;
      auto n = constantBound(l->extent, true);
      if (!isConstInt(l->min, &lo) || !n) return false;
      widened.push_back(lFor(name, intImm(lo), intImm(std::max<int64_t>(*n, 1)), nullptr));
      l = widened.back().get();
    }
    loops[loop->var] = loop.get();
    return true;
  }
  Expr column(const Expr &i) const {
    return transformExpr(i, [&](const Expr &n) { return cpeBy8(n, BinOp::Mod, cpe) ? var(loop->var, VarKind::Loop) : n; });
  }
};

// The box of `accesses` (all of one tensor) when level `k` is fixed, or
// nullopt when it has no constant bound or, written, no store covers it.
// With `cols`, the read-only box's union over the CPE columns.
std::optional<Option> boxAt(const std::vector<const Access *> &accesses, int k, ColumnUnion *cols = nullptr) {
  const TensorDecl &t = *accesses.front()->tensor;
  Option o{k, {}, {}, 1, false};
  std::vector<std::vector<IndexRange>> ranges;
  std::vector<std::map<std::string, const LStmt *>> inner; // per access
  for (const Access *a : accesses) {
    if (cols && a->store) return std::nullopt;
    auto loops = innerLoops(*a, k);
    if (!loops) return std::nullopt;
    if (cols && !cols->widen(*loops)) return std::nullopt;
    inner.push_back(*loops);
    std::vector<IndexRange> r;
    for (const Expr &i : a->indices) {
      auto ir = affineRange(cols ? cols->column(i) : i, *loops, {});
      if (!ir) return std::nullopt;
      r.push_back(*ir);
    }
    ranges.push_back(std::move(r));
  }
  for (size_t d = 0; d < t.rank(); ++d) {
    // The accesses' ranges apart by constants: the widest; else their
    // min and max (a row read whole by one pass and in blocks by another).
    const IndexRange &base = ranges[0][d];
    int64_t dlo = 0, dhi = 0, x;
    bool constant = true;
    Expr lo = base.lo, hi = base.hi;
    for (const auto &r : ranges) {
      if (isConstInt(simplify(sub(r[d].lo, base.lo)), &x)) dlo = std::min(dlo, x);
      else constant = false;
      if (isConstInt(simplify(sub(r[d].hi, base.hi)), &x)) dhi = std::max(dhi, x);
      else constant = false;
      lo = binary(BinOp::Min, lo, r[d].lo), hi = binary(BinOp::Max, hi, r[d].hi);
    }
    o.lo.push_back(simplify(constant ? add(base.lo, intImm(dlo)) : lo));
    o.hi.push_back(simplify(constant ? add(base.hi, intImm(dhi)) : hi));
    auto ub = constantBound(simplify(add(sub(o.hi.back(), o.lo.back()), intImm(1))), true);
    if (!ub) return std::nullopt;
    o.capacity *= std::max<int64_t>(*ub, 1);
    if (o.capacity > (int64_t{1} << 30)) return std::nullopt;
  }
  bool written = std::any_of(accesses.begin(), accesses.end(), [](const Access *a) { return a->store; });
  if (!written) {
    o.get = true;
    return o;
  }
  // A store that writes every element of the box: each index fixed at this
  // level or one inner loop variable (distinct per dimension) plus a part
  // fixed at this level, no `if` around it inside the level, a guard that
  // says no more than "in bounds". With the index's range equal to the
  // box's, unit steps over it reach every element.
  for (size_t n = 0; n < accesses.size(); ++n) {
    const Access &s = *accesses[n];
    if (!s.store) continue;
    const auto &loops = inner[n];
    bool covers = !s.pred || guardOnlyBounds(load(s.tensor, s.indices, nullptr, s.pred));
    for (size_t i = static_cast<size_t>(k + 1); covers && i < s.path.size(); ++i)
      covers = s.path[i]->kind == LStmt::Kind::For;
    std::set<std::string> used;
    for (size_t d = 0; covers && d < s.indices.size(); ++d) {
      const Expr &i = s.indices[d];
      std::vector<std::string> inner;
      for (const auto &[name, l] : loops)
        if (mentionsVar(i, name)) inner.push_back(name);
      if (inner.size() > 1) covers = false;
      if (inner.size() == 1) {
        const std::string &v = inner[0];
        covers = used.insert(v).second && !mentionsVar(simplify(sub(i, var(v, VarKind::Loop))), v);
      }
      covers = covers && sameExpr(ranges[n][d].lo, o.lo[d]) && sameExpr(ranges[n][d].hi, o.hi[d]);
    }
    if (!covers) continue;
    // Read in unless this store comes first and finishes its box before
    // anything else of the tensor runs.
    const LStmt *top = s.path.size() > static_cast<size_t>(k + 1) ? s.path[k + 1] : nullptr;
    bool first = n == 0 && !s.readsSelf;
    for (size_t m = 1; first && m < accesses.size(); ++m)
      first = !top || std::find(accesses[m]->path.begin(), accesses[m]->path.end(), top) == accesses[m]->path.end();
    o.get = !first;
    return o;
  }
  return std::nullopt;
}

} // namespace

std::optional<int64_t> constantBound(const Expr &e, bool upper) {
  int64_t v;
  if (isConstInt(e, &v)) return v;
  if (e->kind != ExprKind::Binary) return std::nullopt;
  const Expr &a = e->args[0], &b = e->args[1];
  auto both = [&](bool ua, bool ub) -> std::optional<std::pair<int64_t, int64_t>> {
    auto x = constantBound(a, ua), y = constantBound(b, ub);
    if (!x || !y) return std::nullopt;
    return std::make_pair(*x, *y);
  };
  switch (e->binOp) {
  case BinOp::Add:
    if (auto p = both(upper, upper)) return p->first + p->second;
    return std::nullopt;
  case BinOp::Sub:
    if (auto p = both(upper, !upper)) return p->first - p->second;
    return std::nullopt;
  case BinOp::Mul: {
    // By a constant factor (a stride): the other side's bound scaled, from
    // the opposite side when the factor is negative.
    int64_t c;
    const Expr &x = isConstInt(a, &c) ? b : a;
    if (!isConstInt(a, &c) && !isConstInt(b, &c)) return std::nullopt;
    auto v = constantBound(x, c >= 0 ? upper : !upper);
    if (!v) return std::nullopt;
    return checkedMul(*v, c);
  }
  case BinOp::CDiv:
  case BinOp::Div: {
    // By a positive constant (a block count): the other side's bound divided.
    int64_t c;
    if (!isConstInt(b, &c) || c <= 0) return std::nullopt;
    auto v = constantBound(a, upper);
    if (!v) return std::nullopt;
    FoldResult r = foldIntBinary(e->binOp, *v, c);
    if (!r.ok()) return std::nullopt;
    return r.value;
  }
  case BinOp::Min:
  case BinOp::Max: {
    // min(a, b) <= either bound; max(a, b) >= either bound.
    bool either = (e->binOp == BinOp::Min) == upper;
    auto x = constantBound(a, upper), y = constantBound(b, upper);
    if (either) {
      if (x && y) return upper ? std::min(*x, *y) : std::max(*x, *y);
      return x ? x : y;
    }
    if (x && y) return upper ? std::max(*x, *y) : std::min(*x, *y);
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

namespace {

// Whether every CPE runs the level at path position `k` of `a` alike: no
// loop bound or condition around it (the level included) mentions `cpe`.
bool sameOnEveryCpe(const Access &a, int k, const std::string &cpe) {
  for (int i = 0; i <= k; ++i) {
    const LStmt &s = *a.path[static_cast<size_t>(i)];
    if (s.kind == LStmt::Kind::For && (mentionsVar(s.min, cpe) || mentionsVar(s.extent, cpe))) return false;
    if (s.kind == LStmt::Kind::If && mentionsVar(s.cond, cpe)) return false;
  }
  return true;
}

bool mentionsAny(const std::vector<Expr> &es, const std::string &v) {
  return std::any_of(es.begin(), es.end(), [&](const Expr &e) { return mentionsVar(e, v); });
}

// `es` with the CPE's row, cpe / 8, replaced by a variable of its own.
std::vector<Expr> withoutRow(const std::vector<Expr> &es, const std::string &cpe) {
  std::vector<Expr> out;
  for (const Expr &e : es)
    out.push_back(
        transformExpr(e, [&](const Expr &n) { return cpeBy8(n, BinOp::Div, cpe) ? var(cpe + ".row", VarKind::Loop) : n; }));
  return out;
}

} // namespace

std::vector<LdmPlan> planLdmBoxes(const LStmtPtr &body, int64_t budgetBytes, bool doubleBuffer,
                                  const std::string &cpe, bool rows) {
  CollectAccesses c;
  c.walkStmt(body);
  std::vector<TensorPtr> order;
  std::map<const TensorDecl *, std::vector<const Access *>> byTensor;
  for (const Access &a : c.out) {
    auto &v = byTensor[a.tensor.get()];
    if (v.empty()) order.push_back(a.tensor);
    v.push_back(&a);
  }
  std::vector<LdmPlan> plans;
  std::vector<std::vector<Option>> options;
  for (const TensorPtr &t : order) {
    const auto &acc = byTensor[t.get()];
    std::vector<Option> opts;
    if (!c.unstageable.count(t.get())) {
      // Levels: the whole body, then each loop all the accesses share.
      size_t common = acc.front()->path.size();
      for (const Access *a : acc) {
        size_t n = 0;
        while (n < common && n < a->path.size() && a->path[n] == acc.front()->path[n]) ++n;
        common = n;
      }
      // At a level every CPE runs alike, a box that differs between the
      // CPE columns alone first gets the option of their union.
      ColumnUnion cols(cpe);
      for (int k = -1; k < static_cast<int>(common); ++k) {
        if (k >= 0 && acc.front()->path[k]->kind != LStmt::Kind::For) continue;
        auto o = boxAt(acc, k);
        if (o && o->get && k >= 0 && rows && !cpe.empty() && (mentionsAny(o->lo, cpe) || mentionsAny(o->hi, cpe)) &&
            sameOnEveryCpe(*acc.front(), k, cpe))
          if (auto u = boxAt(acc, k, &cols); u && !mentionsAny(u->lo, cpe) && !mentionsAny(u->hi, cpe))
            opts.push_back(*u);
        if (o) opts.push_back(*o);
      }
    }
    LdmPlan plan;
    plan.tensor = t;
    plans.push_back(std::move(plan));
    options.push_back(std::move(opts));
  }
  // Outermost level each; while over budget, the largest buffer that has a
  // deeper level goes one level deeper, or, when none has, the largest goes
  // back to main memory (a row operator's row, read by each pass, has one
  // level; what it writes can go out in blocks instead).
  std::vector<size_t> at(plans.size(), 0);
  auto bytes = [&](size_t i) {
    return at[i] < options[i].size() ? options[i][at[i]].capacity * scalarTypeBytes(plans[i].tensor->dtype) + 32 : 0;
  };
  for (;;) {
    int64_t total = 0;
    std::optional<size_t> largest, movable;
    for (size_t i = 0; i < plans.size(); ++i) {
      total += bytes(i);
      if (!largest || bytes(i) > bytes(*largest)) largest = i;
      if (at[i] + 1 < options[i].size() && (!movable || bytes(i) > bytes(*movable))) movable = i;
    }
    if (total <= budgetBytes || !largest) break;
    ++at[movable ? *movable : *largest];
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    if (at[i] >= options[i].size()) continue;
    const Option &o = options[i][at[i]];
    LdmPlan &p = plans[i];
    p.placed = true;
    p.level = o.k < 0 ? nullptr : byTensor[p.tensor.get()].front()->path[o.k];
    p.lo = o.lo;
    p.hi = o.hi;
    p.capacity = o.capacity;
    p.get = o.get;
    p.put = std::any_of(byTensor[p.tensor.get()].begin(), byTensor[p.tensor.get()].end(),
                        [](const Access *a) { return a->store; });
    bool alike = !cpe.empty() && p.get && !p.put && o.k >= 0 &&
                 sameOnEveryCpe(*byTensor[p.tensor.get()].front(), o.k, cpe);
    p.shared = alike && !mentionsAny(p.lo, cpe) && !mentionsAny(p.hi, cpe);
    p.rowShared = alike && rows && !p.shared && !mentionsAny(withoutRow(p.lo, cpe), cpe) &&
                  !mentionsAny(withoutRow(p.hi, cpe), cpe);
  }
  if (!doubleBuffer) return plans;
  // A second buffer for each read-only box filled once per iteration of a
  // serial loop, in order, while the LDM has room for it.
  int64_t total = 0;
  for (size_t i = 0; i < plans.size(); ++i) total += bytes(i);
  for (size_t i = 0; i < plans.size(); ++i) {
    LdmPlan &p = plans[i];
    if (!p.aheadable() || total + bytes(i) > budgetBytes) continue;
    p.doubleBuffer = true;
    total += bytes(i);
  }
  return plans;
}

} // namespace tk
