// VersionFullTiles: nests whose guards are bounded by the loop ranges get a
// guard-free copy behind one run-time test; guards it cannot bound stay in
// both copies. Each result also runs in the loop-IR evaluator (which throws
// on an out-of-range access) on shapes that take either copy.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/Pipeline.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

double value(const std::string &name, size_t i) { return double((i * 7 + name[0]) % 11) - 5; }

// op shift(A: f32[N]) -> B: f32[N] { B[i] = A[i]; } with a kernel whose
// tiles of T elements read A at INDEX(element).
std::pair<OpPtr, KernelPtr> tiledCopy(int64_t T, const std::function<Expr(Expr)> &index) {
  auto op = std::make_shared<Op>();
  op->name = "copy1";
  auto A = tensor("A", {sym("N")}, TensorRole::Input);
  auto B = tensor("B", {sym("N")}, TensorRole::Output);
  op->inputs = {param(A)};
  op->outputs = {B};
  op->symbols = {"N"};
  op->body = {{B, {{"i", sym("N"), {}}}, load(A, {idx("i")}), {}}};
  Expr elem = add(mul(lv("b"), ci(T)), lv("e"));
  auto body = mapFor({"e"}, {repeat({ci(T)})}, std::nullopt, store(B, {elem}, load(A, {index(elem)}, floatImm(0))));
  auto k = kernel(op, TargetFamily::Cpu, mapFor({"b"}, {spatial({ceilDiv(sym("N"), ci(T))})}, WorkerKind::Cores, body));
  return {op, k};
}

std::vector<double> run(const LoweredFunc &f, int64_t n) {
  LoopEval ev;
  ev.run(f, {{"N", n}}, value);
  REQUIRE(ev.status == 0);
  for (const auto &[i, count] : ev.storeCounts["B"]) CHECK(count == 1);
  return ev.tensor(f.op->outputs[0]);
}

} // namespace

TEST_CASE("version full tiles: a tile inside the tensor runs without guards") {
  auto [op, k] = tiledCopy(8, [](Expr e) { return e; });
  LoweredFunc f = lowerOne(op, k);
  std::string text = printLoweredFunc(f);
  CHECK(text.find("if (b * 8 + 7 < N) {\n"
                  "      for e in 0..8 {\n"
                  "        B[b * 8 + e] = A[b * 8 + e];\n") != std::string::npos);
  CHECK(text.find("} else {\n      for e in 0..8 {\n        B[b * 8 + e] = (A[b * 8 + e] when b * 8 + e < N else 0.0) when b * 8 + e < N;") !=
        std::string::npos);
  for (int64_t n : {1, 7, 8, 13, 16}) {
    auto out = run(f, n);
    REQUIRE(out.size() == size_t(n));
    for (int64_t i = 0; i < n; ++i) CHECK(out[i] == value("A", i));
  }
}

TEST_CASE("version full tiles: the tensor's edge across a tile's panels is tested, not left to partitioning") {
  // Tiles of two 4-element panels (a serial loop p, like a register tile's
  // column panels): the guard b*8 + p*4 + e < N is solvable for e, like a
  // window's, but every loop in it indexes B, so it fails in the last tile
  // only and belongs in the full-tile test.
  auto op = tiledCopy(8, [](Expr e) { return e; }).first;
  const TensorPtr &A = op->inputs[0].tensor, &B = op->outputs[0];
  Expr elem = add(add(mul(lv("b"), ci(8)), mul(lv("p"), ci(4))), lv("e"));
  auto panel = mapFor({"e"}, {repeat({ci(4)})}, std::nullopt, store(B, {elem}, load(A, {elem})));
  auto k = kernel(op, TargetFamily::Cpu,
                  mapFor({"b"}, {spatial({ceilDiv(sym("N"), ci(8))})}, WorkerKind::Cores, seqFor("p", ci(0), ci(2), panel)));
  LoweredFunc f = lowerOne(op, k);
  std::string text = printLoweredFunc(f);
  CHECK_MESSAGE(text.find("if (b * 8 + 7 < N) {\n"
                          "      for p in 0..2 {\n"
                          "        for e in 0..4 {\n"
                          "          B[b * 8 + e + p * 4] = A[b * 8 + e + p * 4];\n") != std::string::npos, text);
  for (int64_t n : {1, 7, 8, 13, 16}) {
    auto out = run(f, n);
    for (int64_t i = 0; i < n; ++i) CHECK(out[i] == value("A", i));
  }
}

