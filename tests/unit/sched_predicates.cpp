// PredicateAccesses: bounds guards appear exactly where an access can leave
// its tensor, and the coordinates LowerTaskMappings binds with `let` (x / D,
// x % E, aliases of loop variables) count as in range. Each schedule also
// runs in the loop-IR evaluator, which throws on an out-of-bounds access.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/cpu/ConstructConvolution.h"
#include "scheduler/Pipeline.h"

#include <doctest/doctest.h>

#include <tuple>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

// The x86 AVX-512 and AVX2 instruction sets as their backend resolves them.
const TargetDesc kAvx512{ir::TargetFamily::Cpu, 512, 32};

namespace {

double value(const std::string &name, size_t i) { return double((i * 5 + name[0]) % 13) - 6; }

// op copy(A: f32[SHAPE]) -> B: f32[SHAPE] { B[...] = A[...]; }
OpPtr copyOp(std::vector<Expr> shape) {
  auto op = std::make_shared<Op>();
  op->name = "copy";
  auto A = tensor("A", shape, TensorRole::Input);
  auto B = tensor("B", shape, TensorRole::Output);
  op->inputs = {param(A)};
  op->outputs = {B};
  std::vector<IndexVar> vars;
  std::vector<Expr> idx;
  const char *names[] = {"a", "b", "c", "d"};
  for (size_t d = 0; d < shape.size(); ++d) {
    vars.push_back({names[d], shape[d], {}});
    idx.push_back(schedtest::idx(names[d]));
    if (shape[d]->kind == ExprKind::Var) op->symbols.push_back(shape[d]->name);
  }
  op->body = {{B, vars, load(A, idx), {}}};
  return op;
}

// A 2-D copy kernel: for (i, j) in ATOMS on cores { B[i, j] = A[i, j]; }
KernelPtr copyKernel(const OpPtr &op, std::vector<MappingAtom> atoms) {
  auto A = op->inputs[0].tensor, B = op->outputs[0];
  return kernel(op, TargetFamily::Cpu,
                mapFor({"i", "j"}, std::move(atoms), WorkerKind::Cores,
                       store(B, {lv("i"), lv("j")}, load(A, {lv("i"), lv("j")}))));
}

// Runs a copy and checks every element was written once with its value.
void checkCopy(const LoweredFunc &f, const std::map<std::string, int64_t> &symbols, size_t elements) {
  LoopEval ev;
  ev.run(f, symbols, value);
  REQUIRE(ev.status == 0);
  const auto &B = ev.tensor(f.op->outputs[0]);
  REQUIRE(B.size() == elements);
  for (size_t i = 0; i < elements; ++i) CHECK(B[i] == value("A", i));
  CHECK(ev.storeCounts["B"].size() == elements);
  for (const auto &[idx, n] : ev.storeCounts["B"]) CHECK(n == 1);
}

} // namespace

TEST_CASE("predicates: spatial(M, N) coordinates w / N and w % N need no guard") {
  auto op = copyOp({sym("M"), sym("N")});
  LoweredFunc f = lowerOne(op, copyKernel(op, {spatial({sym("M"), sym("N")})}));
  std::string text = printLoweredFunc(f);
  CHECK(text.find("    let i = w_i_j / N;\n"
                  "    let j = w_i_j % N;\n"
                  "    B[i, j] = A[i, j];\n") != std::string::npos);
  checkCopy(f, {{"M", 3}, {"N", 5}}, 15);
}

TEST_CASE("predicates: default schedule of a constant batch folds into spatial(4, M) without guards") {
  auto op = copyOp({ci(4), sym("M"), sym("N")});
  LoweredFunc f = lowerOne(op);
  std::string text = printLoweredFunc(f);
  CHECK(text.find("parallel for w_a_b in 0..M * 4 on cores {\n"
                  "    let a = w_a_b / M;\n"
                  "    let b = w_a_b % M;\n"
                  "    for c in 0..N {\n"
                  "      B[a, b, c] = A[a, b, c];\n") != std::string::npos);
  checkCopy(f, {{"M", 3}, {"N", 2}}, 24);
}

TEST_CASE("predicates: three symbolic spatial dimensions compare w / (N * K) with M * N * K") {
  auto op = copyOp({sym("M"), sym("N"), sym("K")});
  auto A = op->inputs[0].tensor, B = op->outputs[0];
  std::vector<Expr> ijk = {lv("i"), lv("j"), lv("k")};
  auto k = kernel(op, TargetFamily::Cpu,
                  mapFor({"i", "j", "k"}, {spatial({sym("M"), sym("N"), sym("K")})}, WorkerKind::Cores,
                         store(B, ijk, load(A, ijk))));
  LoweredFunc f = lowerOne(op, k);
  CHECK(printLoweredFunc(f).find("when") == std::string::npos);
  checkCopy(f, {{"M", 2}, {"N", 3}, {"K", 2}}, 12);
}

TEST_CASE("predicates: tiles that overshoot the tensor keep their guards") {
  auto op = copyOp({sym("M"), sym("N")});
  LoweredFunc f = lowerOne(op, copyKernel(op, {spatial({ceilDiv(sym("M"), ci(4)), ci(2)}),
                                               spatial({ci(4), ceilDiv(sym("N"), ci(2))})}));
  CHECK(printLoweredFunc(f).find("B[i, j] = (A[i, j] when i < M && j < N else 0.0) when i < M && j < N;") !=
        std::string::npos);
  checkCopy(f, {{"M", 5}, {"N", 3}}, 15);
}

