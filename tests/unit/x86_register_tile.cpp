// x86 register blocking: which loop nests are contractions
// (backends/x86/MatchContraction.h), the register tile chosen per target
// (ChooseRegisterTile.h), what the emitted tiles do (EmitRegisterTile.h),
// and tiles run on the baseline target (tests/codegen runs AVX2/AVX-512
// shapes end to end).
#include <doctest/doctest.h>

#include "backends/x86/EmitRegisterTile.h"
#include "backends/x86/LaneMask.h"
#include "x86_support.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;
using namespace tk::x86;

namespace {

struct Mm {
  TensorPtr A = tensor("A", ScalarType::F32, {sym("M"), sym("K")}, TensorRole::Input);
  TensorPtr B = tensor("B", ScalarType::F32, {sym("K"), sym("N")}, TensorRole::Input);
  TensorPtr C = tensor("C", ScalarType::F32, {sym("M"), sym("N")}, TensorRole::Output);
  Expr i = loopVar("i"), j = loopVar("j"), k = loopVar("k");

  // for k { for j in 0..N { C[i, j] = C[i, j] + A[i, k] * B[k, j] } } (i free)
  LStmtPtr rowNest(Expr value = nullptr, Expr pred = nullptr) {
    Expr acc = load(C, {i, j});
    Expr v = value ? value : binary(BinOp::Add, acc, binary(BinOp::Mul, load(A, {i, k}), load(B, {k, j})));
    return forLoop("k", sym("K"), forLoop("j", sym("N"), store(C, {i, j}, v, pred)));
  }

  // Compiles `body` for the baseline target and runs it on M = 3, K = 5,
  // N = 7 (a full and a masked 4-lane vector) with C at 1 in memory:
  // C must be `start` + A B, the elements past its end untouched.
  void run(const LStmtPtr &body, float start) {
    LoweredFunc f{"mm3", makeOp("mm3", {tensorParam(A), tensorParam(B)}, {C}, {"M", "K", "N"}), TargetFamily::Cpu,
                  body, {}};
    LoadedKernels lib({f}, "x86_64");
    auto fn = lib.get<int(const float *, const float *, float *, int64_t, int64_t, int64_t)>("mm3");
    const int64_t M = 3, K = 5, N = 7;
    std::vector<float> a(M * K), b(K * N), c(M * N + 4, 1.0f);
    for (size_t x = 0; x < a.size(); ++x) a[x] = float(x % 7) - 3;
    for (size_t x = 0; x < b.size(); ++x) b[x] = float(x % 5) - 2;
    REQUIRE(fn(a.data(), b.data(), c.data(), M, K, N) == 0);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t col = 0; col < N; ++col) {
        float want = start;
        for (int64_t x = 0; x < K; ++x) want += a[r * K + x] * b[x * N + col];
        CHECK(c[r * N + col] == doctest::Approx(want));
      }
    for (int x = 0; x < 4; ++x) CHECK(c[M * N + x] == 1.0f);
  }
};

CpuTarget target(const std::string &name) {
  std::string err;
  return *resolveCpuTarget(name, &err);
}

} // namespace

TEST_CASE("x86 register tile: accumulating row nest is a contraction") {
  Mm m;
  // The match points into the nest: keep the nest alive while it is used.
  LStmtPtr root = m.rowNest();
  auto nest = matchContraction(*root);
  REQUIRE(nest);
  CHECK(nest->rows == 1);
  CHECK(nest->bcast->tensor == m.A);
  CHECK(nest->vec->tensor == m.B);
  RegisterTile t512 = chooseRegisterTile(*nest, target("x86_64-avx512"));
  CHECK(t512.lanes == 16);
  CHECK(t512.vectorsPerRow == 30);
  RegisterTile t2 = chooseRegisterTile(*nest, target("x86_64-avx2"));
  CHECK(t2.lanes == 8);
  CHECK(t2.vectorsPerRow == 14);
}

