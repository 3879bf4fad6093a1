#include "backends/sunway/CExpr.h"

#include "ir/Diagnostics.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace tk::sunway {

using ir::BinOp;
using ir::Expr;
using ir::ExprKind;
using ir::ScalarType;

namespace {

bool reservedC(const std::string &s) {
  static const std::set<std::string> kReserved{
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
      "_Bool", "_Complex", "_Imaginary", "bool", "true", "false", "main", "errno",
      // names the generated code declares next to user names: the CPE
      // function's parameter and struct pointer, the MPE's argument struct
      "arg", "p", "args",
      // math.h and athread names a generated source may meet
      "exp", "log", "sqrt", "tanh", "erf", "fabs", "pow", "floor", "ceil", "fmin", "fmax", "expf", "logf",
      "sqrtf", "tanhf", "erff", "fabsf", "powf", "floorf", "ceilf", "fminf", "fmaxf", "INFINITY", "NAN"};
  return kReserved.count(s) || s.rfind("tk_", 0) == 0 || s.rfind("slave_", 0) == 0 || s.rfind("athread", 0) == 0 ||
         s.rfind("__", 0) == 0 || (s.size() > 1 && s[0] == '_' && std::isupper(static_cast<unsigned char>(s[1])));
}

std::string sanitize(const std::string &name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

bool isHalf(ScalarType t) { return t == ScalarType::F16 || t == ScalarType::BF16; }

// `text` (of type `from`) converted to `to`'s value type as docs/abi.md says.
std::string convert(const std::string &text, ScalarType from, ScalarType to) {
  if (from == to) return text;
  if (to == ScalarType::Bool) return "((" + text + ") != 0)";
  if (from == ScalarType::Bool) return "((" + cValueType(to) + ")(" + text + "))";
  bool fromFloat = ir::isFloat(from), toFloat = ir::isFloat(to);
  if (!fromFloat && !toFloat) return "((" + cValueType(to) + ")(" + text + "))";
  if (fromFloat && !toFloat) {
    const char *range = to == ScalarType::I8    ? "-128.0, 127.0"
                        : to == ScalarType::I32 ? "-2147483648.0, 2147483647.0"
                                                : "-9223372036854775808.0, 9223372036854775807.0";
    return fmt::format("(({})tk_f2i((double)({}), {}))", cValueType(to), text, range);
  }
  // To a float type (from an integer or another float): one rounding to
  // f32 or f64; f16/bf16 round to f32 first, then to their precision.
  if (to == ScalarType::F16) return "tk_round_f16((float)(" + text + "))";
  if (to == ScalarType::BF16) return "tk_round_bf16((float)(" + text + "))";
  if (isHalf(from) && to == ScalarType::F32) return text;
  return "((" + cValueType(to) + ")(" + text + "))";
}

std::string intLiteral(int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  if (v >= INT32_MIN && v <= INT32_MAX) return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
  return fmt::format("INT64_C({})", v);
}

std::string floatLiteral(double v, ScalarType t) {
  bool dbl = t == ScalarType::F64;
  if (std::isnan(v)) return dbl ? "((double)NAN)" : "NAN";
  if (std::isinf(v)) return std::string(v < 0 ? "(-" : "(") + (dbl ? "(double)INFINITY)" : "INFINITY)");
  std::string s = dbl ? fmt::format("{:.17g}", v) : fmt::format("{:.9g}", static_cast<float>(v));
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  if (!dbl) s += "f";
  return v < 0 || std::signbit(v) ? "(" + s + ")" : s;
}

class Printer {
public:
  explicit Printer(CNames &names) : names_(names) {}

  std::string print(const Expr &e) {
    switch (e->kind) {
    case ExprKind::IntImm: return intLiteral(e->intValue);
    case ExprKind::BoolImm: return e->intValue ? "1" : "0";
    case ExprKind::FloatImm: return floatLiteral(e->floatValue, e->type);
    case ExprKind::Var: return names_.var(e->name);
    case ExprKind::Unary: {
      std::string x = as(e->args[0], e->type);
      if (e->unOp == ir::UnOp::Not) return "(!" + print(e->args[0]) + ")";
      return wrap("(-" + x + ")", e->type);
    }
    case ExprKind::Binary: return binary(e);
    case ExprKind::Select:
      return "(" + print(e->args[0]) + " ? " + as(e->args[1], e->type) + " : " + as(e->args[2], e->type) + ")";
    case ExprKind::Call: return call(e);
    case ExprKind::Cast: return convert(print(e->args[0]), e->args[0]->type, e->type);
    case ExprKind::Load: return load(e);
    case ExprKind::Hole:
    case ExprKind::Reduce:
    case ExprKind::Shuffle: break;
    }
    throw InternalError("sunway backend: expression `" + ir::printExpr(e) + "` has no C form (not lowered)");
  }

  // `e` converted to type `t`.
  std::string as(const Expr &e, ScalarType t) { return convert(print(e), e->type, t); }

private:
  // i8 arithmetic happens in int; the result wraps back (-fwrapv makes
  // i32 and i64 wrap on their own).
  static std::string wrap(const std::string &s, ScalarType t) {
    return t == ScalarType::I8 ? "((int8_t)" + s + ")" : s;
  }

  std::string binary(const Expr &e) {
    BinOp op = e->binOp;
    const Expr &a = e->args[0], &b = e->args[1];
    if (ir::isLogical(op)) return "(" + print(a) + (op == BinOp::And ? " && " : " || ") + print(b) + ")";
    if (ir::isComparison(op)) {
      // Mixed operands compare as doubles, exactly, like the interpreter.
      ScalarType t = a->type == b->type ? a->type
                     : ir::isFloat(a->type) || ir::isFloat(b->type) ? ScalarType::F64
                                                                    : ScalarType::I64;
      return "(" + as(a, t) + " " + std::string(ir::binOpSymbol(op)) + " " + as(b, t) + ")";
    }
    ScalarType t = e->type;
    std::string x = as(a, t), y = as(b, t);
    bool fl = ir::isFloat(t), dbl = t == ScalarType::F64;
    std::string f = dbl ? "" : "f";
    if (!fl) {
      switch (op) {
      case BinOp::Div: return convert("tk_floordiv(" + x + ", " + y + ")", ScalarType::I64, t);
      case BinOp::Mod: return convert("tk_floormod(" + x + ", " + y + ")", ScalarType::I64, t);
      case BinOp::CDiv: return convert("tk_cdiv(" + x + ", " + y + ")", ScalarType::I64, t);
      case BinOp::Min: return convert("tk_min_i(" + x + ", " + y + ")", ScalarType::I64, t);
      case BinOp::Max: return convert("tk_max_i(" + x + ", " + y + ")", ScalarType::I64, t);
      case BinOp::Pow: throw InternalError("sunway backend: integer pow");
      default: return wrap("(" + x + " " + std::string(ir::binOpSymbol(op)) + " " + y + ")", t);
      }
    }
    switch (op) {
    case BinOp::Mod: return "(" + x + " - floor" + f + "(" + x + " / " + y + ") * " + y + ")";
    case BinOp::CDiv: return "ceil" + f + "(" + x + " / " + y + ")";
    case BinOp::Min: return "fmin" + f + "(" + x + ", " + y + ")";
    case BinOp::Max: return "fmax" + f + "(" + x + ", " + y + ")";
    case BinOp::Pow: return "pow" + f + "(" + x + ", " + y + ")";
    default: return "(" + x + " " + std::string(ir::binOpSymbol(op)) + " " + y + ")";
    }
  }

  std::string call(const Expr &e) {
    ScalarType t = e->type;
    if (!ir::isFloat(t)) return convert("tk_abs_i(" + print(e->args[0]) + ")", ScalarType::I64, t);
    std::string x = as(e->args[0], t), f = t == ScalarType::F64 ? "" : "f";
    switch (e->fn) {
    case ir::MathFn::Exp: return "exp" + f + "(" + x + ")";
    case ir::MathFn::Log: return "log" + f + "(" + x + ")";
    case ir::MathFn::Sqrt: return "sqrt" + f + "(" + x + ")";
    case ir::MathFn::Rsqrt: return "(1.0" + f + " / sqrt" + f + "(" + x + "))";
    case ir::MathFn::Tanh: return "tanh" + f + "(" + x + ")";
    case ir::MathFn::Erf: return "erf" + f + "(" + x + ")";
    case ir::MathFn::Abs: return "fabs" + f + "(" + x + ")";
    }
    return x;
  }

  std::string load(const Expr &e) {
    const ir::TensorDecl &t = *e->tensor;
    std::string element = names_.tensor(&t) + "[" + cOffset(t, e->args, names_) + "]";
    if (t.dtype == ScalarType::F16) element = "tk_f16_to_f32(" + element + ")";
    else if (t.dtype == ScalarType::BF16) element = "tk_bf16_to_f32(" + element + ")";
    else if (t.dtype == ScalarType::Bool) element = "(" + element + " != 0)";
    // The scheduler's guard, or, for a padded read it left without one,
    // the bounds: nothing outside the tensor is ever read.
    std::vector<std::string> guard;
    if (e->pred) guard.push_back(print(e->pred));
    else if (e->pad)
      for (size_t d = 0; d < t.rank(); ++d) {
        std::string i = print(e->args[d]);
        guard.push_back(fmt::format("0 <= {0} && {0} < {1}", i, print(t.shape[d])));
      }
    if (guard.empty()) return element;
    std::string cond;
    for (const std::string &g : guard) cond += (cond.empty() ? "" : " && ") + g;
    std::string pad = e->pad ? as(e->pad, t.dtype) : convert("0", ScalarType::I64, t.dtype);
    return "((" + cond + ") ? " + element + " : " + pad + ")";
  }

  CNames &names_;
};

} // namespace

const std::string &CNames::tensor(const ir::TensorDecl *t) {
  auto it = tensors_.find(t);
  if (it != tensors_.end()) return it->second;
  std::string id = fresh(t->name);
  return tensors_[t] = id;
}

std::string CNames::fresh(const std::string &base) {
  std::string s = sanitize(base);
  if (reservedC(s)) s += "_";
  std::string id = s;
  for (int i = 1; used_.count(id); ++i) id = fmt::format("{}_{}", s, i);
  used_.insert(id);
  return id;
}

const std::string &CNames::get(const std::string &key, const std::string &base) {
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  std::string id = fresh(base);
  return ids_[key] = id;
}

std::string cValueType(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16:
  case ScalarType::F32: return "float";
  case ScalarType::F64: return "double";
  case ScalarType::I8: return "int8_t";
  case ScalarType::I32: return "int32_t";
  case ScalarType::I64: return "int64_t";
  case ScalarType::Bool: return "int";
  }
  return "int";
}

std::string cExpr(const Expr &e, CNames &names) { return Printer(names).print(e); }

std::string cOffset(const ir::TensorDecl &t, const std::vector<Expr> &indices, CNames &names) {
  Printer p(names);
  if (indices.empty()) return "0";
  std::string off = p.as(indices[0], ScalarType::I64);
  for (size_t d = 1; d < indices.size(); ++d)
    off = "(" + off + ") * " + p.as(t.shape[d], ScalarType::I64) + " + " + p.as(indices[d], ScalarType::I64);
  return off;
}

std::string cStored(const std::string &value, ScalarType from, ScalarType to) {
  if (to == ScalarType::F16) return "tk_f32_to_f16(" + convert(value, from, ScalarType::F32) + ")";
  if (to == ScalarType::BF16) return "tk_f32_to_bf16(" + convert(value, from, ScalarType::F32) + ")";
  if (to == ScalarType::Bool) return "(uint8_t)" + convert(value, from, ScalarType::Bool);
  return convert(value, from, to);
}

} // namespace tk::sunway
