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

TEST_CASE("fusion: a prologue whose inputs are re-assigned before the anchor is refused (issue 19)") {
  // Inlined into Y, t would read u's second value.
  OpPtr op = opFrom(R"(
op f(X: f32[N]) -> Y: f32[N] {
  u[i] = X[i];
  t[i] = u[i] * 2.0;
  u[i] = X[i] + 1.0;
  Y[i] = (sum(k) t[k]) + u[i];
})");
  std::string why;
  CHECK_FALSE(prologueApplies(*op, stateFor(*op, 3), 1, &why));
  CHECK(why == "it reads 'u', which the statement at line 5:3 assigns before the anchor runs");
  KernelPtr k;
  fuse(op, TargetFamily::Cpu, &k);
  CHECK(storesTo(k, "t") == 1);
  // A prologue reading only inputs still fuses across an unrelated statement.
  OpPtr ok = opFrom(R"(
op f(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
  t[i] = X[i] * 2.0;
  Z[i] = X[i] + 1.0;
  Y[i] = (sum(k) t[k]) + Z[i];
})");
  CHECK(prologueApplies(*ok, stateFor(*ok, 2), 0, &why));
}

TEST_CASE("fusion: an epilogue writing a tensor the anchor reads is refused (issue 19)") {
  // Applied at mm's store, E[i] would change while other rows read E[k].
  OpPtr op = opFrom(R"(
op f(X: f32[N]) -> E: f32[N] {
  E[i] = X[i];
  mm[i] = sum(k) E[k] * X[i];
  E[i] = mm[i] + 1.0;
})");
  std::string why;
  CHECK_FALSE(epilogueApplies(*op, stateFor(*op, 1), 2, &why));
  CHECK(why == "'E' is read by the statement at line 4:3, which would see the values this statement stores while it runs");
  KernelPtr k;
  fuse(op, TargetFamily::Cpu, &k);
  CHECK(storesTo(k, "mm") == 1);
  CHECK(storesTo(k, "E") == 2);
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

// Reshape epilogues: mixed-radix flattenings of the epilogue's variables.
namespace {

// Whether the epilogue (statement 1 of `src`'s op f, anchor 0) applies; its
// refusal reason, or "" when it does.
std::string epilogueReason(const std::string &src) {
  OpPtr op = opFrom(src);
  std::string why;
  if (epilogueApplies(*op, stateFor(*op, 0), 1, &why)) return "";
  return why;
}

// The indices (printed) of the stores to `tensor` in k.
std::vector<std::string> storeIndices(const KernelPtr &k, const std::string &tensor) {
  std::vector<std::string> out;
  visitMStmt(k->body, [&](const MStmt &s) {
    if (s.kind != MStmt::Kind::Store || s.tensor->name != tensor) return;
    std::string text;
    for (const Expr &i : s.indices) text += (text.empty() ? "" : ", ") + printExpr(i);
    out.push_back(text);
  });
  return out;
}

const char *kConvAsMatmul = R"(
op f(X: f32[N*OH*OW, C], Wt: f32[C, F], bias: f32[F]) -> O: f32[N, F, OH, OW] {
  mm[p, f] = sum(c) X[p, c] * Wt[c, f];
  O[n, f, y, x] = max((mm[n*OH*OW + y*OW + x, f] else 0) + bias[f], 0.0);
}
)";

} // namespace

TEST_CASE("fusion: a 2-D anchor read as 4-D through a mixed-radix row index fuses") {
  CHECK(epilogueReason(kConvAsMatmul) == "");
  KernelPtr k;
  CHECK(fuse(opFrom(kConvAsMatmul), TargetFamily::Cuda, &k) == "");
  CHECK(k->body->stmts.size() == 1);
  CHECK(allocs(k) == 0);
  CHECK(storesTo(k, "mm") == 0);
  // The inverse: n = p / (OH*OW), y = p / OW % OH, x = p % OW.
  std::vector<std::string> at = storeIndices(k, "O");
  REQUIRE(at.size() == 1);
  CHECK(at[0].find("/ (OH * OW), ") != std::string::npos);
  CHECK(at[0].find("/ OW % OH, ") != std::string::npos);
  CHECK(at[0].ends_with("% OW"));
  // On a CPU the epilogue follows the accumulation, over mm's rows.
  CHECK(fuse(opFrom(kConvAsMatmul), TargetFamily::Cpu, &k) == "");
  CHECK(storeIndices(k, "O") == std::vector<std::string>{"p / (OH * OW), f, p / OW % OH, p % OW"});
}