TEST_CASE("x86 register tile: rows split into equal blocks of at most 8") {
  // for k { for i in 0..R { for j in 0..L { C[i, j] += A[i, k] * B[k, j] } } }:
  // A's broadcasts are strided rows (ChooseRegisterTile.cpp has the
  // measurements behind the cap).
  Mm m;
  auto rowsPerBlock = [&](int64_t rows, int64_t cols, const std::string &t) {
    Expr v = binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j})));
    LStmtPtr root = forLoop("k", sym("K"), forLoop("i", intImm(rows), forLoop("j", intImm(cols), store(m.C, {m.i, m.j}, v))));
    std::string why;
    auto nest = matchContraction(*root, &why);
    REQUIRE_MESSAGE(nest, why);
    CHECK(nest->rows == rows);
    return chooseRegisterTile(*nest, target(t)).rowsPerBlock;
  };
  CHECK(rowsPerBlock(8, 32, "x86_64-avx512") == 8);   // one block, not 4 + 4
  CHECK(rowsPerBlock(12, 16, "x86_64-avx512") == 6);  // 6 + 6, not 8 + 4
  CHECK(rowsPerBlock(24, 16, "x86_64-avx512") == 8);  // 3 x 8; the register file would allow 30
  CHECK(rowsPerBlock(5, 64, "x86_64-avx512") == 5);
  CHECK(rowsPerBlock(1, 64, "x86_64-avx512") == 1);
  // 16 ymm: 2 vectors per row leave room for 6 rows of accumulators.
  CHECK(rowsPerBlock(12, 16, "x86_64-avx2") == 6);
  CHECK(rowsPerBlock(8, 32, "x86_64-avx2") == 2);
}

TEST_CASE("x86 register tile: operands in either order, guards as lane masks") {
  Mm m;
  Expr guarded = load(m.B, {m.k, m.j}, floatImm(0), binary(BinOp::LT, add(m.j, intImm(3)), sym("N")));
  Expr v = binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, guarded, load(m.A, {m.i, m.k})));
  LStmtPtr root = m.rowNest(v);
  auto nest = matchContraction(*root);
  REQUIRE(nest);
  CHECK(nest->bcast->tensor == m.A);
  CHECK(laneMaskable(binary(BinOp::GE, add(m.j, intImm(-1)), intImm(0)), "j"));
  CHECK_FALSE(laneMaskable(binary(BinOp::EQ, m.j, intImm(0)), "j"));
  // A strided window's guard (`2*x + s - pad < W`) masks too; a product of
  // the variable with itself does not.
  CHECK(laneMaskable(binary(BinOp::LT, mul(m.j, intImm(2)), sym("N")), "j"));
  CHECK_FALSE(laneMaskable(binary(BinOp::LT, mul(m.j, m.j), sym("N")), "j"));
  CHECK_FALSE(laneMaskable(binary(BinOp::LT, floorDiv(m.j, intImm(2)), sym("N")), "j"));
}

TEST_CASE("x86 register tile: non-contractions say why") {
  Mm m;
  std::string why;
  // The accumulated element moves with k.
  auto moving = forLoop("k", sym("K"), forLoop("j", sym("N"), store(m.C, {m.k, m.j},
      binary(BinOp::Add, load(m.C, {m.k, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j}))))));
  CHECK_FALSE(matchContraction(*moving, &why));
  CHECK(why.find("moves with the reduction") != std::string::npos);
  // Both operands vary along j.
  auto both = m.rowNest(binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.B, {m.i, m.j}), load(m.B, {m.k, m.j}))));
  CHECK_FALSE(matchContraction(*both, &why));
  CHECK(why.find("both operands") != std::string::npos);
  // Strided access along j (B[j, k]).
  auto strided = m.rowNest(binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.j, m.k}))));
  CHECK_FALSE(matchContraction(*strided, &why));
  CHECK(why.find("not contiguous") != std::string::npos);
  // Not a sum of a product.
  auto plain = m.rowNest(binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j})));
  CHECK_FALSE(matchContraction(*plain, &why));
}

TEST_CASE("x86 register tile: masked tails compute the contraction (baseline SSE target)") {
  // C[i, :] = sum_k A[i, k] B[k, :] for one row block of 3 rows, N = 7 (a
  // full and a masked 4-lane vector), accumulating into C.
  Mm m;
  auto rowLoop = forLoop("i", intImm(3), forLoop("j", sym("N"), store(m.C, {m.i, m.j},
      binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j}))))));
  auto body = forLoop("k", sym("K"), rowLoop);
  REQUIRE(matchContraction(*body));
  m.run(body, 1);
}

