#include "frontend/driver/JitMeasure.h"

#include "backends/x86/runtime/tkrt.h"
#include "ir/Diagnostics.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"

#include <fmt/format.h>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace tk::looptune {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string &what, llvm::Error e) {
  throw InternalError("looptune jit: " + what + ": " + llvm::toString(std::move(e)));
}

std::unique_ptr<llvm::orc::LLJIT> makeJit() {
  initializeX86Backend();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) fail("creating LLJIT", jit.takeError());
  llvm::orc::JITDylib &jd = (*jit)->getMainJITDylib();
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) fail("process symbols", gen.takeError());
  jd.addGenerator(std::move(*gen));
  // libtkrt is linked statically into this program: its symbols are not in
  // the dynamic symbol table, so the JIT gets their addresses directly.
  llvm::orc::SymbolMap rt;
  auto define = [&](const char *name, llvm::orc::ExecutorAddr addr) {
    rt[(*jit)->mangleAndIntern(name)] = {addr, llvm::JITSymbolFlags::Exported};
  };
  define("tkrt_parallel_for", llvm::orc::ExecutorAddr::fromPtr(&tkrt_parallel_for));
  define("tkrt_alloc", llvm::orc::ExecutorAddr::fromPtr(&tkrt_alloc));
  define("tkrt_free", llvm::orc::ExecutorAddr::fromPtr(&tkrt_free));
  if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(rt))) fail("runtime symbols", std::move(e));
  return std::move(*jit);
}

using Values = std::vector<std::pair<std::string, ir::Expr>>;

// Elements of `t` at `values`; nullopt when the count overflows int64
// (--shape-hint=M=2^32 and K=2^32 wrapped A's to 0 elements, and the
// kernel wrote past an empty buffer).
std::optional<int64_t> elements(const ir::TensorDecl &t, const Values &values) {
  std::optional<int64_t> n = 1;
  for (const ir::Expr &e : t.shape) {
    ir::Expr s = ir::simplify(ir::substitute(e, values));
    if (s->kind != ir::ExprKind::IntImm) throw InternalError("looptune jit: non-constant shape of " + t.name);
    if (n) n = ir::checkedMul(*n, std::max<int64_t>(s->intValue, 0));
  }
  return n;
}

