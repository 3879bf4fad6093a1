// The loop-IR read-after-write verifier (ir/VerifyReadsWritten.h): a read
// of a tensor that nothing wrote before it, or an access to a buffer that
// was never allocated, is a compiler bug (tk::InternalError); the loop IR
// the pipeline produces for correct programs passes.
#include "ir/IRRewrite.h"
#include "ir/VerifyReadsWritten.h"
#include "sched_build.h"

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

// op f(X: f32[N]) -> Y: f32[N] with an intermediate t: f32[N].
struct Fixture {
  OpPtr op = std::make_shared<Op>();
  TensorPtr X = tensor("X", {sym("N")}, TensorRole::Input);
  TensorPtr Y = tensor("Y", {sym("N")}, TensorRole::Output);
  TensorPtr t = tensor("t", {sym("N")}, TensorRole::Intermediate);
  TensorPtr acc = tensor("acc", {}, TensorRole::Local, Scope::Register);
  Fixture() {
    op->name = "f";
    op->inputs = {param(X)};
    op->outputs = {Y};
    op->intermediates = {t};
    op->symbols = {"N"};
  }
  LoweredFunc func(LStmtPtr body) const { return LoweredFunc{"f", op, TargetFamily::Cpu, std::move(body), {}}; }
};

LStmtPtr lstore(const TensorPtr &t, std::vector<Expr> idx, Expr value, SourceLoc loc = {}) {
  auto s = lStmt(LStmt::Kind::Store, loc);
  s->tensor = t;
  s->indices = std::move(idx);
  s->value = std::move(value);
  return s;
}

Expr ld(const TensorPtr &t, std::vector<Expr> idx, SourceLoc loc = {}) { return load(t, std::move(idx), nullptr, nullptr, loc); }

