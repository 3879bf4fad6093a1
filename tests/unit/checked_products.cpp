// Products of extents, worker counts and byte counts that the compiler
// computes from constants, filled holes, shape hints and hardware files
// (issue 19, item 5): each is checked near 2^62 and 2^63, and an overflow
// refuses (a located error), proves nothing, or saturates — never wraps.
#include "frontend/driver/JitMeasure.h"
#include "scheduler/cuda/GpuLaunch.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"
#include "sched_build.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/PredicateAccesses.h"
#include "scheduler/WorkerLimits.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/construct/Roofline.h"
#include "x86_support.h"

#include <fmt/format.h>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>

using namespace tk;
using namespace tk::ir;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2p62 = int64_t(1) << 62;

// `src` through the whole pipeline (holes filled by the construction
// optimizer for zen5-2c or h100): the functions, and the diagnostics as
// "line:col: message" lines.
struct Lowered {
  std::vector<LoweredFunc> funcs;
  std::string messages;
  bool errors = false;
};
Lowered lowerWithConstruct(const std::string &src, TargetFamily family = TargetFamily::Cpu) {
  schedtest::DiagFixture fx;
  FrontendOptions fo;
  fo.stdlibDir = TK_SOURCE_STDLIB_DIR;
  fo.target = family;
  std::optional<Module> m = buildModule("t.tk", fo, fx.sm, fx.diags, nullptr, &src);
  REQUIRE_MESSAGE(m, fx.out.str());
  construct::ConstructOptions co;
  co.hw = schedtest::stdlibTarget(family == TargetFamily::Cuda ? "h100" : "zen5-2c");
  PipelineOptions po;
  po.target.family = family;
  po.construct = &co;
  Lowered out;
  out.funcs = lowerModule(*m, po, fx.diags);
  for (const Diagnostic &d : fx.diags.all())
    out.messages += fmt::format("{}:{}: {}\n", d.loc.line, d.loc.col, d.message);
  out.errors = fx.diags.hasErrors();
  return out;
}

bool mentions(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("checked products: a huge hole used as a tile extent is a located error") {
  auto src = [](const std::string &value) {
    return R"(op add(X: f32[M, N]) -> Y: f32[M, N] { Y[i, j] = X[i, j] + 1.0; }
kernel add_k implements add on cpu {
  let T = ? in {)" + value + R"(};
  for (bi, bj) in spatial(cdiv(M, T), cdiv(N, T)) on cores {
    for (i, j) in repeat(T, T) { Y[bi*T + i, bj*T + j] = X[bi*T + i, bj*T + j] + 1.0; }
  }
}
)";
  };
  // It compiled, and its guarded tile loops ran 2^124 idle iterations.
  for (int64_t v : {k2p62, kMax, (int64_t(1) << 47) + 1}) {
    CAPTURE(v);
    Lowered l = lowerWithConstruct(src(fmt::format("{}", v)));
    CHECK(l.errors);
    CHECK(mentions(l.messages, fmt::format("3:11: hole ?0 = {} is larger than any tensor extent can be (2^47 = "
                                           "140737488355328): no tile needs it",
                                           v)));
  }
  Lowered ok = lowerWithConstruct(src(fmt::format("{}", int64_t(1) << 47)));
  CHECK_MESSAGE(!ok.errors, ok.messages);
  // A tile that fits computes the right values.
  Lowered four = lowerWithConstruct(src("4"));
  REQUIRE_MESSAGE(!four.errors, four.messages);
  test::LoadedKernels k(four.funcs, "x86_64", 2);
  using Fn = int(const float *, float *, int64_t, int64_t);
  float x[15], y[15 + 4];
  for (int i = 0; i < 15; ++i) x[i] = float(i);
  for (float &e : y) e = -7;
  REQUIRE(k.get<Fn>("add_k")(x, y, 3, 5) == 0);
  for (int i = 0; i < 15; ++i) CHECK(y[i] == float(i) + 1);
  for (int i = 15; i < 19; ++i) CHECK(y[i] == -7);
}

