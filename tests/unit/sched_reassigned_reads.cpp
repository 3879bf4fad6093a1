// Value semantics for statements that re-assign a tensor and read it at
// another element (scheduler/ReassignedReads.h, issue 19 item 12): which
// statements need a buffer of their own, the rewritten tensor IR, and that
// the rewrite means what the op means (the reference interpreter agrees).
#include "source_module.h"
#include "ir/Interpreter.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/ReassignedReads.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;

namespace {

OpPtr opNamed(const std::string &src, const std::string &name) {
  ir::Module m = unittest::moduleFromSource(src);
  for (const OpPtr &op : m.ops)
    if (op->name == name) return op;
  FAIL("no op " << name);
  return nullptr;
}

// Whether the last statement of `f`, whose body ends with `stmt`, must
// read its target's previous value from another buffer.
bool lastReadsElsewhere(const std::string &signature, const std::string &stmt) {
  OpPtr op = opNamed("op f" + signature + " {\n  Y[i] = X[i];\n  " + stmt + "\n}\n", "f");
  return readsTargetElsewhere(op->body.back());
}

std::vector<double> ramp(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = double(i + 1) - double(n) / 3;
  return v;
}

} // namespace

TEST_CASE("reassigned reads: only reads of provably the written element stay in place") {
  const std::string v = "(X: f32[N]) -> Y: f32[N]";
  CHECK_FALSE(lastReadsElsewhere(v, "Y[i] = Y[i] * 2.0;"));
  CHECK_FALSE(lastReadsElsewhere(v, "Y[i] = X[i] + 1.0;"));
  CHECK_FALSE(lastReadsElsewhere(v, "Y[i] = (Y[i + 1 - 1] else 0.0) + Y[i];"));
  CHECK(lastReadsElsewhere(v, "Y[i] = Y[i - 1] else 0.0;"));
  CHECK(lastReadsElsewhere(v, "Y[i] = Y[N - 1 - i] else 0.0;"));
  CHECK(lastReadsElsewhere(v, "Y[i] = Y[i] + sum(k) Y[k];"));
  CHECK(lastReadsElsewhere(v, "Y[i] = sum(k) Y[k];"));
  // The same element, but under a reduction: conservatively not in place
  // (a schedule may accumulate the reduction in the target).
  CHECK(lastReadsElsewhere(v, "Y[i] = sum(k) Y[i] * X[k];"));
  const std::string m = "(X: f32[N, N]) -> Y: f32[N, N]";
  OpPtr op = opNamed("op f" + m + " {\n  Y[i, j] = X[i, j];\n  Y[i, j] = Y[j, i];\n}\n", "f");
  CHECK(readsTargetElsewhere(op->body[1]));
  op = opNamed("op f" + m + " {\n  Y[i, j] = X[i, j];\n  Y[i, j] = Y[i, j] - X[j, i];\n}\n", "f");
  CHECK_FALSE(readsTargetElsewhere(op->body[1]));
}

TEST_CASE("reassigned reads: the previous version lives in a fresh intermediate") {
  OpPtr op = opNamed(R"(
op f(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
  Y[i] = X[i];
  Y[i] = Y[i] * 3.0;
  Z[i] = Y[N - 1 - i] else 0.0;
  Y[i] = Y[i + 1] else -1.0;
  Z[i] = Z[i] + Y[i];
}
)",
                     "f");
  OpPtr r = separateReassignedReads(op);
  REQUIRE(r != op);
  REQUIRE(r->intermediates.size() == op->intermediates.size() + 1);
  TensorPtr prev = r->intermediates.back();
  CHECK(prev->name == "Y_prev");
  CHECK(prev->role == TensorRole::Intermediate);
  CHECK(prev->dtype == ScalarType::F32);
  CHECK(printOp(*r).find("Y_prev[i < N] = X[i];\n") != std::string::npos);
  CHECK(printOp(*r).find("Y_prev[i < N] = Y_prev[i] * 3.0;\n") != std::string::npos);
  CHECK(printOp(*r).find("Z[i < N] = (Y_prev[N - 1 - i] else 0.0);\n") != std::string::npos);
  CHECK(printOp(*r).find("Y[i < N] = (Y_prev[i + 1] else -1.0);\n") != std::string::npos);
  CHECK(printOp(*r).find("Z[i < N] = Z[i] + Y[i];\n") != std::string::npos);
  // The input op is left alone.
  CHECK(op->body[0].target->name == "Y");

  // The default schedule allocates the temporary and never reads Y while
  // the statement that shifts it writes it.
  std::string k = printKernel(*defaultSchedule(r, TargetDesc{}));
  CHECK(k.find("global Y_prev: f32[N];") != std::string::npos);
  CHECK(k.find("Y[i] = (Y_prev[i + 1] else -1.0);") != std::string::npos);

  // Same meaning: the interpreter gives the same outputs for both.
  InterpArgs args;
  args.symbols["N"] = 7;
  args.tensors["X"] = ramp(7);
  InterpResult a = interpret(*op, args), b = interpret(*r, args);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.tensors.at("Y") == b.tensors.at("Y"));
  CHECK(a.tensors.at("Z") == b.tensors.at("Z"));
  // Y = 3X shifted left, -1 at the end.
  CHECK(a.tensors.at("Y")[0] == doctest::Approx(3 * args.tensors["X"][1]));
  CHECK(a.tensors.at("Y")[6] == -1.0);
}

TEST_CASE("reassigned reads: ops computed in place are returned unchanged") {
  OpPtr op = opNamed(R"(
op f(X: f32[N]) -> Y: f32[N] {
  Y[i] = X[i];
  Y[i] = Y[i] * 2.0 + X[i];
  t[i < N] = Y[N - 1 - i] else 0.0;
  Y[i] = Y[i] + t[i];
}
)",
                     "f");
  CHECK(separateReassignedReads(op) == op);
}

TEST_CASE("reassigned reads: repeated shifts of an intermediate get distinct buffers") {
  OpPtr op = opNamed(R"(
op f(X: f32[N], Y_prev: f32[N]) -> Y: f32[N] {
  t[i] = X[i] + Y_prev[i];
  t[i] = t[i + 1] else 0.0;
  t[i] = t[i - 2] else 5.0;
  Y[i] = t[i] * X[i];
  Y[i] = sum(k) Y[k];
}
)",
                     "f");
  OpPtr r = separateReassignedReads(op);
  std::string text = printOp(*r);
  // Names avoid the op's own (the input Y_prev).
  CHECK(text.find("t_prev_1[i < N] = X[i] + Y_prev[i];\n") != std::string::npos);
  CHECK(text.find("t_prev[i < N] = (t_prev_1[i + 1] else 0.0);\n") != std::string::npos);
  CHECK(text.find("t[i < N] = (t_prev[i - 2] else 5.0);\n") != std::string::npos);
  CHECK(text.find("Y_prev_1[i < N] = t[i] * X[i];\n") != std::string::npos);
  CHECK(text.find("Y[i < N] = sum(k < N: Y_prev_1[k]);\n") != std::string::npos);
  InterpArgs args;
  args.symbols["N"] = 9;
  args.tensors["X"] = ramp(9);
  args.tensors["Y_prev"] = ramp(9);
  InterpResult a = interpret(*op, args), b = interpret(*r, args);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.tensors.at("Y") == b.tensors.at("Y"));
}
