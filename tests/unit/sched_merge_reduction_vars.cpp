// MergeReductionVars: sums over several variables that are adjacent
// indices of every read become sums over one, which ConstructSchedule
// takes; other forms are refused, saying why.
#include "ir/FlatIndex.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/MergeReductionVars.h"
#include "source_module.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;


TEST_CASE("merge reduction vars: einsum bijk,jkl becomes one matrix product over J * K") {
  OpPtr op = unittest::firstOpFromSource(R"(
op f(X: f32[BT, I, J, K], W: f32[J, K, L]) -> Y: f32[BT, I, L] {
  Y[b, i, l] = sum(j, k) X[b, i, j, k] * W[j, k, l];
}
)");
  std::string why;
  CHECK(!constructScheduleApplies(*op, &why));
  OpPtr m = mergeReductionVars(op, &why);
  REQUIRE_MESSAGE(m, why);
  CHECK(printExpr(m->body[0].value) == "sum(jk < J * K: X[b, i, jk / K, jk % K] * W[jk / K, jk % K, l])");
  CHECK(constructScheduleApplies(*m, &why));
  // Both reads address the merged pair without dividing (ir/FlatIndex.h).
  const Expr &prod = m->body[0].value->args[0];
  for (const Expr &ld : prod->args) {
    std::optional<FlatPair> p = flatPairIndex(*ld->tensor, ld->args);
    REQUIRE(p);
    CHECK(printExpr(p->index) == "jk");
  }
  CHECK(flatPairIndex(*prod->args[0]->tensor, prod->args[0]->args)->dim == 2);
  CHECK(flatPairIndex(*prod->args[1]->tensor, prod->args[1]->args)->dim == 0);
  CHECK(op->body[0].value != m->body[0].value); // the input op is not modified
}

TEST_CASE("merge reduction vars: reads that do not hold the pair side by side are refused") {
  std::string why;
  // k and j apart in W.
  CHECK(!mergeReductionVars(unittest::firstOpFromSource(R"(
op f(X: f32[I, J, K], W: f32[J, L, K]) -> Y: f32[I, L] {
  Y[i, l] = sum(j, k) X[i, j, k] * W[j, l, k];
}
)"), &why));
  CHECK(why == "no two reduction variables are adjacent indices of every read");
  // k used outside a plain index.
  CHECK(!mergeReductionVars(unittest::firstOpFromSource(R"(
op f(X: f32[I, J, K], W: f32[J, K, L]) -> Y: f32[I, L] {
  Y[i, l] = sum(j, k) X[i, j, k] * W[j, k, l] * f32(k);
}
)"), &why));
  CHECK(why == "no two reduction variables are adjacent indices of every read");
  // A padded read.
  CHECK(!mergeReductionVars(unittest::firstOpFromSource(R"(
op f(X: f32[I, J, K], W: f32[J, K, L]) -> Y: f32[I, L] {
  Y[i, l] = sum(j, k) (X[i, j, k + 1] else 0.0) * W[j, k, l];
}
)"), &why));
  // One variable: nothing to merge.
  CHECK(!mergeReductionVars(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {
  C[i, j] = sum(k) A[i, k] * B[k, j];
}
)"), &why));
  CHECK(why == "the statement holds no sum over several variables");
}
