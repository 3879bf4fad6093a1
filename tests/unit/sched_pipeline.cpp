// The default schedule and the lowering passes, run end to end on small
// shapes and compared with what the op means.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/Pipeline.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

std::vector<LoweredFunc> lower(const OpPtr &op, KernelPtr k = nullptr, std::ostream *dump = nullptr) {
  Module m;
  m.ops = {op};
  if (k) m.kernels = {k};
  m.exports = {{op->name, op, k, {}}};
  DiagFixture fx;
  PipelineOptions opts;
  opts.dumpAfterEachPass = dump;
  auto fs = lowerModule(m, opts, fx.diags);
  CHECK(fx.messages() == "");
  return fs;
}

double inputValue(const std::string &name, size_t i) { return double((i * 7 + name[0]) % 11) - 5; }

// Runs a lowered matmul, compares with the definition, and checks that
// every element of C was stored.
void checkMatmul(const LoweredFunc &f, int64_t M, int64_t K, int64_t N) {
  LoopEval ev = schedtest::checkMatmul(f, M, K, N, inputValue);
  for (const auto &[idx, n] : ev.storeCounts["C"]) CHECK(n >= 1);
}

} // namespace

TEST_CASE("default schedule: matmul accumulates with the reduction outside the stride-1 loop") {
  auto k = defaultSchedule(matmulOp(), TargetDesc{});
  CHECK(k->synthesized);
  CHECK(printKernel(*k) == "kernel matmul implements matmul on cpu (default schedule)\n"
                           "{\n"
                           "  for (i) in spatial(M) on cores {\n"
                           "    for (j) in repeat(N) {\n"
                           "      C[i, j] = 0.0;\n"
                           "    }\n"
                           "    for (k) in repeat(K) {\n"
                           "      for (j) in repeat(N) {\n"
                           "        C[i, j] += A[i, k] * B[k, j];\n"
                           "      }\n"
                           "    }\n"
                           "  }\n"
                           "}\n");
}

TEST_CASE("default schedule: small leading dimensions fold into the parallel mapping") {
  auto op = std::make_shared<Op>();
  op->name = "relu";
  auto X = tensor("X", {ci(2), ci(4), sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", {ci(2), ci(4), sym("N")}, TensorRole::Output);
  op->inputs = {param(X)};
  op->outputs = {Y};
  op->symbols = {"N"};
  op->body = {{Y, {{"a", ci(2), {}}, {"b", ci(4), {}}, {"c", sym("N"), {}}},
               binary(BinOp::Max, load(X, {idx("a"), idx("b"), idx("c")}), floatImm(0)), {}}};
  std::string text = printKernel(*defaultSchedule(op, TargetDesc{}));
  CHECK(text.find("for (a, b) in spatial(2, 4) on cores {\n    for (c) in repeat(N) {\n      Y[a, b, c] = max(X[a, b, c], 0.0);") !=
        std::string::npos);
}

TEST_CASE("pipeline: default matmul computes the product, checks `where`") {
  auto fs = lower(matmulOp());
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].name == "matmul");
  checkMatmul(fs[0], 3, 4, 5);
  LoopEval bad;
  bad.run(fs[0], {{"M", 2}, {"K", 0}, {"N", 2}}, inputValue);
  CHECK(bad.status == 1);
}

TEST_CASE("pipeline: tiled kernel on shapes that are not tile multiples") {
  auto op = matmulOp();
  auto A = op->inputs[0].tensor, B = op->inputs[1].tensor, C = op->outputs[0];
  Expr T = hole(0, {2, 4});
  auto acc = tensor("acc", {T, ci(4)}, TensorRole::Local, Scope::Register);
  Expr row = binary(BinOp::Add, binary(BinOp::Mul, lv("bi"), T), lv("i"));
  Expr col = binary(BinOp::Add, binary(BinOp::Mul, lv("bj"), ci(4)), lv("j"));
  auto tile = [&](MStmtPtr b) { return mapFor({"i", "j"}, {repeat({T, ci(4)})}, std::nullopt, b); };
  Expr prod = binary(BinOp::Mul, load(A, {row, lv("k")}), load(B, {lv("k"), col}));
  auto body = mBlock({allocS(acc), tile(store(acc, {lv("i"), lv("j")}, floatImm(0))),
                      seqFor("k", ci(0), sym("K"), tile(store(acc, {lv("i"), lv("j")}, prod, AccumOp::Add))),
                      tile(store(C, {row, col}, load(acc, {lv("i"), lv("j")})))});
  auto k = kernel(op, TargetFamily::Cpu,
                  mapFor({"bi", "bj"}, {spatial({ceilDiv(sym("M"), T), ceilDiv(sym("N"), ci(4))})}, WorkerKind::Cores,
                         body));
  k->holes.push_back({0, {2, 4}, {}, 2});
  k->requires_.push_back({binary(BinOp::GE, sym("N"), ci(1)), {}});
  auto fs = lower(op, k);
  REQUIRE(fs.size() == 1);
  std::string text = printLoweredFunc(fs[0]);
  CHECK(text.find("check N >= 1 or return 2;  // require N >= 1") != std::string::npos);
  CHECK(text.find("C[bi * 2 + i, bj * 4 + j] = acc[i, j] when bi * 2 + i < M && bj * 4 + j < N;") !=
        std::string::npos);
  CHECK(text.find("(A[bi * 2 + i, k] when bi * 2 + i < M else 0.0)") != std::string::npos);
  checkMatmul(fs[0], 5, 3, 7);
  LoopEval bad;
  bad.run(fs[0], {{"M", 2}, {"K", 1}, {"N", 0}}, inputValue);
  CHECK(bad.status == 2);
}