TEST_CASE("x86 register tile: a contraction's tile is prefetched before its loop, and a continued sum adds C after it") {
  // C[i, :] += sum_k A[i, k] B[k, :], 3 rows: the accumulators start from
  // zero, C's tile is prefetched before the k loop and added after it (run
  // checks 1 + A B); a window max (pooling's) reads its start from C and
  // is not prefetched.
  Mm m;
  auto rows = [&](Expr v) { return forLoop("k", sym("K"), forLoop("i", intImm(3), forLoop("j", sym("N"), store(m.C, {m.i, m.j}, v)))); };
  Expr prod = binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j}));
  LStmtPtr sum = rows(binary(BinOp::Add, load(m.C, {m.i, m.j}), prod));
  auto compiled = [&](const LStmtPtr &body) {
    LoweredFunc f{"t", makeOp("t", {tensorParam(m.A), tensorParam(m.B)}, {m.C}, {"M", "K", "N"}), TargetFamily::Cpu, body, {}};
    return emit({f}, CodegenOutput::LLVMIR, "x86_64-avx512");
  };
  std::string ir = compiled(sum);
  CHECK(ir.find("call void @llvm.prefetch") != std::string::npos);
  LStmtPtr max = rows(binary(BinOp::Max, load(m.C, {m.i, m.j}), load(m.B, {m.k, m.j})));
  REQUIRE(matchContraction(*max));
  CHECK(compiled(max).find("call void @llvm.prefetch") == std::string::npos);
  m.run(sum, 1);
}

TEST_CASE("x86 register tile: a streamed tile stores whole aligned vectors non-temporally and fences once") {
  // { C[i, :] = 0 for 3 rows; for k { C[i, :] += A[i, k] B[k, :] stream } }:
  // the whole vectors go out with non-temporal stores behind a run-time
  // alignment test, the function ends with one sfence, and the result is
  // exact with C aligned, C one element off (the cached path) and a masked
  // tail (N = 6 in 4-lane vectors on the baseline target).
  Mm m;
  auto zero = forLoop("i", intImm(3), forLoop("j", sym("N"), store(m.C, {m.i, m.j}, floatImm(0, ScalarType::F32))));
  auto streamed = [&](bool stream) {
    LStmtPtr st = store(m.C, {m.i, m.j}, binary(BinOp::Add, load(m.C, {m.i, m.j}),
                                                binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j}))));
    st->stream = stream;
    return lBlock({zero, forLoop("k", sym("K"), forLoop("i", intImm(3), forLoop("j", sym("N"), st)))});
  };
  auto func = [&](const LStmtPtr &body) {
    return LoweredFunc{"t", makeOp("t", {tensorParam(m.A), tensorParam(m.B)}, {m.C}, {"M", "K", "N"}), TargetFamily::Cpu, body, {}};
  };
  std::string ir = emit({func(streamed(true))}, CodegenOutput::LLVMIR, "x86_64-avx512");
  CHECK(ir.find("!nontemporal") != std::string::npos);
  CHECK(ir.find("call void @llvm.x86.sse.sfence") != std::string::npos);
  CHECK(ir.find("call void @llvm.prefetch") == std::string::npos);
  std::string plain = emit({func(streamed(false))}, CodegenOutput::LLVMIR, "x86_64-avx512");
  CHECK(plain.find("!nontemporal") == std::string::npos);
  CHECK(plain.find("sfence") == std::string::npos);

  LoadedKernels lib({func(streamed(true))}, "x86_64");
  auto fn = lib.get<int(const float *, const float *, float *, int64_t, int64_t, int64_t)>("t");
  const int64_t M = 3, K = 5;
  for (int64_t N : {8, 6})
    for (int64_t offset : {0, 1}) {
      CAPTURE(N);
      CAPTURE(offset);
      std::vector<float> a(M * K), b(K * N);
      for (size_t x = 0; x < a.size(); ++x) a[x] = float(x % 7) - 3;
      for (size_t x = 0; x < b.size(); ++x) b[x] = float(x % 5) - 2;
      alignas(64) float buf[64];
      std::fill(std::begin(buf), std::end(buf), 7.0f);
      float *c = buf + offset;
      REQUIRE(fn(a.data(), b.data(), c, M, K, N) == 0);
      for (int64_t r = 0; r < M; ++r)
        for (int64_t col = 0; col < N; ++col) {
          float want = 0;
          for (int64_t x = 0; x < K; ++x) want += a[r * K + x] * b[x * N + col];
          CHECK(c[r * N + col] == want);
        }
      CHECK(c[M * N] == 7.0f);
    }
}

