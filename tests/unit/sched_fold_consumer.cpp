// FoldContractionConsumer: `t = sum ..; O = g(t)` folded into one statement
// when the consumer reads t at its own indices, refused (with why)
// otherwise; and SplitContractionEpilogue, its reverse.
#include "sched_build.h"
#include "scheduler/cpu/ConstructSchedule.h"
#include "scheduler/cpu/FoldContractionConsumer.h"
#include "scheduler/cpu/SplitContractionEpilogue.h"

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

TEST_CASE("split contraction epilogue: a requantized integer product becomes the sum, then its epilogue") {
  OpPtr op = unittest::firstOpFromSource(R"(
op q(A: i8[M, K], B: i8[K, N], Y_sum: f32, scale: f32) -> Y: i8[M, N] {
  Y[i, j] = i8(max(-128.0, min(127.0, f32(sum(k) i32(A[i, k]) * i32(B[k, j])) * scale)));
}
)");
  OpPtr split = splitContractionEpilogue(op);
  REQUIRE(split);
  REQUIRE(split->body.size() == 2);
  REQUIRE(split->intermediates.size() == 1);
  const TensorPtr &t = split->intermediates[0];
  CHECK(t->name == "Y_sum_"); // a scalar parameter already has the name
  CHECK(t->dtype == ScalarType::I32);
  CHECK(split->body[0].target == t);
  CHECK(printExpr(split->body[0].value) == "sum(k < K: i32(A[i, k]) * i32(B[k, j]))");
  CHECK(split->body[1].target == op->body[0].target);
  CHECK(printExpr(split->body[1].value) == "i8(max(-128.0, min(127.0, f32(Y_sum_[i, j]) * scale)))");
  CHECK(split->outputs == op->outputs);
  CHECK(op->body.size() == 1); // the input is left alone

  // Not of that form: a bare sum, two sums, no sum, two statements.
  for (const char *src : {
           "op f(A: i8[M, K], B: i8[K, N]) -> C: i32[M, N] { C[i, j] = sum(k) i32(A[i, k]) * i32(B[k, j]); }",
           "op f(A: f32[M, K]) -> C: f32[M] { C[i] = sum(k) A[i, k] + max(l) A[i, l]; }",
           "op f(A: f32[M]) -> C: f32[M] { C[i] = A[i] * 2.0; }",
           "op f(A: f32[M, K]) -> C: f32[M] { t[i] = sum(k) A[i, k]; C[i] = t[i] * 2.0; }"})
    CHECK_MESSAGE(!splitContractionEpilogue(unittest::firstOpFromSource(src)), src);
}
