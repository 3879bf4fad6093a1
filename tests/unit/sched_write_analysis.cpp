// The exact task-mapping checks (WriteAnalysis over Presburger sets, isl):
// index arithmetic as isl objects, and the decisions of CheckTaskMappings
// on the mappings of issue 19, from .tk source.
#include "sched_build.h"
#include "scheduler/CheckTaskMappings.h"
#include "scheduler/Presburger.h"
#include "source_module.h"

#include <fmt/format.h>

#include <doctest/doctest.h>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

const char *kOps = R"(
op add(X: f32[M, N], Y: f32[M, N]) -> Z: f32[M, N] { Z[i, j] = X[i, j] + Y[i, j]; }
)";

// Errors and warnings of checkTaskMappings on `kernel` (after kOps); ""
// when it passes silently.
std::string diagnose(const std::string &kernel) {
  Module m = unittest::moduleFromSource(std::string(kOps) + kernel);
  REQUIRE(m.kernels.size() == 1);
  DiagFixture fx;
  checkTaskMappings(*m.kernels[0], fx.diags);
  std::string s;
  for (const Diagnostic &d : fx.diags.all())
    s += std::string(d.severity == Severity::Error ? "error: " : "warning: ") + d.message + "\n";
  return s;
}

// ... on kernel `add_k` with `mapping` and `body`.
std::string check(const std::string &mapping, const std::string &body, const std::string &require = "") {
  return diagnose("kernel add_k implements add on cpu {" + require + " for (i, j) in " + mapping + " on cores { " +
                  body + " } }\n");
}

const std::string kAdd = "Z[i, j] = X[i, j] + Y[i, j];";

Expr dim(int k) { return var(fmt::format("@{}", k), VarKind::Loop); }

} // namespace

TEST_CASE("presburger: floor division, modulo, cdiv, min and max are affine; products of variables are not") {
  auto op = std::make_shared<Op>();
  op->name = "f";
  op->symbols = {"N"};
  auto k = kernel(op, TargetFamily::Cpu, mBlock({}));
  Presburger pb(*k, 1'000'000);
  std::string why;
  for (BinOp b : {BinOp::Div, BinOp::Mod, BinOp::CDiv})
    CHECK(pb.affine(binary(b, dim(0), ci(3)), 1, &why));
  CHECK(pb.affine(binary(BinOp::Min, dim(0), sym("N")), 1, &why));
  CHECK(pb.affine(binary(BinOp::Max, binary(BinOp::Sub, sym("N"), dim(1)), ci(0)), 2, &why));
  CHECK(why.empty());
  CHECK_FALSE(pb.affine(binary(BinOp::Mul, dim(0), dim(1)), 2, &why));
  CHECK(why == "'@0 * @1' is not affine");
  // a product of parameters stands for itself
  why.clear();
  CHECK(pb.affine(binary(BinOp::Mul, sym("N"), sym("N")), 1, &why));
  CHECK(pb.opaque("N * N"));
  // a product with a dimension of at most 64 values is split into cases
  isl::Set small(isl_set_read_from_str(pb.ctx(), "{ [t] : 0 <= t < 2 }"));
  CHECK(pb.affine(binary(BinOp::Mul, dim(0), sym("N")), 1, &why, &small));
  CHECK(why.empty());
}

TEST_CASE("presburger: a condition that reads data is bounded from both sides") {
  auto op = std::make_shared<Op>();
  op->name = "f";
  auto X = tensor("X", {ci(8)}, TensorRole::Input);
  auto k = kernel(op, TargetFamily::Cpu, mBlock({}));
  Presburger pb(*k, 1'000'000);
  Expr data = binary(BinOp::GT, load(X, {dim(0)}), floatImm(0));
  Presburger::Cond c = pb.condition(binary(BinOp::And, binary(BinOp::LT, dim(0), ci(4)), data), 1);
  CHECK_FALSE(c.why.empty());
  CHECK(isl_set_is_empty(c.under.get()) == isl_bool_true);
  CHECK(isl::str(c.over) == "{ [i0] : i0 <= 3 }");
}

TEST_CASE("mapping checks: the coverage cases of issue 19") {
  CHECK(check("spatial(M - 1, N)", kAdd) ==
        "error: task-mapping extent 'M - 1' can be negative (it is -1 when M = 0): add a `require` that keeps it "
        ">= 0, or clamp it with max(..., 0)\n");
  CHECK(check("spatial(M - 1, N)", kAdd, "require M >= 1;") ==
        "error: mapping never writes Z[i = -1 + M, j] (e.g. Z[0, 0] when M = 1, N = 1)\n");
  CHECK(check("spatial(M / 2, N)", kAdd) ==
        "error: mapping never writes Z[i, j] for 2i >= -1 + M (e.g. Z[0, 0] when M = 1, N = 1)\n");
  CHECK(check("spatial(cdiv(M, 2), N)", kAdd) ==
        "error: mapping never writes Z[i, j] for 2i >= M (e.g. Z[1, 0] when M = 2, N = 1)\n");
  CHECK(check("spatial(4, N)", kAdd) == "error: mapping never writes Z[i, j] for i >= 4 (e.g. Z[4, 0] when M = 5, N = 1)\n");
  CHECK(check("spatial(M, N)", kAdd) == "");
  CHECK(check("spatial(cdiv(M, 4), cdiv(N, 8)) * repeat(4, 8)", kAdd) == "");
  CHECK(check("spatial(M, N / 4) * repeat(1, 4)", kAdd, "require N % 4 == 0;") == "");
}