TEST_CASE("version full tiles: lower bounds and shifted windows are tested at the tile's first element") {
  // B[i] = A[i - 3] else 0: the guard 0 <= i - 3 needs the smallest i.
  auto [op, k] = tiledCopy(4, [](Expr e) { return sub(e, ci(3)); });
  LoweredFunc f = lowerOne(op, k);
  std::string text = printLoweredFunc(f);
  CHECK_MESSAGE(text.find("if (b * 4 - 3 >= 0 && b * 4 < N && b * 4 + 3 < N) {\n      for e in 0..4 {\n        B[b * 4 + e] = A[b * 4 + e - 3];\n") != std::string::npos, text);
  for (int64_t n : {1, 3, 4, 9}) {
    auto out = run(f, n);
    for (int64_t i = 0; i < n; ++i) CHECK(out[i] == (i >= 3 ? value("A", i - 3) : 0.0));
  }
}

TEST_CASE("version full tiles: a guard it cannot bound stays in the fast copy") {
  // A[e * e]: a product of loop variables is not followed, so its guard is
  // kept; the bounded guard of B (b*4 + e < N) still goes.
  auto [op, k] = tiledCopy(4, [](Expr) { return mul(lv("e"), lv("e")); });
  LoweredFunc f = lowerOne(op, k);
  std::string text = printLoweredFunc(f);
  CHECK(text.find("if (b * 4 + 3 < N) {\n"
                  "      for e in 0..4 {\n"
                  "        B[b * 4 + e] = (A[e * e] when e * e < N else 0.0);\n") != std::string::npos);
  for (int64_t n : {1, 5, 12}) {
    auto out = run(f, n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t e = i % 4;
      CHECK(out[i] == (e * e < n ? value("A", e * e) : 0.0));
    }
  }
}

TEST_CASE("version full tiles: an initialisation stays with the nest that accumulates into it") {
  // B[i] = sum(k) A[k, i] in tiles of 8: B[tile] = 0 then for k { B[tile] += A[k, tile] }.
  // One test versions both, so each copy holds the pair (the x86 backend
  // starts the register tile at 0 only when they are adjacent).
  auto op = std::make_shared<Op>();
  op->name = "colsum";
  auto A = tensor("A", {sym("K"), sym("N")}, TensorRole::Input);
  auto B = tensor("B", {sym("N")}, TensorRole::Output);
  op->inputs = {param(A)};
  op->outputs = {B};
  op->symbols = {"K", "N"};
  op->body = {{B, {{"i", sym("N"), {}}}, reduce(ReduceOp::Sum, {{"k", sym("K"), {}}}, load(A, {idx("k"), idx("i")})), {}}};
  Expr elem = add(mul(lv("b"), ci(8)), lv("e"));
  auto zero = mapFor({"e"}, {repeat({ci(8)})}, std::nullopt, store(B, {elem}, floatImm(0)));
  auto sum = seqFor("k", ci(0), sym("K"), mapFor({"e"}, {repeat({ci(8)})}, std::nullopt,
                                                  store(B, {elem}, load(A, {lv("k"), elem}), AccumOp::Add)));
  auto k = kernel(op, TargetFamily::Cpu,
                  mapFor({"b"}, {spatial({ceilDiv(sym("N"), ci(8))})}, WorkerKind::Cores, mBlock({zero, sum})));
  LoweredFunc f = lowerOne(op, k);
  std::string text = printLoweredFunc(f);
  CHECK_MESSAGE(text.find("if (b * 8 + 7 < N) {\n"
                          "      for e in 0..8 {\n"
                          "        B[b * 8 + e] = 0.0;\n"
                          "      }\n"
                          "      for k in 0..K {\n") != std::string::npos, text);
  for (int64_t n : {3, 8, 13}) {
    LoopEval ev;
    ev.run(f, {{"N", n}, {"K", 3}}, value);
    REQUIRE(ev.status == 0);
    std::vector<double> out = ev.tensor(B);
    for (int64_t i = 0; i < n; ++i) CHECK(out[i] == value("A", i) + value("A", n + i) + value("A", 2 * n + i));
  }
}