// The message of the InternalError verifyReadsWritten throws; "" if none.
std::string failure(const LoweredFunc &f, const std::set<const TensorDecl *> &exempt = {}) {
  try {
    verifyReadsWritten(f, exempt);
  } catch (const InternalError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("verify reads: a tensor read but never written is a compiler bug, named with its line") {
  Fixture x;
  // alloc t { for i { Y[i] = t[i] } }: what row fusion produced for issue 19.
  auto f = x.func(lAlloc(x.t, lFor("i", ci(0), sym("N"), lstore(x.Y, {lv("i")}, ld(x.t, {lv("i")}, at(4, 18)), at(4, 3)))));
  CHECK(failure(f) == "loop IR of function f: 't' is read at line 4:18 (`t[i]`) before anything writes it, and it "
                      "is not an input");
}

TEST_CASE("verify reads: a read that precedes every write, and an unallocated buffer") {
  Fixture x;
  auto before = x.func(lAlloc(x.t, lBlock({lstore(x.Y, {ci(0)}, ld(x.t, {ci(0)}), at(3, 3)),
                                           lstore(x.t, {ci(0)}, ld(x.X, {ci(0)}), at(4, 3))})));
  CHECK(failure(before).find("'t' is read at line 3:3") != std::string::npos);
  // The same, written first: accepted.
  auto after = x.func(lAlloc(x.t, lBlock({lstore(x.t, {ci(0)}, ld(x.X, {ci(0)})), lstore(x.Y, {ci(0)}, ld(x.t, {ci(0)}))})));
  CHECK(failure(after) == "");
  // Written and read, but its alloc is gone.
  auto unallocated = x.func(lBlock({lstore(x.t, {ci(0)}, ld(x.X, {ci(0)}), at(5, 3)), lstore(x.Y, {ci(0)}, ld(x.t, {ci(0)}))}));
  CHECK(failure(unallocated) == "loop IR of function f: 't' is written at line 5:3 but never allocated before");
  // An output read before it is written is checked too.
  auto output = x.func(lstore(x.Y, {ci(0)}, binary(BinOp::Add, ld(x.Y, {ci(1)}), ld(x.X, {ci(0)}))));
  CHECK(failure(output).find("'Y' is read at line") != std::string::npos);
}

TEST_CASE("verify reads: loops, branches and allocations") {
  Fixture x;
  // acc[] = 0; for k { acc[] = acc[] + X[k] }; Y[0] = acc[]: the usual reduction.
  auto reduction = x.func(lAlloc(
      x.acc, lBlock({lstore(x.acc, {}, floatImm(0)),
                     lFor("k", ci(0), sym("N"), lstore(x.acc, {}, binary(BinOp::Add, ld(x.acc, {}), ld(x.X, {lv("k")})))),
                     lstore(x.Y, {ci(0)}, ld(x.acc, {}))})));
  CHECK(failure(reduction) == "");
  // A loop that writes acc later in its body may carry the value to the
  // next iteration's read: accepted (a may-analysis).
  auto carried = x.func(lAlloc(x.acc, lFor("k", ci(0), sym("N"),
                                            lBlock({lstore(x.Y, {lv("k")}, ld(x.acc, {})),
                                                    lstore(x.acc, {}, ld(x.X, {lv("k")}))}))));
  CHECK(failure(carried) == "");
  // ... unless the buffer is allocated afresh in each iteration.
  auto fresh = x.func(lFor("k", ci(0), sym("N"),
                           lAlloc(x.acc, lBlock({lstore(x.Y, {lv("k")}, ld(x.acc, {})),
                                                 lstore(x.acc, {}, ld(x.X, {lv("k")}))}))));
  CHECK(failure(fresh).find("'acc' is read") != std::string::npos);
  // A write under an `if` counts (some path writes it).
  auto branch = x.func(lAlloc(x.t, lBlock({lIf(binary(BinOp::LT, ci(0), sym("N")), lstore(x.t, {ci(0)}, floatImm(1)), nullptr),
                                           lstore(x.Y, {ci(0)}, ld(x.t, {ci(0)}))})));
  CHECK(failure(branch) == "");
  // A prefetch reads nothing.
  auto pf = lStmt(LStmt::Kind::Prefetch);
  pf->tensor = x.t;
  pf->indices = {ci(0)};
  CHECK(failure(x.func(lAlloc(x.t, lBlock({pf, lstore(x.t, {ci(0)}, floatImm(1))})))) == "");
}

TEST_CASE("verify reads: a user kernel's own tensors are exempt") {
  Fixture x;
  auto f = x.func(lAlloc(x.acc, lstore(x.Y, {ci(0)}, ld(x.acc, {}))));
  CHECK(failure(f) != "");
  CHECK(failure(f, {x.acc.get()}) == "");
  // A user kernel that reads a local it never writes still compiles.
  std::vector<LoweredFunc> fs = lowerSource(R"(op vadd(X: f32[N], Y: f32[N]) -> Z: f32[N] { Z[i] = X[i] + Y[i]; }
kernel k implements vadd on cpu {
  for b in spatial(N) on cores { register acc: f32[1]; Z[b] = X[b] + acc[0]; }
})");
  CHECK(fs.size() == 2);
}

TEST_CASE("verify reads: the pipeline's loop IR passes, and dropping a store it makes is caught") {
  // Issue 19's programs, softmax and layernorm (row fusion), a fused conv.
  std::vector<LoweredFunc> fs = lowerSource(R"(import "std/nn.tk";
op m7(X: f32[N]) -> Y: f32[N] {
  a[i] = X[i] + sum(k) X[k];
  t[i] = X[i] * 2.0;
  Y[i] = (sum(k) t[k]) + a[i];
}
op m5(X: f32[N]) -> (A: f32[N], B: f32[N]) {
  t[i] = X[i] * 2.0;
  A[i] = t[i];
  B[i] = t[i] + (A[N - 1 - i] else 0.0);
}
export softmax;
export layernorm;
export conv2d_bias_relu;
)");
  REQUIRE(fs.size() == 5);
  for (const LoweredFunc &f : fs) CHECK_MESSAGE(failure(f) == "", f.name);
  // m7 without its store to t (what row fusion used to emit).
  LoweredFunc m7 = fs[0];
  REQUIRE(m7.name == "m7");
  m7.body = transformLStmt(m7.body, [](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind == LStmt::Kind::Store && s->tensor->name == "t") return lBlock({}, s->loc);
    return s;
  });
  CHECK(failure(m7).starts_with("loop IR of function m7: 't' is read at line 5:"));
}
