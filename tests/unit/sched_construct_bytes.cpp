// ConstructByteContraction: int8 products packed in byte quads, run on
// shapes that leave partial quads, register tiles, panels and k blocks,
// against the op's meaning (the flipped B and the row-sum correction must
// cancel exactly).
#include "sched_build.h"
#include "sched_eval.h"
#include "ir/ByteDot.h"
#include "scheduler/cpu/ConstructByteContraction.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

// op matmul_i8(A: i8[M, K], B: i8[K, N]) -> C: i32[M, N]
//   { C[i, j] = sum(k) i32(A[i, k]) * i32(B[k, j]); }
OpPtr byteMatmulOp() {
  OpPtr op = std::make_shared<Op>(*matmulOp());
  op->name = "matmul_i8";
  op->where.clear();
  for (Param &p : op->inputs) {
    p.tensor = std::make_shared<TensorDecl>(*p.tensor);
    p.tensor->dtype = p.type = ScalarType::I8;
  }
  TensorPtr C = std::make_shared<TensorDecl>(*op->outputs[0]);
  C->dtype = ScalarType::I32;
  op->outputs = {C};
  Expr a = cast(ScalarType::I32, load(op->inputs[0].tensor, {idx("i"), idx("k")}));
  Expr b = cast(ScalarType::I32, load(op->inputs[1].tensor, {idx("k"), idx("j")}));
  op->body = {{C, op->body[0].vars, reduce(ReduceOp::Sum, {{"k", sym("K"), {}}}, binary(BinOp::Mul, a, b)), {}}};
  return op;
}

TargetDesc vnni() {
  TargetDesc t{TargetFamily::Cpu, 512, 32};
  t.byteDot = true;
  return t;
}

// Bytes over the whole range, -128 and 127 included.
double byteValue(const std::string &name, size_t i) { return double((i * 37 + size_t(name[0]) * 11) % 256) - 128; }

} // namespace

TEST_CASE("construct bytes: applies to i8 x i8 -> i32 products on targets with byte dot products") {
  std::string why;
  CHECK_MESSAGE(byteContractionApplies(*byteMatmulOp(), vnni(), &why), why);
  CHECK(!byteContractionApplies(*byteMatmulOp(), TargetDesc{TargetFamily::Cpu, 512, 32}, &why));
  CHECK(why == "the target has no 8-bit dot products");
  CHECK(!byteContractionApplies(*matmulOp(), vnni(), &why));
  CHECK(why == "the value holds no i32 sum over one reduction variable");
  // Requantized to i8 (an epilogue around the sum): the sums gather in a
  // tile of the task, which the last pass turns into the output.
  OpPtr q = unittest::firstOpFromSource(R"(
op q(A: i8[M, K], B: i8[K, N], s: f32) -> Y: i8[M, N] {
  Y[i, j] = i8(max(-128.0, min(127.0, f32(sum(k) i32(A[i, k]) * i32(B[k, j])) * s)));
})");
  REQUIRE_MESSAGE(byteContractionApplies(*q, vnni(), &why), why);
  std::string text = printKernel(*constructByteContraction(q, ContractionTiles{2, 4, 3, 4, 8}));
  CHECK_MESSAGE(text.find("local sums: i32[4, 8];") != std::string::npos, text);
  CHECK(text.find("sums[ir * 2 + r, jj + jr * 4] += ") != std::string::npos);
  CHECK(text.find("Y[bi * 4 + er, bj * 8 + ec] = i8(max(-128.0, min(127.0, f32(sums[er, ec] - 128 * rowsum_A[er]) * s)));") !=
        std::string::npos);
  OpPtr wide = byteMatmulOp(); // an i32 factor: not a byte
  const Expr &prod = wide->body[0].value->args[0];
  wide->body[0].value = reduce(ReduceOp::Sum, wide->body[0].value->rvars,
                               binary(BinOp::Mul, prod->args[0], cast(ScalarType::I32, floatImm(1.0))));
  CHECK(!byteContractionApplies(*wide, vnni(), &why));
  CHECK(why == "a factor is not i32 of an element of an i8 tensor");
}

TEST_CASE("construct bytes: the tile is a byte-quad product over flipped B and A's quads") {
  ContractionTiles t{2, 4, 3, 4, 8};
  std::string text = printKernel(*constructByteContraction(byteMatmulOp(), t));
  CHECK_MESSAGE(text.find("global quads_B: i8[cdiv(N, 4), cdiv(K, 4), 4, 4];") != std::string::npos, text);
  CHECK(text.find("local quads_A: i8[2, 2, 3, 4];") != std::string::npos);
  CHECK(text.find("(i32(quads_B[bj * 2 + jr, kb * 3 + kk, jj, q]) + 256) % 256 * i32(quads_A[ir, r, kk, q])") !=
        std::string::npos);
  CHECK(text.find("C[bi * 4 + er, bj * 8 + ec] = C[bi * 4 + er, bj * 8 + ec] - 128 * rowsum_A[er];") !=
        std::string::npos);
  // The tile's product is the form the backends recognise.
  TensorPtr X = tensor("X", {ci(4)}, TensorRole::Local), V = tensor("V", {ci(2), ci(4)}, TensorRole::Local);
  X->dtype = ScalarType::I8;
  Expr xq = cast(ScalarType::I32, load(X, {lv("q")})), xw = cast(ScalarType::I32, load(X, {lv("w")}));
  Expr floats = unsignedByte(load(V, {lv("w"), lv("q")}));
  CHECK(!matchByteDot(binary(BinOp::Mul, floats, xq))); // V is f32
  V->dtype = ScalarType::I8;
  Expr u = unsignedByte(load(V, {lv("w"), lv("q")}));
  CHECK(matchByteDot(binary(BinOp::Mul, xq, u)));
  CHECK(!matchByteDot(binary(BinOp::Mul, u, xw))); // another byte of X
}

TEST_CASE("construct bytes: exact on ragged shapes, K not a multiple of 4 included") {
  // mr 2, nr 4, kc 3 quads (12 k), mc 4, nc 8: partial quads, tiles,
  // panels, k blocks and tasks.
  ContractionTiles t{2, 4, 3, 4, 8};
  KernelPtr k = constructByteContraction(byteMatmulOp(), t);
  LoweredFunc f = lowerOne(k->op, k);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {5, 7, 3}, {13, 17, 11}, {4, 12, 8}, {3, 0, 5}})
    checkMatmul(f, M, K, N, byteValue);
}
