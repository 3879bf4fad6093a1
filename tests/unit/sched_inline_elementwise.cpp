// InlineElementwise: element-wise intermediates go into their readers;
// reductions, padded reads, outputs and partial writes stay.
#include "source_module.h"
#include "ir/IRRewrite.h"
#include "scheduler/InlineElementwise.h"

#include <doctest/doctest.h>

using namespace tk;

namespace {

bool reads(const ir::Expr &e, const std::string &tensor) {
  bool found = false;
  ir::visitExpr(e, [&](const ir::Expr &n) { found |= n->kind == ir::ExprKind::Load && n->tensor->name == tensor; });
  return found;
}

} // namespace

TEST_CASE("inline elementwise: a chain becomes one statement") {
  ir::Module m = unittest::moduleFromSource(R"(
op bias_relu(X: f32[N, C], b: f32[C]) -> Y: f32[N, C] {
  t[n, c] = X[n, c] + b[c];
  Y[n, c] = max(t[n, c], 0.0);
}
op rounded(X: f32[N, M]) -> Y: f32[M, N] {
  h[i, j] = f16(X[i, j] * 3.0);
  Y[a, b] = f32(h[b, a]) + 1.0;
}
)");
  ir::OpPtr op = m.findOp("bias_relu");
  ir::OpPtr in = inlineElementwise(op);
  REQUIRE(in->body.size() == 1);
  CHECK(in->intermediates.empty());
  CHECK_FALSE(reads(in->body[0].value, "t"));
  CHECK(reads(in->body[0].value, "X"));
  CHECK(op->body.size() == 2); // the input op is left alone

  // The reader's indices go in (transposed), and the f16 rounding of the
  // store is kept.
  ir::OpPtr r = inlineElementwise(m.findOp("rounded"));
  REQUIRE(r->body.size() == 1);
  bool transposed = false;
  ir::visitExpr(r->body[0].value, [&](const ir::Expr &n) {
    if (n->kind == ir::ExprKind::Load && n->tensor->name == "X")
      transposed = n->args[0]->name == "b" && n->args[1]->name == "a";
  });
  CHECK(transposed);
  bool castToF16 = false;
  ir::visitExpr(r->body[0].value, [&](const ir::Expr &n) {
    castToF16 |= n->kind == ir::ExprKind::Cast && n->type == ir::ScalarType::F16;
  });
  CHECK(castToF16);
}

TEST_CASE("inline elementwise: what stays") {
  ir::Module m = unittest::moduleFromSource(R"(
op norm(X: f32[M, N]) -> Y: f32[M, N] {
  s[i] = sum(j) X[i, j];
  Y[i, j] = X[i, j] / s[i];
}
op shifted(X: f32[N]) -> Y: f32[N] {
  t[i] = X[i] * 2.0;
  Y[i] = (t[i + 1] else 0.0) + t[i];
}
op both(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
  Y[i] = X[i] + 1.0;
  Z[i] = Y[i] * 2.0;
}
)");
  std::string why;
  CHECK_FALSE(inlineElementwiseApplies(*m.findOp("norm"), 0, &why));
  CHECK(why.find("reduction") != std::string::npos);
  CHECK_FALSE(inlineElementwiseApplies(*m.findOp("shifted"), 0, &why));
  CHECK(why.find("else") != std::string::npos);
  CHECK_FALSE(inlineElementwiseApplies(*m.findOp("both"), 0, &why));
  CHECK(why.find("output") != std::string::npos);
  ir::OpPtr op = m.findOp("norm");
  CHECK(inlineElementwise(op) == op);
}
