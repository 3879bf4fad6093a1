// x86 register tiles of window reductions (max/avg pooling's nests): the
// matcher takes T = max(T, X), min(T, X) and T + X with the window loops as
// reduction loops, refuses a computed operand with its reason, and the
// compiled tile equals the definition on a baseline (4-lane) target with a
// ragged tail and a strided window guard as lane masks (LaneMask.h), on
// blocks where the guard holds over the whole window and where it does not,
// and NaN losing to a tile started from a constant by a plain compare.
#include <doctest/doctest.h>

#include "backends/x86/EmitRegisterTile.h"
#include "x86_support.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;
using namespace tk::x86;

namespace {

// for r in 0..R { for s in 0..S { for x in 0..N {
//   Y[x] = op(Y[x], P[r, x + s] when 0 <= 2*x + s - 1 < W else pad) } } }
// (P a phase-row-like buffer read at unit stride, guarded by the strided
// column of the original image, as DeinterleaveStridedRows leaves it).
struct Window {
  TensorPtr P = tensor("P", ScalarType::F32, {sym("R"), add(sym("N"), sym("S"))}, TensorRole::Input);
  TensorPtr Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  Expr r = loopVar("r"), s = loopVar("s"), x = loopVar("x");

  LStmtPtr nest(BinOp op, Expr pad, bool computed = false) {
    Expr col = add(add(mul(x, intImm(2)), s), intImm(-1));
    Expr guard = binary(BinOp::And, binary(BinOp::LE, intImm(0), col), binary(BinOp::LT, col, sym("W")));
    Expr operand = load(P, {r, add(x, s)}, pad, guard);
    if (computed) operand = binary(BinOp::Mul, operand, floatImm(2));
    Expr value = binary(op, load(Y, {x}), operand);
    return forLoop("r", sym("R"), forLoop("s", sym("S"), forLoop("x", sym("N"), store(Y, {x}, value))));
  }

  // `name`(P, Y, R, S, N, W) running `body`.
  using Fn = int(const float *, float *, int64_t, int64_t, int64_t, int64_t);
  LoweredFunc func(const std::string &name, LStmtPtr body) const {
    return {name, makeOp(name, {tensorParam(P)}, {Y}, {"R", "S", "N", "W"}), TargetFamily::Cpu, std::move(body), {}};
  }

  // The definition at x: `start` folded with the window's elements of p
  // (`pad` where the guard fails) by fmax, fmin or +.
  static float want(BinOp op, float start, float pad, const std::vector<float> &p, int64_t R, int64_t S,
                    int64_t N, int64_t W, int64_t x) {
    float v = start;
    for (int64_t r = 0; r < R; ++r)
      for (int64_t s = 0; s < S; ++s) {
        int64_t col = 2 * x + s - 1;
        float e = col >= 0 && col < W ? p[size_t(r * (N + S) + x + s)] : pad;
        v = op == BinOp::Max ? std::fmax(v, e) : op == BinOp::Min ? std::fmin(v, e) : v + e;
      }
    return v;
  }
};

} // namespace

TEST_CASE("x86 window tile: max, min and sum nests are register tiles, but a computed operand is not") {
  Window w;
  for (BinOp op : {BinOp::Max, BinOp::Min, BinOp::Add}) {
    LStmtPtr root = w.nest(op, floatImm(0));
    std::string why;
    auto nest = matchContraction(*root, &why);
    REQUIRE_MESSAGE(nest, why);
    CHECK(nest->fold == op);
    CHECK_FALSE(nest->bcast);
    CHECK(nest->kLoops.size() == 2);
    CHECK(nest->vec->tensor == w.P);
  }
  std::string why;
  CHECK_FALSE(matchContraction(*w.nest(BinOp::Max, floatImm(0), true), &why));
  CHECK(why == "an operand of the product is not a tensor element");
}

TEST_CASE("x86 window tile: compiled window reductions equal the definition") {
  const float inf = std::numeric_limits<float>::infinity();
  for (auto [op, pad] : {std::pair{BinOp::Max, -inf}, {BinOp::Min, inf}, {BinOp::Add, 0.0f}}) {
    Window w;
    LStmtPtr body = w.nest(op, floatImm(pad));
    LoadedKernels lib({w.func("win", body)}, "x86_64");
    auto fn = lib.get<Window::Fn>("win");
    // N = 7: a full 4-lane vector and a masked one; W cuts the strided
    // column on the right (W = 9) or nowhere (W = 40); S = 1 keeps s - 1 out
    // of range only at x = 0.
    for (auto [R, S, N, W] : {std::array<int64_t, 4>{3, 3, 7, 9}, {2, 3, 7, 40}, {1, 1, 7, 40}, {3, 2, 1, 2}, {2, 3, 9, 13}}) {
      CAPTURE(R);
      CAPTURE(S);
      CAPTURE(N);
      CAPTURE(W);
      std::vector<float> P(size_t(R * (N + S))), Y(size_t(N) + 4, 5.0f);
      for (size_t i = 0; i < P.size(); ++i) P[i] = float((i * 37) % 23) - 11;
      REQUIRE(fn(P.data(), Y.data(), R, S, N, W) == 0);
      for (int64_t x = 0; x < N; ++x) CHECK(Y[size_t(x)] == Window::want(op, 5.0f, pad, P, R, S, N, W, x));
      for (int64_t x = N; x < N + 4; ++x) CHECK(Y[size_t(x)] == 5.0f); // past the end: untouched
    }
  }
}