TEST_CASE("fusion: a 1-D anchor read as 2-D (a flatten) fuses, in either order of the product") {
  CHECK(epilogueReason(R"(
op f(A: f32[M*N, K], v: f32[K]) -> y: f32[M, N] {
  t[p] = sum(k) A[p, k] * v[k];
  y[i, j] = tanh(t[i*N + j] else 0);
})") == "");
  // Written with the stride first and the variables in the other order.
  OpPtr op = opFrom(R"(
op f(A: f32[N*M, K], v: f32[K]) -> y: f32[N, M] {
  t[p] = sum(k) A[p, k] * v[k];
  y[j, i] = t[j + N*i] else 0;
})");
  KernelPtr k;
  CHECK(fuse(op, TargetFamily::Cpu, &k) == "");
  CHECK(allocs(k) == 0);
  CHECK(storeIndices(k, "y") == std::vector<std::string>{"p % N, p / N"});
}

TEST_CASE("fusion: reshape epilogues that are not bijections are refused with the reason") {
  CHECK(epilogueReason(R"(
op f(X: f32[N*OH*OW, C], Wt: f32[C, F]) -> O: f32[N, F, OH, OW] {
  mm[p, f] = sum(c) X[p, c] * Wt[c, f];
  O[n, f, y, x] = mm[n*OH*OW + y*OH + x, f] else 0;
})") == "it is not bijective: index 1 of its read of 'mm' (n * OH * OW + y * OH + x) is not a mixed-radix "
         "flattening: the stride of 'y' is OH, expected OW");
  CHECK(epilogueReason(R"(
op f(X: f32[N*OH*OW, C], Wt: f32[C, F]) -> O: f32[N, F, OH, OW] {
  mm[p, f] = sum(c) X[p, c] * Wt[c, f];
  O[n, f, y, x] = mm[n*OH*OW + x, f] else 0;
})") == "it is not bijective: variable 'y' of the statement does not appear in its read of 'mm' (a broadcast)");
  CHECK(epilogueReason(R"(
op f(X: f32[N*OH*OW + 1, C], Wt: f32[C, F]) -> O: f32[N, F, OH, OW] {
  mm[p, f] = sum(c) X[p, c] * Wt[c, f];
  O[n, f, y, x] = mm[n*OH*OW + y*OW + x, f] else 0;
})") == "shape mismatch: dimension 1 of 'mm' has extent N * OH * OW + 1 but 'n', 'y', 'x' range over "
         "N * OH * OW together");
  CHECK(epilogueReason(R"(
op f(A: f32[M, K], B: f32[K, N]) -> O: f32[M, N] {
  mm[i, j] = sum(k) A[i, k] * B[k, j];
  O[i, j] = mm[i + j, j] else 0;
})") == "it is not bijective: variable 'j' of the statement appears in indices 1 and 2 of its read of 'mm'");
  CHECK(epilogueReason(R"(
op f(A: f32[M, K], B: f32[K, N]) -> O: f32[M, N] {
  mm[i, j] = sum(k) A[i, k] * B[k, j];
  O[i, j] = mm[i * j, j] else 0;
})") == "it is not bijective: index 1 of its read of 'mm' (i * j) is not a mixed-radix flattening: its term "
         "i * j is not an index variable times a stride");
  // Refused, the op runs statement by statement.
  KernelPtr k;
  CHECK(fuse(opFrom(R"(
op f(A: f32[M*N, K], v: f32[K]) -> y: f32[M, N] {
  t[p] = sum(k) A[p, k] * v[k];
  y[i, j] = t[i*M + j] else 0;
})"), TargetFamily::Cpu, &k) == "cannot fuse 'y' into 't' as an epilogue: it is not bijective: index 1 of its read "
                                  "of 't' (i * M + j) is not a mixed-radix flattening: the stride of 'i' is M, "
                                  "expected N\n");
  CHECK(allocs(k) == 1);
}

TEST_CASE("fusion: reshape strides and extents are compared as expanded polynomials, within limits") {
  // The stride of i spans many monomials once expanded, in another order
  // than t's extent is written in.
  CHECK(epilogueReason(R"(
op f(A: f32[(M + N + 1)*(N + 2)*(M + 3), K], v: f32[K]) -> y: f32[M + N + 1, (M + 3)*(2 + N)] {
  t[p] = sum(k) A[p, k] * v[k];
  y[i, j] = t[i*(N + 2)*(M + 3) + j] else 0;
})") == "");
  // Past the expansion limit nothing is assumed.
  CHECK(epilogueReason(R"(
op f(A: f32[(M+N+K)*(M+N+K+1)*(M+N+K+2)*(M+N+K+3)*(M+N+K+4)*(M+N+K+5), K], v: f32[K]) -> y: f32[M+N+K, (M+N+K+1)*(M+N+K+2)*(M+N+K+3)*(M+N+K+4)*(M+N+K+5)] {
  t[p] = sum(k) A[p, k] * v[k];
  y[i, j] = t[i*(M+N+K+1)*(M+N+K+2)*(M+N+K+3)*(M+N+K+4)*(M+N+K+5) + j] else 0;
})")
            .starts_with("cannot prove that index 1 of its read of 't' (i * (M + N + K + 1) * "));
}