TEST_CASE("checked products: a hole that makes a tile's byte count overflow is a located error") {
  for (const char *scope : {"register", "global"}) {
    std::string src = R"(op add(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] + 1.0; }
kernel add_k implements add on cpu {
  let T = ? in {1099511627776};
  for b in spatial(cdiv(N, T)) on cores {
    )" + std::string(scope) + R"( t: f32[T, T];
    for i in repeat(T) { t[i, 0] = X[b*T + i]; }
    for i in repeat(T) { Y[b*T + i] = t[i, 0] + 1.0; }
  }
}
)";
    CAPTURE(scope);
    Lowered l = lowerWithConstruct(src);
    // 4 * 2^80 bytes wrapped to 0: the kernel compiled, and only the heap
    // fallback's run-time check (status 3) stopped it.
    CHECK(l.errors);
    CHECK(mentions(l.messages, fmt::format("5:{}: {} tensor 't' (f32[1099511627776, 1099511627776]) is too large "
                                           "for the chosen tile sizes (?0 = 1099511627776): it takes more than 2^47 "
                                           "bytes",
                                           6 + std::string(scope).size(), scope)));
  }
}

TEST_CASE("checked products: a mapping whose filled extents multiply past int64 is a located error") {
  // 2^40 cubed workers: the loop ran 0..0 + 2^40 * 2^40 * 2^40, i.e. not at
  // all, and returned 0 with Y unwritten.
  Lowered l = lowerWithConstruct(R"(op add(X: f32[A, B, C]) -> Y: f32[A, B, C] { Y[i, j, k] = X[i, j, k] + 1.0; }
kernel add_k implements add on cpu {
  let T = ? in {1099511627776};
  require A <= T && B <= T && C <= T;
  for (a, b, c) in spatial(T, T, T) on cores {
    Y[a, b, c] = X[a, b, c] + 1.0;
  }
}
)");
  CHECK(l.errors);
  CHECK(mentions(l.messages, "5:20: task mapping 'spatial(1099511627776, 1099511627776, 1099511627776)' has more "
                             "than 2^63 workers for the chosen tile sizes (?0 = 1099511627776)"));
  l = lowerWithConstruct(R"(op add(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] + 1.0; }
kernel add_k implements add on cpu {
  let T = ? in {140737488355328};
  require N <= 65536 * T;
  for b in spatial(256) * repeat(256) * repeat(T) on cores {
    Y[b] = X[b] + 1.0;
  }
}
)");
  CHECK(l.errors);
  CHECK(mentions(l.messages,
                 "has more than 2^63 tasks in dimension 0 for the chosen tile sizes (?0 = 140737488355328)"));
}

TEST_CASE("checked products: PredicateAccesses does not equate products whose constants overflow") {
  // 274177 * 67280421310721 = 2^64 + 1 wrapped to 1, so `i in 0..M * 274177
  // * 67280421310721` counted as ranging over [0, M) and X[i], Y[i] lost
  // their guards.
  auto X = test::tensor("X", ScalarType::F32, {test::sym("M")}, TensorRole::Input);
  auto Y = test::tensor("Y", ScalarType::F32, {test::sym("M")}, TensorRole::Output);
  OpPtr op = test::makeOp("p", {test::tensorParam(X)}, {Y}, {"M"});
  auto func = [&](Expr extent) {
    Expr i = test::loopVar("i");
    return LoweredFunc{"p", op, TargetFamily::Cpu, test::forLoop("i", extent, test::store(Y, {i}, load(X, {i})))};
  };
  Expr huge = simplify(mul(mul(test::sym("M"), intImm(274177)), intImm(67280421310721)));
  REQUIRE(printExpr(huge) == "M * 274177 * 67280421310721");
  std::string text = printLoweredFunc(predicateAccesses(func(huge)));
  CHECK(mentions(text, "Y[i] = (X[i] when i < M else 0.0) when i < M;"));
  // Products that do fit still prove the range: M * 4 * 2^60 and M * 2^62.
  Expr big = mul(mul(test::sym("M"), intImm(4)), intImm(int64_t(1) << 60));
  auto X2 = test::tensor("X", ScalarType::F32, {mul(test::sym("M"), intImm(k2p62))}, TensorRole::Input);
  auto Y2 = test::tensor("Y", ScalarType::F32, {mul(intImm(k2p62), test::sym("M"))}, TensorRole::Output);
  OpPtr op2 = test::makeOp("p", {test::tensorParam(X2)}, {Y2}, {"M"});
  Expr i = test::loopVar("i");
  text = printLoweredFunc(predicateAccesses(
      LoweredFunc{"p", op2, TargetFamily::Cpu, test::forLoop("i", big, test::store(Y2, {i}, load(X2, {i})))}));
  CHECK(mentions(text, "Y[i] = X[i];"));
  // i from 2^62 for 2^62 + 1 iterations: its last value 2^63 wrapped to
  // -2^63, so i counted as below 8 and X[i] lost its guard.
  auto X8 = test::tensor("X", ScalarType::F32, {intImm(8)}, TensorRole::Input);
  auto Y8 = test::tensor("Y", ScalarType::F32, {intImm(8)}, TensorRole::Output);
  OpPtr op8 = test::makeOp("p", {test::tensorParam(X8)}, {Y8}, {});
  text = printLoweredFunc(predicateAccesses(LoweredFunc{
      "p", op8, TargetFamily::Cpu,
      lFor("i", intImm(k2p62), intImm(k2p62 + 1), test::store(Y8, {intImm(0)}, load(X8, {i})))}));
  CHECK(mentions(text, "Y[0] = (X[i] when i < 8 else 0.0);"));
}