TEST_CASE("pipeline: intermediates, mean-style reductions and derived extents") {
  // op softsum(X: f32[M, N], s: i64) -> S: f32[M - s]
  //   { T[i, j] = exp(X[i, j]); S[i] = sum(j) T[i + s, j] / f32(N); }
  auto op = std::make_shared<Op>();
  op->name = "softsum";
  auto X = tensor("X", {sym("M"), sym("N")}, TensorRole::Input);
  auto T = tensor("T", {sym("M"), sym("N")}, TensorRole::Intermediate);
  auto S = tensor("S", {binary(BinOp::Sub, sym("M"), sym("s"))}, TensorRole::Output);
  op->inputs = {param(X), Param{"s", ScalarType::I64, nullptr, {}}};
  op->outputs = {S};
  op->intermediates = {T};
  op->symbols = {"M", "N"};
  op->body = {{T, {{"i", sym("M"), {}}, {"j", sym("N"), {}}}, call(MathFn::Exp, load(X, {idx("i"), idx("j")})), {}},
              {S, {{"i", S->shape[0], {}}},
               binary(BinOp::Div,
                      reduce(ReduceOp::Sum, {{"j", sym("N"), {}}},
                             load(T, {binary(BinOp::Add, idx("i"), sym("s")), idx("j")}, floatImm(0))),
                      cast(ScalarType::F32, sym("N"))),
               {}}};
  std::ostringstream dump;
  auto fs = lower(op, nullptr, &dump);
  REQUIRE(fs.size() == 1);
  CHECK(dump.str().find("// ---- after LowerReductions: softsum ----") != std::string::npos);
  std::string text = printLoweredFunc(fs[0]);
  CHECK(text.find("check M - s >= 0 or return 1;  // output S dimension 0 extent M - s must be >= 0") !=
        std::string::npos);
  // T is an injective producer that only the reduction reads: fusion
  // inlines it into the reduction's loads (docs/fusion.md), so it needs no
  // buffer. (loop_softmax.tk's golden output has allocated intermediates.)
  CHECK(text.find("alloc global T") == std::string::npos);
  CHECK(text.find("exp(") != std::string::npos);
  CHECK(text.find("alloc register acc: f32[];") != std::string::npos);
  LoopEval ev;
  ev.env["s"] = 1;
  ev.run(fs[0], {{"M", 3}, {"N", 4}}, inputValue);
  REQUIRE(ev.status == 0);
  const auto &out = ev.tensor(S);
  REQUIRE(out.size() == 2);
  for (int i = 0; i < 2; ++i) {
    double want = 0;
    for (int j = 0; j < 4; ++j) want += std::exp(inputValue("X", size_t((i + 1) * 4 + j)));
    CHECK(out[size_t(i)] == doctest::Approx(want / 4));
  }
  LoopEval bad;
  bad.env["s"] = 5;
  bad.run(fs[0], {{"M", 3}, {"N", 4}}, inputValue);
  CHECK(bad.status == 1);
}

TEST_CASE("runtime checks: an extent checked once, however many tensors have it") {
  // conv2d's intermediates have the output's extents; a kernel implementing
  // such an op checks them at entry, and one check of each condition is
  // what its op's own (intermediate-free) schedule makes too.
  auto op = std::make_shared<Op>();
  op->name = "twice";
  Expr ext = binary(BinOp::Sub, sym("M"), sym("s"));
  auto X = tensor("X", {sym("M")}, TensorRole::Input);
  auto T = tensor("T", {ext}, TensorRole::Intermediate);
  auto S = tensor("S", {ext}, TensorRole::Output);
  op->inputs = {param(X), Param{"s", ScalarType::I64, nullptr, {}}};
  op->outputs = {S};
  op->intermediates = {T};
  op->symbols = {"M"};
  op->body = {{T, {{"i", ext, {}}}, load(X, {binary(BinOp::Add, idx("i"), sym("s"))}), {}},
              {S, {{"i", ext, {}}}, load(T, {idx("i")}), {}}};
  std::string text = printLoweredFunc(lower(op).at(0));
  CHECK(text.find("// output S dimension 0 extent M - s must be >= 0") != std::string::npos);
  CHECK(text.find("intermediate T dimension 0") == std::string::npos);
  LoopEval ev;
  ev.env["s"] = 5;
  ev.run(lower(op).at(0), {{"M", 3}}, inputValue);
  CHECK(ev.status == 1);
}

TEST_CASE("pipeline: scheduleModule reports hole errors and returns checked kernels") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto k = kernel(op, TargetFamily::Cpu,
                  mapFor({"i", "j"}, {spatial({sym("M"), ceilDiv(sym("N"), hole(0, {}))}), repeat({ci(1), hole(0, {})})},
                         WorkerKind::Cores, store(C, {lv("i"), lv("j")}, floatImm(0))));
  k->holes.push_back({0, {}, at(3, 4), std::nullopt});
  Module m;
  m.ops = {op};
  m.kernels = {k};
  m.exports = {{"matmul", op, k, {}}, {"matmul_k", op, k, {}}};
  DiagFixture fx;
  CHECK(scheduleModule(m, PipelineOptions{}, fx.diags).empty());
  CHECK(fx.diags.errorCount() == 1); // one kernel, reported once for both exports
  k->holes[0].value = 8;
  DiagFixture ok;
  auto ks = scheduleModule(m, PipelineOptions{}, ok.diags);
  CHECK(ks.size() == 1);
  CHECK(lowerModule(m, PipelineOptions{}, ok.diags).size() == 2);
}
