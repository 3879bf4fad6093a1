#include "ir/Expr.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/IntArith.h"

namespace tk::ir {

std::string_view binOpSymbol(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::Mod: return "%";
  case BinOp::CDiv: return "cdiv";
  case BinOp::Min: return "min";
  case BinOp::Max: return "max";
  case BinOp::Pow: return "pow";
  case BinOp::EQ: return "==";
  case BinOp::NE: return "!=";
  case BinOp::LT: return "<";
  case BinOp::LE: return "<=";
  case BinOp::GT: return ">";
  case BinOp::GE: return ">=";
  case BinOp::And: return "&&";
  case BinOp::Or: return "||";
  }
  return "?";
}

std::string_view mathFnName(MathFn f) {
  switch (f) {
  case MathFn::Exp: return "exp";
  case MathFn::Log: return "log";
  case MathFn::Sqrt: return "sqrt";
  case MathFn::Rsqrt: return "rsqrt";
  case MathFn::Tanh: return "tanh";
  case MathFn::Erf: return "erf";
  case MathFn::Abs: return "abs";
  }
  return "?";
}

std::string_view reduceOpName(ReduceOp r) {
  switch (r) {
  case ReduceOp::Sum: return "sum";
  case ReduceOp::Max: return "max";
  case ReduceOp::Min: return "min";
  case ReduceOp::Prod: return "prod";
  }
  return "?";
}

std::string_view shuffleOpName(ShuffleOp s) {
  switch (s) {
  case ShuffleOp::Xor: return "shfl_xor";
  case ShuffleOp::Down: return "shfl_down";
  case ShuffleOp::Up: return "shfl_up";
  case ShuffleOp::Idx: return "shfl_idx";
  }
  return "?";
}

bool isComparison(BinOp op) { return op >= BinOp::EQ && op <= BinOp::GE; }
bool isLogical(BinOp op) { return op == BinOp::And || op == BinOp::Or; }

static std::shared_ptr<ExprNode> node(ExprKind k, ScalarType t, SourceLoc loc) {
  auto n = std::make_shared<ExprNode>();
  n->kind = k;
  n->type = t;
  n->loc = loc;
  return n;
}

Expr intImm(int64_t v, ScalarType t, SourceLoc loc) {
  auto n = node(ExprKind::IntImm, t, loc);
  n->intValue = v;
  return n;
}
Expr floatImm(double v, ScalarType t, SourceLoc loc) {
  auto n = node(ExprKind::FloatImm, t, loc);
  n->floatValue = v;
  return n;
}
Expr boolImm(bool v, SourceLoc loc) {
  auto n = node(ExprKind::BoolImm, ScalarType::Bool, loc);
  n->intValue = v;
  return n;
}
Expr var(std::string name, VarKind k, ScalarType t, SourceLoc loc) {
  auto n = node(ExprKind::Var, t, loc);
  n->name = std::move(name);
  n->varKind = k;
  return n;
}
Expr hole(int id, std::vector<int64_t> candidates, SourceLoc loc) {
  auto n = node(ExprKind::Hole, ScalarType::I64, loc);
  n->holeId = id;
  n->candidates = std::move(candidates);
  return n;
}
Expr unary(UnOp op, Expr x, SourceLoc loc) {
  auto n = node(ExprKind::Unary, op == UnOp::Not ? ScalarType::Bool : x->type, loc);
  n->unOp = op;
  n->args = {std::move(x)};
  return n;
}
Expr binary(BinOp op, Expr a, Expr b, SourceLoc loc) {
  ScalarType t;
  if (isComparison(op) || isLogical(op))
    t = ScalarType::Bool;
  else if (op == BinOp::Pow)
    t = isFloat(promote(a->type, b->type)) ? promote(a->type, b->type) : ScalarType::F32;
  else
    t = promote(a->type, b->type);
  auto n = node(ExprKind::Binary, t, loc);
  n->binOp = op;
  n->args = {std::move(a), std::move(b)};
  return n;
}
Expr select(Expr c, Expr a, Expr b, SourceLoc loc) {
  auto n = node(ExprKind::Select, promote(a->type, b->type), loc);
  n->args = {std::move(c), std::move(a), std::move(b)};
  return n;
}
Expr call(MathFn f, Expr x, SourceLoc loc) {
  ScalarType t = x->type;
  if (f != MathFn::Abs && !isFloat(t)) t = ScalarType::F32;
  auto n = node(ExprKind::Call, t, loc);
  n->fn = f;
  n->args = {std::move(x)};
  return n;
}
Expr cast(ScalarType t, Expr x, SourceLoc loc) {
  auto n = node(ExprKind::Cast, t, loc);
  n->args = {std::move(x)};
  return n;
}
Expr load(TensorPtr t, std::vector<Expr> indices, Expr pad, Expr pred, SourceLoc loc) {
  auto n = node(ExprKind::Load, t->dtype, loc);
  n->tensor = std::move(t);
  n->args = std::move(indices);
  n->pad = std::move(pad);
  n->pred = std::move(pred);
  return n;
}
Expr reduce(ReduceOp op, std::vector<IndexVar> vars, Expr body, SourceLoc loc) {
  ScalarType t = body->type == ScalarType::Bool ? ScalarType::I32 : body->type;
  auto n = node(ExprKind::Reduce, t, loc);
  n->reduceOp = op;
  n->rvars = std::move(vars);
  n->args = {std::move(body)};
  return n;
}

