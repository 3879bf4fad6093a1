// x86 vector reductions (backends/x86/VectorReduction.h): which loops are
// reductions into one element, and a masked-tail sum run on the baseline
// target (tests/codegen runs gemv/row_sum/row_max on AVX2 and AVX-512).
#include <doctest/doctest.h>

#include "backends/x86/VectorReduction.h"
#include "x86_support.h"

#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;
using namespace tk::x86;

namespace {

struct Gemv {
  TensorPtr A = tensor("A", ScalarType::F32, {sym("M"), sym("N")}, TensorRole::Input);
  TensorPtr x = tensor("x", ScalarType::F32, {sym("N")}, TensorRole::Input);
  TensorPtr y = tensor("y", ScalarType::F32, {sym("M")}, TensorRole::Output);
  Expr i = loopVar("i"), j = loopVar("j");

  LStmtPtr loop(Expr e, BinOp op = BinOp::Add) {
    return forLoop("j", sym("N"), store(y, {i}, binary(op, load(y, {i}), e)));
  }
};

} // namespace

TEST_CASE("x86 vector reduction: sums of products, sums and max match") {
  Gemv g;
  auto dot = matchVectorReduction(*g.loop(binary(BinOp::Mul, load(g.A, {g.i, g.j}), load(g.x, {g.j}))));
  REQUIRE(dot);
  CHECK(dot->rhs);
  auto sum = matchVectorReduction(*g.loop(load(g.A, {g.i, g.j})));
  REQUIRE(sum);
  CHECK_FALSE(sum->rhs);
  auto mx = matchVectorReduction(*g.loop(load(g.A, {g.i, g.j}), BinOp::Max));
  REQUIRE(mx);
  CHECK(mx->op == BinOp::Max);
}

TEST_CASE("x86 vector reduction: non-reductions say why") {
  Gemv g;
  std::string why;
  CHECK_FALSE(matchVectorReduction(*g.loop(load(g.A, {g.j, g.i})), &why)); // strided along j
  CHECK(why.find("not contiguous") != std::string::npos);
  CHECK_FALSE(matchVectorReduction(*g.loop(load(g.A, {g.i, g.i})), &why)); // nothing varies
  CHECK(why.find("no operand varies") != std::string::npos);
  auto moving = forLoop("j", sym("N"), store(g.y, {g.j}, binary(BinOp::Add, load(g.y, {g.j}), load(g.x, {g.j}))));
  CHECK_FALSE(matchVectorReduction(*moving, &why));
  CHECK(why.find("moves with the loop") != std::string::npos);
  CHECK_FALSE(matchVectorReduction(*g.loop(load(g.A, {g.i, g.j}), BinOp::Sub), &why));
}

TEST_CASE("x86 vector reduction: blocks, single vectors and a masked tail sum exactly") {
  // y[0] += sum_j A[0, j] * x[j] for N in {0, 1, 3, 4, 37, 70}: with 4
  // lanes and 8 accumulators that covers the block loop, the single-vector
  // loop and the masked tail. Small integers keep every order exact.
  Gemv g;
  auto body = forLoop("i", intImm(1), g.loop(binary(BinOp::Mul, load(g.A, {g.i, g.j}), load(g.x, {g.j}))));
  LoweredFunc f{"dot", makeOp("dot", {tensorParam(g.A), tensorParam(g.x)}, {g.y}, {"M", "N"}), TargetFamily::Cpu,
                body, {}};
  LoadedKernels lib({f}, "x86_64");
  auto fn = lib.get<int(const float *, const float *, float *, int64_t, int64_t)>("dot");
  for (int64_t N : {0, 1, 3, 4, 37, 70}) {
    std::vector<float> A(N + 4, 100.0f), x(N + 4, 100.0f), y(1, 2.0f);
    float want = 2;
    for (int64_t j = 0; j < N; ++j) {
      A[j] = float(j % 5) - 2;
      x[j] = float(j % 3) - 1;
      want += A[j] * x[j];
    }
    REQUIRE(fn(A.data(), x.data(), y.data(), 1, N) == 0);
    CHECK(y[0] == want);
  }
}

TEST_CASE("x86 vector reduction: a perfect nest keeps its accumulators across the outer loops") {
  // y[0] += sum_r sum_j A[r, j] (a pool's whole window): one reduction
  // rooted at the r loop, its lanes combined once. An element that moves
  // with r is a reduction per r, and the r loop is not its root.
  Gemv g;
  auto whole = forLoop("r", sym("M"), forLoop("j", sym("N"), store(g.y, {intImm(0)},
                                                                   binary(BinOp::Add, load(g.y, {intImm(0)}), load(g.A, {loopVar("r"), g.j})))));
  auto red = matchVectorReduction(*whole);
  REQUIRE(red);
  CHECK(red->outer.size() == 1);
  CHECK(red->loop->var == "j");
  std::string why;
  auto perRow = forLoop("i", sym("M"), g.loop(load(g.A, {g.i, g.j})));
  CHECK_FALSE(matchVectorReduction(*perRow, &why));
  CHECK(why == "the stored element moves with an outer loop");
  LoweredFunc f{"total", makeOp("total", {tensorParam(g.A), tensorParam(g.x)}, {g.y}, {"M", "N"}), TargetFamily::Cpu,
                whole, {}};
  LoadedKernels lib({f}, "x86_64");
  auto fn = lib.get<int(const float *, const float *, float *, int64_t, int64_t)>("total");
  for (auto [M, N] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {1, 1}, {3, 37}, {7, 7}, {2, 70}}) {
    std::vector<float> A(size_t(M * N) + 4, 100.0f), x(1), y(1, 2.0f);
    float want = 2;
    for (int64_t k = 0; k < M * N; ++k) want += A[size_t(k)] = float(k % 7) - 3;
    REQUIRE(fn(A.data(), x.data(), y.data(), M, N) == 0);
    CHECK(y[0] == want);
  }
}