TEST_CASE("x86 register tile: prefetches at the top of the reduction loop run with the tile, elsewhere they refuse it") {
  // for k { prefetch B[min(K - 1, k + 1), 0]; for i in 0..3 { for j { C[i, j] += A[i, k] B[k, j] } } }:
  // a register tile that issues the prefetch (into L2) every k step, exact.
  Mm m;
  auto prefetch = [&](Expr row) {
    auto pf = lStmt(LStmt::Kind::Prefetch);
    pf->tensor = m.B;
    pf->indices = {binary(BinOp::Min, add(sym("K"), intImm(-1)), row), intImm(0)};
    return pf;
  };
  auto tile = [&](const Expr &depth) {
    return forLoop("i", intImm(3), forLoop("j", sym("N"), store(m.C, {m.i, m.j}, binary(BinOp::Add, load(m.C, {m.i, m.j}),
        binary(BinOp::Mul, load(m.A, {m.i, depth}), load(m.B, {depth, m.j}))))));
  };
  LStmtPtr body = forLoop("k", sym("K"), lBlock({prefetch(add(m.k, intImm(1))), tile(m.k)}));
  std::string why;
  auto nest = matchContraction(*body, &why);
  REQUIRE_MESSAGE(nest, why);
  CHECK(nest->prefetches.size() == 1);
  CHECK(nest->rows == 3);
  LoweredFunc f{"t", makeOp("t", {tensorParam(m.A), tensorParam(m.B)}, {m.C}, {"M", "K", "N"}), TargetFamily::Cpu, body, {}};
  std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64-avx512");
  CHECK(ir.find("@llvm.prefetch.p0(ptr %B.pf") != std::string::npos);
  CHECK(ir.find("i32 0, i32 2, i32 1)") != std::string::npos); // read, L2, data
  m.run(body, 1);
  // In an outer reduction loop a prefetch would run once per inner loop,
  // not with the tile: the nest is refused and says why.
  LStmtPtr outer = forLoop("k", sym("K"), lBlock({prefetch(m.k), forLoop("k2", intImm(2), tile(m.k))}));
  CHECK_FALSE(matchContraction(*outer, &why));
  CHECK(why == "prefetches outside the innermost reduction loop");
  // Prefetches in two loops of the nest are refused too (none is dropped).
  LStmtPtr both = forLoop("k", sym("K"), lBlock({prefetch(m.k), forLoop("k2", intImm(2),
                                                                        lBlock({prefetch(m.k), tile(m.k)}))}));
  CHECK_FALSE(matchContraction(*both, &why));
  CHECK(why == "prefetches outside the innermost reduction loop");
}