Expr shuffle(ShuffleOp op, Expr value, Expr lane, SourceLoc loc) {
  auto n = node(ExprKind::Shuffle, value->type, loc);
  n->shuffleOp = op;
  n->args = {std::move(value), std::move(lane)};
  return n;
}

bool isConstInt(const Expr &e, int64_t *value) {
  if (!e || e->kind != ExprKind::IntImm) return false;
  if (value) *value = e->intValue;
  return true;
}

Expr conjoin(Expr a, Expr b) {
  if (!a) return b;
  if (!b) return a;
  return binary(BinOp::And, std::move(a), std::move(b));
}

// The smart constructors below fold only what keeps the node's value and
// type: the result has the type `binary` would give (promote(a, b)), with a
// cast where the kept operand is narrower (`0 + b` for an i8 b and an i64 0
// is `i64(b)`, not b, which would go on computing in i8). The identities are
// integer-only: for floats `x + 0` turns -0.0 into +0.0 and `x * 0` is NaN
// for an infinite x.
static Expr asType(Expr e, ScalarType t) { return e->type == t ? e : cast(t, std::move(e)); }

// Folds two integer constants when the result is exact in the node's type
// (ir/IntArith.h); null when either is not a constant or the fold would
// overflow or divide by zero, so the node is built and the overflow left to
// the checks.
static Expr foldConstants(BinOp op, const Expr &a, const Expr &b) {
  int64_t x, y;
  if (!isConstInt(a, &x) || !isConstInt(b, &y)) return nullptr;
  ScalarType t = promote(a->type, b->type);
  if (!isInteger(t)) return nullptr;
  FoldResult r = foldIntBinary(op, x, y, t);
  return r.ok() ? intImm(r.value, t) : nullptr;
}

// Whether e is the integer constant v in an integer-typed `a op b`.
static bool isIdentity(const Expr &e, int64_t v, const Expr &a, const Expr &b) {
  int64_t x;
  return isInteger(promote(a->type, b->type)) && isConstInt(e, &x) && x == v;
}

Expr add(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::Add, a, b)) return c;
  ScalarType t = promote(a->type, b->type);
  if (isIdentity(a, 0, a, b)) return asType(b, t);
  if (isIdentity(b, 0, a, b)) return asType(a, t);
  return binary(BinOp::Add, std::move(a), std::move(b));
}
Expr sub(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::Sub, a, b)) return c;
  if (isIdentity(b, 0, a, b)) return asType(a, promote(a->type, b->type));
  return binary(BinOp::Sub, std::move(a), std::move(b));
}
Expr mul(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::Mul, a, b)) return c;
  ScalarType t = promote(a->type, b->type);
  if (isIdentity(a, 1, a, b)) return asType(b, t);
  if (isIdentity(b, 1, a, b)) return asType(a, t);
  if (isIdentity(a, 0, a, b) || isIdentity(b, 0, a, b)) return intImm(0, t);
  return binary(BinOp::Mul, std::move(a), std::move(b));
}
Expr floorDiv(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::Div, a, b)) return c;
  if (isIdentity(b, 1, a, b)) return asType(a, promote(a->type, b->type));
  return binary(BinOp::Div, std::move(a), std::move(b));
}
Expr floorMod(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::Mod, a, b)) return c;
  if (isIdentity(b, 1, a, b)) return intImm(0, promote(a->type, b->type));
  return binary(BinOp::Mod, std::move(a), std::move(b));
}
Expr ceilDiv(Expr a, Expr b) {
  if (Expr c = foldConstants(BinOp::CDiv, a, b)) return c;
  if (isIdentity(b, 1, a, b)) return asType(a, promote(a->type, b->type));
  return binary(BinOp::CDiv, std::move(a), std::move(b));
}

