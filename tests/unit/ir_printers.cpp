// Text forms of the three IR levels (golden-tested by --emit as well).
#include "sched_build.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

TEST_CASE("printers: tensor IR") {
  auto op = matmulOp();
  op->intermediates = {tensor("T", {sym("M")}, TensorRole::Intermediate)};
  CHECK(printOp(*op) == "op matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N])\n"
                        "  symbols M, K, N\n"
                        "  where K >= 1\n"
                        "  intermediate T: f32[M]\n"
                        "{\n"
                        "  C[i < M, j < N] = sum(k < K: A[i, k] * B[k, j]);\n"
                        "}\n");
  Module m;
  m.ops = {op};
  CHECK(m.findOp("matmul") == op);
  CHECK(m.findOp("conv") == nullptr);
}

TEST_CASE("printers: mapping IR statements") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto s = std::make_shared<MStmt>();
  s->kind = MStmt::Kind::If;
  s->cond = binary(BinOp::LT, lv("i"), sym("M"));
  s->thenS = store(C, {lv("i"), ci(0)}, floatImm(1), AccumOp::Max);
  auto sync = std::make_shared<MStmt>();
  sync->kind = MStmt::Kind::Sync;
  s->elseS = mBlock({sync});
  auto k = kernel(op, TargetFamily::Cuda, mapFor({"i"}, {spatial({ci(32)})}, WorkerKind::Threads, s));
  k->requires_.push_back({binary(BinOp::EQ, binary(BinOp::Mod, sym("N"), ci(4)), ci(0)), {}});
  k->holes.push_back({3, {}, {}, std::nullopt});
  CHECK(printKernel(*k) == "kernel matmul_k implements matmul on cuda\n"
                           "  require N % 4 == 0\n"
                           "  hole ?3\n"
                           "{\n"
                           "  for (i) in spatial(32) on threads {\n"
                           "    if (i < M) {\n"
                           "      C[i, 0] max= 1.0;\n"
                           "    } else {\n"
                           "      sync;\n"
                           "    }\n"
                           "  }\n"
                           "}\n");
}

TEST_CASE("printers: loop IR scopes, kinds and checks") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto mk = [](LStmt::Kind k) {
    auto s = std::make_shared<LStmt>();
    s->kind = k;
    return s;
  };
  auto st = mk(LStmt::Kind::Store);
  st->tensor = C;
  st->indices = {lv("x"), lv("v")};
  st->value = floatImm(2);
  auto vec = mk(LStmt::Kind::For);
  vec->var = "v";
  vec->min = ci(4);
  vec->extent = ci(8);
  vec->forKind = ForKind::Vectorized;
  vec->body = st;
  auto let = mk(LStmt::Kind::Let); // not last in its block: braces
  let->var = "x";
  let->value = ci(3);
  let->body = vec;
  auto check = mk(LStmt::Kind::Check);
  check->cond = binary(BinOp::GE, sym("K"), ci(1));
  check->errorCode = 1;
  check->message = "where K >= 1";
  auto tmp = tensor("T", {ci(4)}, TensorRole::Local, Scope::Local);
  auto alloc = mk(LStmt::Kind::Alloc); // last: flattened
  alloc->tensor = tmp;
  alloc->body = lBlock({mk(LStmt::Kind::Barrier)});
  LoweredFunc f{"mm", op, TargetFamily::Cpu, lBlock({check, let, alloc}), {}};
  CHECK(printLoweredFunc(f) == "func mm(A: f32[M, K], B: f32[K, N], C: out f32[M, N], M: i64, K: i64, N: i64) on cpu {\n"
                               "  check K >= 1 or return 1;  // where K >= 1\n"
                               "  let x = 3 {\n"
                               "    vectorized for v in 4..12 {\n"
                               "      C[x, v] = 2.0;\n"
                               "    }\n"
                               "  }\n"
                               "  alloc local T: f32[4];\n"
                               "  barrier;\n"
                               "}\n");
}
