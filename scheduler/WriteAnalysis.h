// Which elements of the op's outputs a kernel's stores write, decided
// exactly over integer sets (isl, through Presburger.h), and the questions
// CheckTaskMappings asks about them:
//   - conflicts: can two workers (different values of a spatial factor of a
//     mapping `on` some worker kind, in the same instance of that mapping)
//     store the same element? For a plain `=` store, can one worker store
//     one element in two iterations?
//   - coverage: is every element of every output written, for every
//     parameter value the context allows?
//   - extents: can a task-mapping extent be negative?
//   - read-write races (user kernels): can a worker read an element of an
//     output or shared `global` local that another worker of the same
//     mapping writes, with no top-level `sync` of that mapping between them?
// A store is a map from its iteration space (one dimension per enclosing
// mapping factor and dimension, one per loop) to elements, restricted to the
// output's box (stores outside it are predicated off, docs/architecture.md).
// What isl cannot represent — non-affine or indirect indices, conditions
// that read data, non-affine extents — is bounded from below (for coverage:
// nothing proven written) and above (for conflicts: any element), and a
// question that then has no exact answer becomes a warning saying why.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/MappingIR.h"
#include "scheduler/Presburger.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk {

// One enclosing iteration dimension `@k`: a factor of a task mapping (for
// one mapping variable) or an ordinary loop, ranging over [0, extent).
struct IterDim {
  ir::Expr extent;          // over parameters and outer dimensions
  std::string extentText;   // as the user wrote it
  bool parallel = false;    // a spatial factor bound to a worker kind
  const ir::MStmt *loop = nullptr; // the mapping or loop it belongs to
  std::string userVar;      // the mapping / loop variable it contributes to
  ir::Expr userValue;       // that variable's value over the dimensions
  std::string site;         // "spatial(4, 8) on threads, at 3:5"
};

// The enclosing `if`s of a store: conditions over parameters and dimensions
// that hold where it runs (negated in an `else`), with the user's text.
struct Guard {
  ir::Expr cond;
  std::string text;
  const ir::MStmt *at = nullptr; // the `if`
  bool inElse = false;
  size_t depth = 0;              // iteration dimensions around the `if`
};

// Where an access runs relative to the top-level `sync`s of an enclosing
// worker mapping: the statements of its body between two of them form one
// phase; accesses in different phases are ordered (docs/language.md, sync).
struct Phase {
  const ir::MStmt *mapping = nullptr;
  size_t index = 0;
  bool synced = false; // the body has a `sync`: its repeat tasks are ordered too
};

// A store to (or, with `read`, a load of) one element of a tensor.
struct StoreAccess {
  const ir::TensorDecl *tensor = nullptr; // an op output, or a shared `global` local (reads)
  SourceLoc loc;
  std::vector<ir::Expr> source;     // the indices as written, for messages
  ir::AccumOp accum = ir::AccumOp::None;
  bool read = false;
  std::vector<IterDim> iters;       // outermost first
  std::vector<ir::Expr> index;      // over parameters and dimensions
  std::vector<Guard> guards;
  std::vector<Phase> phases;        // one per enclosing worker mapping
  size_t allocDepth = 0;            // a local: the dimensions around its allocation,
                                    // whose workers each have their own copy
};

struct WriteFinding {
  Severity severity;
  SourceLoc loc;
  std::string message;
};

// The name the user wrote for kernel variable `v`, for messages: Sema
// renames a second variable of the same name apart (`t` -> `t.1`).
std::string sourceVarName(const std::string &v);

class WriteAnalysis {
public:
  // `quiet`: report errors only (kernels the scheduler wrote itself).
  WriteAnalysis(const ir::Kernel &k, bool quiet);

  void add(StoreAccess a);
  // Conflicts between workers and overwrites of plain `=` stores.
  void checkConflicts(std::vector<WriteFinding> &out);
  // Reads of an element that a concurrent worker of the same phase writes.
  void checkRaces(std::vector<WriteFinding> &out);
  // Worker `mapping` has a `sync` below the top level of its body (inside a
  // loop, an `if` or an inner mapping): an order races do not model.
  void nestedSync(const ir::MStmt *mapping) { nestedSync_.insert(mapping); }
  // Whether a `sync` in a mapping on `w` orders its workers (a barrier among
  // cores, threads of a block or cpes; not among blocks or lanes).
  static bool syncOrders(ir::WorkerKind w);
  // Elements of each output that no store writes.
  void checkCoverage(std::vector<WriteFinding> &out);
  // A mapping extent that can be negative for some iteration of the
  // enclosing dimensions `outer` (under `guards`) the context allows.
  void checkExtent(const std::vector<IterDim> &outer, const std::vector<Guard> &guards, const ir::Expr &extent,
                   const std::string &text, SourceLoc loc, std::vector<WriteFinding> &out);

private:
  struct Access {
    StoreAccess a;
    isl::Map under, over; // iteration -> element, inside the box
    std::string why;      // why under != over ("" when exact)
    // The one guard whose condition is not affine when the rest is exact:
    // then `over` is exact but for that condition.
    std::optional<size_t> branch; // in a.guards
    const Guard *branchGuard() const { return branch ? &a.guards[*branch] : nullptr; }
    // What conflicts depend on: the dimensions up to the last worker mapping
    // (all of its factors), with the inner ones projected out.
    size_t depth = 0;
    isl::Map workerUnder, workerOver;
  };
  struct Domain {
    isl::Set under, over;
    std::string why;
    std::vector<size_t> inexactGuards;
    bool inexactExtent = false;
  };
  isl::Set eitherBranch(const std::vector<const Access *> &stores); // null: none
  Domain domain(const std::vector<IterDim> &iters, const std::vector<Guard> &guards);
  isl::Set box(const ir::TensorDecl &t);
  void conflict(const Access &a, const Access &b, std::vector<WriteFinding> &out);
  // { x1 -> x2 } for iterations of a and b (cut to their worker depth) that
  // run at the same time on different workers; `dims` gets the parallel
  // dimensions they may differ in (none: never). `phases`: iterations in
  // different phases of a mapping (between its `sync`s) are ordered.
  isl::Map concurrent(const Access &a, const Access &b, bool phases, std::vector<size_t> &dims);
  // { [x1 -> x2] -> element } for concurrent x1 (of x) and x2 (of y).
  isl::Map pairs(const isl::Map &x, const isl::Map &y, const isl::Map &concurrent) const;
  bool race(const Access &read, const Access &write, std::vector<WriteFinding> &out);
  void overwrite(const Access &a, std::vector<WriteFinding> &out);
  std::string element(const Access &a, const PointValues &v) const;
  void report(std::vector<WriteFinding> &out, bool proven, SourceLoc loc, std::string error,
              std::string warning);
  // Why a question with an exact formulation stayed open (`none`: isl's
  // answer to "is the counterexample set empty?").
  std::string undecided(isl_bool none) const;

  const ir::Kernel &k_;
  bool quiet_;
  Presburger pb_;
  std::vector<Access> accesses_;   // stores to op outputs
  std::vector<Access> localStores_; // to `global` locals (for races only)
  std::vector<Access> reads_;
  std::set<std::string> noConflict_; // pairs of worker maps proven disjoint
  std::set<const ir::MStmt *> nestedSync_;
};

} // namespace tk
