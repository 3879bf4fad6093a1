#include "scheduler/DefaultSchedule.h"

#include "ir/IRRewrite.h"
#include "ir/IntArith.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"

#include <fmt/format.h>

#include <set>

namespace tk {
using namespace ir;

namespace {

// Fold leading output dimensions into the parallel mapping until this many
// tasks exist (when their extents are known): enough for the cores of a
// typical machine without splitting the vectorizable inner dimension.
// Measured (2 threads, medians of 41 calls, three runs): exp over
// f32[3, 2048, 256] as 3 tasks (a threshold of 2) took 0.41-0.65 ms, as
// 3 x 2048 (16 or 64) 0.31-0.34; over f32[17, 128, 256], 17 tasks (16)
// and 17 x 128 (64) both 0.11 ms.
constexpr int64_t kMinParallelTasks = 16;

// Wraps `body` in a repeat loop over vars[from, to) (nothing when empty).
MStmtPtr repeatOver(const std::vector<IndexVar> &vars, size_t from, size_t to, MStmtPtr body, SourceLoc loc) {
  if (from >= to) return body;
  std::vector<std::string> names;
  std::vector<Expr> dims;
  for (size_t i = from; i < to; ++i) {
    names.push_back(vars[i].name);
    dims.push_back(vars[i].extent);
  }
  return mMapFor(std::move(names), MappingAtom::Kind::Repeat, std::move(dims), std::nullopt, std::move(body), loc);
}

// Index variables of the statement become loop variables of the kernel.
std::vector<std::pair<std::string, Expr>> loopVars(const std::vector<IndexVar> &vars) {
  std::vector<std::pair<std::string, Expr>> map;
  for (const IndexVar &v : vars) map.push_back({v.name, var(v.name, VarKind::Loop, ScalarType::I64, v.loc)});
  return map;
}

// How many leading dimensions the parallel mapping takes.
size_t spatialDims(const std::vector<IndexVar> &vars, TargetFamily family) {
  size_t s = 1;
  if (family == TargetFamily::Sunway) return s;
  int64_t tasks = 1, e;
  while (s + 1 < vars.size()) {
    if (isConstInt(simplify(vars[s - 1].extent), &e)) {
      std::optional<int64_t> t = checkedMul(tasks, e); // overflowing: plenty of tasks
      if (!t || *t >= kMinParallelTasks) break;
      tasks = *t;
    } else if (s >= 2) {
      break;
    }
    // A run-time extent may be 1 (a batch of one image): a second leading
    // dimension (channels) keeps the cores busy; a third only adds tasks.
    // Measured on nchw_to_nhwc (2 threads, medians of 41 calls, three runs):
    // 8 x 64 x 56^2 took 0.51-0.60 ms over two dimensions, 0.65-0.97 over
    // one and 0.62-0.73 over three; 1 x 3 x 224^2 0.11-0.14, 0.08-0.09
    // (one task: a copy this small does not pay for waking a thread) and
    // 0.19-0.36.
    ++s;
  }
  return s;
}

MStmtPtr parallelOver(const std::vector<IndexVar> &vars, size_t s, TargetFamily family, MStmtPtr body,
                      SourceLoc loc) {
  std::vector<std::string> names;
  std::vector<Expr> dims;
  for (size_t i = 0; i < s; ++i) {
    names.push_back(vars[i].name);
    dims.push_back(vars[i].extent);
  }
  if (family == TargetFamily::Sunway) return cpeChunks(names, ceilDiv(dims[0], intImm(64)), std::move(body), loc);
  return mMapFor(std::move(names), MappingAtom::Kind::Spatial, std::move(dims), WorkerKind::Cores, std::move(body), loc);
}

// A name for a worker variable that no variable of the statement uses.
std::string freshName(const std::string &base, const Assign &a, const Op &op) {
  std::set<std::string> used(op.symbols.begin(), op.symbols.end());
  for (const Param &p : op.inputs) used.insert(p.name);
  for (const IndexVar &v : a.vars) used.insert(v.name);
  visitExpr(a.value, [&](const Expr &n) {
    if (n->kind == ExprKind::Var) used.insert(n->name);
    for (const IndexVar &v : n->rvars) used.insert(v.name);
  });
  std::string name = base;
  for (int i = 1; used.count(name); ++i) name = fmt::format("{}.{}", base, i);
  return name;
}

// CUDA: one thread per output element. The elements, flattened row-major,
// are spread over cdiv(total, 256) blocks of 256 threads; thread t of block
// b computes element e = b*256 + t, whose coordinates are the mixed-radix
// digits of e. Elements past the end have a first coordinate out of range,
// so PredicateAccesses drops their stores. Reductions stay in the value:
// each thread accumulates in registers (LowerReductions), which is what a
// GPU wants (no read-modify-write of global memory per reduction step). A
// rank-0 target is one element: one block of one thread.
//
// 256 threads per block, measured on an H200 (2026-11-28; a tkc built with
// 64, 128, 256, 512 and 1024, 19 default-schedule ops of std/elementwise,
// nn and linalg, medians of 15 calls, three alternating rounds that agreed
// within 1%): 256 has the least geometric-mean time (64: 1.25x, 128: 1.06x,
// 512: 1.07x, 1024: 1.13x). Streaming ops decide it: add, relu, gelu and
// bias_add on 64 Mi floats take 1.23-1.48x as long at 128 threads and
// 1.08-1.11x at 512. Compute-bound ones differ by a few percent below 512
// (res2 3x3 conv2d 2.93 ms at 128, 2.97 at 256), and only the default 2048^3
// matmul prefers 1024 (3.10 against 3.49 ms); bmm takes 2.5x as long at 1024.
constexpr int64_t kGpuBlockThreads = 256;

MStmtPtr scheduleAssignGpu(const Assign &a, const Op &op) {
  size_t rank = a.vars.size();
  int64_t threads = rank == 0 ? 1 : kGpuBlockThreads;
  std::string blk = freshName("blk", a, op), thr = freshName("thr", a, op);
  Expr e = add(mul(var(blk, VarKind::Loop), intImm(threads)), var(thr, VarKind::Loop));
  std::vector<Expr> idx(rank);
  Expr stride = intImm(1);
  for (size_t k = rank; k-- > 0;) {
    Expr q = floorDiv(e, stride);
    idx[k] = k == 0 ? q : floorMod(q, a.vars[k].extent);
    stride = mul(stride, a.vars[k].extent);
  }
  std::vector<std::pair<std::string, Expr>> vmap;
  for (size_t k = 0; k < rank; ++k) vmap.push_back({a.vars[k].name, simplify(idx[k])});
  for (Expr &i : idx) i = simplify(i);
  MStmtPtr st = mStore(a.target, idx, substitute(a.value, vmap), AccumOp::None, a.loc);
  MStmtPtr inner = mMapFor({thr}, MappingAtom::Kind::Spatial, {intImm(threads)}, WorkerKind::Threads, st, a.loc);
  return mMapFor({blk}, MappingAtom::Kind::Spatial, {simplify(ceilDiv(stride, intImm(threads)))}, WorkerKind::Blocks,
                inner, a.loc);
}

MStmtPtr scheduleAssign(const Assign &a, TargetFamily family) {
  auto vmap = loopVars(a.vars);
  std::vector<Expr> idx;
  for (const auto &entry : vmap) idx.push_back(entry.second);
  Expr value = substitute(a.value, vmap);
  size_t rank = a.vars.size();
  if (rank == 0) return mStore(a.target, {}, value, AccumOp::None, a.loc);
  size_t s = spatialDims(a.vars, family);

  Expr red = soleReduction(value, a.target->dtype);
  bool accumulating = red && s < rank && !readsTensor(value, a.target.get());
  if (!accumulating) {
    MStmtPtr st = mStore(a.target, idx, value, AccumOp::None, a.loc);
    return parallelOver(a.vars, s, family, repeatOver(a.vars, s, rank, st, a.loc), a.loc);
  }

  // For each row of the outer output dims: T[row] = identity, then for the
  // reduction vars, innermost output dim: T[row] op= body, then, when the
  // value is f(reduction) (avgpool's sum / k^2), T[row] = f(T[row]) while
  // the row is in cache. Setting each row right before its reduction lets
  // the x86 register tile start from the identity instead of reading the
  // row back (tileStart).
  const std::vector<IndexVar> &rvars = red->rvars;
  Expr body = substitute(red->args[0], loopVars(rvars));
  Expr zero = reductionIdentity(red->reduceOp, a.target->dtype);
  MStmtPtr init = repeatOver(a.vars, rank - 1, rank, mStore(a.target, idx, zero, AccumOp::None, a.loc), a.loc);
  MStmtPtr update = mStore(a.target, idx, body, accumFor(red->reduceOp), a.loc);
  update = repeatOver(a.vars, rank - 1, rank, update, a.loc);
  update = repeatOver(rvars, 0, rvars.size(), update, red->loc.valid() ? red->loc : a.loc);
  std::vector<MStmtPtr> row{init, update};
  if (red != value) {
    Expr reduced = load(a.target, idx);
    Expr post = transformExpr(value, [&](const Expr &n) { return n == red ? reduced : n; });
    row.push_back(repeatOver(a.vars, rank - 1, rank, mStore(a.target, idx, post, AccumOp::None, a.loc), a.loc));
  }
  MStmtPtr task = repeatOver(a.vars, s, rank - 1, mBlock(row, a.loc), a.loc);
  return parallelOver(a.vars, s, family, task, a.loc);
}

} // namespace

MStmtPtr cpeChunks(std::vector<std::string> vars, Expr perCpe, MStmtPtr body, SourceLoc loc) {
  auto m = mMapFor(std::move(vars), MappingAtom::Kind::Spatial, {intImm(64)}, WorkerKind::Cpes, std::move(body), loc);
  MappingAtom chunk;
  chunk.kind = MappingAtom::Kind::Repeat;
  chunk.dims = {std::move(perCpe)};
  chunk.loc = loc;
  m->mapping.atoms.push_back(std::move(chunk));
  return m;
}

MStmtPtr defaultStatement(const Assign &a, const Op &op, const TargetDesc &target) {
  return target.family == TargetFamily::Cuda ? scheduleAssignGpu(a, op) : scheduleAssign(a, target.family);
}

KernelPtr defaultSchedule(const OpPtr &op, const TargetDesc &target) {
  std::vector<MStmtPtr> stmts;
  for (const TensorPtr &t : op->intermediates) stmts.push_back(mAlloc(t, t->loc));
  for (const Assign &a : op->body) stmts.push_back(defaultStatement(a, *op, target));
  return synthesizedKernel(op, target.family, mBlock(std::move(stmts), op->loc));
}

} // namespace tk