TEST_CASE("x86 register tile: several reduction loops (a convolution's window and channels)") {
  // for r { for s { for c { for f in 0..6 { for x in 0..64 {
  //   O[f, x] += P[r, s, c, f] * X[c, r + x + s - 1] } } } } }  (X guarded)
  TensorPtr O = tensor("O", ScalarType::F32, {intImm(6), sym("W")}, TensorRole::Output);
  TensorPtr P = tensor("P", ScalarType::F32, {sym("R"), sym("S"), sym("C"), intImm(6)}, TensorRole::Input);
  TensorPtr X = tensor("X", ScalarType::F32, {sym("C"), sym("W")}, TensorRole::Input);
  Expr f = loopVar("f"), x = loopVar("x"), r = loopVar("r"), s = loopVar("s"), c = loopVar("c");
  Expr col = add(add(x, s), intImm(-1));
  Expr guard = binary(BinOp::And, binary(BinOp::LE, intImm(0), col), binary(BinOp::LT, col, sym("W")));
  Expr value = binary(BinOp::Add, load(O, {f, x}),
                      binary(BinOp::Mul, load(P, {r, s, c, f}), load(X, {c, col}, floatImm(0), guard)));
  auto tile = forLoop("f", intImm(6), forLoop("x", intImm(64), store(O, {f, x}, value)));
  LStmtPtr root = forLoop("r", sym("R"), forLoop("s", sym("S"), forLoop("c", sym("C"), tile)));
  std::string why;
  auto nest = matchContraction(*root, &why);
  REQUIRE_MESSAGE(nest, why);
  REQUIRE(nest->kLoops.size() == 3);
  CHECK(nest->kLoops.back()->var == "c");
  CHECK(nest->rows == 6);
  CHECK(nest->bcast->tensor == P);
  // The six broadcasts are adjacent elements of P (one address register):
  // all six rows fit one block of 4 zmm columns (24 accumulators).
  RegisterTile t = chooseRegisterTile(*nest, target("x86_64-avx512"));
  CHECK(t.vectorsPerRow == 4);
  CHECK(t.rowsPerBlock == 6);
  // A reduction loop inside the row loop is not a nest.
  auto inside = forLoop("r", sym("R"), forLoop("f", intImm(6), forLoop("c", sym("C"), forLoop("x", intImm(64),
                    store(O, {f, x}, value)))));
  CHECK_FALSE(matchContraction(*inside, &why));
  // The accumulated element moving with an outer loop is not a reduction.
  auto moving = forLoop("f", intImm(6), forLoop("c", sym("C"), forLoop("x", intImm(64), store(O, {f, x}, value))));
  CHECK_FALSE(matchContraction(*moving, &why));
  CHECK(why.find("moves with the reduction") != std::string::npos);
}

TEST_CASE("x86 register tile: flattened pixels [p / W, p % W] are one unit-stride index") {
  // for c { for f in 0..6 { for p in 0..H*W { O[f, p / W, p % W] += P[c, f] * X[c, p / W, p % W] } } }
  // (ConstructConvolution's flat pixel version): contiguous along p, six
  // adjacent broadcasts in one block, and run on the baseline target with
  // a masked tail (15 pixels in 4-lane vectors), no division per element.
  Expr H = sym("H"), W = sym("W");
  TensorPtr O = tensor("O", ScalarType::F32, {intImm(6), H, W}, TensorRole::Output);
  TensorPtr P = tensor("P", ScalarType::F32, {sym("C"), intImm(6)}, TensorRole::Input);
  TensorPtr X = tensor("X", ScalarType::F32, {sym("C"), H, W}, TensorRole::Input);
  Expr f = loopVar("f"), p = loopVar("p"), c = loopVar("c");
  auto pixel = [&](const Expr &divisor) {
    return std::vector<Expr>{binary(BinOp::Div, p, divisor), binary(BinOp::Mod, p, divisor)};
  };
  auto nestOver = [&](const Expr &xDivisor, const Expr &pixels) {
    std::vector<Expr> xi = pixel(xDivisor), oi = pixel(W);
    xi.insert(xi.begin(), c);
    oi.insert(oi.begin(), f);
    Expr value = binary(BinOp::Add, load(O, oi), binary(BinOp::Mul, load(P, {c, f}), load(X, xi)));
    return forLoop("c", sym("C"), forLoop("f", intImm(6), forLoop("p", pixels, store(O, oi, value))));
  };
  LStmtPtr root = nestOver(W, mul(H, W)), tile = nestOver(W, intImm(64));
  std::string why;
  auto nest = matchContraction(*root, &why);
  REQUIRE_MESSAGE(nest, why);
  CHECK(nest->vec->tensor == X);
  CHECK(nest->rows == 6);
  auto tileNest = matchContraction(*tile, &why);
  REQUIRE_MESSAGE(tileNest, why);
  RegisterTile t = chooseRegisterTile(*tileNest, target("x86_64-avx512"));
  CHECK(t.rowsPerBlock == 6);
  CHECK(t.vectorsPerRow == 4);
  // Divided by another extent than the last, the pixels are not contiguous.
  LStmtPtr strided = nestOver(H, mul(H, W));
  CHECK_FALSE(matchContraction(*strided, &why));
  CHECK(why.find("not contiguous") != std::string::npos);

  LoweredFunc fn{"flat", makeOp("flat", {tensorParam(P), tensorParam(X)}, {O}, {"C", "H", "W"}), TargetFamily::Cpu,
                 root, {}};
  LoadedKernels lib({fn}, "x86_64");
  auto call = lib.get<int(const float *, const float *, float *, int64_t, int64_t, int64_t)>("flat");
  const int64_t C = 3, Hv = 3, Wv = 5;
  std::vector<float> Pv(C * 6), Xv(C * Hv * Wv), Ov(6 * Hv * Wv + 4, 1.0f);
  for (size_t i = 0; i < Pv.size(); ++i) Pv[i] = float(i % 7) - 3;
  for (size_t i = 0; i < Xv.size(); ++i) Xv[i] = float(i % 5) - 2;
  REQUIRE(call(Pv.data(), Xv.data(), Ov.data(), C, Hv, Wv) == 0);
  for (int64_t fr = 0; fr < 6; ++fr)
    for (int64_t px = 0; px < Hv * Wv; ++px) {
      float want = 1;
      for (int64_t k = 0; k < C; ++k) want += Pv[k * 6 + fr] * Xv[k * Hv * Wv + px];
      CHECK(Ov[fr * Hv * Wv + px] == doctest::Approx(want));
    }
  for (int i = 0; i < 4; ++i) CHECK(Ov[6 * Hv * Wv + i] == 1.0f); // past the end: untouched
}