// Pointers and int64 values are both passed in integer registers (and
// 8-byte stack slots) by the x86-64 System V convention, so every ABI
// signature of f32/f64 tensors and integer scalars is called as one of these.
using A = uintptr_t;
int callWith(void *fn, const std::vector<A> &a) {
  switch (a.size()) {
#define TK_ARGS_1 a[0]
#define TK_ARGS_2 TK_ARGS_1, a[1]
#define TK_ARGS_3 TK_ARGS_2, a[2]
#define TK_ARGS_4 TK_ARGS_3, a[3]
#define TK_ARGS_5 TK_ARGS_4, a[4]
#define TK_ARGS_6 TK_ARGS_5, a[5]
#define TK_ARGS_7 TK_ARGS_6, a[6]
#define TK_ARGS_8 TK_ARGS_7, a[7]
#define TK_ARGS_9 TK_ARGS_8, a[8]
#define TK_ARGS_10 TK_ARGS_9, a[9]
#define TK_ARGS_11 TK_ARGS_10, a[10]
#define TK_ARGS_12 TK_ARGS_11, a[11]
#define TK_ARGS_13 TK_ARGS_12, a[12]
#define TK_ARGS_14 TK_ARGS_13, a[13]
#define TK_ARGS_15 TK_ARGS_14, a[14]
#define TK_ARGS_16 TK_ARGS_15, a[15]
#define TK_CALL(n, ...) case n: return reinterpret_cast<int (*)(__VA_ARGS__)>(fn)(TK_ARGS_##n);
    TK_CALL(1, A)
    TK_CALL(2, A, A)
    TK_CALL(3, A, A, A)
    TK_CALL(4, A, A, A, A)
    TK_CALL(5, A, A, A, A, A)
    TK_CALL(6, A, A, A, A, A, A)
    TK_CALL(7, A, A, A, A, A, A, A)
    TK_CALL(8, A, A, A, A, A, A, A, A)
    TK_CALL(9, A, A, A, A, A, A, A, A, A)
    TK_CALL(10, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(11, A, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(12, A, A, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(13, A, A, A, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(14, A, A, A, A, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(15, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A)
    TK_CALL(16, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A)
#undef TK_CALL
  default: throw InternalError("looptune jit: functions with more than 16 arguments are not measured");
  }
}

} // namespace

struct JitKernel::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

JitKernel::JitKernel(const ir::LoweredFunc &f, const CpuTarget &target, const std::map<std::string, int64_t> &values)
    : impl_(std::make_unique<Impl>()) {
  auto valueOf = [&](const std::string &name) {
    auto it = values.find(name);
    if (it == values.end()) throw InternalError("looptune jit: no value for " + name + " of " + f.name);
    return it->second;
  };
  Values subst;
  for (const ir::Param &p : f.op->inputs)
    if (p.isScalar()) {
      if (!ir::isInteger(p.type)) throw InternalError("looptune jit: non-integer scalar parameter " + p.name);
      subst.push_back({p.name, ir::intImm(valueOf(p.name))});
    }
  for (const std::string &s : f.op->symbols) subst.push_back({s, ir::intImm(valueOf(s))});
  std::vector<ir::TensorPtr> tensors;
  for (const ir::Param &p : f.op->inputs)
    if (!p.isScalar()) tensors.push_back(p.tensor);
  for (const ir::TensorPtr &t : f.op->outputs) tensors.push_back(t);
  // Byte counts are checked and bounded before anything is allocated: at
  // large shape hints the buffers would not fit in memory (bad_alloc, or
  // the OOM killer), so such a kernel is not measured (call() returns 3).
  std::vector<int64_t> counts; // floats per buffer
  std::optional<int64_t> total = 0;
  for (const ir::TensorPtr &t : tensors) {
    bool f64 = t->dtype == ir::ScalarType::F64;
    if (!f64 && t->dtype != ir::ScalarType::F32)
      throw InternalError("looptune jit: only f32 and f64 tensors are measured");
    std::optional<int64_t> n = elements(*t, subst);
    if (n && f64) n = ir::checkedMul(*n, 2);
    counts.push_back(n.value_or(0));
    total = n && total ? ir::checkedAdd(*total, *n) : std::nullopt;
  }
  if (!total || *total > kMaxMeasureBytes / static_cast<int64_t>(sizeof(float))) return; // fn_ stays null
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < tensors.size(); ++i) {
    bool f64 = tensors[i]->dtype == ir::ScalarType::F64;
    size_t n = static_cast<size_t>(f64 ? counts[i] / 2 : counts[i]);
    buffers_.emplace_back(static_cast<size_t>(counts[i]), 0.0f);
    if (tensors[i]->role == ir::TensorRole::Output) continue;
    for (size_t j = 0; j < n; ++j) {
      if (!f64) {
        buffers_.back()[j] = dist(rng);
        continue;
      }
      double d = dist(rng);
      std::memcpy(&buffers_.back()[2 * j], &d, sizeof d);
    }
  }
  size_t t = 0;
  for (const ir::Param &p : f.op->inputs)
    args_.push_back(p.isScalar() ? static_cast<A>(valueOf(p.name)) : reinterpret_cast<A>(buffers_[t++].data()));
  for (size_t o = 0; o < f.op->outputs.size(); ++o) args_.push_back(reinterpret_cast<A>(buffers_[t++].data()));
  for (const std::string &s : f.op->symbols) args_.push_back(static_cast<A>(valueOf(s)));
  SourceManager sm;
  DiagEngine diags(sm);
  std::string obj;
  if (!emitCpuCode({f}, target, 2, CodegenOutput::Object, f.name, obj, diags))
    throw InternalError("looptune jit: code generation failed for " + f.name);
  impl_->jit = makeJit();
  if (llvm::Error e = impl_->jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(obj, f.name)))
    fail("adding the object", std::move(e));
  auto sym = impl_->jit->lookup(f.name);
  if (!sym) fail("looking up " + f.name, sym.takeError());
  fn_ = sym->toPtr<void *>();
}

JitKernel::~JitKernel() = default;

int JitKernel::call() { return fn_ ? callWith(fn_, args_) : 3; }

double JitKernel::bestSeconds(double warmupSec, int minReps, double budgetSec) {
  if (!fn_) return std::numeric_limits<double>::infinity();
  auto start = Clock::now();
  for (int i = 0; i < 2 || std::chrono::duration<double>(Clock::now() - start).count() < warmupSec; ++i) call();
  double best = 1e30;
  start = Clock::now();
  for (int i = 0; i < minReps || std::chrono::duration<double>(Clock::now() - start).count() < budgetSec; ++i) {
    auto t0 = Clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

double measurePeakGflops(const CpuTarget &target) {
  int lanes = target.vectorBits / 32, chains = 12;
  const int64_t iters = 1 << 20;
  std::string vt = fmt::format("<{} x float>", lanes);
  std::ostringstream ir;
  ir << "declare " << vt << " @llvm.fmuladd.v" << lanes << "f32(" << vt << ", " << vt << ", " << vt << ")\n"
     << "define float @tk_fma_peak(float %s) {\nentry:\n"
     << "  %x0 = insertelement " << vt << " undef, float %s, i32 0\n"
     << "  %x = shufflevector " << vt << " %x0, " << vt << " undef, <" << lanes << " x i32> zeroinitializer\n"
     << "  br label %loop\nloop:\n  %i = phi i64 [0, %entry], [%i1, %loop]\n";
  for (int c = 0; c < chains; ++c) ir << "  %a" << c << " = phi " << vt << " [%x, %entry], [%b" << c << ", %loop]\n";
  for (int c = 0; c < chains; ++c)
    ir << "  %b" << c << " = call " << vt << " @llvm.fmuladd.v" << lanes << "f32(" << vt << " %a" << c << ", " << vt
       << " %x, " << vt << " %x)\n";
  ir << "  %i1 = add i64 %i, 1\n  %d = icmp eq i64 %i1, " << iters << "\n  br i1 %d, label %exit, label %loop\n"
     << "exit:\n  %s0 = fadd " << vt << " %b0, %b1\n";
  for (int c = 2; c < chains; ++c) ir << "  %s" << c - 1 << " = fadd " << vt << " %s" << c - 2 << ", %b" << c << "\n";
  ir << "  %r = extractelement " << vt << " %s" << chains - 2 << ", i32 0\n  ret float %r\n}\n";
  auto ctx = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> m = llvm::parseIR(llvm::MemoryBufferRef(ir.str(), "peak"), err, *ctx);
  if (!m) throw InternalError("looptune jit: peak kernel IR: " + err.getMessage().str());
  initializeX86Backend();
  llvm::orc::JITTargetMachineBuilder jtmb((llvm::Triple(target.triple)));
  jtmb.setCPU(target.cpu);
  std::vector<std::string> feats;
  std::stringstream fs(target.features);
  for (std::string f; std::getline(fs, f, ',');)
    if (!f.empty()) feats.push_back(f);
  jtmb.addFeatures(feats);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create();
  if (!jit) fail("creating LLJIT", jit.takeError());
  if (llvm::Error e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    fail("adding the peak kernel", std::move(e));
  auto sym = (*jit)->lookup("tk_fma_peak");
  if (!sym) fail("looking up the peak kernel", sym.takeError());
  auto *fn = sym->toPtr<float (*)(float)>();
  fn(1.0f);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto t0 = Clock::now();
    volatile float sink = fn(0.5f);
    (void)sink;
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return 2.0 * lanes * chains * static_cast<double>(iters) / best / 1e9;
}

} // namespace tk::looptune
