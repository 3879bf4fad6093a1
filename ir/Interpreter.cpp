#include "ir/Interpreter.h"
#include "ir/InterpreterValue.h"

#include "ir/Diagnostics.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace tk::ir {

namespace {

using namespace interp;

// Library calls (exp, erf, ...) are allowed a few ulps, not half of one.
constexpr double kCallUlps = 8;

struct Buffer {
  ScalarType dtype = ScalarType::F32;
  std::vector<int64_t> shape, strides;
  std::vector<double> data, err;
};

struct Binding {
  const std::string *name;
  Value value;
};

class Evaluator {
public:
  std::vector<Binding> env; // symbols and scalars first, then index variables
  std::unordered_map<const TensorDecl *, Buffer> buffers;

  Value eval(const ExprNode &e);
  std::vector<int64_t> evalShape(const TensorDecl &t);

  // Calls fn() for every point of the domain given by `extents`, with the
  // variables bound (row-major order).
  template <typename F>
  void forEachPoint(const std::vector<IndexVar> &vars, const std::vector<int64_t> &extents, F fn) {
    size_t base = env.size();
    for (const IndexVar &v : vars) env.push_back({&v.name, intVal(0)});
    bool empty = false;
    for (int64_t x : extents) empty |= x <= 0;
    while (!empty) {
      fn();
      size_t d = vars.size();
      while (d > 0 && ++env[base + d - 1].value.i == extents[d - 1]) env[base + --d].value.i = 0;
      if (d == 0) break;
    }
    env.resize(base);
  }

private:
  Value lookup(const ExprNode &e) const;
  Value evalBinary(const ExprNode &e);
  Value evalCall(const ExprNode &e);
  Value evalLoad(const ExprNode &e);
  Value evalReduce(const ExprNode &e);
};

Value Evaluator::lookup(const ExprNode &e) const {
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (*it->name == e.name) return coerce(it->value, e.type);
  throw InternalError("interpreter: unbound variable `" + e.name + "`");
}

std::vector<int64_t> Evaluator::evalShape(const TensorDecl &t) {
  std::vector<int64_t> shape;
  for (const Expr &x : t.shape) shape.push_back(eval(*x).asInt());
  return shape;
}

Value Evaluator::eval(const ExprNode &e) {
  switch (e.kind) {
  case ExprKind::IntImm:
  case ExprKind::BoolImm: return coerce(intVal(e.intValue), e.type);
  case ExprKind::FloatImm:
    return isFloat(e.type) ? floatVal(roundToType(e.floatValue, e.type), 0)
                           : coerce(floatVal(e.floatValue, 0), e.type);
  case ExprKind::Var: return lookup(e);
  case ExprKind::Hole: throw InternalError("interpreter: unfilled hole in tensor IR");
  case ExprKind::Unary: {
    Value x = eval(*e.args[0]);
    if (e.unOp == UnOp::Not) return intVal(x.asInt() == 0);
    x = coerce(x, e.type);
    if (x.isInt) return intVal(wrapInt(wrapSub(0, x.i), e.type));
    return floatVal(-x.f, x.err);
  }
  case ExprKind::Binary: return evalBinary(e);
  case ExprKind::Select: {
    bool c = eval(*e.args[0]).asDouble() != 0;
    return coerce(eval(*e.args[c ? 1 : 2]), e.type);
  }
  case ExprKind::Call: return evalCall(e);
  case ExprKind::Cast: return convert(eval(*e.args[0]), e.args[0]->type, e.type);
  case ExprKind::Load: return evalLoad(e);
  case ExprKind::Reduce: return evalReduce(e);
  case ExprKind::Shuffle:
    // Shuffles exist in cuda kernels only; an op (what this evaluates) states
    // the result without them, and Sema rejects them in op bodies.
    throw InternalError("interpreter: warp shuffle in tensor IR");
  }
  throw InternalError("interpreter: unknown expression kind");
}

Value Evaluator::evalBinary(const ExprNode &e) {
  if (isLogical(e.binOp)) {
    bool a = eval(*e.args[0]).asDouble() != 0;
    // Short-circuit, so `K == 0 || N / K > 1` is well defined.
    if (e.binOp == BinOp::And && !a) return intVal(0);
    if (e.binOp == BinOp::Or && a) return intVal(1);
    return intVal(eval(*e.args[1]).asDouble() != 0);
  }
  Value a = eval(*e.args[0]), b = eval(*e.args[1]);
  if (isComparison(e.binOp)) {
    bool fl = !a.isInt || !b.isInt;
    auto cmp = [&](auto x, auto y) {
      switch (e.binOp) {
      case BinOp::EQ: return x == y;
      case BinOp::NE: return x != y;
      case BinOp::LT: return x < y;
      case BinOp::LE: return x <= y;
      case BinOp::GT: return x > y;
      default: return x >= y;
      }
    };
    return intVal(fl ? cmp(a.asDouble(), b.asDouble()) : cmp(a.i, b.i));
  }
  if (!isFloat(e.type)) {
    int64_t x = a.asInt(), y = b.asInt(), r = 0;
    switch (e.binOp) {
    case BinOp::Add: r = wrapAdd(x, y); break;
    case BinOp::Sub: r = wrapSub(x, y); break;
    case BinOp::Mul: r = wrapMul(x, y); break;
    case BinOp::Div: r = floorDivInt(x, y, e.type); break;
    case BinOp::Mod: r = floorModInt(x, y, e.type); break;
    case BinOp::CDiv: r = ceilDivInt(x, y, e.type); break;
    case BinOp::Min: r = std::min(x, y); break;
    case BinOp::Max: r = std::max(x, y); break;
    default: throw InternalError("interpreter: integer pow");
    }
    return intVal(wrapInt(r, e.type));
  }
  double x = a.asDouble(), y = b.asDouble(), ex = a.isInt ? 0 : a.err, ey = b.isInt ? 0 : b.err;
  double u = unitRoundoff(e.type), r = 0, err = 0;
  switch (e.binOp) {
  case BinOp::Add: r = x + y; err = ex + ey; break;
  case BinOp::Sub: r = x - y; err = ex + ey; break;
  case BinOp::Mul: r = x * y; err = std::fabs(x) * ey + std::fabs(y) * ex; break;
  case BinOp::Div: r = x / y; err = (ex + std::fabs(r) * ey) / std::fabs(y); break;
  // Floor modulo, as the backends compute it (the frontend allows `%` on
  // integers only).
  case BinOp::Mod: r = x - std::floor(x / y) * y; err = ex + ey * std::fabs(std::floor(x / y)); break;
  case BinOp::CDiv: r = std::ceil(x / y); break;
  // llvm.minnum / maxnum: a NaN operand loses.
  case BinOp::Min: r = std::fmin(x, y); err = std::max(ex, ey); break;
  case BinOp::Max: r = std::fmax(x, y); err = std::max(ex, ey); break;
  case BinOp::Pow:
    r = std::pow(x, y);
    err = x > 0 ? std::fabs(r) * (std::fabs(y / x) * ex + std::fabs(std::log(x)) * ey) : ex + ey;
    u *= kCallUlps;
    break;
  default: throw InternalError("interpreter: bad binary operator");
  }
  return floatVal(r, err + u * std::fabs(r));
}

Value Evaluator::evalCall(const ExprNode &e) {
  Value v = eval(*e.args[0]);
  if (!isFloat(e.type)) { // abs of an integer: wraps (abs(-128) of an i8 is -128, like llvm.abs)
    int64_t x = v.asInt();
    return intVal(wrapInt(x < 0 ? wrapSub(0, x) : x, e.type));
  }
  double x = v.asDouble(), ex = v.isInt ? 0 : v.err, r = 0, d = 0; // d = |f'(x)|
  switch (e.fn) {
  case MathFn::Exp: r = std::exp(x); d = r; break;
  case MathFn::Log: r = std::log(x); d = 1 / std::fabs(x); break;
  case MathFn::Sqrt: r = std::sqrt(x); d = 0.5 / r; break;
  case MathFn::Rsqrt: r = 1 / std::sqrt(x); d = 0.5 * r / x; break;
  case MathFn::Tanh: r = std::tanh(x); d = 1 - r * r; break;
  case MathFn::Erf: r = std::erf(x); d = 1.1283791670955126 * std::exp(-x * x); break;
  case MathFn::Abs: return floatVal(std::fabs(x), ex);
  }
  return floatVal(r, std::fabs(d) * ex + kCallUlps * unitRoundoff(e.type) * std::fabs(r));
}

Value Evaluator::evalLoad(const ExprNode &e) {
  auto padValue = [&]() { return e.pad ? coerce(eval(*e.pad), e.type) : coerce(intVal(0), e.type); };
  if (e.pred && eval(*e.pred).asDouble() == 0) return padValue();
  auto it = buffers.find(e.tensor.get());
  if (it == buffers.end()) throw InternalError("interpreter: load from unknown tensor `" + e.tensor->name + "`");
  const Buffer &buf = it->second;
  if (e.args.size() != buf.shape.size())
    throw InternalError("interpreter: rank mismatch in load from `" + e.tensor->name + "`");
  int64_t offset = 0;
  for (size_t d = 0; d < e.args.size(); ++d) {
    int64_t idx = eval(*e.args[d]).asInt();
    if (idx < 0 || idx >= buf.shape[d]) {
      if (e.pad) return padValue();
      throw InternalError("interpreter: out-of-range load from `" + e.tensor->name + "` without `else`");
    }
    offset += idx * buf.strides[d];
  }
  if (!isFloat(buf.dtype)) return intVal(static_cast<int64_t>(buf.data[offset]));
  return floatVal(buf.data[offset], buf.err[offset]);
}

Value Evaluator::evalReduce(const ExprNode &e) {
  std::vector<int64_t> extents;
  for (const IndexVar &v : e.rvars) extents.push_back(eval(*v.extent).asInt());
  const ExprNode &body = *e.args[0];
  ScalarType t = e.type;
  if (!isFloat(t)) {
    int64_t lo = t == ScalarType::I8 ? INT8_MIN : t == ScalarType::I32 ? INT32_MIN : INT64_MIN;
    int64_t hi = t == ScalarType::I8 ? INT8_MAX : t == ScalarType::I32 ? INT32_MAX : INT64_MAX;
    int64_t acc = e.reduceOp == ReduceOp::Sum ? 0 : e.reduceOp == ReduceOp::Prod ? 1
                : e.reduceOp == ReduceOp::Max ? lo : hi;
    forEachPoint(e.rvars, extents, [&] {
      int64_t x = eval(body).asInt();
      switch (e.reduceOp) {
      case ReduceOp::Sum: acc = wrapInt(wrapAdd(acc, x), t); break;
      case ReduceOp::Prod: acc = wrapInt(wrapMul(acc, x), t); break;
      case ReduceOp::Max: acc = std::max(acc, x); break;
      case ReduceOp::Min: acc = std::min(acc, x); break;
      }
    });
    return intVal(acc);
  }
  double acc = e.reduceOp == ReduceOp::Sum ? 0 : e.reduceOp == ReduceOp::Prod ? 1
             : e.reduceOp == ReduceOp::Max ? -INFINITY : INFINITY;
  double errSum = 0, absSum = 0, relSum = 0, errMax = 0;
  int64_t n = 0;
  forEachPoint(e.rvars, extents, [&] {
    Value v = eval(body);
    double x = v.asDouble(), ex = v.isInt ? 0 : v.err;
    ++n;
    switch (e.reduceOp) {
    case ReduceOp::Sum: acc += x; errSum += ex; absSum += std::fabs(x); break;
    case ReduceOp::Prod: acc *= x; relSum += x != 0 ? ex / std::fabs(x) : 0; break;
    case ReduceOp::Max: acc = std::fmax(acc, x); errMax = std::max(errMax, ex); break;
    case ReduceOp::Min: acc = std::fmin(acc, x); errMax = std::max(errMax, ex); break;
    }
  });
  double u = unitRoundoff(t);
  switch (e.reduceOp) {
  case ReduceOp::Sum: return floatVal(acc, errSum + static_cast<double>(n) * u * absSum);
  case ReduceOp::Prod: return floatVal(acc, std::fabs(acc) * (relSum + static_cast<double>(n) * u));
  default: return floatVal(acc, errMax);
  }
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t x : shape) n *= x;
  return n;
}

