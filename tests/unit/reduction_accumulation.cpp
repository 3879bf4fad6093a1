// Reductions over f16/bf16 accumulate in f32 and over i8 in i32 (issue 19,
// item 13): a 16-bit partial sum stops growing at 256 (bf16) or 2048 (f16)
// added ones, so `mean` of 1024 bf16 ones was 0.25 and a sum of 8192 f16
// ones 2048 at -O0 (8192 at -O3). The accumulator type, the IR the
// frontend builds, LowerReductions' accumulators, and compiled code at -O0
// and -O3.
#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "sched_build.h"
#include "scheduler/LowerReductions.h"
#include "x86_support.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace tk;
using namespace tk::ir;

namespace {

const char *kSource = R"(
op mean_bf16(X: bf16[N]) -> Y: bf16 { Y[] = mean(k) X[k]; }
op sum_f16(X: f16[N]) -> Y: f16 { Y[] = sum(k) X[k]; }
op rows_f16(X: f16[M, N]) -> Y: f16[M] { Y[i] = sum(k) X[i, k]; }
op mean_i8(X: i8[N]) -> Y: i8 { Y[] = mean(k) X[k]; }
op sum_i8(X: i8[N]) -> Y: i8 { Y[] = sum(k) X[k]; }
op max_bf16(X: bf16[N]) -> Y: bf16 { Y[] = max(k) X[k]; }
)";

uint16_t bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16); // exact for the values used here
}
float bf16Value(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float f16Value(uint16_t h) {
  _Float16 x;
  std::memcpy(&x, &h, 2);
  return float(x);
}

const Assign &statement(const Module &m, const std::string &op) {
  for (const OpPtr &o : m.ops)
    if (o->name == op) return o->body.at(0);
  FAIL("no op " << op);
  throw;
}

} // namespace

TEST_CASE("reduction: accumulator types") {
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::F16) == ScalarType::F32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::BF16) == ScalarType::F32);
  CHECK(accumulatorType(ReduceOp::Prod, ScalarType::BF16) == ScalarType::F32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::I8) == ScalarType::I32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::Bool) == ScalarType::I32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::F32) == ScalarType::F32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::F64) == ScalarType::F64);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::I32) == ScalarType::I32);
  CHECK(accumulatorType(ReduceOp::Sum, ScalarType::I64) == ScalarType::I64);
  // max/min are exact in any type.
  CHECK(accumulatorType(ReduceOp::Max, ScalarType::BF16) == ScalarType::BF16);
  CHECK(accumulatorType(ReduceOp::Min, ScalarType::I8) == ScalarType::I8);
}

TEST_CASE("reduction: the frontend builds 16-bit and i8 sums in f32 and i32") {
  Module m = unittest::moduleFromSource(kSource);
  // Y[] = bf16(sum(k < N: f32(X[k])) / f32(N))
  const Expr &mean = statement(m, "mean_bf16").value;
  REQUIRE(mean->kind == ExprKind::Cast);
  CHECK(mean->type == ScalarType::BF16);
  const Expr &div = mean->args[0];
  CHECK(div->type == ScalarType::F32);
  REQUIRE(div->args[0]->kind == ExprKind::Reduce);
  CHECK(div->args[0]->type == ScalarType::F32);
  CHECK(div->args[0]->args[0]->kind == ExprKind::Cast);
  // Y[] = f16(sum(k < N: f32(X[k])))
  const Expr &sum = statement(m, "sum_f16").value;
  CHECK(printExpr(sum) == "f16(sum(k < N: f32(X[k])))");
  // i8: accumulated in i32, the mean divided in i64 by max(count, 1).
  CHECK(printExpr(statement(m, "mean_i8").value) == "i8(i64(sum(k < N: i32(X[k]))) / max(N, 1))");
  CHECK(printExpr(statement(m, "sum_i8").value) == "i8(sum(k < N: i32(X[k])))");
  CHECK(printExpr(statement(m, "max_bf16").value) == "max(k < N: X[k])");
}

