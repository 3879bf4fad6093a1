// The x86 register tile of byte-quad products (ir/ByteDot.h): the
// constructed int8 matmul (ConstructByteContraction.h) matched as one
// tile, compiled with vpdpbusd for AVX512-VNNI and with the shift-based
// fallback without it, both run against a plain loop.
#include "sched_build.h"
#include "x86_support.h"
#include "backends/x86/MatchContraction.h"
#include "ir/IRRewrite.h"
#include "scheduler/cpu/ConstructByteContraction.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>
#include <vector>

using namespace tk;
using namespace tk::ir;

namespace {

OpPtr byteMatmul() {
  auto A = schedtest::tensor("A", {schedtest::sym("M"), schedtest::sym("K")}, TensorRole::Input);
  auto B = schedtest::tensor("B", {schedtest::sym("K"), schedtest::sym("N")}, TensorRole::Input);
  auto C = schedtest::tensor("C", {schedtest::sym("M"), schedtest::sym("N")}, TensorRole::Output);
  A->dtype = B->dtype = ScalarType::I8;
  C->dtype = ScalarType::I32;
  auto op = std::make_shared<Op>();
  op->name = "mm8";
  op->inputs = {Param{"A", ScalarType::I8, A, {}}, Param{"B", ScalarType::I8, B, {}}};
  op->outputs = {C};
  op->symbols = {"M", "K", "N"};
  Expr prod = binary(BinOp::Mul, cast(ScalarType::I32, load(A, {schedtest::idx("i"), schedtest::idx("k")})),
                     cast(ScalarType::I32, load(B, {schedtest::idx("k"), schedtest::idx("j")})));
  op->body = {{C, {{"i", schedtest::sym("M"), {}}, {"j", schedtest::sym("N"), {}}},
               reduce(ReduceOp::Sum, {{"k", schedtest::sym("K"), {}}}, prod), {}}};
  return op;
}

LoweredFunc constructed() {
  TargetDesc vnni{TargetFamily::Cpu, 512, 32};
  vnni.byteDot = true;
  REQUIRE(byteContractionApplies(*byteMatmul(), vnni));
  // mr 6, nr 64 (four vectors of 16 i32), kc 8 quads, mc 12, nc 128.
  KernelPtr k = constructByteContraction(byteMatmul(), ContractionTiles{6, 64, 8, 12, 128});
  return schedtest::lowerOne(k->op, k);
}

using Fn = int(const int8_t *, const int8_t *, int32_t *, int64_t, int64_t, int64_t);

void checkRuns(Fn *fn) {
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {7, 37, 70}, {13, 64, 129}, {25, 5, 200}}) {
    CAPTURE(M);
    CAPTURE(K);
    CAPTURE(N);
    std::vector<int8_t> A(size_t(M * K)), B(size_t(K * N));
    for (size_t i = 0; i < A.size(); ++i) A[i] = int8_t(int((i * 37) % 256) - 128);
    for (size_t i = 0; i < B.size(); ++i) B[i] = int8_t(int((i * 91 + 7) % 256) - 128);
    std::vector<int32_t> C(size_t(M * N), -1);
    REQUIRE(fn(A.data(), B.data(), C.data(), M, K, N) == 0);
    int64_t wrong = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int32_t want = 0;
        for (int64_t k = 0; k < K; ++k) want += int32_t(A[size_t(i * K + k)]) * int32_t(B[size_t(k * N + j)]);
        wrong += C[size_t(i * N + j)] != want;
      }
    CHECK(wrong == 0);
  }
}

} // namespace

TEST_CASE("x86 byte dot: the quad loop folds into the tile, one vpdpbusd per vector with VNNI") {
  LoweredFunc f = constructed();
  int tiles = 0;
  visitLStmt(f.body, [&](const LStmt &s) {
    if (auto n = x86::matchContraction(s)) {
      CHECK(n->quadLoop != nullptr);
      CHECK(n->kLoops.size() == 1); // kk; the byte loop is the lanes' quads
      ++tiles;
    }
  });
  CHECK(tiles > 0);
  std::string vnni = test::emit({f}, CodegenOutput::Assembly, "x86_64-avx512vnni", 3);
  CHECK(vnni.find("vpdpbusd") != std::string::npos);
  std::string plain = test::emit({f}, CodegenOutput::Assembly, "x86_64-avx512", 3);
  CHECK(plain.find("vpdpbusd") == std::string::npos);
}

TEST_CASE("x86 byte dot: exact with the shift-based fallback (AVX-512 without VNNI)") {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    std::cout << "[tk-skip] the host cannot run AVX-512 code (no avx512f)\n";
    return;
  }
  test::LoadedKernels lib({constructed()}, "x86_64-avx512", 3);
  checkRuns(lib.get<Fn>("mm8"));
}

TEST_CASE("x86 byte dot: exact with vpdpbusd where this machine has AVX512-VNNI") {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni")) {
    std::cout << "[tk-skip] the host has no AVX512-VNNI\n";
    return;
  }
  test::LoadedKernels lib({constructed()}, "x86_64-avx512vnni", 3);
  checkRuns(lib.get<Fn>("mm8"));
}
