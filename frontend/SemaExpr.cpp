#include "frontend/SemaExpr.h"
#include "frontend/SemaSumTerms.h"

#include "frontend/PrintAST.h"
#include "frontend/SemaConstant.h"
#include "frontend/SemaIntrinsic.h"
#include "ir/IntArith.h"
#include "ir/Reduction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tk::sema {

using ir::ScalarType;
using K = ast::ExprKind;

namespace {

std::string typeName(ScalarType t) { return std::string(ir::scalarTypeName(t)); }

// Literals (possibly negated) adopt the type of the other operand, so
// `A[i] * 2` stays f16 for an f16 tensor and `X[i] + 1` stays i32.
bool isWeakLiteral(const ir::Expr &e) {
  if (e->kind == ir::ExprKind::IntImm || e->kind == ir::ExprKind::FloatImm) return true;
  return e->kind == ir::ExprKind::Unary && e->unOp == ir::UnOp::Neg && isWeakLiteral(e->args[0]);
}

ir::Expr retype(const ir::Expr &e, ScalarType t) {
  if (t == ScalarType::Bool) return e;
  switch (e->kind) {
  case ir::ExprKind::IntImm:
    return ir::isFloat(t) ? ir::floatImm(static_cast<double>(e->intValue), t, e->loc) : ir::intImm(e->intValue, t, e->loc);
  case ir::ExprKind::FloatImm: return ir::isFloat(t) ? ir::floatImm(e->floatValue, t, e->loc) : e;
  case ir::ExprKind::Unary: {
    ir::Expr inner = retype(e->args[0], t);
    return inner == e->args[0] ? e : ir::unary(ir::UnOp::Neg, inner, e->loc);
  }
  default: return e;
  }
}

void unifyLiterals(ir::Expr &a, ir::Expr &b) {
  if (isWeakLiteral(a) && !isWeakLiteral(b)) a = retype(a, b->type);
  else if (isWeakLiteral(b) && !isWeakLiteral(a)) b = retype(b, a->type);
}

const std::vector<std::pair<std::string, ir::MathFn>> kMathFns = {
    {"exp", ir::MathFn::Exp},   {"log", ir::MathFn::Log}, {"sqrt", ir::MathFn::Sqrt}, {"rsqrt", ir::MathFn::Rsqrt},
    {"tanh", ir::MathFn::Tanh}, {"erf", ir::MathFn::Erf}, {"abs", ir::MathFn::Abs}};

std::vector<std::string> knownFunctions() {
  std::vector<std::string> out = {"max", "min", "pow", "cdiv", "select", "f16", "bf16", "f32", "f64",
                                  "i8",  "i32", "i64", "bool", "shfl_xor", "shfl_down", "shfl_up", "shfl_idx"};
  for (const auto &[n, f] : kMathFns) out.push_back(n);
  return out;
}

// Where an expression starts (a binary node is located at its operator).
SourceLoc startLoc(const ast::Expr &e) {
  return e.kind == K::Binary ? startLoc(*e.args[0]) : e.loc;
}

// "1 index", "2 indices", "3 arguments".
std::string plural(size_t n, std::string_view word) {
  if (n == 1) return fmt::format("1 {}", word);
  if (word == "index") return fmt::format("{} indices", n);
  return fmt::format("{} {}s", n, word);
}

class Lowerer {
public:
  explicit Lowerer(ExprEnv &env) : env_(env), consts_(env.diags) {}

  ir::Expr lower(const ast::Expr &e) {
    if (env_.diags.errorLimitReached()) return nullptr; // later errors are dropped: stop early
    switch (e.kind) {
    case K::Int: return ir::intImm(e.intValue, ScalarType::I64, e.loc);
    case K::Float: return ir::floatImm(e.floatValue, ScalarType::F32, e.loc);
    case K::Bool: return ir::boolImm(e.intValue != 0, e.loc);
    case K::Inf: return ir::floatImm(std::numeric_limits<double>::infinity(), ScalarType::F32, e.loc);
    case K::Name: return name(e);
    case K::Access: return access(e);
    case K::Call: return call(e);
    case K::Unary: return unaryOp(e);
    case K::Binary: return binaryOp(e);
    case K::Reduce: return reduction(e);
    case K::Hole:
      if (env_.mode != ExprEnv::Mode::Kernel) {
        error(e.loc, "holes ('?') are only allowed in kernels");
        return nullptr;
      }
      return env_.makeHole(e);
    }
    return nullptr;
  }

private:
  ExprEnv &env_;
  ConstantChecker consts_;