TEST_CASE("x86 register tile: a constant stored to the tile right before the nest is its accumulators' start") {
  // for i in 0..3 { for j in 0..N { C[i, j] = 2.5 } }  then  for k { for i in 0..3 { for j { C[i, j] += A[i, k] * B[k, j] } } }
  Mm m;
  auto tile = [&](const std::string &i, Expr rows, Expr extent, LStmtPtr body) {
    return forLoop(i, std::move(rows), forLoop("j", std::move(extent), std::move(body)));
  };
  Expr fma = binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j})));
  LStmtPtr root = forLoop("k", sym("K"), tile("i", intImm(3), sym("N"), store(m.C, {m.i, m.j}, fma)));
  auto nest = matchContraction(*root);
  REQUIRE(nest);
  // The row variable's name may differ; the elements may not.
  Expr r = loopVar("r");
  LStmtPtr init = tile("r", intImm(3), sym("N"), store(m.C, {r, m.j}, floatImm(2.5)));
  std::optional<TileStart> start = tileStart(*init, *nest);
  REQUIRE(start);
  REQUIRE(start->cases.size() == 1);
  CHECK_FALSE(start->conditional());
  CHECK(start->cases[0].value->floatValue == 2.5);
  CHECK_FALSE(tileStart(*tile("r", intImm(2), sym("N"), store(m.C, {r, m.j}, floatImm(2.5))), *nest));
  CHECK_FALSE(tileStart(*tile("r", intImm(3), sym("K"), store(m.C, {r, m.j}, floatImm(2.5))), *nest));
  CHECK_FALSE(tileStart(*tile("r", intImm(3), sym("N"), store(m.C, {r, m.j}, load(m.A, {r, m.j}))), *nest));
  Expr guard = binary(BinOp::LT, m.j, sym("K"));
  CHECK_FALSE(tileStart(*tile("r", intImm(3), sym("N"), store(m.C, {r, m.j}, floatImm(2.5), guard)), *nest));
  // Rows that share elements (C[i / 2, j]): a later register block must
  // read what an earlier one stored, so the store before stays.
  Expr half = binary(BinOp::Div, m.i, intImm(2));
  LStmtPtr shared = forLoop("k", sym("K"), tile("i", intImm(3), sym("N"), store(m.C, {half, m.j},
      binary(BinOp::Add, load(m.C, {half, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j}))))));
  auto sharedNest = matchContraction(*shared);
  REQUIRE(sharedNest);
  CHECK_FALSE(tileStart(*tile("i", intImm(3), sym("N"), store(m.C, {half, m.j}, floatImm(2.5))), *sharedNest));

  // C starts at 1 in memory: the result is 2.5 + A B.
  m.run(lBlock({init, root}), 2.5f);
}

