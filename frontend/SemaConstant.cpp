#include "frontend/SemaConstant.h"

#include "ir/IntArith.h"

#include <fmt/format.h>

namespace tk::sema {

using ir::ExprKind;

namespace {

// The fold of one node from its operands' values; nullopt when the node is
// not an integer operation the checker folds.
std::optional<ir::FoldResult> foldNode(const ir::ExprNode &e, const std::vector<int64_t> &args) {
  if (!ir::isInteger(e.type)) return std::nullopt;
  switch (e.kind) {
  case ExprKind::Binary:
    switch (e.binOp) {
    case ir::BinOp::Add: case ir::BinOp::Sub: case ir::BinOp::Mul: case ir::BinOp::Div:
    case ir::BinOp::Mod: case ir::BinOp::CDiv: case ir::BinOp::Min: case ir::BinOp::Max:
      return ir::foldIntBinary(e.binOp, args[0], args[1], e.type);
    default: return std::nullopt;
    }
  case ExprKind::Unary:
    if (e.unOp != ir::UnOp::Neg) return std::nullopt;
    return ir::foldIntNeg(args[0], e.type);
  case ExprKind::Call:
    if (e.fn != ir::MathFn::Abs) return std::nullopt;
    return ir::foldIntAbs(args[0], e.type);
  case ExprKind::Cast: return ir::FoldResult{ir::wrapToIntType(args[0], e.type), ir::FoldError::None};
  default: return std::nullopt;
  }
}

bool foldable(const ir::ExprNode &e) {
  return ir::isInteger(e.type) && (e.kind == ExprKind::Binary || e.kind == ExprKind::Unary ||
                                   e.kind == ExprKind::Call || e.kind == ExprKind::Cast);
}

} // namespace

std::optional<int64_t> ConstantChecker::value(const ir::Expr &e) {
  if (!e) return std::nullopt;
  if (e->kind == ExprKind::IntImm)
    return ir::isInteger(e->type) && ir::fitsIntType(e->intValue, e->type) ? std::optional(e->intValue) : std::nullopt;
  if (!foldable(*e)) return std::nullopt;
  auto it = memo_.find(e.get());
  if (it != memo_.end()) return it->second;
  std::optional<int64_t> out;
  std::vector<int64_t> args;
  bool constant = true;
  for (const ir::Expr &a : e->args) {
    std::optional<int64_t> v = value(a);
    constant = constant && v;
    if (!constant) break;
    args.push_back(*v);
  }
  if (constant)
    if (std::optional<ir::FoldResult> r = foldNode(*e, args); r && r->ok()) out = r->value;
  memo_[e.get()] = out;
  return out;
}

bool ConstantChecker::check(const ir::Expr &e) {
  if (!e) return true;
  // Literals that adopted the other operand's type (`X[i] == 300` for an
  // i8 X) must fit it, in comparisons and selects too.
  for (const ir::Expr &a : e->args)
    if (a->kind == ExprKind::IntImm && !checkLiteralFits(a, diags_)) return false;
  if (!foldable(*e)) return true;
  std::vector<int64_t> args;
  for (const ir::Expr &a : e->args) {
    std::optional<int64_t> v = value(a);
    if (!v) return true; // not constant, or an operand's own error was reported when it was built
    args.push_back(*v);
  }
  std::optional<ir::FoldResult> r = foldNode(*e, args);
  if (!r) return true;
  if (!r->ok()) {
    diags_.error(e->loc, ir::foldErrorMessage(r->error, ir::printExpr(e), e->type));
    memo_[e.get()] = std::nullopt;
    return false;
  }
  memo_[e.get()] = r->value;
  return true;
}

bool checkLiteralFits(const ir::Expr &literal, DiagEngine &diags) {
  if (literal->kind != ExprKind::IntImm || !ir::isInteger(literal->type) ||
      ir::fitsIntType(literal->intValue, literal->type))
    return true;
  diags.error(literal->loc, "integer literal {} does not fit in {}", literal->intValue,
              ir::scalarTypeName(literal->type));
  return false;
}

} // namespace tk::sema
