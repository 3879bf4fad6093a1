// Sema: the tensor IR and mapping IR the frontend hands to later stages.
#include "frontend/Frontend.h"
#include "ir/VerifyMappingIR.h"
#include "ir/VerifyTensorIR.h"

#include <doctest/doctest.h>

#include <sstream>

namespace {

struct Built {
  std::optional<tk::ir::Module> module;
  std::string diags;
};

Built build(const std::string &src, tk::ir::TargetFamily target = tk::ir::TargetFamily::Cpu) {
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  std::ostringstream os;
  diags.setStream(&os);
  tk::FrontendOptions opts;
  opts.target = target;
  opts.stdlibDir = TK_SOURCE_STDLIB_DIR;
  Built b;
  b.module = tk::buildModule("t.tk", opts, sm, diags, nullptr, &src);
  b.diags = os.str();
  if (b.module) {
    for (const auto &op : b.module->ops) tk::ir::verifyTensorIR(*op);
    for (const auto &k : b.module->kernels) tk::ir::verifyMappingIR(*k, false);
  }
  return b;
}

const char *kMatmul = R"(
op matmul(A: f32[M, K], B: f32[K, N], alpha: f32) -> C: f32[M, N] where K >= 1 {
  C[i, j] = alpha * sum(k) A[i, k] * B[k, j];
}
kernel tiled implements matmul on cpu {
  let T = ? in {16, 32};
  require M % T == 0;
  for (bi, bj) in spatial(cdiv(M, T), cdiv(N, 32)) on cores {
    register acc: f32[T, 32];
    for (i, j) in repeat(T, 32) { acc[i, j] = 0; }
    for k in 0..K {
      for (i, j) in repeat(T, 32) { acc[i, j] += A[bi*T + i, k] * B[k, bj*32 + j]; }
    }
    for (i, j) in repeat(T, 32) { C[bi*T + i, bj*32 + j] = alpha * acc[i, j]; }
  }
}
kernel gpu implements matmul on cuda {
  for (i, j) in spatial(M, N) on threads { C[i, j] = 0; }
}
)";

} // namespace

TEST_CASE("frontend sema: op signature, symbols and ranges") {
  Built b = build(kMatmul);
  REQUIRE_MESSAGE(b.module, b.diags);
  const tk::ir::Op &op = *b.module->ops.at(0);
  CHECK(op.symbols == std::vector<std::string>{"M", "K", "N"});
  REQUIRE(op.inputs.size() == 3);
  CHECK(op.inputs[2].isScalar());
  CHECK(op.inputs[2].type == tk::ir::ScalarType::F32);
  REQUIRE(op.body.size() == 1);
  const tk::ir::Assign &a = op.body[0];
  CHECK(a.vars.at(0).name == "i");
  CHECK(tk::ir::printExpr(a.vars.at(1).extent) == "N");
  CHECK(tk::ir::printExpr(a.value) == "alpha * sum(k < K: A[i, k] * B[k, j])");
  CHECK(op.where.size() == 1);
}

TEST_CASE("frontend sema: kernels become mapping IR with unique loop names and holes") {
  Built b = build(kMatmul);
  REQUIRE(b.module);
  REQUIRE(b.module->kernels.size() == 2);
  const tk::ir::Kernel &k = *b.module->kernels[0];
  CHECK(k.holes.size() == 1);
  CHECK(k.holes[0].candidates == std::vector<int64_t>{16, 32});
  CHECK(k.requires_.size() == 1);
  const tk::ir::MStmt &map = *k.body->stmts.at(0);
  REQUIRE(map.kind == tk::ir::MStmt::Kind::MapFor);
  CHECK(map.worker == tk::ir::WorkerKind::Cores);
  CHECK(tk::ir::printExpr(map.mapping.atoms.at(0).dims.at(0)) == "cdiv(M, ?0)");
  const tk::ir::MStmt &alloc = *map.body->stmts.at(0);
  CHECK(alloc.kind == tk::ir::MStmt::Kind::Alloc);
  CHECK(alloc.tensor->scope == tk::ir::Scope::Register);
  CHECK(alloc.tensor->role == tk::ir::TensorRole::Local);
  CHECK(map.body->stmts.at(1)->vars == std::vector<std::string>{"i", "j"});
  CHECK(map.body->stmts.at(2)->body->stmts.at(0)->vars == std::vector<std::string>{"i.1", "j.1"});
  CHECK(map.body->stmts.at(3)->vars == std::vector<std::string>{"i.2", "j.2"});
}

TEST_CASE("frontend sema: exports follow the selected target") {
  Built cpu = build(kMatmul);
  REQUIRE(cpu.module);
  REQUIRE(cpu.module->exports.size() == 2);
  CHECK(cpu.module->exports[0].symbol == "matmul");
  CHECK(cpu.module->exports[0].kernel->name == "tiled");
  CHECK(cpu.module->exports[1].symbol == "tiled");
  Built cuda = build(kMatmul, tk::ir::TargetFamily::Cuda);
  REQUIRE(cuda.module);
  CHECK(cuda.module->exports[0].kernel->name == "gpu");
  Built sunway = build(kMatmul, tk::ir::TargetFamily::Sunway);
  REQUIRE(sunway.module);
  REQUIRE(sunway.module->exports.size() == 1);
  CHECK(sunway.module->exports[0].kernel == nullptr);
}

TEST_CASE("frontend sema: mean, intermediates and imports") {
  Built b = build(R"(
import "std/reduce.tk";
export row_mean;
op norm(X: f32[M, N]) -> Y: f32 {
  m[i] = mean(j) X[i, j];
  Y[i, j] = X[i, j] - m[i];
}
)");
  REQUIRE_MESSAGE(b.module, b.diags);
  tk::ir::OpPtr norm = b.module->findOp("norm");
  REQUIRE(norm);
  REQUIRE(norm->intermediates.size() == 1);
  CHECK(tk::ir::printExpr(norm->intermediates[0]->shape.at(0)) == "M");
  CHECK(tk::ir::printExpr(norm->body[0].value) == "sum(j < N: X[i, j]) / f32(N)");
  CHECK(norm->outputs[0]->rank() == 2);
  CHECK(b.module->exports.size() == 2);
  CHECK(b.module->exports[0].symbol == "row_mean");
}

TEST_CASE("frontend sema: errors are reported and no module is returned") {
  Built b = build("op f(A: f32[N]) -> B: f32[N] { B[i] = Q[i]; }");
  CHECK_FALSE(b.module);
  CHECK(b.diags.rfind("t.tk:1:39: error: unknown tensor 'Q'\n", 0) == 0);
}

TEST_CASE("frontend sema: dependencies list the main file and its imports") {
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  tk::FrontendOptions opts;
  opts.stdlibDir = TK_SOURCE_STDLIB_DIR;
  std::vector<std::string> deps;
  std::string src = "import \"std/nn.tk\";\nimport \"std/nn.tk\";\n";
  REQUIRE(tk::buildModule("main.tk", opts, sm, diags, &deps, &src));
  REQUIRE(deps.size() == 2);
  CHECK(deps[0] == "main.tk");
  CHECK(deps[1] == std::string(TK_SOURCE_STDLIB_DIR) + "/std/nn.tk");
}
