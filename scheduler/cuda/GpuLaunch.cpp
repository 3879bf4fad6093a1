#include "scheduler/cuda/GpuLaunch.h"

#include "ir/IRRewrite.h"
#include "ir/IRVisitor.h"
#include "ir/IntArith.h"

#include <algorithm>
#include <limits>

namespace tk::ir {

namespace {

// Launch sizes come from constants and filled holes, which may be anything
// up to 2^63 - 1: they saturate at INT64_MAX instead of wrapping (32 x 2^59
// warps wrapped to 0 threads and passed the 1024 limit), so a size too
// large to count still exceeds every limit FormKernelLaunches checks.
constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();
int64_t satMul(int64_t a, int64_t b) { return checkedMul(a, b).value_or(kSaturated); }
int64_t satAdd(int64_t a, int64_t b) { return checkedAdd(a, b).value_or(kSaturated); }
// v (>= 0) rounded up to a multiple of m, in units of m.
int64_t unitsOf(int64_t v, int64_t m) { return v / m + (v % m != 0); }

// Bytes of tensor `t` when its shape is constant; a symbolic extent counts
// as 0 and clears `*constant` (FormKernelLaunches refuses such tensors).
int64_t constantBytes(const TensorDecl &t, bool *constant) {
  int64_t bytes = scalarTypeBytes(t.dtype), n = 0;
  for (const Expr &d : t.shape) {
    bool known = isConstInt(d, &n);
    if (!known && constant) *constant = false;
    if (!known || n <= 0) bytes = 0;
    else if (bytes != 0) bytes = satMul(bytes, n); // a later 0 extent still makes it empty
  }
  return bytes;
}

// 32-bit words of the `register` tensors live together somewhere in a
// tree: an allocation is live in its body; statements of a block, and the
// two branches of an `if`, do not overlap. The peak over every path of the
// words allocated along it.
class PeakRegisterWords : public LoopVisitor {
public:
  int64_t peak = 0;
  void walkExpr(const Expr &) override {}

protected:
  void enterScope(const LStmt &s) override {
    if (s.kind != LStmt::Kind::Alloc) return;
    live_.push_back(live_.back());
    if (s.tensor->scope == Scope::Register)
      live_.back() = satAdd(live_.back(), unitsOf(constantBytes(*s.tensor, nullptr), 4));
    peak = std::max(peak, live_.back());
  }
  void leaveScope(const LStmt &s) override {
    if (s.kind == LStmt::Kind::Alloc) live_.pop_back();
  }

private:
  std::vector<int64_t> live_{0}; // words allocated around the current node, innermost last
};

} // namespace

LaunchShape launchShape(const LStmtPtr &body) {
  LaunchShape shape;
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::For && s.forKind == ForKind::Parallel &&
        (s.worker == WorkerKind::Threads || s.worker == WorkerKind::Warps)) {
      int64_t n = 0;
      if (!isConstInt(s.extent, &n)) shape.constant = false;
      shape.threads = std::max(shape.threads, s.worker == WorkerKind::Warps ? satMul(32, n) : n);
    }
    if (s.kind == LStmt::Kind::Alloc && s.tensor->scope == Scope::Shared) // each 16-byte aligned
      shape.sharedBytes =
          satAdd(shape.sharedBytes, satMul(unitsOf(constantBytes(*s.tensor, &shape.constant), 16), 16));
  });
  PeakRegisterWords registers;
  registers.walkStmt(body);
  shape.registerWords = registers.peak;
  return shape;
}

} // namespace tk::ir