  // `n` when its constant operands fold without overflow; null after the
  // error otherwise.
  ir::Expr checked(ir::Expr n) { return consts_.check(n) ? n : nullptr; }

  ir::Expr error(SourceLoc loc, std::string msg) {
    env_.diags.error(loc, std::move(msg));
    return nullptr;
  }

  ir::Expr name(const ast::Expr &e) {
    Binding *b = env_.scope.lookup(e.name);
    if (!b) {
      std::string hint = didYouMean(e.name, env_.scope.visibleNames());
      switch (env_.mode) {
      case ExprEnv::Mode::Signature:
        return error(e.loc, "unknown name '" + e.name + "' (only shape symbols and scalar parameters can appear here)" + hint);
      case ExprEnv::Mode::OpBody:
        return error(e.loc, "unknown name '" + e.name +
                                "': not an index variable of this statement (left-hand side or enclosing "
                                "reduction), a symbol or a scalar parameter" + hint);
      case ExprEnv::Mode::Kernel: return error(e.loc, "unknown name '" + e.name + "'" + hint);
      }
    }
    switch (b->kind) {
    case Binding::Kind::Tensor:
      if (!b->tensor) return nullptr; // its definition failed and was reported
      if (env_.mode == ExprEnv::Mode::Signature)
        return error(e.loc, "tensor '" + e.name + "' cannot appear in a shape or constraint");
      if (b->tensor->rank() != 0)
        return error(e.loc, fmt::format("tensor '{}' has rank {}; read an element with {}[...]", e.name,
                                        b->tensor->rank(), e.name));
      if (!b->assigned) return error(e.loc, "output '" + e.name + "' is read before it is assigned");
      return ir::load(b->tensor, {}, nullptr, nullptr, e.loc);
    case Binding::Kind::Let: return b->value;
    case Binding::Kind::Index:
    case Binding::Kind::Loop:
      if (env_.mode == ExprEnv::Mode::Signature)
        return error(e.loc, "index variable '" + e.name +
                                "' cannot appear in an extent; extents may only use symbols and scalar parameters");
      [[fallthrough]];
    case Binding::Kind::Symbol:
      return ir::var(b->value->name, b->value->varKind, b->value->type, e.loc);
    }
    return nullptr;
  }

  ir::Expr access(const ast::Expr &e) {
    Binding *b = env_.scope.lookup(e.name);
    if (!b) return error(e.loc, "unknown tensor '" + e.name + "'" + didYouMean(e.name, env_.scope.visibleNames(Binding::Kind::Tensor)));
    if (b->kind != Binding::Kind::Tensor) return error(e.loc, "'" + e.name + "' is not a tensor, so it cannot be indexed");
    if (!b->tensor) return nullptr; // its definition failed and was reported
    if (env_.mode == ExprEnv::Mode::Signature)
      return error(e.loc, "tensor elements cannot appear in a shape or constraint");
    if (!b->assigned) return error(e.loc, "output '" + e.name + "' is read before it is assigned");
    const ir::TensorPtr &t = b->tensor;
    if (e.args.size() != t->rank())
      return error(e.loc, fmt::format("'{}' has rank {} but is indexed with {}", e.name, t->rank(),
                                      plural(e.args.size(), "index")));
    std::vector<ir::Expr> idx;
    const ast::Expr *compound = nullptr;
    bool ok = true;
    for (size_t d = 0; d < e.args.size(); ++d) {
      const ast::Expr &a = *e.args[d];
      ir::Expr i = lowerIntExpr(a, env_, "index");
      ok &= i != nullptr;
      if (!i) continue;
      if (env_.mode == ExprEnv::Mode::OpBody) {
        if (i->kind == ir::ExprKind::Var && i->varKind == ir::VarKind::Index && a.kind == K::Name)
          env_.uses.push_back({i->name, t->shape[d], a.loc, fmt::format("dimension {} of {}", d + 1, t->name),
                               e.pad != nullptr});
        else if (!compound)
          compound = &a;
      }
      idx.push_back(i);
    }
    ir::Expr pad;
    if (e.pad) {
      pad = lower(*e.pad);
      if (!pad) return nullptr;
      pad = retype(pad, t->dtype);
      if (ir::isFloat(pad->type) && !ir::isFloat(t->dtype))
        return error(e.pad->loc, "the 'else' value of " + typeName(t->dtype) + " tensor '" + t->name +
                                     "' must be an integer, not " + typeName(pad->type));
      if (pad->type != t->dtype) pad = ir::cast(t->dtype, pad, e.pad->loc);
    }
    if (!ok) return nullptr;
    if (compound && !pad)
      return error(startLoc(*compound), "index '" + printASTExpr(*compound) + "' of '" + t->name +
                                      "' is not a plain index variable, so it may fall outside the tensor; say what "
                                      "to read there with 'else', e.g. " + t->name + "[...] else 0");
    return ir::load(t, std::move(idx), pad, nullptr, e.loc);
  }

