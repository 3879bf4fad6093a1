// Text form of expressions (printExpr), shared by every IR printer and by
// diagnostics that quote an expression.
#include "ir/Expr.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace tk::ir {

static int precedence(const Expr &e) {
  if (e->kind != ExprKind::Binary) return e->kind == ExprKind::Unary ? 6 : 7;
  switch (e->binOp) {
  case BinOp::Or: return 1;
  case BinOp::And: return 2;
  case BinOp::EQ: case BinOp::NE: case BinOp::LT: case BinOp::LE: case BinOp::GT: case BinOp::GE: return 3;
  case BinOp::Add: case BinOp::Sub: return 4;
  case BinOp::Mul: case BinOp::Div: case BinOp::Mod: return 5;
  default: return 7; // function-call form
  }
}

static std::string formatFloat(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// IR: reductions as `sum(k < K: body)` (what every dump shows); Source: as
// `.tk` spells them, `(sum(k < K) body)` (printKernelSource).
enum class Style { IR, Source };

static void print(std::ostream &os, const Expr &e, int ctx, Style style);

static void printArgs(std::ostream &os, const std::vector<Expr> &args, Style style) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) os << ", ";
    print(os, args[i], 0, style);
  }
}

static void print(std::ostream &os, const Expr &e, int ctx, Style style) {
  if (!e) {
    os << "<null>";
    return;
  }
  int prec = precedence(e);
  bool paren = prec < ctx;
  if (paren) os << '(';
  switch (e->kind) {
  case ExprKind::IntImm: os << e->intValue; break;
  case ExprKind::BoolImm: os << (e->intValue ? "true" : "false"); break;
  case ExprKind::FloatImm: os << formatFloat(e->floatValue); break;
  case ExprKind::Var: os << e->name; break;
  case ExprKind::Hole: os << "?" << e->holeId; break;
  case ExprKind::Unary:
    os << (e->unOp == UnOp::Neg ? "-" : "!");
    print(os, e->args[0], 7, style);
    break;
  case ExprKind::Binary:
    if (prec == 7) {
      os << binOpSymbol(e->binOp) << '(';
      printArgs(os, e->args, style);
      os << ')';
    } else {
      // Left-associative: the right operand needs parentheses at equal precedence.
      print(os, e->args[0], prec, style);
      os << ' ' << binOpSymbol(e->binOp) << ' ';
      print(os, e->args[1], prec + 1, style);
    }
    break;
  case ExprKind::Select:
  case ExprKind::Call:
  case ExprKind::Shuffle:
  case ExprKind::Cast:
    // Printed as a call: select(c, a, b), exp(x), shfl_xor(v, m), f32(x).
    if (e->kind == ExprKind::Select) os << "select";
    else if (e->kind == ExprKind::Call) os << mathFnName(e->fn);
    else if (e->kind == ExprKind::Shuffle) os << shuffleOpName(e->shuffleOp);
    else os << scalarTypeName(e->type);
    os << '(';
    printArgs(os, e->args, style);
    os << ')';
    break;
  case ExprKind::Load: {
    bool guarded = e->pad || e->pred;
    if (guarded && !paren) os << '(';
    os << e->tensor->name << '[';
    printArgs(os, e->args, style);
    os << ']';
    if (e->pred) {
      os << " when ";
      print(os, e->pred, 0, style);
    }
    if (e->pad) {
      os << " else ";
      print(os, e->pad, 0, style);
    }
    if (guarded && !paren) os << ')';
    break;
  }
  case ExprKind::Reduce:
    os << (style == Style::Source ? "(" : "") << reduceOpName(e->reduceOp) << '(';
    for (size_t i = 0; i < e->rvars.size(); ++i) {
      if (i) os << ", ";
      os << e->rvars[i].name << " < ";
      print(os, e->rvars[i].extent, 4, style);
    }
    os << (style == Style::Source ? ") " : ": ");
    print(os, e->args[0], 0, style);
    os << ')';
    break;
  }
  if (paren) os << ')';
}

std::string printExpr(const Expr &e) {
  std::ostringstream os;
  print(os, e, 0, Style::IR);
  return os.str();
}

std::string printExprSource(const Expr &e) {
  std::ostringstream os;
  print(os, e, 0, Style::Source);
  return os.str();
}

} // namespace tk::ir
