// Hidet's task-mapping rule: worker counts, task shapes and the lowered
// index expressions, enumerated by running the lowered loops.
#include "ir/TaskMapping.h"
#include "ir/Simplify.h"
#include "sched_build.h"
#include "sched_eval.h"
#include "scheduler/CheckTaskMappings.h"
#include "scheduler/LowerTaskMappings.h"

#include <fmt/format.h>

#include <doctest/doctest.h>

#include <set>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

// spatial(4, 2) * repeat(2, 2) * spatial(4, 8) * repeat(4, 4)
static TaskMapping hidetTile() {
  TaskMapping m;
  m.atoms = {spatial({ci(4), ci(2)}), repeat({ci(2), ci(2)}), spatial({ci(4), ci(8)}), repeat({ci(4), ci(4)})};
  return m;
}

// An op writing a constant-shaped C[rows, cols], for mapping tests.
static OpPtr fillOp(int64_t rows, int64_t cols) {
  auto op = std::make_shared<Op>();
  op->name = "fill";
  op->outputs = {tensor("C", {ci(rows), ci(cols)}, TensorRole::Output)};
  op->body = {{op->outputs[0], {{"i", ci(rows), {}}, {"j", ci(cols), {}}}, floatImm(1), {}}};
  return op;
}

TEST_CASE("task mapping: worker count, task shape and text of Hidet's example") {
  TaskMapping m = hidetTile();
  CHECK(printExpr(m.numWorkers()) == "256");
  auto shape = m.taskShape();
  REQUIRE(shape.size() == 2);
  CHECK(printExpr(shape[0]) == "128");
  CHECK(printExpr(shape[1]) == "128");
  CHECK(printMapping(m) == "spatial(4, 2) * repeat(2, 2) * spatial(4, 8) * repeat(4, 4)");
  m.atoms[0].perm = {1, 0};
  CHECK(printMapping(m) == "spatial(4, 2, ranks=[1, 0]) * repeat(2, 2) * spatial(4, 8) * repeat(4, 4)");
}

TEST_CASE("task mapping: worker 0 of Hidet's example runs rows {0..3, 16..19}") {
  MappingTasks t = mappingTasks(hidetTile(), ci(0), [](size_t a, size_t d) {
    return fmt::format("{}{}", d ? "c" : "r", a);
  });
  REQUIRE(t.loops.size() == 4);
  std::set<int64_t> rows;
  for (int64_t r1 = 0; r1 < 2; ++r1)
    for (int64_t r3 = 0; r3 < 4; ++r3) {
      Expr row = substitute(t.coords[0], {{"r1", ci(r1)}, {"r3", ci(r3)}});
      int64_t v;
      REQUIRE(isConstInt(simplify(row), &v));
      rows.insert(v);
    }
  CHECK(rows == std::set<int64_t>{0, 1, 2, 3, 16, 17, 18, 19});
}

// On cuda the repeat loops are `unrolled` (a thread's register tile).
TEST_CASE("task mapping: lowered Hidet example runs every task exactly once") {
  auto op = fillOp(128, 128);
  auto k = kernel(op, TargetFamily::Cuda,
                  mapFor({"i", "j"}, hidetTile().atoms, WorkerKind::Threads,
                         store(op->outputs[0], {lv("i"), lv("j")}, floatImm(1))));
  SourceManager sm;
  DiagEngine diags(sm);
  CHECK(checkTaskMappings(*k, diags));
  LoweredFunc f = lowerTaskMappings(*k, "fill", TargetDesc{TargetFamily::Cuda});
  CHECK(printLoweredFunc(f) == "func fill(C: out f32[128, 128]) on cuda {\n"
                               "  parallel for w_i_j in 0..256 on threads {\n"
                               "    unrolled for i_1 in 0..2 {\n"
                               "      unrolled for j_1 in 0..2 {\n"
                               "        unrolled for i_2 in 0..4 {\n"
                               "          unrolled for j_2 in 0..4 {\n"
                               "            let i = i_1 * 16 + i_2 + w_i_j % 32 / 8 * 4 + w_i_j / 64 * 32;\n"
                               "            let j = j_1 * 32 + j_2 + w_i_j % 8 * 4 + w_i_j / 32 % 2 * 64;\n"
                               "            C[i, j] = 1.0;\n"
                               "          }\n"
                               "        }\n"
                               "      }\n"
                               "    }\n"
                               "  }\n"
                               "}\n");
  LoopEval ev;
  ev.run(f, {}, [](const std::string &, size_t) { return 0.0; });
  const auto &counts = ev.storeCounts["C"];
  CHECK(counts.size() == 128 * 128);
  for (const auto &[idx, n] : counts) CHECK(n == 1);
}

TEST_CASE("task mapping: rank permutation makes the first dimension fastest") {
  auto op = fillOp(4, 8);
  MappingAtom a = spatial({ci(4), ci(8)});
  a.perm = {1, 0};
  auto k = kernel(op, TargetFamily::Cpu, mapFor({"i", "j"}, {a}, WorkerKind::Cores,
                                               store(op->outputs[0], {lv("i"), lv("j")}, lv("w_i_j"))));
  LoweredFunc f = lowerTaskMappings(*k, "fill", TargetDesc{});
  LoopEval ev;
  ev.run(f, {}, [](const std::string &, size_t) { return 0.0; });
  const auto &C = ev.tensor(op->outputs[0]);
  // column-major: worker w gets (w % 4, w / 4)
  for (int w = 0; w < 32; ++w) CHECK(C[(w % 4) * 8 + w / 4] == w);
}