TEST_CASE("lowering: repeat dimensions of extent 1 get no loop") {
  auto op = copyOp({sym("M"), sym("N")});
  LoweredFunc f = lowerOne(op, copyKernel(op, {spatial({sym("M"), ci(1)}), repeat({ci(1), sym("N")})}));
  std::string text = printLoweredFunc(f);
  CHECK(text.find("  parallel for w_i_j in 0..M on cores {\n"
                  "    for j_1 in 0..N {\n"
                  "      let i = w_i_j;\n"
                  "      let j = j_1;\n"
                  "      B[i, j] = A[i, j];\n") != std::string::npos);
  CHECK(text.find("i_1") == std::string::npos);
  checkCopy(f, {{"M", 3}, {"N", 4}}, 12);
}

TEST_CASE("predicates: a `where` lower bound makes a scalar parameter non-negative") {
  // op sample(X: f32[N, L], k: i64) -> Y: f32[N, L / k] [where k >= 1]
  //   { Y[n, o] = X[n, o * k] else 0; }
  // (Inside a loop over 0..k, as a pooling window's, k > 0 holds anyway:
  // the loop runs only then.)
  auto make = [](bool bounded) {
    auto op = std::make_shared<Op>();
    op->name = "sample";
    auto X = tensor("X", {sym("N"), sym("L")}, TensorRole::Input);
    Expr Lk = binary(BinOp::Div, sym("L"), sym("k"));
    auto Y = tensor("Y", {sym("N"), Lk}, TensorRole::Output);
    op->inputs = {param(X), Param{"k", ScalarType::I64, nullptr, {}}};
    op->outputs = {Y};
    op->symbols = {"N", "L"};
    if (bounded) op->where = {{binary(BinOp::GE, sym("k"), ci(1)), at(2, 9)}};
    Expr col = binary(BinOp::Mul, idx("o"), sym("k"));
    op->body = {{Y, {{"n", sym("N"), {}}, {"o", Lk, {}}}, load(X, {idx("n"), col}, floatImm(0)), {}}};
    return op;
  };
  std::string with = printLoweredFunc(lowerOne(make(true)));
  CHECK(with.find("(X[n, o * k] when o * k < L else 0.0)") != std::string::npos);
  std::string without = printLoweredFunc(lowerOne(make(false)));
  CHECK(without.find("(X[n, o * k] when 0 <= o * k && o * k < L else 0.0)") != std::string::npos);
}

TEST_CASE("predicates: a flattened pixel pair is one guard, a blocked channel none") {
  // ConstructConvolution's flat pixel version reads X[n, c + cb*64, p / W, p % W]
  // with p = pb*64 + xx: in range exactly when p < H * W, a guard linear in
  // xx (a lane mask), where p / W < H would be a branch per element; the
  // channel c in 0..min(64, C - cb*64) never reaches C.
  ir::Module m = unittest::moduleFromSource(
      "op conv(X: f32[N, C, H, W], Wt: f32[F, C, 1, 1]) -> O: f32[N, F, H, W] {\n"
      "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];\n}\n");
  OpPtr op = m.ops.at(0);
  std::string text = printLoweredFunc(lowerOne(op, constructConvolution(op, chooseConvolutionTiles(kAvx512, 4))));
  CHECK(text.find("X[n, c + cb * 64, (pb * 64 + xx) / W, (pb * 64 + xx) % W] when") != std::string::npos);
  CHECK(text.find("pb * 64 + xx < H * W") != std::string::npos);
  CHECK(text.find("/ W < H") == std::string::npos);
  CHECK(text.find("% W < W") == std::string::npos);
  CHECK(text.find("c + cb * 64 < C") == std::string::npos);
}

TEST_CASE("predicates: the extent of a flattened mapping is positive inside its loop") {
  // spatial(M, L - k + 1) lowers to `for w in 0..M * (L - k + 1)` with
  // i = w / (L - k + 1) and j = w % (L - k + 1). The extent L - k + 1 is not
  // non-negative by its structure, but the body runs only when the product
  // is positive, so M and L - k + 1 both are: i < M and j < L - k + 1 hold
  // without guards (before, every access carried `0 <= i && i < M`).
  ir::Module m = unittest::moduleFromSource(
      "op shrink(X: f32[M, L], k: i64) -> Y: f32[M, L - k + 1] where k >= 1 {\n"
      "  Y[i, j] = X[i, j + k - 1] else 0.0;\n}\n"
      "kernel shrink_k implements shrink on cpu {\n"
      "  for (i, j) in spatial(M, L - k + 1) on cores { Y[i, j] = X[i, j + k - 1] else 0.0; }\n}\n");
  OpPtr op = m.ops.at(0);
  LoweredFunc f = lowerOne(op, m.kernels.at(0));
  std::string text = printLoweredFunc(f);
  CHECK(text.find("let j = w_i_j % (L - k + 1);") != std::string::npos);
  CHECK(text.find("Y[i, j] = (X[i, j + k - 1] when 0 <= j + k - 1 else 0.0);") != std::string::npos);
  for (auto [M, L, k] : {std::tuple{3, 5, 2}, {1, 4, 4}, {2, 3, 1}}) {
    LoopEval ev;
    ev.run(f, {{"M", M}, {"L", L}, {"k", k}}, value);
    REQUIRE(ev.status == 0);
    const auto &Y = ev.tensor(op->outputs[0]);
    int64_t cols = L - k + 1;
    REQUIRE(int64_t(Y.size()) == M * cols);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < cols; ++j) CHECK(Y[i * cols + j] == value("X", i * L + j + k - 1));
  }
}