  bool numeric(const ir::Expr &x, const std::string &what, SourceLoc loc) {
    if (x->type != ScalarType::Bool) return true;
    error(loc, what + " needs numbers, not bool");
    return false;
  }

  ir::Expr call(const ast::Expr &e) {
    std::vector<ir::Expr> args;
    for (const auto &a : e.args) {
      args.push_back(lower(*a));
      if (!args.back()) return nullptr;
    }
    auto arity = [&](size_t n) {
      if (args.size() == n) return true;
      error(e.loc, fmt::format("'{}' takes {}, got {}", e.name, plural(n, "argument"), args.size()));
      return false;
    };
    if (isShuffleName(e.name))
      return checkShuffle(e, std::move(args),
                          {env_.mode == ExprEnv::Mode::Kernel, env_.target, env_.inLanes, env_.diags});
    if (auto t = ir::parseScalarType(e.name)) {
      if (!arity(1)) return nullptr;
      return checked(ir::cast(*t, args[0], e.loc));
    }
    for (const auto &[fname, fn] : kMathFns) {
      if (fname != e.name) continue;
      if (!arity(1) || !numeric(args[0], "'" + fname + "'", e.loc)) return nullptr;
      return checked(ir::call(fn, args[0], e.loc));
    }
    if (e.name == "max" || e.name == "min" || e.name == "pow" || e.name == "cdiv") {
      if ((e.name == "max" || e.name == "min") && args.size() == 1)
        return error(e.loc, "'" + e.name + "' with one argument: the binary function takes two (" + e.name +
                                "(a, b)); a reduction needs its body right after the variables, e.g. " + e.name +
                                "(k) A[i, k]");
      if (!arity(2) || !numeric(args[0], "'" + e.name + "'", e.loc) || !numeric(args[1], "'" + e.name + "'", e.loc))
        return nullptr;
      unifyLiterals(args[0], args[1]);
      if (e.name == "cdiv") {
        if (!ir::isInteger(args[0]->type) || !ir::isInteger(args[1]->type))
          return error(e.loc, "'cdiv' needs integer arguments");
        return checked(ir::binary(ir::BinOp::CDiv, args[0], args[1], e.loc));
      }
      ir::BinOp op = e.name == "max" ? ir::BinOp::Max : e.name == "min" ? ir::BinOp::Min : ir::BinOp::Pow;
      return checked(ir::binary(op, args[0], args[1], e.loc));
    }
    if (e.name == "select") {
      if (!arity(3)) return nullptr;
      if (args[0]->type != ScalarType::Bool) return error(e.args[0]->loc, "the condition of 'select' must be bool");
      unifyLiterals(args[1], args[2]);
      return checked(ir::select(args[0], args[1], args[2], e.loc));
    }
    return error(e.loc, "unknown function '" + e.name + "'" + didYouMean(e.name, knownFunctions()));
  }

  ir::Expr unaryOp(const ast::Expr &e) {
    ir::Expr a = lower(*e.args[0]);
    if (!a) return nullptr;
    if (e.op == "!") {
      if (a->type != ScalarType::Bool) return error(e.loc, "'!' needs a bool operand, not " + typeName(a->type));
      return ir::unary(ir::UnOp::Not, a, e.loc);
    }
    if (!numeric(a, "unary '-'", e.loc)) return nullptr;
    if (a->kind == ir::ExprKind::IntImm) {
      ir::FoldResult r = ir::foldIntNeg(a->intValue);
      if (!r.ok()) return error(e.loc, ir::foldErrorMessage(r.error, "-" + ir::printExpr(a), ir::ScalarType::I64));
      return ir::intImm(r.value, a->type, e.loc);
    }
    if (a->kind == ir::ExprKind::FloatImm) return ir::floatImm(-a->floatValue, a->type, e.loc);
    return checked(ir::unary(ir::UnOp::Neg, a, e.loc));
  }