// Binds symbols and scalar parameters, checks `where`, computes extents.
InterpResult bindAndCheck(const Op &op, const InterpArgs &args, Evaluator &ev) {
  InterpResult res;
  for (const std::string &s : op.symbols) {
    auto it = args.symbols.find(s);
    if (it == args.symbols.end()) throw std::invalid_argument("interpreter: no value for symbol " + s);
    ev.env.push_back({&s, intVal(it->second)});
    if (it->second < 0 && res.status == 0) {
      res.status = 1;
      res.message = fmt::format("shape symbol {} is negative ({})", s, it->second);
    }
  }
  for (const Param &p : op.inputs) {
    if (!p.isScalar()) continue;
    auto it = args.scalars.find(p.name);
    if (it == args.scalars.end()) throw std::invalid_argument("interpreter: no value for " + p.name);
    ev.env.push_back({&p.name, isFloat(p.type) ? floatVal(roundToType(it->second, p.type), 0)
                                               : intVal(floatToInt(it->second, p.type))});
  }
  if (res.status != 0) return res;
  try {
    for (size_t i = 0; i < op.where.size(); ++i) {
      if (ev.eval(*op.where[i].cond).asDouble() != 0) continue;
      res.status = 1;
      res.failedWhere = static_cast<int>(i);
      res.message = "where constraint `" + printExpr(op.where[i].cond) + "` is false";
      return res;
    }
    auto addShape = [&](const TensorDecl &t) {
      std::vector<int64_t> shape = ev.evalShape(t);
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] < 0 && res.status == 0) {
          res.status = 1;
          res.message = fmt::format("extent {} of `{}` is negative ({})", d, t.name, shape[d]);
        }
      res.shapes[t.name] = shape;
    };
    for (const Param &p : op.inputs)
      if (!p.isScalar()) addShape(*p.tensor);
    for (const TensorPtr &t : op.outputs) addShape(*t);
    for (const TensorPtr &t : op.intermediates) addShape(*t);
  } catch (const std::domain_error &err) {
    res.status = 1;
    res.message = err.what();
  }
  return res;
}

} // namespace

