// IR verifiers: broken invariants throw tk::InternalError.
#include "ir/VerifyLoopIR.h"
#include "ir/VerifyMappingIR.h"
#include "ir/VerifyTensorIR.h"
#include "sched_build.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

TEST_CASE("verify: well-formed tensor IR passes") { CHECK_NOTHROW(verifyTensorIR(*matmulOp())); }

TEST_CASE("verify: tensor IR with an unbound variable or a rank mismatch") {
  auto op = matmulOp();
  op->body[0].value = load(op->inputs[0].tensor, {idx("i"), idx("q")});
  CHECK_THROWS_AS(verifyTensorIR(*op), InternalError);
  op = matmulOp();
  op->body[0].value = load(op->inputs[0].tensor, {idx("i")});
  CHECK_THROWS_AS(verifyTensorIR(*op), InternalError);
  op = matmulOp();
  op->body[0].vars.pop_back();
  CHECK_THROWS_AS(verifyTensorIR(*op), InternalError);
}

TEST_CASE("verify: mapping IR scoping, ranks and holes") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto good = kernel(op, TargetFamily::Cpu,
                     mapFor({"i", "j"}, {spatial({sym("M"), sym("N")})}, WorkerKind::Cores,
                            store(C, {lv("i"), lv("j")}, floatImm(0))));
  CHECK_NOTHROW(verifyMappingIR(*good, true));
  auto unbound = kernel(op, TargetFamily::Cpu,
                        mapFor({"i"}, {spatial({sym("M")})}, WorkerKind::Cores, store(C, {lv("i"), lv("j")}, floatImm(0))));
  CHECK_THROWS_AS(verifyMappingIR(*unbound, true), InternalError);
  auto rank = kernel(op, TargetFamily::Cpu,
                     mapFor({"i", "j"}, {spatial({sym("M"), sym("N")}), repeat({ci(2)})}, WorkerKind::Cores,
                            store(C, {lv("i"), lv("j")}, floatImm(0))));
  CHECK_THROWS_AS(verifyMappingIR(*rank, true), InternalError);
  auto holey = kernel(op, TargetFamily::Cpu,
                      mapFor({"i", "j"}, {spatial({hole(0, {}), sym("N")})}, WorkerKind::Cores,
                             store(C, {lv("i"), lv("j")}, floatImm(0))));
  holey->holes.push_back({0, {}, {}, std::nullopt});
  CHECK_NOTHROW(verifyMappingIR(*holey, false));
  CHECK_THROWS_AS(verifyMappingIR(*holey, true), InternalError);
  auto noWorker = kernel(op, TargetFamily::Cpu,
                         mapFor({"i", "j"}, {spatial({sym("M"), sym("N")})}, std::nullopt,
                                store(C, {lv("i"), lv("j")}, floatImm(0))));
  CHECK_THROWS_AS(verifyMappingIR(*noWorker, true), InternalError);
}

TEST_CASE("verify: loop IR with a hole, an unbound variable or a leftover reduction") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto st = std::make_shared<LStmt>();
  st->kind = LStmt::Kind::Store;
  st->tensor = C;
  st->indices = {hole(1, {}), ci(0)};
  st->value = floatImm(0);
  LoweredFunc f{"f", op, TargetFamily::Cpu, st, {}};
  CHECK_THROWS_AS(verifyLoopIR(f, true), InternalError);
  st->indices = {lv("i"), ci(0)};
  CHECK_THROWS_AS(verifyLoopIR(f, true), InternalError);
  st->indices = {ci(0), ci(0)};
  CHECK_NOTHROW(verifyLoopIR(f, true));
  st->value = op->body[0].value; // sum(k < K: A[i, k] * B[k, j]) with i, j unbound
  CHECK_THROWS_AS(verifyLoopIR(f, false), InternalError);
  st->value = reduce(ReduceOp::Sum, {{"k", sym("K"), {}}}, idx("k"));
  CHECK_NOTHROW(verifyLoopIR(f, false));
  CHECK_THROWS_AS(verifyLoopIR(f, true), InternalError);
}

TEST_CASE("verify: a prefetch names an element of a tensor in scope, as a read would") {
  auto op = matmulOp();
  auto pf = std::make_shared<LStmt>();
  pf->kind = LStmt::Kind::Prefetch;
  pf->tensor = op->inputs[1].tensor; // B[K, N]
  pf->indices = {ci(0), ci(0)};
  LoweredFunc f{"f", op, TargetFamily::Cpu, pf, {}};
  CHECK_NOTHROW(verifyLoopIR(f, true));
  pf->indices = {ci(0)};
  CHECK_THROWS_AS(verifyLoopIR(f, true), InternalError);
  pf->indices = {lv("k"), ci(0)}; // k is not bound
  CHECK_THROWS_AS(verifyLoopIR(f, true), InternalError);
  auto m = kernel(op, TargetFamily::Cpu, mPrefetch(op->inputs[0].tensor, {ci(0), ci(0)}));
  CHECK_NOTHROW(verifyMappingIR(*m, true));
  CHECK(printKernel(*m).find("prefetch A[0, 0];") != std::string::npos);
  CHECK(printLoweredFunc(f).find("prefetch B[") != std::string::npos);
}

TEST_CASE("verify: a local is visible inside its alloc only, a let variable inside its let") {
  auto op = matmulOp();
  auto C = op->outputs[0];
  auto t = tensor("t", {ci(4)}, TensorRole::Local, Scope::Register);
  // Mapping IR: an alloc reaches the end of its block, not past an `if` branch.
  auto inBlock = kernel(op, TargetFamily::Cpu,
                        mBlock({allocS(t), store(t, {ci(0)}, floatImm(1)), store(C, {ci(0), ci(0)}, load(t, {ci(0)}))}));
  CHECK_NOTHROW(verifyMappingIR(*inBlock, true));
  auto pastIf = kernel(op, TargetFamily::Cpu,
                       mBlock({mIf(boolImm(true), mBlock({allocS(t), store(t, {ci(0)}, floatImm(1))}), nullptr),
                               store(C, {ci(0), ci(0)}, load(t, {ci(0)}))}));
  CHECK_THROWS_WITH_AS(verifyMappingIR(*pastIf, true), doctest::Contains("load of tensor 't' not in scope"),
                       InternalError);
  // Loop IR: the alloc's body, and the let's body.
  auto st = lStmt(LStmt::Kind::Store);
  st->tensor = C;
  st->indices = {lv("x"), ci(0)};
  st->value = load(t, {ci(0)});
  auto let = lStmt(LStmt::Kind::Let);
  let->var = "x";
  let->value = ci(0);
  let->body = st;
  LoweredFunc inside{"f", op, TargetFamily::Cpu, lAlloc(t, let), {}};
  CHECK_NOTHROW(verifyLoopIR(inside, true));
  LoweredFunc outside{"f", op, TargetFamily::Cpu, lBlock({lAlloc(t, lBlock({})), let}), {}};
  CHECK_THROWS_WITH_AS(verifyLoopIR(outside, true), doctest::Contains("load of tensor 't' not in scope"),
                       InternalError);
  LoweredFunc unlet{"f", op, TargetFamily::Cpu, lAlloc(t, lBlock({let, st})), {}};
  CHECK_THROWS_WITH_AS(verifyLoopIR(unlet, true), doctest::Contains("unbound variable 'x'"), InternalError);
}
