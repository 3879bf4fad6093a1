// Post-scheduling fusion (scheduler/Fusion.h): the legality predicates and
// the shape of the fused mapping IR, on ops built by the frontend.
#include "source_module.h"
#include "ir/IRRewrite.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/Fusion.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;

namespace {

// The op named `f` in `src`.
OpPtr opFrom(const std::string &src) {
  std::string diagnostics;
  ir::Module m = unittest::moduleFromSource(src, &diagnostics);
  REQUIRE(diagnostics == "");
  for (const OpPtr &op : m.ops)
    if (op->name == "f") return op;
  FAIL("no op f");
  return nullptr;
}

FusionState stateFor(const Op &op, size_t anchor) {
  FusionState s;
  s.anchor = anchor;
  for (size_t i = 0; i < op.body.size(); ++i) s.live.push_back(i);
  s.result = op.body[anchor].target;
  return s;
}

// Fuses the default schedule of `op` for `family`; returns the warnings'
// messages (JSON format: kept, not rendered, as the source is gone).
std::string fuse(const OpPtr &op, TargetFamily family, KernelPtr *out) {
  SourceManager sm;
  DiagEngine diags(sm);
  diags.setFormat(DiagEngine::Format::Json);
  TargetDesc t;
  t.family = family;
  *out = fuseStatements(defaultSchedule(op, t), diags);
  std::string msgs;
  for (const Diagnostic &d : diags.all()) msgs += d.message + "\n";
  return msgs;
}

size_t storesTo(const KernelPtr &k, const std::string &tensor) {
  size_t n = 0;
  visitMStmt(k->body, [&](const MStmt &s) { n += s.kind == MStmt::Kind::Store && s.tensor->name == tensor; });
  return n;
}

size_t allocs(const KernelPtr &k) {
  size_t n = 0;
  visitMStmt(k->body, [&](const MStmt &s) { n += s.kind == MStmt::Kind::Alloc; });
  return n;
}

const char *kConv = R"(
op f(X: f32[N, C, H, W], Wt: f32[F, C, R, S], bias: f32[F]) -> O: f32[N, F, H - R + 1, W - S + 1] {
  col[n, y < H - R + 1, x < W - S + 1, c, r < R, s < S] = X[n, c, y + r, x + s] else 0;
  mm[n, y, x, f] = sum(c, r, s) col[n, y, x, c, r, s] * Wt[f, c, r, s];
  O[n, f, y, x] = max(mm[n, y, x, f] + bias[f], 0.0);
}
)";

} // namespace

TEST_CASE("fusion: img2col prologue and permuting epilogue are legal") {
  OpPtr op = opFrom(kConv);
  FusionState s = stateFor(*op, 1);
  std::string why;
  CHECK(prologueApplies(*op, s, 0, &why));
  CHECK(epilogueApplies(*op, s, 2, &why));
}

TEST_CASE("fusion: cuda conv2d becomes one launch storing only O") {
  KernelPtr k;
  CHECK(fuse(opFrom(kConv), TargetFamily::Cuda, &k) == "");
  CHECK(k->body->stmts.size() == 1);
  CHECK(allocs(k) == 0);
  CHECK(storesTo(k, "O") == 1);
  CHECK(storesTo(k, "mm") == 0);
  CHECK(storesTo(k, "col") == 0);
}

TEST_CASE("fusion: cpu conv2d keeps the accumulator and adds the epilogue after it") {
  KernelPtr k;
  CHECK(fuse(opFrom(kConv), TargetFamily::Cpu, &k) == "");
  CHECK(allocs(k) == 1); // mm stays: the anchor accumulates into it
  CHECK(storesTo(k, "mm") == 2);
  CHECK(storesTo(k, "O") == 1);
  CHECK(storesTo(k, "col") == 0);
}

TEST_CASE("fusion: refusals say why") {
  std::string why;
  OpPtr two = opFrom(R"(
op f(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N], D: f32[M, K]) {
  a2[i, k] = A[i, k] * 2.0;
  C[i, j] = sum(k) a2[i, k] * B[k, j];
  D[i, k] = a2[i, k];
})");
  CHECK_FALSE(prologueApplies(*two, stateFor(*two, 1), 0, &why));
  CHECK(why.find("another consumer") != std::string::npos);
  CHECK_FALSE(epilogueApplies(*two, stateFor(*two, 1), 2, &why));
  CHECK(why == "it does not read 'C'");

  OpPtr bcast = opFrom(R"(
op f(A: f32[M, K], B: f32[K, N], V: f32[T]) -> O: f32[M, N, T] {
  mm[i, j] = sum(k) A[i, k] * B[k, j];
  O[i, j, t] = mm[i, j] * V[t];
})");
  CHECK_FALSE(epilogueApplies(*bcast, stateFor(*bcast, 0), 1, &why));
  CHECK(why.find("not bijective") != std::string::npos);

  // Once the epilogue is refused the op is scheduled statement by statement.
  KernelPtr k;
  CHECK(fuse(bcast, TargetFamily::Cuda, &k).find("cannot fuse 'O' into 'mm' as an epilogue") != std::string::npos);
  CHECK(k->body->stmts.size() == 3); // alloc mm, two launches
}

TEST_CASE("fusion: ops with several reductions are left alone") {
  OpPtr two = opFrom(R"(
op f(X: f32[M, N]) -> Y: f32[M] {
  a[i] = sum(j) X[i, j];
  Y[i] = max(j) X[i, j] - a[i];
})");
  TargetDesc t;
  KernelPtr base = defaultSchedule(two, t);
  SourceManager srcs;
  DiagEngine diags(srcs);
  CHECK(fuseStatements(base, diags) == base);
}
