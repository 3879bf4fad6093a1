#include "ir/SpellReductions.h"

#include "ir/IRRewrite.h"
#include "ir/Reduction.h"

#include <fmt/format.h>

#include <functional>
#include <set>

namespace tk::ir {

namespace {

class Speller {
public:
  explicit Speller(const Kernel &k) {
    if (k.op) {
      used_.insert(k.op->symbols.begin(), k.op->symbols.end());
      for (const Param &p : k.op->inputs) used_.insert(p.name);
      for (const TensorPtr &t : k.op->outputs) used_.insert(t->name);
      for (const TensorPtr &t : k.op->intermediates) used_.insert(t->name);
    }
    // Variables a reduction binds are its own, not the kernel's.
    std::function<void(const Expr &, const std::set<std::string> &)> walk = [&](const Expr &e,
                                                                               const std::set<std::string> &bound) {
      if (!e) return;
      if (e->kind == ExprKind::Var && !bound.count(e->name)) used_.insert(e->name);
      std::set<std::string> inner = bound;
      for (const IndexVar &v : e->rvars) {
        walk(v.extent, bound);
        taken_.insert(v.name);
        inner.insert(v.name);
      }
      for (const Expr &a : e->args) walk(a, inner);
      walk(e->pad, inner);
      walk(e->pred, inner);
    };
    auto names = [&](const Expr &e) { walk(e, {}); };
    visitMStmt(k.body, [&](const MStmt &s) {
      used_.insert(s.vars.begin(), s.vars.end());
      if (!s.var.empty()) used_.insert(s.var);
      if (s.tensor) used_.insert(s.tensor->name);
      for (const Expr &e : {s.begin, s.end, s.value, s.cond}) names(e);
      for (const Expr &e : s.indices) names(e);
      for (const Expr &e : s.operands) names(e);
      for (const MappingAtom &a : s.mapping.atoms)
        for (const Expr &d : a.dims) names(d);
    });
    taken_.insert(used_.begin(), used_.end());
  }

  MStmtPtr rewrite(const MStmtPtr &body) { return transform(body); }

private:
  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int i = 1; taken_.count(name); ++i) name = fmt::format("{}_{}", base, i);
    taken_.insert(name);
    return name;
  }

  // `s`'s reductions spelt as loops: a block of the accumulators'
  // statements and the store reading them.
  MStmtPtr store(const MStmtPtr &s) {
    std::vector<MStmtPtr> out;
    Expr value = outermost(s->value, out, s->loc);
    auto st = std::make_shared<MStmt>(*s);
    st->value = value;
    out.push_back(st);
    return mBlock(std::move(out), s->loc);
  }

  // Replaces each outermost Reduce of `e` (pre-order) by a read of its
  // accumulator, whose statements go to `out`.
  Expr outermost(const Expr &e, std::vector<MStmtPtr> &out, SourceLoc loc) {
    if (!e || !containsReduce(e)) return e;
    if (e->kind == ExprKind::Reduce) return accumulator(e, out, loc);
    auto copy = std::make_shared<ExprNode>(*e);
    for (Expr &a : copy->args) a = outermost(a, out, loc);
    return copy;
  }

  Expr accumulator(const Expr &r, std::vector<MStmtPtr> &out, SourceLoc loc) {
    ScalarType type = accumulatorType(r->reduceOp, r->type);
    TensorPtr acc = scratchTensor(fresh("acc"), type, {}, Scope::Register, loc);
    out.push_back(mAlloc(acc, loc));
    out.push_back(mStore(acc, {}, reductionIdentity(r->reduceOp, type), AccumOp::None, loc));
    // Reduction variables become loops; one that would shadow a name of the
    // kernel or an enclosing reduction's loop is renamed.
    std::vector<std::pair<std::string, Expr>> renamed;
    std::vector<std::string> loops;
    for (const IndexVar &v : r->rvars) {
      std::string name = used_.count(v.name) || open_.count(v.name) ? fresh(v.name) : v.name;
      loops.push_back(name);
      renamed.push_back({v.name, var(name, VarKind::Loop)});
    }
    Expr body = substitute(r->args[0], renamed);
    std::vector<MStmtPtr> inner;
    open_.insert(loops.begin(), loops.end());
    Expr term = outermost(body, inner, loc);
    for (const std::string &l : loops) open_.erase(l);
    inner.push_back(mStore(acc, {}, term, accumFor(r->reduceOp), loc));
    MStmtPtr nest = mBlock(std::move(inner), loc);
    for (size_t i = loops.size(); i-- > 0;) nest = mSeqFor(loops[i], substitute(r->rvars[i].extent, renamed), nest, loc);
    out.push_back(nest);
    return load(acc, {});
  }

  MStmtPtr transform(const MStmtPtr &s) {
    if (!s) return s;
    if (s->kind == MStmt::Kind::Store && containsReduce(s->value)) return store(s);
    auto copy = std::make_shared<MStmt>(*s);
    for (MStmtPtr &c : copy->stmts) c = transform(c);
    copy->body = transform(s->body);
    copy->thenS = transform(s->thenS);
    copy->elseS = transform(s->elseS);
    return copy;
  }

  // used_: the kernel's names but its reduction variables; taken_: all of
  // them and every name made here; open_: the reduction loops being built.
  std::set<std::string> used_, taken_, open_;
};

} // namespace

KernelPtr spellReductions(const Kernel &k) {
  auto out = std::make_shared<Kernel>(k);
  out->body = Speller(k).rewrite(k.body);
  return out;
}

} // namespace tk::ir