TEST_CASE("checked products: launch shapes saturate instead of wrapping") {
  auto parallel = [](WorkerKind w, int64_t n, LStmtPtr body = nullptr) {
    return test::forLoop("w", intImm(n), body ? body : lBlock({}), ForKind::Parallel, w);
  };
  auto buffer = [](Scope scope, std::vector<int64_t> shape, LStmtPtr body = nullptr) {
    std::vector<Expr> dims;
    for (int64_t d : shape) dims.push_back(intImm(d));
    return test::alloc(test::tensor("s", ScalarType::F32, dims, TensorRole::Local, scope), body ? body : lBlock({}));
  };
  // 32 x 2^59 warps wrapped to 0 threads, so the launch had 1 thread.
  CHECK(launchShape(parallel(WorkerKind::Warps, int64_t(1) << 59)).threads == kMax);
  CHECK(launchShape(parallel(WorkerKind::Warps, (int64_t(1) << 58) - 1)).threads == (int64_t(1) << 63) - 32);
  CHECK(launchShape(parallel(WorkerKind::Warps, 8)).threads == 256);
  // 4 x 2^62 bytes of shared memory wrapped to 0; two of 2^62 overflow the sum.
  CHECK(launchShape(buffer(Scope::Shared, {k2p62})).sharedBytes == kMax);
  CHECK(launchShape(buffer(Scope::Shared, {int64_t(1) << 60}, buffer(Scope::Shared, {int64_t(1) << 60}))).sharedBytes ==
        kMax);
  CHECK(launchShape(buffer(Scope::Shared, {(int64_t(1) << 59) - 1})).sharedBytes == int64_t(1) << 61);
  CHECK(launchShape(buffer(Scope::Shared, {k2p62, 4, 0})).sharedBytes == 0); // empty, prefix overflowing or not
  CHECK(launchShape(buffer(Scope::Shared, {3, 5})).sharedBytes == 64);
  // Register words: 4 x 2^62 bytes were 0 words.
  CHECK(launchShape(buffer(Scope::Register, {k2p62})).registerWords == int64_t(1) << 61);
  LStmtPtr nested =
      buffer(Scope::Register, {kMax}, buffer(Scope::Register, {kMax, 2}, buffer(Scope::Register, {kMax})));
  CHECK(launchShape(buffer(Scope::Register, {kMax}, nested)).registerWords == kMax);
  CHECK(launchShape(buffer(Scope::Register, {3})).registerWords == 3);
}

TEST_CASE("checked products: a cuda launch of 2^59 warps is a located error") {
  Lowered l = lowerWithConstruct(R"(op add(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] + 1.0; }
kernel add_k implements add on cuda {
  for b in spatial(cdiv(N, 4)) on blocks {
    for w in spatial(576460752303423488) on warps {
      if (w == 0) { for i in repeat(4) { Y[b*4 + i] = X[b*4 + i] + 1.0; } }
    }
  }
}
)",
                                 TargetFamily::Cuda);
  CHECK(l.errors);
  CHECK(mentions(l.messages, "3:3: this launch needs at least 2^63 - 1 threads per block; cuda allows at most 1024"));
  // 2^59 + 4 warps made 128 threads, mod 2^64, like the threads mapping.
  l = lowerWithConstruct(R"(op add(X: f32[N]) -> Y: f32[N] { Y[i] = X[i] + 1.0; }
kernel add_k implements add on cuda {
  for b in spatial(cdiv(N, 128)) on blocks {
    for w in spatial(576460752303423492) on warps {
      if (w == 0) { Y[b*128] = X[b*128] + 1.0; }
    }
    for t in spatial(128) on threads { Y[b*128 + t] = X[b*128 + t] + 1.0; }
  }
}
)",
                         TargetFamily::Cuda);
  CHECK(l.errors);
  CHECK(mentions(l.messages, "7:5: 576460752303423492 warps (at 4:5) need 2^63 or more threads (32 per warp), "
                             "but this threads mapping uses 128"));
}

