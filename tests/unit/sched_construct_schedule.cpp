// ConstructSchedule and PackOperand: tile choice from the hardware
// description, and the packed, blocked kernel run on shapes that leave
// partial register tiles, panels and k blocks, against the op's meaning.
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/ConstructSchedule.h"
#include "scheduler/PackOperand.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

construct::HardwareDesc cpu(int64_t l1, int64_t l2) {
  construct::HardwareDesc hw;
  hw.units = 2;
  construct::MemLevel dram, c2, c1, regs;
  dram.name = "dram";
  c2.name = "l2";
  c2.capacity = l2;
  c1.name = "l1";
  c1.capacity = l1;
  regs.name = "registers";
  hw.levels = {dram, c2, c1, regs};
  return hw;
}

double value(const std::string &name, size_t i) { return double((i * 5 + name[0]) % 13) - 6; }

} // namespace

TEST_CASE("construct schedule: tiles follow the register file and the cache capacities") {
  ContractionTiles z = chooseContractionTiles(cpu(48 << 10, 1 << 20), 512, 4);
  CHECK(z.mr == 4);
  CHECK(z.nr == 96); // 6 zmm of 16 lanes: 24 accumulators + 6 operands + 1 broadcast <= 32
  CHECK(z.kc == 64); // 2 x 64 x (4 + 96) x 4 B would not fit 48 KiB
  CHECK(z.mc == 128);
  CHECK(z.nc == 384);
  ContractionTiles a = chooseContractionTiles(cpu(32 << 10, 256 << 10), 256, 4);
  CHECK(a.nr == 24); // 3 ymm of 8 lanes with 16 registers
  CHECK(a.kc == 256); // 2 x 128 x (4 + 24) x 4 B still fits 32 KiB
  CHECK(a.mc == 64);  // 64 x 256 x 4 B = a quarter of 256 KiB
  CHECK(a.nc == 48);
  ContractionTiles d = chooseContractionTiles(cpu(48 << 10, 1 << 20), 512, 8);
  CHECK(d.nr == 48); // f64: 8 lanes
}

TEST_CASE("construct schedule: applies to matmul, not to other statements") {
  std::string why;
  CHECK(constructScheduleApplies(*matmulOp(), &why));
  OpPtr two = std::make_shared<Op>(*matmulOp());
  two->body.push_back(two->body[0]);
  CHECK(!constructScheduleApplies(*two, &why));
  CHECK(why == "the op has more than one statement");
}

TEST_CASE("construct schedule: packed blocked matmul is exact on ragged shapes") {
  ContractionTiles t{2, 4, 3, 4, 8};
  KernelPtr k = constructSchedule(matmulOp(), t);
  CHECK(printKernel(*k).find("local packed_A: f32[2, 3, 2];") != std::string::npos);
  CHECK(printKernel(*k).find("local packed_B: f32[2, 3, 4];") != std::string::npos);
  Module m;
  m.ops = {k->op};
  m.kernels = {k};
  m.exports = {{k->op->name, k->op, k, {}}};
  DiagFixture fx;
  PipelineOptions opts;
  std::vector<LoweredFunc> fs = lowerModule(m, opts, fx.diags);
  REQUIRE(fx.messages() == "");
  REQUIRE(fs.size() == 1);
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {5, 7, 3}, {13, 17, 11}, {4, 3, 8}}) {
    CAPTURE(M);
    CAPTURE(K);
    CAPTURE(N);
    LoopEval ev;
    ev.run(fs[0], {{"M", M}, {"K", K}, {"N", N}}, value);
    REQUIRE(ev.status == 0);
    const auto &C = ev.tensor(fs[0].op->outputs[0]);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double want = 0;
        for (int64_t kk = 0; kk < K; ++kk) want += value("A", size_t(i * K + kk)) * value("B", size_t(kk * N + j));
        CHECK(C[size_t(i * N + j)] == want);
      }
  }
}

TEST_CASE("pack operand: panels hold the operand with the panel and depth variables substituted") {
  OpPtr op = matmulOp();
  const Expr &b = op->body[0].value->args[0]->args[1]; // B[k, j]
  PanelSpec s{"Bp", 3, 2, 4, "j", lv("bj"), "k", lv("kb"), nullptr, nullptr, {"p", "d", "w"}};
  PackedOperand p = packPanels(b, s, {});
  CHECK(p.buffer->scope == Scope::Local);
  CHECK(p.buffer->shape.size() == 3);
  Kernel k;
  k.name = "show";
  k.op = op;
  k.body = mBlock({p.alloc, p.copy});
  std::string text = printKernel(k);
  CHECK(text.find("local Bp: f32[3, 2, 4];") != std::string::npos);
  CHECK(text.find("Bp[p, d, w] = B[d + kb, bj + p * 4 + w];") != std::string::npos);
  CHECK(printExpr(loadPanel(p, lv("jr"), lv("kk"), lv("jj"))) == "Bp[jr, kk, jj]");
}
