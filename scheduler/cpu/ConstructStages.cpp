#include "scheduler/cpu/ConstructStages.h"

#include "ir/IRVisitor.h"
#include "scheduler/Refusal.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

// Statements [first, last) of the op, as an op of their own (stageOp),
// and, when constructed, their kernel.
struct Stage {
  size_t first = 0, last = 0;
  OpPtr op;
  KernelPtr kernel;
};

// The tensors `e` reads.
void collectReads(const Expr &e, std::vector<TensorPtr> &out) {
  visitExpr(e, [&](const Expr &n) {
    if (n->kind == ExprKind::Load && std::find(out.begin(), out.end(), n->tensor) == out.end()) out.push_back(n->tensor);
  });
}

bool contains(const std::vector<TensorPtr> &v, const TensorPtr &t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// Statements [first, last) of `op` as an op of their own: the op's inputs
// plus what earlier statements wrote and these read; as outputs, what they
// write that the op returns or a later statement reads; the rest of what
// they write as intermediates. Same tensors (pointers), symbols and `where`.
OpPtr stageOp(const Op &op, size_t first, size_t last) {
  auto s = std::make_shared<Op>();
  s->name = op.name;
  s->symbols = op.symbols;
  s->where = op.where;
  s->loc = op.loc;
  s->inputs = op.inputs;
  std::vector<TensorPtr> written, readLater, read;
  for (size_t i = first; i < last; ++i) {
    const Assign &a = op.body[i];
    collectReads(a.value, read);
    // Read before this stage writes it: an earlier stage's value.
    for (const TensorPtr &t : read)
      if (!contains(written, t) && (isOutputOf(op, t.get()) || isIntermediateOf(op, t.get())) &&
          std::none_of(s->inputs.begin(), s->inputs.end(), [&](const Param &p) { return p.tensor == t; }))
        s->inputs.push_back(Param{t->name, t->dtype, t, t->loc});
    if (!contains(written, a.target)) written.push_back(a.target);
    s->body.push_back(a);
  }
  for (size_t i = last; i < op.body.size(); ++i) collectReads(op.body[i].value, readLater);
  for (const TensorPtr &t : written) {
    if (isOutputOf(op, t.get()) || contains(readLater, t)) s->outputs.push_back(t);
    else s->intermediates.push_back(t);
  }
  return s;
}

// Whether statement i's target is read by no statement after i + 1 and is
// not an output: then a fold of i and i + 1 needs not store it.
bool consumedOnlyByNext(const Op &op, size_t i) {
  const TensorPtr &t = op.body[i].target;
  if (!isIntermediateOf(op, t.get()) || i + 1 >= op.body.size()) return false;
  std::vector<TensorPtr> later;
  for (size_t j = i + 2; j < op.body.size(); ++j) collectReads(op.body[j].value, later);
  for (size_t j = i + 1; j < op.body.size(); ++j)
    if (op.body[j].target == t) return false;
  return !contains(later, t);
}

// Cuts the op into stages: constructed statements (or folded pairs) and
// runs of the others.
std::vector<Stage> cut(const Op &op, const ConstructOne &construct) {
  std::vector<Stage> stages;
  size_t runStart = 0;
  auto closeRun = [&](size_t at) {
    if (runStart < at) stages.push_back(Stage{runStart, at, stageOp(op, runStart, at), nullptr});
  };
  for (size_t i = 0; i < op.body.size();) {
    KernelPtr k;
    OpPtr sub;
    size_t len = 0;
    if (consumedOnlyByNext(op, i) && (k = construct(sub = stageOp(op, i, i + 2)))) len = 2;
    if (!k && (k = construct(sub = stageOp(op, i, i + 1)))) len = 1;
    if (!k) {
      ++i;
      continue;
    }
    closeRun(i);
    stages.push_back(Stage{i, i + len, sub, k});
    i += len;
    runStart = i;
  }
  closeRun(op.body.size());
  return stages;
}

} // namespace

KernelPtr constructStages(const OpPtr &op, const ConstructOne &construct, PassContext &ctx, std::string *reason) {
  if (op->body.size() < 2) return refuse(reason, "the op has one statement"), nullptr;
  std::vector<Stage> stages = cut(*op, construct);
  if (std::none_of(stages.begin(), stages.end(), [](const Stage &s) { return s.kernel != nullptr; }))
    return refuse(reason, "no statement is one the constructor takes"), nullptr;
  // A tensor written in two stages would be an output of both sub-ops,
  // each free to drop the other's values: keep the whole-op schedule.
  std::set<const TensorDecl *> seen;
  for (const Stage &s : stages) {
    std::set<const TensorDecl *> mine;
    for (size_t i = s.first; i < s.last; ++i) mine.insert(op->body[i].target.get());
    for (const TensorDecl *t : mine)
      if (!seen.insert(t).second) return refuse(reason, "'" + t->name + "' is assigned in two stages"), nullptr;
  }
  std::vector<MStmtPtr> body;
  std::vector<TensorPtr> crossing;
  for (const Stage &s : stages) {
    for (const TensorPtr &t : s.op->outputs)
      if (isIntermediateOf(*op, t.get()) && !contains(crossing, t)) crossing.push_back(t);
  }
  for (const TensorPtr &t : crossing) body.push_back(mAlloc(t, t->loc));
  for (const Stage &s : stages) {
    KernelPtr k = s.kernel ? s.kernel : ctx.defaultKernel(s.op);
    body.push_back(k->body);
  }
  return synthesizedKernel(op, TargetFamily::Cpu, mBlock(std::move(body), op->loc));
}

} // namespace tk
