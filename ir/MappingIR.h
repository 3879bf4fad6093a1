// Mapping IR: how a kernel computes its op. Statements are task-mapping
// loops (Hidet's spatial/repeat compositions bound to a worker kind),
// ordinary loops, local tensors, stores and barriers. Kernels written by the
// user and the default schedule of an op both live here.
#pragma once
#include "ir/TensorIR.h"

#include <optional>

namespace tk::ir {

struct MappingAtom {
  enum class Kind { Spatial, Repeat } kind = Kind::Spatial;
  std::vector<Expr> dims; // task shape of this factor
  std::vector<int> perm;  // rank permutation (order of dims from slowest to
                          // fastest); empty = row-major (0, 1, ..., m-1)
  SourceLoc loc;
};

// f1 * f2 * ... (composition is associative, not commutative).
struct TaskMapping {
  std::vector<MappingAtom> atoms;
  size_t rank() const { return atoms.empty() ? 0 : atoms.front().dims.size(); }
  Expr numWorkers() const;           // product of spatial dims
  std::vector<Expr> taskShape() const; // element-wise product of all dims
};
std::string printMapping(const TaskMapping &m);

enum class AccumOp { None, Add, Mul, Max, Min }; // =, +=, *=, max=, min=

// GPU statements of cuda kernels (docs/gpu.md). Warp-collective:
//   mma(d, a, b)          d += a * b, one m16n8k16 tile, f16/bf16 in, f32 out
//   ldmatrix(f, S[r, c])  f = the 16x16 (8-element f) or n-major 8x16
//                         (4-element f) b16 tile of shared S at (r, c)
//   ldmatrix_trans(f, S[k, n]) f = the B fragment of the k-major 16x8 tile
// Per thread:
//   cp_async(S[..], G[..], n)  S[.., c + e] = G[.., j + e] for e < n, async
//   cp_async_commit()          closes the group of this thread's copies
//   cp_async_wait(n)           waits until at most n groups are pending
//   atomic_add(T[..], v)       T[..] += v as one atomic read-modify-write
//                              (T global or shared, f32 or i32)
// Each tensor operand is a Load naming the first element it covers (a
// fragment is the last dimension of a register tensor: indices ..., 0);
// counts are integer constants; atomic_add's second operand is any value
// expression (converted to T's dtype).
enum class GpuIntrinsic { Mma, LdMatrix, LdMatrixTrans, CpAsync, CpAsyncCommit, CpAsyncWait, AtomicAdd };
std::string_view gpuIntrinsicName(GpuIntrinsic g);

struct MStmt;
using MStmtPtr = std::shared_ptr<MStmt>;

struct MStmt {
  enum class Kind { Block, MapFor, SeqFor, Alloc, Store, Sync, If, Intrinsic, Prefetch } kind;
  SourceLoc loc;

  std::vector<MStmtPtr> stmts; // Block

  // MapFor: for (vars...) in mapping [on worker] body
  std::vector<std::string> vars;
  TaskMapping mapping;
  std::optional<WorkerKind> worker; // none: executed by the current worker
  // SeqFor: for var in begin..end body
  std::string var;
  Expr begin, end;
  MStmtPtr body; // MapFor / SeqFor

  TensorPtr tensor; // Alloc (local tensor, scope in decl), Store target, Prefetch

  std::vector<Expr> indices; // Store, Prefetch (as LStmt::Kind::Prefetch)
  Expr value;                // Store
  AccumOp accum = AccumOp::None;
  bool stream = false;       // Store: as LStmt::stream

  Expr cond;                 // If
  MStmtPtr thenS, elseS;     // If (elseS may be null)

  GpuIntrinsic intrinsic = GpuIntrinsic::Mma; // Intrinsic
  std::vector<Expr> operands;                 // Intrinsic: Loads, see GpuIntrinsic
};

// An empty statement of `kind` at `loc`, for passes to fill in.
MStmtPtr mStmt(MStmt::Kind kind, SourceLoc loc = {});
MStmtPtr mBlock(std::vector<MStmtPtr> stmts, SourceLoc loc = {});
// for (vars...) in KIND(dims...) [on worker] { body } — a single-factor mapping loop.
MStmtPtr mMapFor(std::vector<std::string> vars, MappingAtom::Kind kind, std::vector<Expr> dims,
                 std::optional<WorkerKind> worker, MStmtPtr body, SourceLoc loc = {});
// t[idx...] (accum)= value
MStmtPtr mStore(TensorPtr t, std::vector<Expr> idx, Expr value, AccumOp accum, SourceLoc loc = {});
// prefetch t[idx...]: a hint that the element is read soon (LStmt's Prefetch)
MStmtPtr mPrefetch(TensorPtr t, std::vector<Expr> idx, SourceLoc loc = {});
// for var in 0..end { body }
MStmtPtr mSeqFor(std::string var, Expr end, MStmtPtr body, SourceLoc loc = {});
// if (cond) { thenS } else { elseS } (elseS may be null)
MStmtPtr mIf(Expr cond, MStmtPtr thenS, MStmtPtr elseS, SourceLoc loc = {});
// A scratch buffer the scheduler introduces (role Local) of `scope`, and the
// statement allocating it (visible until the end of the enclosing block).
TensorPtr scratchTensor(std::string name, ScalarType dtype, std::vector<Expr> shape, Scope scope, SourceLoc loc = {});
MStmtPtr mAlloc(TensorPtr t, SourceLoc loc = {});

struct Hole {
  int id = -1;
  std::vector<int64_t> candidates; // empty = any positive value
  SourceLoc loc;
  std::optional<int64_t> value;    // set by the construction optimizer or --hole
};

struct Kernel {
  std::string name;
  OpPtr op;
  TargetFamily target = TargetFamily::Cpu;
  std::vector<Constraint> requires_; // `require` clauses (may mention holes)
  std::vector<Hole> holes;
  MStmtPtr body;
  SourceLoc loc;
  bool synthesized = false; // produced by the default scheduler, not the user
};
using KernelPtr = std::shared_ptr<Kernel>;

// A kernel the scheduler made for `op` (default schedule or constructor):
// named after the op, at the op's location, no holes or `require`s.
KernelPtr synthesizedKernel(const OpPtr &op, TargetFamily target, MStmtPtr body);

// Text form of the mapping IR (golden-tested): `--emit=mapping`.
std::string printKernel(const Kernel &k);

// The kernel as `.tk` source (`--emit=kernel`): `kernel NAME implements OP
// on TARGET { require ..; body }`, holes as their values (a checked kernel
// has them filled), loop variables the frontend made unique (`i.1`) spelt
// as identifiers (`i_1`, or with more underscores where that is taken).
std::string printKernelSource(const Kernel &k, const std::string &name);

} // namespace tk::ir