TEST_CASE("x86 window tile: a max or min started from a constant ignores NaN with one compare and select") {
  // for x { Y[x] = -inf }  then the window nest: the accumulators start at
  // -inf (tileStart), never hold NaN, so `y > acc ? y : acc` is
  // maxnum (NaN loses) without its NaN test. Y holds NaN in memory before
  // the call, which the start value replaces; P has NaNs, whole windows of
  // them too.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (auto [op, start] : {std::pair{BinOp::Max, -inf}, {BinOp::Min, inf}}) {
    Window w;
    LStmtPtr body = lBlock({forLoop("x", sym("N"), store(w.Y, {w.x}, floatImm(start))), w.nest(op, floatImm(start))});
    LoweredFunc f = w.func("win0", body);
    std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64-avx512", 0);
    CHECK(ir.find(op == BinOp::Max ? "fcmp ogt <16 x float>" : "fcmp olt <16 x float>") != std::string::npos);
    CHECK(ir.find("@llvm.maxnum") == std::string::npos);
    CHECK(ir.find("@llvm.minnum") == std::string::npos);
    LoadedKernels lib({f}, "x86_64");
    auto fn = lib.get<Window::Fn>("win0");
    for (auto [R, S, N, W] : {std::array<int64_t, 4>{3, 3, 7, 9}, {2, 3, 9, 13}, {1, 1, 5, 40}}) {
      CAPTURE(R);
      CAPTURE(N);
      std::vector<float> P(size_t(R * (N + S))), Y(size_t(N) + 4, nan);
      for (size_t i = 0; i < P.size(); ++i) P[i] = i % 3 == 1 ? nan : float((i * 37) % 23) - 11;
      if (R == 1 && S == 1) P[2] = nan; // x = 2 sees only NaN: the start value stays
      REQUIRE(fn(P.data(), Y.data(), R, S, N, W) == 0);
      for (int64_t x = 0; x < N; ++x) CHECK(Y[size_t(x)] == Window::want(op, start, start, P, R, S, N, W, x));
      for (int64_t x = N; x < N + 4; ++x) CHECK(std::isnan(Y[size_t(x)])); // past the end: untouched
    }
  }
}

TEST_CASE("x86 window tile: AVX-512 rows of every remainder equal the definition") {
  // With k registers the last up to four vectors of a row run as one
  // partial block (masked past the end): every remainder of 1..4 vectors,
  // whole or ragged, after full blocks of 4 and 8 vectors (all N up to
  // 100), and after the widest blocks (30 vectors, 480 lanes) and 16.
  // A host that cannot run AVX-512 code skips: ctest reports the case as
  // Skipped on this line (SKIP_REGULAR_EXPRESSION, tests/unit/CMakeLists.txt).
  if (!__builtin_cpu_supports("avx512f")) {
    std::cout << "[tk-skip] the host cannot run AVX-512 code (no avx512f)\n";
    return;
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (auto [op, pad] : {std::pair{BinOp::Max, -inf}, {BinOp::Add, 0.0f}}) {
    Window w;
    LStmtPtr body = w.nest(op, floatImm(pad));
    LoadedKernels lib({w.func("win5", body)}, "x86_64-avx512");
    auto fn = lib.get<Window::Fn>("win5");
    const int64_t R = 3, S = 3;
    std::vector<int64_t> sizes;
    for (int64_t N = 1; N <= 100; ++N) sizes.push_back(N);
    for (int64_t N : {255, 256, 257, 479, 480, 481, 500, 523}) sizes.push_back(N);
    for (int64_t N : sizes) {
      CAPTURE(N);
      int64_t W = N % 3 == 0 ? 2 * N : 4 * N; // a guard cutting the right edge, or none
      std::vector<float> P(size_t(R * (N + S))), Y(size_t(N) + 20, 5.0f);
      for (size_t i = 0; i < P.size(); ++i) P[i] = float((i * 37) % 23) - 11;
      REQUIRE(fn(P.data(), Y.data(), R, S, N, W) == 0);
      for (int64_t x = 0; x < N; ++x) CHECK(Y[size_t(x)] == Window::want(op, 5.0f, pad, P, R, S, N, W, x));
      for (int64_t x = N; x < N + 20; ++x) CHECK(Y[size_t(x)] == 5.0f); // past the end: untouched
    }
  }
}
