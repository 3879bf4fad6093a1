// CheckHoles and CheckTaskMappings: located errors for bad kernels, silence
// for good ones.
#include "sched_build.h"
#include "source_module.h"
#include "scheduler/CheckHoles.h"
#include "scheduler/CheckTaskMappings.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

// The tiled matmul of the language draft, with T = ?0 in {16, 32, 64}:
//   for (bi, bj) in spatial(cdiv(M, T), cdiv(N, 64)) on cores {      // 4:3
//     register acc: f32[T, 64];
//     for (i, j) in repeat(T, 64) { acc[i, j] = 0; }
//     for k in 0..K { for (i, j) in repeat(T, 64) { acc[i, j] += A[bi*T + i, k] * B[k, bj*64 + j]; } }
//     for (i, j) in repeat(T, 64) { C[cIdx] = acc[i, j]; }            // store at 12:9
//   }
struct Tiled {
  OpPtr op = matmulOp();
  TensorPtr A = op->inputs[0].tensor, B = op->inputs[1].tensor, C = op->outputs[0];
  Expr T = hole(0, {16, 32, 64}, at(3, 11));
  TensorPtr acc = tensor("acc", {T, ci(64)}, TensorRole::Local, Scope::Register);

  Expr row() { return binary(BinOp::Add, binary(BinOp::Mul, lv("bi"), T), lv("i")); }
  Expr col() { return binary(BinOp::Add, binary(BinOp::Mul, lv("bj"), ci(64)), lv("j")); }

  KernelPtr make(std::vector<Expr> cIdx, std::optional<int64_t> value = 32, int64_t colTile = 64) {
    auto tile = [&](MStmtPtr body) { return mapFor({"i", "j"}, {repeat({T, ci(colTile)})}, std::nullopt, body); };
    Expr prod = binary(BinOp::Mul, load(A, {row(), lv("k")}), load(B, {lv("k"), col()}));
    auto body = mBlock({allocS(acc), tile(store(acc, {lv("i"), lv("j")}, floatImm(0))),
                        seqFor("k", ci(0), sym("K"), tile(store(acc, {lv("i"), lv("j")}, prod, AccumOp::Add))),
                        tile(store(C, std::move(cIdx), load(acc, {lv("i"), lv("j")}), AccumOp::None, at(12, 9)))});
    auto outer = mapFor({"bi", "bj"}, {spatial({ceilDiv(sym("M"), T), ceilDiv(sym("N"), ci(64))})}, WorkerKind::Cores,
                        body, at(4, 3));
    auto k = kernel(op, TargetFamily::Cpu, outer);
    k->holes.push_back({0, {16, 32, 64}, at(3, 11), value});
    return k;
  }
};

// Runs CheckHoles then CheckTaskMappings; returns the messages.
std::string check(const KernelPtr &k) {
  DiagFixture fx;
  KernelPtr filled = checkHoles(*k, fx.diags);
  if (filled) checkTaskMappings(*filled, fx.diags);
  return fx.messages();
}

} // namespace

TEST_CASE("checks: the tiled matmul passes and its holes are filled everywhere") {
  Tiled t;
  auto k = t.make({t.row(), t.col()});
  DiagFixture fx;
  KernelPtr filled = checkHoles(*k, fx.diags);
  REQUIRE(filled);
  CHECK(checkTaskMappings(*filled, fx.diags));
  CHECK(fx.messages() == "");
  std::string text = printKernel(*filled);
  CHECK(text.find("cdiv(M, ?0)") == std::string::npos);
  CHECK(text.find("register acc: f32[32, 64];") != std::string::npos);
  CHECK(text.find("spatial(cdiv(M, 32), cdiv(N, 64)) on cores") != std::string::npos);
  CHECK(text.find("C[bi * 32 + i, bj * 64 + j] = acc[i, j];") != std::string::npos);
  CHECK(text.find("hole ?0 in {16, 32, 64} = 32") != std::string::npos);
}

