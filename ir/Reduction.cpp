#include "ir/Reduction.h"

#include <cstdint>
#include <limits>

namespace tk::ir {

ScalarType accumulatorType(ReduceOp op, ScalarType t) {
  if (t == ScalarType::Bool) return ScalarType::I32;
  if (op == ReduceOp::Max || op == ReduceOp::Min) return t;
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16: return ScalarType::F32;
  case ScalarType::I8: return ScalarType::I32;
  default: return t;
  }
}

Expr accumulatingReduce(ReduceOp op, std::vector<IndexVar> vars, Expr body, bool mean, SourceLoc loc) {
  ScalarType result = body->type == ScalarType::Bool ? ScalarType::I32 : body->type;
  ScalarType acc = accumulatorType(op, body->type);
  if (body->type != acc) body = cast(acc, body, body->loc);
  Expr count = intImm(1);
  for (const IndexVar &v : vars) count = mul(count, v.extent);
  Expr r = reduce(op, std::move(vars), body, loc);
  if (mean && isFloat(acc)) {
    r = binary(BinOp::Div, r, cast(acc, count, loc), loc);
  } else if (mean) {
    if (acc != ScalarType::I64) r = cast(ScalarType::I64, r, loc);
    r = binary(BinOp::Div, r, binary(BinOp::Max, count, intImm(1), loc), loc);
  }
  return r->type == result ? r : cast(result, r, loc);
}

Expr reductionIdentity(ReduceOp op, ScalarType t) {
  double inf = std::numeric_limits<double>::infinity();
  if (isFloat(t)) {
    switch (op) {
    case ReduceOp::Sum: return floatImm(0, t);
    case ReduceOp::Prod: return floatImm(1, t);
    case ReduceOp::Max: return floatImm(-inf, t);
    case ReduceOp::Min: return floatImm(inf, t);
    }
  }
  int64_t lo = t == ScalarType::I8 ? INT8_MIN : t == ScalarType::I32 ? INT32_MIN : INT64_MIN;
  int64_t hi = t == ScalarType::I8 ? INT8_MAX : t == ScalarType::I32 ? INT32_MAX : INT64_MAX;
  switch (op) {
  case ReduceOp::Sum: return intImm(0, t);
  case ReduceOp::Prod: return intImm(1, t);
  case ReduceOp::Max: return intImm(lo, t);
  case ReduceOp::Min: return intImm(hi, t);
  }
  return intImm(0, t);
}

AccumOp accumFor(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return AccumOp::Add;
  case ReduceOp::Prod: return AccumOp::Mul;
  case ReduceOp::Max: return AccumOp::Max;
  case ReduceOp::Min: return AccumOp::Min;
  }
  return AccumOp::Add;
}

Expr reductionCombine(ReduceOp op, Expr acc, Expr value) { return accumulate(accumFor(op), acc, value); }

Expr accumulate(AccumOp op, Expr old, Expr value) {
  switch (op) {
  case AccumOp::None: return value;
  case AccumOp::Add: return binary(BinOp::Add, old, value);
  case AccumOp::Mul: return binary(BinOp::Mul, old, value);
  case AccumOp::Max: return binary(BinOp::Max, old, value);
  case AccumOp::Min: return binary(BinOp::Min, old, value);
  }
  return value;
}

bool containsReduce(const Expr &e) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Reduce; });
  return found;
}

Expr soleReduction(const Expr &value, ScalarType target) {
  if (value->kind == ExprKind::Reduce) return value;
  Expr red;
  int count = 0;
  visitExpr(value, [&](const Expr &n) {
    if (n->kind == ExprKind::Reduce) red = n, ++count;
  });
  if (count != 1 || red->type != target || !isFloat(target)) return nullptr;
  return red;
}

} // namespace tk::ir
