#include "scheduler/cpu/InstrumentMappingChecks.h"

#include "ir/IRRewrite.h"

#include <fmt/format.h>

#include <map>

namespace tk {
using namespace ir;

namespace {

// Status returned when a write check fails (docs/abi.md; the runtime's
// TKRT_STATUS_MAPPING_CHECK_FAILED).
constexpr int kMappingCheckFailed = 8;
constexpr int64_t kHigh = int64_t(1) << 32;

// Stands for the worker of the enclosing parallel loop until that loop is
// rebuilt (statements are rebuilt bottom-up); -1 outside every one.
const char *const kWorker = "@worker";

Expr i64(int64_t v) { return intImm(v, ScalarType::I64); }

LStmtPtr storeTo(const TensorPtr &t, std::vector<Expr> idx, Expr value, Expr pred, SourceLoc loc) {
  auto s = lStmt(LStmt::Kind::Store, loc);
  s->tensor = t;
  s->indices = std::move(idx);
  s->value = std::move(value);
  s->pred = std::move(pred);
  return s;
}

// The record of a store to Z[idx] (see the header):
//   race = old != 0 && old / 2^32 == phase && old % 2^32 != tag
//   writes[1, idx] = race ? tag : writes[1, idx]
//   writes[0, idx] = race ? old : phase << 32 | tag
LStmtPtr record(const LStmt &store, const TensorPtr &writes, const TensorPtr &phase) {
  auto at = [&](int64_t half) {
    std::vector<Expr> idx{i64(half)};
    idx.insert(idx.end(), store.indices.begin(), store.indices.end());
    return idx;
  };
  Expr old = load(writes, at(0), i64(0), store.pred);
  Expr tag = add(var(kWorker, VarKind::Loop), i64(2));
  Expr now = load(phase, {});
  Expr race = binary(BinOp::And, binary(BinOp::NE, old, i64(0)),
                     binary(BinOp::And, binary(BinOp::EQ, floorDiv(old, i64(kHigh)), now),
                            binary(BinOp::NE, floorMod(old, i64(kHigh)), tag)));
  Expr other = load(writes, at(1), i64(0), store.pred);
  return lBlock({storeTo(writes, at(1), select(race, tag, other), store.pred, store.loc),
                 storeTo(writes, at(0), select(race, old, add(mul(now, i64(kHigh)), tag)), store.pred, store.loc)},
                store.loc);
}

// for d0 in [0, shape0) ... t[d0, ...] = 0
LStmtPtr zero(const TensorPtr &t) {
  std::vector<Expr> idx;
  for (size_t d = 0; d < t->rank(); ++d) idx.push_back(var(fmt::format("{}.d{}", t->name, d), VarKind::Loop));
  LStmtPtr nest = storeTo(t, idx, i64(0), nullptr, t->loc);
  for (size_t d = t->rank(); d-- > 0;) nest = lFor(idx[d]->name, i64(0), t->shape[d], nest, t->loc);
  return nest;
}

LStmtPtr nextPhase(const TensorPtr &phase, SourceLoc loc) {
  return storeTo(phase, {}, add(load(phase, {}), i64(1)), nullptr, loc);
}

Expr replaceWorker(const Expr &e, const Expr &worker) {
  return transformExpr(e, [&](const Expr &n) { return n->kind == ExprKind::Var && n->name == kWorker ? worker : n; });
}

} // namespace

LoweredFunc instrumentMappingChecks(const LoweredFunc &f) {
  if (f.op->outputs.empty()) return f;
  TensorPtr phase = scratchTensor("mapping.phase", ScalarType::I64, {}, Scope::Local, f.loc);
  std::map<const TensorDecl *, TensorPtr> writes;
  for (const TensorPtr &t : f.op->outputs) {
    std::vector<Expr> shape{i64(2)};
    shape.insert(shape.end(), t->shape.begin(), t->shape.end());
    writes[t.get()] = scratchTensor(t->name + ".writes", ScalarType::I64, shape, Scope::Global, t->loc);
  }
  LStmtPtr body = transformLStmt(f.body, [&](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind == LStmt::Kind::Store) {
      auto it = writes.find(s->tensor.get());
      return it == writes.end() ? s : lBlock({s, record(*s, it->second, phase)}, s->loc);
    }
    if (s->kind != LStmt::Kind::For || s->forKind == ForKind::Serial || s->forKind == ForKind::Unrolled) return s;
    bool parallel = s->forKind == ForKind::Parallel;
    if (parallel)
      s->body = rewriteLStmt(s->body, [&](const Expr &e) { return replaceWorker(e, var(s->var, VarKind::Loop)); });
    s->forKind = ForKind::Serial;
    s->worker.reset();
    return parallel ? lBlock({nextPhase(phase, s->loc), s, nextPhase(phase, s->loc)}, s->loc) : s;
  });
  body = rewriteLStmt(body, [](const Expr &e) { return replaceWorker(e, i64(-1)); });
  std::vector<LStmtPtr> stmts{storeTo(phase, {}, i64(0), nullptr, f.loc)};
  for (const TensorPtr &t : f.op->outputs) stmts.push_back(zero(writes[t.get()]));
  stmts.push_back(body);
  for (const TensorPtr &t : f.op->outputs) {
    auto check = lStmt(LStmt::Kind::Check, f.loc);
    check->cond = boolImm(true);
    check->tensor = writes[t.get()];
    check->var = t->name;
    check->errorCode = kMappingCheckFailed;
    check->message = "--check-mappings: every element of " + t->name + " written, by one worker per parallel loop";
    stmts.push_back(check);
  }
  LStmtPtr out = lBlock(std::move(stmts), f.loc);
  for (const TensorPtr &t : f.op->outputs) out = lAlloc(writes[t.get()], out, f.loc);
  LoweredFunc g = f;
  g.body = lAlloc(phase, out, f.loc);
  return g;
}

} // namespace tk