TEST_CASE("checks: holes without a value or outside their candidates") {
  Tiled t;
  DiagFixture fx;
  CHECK_FALSE(checkHoles(*t.make({t.row(), t.col()}, std::nullopt), fx.diags));
  REQUIRE(fx.diags.all().size() == 1);
  CHECK(fx.diags.all()[0].loc.line == 3);
  CHECK(fx.diags.all()[0].loc.col == 11);
  CHECK(fx.messages() == "hole ?0 has no value: tile sizes left as '?' are chosen by the construction optimizer, "
                         "which did not run; write one of {16, 32, 64} instead of the '?'\n");
  CHECK(check(t.make({t.row(), t.col()}, 48)) == "hole ?0 = 48 is not one of its candidates {16, 32, 64}\n");
}

TEST_CASE("checks: constant requirements are evaluated, symbolic ones kept") {
  Tiled t;
  auto k = t.make({t.row(), t.col()});
  k->requires_.push_back({binary(BinOp::EQ, binary(BinOp::Mod, t.T, ci(64)), ci(0)), at(2, 3)});
  CHECK(check(k) == "requirement `?0 % 64 == 0` is false for the chosen tile sizes (?0 = 32)\n");
  k->requires_ = {{binary(BinOp::EQ, binary(BinOp::Mod, sym("N"), ci(4)), ci(0)), at(2, 3)},
                  {binary(BinOp::LE, t.T, ci(32)), at(2, 20)}};
  DiagFixture fx;
  KernelPtr filled = checkHoles(*k, fx.diags);
  REQUIRE(filled);
  REQUIRE(filled->requires_.size() == 1);
  CHECK(printExpr(filled->requires_[0].cond) == "N % 4 == 0");
}

TEST_CASE("checks: workers that do not index the output conflict") {
  Tiled t;
  CHECK(check(t.make({t.row(), lv("j")})) ==
        "writes conflict: workers differing in 'bj' (spatial(cdiv(M, 32), cdiv(N, 64)) on cores, at 4:3) store to "
        "the same element of C (e.g. C[0, 0] by bj = 0 and bj = 1 when M = 1, N = 65)\n");
}

TEST_CASE("checks: tiles that leave gaps or fall short are coverage errors") {
  Tiled t;
  // columns bj*64 + 2*j for j < 32: every other column
  Expr gappy = binary(BinOp::Add, binary(BinOp::Mul, lv("bj"), ci(64)), binary(BinOp::Mul, lv("j"), ci(2)));
  CHECK(check(t.make({t.row(), gappy}, 32, 32)) ==
        "mapping never writes C[i, j] for (1 + j) mod 2 = 0 (e.g. C[0, 1] when M = 1, N = 2)\n");
  // ... and with j < 64 the tiles of neighbouring workers overlap
  CHECK(check(t.make({t.row(), gappy})) ==
        "writes conflict: workers differing in 'bj' (spatial(cdiv(M, 32), cdiv(N, 64)) on cores, at 4:3) store to "
        "the same element of C (e.g. C[0, 64] by bj = 0 and bj = 1 when M = 1, N = 65)\n");
  // 32-wide column tiles with cdiv(N, 64) workers
  Expr narrow = binary(BinOp::Add, binary(BinOp::Mul, lv("bj"), ci(32)), lv("j"));
  CHECK(check(t.make({t.row(), narrow}, 32, 32)) ==
        "mapping never writes C[i, j] for 64*floor((j)/32) >= N (e.g. C[0, 32] when M = 1, N = 33)\n");
}