TEST_CASE("checked products: warps x 32 against threads") {
  LaunchConfig c;
  c.warps = (int64_t(1) << 59) + 4;
  c.threads = 128;
  std::string why;
  CHECK(!launchConfigConsistent(c, &why));
  CHECK(mentions(why, "need 2^63 or more threads"));
  c.warps = int64_t(1) << 58; // 2^63 does not fit either
  CHECK(!launchConfigConsistent(c, &why));
  c.warps = (int64_t(1) << 58) - 1;
  c.threads = (int64_t(1) << 63) - 32;
  CHECK(launchConfigConsistent(c, &why));
  c.warps = 4;
  c.threads = 128;
  CHECK(launchConfigConsistent(c, &why));
}

TEST_CASE("checked products: the construction optimizer at 2^40 shape hints and 2^63 - 1 reductions") {
  using namespace tk::construct;
  const int64_t k2p40 = int64_t(1) << 40;
  HardwareDesc zen = schedtest::stdlibTarget("zen5-2c");
  // 2^40 x 2^36 parallel tiles wrapped to 0 waves: every estimate was NaN.
  Space big(buildLoopNest(*schedtest::matmulOp(), {{"M", k2p40}, {"K", k2p40}, {"N", k2p40}}), zen);
  Estimate e = estimate(big, big.initial());
  CHECK(e.parallelTiles == kMax);
  CHECK(std::isfinite(e.seconds));
  CHECK(e.seconds > 1e20); // 2^121 flops
  Space small(buildLoopNest(*schedtest::matmulOp(), {{"M", 64}, {"K", 64}, {"N", 64}}), zen);
  CHECK(estimate(small, small.initial()).parallelTiles > 0);

  // Steps below a parent of 2^63 - 1 (a reduction `sum(k < 2^63 - 1)`):
  // doubling stops at 2^62 (it wrapped to 0 and doubled forever).
  Module red = unittest::moduleFromSource("op r(X: f32[N]) -> Y: f32[N] { Y[i] = sum(k < 9223372036854775807) "
                                          "X[i] * f32(k); }");
  Space huge(buildLoopNest(*red.findOp("r"), {}), zen);
  REQUIRE(huge.nest().dims.size() == 2);
  REQUIRE(huge.nest().dims[1].extent == kMax);
  std::vector<int64_t> st = huge.steps(1, 1, kMax);
  REQUIRE(st.size() == 64);
  CHECK(st[62] == k2p62);
  CHECK(st.back() == kMax);

  // GPU threads per block saturate.
  HardwareDesc h100 = schedtest::stdlibTarget("h100");
  Space gpu(buildLoopNest(*schedtest::matmulOp(), {{"M", k2p40}, {"K", 64}, {"N", k2p40}}), h100);
  ETIR s = gpu.initial();
  size_t r = gpu.levels() - 1;
  s.tile[r - 1] = {k2p40, k2p40, 1};
  s.tile[r] = {1, 1, 1};
  CHECK(gpu.gpuThreads(s) == kMax);
  s.tile[r - 1] = {16, 8, 1};
  CHECK(gpu.gpuThreads(s) == 128);

  // Through the pipeline: an explicit reduction range of 2^63 - 1.
  Lowered l = lowerWithConstruct(R"(op r(X: f32[N]) -> Y: f32[N] { Y[i] = sum(k < 9223372036854775807) X[i]; }
kernel r_k implements r on cpu {
  let T = ?;
  for b in spatial(cdiv(N, T)) on cores {
    for i in repeat(T) {
      Y[b*T + i] = 0.0;
      for k in 0..9223372036854775807 { Y[b*T + i] += X[b*T + i]; }
    }
  }
}
)");
  CHECK_MESSAGE(!l.errors, l.messages);
  CHECK(l.funcs.size() == 2);
}

TEST_CASE("checked products: hardware sizes that overflow int64 are refused") {
  auto parse = [](const std::string &capacity) {
    std::string text = "format = 1\nname = t\nfamily = cpu\nunits = 1\ngflops_f32 = 1\n[level dram]\ncapacity = " +
                       capacity + "\nbandwidth = 1\n[level registers]\ncapacity = 512\nbandwidth = 1\n";
    schedtest::DiagFixture fx;
    auto h = construct::parseHardwareDesc(text, fx.sm.addFile("t.hw", text), fx.diags);
    std::string out;
    for (const Diagnostic &d : fx.diags.all())
      out += fmt::format("{}:{}: {}\n", d.loc.line, d.loc.col, d.message);
    return std::make_pair(h, out);
  };
  // (2^34 + 1) GiB wrapped to 1 GiB and was accepted.
  auto [h, msg] = parse("17179869185G");
  CHECK(!h);
  CHECK(mentions(msg, "7:12: `capacity` needs a non-negative integer (optionally with K, M or G), not '17179869185G'"));
  CHECK(!parse("8589934592G").first); // 2^63
  auto ok = parse("8589934591G");     // 2^63 - 2^30
  REQUIRE(ok.first);
  CHECK(ok.first->levels[0].capacity == kMax - (int64_t(1) << 30) + 1);
}

