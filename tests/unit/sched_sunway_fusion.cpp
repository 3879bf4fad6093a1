// Sunway fusion: which ops FuseRowsInLdm and FuseTileEpilogues take and
// why they refuse the others, the row loop and its capacity, and the
// pipeline's schedules (the e2e sunway tests run them against the
// interpreter; tk_sunway_bench measures their DMA).
#include "sched_build.h"
#include "source_module.h"
#include "scheduler/sunway/FuseRowsInLdm.h"
#include "scheduler/sunway/FuseTileEpilogues.h"
#include "scheduler/InlineElementwise.h"

#include "scheduler/sunway/LdmBox.h"

#include <doctest/doctest.h>

using namespace tk;

namespace {

const char *kOps = R"(
op softmax(X: f32[M, N]) -> Y: f32[M, N] {
  m[i] = max(j) X[i, j];
  e[i, j] = exp(X[i, j] - m[i]);
  z[i] = sum(j) e[i, j];
  Y[i, j] = e[i, j] / z[i];
}
op rms(X: f32[M, N], w: f32[N]) -> Y: f32[M, N] {
  ms[i] = mean(j) X[i, j] * X[i, j];
  Y[i, j] = X[i, j] * rsqrt(ms[i] + 0.00001) * w[j];
}
op shifted(X: f32[M, N]) -> Y: f32[M, N] {
  s[i] = sum(j) X[i, j];
  Y[i, j] = X[i, j] - (s[(i + 1) % M] else 0.0);
}
op cols(X: f32[M, N]) -> Y: f32[M, N] {
  s[i] = sum(j) X[i, j];
  Y[i, j] = X[i, j] / s[i] + (X[i, (j + 1) % N] else 0.0);
}
op two(X: f32[M, N], Z: f32[M, K]) -> Y: f32[M, N] {
  s[i] = sum(k) Z[i, k];
  Y[i, j] = X[i, j] - s[i];
}
op mmrelu(A: f32[M, K], B: f32[K, N], b: f32[N]) -> C: f32[M, N] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  C[i, j] = max(t[i, j] + b[j], 0.0);
}
op mmt(A: f32[M, K], B: f32[K, N]) -> C: f32[N, M] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  C[j, i] = t[i, j] * 2.0;
}
op twice(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] {
  t[i, j] = sum(k) A[i, k] * B[k, j];
  C[i, j] = t[i, j] * t[i, j];
}
op rowsums(A: f32[M, K]) -> C: f32[M, K] {
  t[i] = sum(k) A[i, k];
  C[i, k] = t[i];
}
)";

ir::OpPtr inlined(const ir::Module &m, const char *name) { return inlineElementwise(m.findOp(name)); }

bool grouped(const ir::OpPtr &op, std::string *why) { return rowGroup(*op, why).has_value(); }

std::string printed(const ir::OpPtr &op, int64_t cap, bool streamed = false) {
  return ir::printKernel(
      *ir::synthesizedKernel(op, ir::TargetFamily::Sunway, fuseRows(*op, *rowGroup(*op, nullptr), cap, streamed)));
}

} // namespace

TEST_CASE("sunway fusion: which ops are one row group") {
  ir::Module m = unittest::moduleFromSource(kOps);
  std::string why;
  CHECK(grouped(inlined(m, "softmax"), &why));
  CHECK(grouped(inlined(m, "rms"), &why));
  CHECK_FALSE(grouped(inlined(m, "shifted"), &why));
  CHECK(why == "a statement reads 's' at another row or column than its own");
  CHECK_FALSE(grouped(inlined(m, "two"), &why));
  CHECK(why == "the statements' rows have different lengths");
  CHECK_FALSE(grouped(inlined(m, "mmrelu"), &why));
  CHECK(why == "the statements do not share their leading (row) dimensions");
  // Not a reduction of X along j: X's other column is read by the element-wise
  // statement, which FuseRowsInLdm allows (StageThroughLdm stages it).
  CHECK(grouped(inlined(m, "cols"), &why));
}