bool sameExpr(const Expr &a, const Expr &b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case ExprKind::IntImm:
  case ExprKind::BoolImm:
    if (a->intValue != b->intValue) return false;
    break;
  case ExprKind::FloatImm:
    if (!(a->floatValue == b->floatValue)) return false;
    break;
  case ExprKind::Var:
    if (a->name != b->name) return false;
    break;
  case ExprKind::Hole:
    if (a->holeId != b->holeId) return false;
    break;
  case ExprKind::Unary:
    if (a->unOp != b->unOp) return false;
    break;
  case ExprKind::Binary:
    if (a->binOp != b->binOp) return false;
    break;
  case ExprKind::Call:
    if (a->fn != b->fn) return false;
    break;
  case ExprKind::Load:
    if (a->tensor != b->tensor || !sameExpr(a->pad, b->pad) || !sameExpr(a->pred, b->pred)) return false;
    break;
  case ExprKind::Reduce:
    if (a->reduceOp != b->reduceOp || a->rvars.size() != b->rvars.size()) return false;
    for (size_t i = 0; i < a->rvars.size(); ++i)
      if (a->rvars[i].name != b->rvars[i].name || !sameExpr(a->rvars[i].extent, b->rvars[i].extent))
        return false;
    break;
  case ExprKind::Shuffle:
    if (a->shuffleOp != b->shuffleOp) return false;
    break;
  case ExprKind::Select:
  case ExprKind::Cast: break;
  }
  if (a->args.size() != b->args.size()) return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!sameExpr(a->args[i], b->args[i])) return false;
  return true;
}

namespace {

// Variables by name, except where a reduction of the same spelling shadows them.
class Substitute : public ExprMutator {
public:
  explicit Substitute(const std::vector<std::pair<std::string, Expr>> &map) : map_(map) {}

protected:
  Expr mutateVar(const Expr &e) override {
    if (scope_.hasVar(e->name)) return e;
    for (const auto &[name, value] : map_)
      if (name == e->name) return value;
    return e;
  }

private:
  const std::vector<std::pair<std::string, Expr>> &map_;
};

class FillHoles : public ExprMutator {
public:
  explicit FillHoles(const std::vector<std::pair<int, int64_t>> &values) : values_(values) {}

protected:
  Expr mutateLeaf(const Expr &e) override {
    if (e->kind == ExprKind::Hole)
      for (const auto &[id, v] : values_)
        if (id == e->holeId) return intImm(v, ScalarType::I64, e->loc);
    return e;
  }

private:
  const std::vector<std::pair<int, int64_t>> &values_;
};

class PreOrder : public ExprVisitor {
public:
  explicit PreOrder(const std::function<void(const Expr &)> &fn) : fn_(fn) {}
  void walkExpr(const Expr &e) override {
    if (!e) return;
    fn_(e);
    ExprVisitor::walkExpr(e);
  }

private:
  const std::function<void(const Expr &)> &fn_;
};

} // namespace

Expr substitute(const Expr &e, const std::vector<std::pair<std::string, Expr>> &map) {
  return Substitute(map).mutateExpr(e);
}

Expr fillHoles(const Expr &e, const std::vector<std::pair<int, int64_t>> &values) {
  return FillHoles(values).mutateExpr(e);
}

void visitExpr(const Expr &e, const std::function<void(const Expr &)> &fn) { PreOrder(fn).walkExpr(e); }

bool readsTensor(const Expr &e, const TensorDecl *t) {
  bool found = false;
  if (e) visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Load && n->tensor.get() == t; });
  return found;
}

bool mentionsVar(const Expr &e, const std::string &name) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && n->name == name; });
  return found;
}

} // namespace tk::ir