TEST_CASE("mapping checks: the conflict cases of issue 19") {
  std::string conflict = "error: writes conflict: workers differing in 'i' (spatial(M, N) on cores, at 3:38) store to "
                         "the same element of Z";
  std::string example = " (e.g. Z[0, 0] by i = 0 and i = 1 when M = 2, N = 1)\n";
  CHECK(check("spatial(M, N)", "Z[i, j] = X[i, j]; Z[M - 1 - i, j] = Y[i, j];") ==
        conflict + " as the store at 3:77" + example);
  CHECK(check("spatial(M, N)", "Z[i / 2, j] = X[i, j];") == conflict + example);
  CHECK(check("spatial(M, N)", "Z[i - i % 2, j] = X[i, j];") == conflict + example);
  CHECK(check("spatial(M, N)", "Z[0, j] = X[i, j];") == conflict + example);
  // one worker may store an element twice from different statements
  CHECK(check("spatial(M, N)", "Z[i, j] = 0.0; Z[i, j] += X[i, j];") == "");
}

TEST_CASE("mapping checks: what isl cannot decide is a warning that says why") {
  CHECK(check("spatial(M, N)", "Z[i * j, j] = X[i, j];") ==
        "warning: cannot prove that workers differing in 'i' (spatial(M, N) on cores, at 3:38) do not store to the "
        "same element of Z: index 'i * j' is not affine\n"
        "warning: cannot prove that the mapping writes every element of Z: index 'i * j' is not affine\n");
  CHECK(check("spatial(M, N)", "if (X[i, j] > 0.0) { Z[i, j] = X[i, j]; }") ==
        "warning: cannot prove that the mapping writes every element of Z: it runs under `if (X[i, j] > 0.0)`, "
        "whose condition is not affine\n");
  // ... unless both branches write the element
  CHECK(check("spatial(M, N)", "if (X[i, j] > 0.0) { Z[i, j] = X[i, j]; } else { Z[i, j] = 0.0; }") == "");
}

TEST_CASE("mapping checks: a worker reading what another worker of its mapping writes races") {
  std::string advice = "; a 'sync' between the write and the read, or separate mappings, would order them\n";
  CHECK(check("spatial(M, N)", "Z[i, j] = X[i, j]; Z[i, j] = (Z[i, j + 1] else 0.0) + 1.0;") ==
        "error: read-write race: workers differing in 'j' (spatial(M, N) on cores, at 3:38): Z[0, 1] is written by "
        "j = 1 (the store at 3:77) and read by j = 0 when M = 1, N = 2" + advice);
  // a `sync` orders the phases, but the read still races with the `+=` after it
  CHECK(check("spatial(M, N)", "Z[i, j] = X[i, j]; sync; Z[i, j] += Z[M - 1 - i, j];") ==
        "error: read-write race: workers differing in 'i' (spatial(M, N) on cores, at 3:38): Z[1, 0] is written by "
        "i = 1 (the store at 3:102) and read by i = 0 when M = 2, N = 1" + advice);
  // one worker's own elements, and reads of another's element after a sync
  CHECK(check("spatial(M, N)", "Z[i, j] = X[i, j]; Z[i, j] = Z[i, j] * 2.0;") == "");
  CHECK(check("spatial(M, 1) * repeat(1, N)", "Z[i, j] = X[i, j]; Z[i, j] += Z[i, 0];") == "");
  // under a condition that reads data the read may not happen: a warning
  CHECK(check("spatial(M, N)", "Z[i, j] = X[i, j]; if (Z[i, j] > 0.0) { Z[i, j] = Z[i, 0]; }") ==
        "warning: cannot prove that workers differing in 'i' (spatial(M, N) on cores, at 3:38) do not read elements "
        "of Z that another of them writes (the store at 3:77): it runs under `if (Z[i, j] > 0.0)`, whose condition "
        "is not affine\n");
}

TEST_CASE("mapping checks: on cuda a top-level sync orders the threads of a mapping; a shared global races") {
  auto kernel = [](const std::string &between) {
    return "kernel add_k implements add on cuda { require N == 32; global S: f32[M, 32]; for i in spatial(M) on "
           "blocks { for j in spatial(32) on threads { S[i, j] = X[i, j]; " +
           between + "Z[i, j] = S[i, 31 - j]; } } }";
  };
  CHECK(diagnose(kernel("")) ==
        "error: read-write race: workers differing in 'j' (spatial(32) on threads, at 3:110): S[0, 31] is written "
        "by j = 31 (the store at 3:144) and read by j = 0 when M = 1; a 'sync' between the write and the read, or "
        "separate mappings, would order them\n");
  CHECK(diagnose(kernel("sync; ")) == "");
  // a sync nested in a loop orders in ways the check does not model: a warning
  CHECK(diagnose("kernel add_k implements add on cuda { require N == 32; global S: f32[M, 32]; for i in spatial(M) "
                 "on blocks { for j in spatial(32) on threads { for r in 0..2 { S[i, j] = X[i, j]; sync; Z[i, j] += "
                 "S[i, 31 - j]; sync; } } } }") ==
        "warning: cannot prove that workers differing in 'j' (spatial(32) on threads, at 3:110) do not read elements "
        "of S that another of them writes (the store at 3:160): a 'sync' inside a loop, an 'if' or an inner mapping "
        "of it may order them\n");
  // a `global` local of each block is the block's own
  CHECK(diagnose("kernel add_k implements add on cuda { require N == 32; for i in spatial(M) on blocks { global S: "
                 "f32[32]; for j in spatial(32) on threads { S[j] = X[i, j]; sync; Z[i, j] = S[31 - j] + S[j]; } } "
                 "}") == "");
}
