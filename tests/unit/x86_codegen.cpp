// x86 backend: hand-built loop IR compiled to objects, linked, loaded and run.
#include <doctest/doctest.h>

#include "x86_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

using namespace tk;
using namespace tk::ir;
using namespace tk::test;

namespace {

// C[i] = A[i] + B[i] for i < N, with loop kind `kind`.
LoweredFunc vectorAdd(const std::string &name, ForKind kind, std::optional<WorkerKind> worker = std::nullopt) {
  auto A = tensor("A", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto B = tensor("B", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto C = tensor("C", ScalarType::F32, {sym("N")}, TensorRole::Output);
  Expr i = loopVar("i");
  auto body = forLoop("i", sym("N"), store(C, {i}, binary(BinOp::Add, load(A, {i}), load(B, {i}))), kind, worker);
  return LoweredFunc{name, makeOp(name, {tensorParam(A), tensorParam(B)}, {C}, {"N"}), TargetFamily::Cpu, body, {}};
}

using AddFn = int(const float *, const float *, float *, int64_t);

} // namespace

TEST_CASE("x86: resolveCpuTarget maps names to LLVM CPUs") {
  std::string err;
  CHECK(resolveCpuTarget("x86_64", &err)->cpu == "x86-64");
  CHECK(resolveCpuTarget("x86_64-avx2", &err)->cpu == "x86-64-v3");
  CHECK(resolveCpuTarget("x86_64-avx2", &err)->vectorBits == 256);
  CHECK(resolveCpuTarget("x86_64-avx512", &err)->cpu == "x86-64-v4");
  CHECK(resolveCpuTarget("x86_64-avx512", &err)->vectorBits == 512);
  auto host = resolveCpuTarget("host", &err);
  REQUIRE(host);
  CHECK(!host->cpu.empty());
  CHECK(!resolveCpuTarget("riscv", &err));
  CHECK(err.find("unknown CPU target 'riscv'") != std::string::npos);
}

TEST_CASE("x86: vectorized add runs and vectorizes for avx2") {
  auto f = vectorAdd("vadd", ForKind::Vectorized);
  LoadedKernels k({f}, "x86_64-avx2", 3);
  std::vector<float> a(37), b(37), c(37, -1);
  for (int i = 0; i < 37; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  CHECK(k.get<AddFn>("vadd")(a.data(), b.data(), c.data(), 37) == 0);
  for (int i = 0; i < 37; ++i) CHECK(c[i] == doctest::Approx(1.5 * i));
  std::string asmText = emit({f}, CodegenOutput::Assembly, "x86_64-avx2", 3);
  CHECK(asmText.find("ymm") != std::string::npos);
}

TEST_CASE("x86: parallel loop goes through tkrt_parallel_for") {
  auto f = vectorAdd("padd", ForKind::Parallel, WorkerKind::Cores);
  std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64", 0);
  CHECK(ir.find("define private void @padd.par0") != std::string::npos);
  CHECK(ir.find("call i32 @tkrt_parallel_for") != std::string::npos);
  LoadedKernels k({f});
  const int n = 100000;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0);
  CHECK(k.get<AddFn>("padd")(a.data(), b.data(), c.data(), n) == 0);
  CHECK(std::count(c.begin(), c.end(), 3.0f) == n);
}

TEST_CASE("x86: output is deterministic and only kernels are external") {
  auto f = vectorAdd("padd", ForKind::Parallel, WorkerKind::Cores);
  CHECK(emit({f}, CodegenOutput::Object) == emit({f}, CodegenOutput::Object));
  std::string s = emit({f}, CodegenOutput::Assembly);
  CHECK(s.find(".globl\tpadd") != std::string::npos);
  CHECK(s.find(".globl\tpadd.par0") == std::string::npos);
}

TEST_CASE("x86: padded and predicated loads never read out of range") {
  // Y[i] = X[i - 1] else -1 (implicit bounds) + (X[i + 1] when i + 1 < N, pad 0)
  auto X = tensor("X", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Y = tensor("Y", ScalarType::F32, {sym("N")}, TensorRole::Output);
  Expr i = loopVar("i");
  Expr left = load(X, {sub(i, intImm(1))}, floatImm(-1));
  Expr right = load(X, {add(i, intImm(1))}, nullptr, binary(BinOp::LT, add(i, intImm(1)), sym("N")));
  auto body = forLoop("i", sym("N"), store(Y, {i}, binary(BinOp::Add, left, right)));
  LoweredFunc f{"shift", makeOp("shift", {tensorParam(X)}, {Y}, {"N"}), TargetFamily::Cpu, body, {}};
  LoadedKernels k({f});
  // X sits at the very end of a buffer whose neighbours are never touched
  // in a correct kernel; the values there would poison the result.
  std::vector<float> mem{1000, 1, 2, 3, 1000};
  std::vector<float> y(3);
  CHECK(k.get<int(const float *, float *, int64_t)>("shift")(mem.data() + 1, y.data(), 3) == 0);
  CHECK(y == std::vector<float>{-1 + 2, 1 + 3, 2 + 0});
}

TEST_CASE("x86: Check returns its status code, also from a parallel body") {
  auto f = vectorAdd("checked", ForKind::Serial);
  f.body = lBlock({check(binary(BinOp::GE, sym("N"), intImm(1)), 1), f.body});
  auto g = vectorAdd("pchecked", ForKind::Parallel, WorkerKind::Cores);
  g.body->body = lBlock({check(binary(BinOp::NE, loopVar("i"), intImm(5)), 2), g.body->body});
  LoadedKernels k({f, g});
  std::vector<float> a(10, 1), b(10, 1), c(10, 0);
  CHECK(k.get<AddFn>("checked")(a.data(), b.data(), c.data(), 0) == 1);
  CHECK(k.get<AddFn>("checked")(a.data(), b.data(), c.data(), 10) == 0);
  CHECK(k.get<AddFn>("pchecked")(a.data(), b.data(), c.data(), 10) == 2);
  CHECK(k.get<AddFn>("pchecked")(a.data(), b.data(), c.data(), 5) == 0);
}

TEST_CASE("x86: integer division and modulo round toward negative infinity") {
  auto Q = tensor("Q", ScalarType::I64, {intImm(7)}, TensorRole::Output);
  auto R = tensor("R", ScalarType::I64, {intImm(7)}, TensorRole::Output);
  auto U = tensor("U", ScalarType::I64, {intImm(7)}, TensorRole::Output);
  Expr x = sub(loopVar("i"), intImm(3)); // -3 .. 3
  Expr d = sym("d");
  auto body = forLoop("i", intImm(7),
                      lBlock({store(Q, {loopVar("i")}, binary(BinOp::Div, x, d)),
                              store(R, {loopVar("i")}, binary(BinOp::Mod, x, d)),
                              store(U, {loopVar("i")}, binary(BinOp::CDiv, x, d))}));
  LoweredFunc f{"divmod", makeOp("divmod", {scalarParam("d", ScalarType::I64)}, {Q, R, U}, {}),
                TargetFamily::Cpu, body, {}};
  LoadedKernels k({f});
  using Fn = int(int64_t, int64_t *, int64_t *, int64_t *);
  for (int64_t dv : {2, -2}) {
    std::vector<int64_t> q(7), r(7), u(7);
    REQUIRE(k.get<Fn>("divmod")(dv, q.data(), r.data(), u.data()) == 0);
    for (int64_t i = 0; i < 7; ++i) {
      int64_t xv = i - 3;
      int64_t fq = (xv - (((xv % dv) + dv) % dv)) / dv;
      CHECK(q[i] == fq);
      CHECK(r[i] == xv - fq * dv);
      CHECK(u[i] == -((-xv - (((-xv % dv) + dv) % dv)) / dv));
    }
  }
}

TEST_CASE("x86: allocations, reductions, math calls and 2-D indexing") {
  // T (global, malloc) = rowsum(A); R (register tile) = tanh(T); Out[i] = R[i] + erf(0).
  auto A = tensor("A", ScalarType::F32, {sym("M"), sym("K")}, TensorRole::Input);
  auto Out = tensor("Out", ScalarType::F32, {sym("M")}, TensorRole::Output);
  auto T = tensor("T", ScalarType::F32, {sym("M")}, TensorRole::Local, Scope::Global);
  auto R = tensor("R", ScalarType::F32, {intImm(4)}, TensorRole::Local, Scope::Register);
  Expr i = loopVar("i");
  Expr rowsum = reduce(ReduceOp::Sum, {IndexVar{"k", sym("K"), {}}}, load(A, {i, var("k", VarKind::Index)}));
  auto body = alloc(T, lBlock({
      forLoop("i", sym("M"), store(T, {i}, rowsum)),
      forLoop("i", sym("M"), alloc(R, lBlock({
          store(R, {intImm(0)}, call(MathFn::Tanh, load(T, {i}))),
          store(Out, {i}, binary(BinOp::Add, load(R, {intImm(0)}), call(MathFn::Erf, floatImm(0))))}))),
  }));
  LoweredFunc f{"rowtanh", makeOp("rowtanh", {tensorParam(A)}, {Out}, {"M", "K"}), TargetFamily::Cpu, body, {}};
  LoadedKernels k({f});
  std::vector<float> a{0.1f, 0.2f, 0.3f, -0.5f, -0.25f, -0.25f};
  std::vector<float> out(2);
  CHECK(k.get<int(const float *, float *, int64_t, int64_t)>("rowtanh")(a.data(), out.data(), 2, 3) == 0);
  CHECK(out[0] == doctest::Approx(std::tanh(0.6)));
  CHECK(out[1] == doctest::Approx(std::tanh(-1.0)));
}

TEST_CASE("x86: buffers start on a cache line, on the stack and on the heap") {
  // A zmm load of a packed row that straddles two lines costs two loads:
  // both kinds of buffer are 64-byte aligned, whatever their element type.
  auto A = tensor("A", ScalarType::F32, {sym("N")}, TensorRole::Input);
  auto Out = tensor("Out", ScalarType::F32, {sym("N")}, TensorRole::Output);
  auto S = tensor("S", ScalarType::F32, {intImm(24)}, TensorRole::Local, Scope::Local);
  auto H = tensor("H", ScalarType::F32, {sym("N")}, TensorRole::Local, Scope::Global);
  Expr i = loopVar("i");
  auto body = alloc(S, alloc(H, lBlock({
      forLoop("i", sym("N"), store(H, {i}, load(A, {i}))),
      forLoop("i", intImm(24), store(S, {i}, floatImm(1))),
      forLoop("i", sym("N"), store(Out, {i}, binary(BinOp::Add, load(H, {i}),
                                                     load(S, {binary(BinOp::Mod, i, intImm(24))})))),
  })));
  LoweredFunc f{"aligned", makeOp("aligned", {tensorParam(A)}, {Out}, {"N"}), TargetFamily::Cpu, body, {}};
  std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64", 0);
  CHECK(ir.find("alloca [24 x float], align 64") != std::string::npos);
  CHECK(ir.find("@tkrt_alloc(i64") != std::string::npos);
  LoadedKernels k({f});
  for (int64_t n : {0, 1, 17}) {
    std::vector<float> a(n), out(n);
    for (int64_t j = 0; j < n; ++j) a[j] = float(j);
    CHECK(k.get<int(const float *, float *, int64_t)>("aligned")(a.data(), out.data(), n) == 0);
    for (int64_t j = 0; j < n; ++j) CHECK(out[j] == float(j) + 1);
  }
}

TEST_CASE("x86: f16 and bf16 tensors are 16-bit storage rounded to nearest even") {
  auto H = tensor("H", ScalarType::F16, {sym("N")}, TensorRole::Input);
  auto HB = tensor("HB", ScalarType::BF16, {sym("N")}, TensorRole::Output);
  auto HO = tensor("HO", ScalarType::F16, {sym("N")}, TensorRole::Output);
  Expr i = loopVar("i");
  Expr scaled = binary(BinOp::Mul, load(H, {i}), sym("s", ScalarType::F32));
  auto body = forLoop("i", sym("N"), lBlock({store(HO, {i}, scaled), store(HB, {i}, scaled)}));
  LoweredFunc f{"half", makeOp("half", {tensorParam(H), scalarParam("s", ScalarType::F32)}, {HB, HO}, {"N"}),
                TargetFamily::Cpu, body, {}};
  LoadedKernels k({f});
  // f16: 1.0 = 0x3c00, 1.5 = 0x3e00; bf16: 3.0 = 0x4040, 2.0 = 0x4000.
  std::vector<uint16_t> h{0x3c00, 0x3e00}, hb(2), ho(2);
  using Fn = int(const uint16_t *, float, uint16_t *, uint16_t *, int64_t);
  CHECK(k.get<Fn>("half")(h.data(), 2.0f, hb.data(), ho.data(), 2) == 0);
  CHECK(ho == std::vector<uint16_t>{0x4000, 0x4200});
  CHECK(hb == std::vector<uint16_t>{0x4000, 0x4040});
}

TEST_CASE("x86: GPU worker kinds and scopes are located errors") {
  auto f = vectorAdd("gpu", ForKind::Parallel, WorkerKind::Threads);
  f.body->loc = SourceLoc{0, 3, 5};
  SourceManager sm;
  sm.addFile("k.tk", "a\nb\n  for (i) in spatial(N) on threads {}\n");
  DiagEngine diags(sm);
  std::ostringstream os;
  diags.setStream(&os);
  std::string out;
  auto t = resolveCpuTarget("x86_64", nullptr);
  CHECK_FALSE(emitCpuCode({f}, *t, 2, CodegenOutput::Object, "k.tk", out, diags));
  REQUIRE(diags.errorCount() == 1);
  CHECK(diags.all()[0].message.find("'threads'") != std::string::npos);
  CHECK(diags.all()[0].loc.line == 3);
}

TEST_CASE("x86: an outlined body computes tensor extents once, in its entry block") {
  // parallel for i in 0..N { for j in 0..M / K { Y[i, j] = 1 when j < 5 } }
  // with Y: f32[N, M / K]. The row length M / K addresses every store;
  // computed under the store's guard, a division could not be hoisted
  // (it may trap) and a vectorized loop divided per lane.
  auto Y = tensor("Y", ScalarType::F32, {sym("N"), binary(BinOp::Div, sym("M"), sym("K"))}, TensorRole::Output);
  Expr i = loopVar("i"), j = loopVar("j");
  LStmtPtr row = forLoop("j", binary(BinOp::Div, sym("M"), sym("K")),
                         store(Y, {i, j}, floatImm(1), binary(BinOp::LT, j, intImm(5))));
  LoweredFunc f{"rows", makeOp("rows", {}, {Y}, {"N", "M", "K"}), TargetFamily::Cpu,
                lBlock({check(binary(BinOp::GE, sym("K"), intImm(1)), 1),
                        forLoop("i", sym("N"), row, ForKind::Parallel, WorkerKind::Cores)}),
                {}};
  std::string ir = emit({f}, CodegenOutput::LLVMIR, "x86_64", 0);
  size_t body = ir.find("define private void @rows.par0");
  REQUIRE(body != std::string::npos);
  size_t division = ir.find(" sdiv ", body), branch = ir.find(" br ", body);
  REQUIRE(division != std::string::npos);
  CHECK(division < branch); // before the chunk loop (the old code divided in the guarded store)
  LoadedKernels k({f});
  std::vector<float> y(3 * 6 + 1, 0);
  CHECK(k.get<int(float *, int64_t, int64_t, int64_t)>("rows")(y.data(), 3, 12, 2) == 0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 6; ++c) CHECK(y[r * 6 + c] == (c < 5 ? 1.0f : 0.0f));
  CHECK(y[18] == 0.0f);
}
