// ConstructStages: ops of several statements get one stage per contraction
// (constructed) and one per run of the other statements (default schedule
// with fusion); tensors crossing stages are allocated once, around them.
#include "sched_build.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace tk;
using namespace tk::ir;

namespace {

// The one checked kernel of `src`, scheduled for zen5-2c with construction.
KernelPtr scheduled(const std::string &src) {
  schedtest::DiagFixture fx;
  FrontendOptions fo;
  fo.stdlibDir = TK_SOURCE_STDLIB_DIR;
  std::optional<Module> m = buildModule("t.tk", fo, fx.sm, fx.diags, nullptr, &src);
  REQUIRE_MESSAGE(m, fx.out.str());
  std::ifstream in(std::string(TK_SOURCE_STDLIB_DIR) + "/targets/zen5-2c.hw");
  std::ostringstream text;
  text << in.rdbuf();
  auto hw = construct::parseHardwareDesc(text.str(), fx.sm.addFile("zen5-2c.hw", text.str()), fx.diags);
  REQUIRE(hw);
  construct::ConstructOptions co;
  co.hw = *hw;
  PipelineOptions po;
  po.construct = &co;
  std::vector<KernelPtr> ks = scheduleModule(*m, po, fx.diags);
  REQUIRE_MESSAGE(ks.size() == 1, fx.out.str());
  return ks.front();
}

// The names of the tensors allocated directly in the kernel's top block,
// and how many statements follow them (the stages).
std::vector<std::string> topAllocs(const Kernel &k, size_t *stages) {
  std::vector<std::string> names;
  *stages = 0;
  for (const MStmtPtr &s : k.body->stmts) {
    if (s->kind == MStmt::Kind::Alloc) names.push_back(s->tensor->name);
    else ++*stages;
  }
  return names;
}

bool packs(const std::string &text, const std::string &operand) {
  return text.find("global shared_" + operand) != std::string::npos;
}

} // namespace

TEST_CASE("construct stages: attention is a constructed product, fused softmax rows and a constructed product") {
  KernelPtr k = scheduled(R"(
op attention(Q: f32[S, D], K: f32[T, D], V: f32[T, D], scale: f32) -> O: f32[S, D] {
  s[i, j] = scale * sum(d) Q[i, d] * K[j, d];
  m[i] = max(j) s[i, j];
  e[i, j] = exp(s[i, j] - m[i]);
  z[i] = sum(j) e[i, j];
  p[i, j] = e[i, j] / z[i];
  O[i, c] = sum(j) p[i, j] * V[j, c];
}
)");
  size_t stages = 0;
  CHECK(topAllocs(*k, &stages) == std::vector<std::string>{"s", "p"});
  CHECK(stages == 3);
  std::string text = printKernel(*k);
  CHECK(packs(text, "K"));
  CHECK(packs(text, "V"));
  // The softmax stage: one row loop, e stored in p (FuseRows), m and z its own.
  CHECK(text.find("global e") == std::string::npos);
  CHECK(text.find("global m: f32[S]") != std::string::npos);
}

TEST_CASE("construct stages: a contraction and its element-wise consumer stay one folded stage") {
  KernelPtr k = scheduled(R"(
op mlp(X: f32[M, K], W1: f32[K, H], b1: f32[H], W2: f32[H, N], b2: f32[N]) -> Y: f32[M, N] {
  t[i, h] = (sum(k) X[i, k] * W1[k, h]) + b1[h];
  g[i, h] = max(t[i, h], 0.0);
  Y[i, j] = (sum(h) g[i, h] * W2[h, j]) + b2[j];
}
)");
  size_t stages = 0;
  CHECK(topAllocs(*k, &stages) == std::vector<std::string>{"g"});
  CHECK(stages == 2);
  std::string text = printKernel(*k);
  CHECK(text.find("global t") == std::string::npos);
  CHECK(packs(text, "W1"));
  CHECK(packs(text, "W2"));
}

TEST_CASE("construct stages: an element-wise prologue becomes a stage before the constructed product") {
  KernelPtr k = scheduled(R"(
op f(X: f32[M, K], W: f32[K, N]) -> C: f32[M, N] {
  t[i, k] = X[i, k] * 2.0 + 1.0;
  C[i, j] = sum(k) t[i, k] * W[k, j];
}
)");
  size_t stages = 0;
  CHECK(topAllocs(*k, &stages) == std::vector<std::string>{"t"});
  CHECK(stages == 2);
  CHECK(packs(printKernel(*k), "W"));
}

TEST_CASE("construct stages: ops without a constructed statement, or one tensor written in two stages, keep the default schedule") {
  // Softmax: no contraction.
  KernelPtr soft = scheduled(R"(
op softmax(X: f32[M, N]) -> Y: f32[M, N] {
  m[i] = max(j) X[i, j];
  e[i, j] = exp(X[i, j] - m[i]);
  Y[i, j] = e[i, j] / sum(c) e[i, c];
}
)");
  CHECK(printKernel(*soft).find("shared_") == std::string::npos);
  // Y is written by the product and again by the last statement, which
  // reads its previous value: ReassignedReads gives that version its own
  // tensor, so the stages write different tensors and the product is built.
  KernelPtr re = scheduled(R"(
op f(A: f32[M, K], B: f32[K, N]) -> Y: f32[M, N] {
  Y[i, j] = sum(k) A[i, k] * B[k, j];
  Y[i, j] = Y[i, j] * 2.0 + 1.0;
}
)");
  CHECK(packs(printKernel(*re), "B"));
  // Y written in two stages without reading itself: the whole-op schedule.
  KernelPtr two = scheduled(R"(
op f(A: f32[M, K], B: f32[K, N], C: f32[M, N]) -> Y: f32[M, N] {
  Y[i, j] = sum(k) A[i, k] * B[k, j];
  Y[i, j] = C[i, j] * 2.0;
}
)");
  CHECK(printKernel(*two).find("shared_") == std::string::npos);
}
