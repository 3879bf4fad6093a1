// Expr: the immutable expression tree shared by the tensor, mapping and loop
// IRs. One node type with a kind tag keeps mutators, printers and the
// interpreter small; nodes are shared (shared_ptr<const ExprNode>) and never
// modified after construction, so rewriting passes rebuild only what changes.
#pragma once
#include "ir/SourceLoc.h"
#include "ir/Type.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tk::ir {

struct TensorDecl;
using TensorPtr = std::shared_ptr<TensorDecl>;
struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

enum class ExprKind {
  IntImm, FloatImm, BoolImm,
  Var,    // symbol, scalar parameter, index variable, loop/worker variable
  Hole,   // `?` tile-size hole, filled before lowering
  Unary, Binary, Select, Call, Cast,
  Load,   // tensor element read
  Reduce, // sum/max/min/prod over index variables
  Shuffle // warp shuffle of a cuda kernel: args {value, lane operand}
};

enum class VarKind {
  Symbol, // shape symbol or scalar parameter of an op (run-time value)
  Index,  // index variable of an op statement or reduction
  Loop    // loop / task-mapping variable in a kernel or loop nest
};

enum class UnOp { Neg, Not };
// Integer Div and Mod round toward negative infinity (floor semantics), so
// index arithmetic like (h*s + r - p) / s behaves the same for negative values.
enum class BinOp {
  Add, Sub, Mul, Div, Mod, CDiv, Min, Max, Pow,
  EQ, NE, LT, LE, GT, GE, And, Or
};
enum class MathFn { Exp, Log, Sqrt, Rsqrt, Tanh, Erf, Abs };
enum class ReduceOp { Sum, Max, Min, Prod };
// Warp shuffles (docs/gpu.md): lane l reads `value` from lane
// Xor: l ^ m, Down: l + d, Up: l - d, Idx: s (its own value when that lane
// is outside the warp). Only cuda kernels contain them, never an op.
enum class ShuffleOp { Xor, Down, Up, Idx };

std::string_view binOpSymbol(BinOp op); // "+", "min", ...
std::string_view mathFnName(MathFn f);
std::string_view reduceOpName(ReduceOp r);
std::string_view shuffleOpName(ShuffleOp s); // "shfl_xor", ...
bool isComparison(BinOp op);
bool isLogical(BinOp op);

// An index variable with its half-open range [0, extent).
struct IndexVar {
  std::string name;
  Expr extent;
  SourceLoc loc;
};

struct ExprNode {
  ExprKind kind;
  ScalarType type = ScalarType::I64;
  SourceLoc loc;

  int64_t intValue = 0;     // IntImm, BoolImm (0/1)
  double floatValue = 0;    // FloatImm
  std::string name;         // Var
  VarKind varKind = VarKind::Symbol;
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  MathFn fn = MathFn::Exp;
  ReduceOp reduceOp = ReduceOp::Sum;
  ShuffleOp shuffleOp = ShuffleOp::Xor;

  // Unary/Cast/Call: {x}; Binary: {a, b}; Select: {cond, a, b};
  // Load: indices; Reduce: {body}; Shuffle: {value, lane mask / delta / source lane}.
  std::vector<Expr> args;

  TensorPtr tensor;          // Load
  Expr pad;                  // Load: value read outside the tensor; null = access must be in range
  Expr pred;                 // Load: explicit guard added by the scheduler; null = none
  std::vector<IndexVar> rvars; // Reduce

  int holeId = -1;                 // Hole
  std::vector<int64_t> candidates; // Hole: allowed values, empty = any
};

// ---- constructors (types are computed; `loc` is optional everywhere) ----
Expr intImm(int64_t v, ScalarType t = ScalarType::I64, SourceLoc loc = {});
Expr floatImm(double v, ScalarType t = ScalarType::F32, SourceLoc loc = {});
Expr boolImm(bool v, SourceLoc loc = {});
Expr var(std::string name, VarKind k, ScalarType t = ScalarType::I64, SourceLoc loc = {});
Expr hole(int id, std::vector<int64_t> candidates, SourceLoc loc = {});
Expr unary(UnOp op, Expr x, SourceLoc loc = {});
Expr binary(BinOp op, Expr a, Expr b, SourceLoc loc = {});
// `a && b` where either may be null (no condition): the other one, or null.
Expr conjoin(Expr a, Expr b);
Expr select(Expr c, Expr a, Expr b, SourceLoc loc = {});
Expr call(MathFn f, Expr x, SourceLoc loc = {});
Expr cast(ScalarType t, Expr x, SourceLoc loc = {});
Expr load(TensorPtr t, std::vector<Expr> indices, Expr pad = nullptr, Expr pred = nullptr,
          SourceLoc loc = {});
Expr reduce(ReduceOp op, std::vector<IndexVar> vars, Expr body, SourceLoc loc = {});
Expr shuffle(ShuffleOp op, Expr value, Expr lane, SourceLoc loc = {}); // type of value

// Convenience arithmetic on index expressions (folds constants).
Expr add(Expr a, Expr b);
Expr sub(Expr a, Expr b);
Expr mul(Expr a, Expr b);
Expr floorDiv(Expr a, Expr b);
Expr floorMod(Expr a, Expr b);
Expr ceilDiv(Expr a, Expr b);

// ---- queries ----
bool isConstInt(const Expr &e, int64_t *value = nullptr);
bool sameExpr(const Expr &a, const Expr &b); // structural equality
// Replace variables by name (loads, reductions and holes are traversed too).
Expr substitute(const Expr &e, const std::vector<std::pair<std::string, Expr>> &map);
// Replace hole `id` by its value everywhere in e.
Expr fillHoles(const Expr &e, const std::vector<std::pair<int, int64_t>> &values);
// Visit every node (pre-order).
void visitExpr(const Expr &e, const std::function<void(const Expr &)> &fn);
// True when `e` (null: false) reads variable `name` anywhere, loads and
// reductions included.
bool mentionsVar(const Expr &e, const std::string &name);
// True when `e` (null: false) loads an element of tensor `t` anywhere.
bool readsTensor(const Expr &e, const TensorDecl *t);

// Text form, e.g. `sum(k < K: A[i, k] * B[k, j])`.
std::string printExpr(const Expr &e);
// As `.tk` source spells it: `(sum(k < K) A[i, k] * B[k, j])`.
std::string printExprSource(const Expr &e);

// ---- tensors ----
enum class TensorRole { Input, Output, Intermediate, Local };

struct TensorDecl {
  std::string name;
  ScalarType dtype = ScalarType::F32;
  std::vector<Expr> shape; // row-major extents; empty = scalar
  Scope scope = Scope::Global;
  TensorRole role = TensorRole::Input;
  SourceLoc loc;
  size_t rank() const { return shape.size(); }
};

} // namespace tk::ir