TEST_CASE("checked products: the default schedule's task count") {
  // B: f32[3, 2^62, 2, 2]: 3 x 2^62 tasks wrapped negative, below the 16
  // wanted, and a third dimension joined the parallel mapping.
  auto shape = std::vector<Expr>{intImm(3), intImm(k2p62), intImm(2), intImm(2)};
  auto A = schedtest::tensor("A", shape, TensorRole::Input);
  auto B = schedtest::tensor("B", shape, TensorRole::Output);
  auto op = std::make_shared<Op>();
  op->name = "copy";
  op->inputs = {schedtest::param(A)};
  op->outputs = {B};
  std::vector<IndexVar> vars;
  std::vector<Expr> idx;
  for (const char *n : {"a", "b", "c", "d"}) {
    vars.push_back({n, shape[vars.size()], {}});
    idx.push_back(schedtest::idx(n));
  }
  op->body = {{B, vars, load(A, idx), {}}};
  KernelPtr k = defaultSchedule(op, TargetDesc{});
  REQUIRE(k);
  const MStmt *map = nullptr;
  visitMStmt(k->body, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::MapFor && !map) map = &s;
  });
  REQUIRE(map);
  CHECK(map->vars == std::vector<std::string>{"a", "b"});
}

TEST_CASE("checked products: measurement buffers are checked and bounded") {
  std::string e;
  CpuTarget target = *resolveCpuTarget("host", &e);
  LoweredFunc f = schedtest::lowerOne(schedtest::matmulOp());
  // M * K = 2^64 wrapped to an empty buffer that the kernel then read.
  looptune::JitKernel wrapped(f, target, {{"M", int64_t(1) << 32}, {"K", int64_t(1) << 32}, {"N", 4}});
  CHECK(wrapped.call() == 3);
  CHECK(wrapped.bestSeconds(0, 1, 0) == std::numeric_limits<double>::infinity());
  // 3 x 2^32 floats (48 GiB) fit int64 but not the measurement budget.
  looptune::JitKernel large(f, target, {{"M", 65536}, {"K", 65536}, {"N", 65536}});
  CHECK(large.call() == 3);
  looptune::JitKernel fits(f, target, {{"M", 8}, {"K", 8}, {"N", 8}});
  CHECK(fits.call() == 0);
  CHECK(fits.buffer(2).size() == 64);
  CHECK(std::isfinite(fits.bestSeconds(0, 1, 0)));
}

TEST_CASE("checked products: cp_async's byte count") {
  // 4 x (2^62 + 1) bytes wrapped to 4: accepted, and the backend unrolled
  // an element-by-element copy of 2^62 + 1 elements.
  auto check = [](const std::string &count) {
    std::string src = R"(op cp(A: f32[M, 4]) -> C: f32[M, 4] { C[i, j] = A[i, j]; }
kernel cp_k implements cp on cuda {
  for bi in spatial(M) on blocks {
    shared As: f32[1, 4];
    cp_async(As[0, 0], A[bi, 0], )" + count + R"();
    cp_async_commit();
    cp_async_wait(0);
    sync;
    for j in spatial(4) on threads { C[bi, j] = As[0, j]; }
  }
}
)";
    schedtest::DiagFixture fx;
    FrontendOptions fo;
    fo.target = TargetFamily::Cuda;
    std::optional<Module> m = buildModule("t.tk", fo, fx.sm, fx.diags, nullptr, &src);
    std::string out;
    for (const Diagnostic &d : fx.diags.all())
      out += fmt::format("{}:{}: {}\n", d.loc.line, d.loc.col, d.message);
    return std::make_pair(m.has_value(), out);
  };
  auto [ok, msg] = check("4611686018427387905");
  CHECK(!ok);
  CHECK(msg == "5:34: 'cp_async' copies 4, 8 or 16 bytes, but 4611686018427387905 f32 elements are 2^63 or more\n");
  CHECK(!check("2305843009213693953").first); // 2^63 + 4 bytes
  CHECK(check("4") == std::make_pair(true, std::string()));
}
