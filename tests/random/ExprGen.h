// Random, well-typed right-hand sides for op statements (docs/language.md
// §3). Every value carries its type (C-like promotion, weak literals) and a
// worst-case value range, so the generator never writes integer overflow,
// integer division by zero, a float that overflows its type, a NaN from a
// math function's domain, or a comparison / float-to-integer conversion of
// a value that rounding could move across the decision: the compiled code
// and the double-precision reference must agree up to tk_difftest's
// tolerance on every program it writes.
#pragma once
#include "tests/random/Ast.h"
#include "tests/random/Types.h"

#include <map>
#include <optional>
#include <set>

namespace tk::randprog {

// A tensor the statement may read: an input, or an intermediate or output
// that an earlier statement assigned.
struct TensorInfo {
  std::string name;
  Ty type;
  std::vector<Extent> shape;
  long double lo = 0, hi = 0; // range of its elements
  bool exact = true;          // elements are computed without rounding error
};

struct ScalarInfo {
  std::string name;
  Ty type;
  long double lo, hi;
};

// An index variable in scope: a left-hand variable of the statement or a
// reduction variable of an enclosing reduction.
struct VarInfo {
  std::string name;
  Extent extent;
  bool anchored = false; // used alone as an index of a read without `else` (its range is inferred)
};

struct Val {
  NodePtr node;
  Ty type = Ty::F32;
  bool weak = false;  // a literal: takes the other operand's type
  bool exact = true;  // the same bits in the compiled code and the reference
  long double lo = 0, hi = 0;
};

enum class Want { Float, Int, Bool };

// A contraction to put at the top of the right-hand side:
// sum(k) A[.., k, ..] * B[.., k, ..] over dimension dimA of readable tensor
// a and dimB of b (the shape of matmul, bmm, gemv, which tkc schedules
// with its constructed kernels, docs/construct.md).
struct Contraction {
  size_t a, dimA, b, dimB;
};

struct ExprOptions {
  bool kernelMode = false; // at most one reduction, at the top, none nested (see KernelGen)
  int maxDepth = 3;
  std::optional<Contraction> contraction;
};

class ExprGen {
public:
  ExprGen(Rng &rng, std::vector<TensorInfo> readable, std::vector<ScalarInfo> scalars,
          std::vector<Extent> symbols, ExprOptions opts);

  // The right-hand side of a statement whose left-hand variables are `lhs`.
  // Afterwards lhs()[i].anchored says whether a read fixes its range.
  Val generate(Want want, std::vector<VarInfo> lhs);
  const std::vector<VarInfo> &lhs() const { return lhsResult_; }
  // Symbols that index two nested loops of the statement: the op bounds
  // them (`where S <= 150`) to keep the reference interpreter fast.
  const std::set<std::string> &squaredSymbols() const { return squared_; }
  // Kernel mode: the statement's reduction, or null.
  NodePtr reduction() const { return slotReduce_; }

  // Helpers shared with the kernel generator.
  static bool fits(const Val &v, Ty t);

private:
  Val gen(Want want, int depth);
  Val genFloat(int depth);
  Val genInt(int depth);
  Val genBool(int depth);
  Val genExact(bool wantFloat, int depth);
  Val floatLeaf();
  Val intLeaf();
  Val literalFloat(Ty like);
  Val literalInt(Ty like);
  Val extremeInt(const Val &a);
  std::optional<Val> arith(const std::string &op, const Val &a, const Val &b);
  Val mathCall(const Val &a);
  Val tame(Val v, Ty storeAs);
  Val castTo(Ty t, const Val &a);
  Val selectOf(const Val &a, const Val &b);

  // Reads and reductions (ExprGenReads.cpp).
  std::optional<Val> read(Want want);
  // Reads `t`; `forced` binds dimensions to (variable, shift): shift 0 is a
  // plain index, otherwise `v - shift` (a window reaching before 0).
  Val readTensor(const TensorInfo &t, const std::map<size_t, std::pair<size_t, int>> &forced);
  NodePtr index(const Extent &dim);
  std::string elseValue(const TensorInfo &t, long double &lo, long double &hi);
  std::optional<Val> reduce(Want want, int depth, const Contraction *c = nullptr);
  bool pushVar(VarInfo v);
  void popVar();
  std::vector<const TensorInfo *> tensorsFor(Want want, bool needRank) const;

  Rng &rng_;
  std::vector<TensorInfo> readable_;
  std::vector<ScalarInfo> scalars_;
  std::vector<Extent> symbols_;
  ExprOptions opts_;
  std::vector<VarInfo> vars_;
  std::vector<VarInfo> lhsResult_;
  std::map<std::string, int> symUses_; // symbols in the loop nest of the current point
  std::set<std::string> squared_;
  int reduceDepth_ = 0;
  int reduceCounter_ = 0;
  NodePtr slotReduce_;
};

} // namespace tk::randprog