  ir::Expr binaryOp(const ast::Expr &e) {
    ir::Expr a = lower(*e.args[0]);
    ir::Expr b = lower(*e.args[1]);
    if (!a || !b) return nullptr;
    static const std::vector<std::pair<std::string, ir::BinOp>> ops = {
        {"+", ir::BinOp::Add}, {"-", ir::BinOp::Sub}, {"*", ir::BinOp::Mul}, {"/", ir::BinOp::Div},
        {"%", ir::BinOp::Mod}, {"==", ir::BinOp::EQ}, {"!=", ir::BinOp::NE}, {"<", ir::BinOp::LT},
        {"<=", ir::BinOp::LE}, {">", ir::BinOp::GT},  {">=", ir::BinOp::GE}, {"&&", ir::BinOp::And},
        {"||", ir::BinOp::Or}};
    auto it = std::find_if(ops.begin(), ops.end(), [&](const auto &p) { return p.first == e.op; });
    if (it == ops.end()) throw InternalError("SemaExpr: unknown binary operator " + e.op);
    ir::BinOp op = it->second;
    std::string what = "'" + e.op + "'";
    if (ir::isLogical(op)) {
      if (a->type != ScalarType::Bool || b->type != ScalarType::Bool)
        return error(e.loc, what + " needs bool operands, not " + typeName(a->type) + " and " + typeName(b->type));
    } else if (op == ir::BinOp::EQ || op == ir::BinOp::NE) {
      if ((a->type == ScalarType::Bool) != (b->type == ScalarType::Bool))
        return error(e.loc, what + " compares a bool with a number");
    } else if (!numeric(a, what, e.loc) || !numeric(b, what, e.loc)) {
      return nullptr;
    }
    unifyLiterals(a, b);
    if (op == ir::BinOp::Mod && (!ir::isInteger(a->type) || !ir::isInteger(b->type)))
      return error(e.loc, "'%' needs integer operands, not " + typeName(a->type) + " and " + typeName(b->type));
    return checked(ir::binary(op, a, b, e.loc));
  }

  ir::Expr reduction(const ast::Expr &e) {
    if (env_.mode != ExprEnv::Mode::OpBody)
      return error(e.loc, env_.mode == ExprEnv::Mode::Kernel
                              ? "reductions are not allowed in kernels; accumulate with '+=' inside a loop"
                              : "a reduction cannot appear in a shape or constraint");
    warnTermsOutsideSum(e, env_.diags);
    env_.scope.push();
    std::vector<ir::Expr> bounds;
    bool ok = true;
    for (const ast::ReduceVar &v : e.rvars) {
      ir::Expr bound;
      if (v.bound) {
        ExprEnv sig{ExprEnv::Mode::Signature, env_.scope, env_.diags, {}, nullptr};
        bound = lowerIntExpr(*v.bound, sig, "reduction bound");
        ok &= bound != nullptr;
      }
      bounds.push_back(bound);
      Binding *outer = env_.scope.lookup(v.name);
      Binding prev;
      if (outer && outer->kind != Binding::Kind::Index) {
        error(v.loc, "reduction variable '" + v.name + "' has the same name as a " +
                         (outer->kind == Binding::Kind::Tensor ? "tensor" : "symbol or scalar parameter"));
        ok = false;
      } else if (!env_.scope.declare(v.name, {Binding::Kind::Index, nullptr, ir::var(v.name, ir::VarKind::Index), v.loc}, &prev)) {
        error(v.loc, "reduction variable '" + v.name + "' is listed twice");
        ok = false;
      } else if (outer) {
        error(v.loc, "reduction variable '" + v.name + "' shadows the index variable '" + v.name + "' declared at " +
                         lineCol(outer->loc) + "; rename it");
        ok = false;
      }
    }
    size_t mark = env_.uses.size();
    ir::Expr body = lower(*e.args[0]);
    // Uses of this reduction's variables stay here; uses of outer index
    // variables go back to the enclosing statement.
    std::vector<RangeUse> inner;
    std::vector<RangeUse> outerUses(env_.uses.begin(), env_.uses.begin() + mark);
    for (size_t i = mark; i < env_.uses.size(); ++i) {
      bool mine = std::any_of(e.rvars.begin(), e.rvars.end(), [&](const ast::ReduceVar &v) { return v.name == env_.uses[i].var; });
      (mine ? inner : outerUses).push_back(env_.uses[i]);
    }
    env_.uses = std::move(outerUses);
    env_.scope.pop();
    if (!body || !ok) return nullptr;

    std::vector<ir::IndexVar> vars;
    for (size_t i = 0; i < e.rvars.size(); ++i) {
      const ast::ReduceVar &v = e.rvars[i];
      std::vector<RangeUse> mine;
      for (RangeUse &u : inner)
        if (u.var == v.name) mine.push_back(u);
      bool used = false;
      ir::visitExpr(body, [&](const ir::Expr &x) {
        used |= x->kind == ir::ExprKind::Var && x->varKind == ir::VarKind::Index && x->name == v.name;
      });
      if (!used && bounds[i])
        env_.diags.warning(v.loc, "reduction variable '" + v.name + "' is not used in the body");
      ir::Expr ext = resolveRange(v.name, v.loc, mine, bounds[i], "the bound " + v.name + " < " +
                                  (bounds[i] ? ir::printExpr(bounds[i]) : ""),
                                  true, env_.diags);
      if (!ext) return nullptr;
      vars.push_back({v.name, ext, v.loc});
    }
    ir::ReduceOp op = e.name == "sum" || e.name == "mean" ? ir::ReduceOp::Sum
                      : e.name == "prod"                  ? ir::ReduceOp::Prod
                      : e.name == "max"                   ? ir::ReduceOp::Max
                                                          : ir::ReduceOp::Min;
    return ir::accumulatingReduce(op, std::move(vars), body, e.name == "mean", e.loc);
  }
};

} // namespace