InterpResult computeShapes(const Op &op, const InterpArgs &args) {
  Evaluator ev;
  return bindAndCheck(op, args, ev);
}

InterpResult interpret(const Op &op, const InterpArgs &args) {
  Evaluator ev;
  InterpResult res = bindAndCheck(op, args, ev);
  if (res.status != 0) return res;
  auto makeBuffer = [&](const TensorDecl &t) -> Buffer & {
    Buffer &b = ev.buffers[&t];
    b.dtype = t.dtype;
    b.shape = res.shapes.at(t.name);
    b.strides = stridesOf(b.shape);
    b.data.assign(static_cast<size_t>(elementCount(b.shape)), 0.0);
    b.err.assign(b.data.size(), 0.0);
    return b;
  };
  for (const Param &p : op.inputs) {
    if (p.isScalar()) continue;
    Buffer &b = makeBuffer(*p.tensor);
    auto it = args.tensors.find(p.name);
    if (it == args.tensors.end() || it->second.size() != b.data.size())
      throw std::invalid_argument("interpreter: input `" + p.name + "` missing or of the wrong size");
    for (size_t i = 0; i < b.data.size(); ++i) b.data[i] = roundToType(it->second[i], b.dtype);
  }
  for (const TensorPtr &t : op.outputs) makeBuffer(*t);
  for (const TensorPtr &t : op.intermediates) makeBuffer(*t);

  for (const Assign &a : op.body) {
    auto it = ev.buffers.find(a.target.get());
    if (it == ev.buffers.end() || it->second.shape.size() != a.vars.size())
      throw InternalError("interpreter: bad assignment target `" + a.target->name + "`");
    Buffer &target = it->second;
    std::vector<double> data(target.data.size()), err(target.data.size());
    size_t k = 0;
    ev.forEachPoint(a.vars, target.shape, [&] {
      Value v = convert(ev.eval(*a.value), a.value->type, target.dtype);
      data[k] = v.asDouble();
      err[k++] = v.isInt ? 0 : v.err;
    });
    target.data = std::move(data);
    target.err = std::move(err);
  }

  auto collect = [&](const TensorPtr &t) {
    Buffer &b = ev.buffers.at(t.get());
    res.tensors[t->name] = std::move(b.data);
    res.errorBounds[t->name] = std::move(b.err);
  };
  for (const TensorPtr &t : op.outputs) collect(t);
  for (const TensorPtr &t : op.intermediates) collect(t);
  return res;
}

} // namespace tk::ir
