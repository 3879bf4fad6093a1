#include "scheduler/LowerReductions.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Reduction.h"

#include <fmt/format.h>

#include <set>
#include <utility>

namespace tk {
using namespace ir;

namespace {

struct Pending {
  TensorPtr acc;
  Expr reduce; // the Reduce node, variables already renamed
};

// Hoists the outermost reductions of each statement's own expressions
// (bounds, indices, values, guards, conditions, intrinsic operands) in
// front of it: an accumulator, its identity, and the loops over the
// reduction variables, whose body is lowered the same way.
class Lowerer : public LoopMutator {
public:
  std::set<std::string> used; // every name in the function, for fresh accumulator names

  // Binds the function's symbols and scalar parameters around the body.
  void bindOuter(const std::string &name) { scope_.bindVar(name, BindingKind::Outer); }

  LStmtPtr mutateStmt(const LStmtPtr &s) override {
    std::vector<Pending> outer = std::exchange(pending_, {});
    LStmtPtr n = LoopMutator::mutateStmt(s);
    std::vector<Pending> own = std::exchange(pending_, std::move(outer));
    if (own.empty()) return n;
    std::vector<LStmtPtr> seq;
    for (const Pending &p : own) compute(p, seq);
    seq.push_back(n);
    LStmtPtr out = lBlock(std::move(seq), s->loc);
    for (size_t i = own.size(); i-- > 0;) out = lAlloc(own[i].acc, out, s->loc);
    return out;
  }

protected:
  // An outermost Reduce becomes a load of a new accumulator; its body is
  // lowered with the accumulator's loops (compute).
  Expr mutateReduce(const Expr &e) override {
    auto red = std::make_shared<ExprNode>(*e);
    std::vector<std::pair<std::string, Expr>> renames;
    for (IndexVar &v : red->rvars) {
      if (!scope_.hasVar(v.name)) continue;
      std::string n = fresh(v.name);
      renames.push_back({v.name, var(n, VarKind::Loop, ScalarType::I64, v.loc)});
      v.name = n;
    }
    red->args[0] = substitute(e->args[0], renames);
    // The frontend builds sums of f16/bf16/i8 in f32/i32 already; a
    // Reduce of a narrower type from elsewhere still accumulates wide and
    // is converted once, at the end.
    ScalarType accType = accumulatorType(e->reduceOp, e->type);
    TensorPtr acc = scratchTensor(fresh("acc"), accType, {}, Scope::Register, e->loc);
    pending_.push_back({acc, red});
    Expr result = load(acc, {}, nullptr, nullptr, e->loc);
    return accType == e->type ? result : cast(e->type, result, e->loc);
  }

private:
  std::vector<Pending> pending_; // of the statement being lowered

  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int i = 1; used.count(name) || scope_.hasVar(name); ++i) name = fmt::format("{}_{}", base, i);
    used.insert(name);
    return name;
  }

  // acc = identity; for (rvars) { acc = acc op body }  (body lowered recursively)
  void compute(const Pending &p, std::vector<LStmtPtr> &out) {
    const Expr &r = p.reduce;
    auto init = lStmt(LStmt::Kind::Store, r->loc);
    init->tensor = p.acc;
    init->value = reductionIdentity(r->reduceOp, p.acc->dtype);
    auto update = lStmt(LStmt::Kind::Store, r->loc);
    update->tensor = p.acc;
    update->value = reductionCombine(r->reduceOp, load(p.acc, {}), r->args[0]);
    size_t outer = scope_.vars().size();
    for (const IndexVar &v : r->rvars) scope_.bindVar(v.name, BindingKind::Loop);
    LStmtPtr body = mutateStmt(update);
    scope_.popVars(outer);
    for (size_t i = r->rvars.size(); i-- > 0;) body = lFor(r->rvars[i].name, intImm(0), r->rvars[i].extent, body, r->loc);
    out.push_back(init);
    out.push_back(body);
  }
};

} // namespace

LoweredFunc lowerReductions(const LoweredFunc &f) {
  Lowerer l;
  for (const std::string &s : f.op->symbols) l.used.insert(s);
  for (const Param &p : f.op->inputs) l.used.insert(p.name);
  for (const TensorPtr &t : f.op->outputs) l.used.insert(t->name);
  visitLStmt(f.body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::For || s.kind == LStmt::Kind::Let) l.used.insert(s.var);
    if (s.kind == LStmt::Kind::Alloc) l.used.insert(s.tensor->name);
  });
  for (const std::string &s : f.op->symbols) l.bindOuter(s);
  for (const Param &p : f.op->inputs)
    if (p.isScalar()) l.bindOuter(p.name);
  LoweredFunc out = f;
  out.body = l.mutateStmt(f.body);
  return out;
}

} // namespace tk