TEST_CASE("x86 register tile: an initialisation under conditions runs the tile once and picks its stores") {
  // if (c) { C[r, j] = 2.5 (stream) }  then the nest: one tile from zero,
  // whose stores add 2.5 when c holds and C's elements when it does not.
  Mm m;
  auto tile = [&](const std::string &i, Expr rows, Expr extent, LStmtPtr body) {
    return forLoop(i, std::move(rows), forLoop("j", std::move(extent), std::move(body)));
  };
  Expr fma = binary(BinOp::Add, load(m.C, {m.i, m.j}), binary(BinOp::Mul, load(m.A, {m.i, m.k}), load(m.B, {m.k, m.j})));
  auto root = [&] { return forLoop("k", sym("K"), tile("i", intImm(3), sym("N"), store(m.C, {m.i, m.j}, fma))); };
  auto init = [&](bool stream) {
    LStmtPtr s = store(m.C, {loopVar("r"), m.j}, floatImm(2.5));
    s->stream = stream;
    return tile("r", intImm(3), sym("N"), s);
  };
  Expr holds = binary(BinOp::EQ, sym("M"), intImm(3)), fails = binary(BinOp::EQ, sym("M"), intImm(4));
  LStmtPtr nestRoot = root();
  auto nest = matchContraction(*nestRoot);
  REQUIRE(nest);
  // Nested ifs: exclusive paths, one streamed.
  LStmtPtr chain = lIf(holds, lIf(fails, init(true), init(false)), nullptr);
  std::optional<TileStart> start = tileStart(*chain, *nest);
  REQUIRE(start);
  CHECK(start->conditional());
  REQUIRE(start->cases.size() == 2);
  CHECK(start->cases[0].stream);
  CHECK_FALSE(start->cases[1].stream);
  CHECK(printExpr(start->cases[1].cond) == "M == 3 && !(M == 4)");
  // A condition that reads memory is evaluated before the tile's stores
  // only in the original order: refused.
  CHECK_FALSE(tileStart(*lIf(binary(BinOp::GT, load(m.C, {intImm(0), intImm(0)}), floatImm(0)), init(false), nullptr), *nest));
  // A branch that is not an initialisation of the tile: refused.
  CHECK_FALSE(tileStart(*lIf(holds, tile("r", intImm(2), sym("N"), store(m.C, {loopVar("r"), m.j}, floatImm(2.5))), nullptr),
                        *nest));

  // The constant is never stored as such: the tile adds it to its sums.
  LoweredFunc f{"mm3", makeOp("mm3", {tensorParam(m.A), tensorParam(m.B)}, {m.C}, {"M", "K", "N"}), TargetFamily::Cpu,
                lBlock({lIf(holds, init(false), nullptr), root()}), {}};
  std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64", 0);
  CHECK(ir.find("store float 2.500000e+00") == std::string::npos);
  CHECK(ir.find("2.500000e+00") != std::string::npos);

  // One unconditional initialisation marked `stream` streams the tile's
  // stores (whole vectors: a constant 8-column tile).
  auto narrow = [&](bool stream) {
    LStmtPtr z = store(m.C, {loopVar("r"), m.j}, floatImm(0));
    z->stream = stream;
    LStmtPtr nest = forLoop("k", sym("K"), tile("i", intImm(3), intImm(8), store(m.C, {m.i, m.j}, fma)));
    LoweredFunc g{"mm8", makeOp("mm8", {tensorParam(m.A), tensorParam(m.B)}, {m.C}, {"M", "K", "N"}), TargetFamily::Cpu,
                  lBlock({tile("r", intImm(3), intImm(8), z), nest}), {}};
    return emit({g}, CodegenOutput::LLVMIR, "x86_64", 0);
  };
  CHECK(narrow(true).find("!nontemporal") != std::string::npos);
  CHECK(narrow(false).find("!nontemporal") == std::string::npos);

  m.run(lBlock({lIf(holds, init(false), nullptr), root()}), 2.5f); // holds: 2.5 + A B
  m.run(lBlock({lIf(fails, init(false), nullptr), root()}), 1.0f); // fails: C (1) + A B
  m.run(lBlock({lIf(holds, init(true), init(false)), root()}), 2.5f);
  m.run(lBlock({lIf(fails, init(true), nullptr), root()}), 1.0f);
}
