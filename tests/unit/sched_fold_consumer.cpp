// FoldContractionConsumer: `t = sum ..; O = g(t)` folded into one statement
// when the consumer reads t at its own indices, refused (with why) otherwise.
#include "sched_build.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/FoldContractionConsumer.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;


TEST_CASE("fold contraction consumer: the epilogue statement joins the sum, renamed to its indices") {
  OpPtr op = unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[N, K], b: f32[N]) -> Y: f32[M, N] {
  h[r, c] = sum(q) A[r, q] * B[c, q];
  Y[i, j] = max(h[i, j] + b[j], 0.0);
}
)");
  std::string why;
  OpPtr folded = foldContractionConsumer(op, &why);
  REQUIRE_MESSAGE(folded, why);
  CHECK(folded->intermediates.empty());
  REQUIRE(folded->body.size() == 1);
  CHECK(printExpr(folded->body[0].value) == "max(sum(q < K: A[i, q] * B[j, q]) + b[j], 0.0)");
  CHECK(constructScheduleApplies(*folded, &why));
  CHECK(folded->inputs.size() == op->inputs.size());
  CHECK(folded->outputs == op->outputs);
}

TEST_CASE("fold contraction consumer: other forms are refused, saying why") {
  std::string why;
  CHECK(!foldContractionConsumer(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, N]) -> O: f32[N, M] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  O[j, i] = t[i, j];
}
)"), &why));
  CHECK(why == "the statements run over different extents");
  CHECK(!foldContractionConsumer(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, N]) -> O: f32[M, N] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  O[i, j] = t[i, j] + (t[i - 1, j] else 0.0);
}
)"), &why));
  CHECK(why == "the second statement reads the intermediate at other indices or padded");
  CHECK(!foldContractionConsumer(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, N]) -> O: f32[M, N] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  O[i, j] = t[i, j] / sum(c) t[i, c];
}
)"), &why));
  CHECK(why == "the second statement holds a reduction");
  CHECK(!foldContractionConsumer(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, M]) -> O: f32[M, M] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  O[k, j] = t[k, j] * 2.0;
}
)"), &why));
  CHECK(why == "a reduction variable is named like an output index");
}

TEST_CASE("fold contraction consumer: the in-place form Y = sum ..; Y = g(Y) folds too") {
  OpPtr op = unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, N]) -> Y: f32[M, N] {
  Y[i, j] = sum(k) A[i, k] * B[k, j];
  Y[i, j] = Y[i, j] * 2.0 + 1.0;
}
)");
  std::string why;
  OpPtr folded = foldContractionConsumer(op, &why);
  REQUIRE_MESSAGE(folded, why);
  REQUIRE(folded->body.size() == 1);
  CHECK(printExpr(folded->body[0].value) == "sum(k < K: A[i, k] * B[k, j]) * 2.0 + 1.0");
  CHECK(constructScheduleApplies(*folded, &why));
  // Reading Y elsewhere is not the in-place form.
  CHECK(!foldContractionConsumer(unittest::firstOpFromSource(R"(
op f(A: f32[M, K], B: f32[K, M]) -> Y: f32[M, M] {
  Y[i, j] = sum(k) A[i, k] * B[k, j];
  Y[i, j] = Y[j, i] * 2.0;
}
)"), &why));
}