TEST_CASE("checks: a loop bounded by min() is proven to cover the rest of its tile") {
  // `i < min(a, b)` is checked as `i < a and i < b`: one convex set, so the
  // proof of the exact tile stays within the budget (and is silent).
  auto kernelWith = [](const std::string &extent) {
    Module m = unittest::moduleFromSource(fmt::format(R"(
op add1(X: f32[N]) -> Z: f32[N] {{ Z[i] = X[i] + 1.0; }}
kernel k implements add1 on cpu {{
  for (t) in spatial(64) * repeat(cdiv(N, 1024)) on cores {{
    for i in 0..{} {{ Z[i + t * 16] = X[i + t * 16] + 1.0; }}
  }}
}}
)", extent));
    for (const Export &e : m.exports)
      if (e.kernel) return e.kernel;
    FAIL("no kernel");
    return KernelPtr();
  };
  CHECK(check(kernelWith("min(16, N - t * 16)")) == "");
  CHECK(check(kernelWith("min(15, N - t * 16)")).rfind("mapping never writes Z[i]", 0) == 0);
  CHECK(check(kernelWith("min(16, N - t * 16 - 1)")) == "mapping never writes Z[i = -1 + N] (e.g. Z[0] when N = 1)\n");
}

TEST_CASE("checks: constant coverage and plain-store overwrites") {
  auto op = std::make_shared<Op>();
  op->name = "fill";
  auto C = tensor("C", {ci(128)}, TensorRole::Output);
  op->outputs = {C};
  op->symbols = {"K"};
  Expr i = binary(BinOp::Add, binary(BinOp::Mul, lv("w"), ci(16)), lv("r"));
  auto inner = mapFor({"r"}, {repeat({ci(16)})}, std::nullopt, store(C, {i}, floatImm(1), AccumOp::None, at(7, 5)));
  auto k = kernel(op, TargetFamily::Cpu, mapFor({"w"}, {spatial({ci(4)})}, WorkerKind::Cores, inner, at(6, 3)));
  CHECK(check(k) == "mapping never writes C[i0] for i0 >= 64 (e.g. C[64])\n");
  // the same element stored in every iteration of k
  auto over = seqFor("k", ci(0), sym("K"), store(C, {lv("w")}, floatImm(1), AccumOp::None, at(8, 5)), at(8, 1));
  k = kernel(op, TargetFamily::Cpu, mapFor({"w"}, {spatial({ci(128)})}, WorkerKind::Cores, over, at(6, 3)));
  CHECK(check(k) == "store to C is not injective: iterations differing in 'k' (for k in 0..K, at 8:1) write the "
                    "same element; accumulate with '+=' or index C by 'k' (e.g. C[0] at k = 0 and k = 1 when K = "
                    "2)\n");
  // ... which is fine for an accumulating store, but for K = 0 it writes nothing
  k = kernel(op, TargetFamily::Cpu,
             mapFor({"w"}, {spatial({ci(128)})}, WorkerKind::Cores,
                    seqFor("k", ci(0), sym("K"), store(C, {lv("w")}, floatImm(1), AccumOp::Add)), at(6, 3)));
  CHECK(check(k) == "mapping never writes C[i0] for K = 0 (e.g. C[0] when K = 0)\n");
  k->requires_.push_back({binary(BinOp::GE, sym("K"), ci(1)), at(5, 3)});
  CHECK(check(k) == "");
  // but workers accumulating into one element race
  k = kernel(op, TargetFamily::Cpu,
             mapFor({"w", "k"}, {spatial({ci(128), ci(4)})}, WorkerKind::Cores,
                    store(C, {lv("w")}, floatImm(1), AccumOp::Add), at(6, 3)));
  CHECK(check(k) == "writes conflict: workers differing in 'k' (spatial(128, 4) on cores, at 6:3) store to the "
                    "same element of C (e.g. C[0] by k = 0 and k = 1)\n");
  // an output that is never written
  k = kernel(op, TargetFamily::Cpu, mBlock({}));
  CHECK(check(k) == "kernel fill_k never writes output C\n");
}

TEST_CASE("checks: worker kinds and launch configuration") {
  auto op = std::make_shared<Op>();
  op->name = "fill";
  auto C = tensor("C", {ci(64), ci(64)}, TensorRole::Output);
  op->outputs = {C};
  auto st = [&] { return store(C, {lv("i"), lv("j")}, floatImm(1)); };
  auto two = [&](TargetFamily f, WorkerKind outer, int64_t n, WorkerKind inner, int64_t m) {
    auto in = mapFor({"j"}, {spatial({ci(m)}), repeat({ci(64 / m)})}, inner, st(), at(5, 5));
    return kernel(op, f, mapFor({"i"}, {spatial({ci(n)}), repeat({ci(64 / n)})}, outer, in, at(4, 3)));
  };
  // cpu: cores outside, lanes inside
  CHECK(check(two(TargetFamily::Cpu, WorkerKind::Cores, 64, WorkerKind::Lanes, 8)) == "");
  CHECK(check(two(TargetFamily::Cpu, WorkerKind::Cores, 64, WorkerKind::Cores, 8)) ==
        "cores mappings must be outermost, but this one is nested inside `spatial(64) * repeat(1) on cores` at 4:3\n");
  CHECK(check(two(TargetFamily::Cpu, WorkerKind::Cores, 64, WorkerKind::Lanes, 32)) == "");
  CHECK(check(two(TargetFamily::Cpu, WorkerKind::Cores, 64, WorkerKind::Threads, 8)) ==
        "worker kind 'threads' is not available on target cpu (it has cores, lanes)\n");
  // lanes: power of two <= 64
  auto lanes3 = kernel(op, TargetFamily::Cpu,
                       mapFor({"i", "j"}, {repeat({ci(64), ci(22)}), spatial({ci(1), ci(3)})}, WorkerKind::Lanes,
                              st(), at(4, 3)));
  CHECK(check(lanes3).find("a lanes mapping needs a constant power-of-two number of lanes <= 64, not 3") == 0);
  // cuda: blocks outside, threads inside; at most 1024 threads; warps * 32 == threads
  CHECK(check(two(TargetFamily::Cuda, WorkerKind::Blocks, 64, WorkerKind::Threads, 64)) == "");
  auto big = kernel(op, TargetFamily::Cuda,
                    mapFor({"i", "j"}, {spatial({ci(64), ci(32)}), repeat({ci(1), ci(2)})}, WorkerKind::Threads, st(),
                           at(4, 3)));
  CHECK(check(big) == "a threads mapping needs a constant number of threads <= 1024, not 2048\n");
  CHECK(check(two(TargetFamily::Cuda, WorkerKind::Warps, 4, WorkerKind::Threads, 64)) ==
        "4 warps (at 4:3) need 128 threads (32 per warp), but this threads mapping uses 64\n");
  {
    DiagFixture fx; // reported at the threads mapping, not at the kernel
    checkTaskMappings(*two(TargetFamily::Cuda, WorkerKind::Warps, 4, WorkerKind::Threads, 64), fx.diags);
    REQUIRE(fx.diags.all().size() == 1);
    CHECK(fx.diags.all()[0].loc.line == 5);
    CHECK(fx.diags.all()[0].loc.col == 5);
  }
  CHECK(check(two(TargetFamily::Cuda, WorkerKind::Threads, 64, WorkerKind::Blocks, 8)) ==
        "blocks mappings must be outermost, but this one is nested inside `spatial(64) * repeat(1) on threads` at "
        "4:3\n");
  // sunway: exactly 64 CPEs
  auto cpes = [&](int64_t n) {
    return kernel(op, TargetFamily::Sunway,
                  mapFor({"i"}, {spatial({ci(n)}), repeat({ci(64 / n)})}, WorkerKind::Cpes,
                         mapFor({"j"}, {repeat({ci(64)})}, std::nullopt, st()), at(4, 3)));
  };
  CHECK(check(cpes(64)) == "");
  CHECK(check(cpes(32)) == "a cpes mapping must use exactly the 64 CPEs of a core group, not 32\n");
}