TEST_CASE("sunway fusion: the row loop keeps per-row values in LDM and bounds its columns") {
  ir::Module m = unittest::moduleFromSource(kOps);
  ir::OpPtr op = inlined(m, "softmax");
  // X read (two buffers) and Y written: 12 bytes a column; 56 KiB -> 4096.
  std::optional<RowGroup> g = rowGroup(*op, nullptr);
  REQUIRE(g);
  CHECK(rowCapacity(*g, 56 * 1024) == 4096);
  CHECK(rowCapacity(*g, 11) == 0);
  CHECK(ir::printExpr(g->columns) == "N");
  std::string text = printed(op, 4096);
  CHECK(text.find("for (row) in spatial(64) * repeat(cdiv(M, 64)) on cpes {") != std::string::npos);
  CHECK(text.find("ldm m_ldm: f32[1];") != std::string::npos);
  CHECK(text.find("ldm z_ldm: f32[1];") != std::string::npos);
  CHECK(text.find("for j in 0..min(N, 4096) {") != std::string::npos);
  CHECK(text.find("Y[row, j] = exp(X[row, j] - m_ldm[0]) / z_ldm[0];") != std::string::npos);
  // A mean: the sum, then the division applied to the row's value.
  std::string rms = printed(inlined(m, "rms"), 1024);
  CHECK(rms.find("ms_ldm[0] = ms_ldm[0] / f32(N);") != std::string::npos);
}

TEST_CASE("sunway fusion: longer rows single-buffered, what the group writes streamed out in blocks") {
  ir::Module m = unittest::moduleFromSource(kOps);
  ir::OpPtr op = inlined(m, "softmax");
  std::optional<RowGroup> g = rowGroup(*op, nullptr);
  REQUIRE(g);
  // X once (4 bytes a column); Y a block of 256 columns (1 KiB) and 64
  // bytes per tensor of alignment: (57344 - 1024 - 128) / 4, in whole blocks.
  CHECK(rowCapacity(*g, 56 * 1024, true) == 13824);
  CHECK(rowCapacity(*g, 1024, true) == 0);
  std::string text = printed(op, 13824, true);
  // The reductions read the row whole; the quotient runs in blocks of a
  // constant 256 (the last block's columns past N guarded off later).
  CHECK(text.find("for j in 0..min(N, 13824) {") != std::string::npos);
  CHECK(text.find("for j_blk in 0..cdiv(min(N, 13824), 256) {") != std::string::npos);
  CHECK(text.find("for (j) in repeat(256) {") != std::string::npos);
  CHECK(text.find("Y[row, j_blk * 256 + j] = exp(X[row, j_blk * 256 + j] - m_ldm[0]) / z_ldm[0];") !=
        std::string::npos);
}

TEST_CASE("sunway staging: constant bounds through block counts") {
  using namespace ir;
  Expr n = var("N", VarKind::Symbol);
  CHECK(constantBound(ceilDiv(binary(BinOp::Min, n, intImm(13824)), intImm(256)), true) == 54);
  CHECK(constantBound(floorDiv(binary(BinOp::Min, n, intImm(1000)), intImm(3)), true) == 333);
  CHECK_FALSE(constantBound(ceilDiv(n, intImm(256)), true));
  CHECK_FALSE(constantBound(ceilDiv(intImm(10), n), true));
}

TEST_CASE("sunway fusion: a reduction read once by an element-wise epilogue becomes its value") {
  ir::Module m = unittest::moduleFromSource(kOps);
  std::string why;
  ir::OpPtr mm = m.findOp("mmrelu");
  CHECK_MESSAGE(fuseTileEpilogueApplies(*mm, 0, &why), why);
  ir::OpPtr fused = fuseTileEpilogues(mm);
  REQUIRE(fused->body.size() == 1);
  CHECK(fused->intermediates.empty());
  CHECK(ir::printExpr(fused->body[0].value) == "max(sum(k < K: A[i, k] * B[k, j]) + b[j], 0.0)");
  // A transposed read is a bijection too.
  CHECK(fuseTileEpilogueApplies(*m.findOp("mmt"), 0, &why));
  CHECK(ir::printExpr(fuseTileEpilogues(m.findOp("mmt"))->body[0].value) == "sum(k < K: A[i, k] * B[k, j]) * 2.0");
  CHECK_FALSE(fuseTileEpilogueApplies(*m.findOp("twice"), 0, &why));
  CHECK(why == "the next statement reads it more than once, or with `else`");
  CHECK_FALSE(fuseTileEpilogueApplies(*m.findOp("rowsums"), 0, &why));
  CHECK(why == "the next statement's read of it is not a bijection");
  CHECK(fuseTileEpilogues(m.findOp("rowsums")) == m.findOp("rowsums"));
}
