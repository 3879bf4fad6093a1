// Loop IR: explicit loops, buffers with scopes, predicated loads/stores and
// run-time checks. Task mappings are gone (lowered to loops over worker ids
// and index arithmetic). Backends translate this level to machine code.
#pragma once
#include "ir/MappingIR.h"

namespace tk::ir {

enum class ForKind {
  Serial,
  Parallel,   // iterations run on distinct workers (`worker` says which)
  Vectorized, // iterations map to SIMD lanes
  Unrolled
};

struct LStmt;
using LStmtPtr = std::shared_ptr<LStmt>;

struct LStmt {
  enum class Kind { Block, For, Store, Alloc, If, Let, Check, Barrier, Intrinsic, Prefetch, Dma, DmaWait } kind;
  SourceLoc loc;

  std::vector<LStmtPtr> stmts; // Block

  std::string var;  // For loop variable, Let variable
  Expr min, extent; // For: var in [min, min + extent)
  ForKind forKind = ForKind::Serial;
  std::optional<WorkerKind> worker; // For with ForKind::Parallel
  LStmtPtr body;    // For, Alloc, Let

  // Prefetch: tensor[indices] will be read soon; a hint that changes no
  // value (x86: its cache line is fetched into L2). The indices may fall
  // outside the tensor: the address is fetched, never dereferenced, and a
  // prefetch does not fault.
  TensorPtr tensor;          // Store target, Alloc buffer, Prefetch
  std::vector<Expr> indices; // Store, Prefetch
  Expr value;                // Store value, Let value; Dma: element offset into `buffer` (null: 0)
  Expr pred;                 // Store guard (null = unconditional)
  // Store: the kernel never reads these elements again and they are too
  // many to stay in the cores' private caches, so the backend may write
  // them around the caches (x86: non-temporal stores). A hint only.
  bool stream = false;

  Expr cond;             // If, Check
  LStmtPtr thenS, elseS; // If
  int errorCode = 0;     // Check: returned from the function when !cond
  std::string message;   // Check: what failed (for docs and printing)
  // A Check whose `tensor` is set is a write check of `tkc --check-mappings`
  // (scheduler/cpu/InstrumentMappingChecks.h): `tensor` holds the record of
  // who wrote output `var`, and the runtime's report decides (`cond` is
  // unused).

  GpuIntrinsic intrinsic = GpuIntrinsic::Mma; // Intrinsic (as in mapping IR)
  std::vector<Expr> operands;                 // Intrinsic; Dma: the box's extents

  // Dma (Sunway, scheduler/sunway/StageThroughLdm.h): copies the box of
  // main-memory `tensor` that starts at `indices` and has extents
  // `operands` (one per dimension, each >= 0; a box may be empty) into
  // (get) or out of (put) the LDM tensor `buffer`, which holds the box
  // packed row-major from element `value` (null: 0). The transfer is
  // complete when the statement ends, unless `async`: then it is only
  // issued, and complete after the next DmaWait of `buffer` (a get issued
  // while the code computes on other data: double buffering).
  // DmaWait: waits for every async transfer issued into `buffer`.
  // A `broadcast` get is issued by CPE 0 alone and lands in `buffer` of all
  // 64 CPEs (BCAST_MODE); the code around it orders it with barriers
  // (scheduler/sunway/LdmRewrite.h). With `rowBroadcast` too, it is issued
  // by one CPE of each row of the 8 x 8 array and lands in the CPEs of the
  // issuer's row only (BCAST_MODE, mask 1 << row).
  TensorPtr buffer;
  bool put = false;
  bool async = false;
  bool broadcast = false;
  bool rowBroadcast = false;
};

LStmtPtr lBlock(std::vector<LStmtPtr> stmts, SourceLoc loc = {});
// alloc t { body }: t is visible in body only.
LStmtPtr lAlloc(TensorPtr t, LStmtPtr body, SourceLoc loc = {});
// for var in [min, min + extent) { body }, of `kind` (a parallel loop's
// worker is left unset).
LStmtPtr lFor(std::string var, Expr min, Expr extent, LStmtPtr body, SourceLoc loc = {},
              ForKind kind = ForKind::Serial);
// if (cond) { thenS } else { elseS } (elseS may be null)
LStmtPtr lIf(Expr cond, LStmtPtr thenS, LStmtPtr elseS, SourceLoc loc = {});
// An empty statement of `kind` at `loc`, for passes to fill in.
LStmtPtr lStmt(LStmt::Kind kind, SourceLoc loc = {});
// dma_get / dma_put: the box of `mem` at `origin` with `extents` to / from
// LDM `buffer` (see LStmt::Kind::Dma).
LStmtPtr lDma(bool put, TensorPtr mem, std::vector<Expr> origin, std::vector<Expr> extents, TensorPtr buffer,
              SourceLoc loc = {});
// `s` with blocks of a single statement unwrapped (null stays null): the
// one statement a loop body holds, for matchers of perfect nests.
const LStmt *soleStmt(const LStmt *s);

// dma_wait buffer: the async transfers into `buffer` are complete.
LStmtPtr lDmaWait(TensorPtr buffer, SourceLoc loc = {});
// One exported C function.
struct LoweredFunc {
  std::string name;                // exported symbol
  OpPtr op;                        // signature: inputs, outputs, symbols
  TargetFamily target = TargetFamily::Cpu;
  LStmtPtr body;
  SourceLoc loc;
};

// Text form of the loop IR (golden-tested): `--emit=loop`.
std::string printLoweredFunc(const LoweredFunc &f);

} // namespace tk::ir