ir::Expr lowerExpr(const ast::Expr &e, ExprEnv &env) { return Lowerer(env).lower(e); }

ir::Expr lowerIntExpr(const ast::Expr &e, ExprEnv &env, const std::string &what) {
  ir::Expr x = lowerExpr(e, env);
  if (!x) return nullptr;
  if (!ir::isInteger(x->type)) {
    env.diags.error(e.loc, "the " + what + " must be an integer, not " + typeName(x->type));
    return nullptr;
  }
  return x->type == ScalarType::I64 ? x : (isWeakLiteral(x) ? retype(x, ScalarType::I64) : ir::cast(ScalarType::I64, x, e.loc));
}

ir::Expr lowerCondExpr(const ast::Expr &e, ExprEnv &env, const std::string &what) {
  ir::Expr x = lowerExpr(e, env);
  if (!x) return nullptr;
  if (x->type != ScalarType::Bool) {
    env.diags.error(e.loc, "the " + what + " must be a bool condition, not " + typeName(x->type));
    return nullptr;
  }
  return x;
}

ir::Expr convertForStore(ir::Expr value, ScalarType dtype, const std::string &tensor, SourceLoc loc,
                         DiagEngine &diags) {
  if (value->type == dtype) return value;
  if (dtype == ScalarType::Bool) {
    diags.error(loc, "cannot store a " + typeName(value->type) + " value into bool tensor '" + tensor +
                         "'; store a comparison instead");
    return nullptr;
  }
  if (ir::isFloat(value->type) && !ir::isFloat(dtype)) {
    diags.error(loc, "cannot store a " + typeName(value->type) + " value into " + typeName(dtype) + " tensor '" +
                         tensor + "' (implicit float-to-integer narrowing); convert explicitly with " +
                         typeName(dtype) + "(...)");
    return nullptr;
  }
  if (isWeakLiteral(value)) {
    ir::Expr literal = retype(value, dtype);
    return checkLiteralFits(literal, diags) ? literal : nullptr;
  }
  return ir::cast(dtype, value, value->loc);
}

ir::Expr resolveRange(const std::string &var, SourceLoc varLoc, const std::vector<RangeUse> &uses,
                      const ir::Expr &declared, const std::string &declaredWhat, bool reduction,
                      DiagEngine &diags) {
  ir::Expr extent = declared;
  std::string firstWhat = declaredWhat;
  bool ok = true;
  for (const RangeUse &u : uses) {
    if (u.guarded) continue;
    if (!extent) {
      extent = u.extent;
      firstWhat = u.what;
      continue;
    }
    if (!ir::sameExpr(extent, u.extent)) {
      diags.error(u.loc, "shape mismatch for index variable '" + var + "': " + firstWhat + " has extent " +
                             ir::printExpr(extent) + ", but " + u.what + " has extent " + ir::printExpr(u.extent));
      ok = false;
    }
  }
  for (const RangeUse &u : uses)
    if (!extent && u.guarded) extent = u.extent;
  if (!extent) {
    if (reduction)
      diags.error(varLoc, "cannot infer the range of reduction variable '" + var +
                              "': it is not used alone as an index of any tensor; give it explicitly, e.g. (" +
                              var + " < R)");
    else
      diags.error(varLoc, "cannot infer the range of index variable '" + var +
                              "': it is not used alone as an index of any tensor on the right-hand side");
    return nullptr;
  }
  return ok ? extent : nullptr;
}

} // namespace tk::sema