TEST_CASE("reduction: LowerReductions accumulates a bf16 Reduce in an f32 register") {
  using namespace tk::schedtest;
  auto X = tensor("X", {sym("N")}, TensorRole::Input);
  X->dtype = ScalarType::BF16;
  auto Y = tensor("Y", {}, TensorRole::Output);
  Y->dtype = ScalarType::BF16;
  auto op = std::make_shared<Op>();
  op->name = "s";
  op->inputs = {param(X)};
  op->outputs = {Y};
  op->symbols = {"N"};
  Expr red = reduce(ReduceOp::Sum, {IndexVar{"k", sym("N"), {}}}, load(X, {idx("k")}));
  REQUIRE(red->type == ScalarType::BF16);
  auto st = lStmt(LStmt::Kind::Store);
  st->tensor = Y;
  st->value = red;
  LoweredFunc f = lowerReductions(LoweredFunc{"s", op, TargetFamily::Cpu, st, {}});
  int accs = 0;
  visitLStmt(f.body, [&](const LStmt &s) {
    if (s.kind != LStmt::Kind::Alloc) return;
    ++accs;
    CHECK(s.tensor->dtype == ScalarType::F32);
  });
  CHECK(accs == 1);
  // The result is converted to bf16 once, where the reduction was.
  std::string text = printLoweredFunc(f);
  CHECK(text.find("Y[] = bf16(acc[])") != std::string::npos);
}

TEST_CASE("reduction: long f16/bf16/i8 reductions are exact at -O0 and -O3") {
  Module m = unittest::moduleFromSource(kSource);
  schedtest::DiagFixture fx;
  std::vector<LoweredFunc> fs = lowerModule(m, PipelineOptions{}, fx.diags);
  REQUIRE_MESSAGE(!fx.diags.hasErrors(), fx.messages());
  using U16Fn = int(const uint16_t *, uint16_t *, int64_t);
  using Rows16Fn = int(const uint16_t *, uint16_t *, int64_t, int64_t);
  using I8Fn = int(const int8_t *, int8_t *, int64_t);
  for (int opt : {0, 3}) {
    CAPTURE(opt);
    test::LoadedKernels k(fs, "x86_64", opt);
    std::vector<uint16_t> bones(8192, bf16Bits(1.0f)), hones(8192, 0x3c00); // f16 1.0
    uint16_t y = 0;
    REQUIRE(k.get<U16Fn>("mean_bf16")(bones.data(), &y, 1024) == 0);
    CHECK(bf16Value(y) == 1.0f); // was 0.25: the bf16 sum stopped at 256
    REQUIRE(k.get<U16Fn>("mean_bf16")(bones.data(), &y, 8192) == 0);
    CHECK(bf16Value(y) == 1.0f);
    REQUIRE(k.get<U16Fn>("sum_f16")(hones.data(), &y, 8192) == 0);
    CHECK(f16Value(y) == 8192.0f); // was 2048 at -O0
    std::vector<uint16_t> rows(3 * 4096, 0x3c00), out(3, 0);
    REQUIRE(k.get<Rows16Fn>("rows_f16")(rows.data(), out.data(), 3, 4096) == 0);
    for (uint16_t v : out) CHECK(f16Value(v) == 4096.0f);
    std::vector<int8_t> hundreds(1000, 100), ones(1000, 1);
    int8_t yi = 0;
    // The sum in i32 is 25600 / 100000; the mean is exact. (The count was
    // converted to i8: 256 became 0, a division by zero.)
    REQUIRE(k.get<I8Fn>("mean_i8")(hundreds.data(), &yi, 256) == 0);
    CHECK(yi == 100);
    REQUIRE(k.get<I8Fn>("mean_i8")(hundreds.data(), &yi, 1000) == 0);
    CHECK(yi == 100);
    REQUIRE(k.get<I8Fn>("mean_i8")(hundreds.data(), &yi, 0) == 0);
    CHECK(yi == 0); // an empty integer mean is 0
    // A sum stored to i8 wraps like the exact sum: 1000 mod 256 = 232 = -24.
    REQUIRE(k.get<I8Fn>("sum_i8")(ones.data(), &yi, 1000) == 0);
    CHECK(yi == -24);
  }
}
