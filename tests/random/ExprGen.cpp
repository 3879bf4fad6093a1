#include "tests/random/ExprGen.h"

#include <algorithm>
#include <cmath>

namespace tk::randprog {

namespace {

constexpr long double kFloatSanity = 1e15L; // any float value: far from f32 overflow

std::string floatText(long double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6Lg", v);
  std::string s = buf;
  // A FLOAT needs a point with digits on both sides or an exponent ("1e-05").
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

Val intConst(int64_t v, Ty t, bool weak) {
  Val r;
  if (v == INT64_MIN) r.node = binary("-", unary("-", lit("9223372036854775807")), lit("1"));
  else if (v < 0) r.node = unary("-", lit(std::to_string(-v)));
  else r.node = lit(std::to_string(v));
  r.type = t;
  r.weak = weak;
  r.lo = r.hi = static_cast<long double>(v);
  return r;
}

} // namespace

ExprGen::ExprGen(Rng &rng, std::vector<TensorInfo> readable, std::vector<ScalarInfo> scalars,
                 std::vector<Extent> symbols, ExprOptions opts)
    : rng_(rng), readable_(std::move(readable)), scalars_(std::move(scalars)), symbols_(std::move(symbols)),
      opts_(opts) {}

bool ExprGen::fits(const Val &v, Ty t) {
  if (t == Ty::Bool) return v.type == Ty::Bool;
  if (v.type == Ty::Bool) return false;
  if (isInt(t)) return isInt(v.type) && v.lo >= intMin(t) && v.hi <= intMax(t);
  long double m = std::max(std::fabs(v.lo), std::fabs(v.hi));
  return m <= floatCap(t) && m <= kFloatSanity;
}

Val ExprGen::generate(Want want, std::vector<VarInfo> lhs) {
  vars_ = std::move(lhs);
  symUses_.clear();
  for (const VarInfo &v : vars_)
    for (const std::string &s : v.extent.syms) ++symUses_[s];
  for (auto &[s, n] : symUses_)
    if (n >= 2) squared_.insert(s);
  reduceDepth_ = 0;
  slotReduce_ = nullptr;
  Val v;
  std::optional<Val> con;
  if (opts_.contraction) con = reduce(want, opts_.maxDepth - 1, &*opts_.contraction);
  if (con) {
    v = *con;
    // An epilogue: bias, scaling, activation.
    if (rng_.chance(0.5)) {
      if (auto r = arith(rng_.pick(std::vector<std::string>{"+", "*", "-"}), v, gen(want, 1))) v = *r;
    } else if (want == Want::Float && rng_.chance(0.3)) {
      v = mathCall(v);
    }
  } else {
    v = gen(want, opts_.maxDepth);
  }
  // Side effects of subexpressions the generator tried and dropped must not
  // count: anchoring and the kernel-mode reduction come from the final tree.
  std::set<std::string> anchors;
  collectAnchors(*v.node, anchors);
  lhsResult_ = vars_;
  for (VarInfo &l : lhsResult_) l.anchored = anchors.count(l.name) > 0;
  slotReduce_ = findSlot(v.node);
  return v;
}

Val ExprGen::gen(Want want, int depth) {
  switch (want) {
  case Want::Float: return rng_.chance(0.12) ? genInt(depth) : genFloat(depth);
  case Want::Int: return genInt(depth);
  case Want::Bool: return genBool(depth);
  }
  return genFloat(depth);
}

Val ExprGen::literalFloat(Ty like) {
  static const std::vector<long double> values = {0.5, 1.5, 2.0, 0.25, 3.0, 0.125, 1e-3, 7.5, 100.0};
  long double v = rng_.pick(values);
  if (rng_.chance(0.25)) v = -v;
  Val r;
  r.node = lit(floatText(v));
  r.type = isFloat(like) ? like : Ty::F32;
  r.weak = true;
  r.lo = r.hi = v;
  return r;
}

Val ExprGen::literalInt(Ty like) {
  int64_t v = rng_.range(0, 9);
  if (rng_.chance(0.2)) v = -v;
  return intConst(v, isInt(like) ? like : Ty::I64, true);
}

Val ExprGen::floatLeaf() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    switch (rng_.weighted({60, 12, 8, 6, 6})) {
    case 0:
      if (auto r = read(Want::Float)) return *r;
      break;
    case 1: {
      std::vector<const ScalarInfo *> fs;
      for (const ScalarInfo &s : scalars_)
        if (isFloat(s.type)) fs.push_back(&s);
      if (fs.empty()) break;
      const ScalarInfo *s = rng_.pick(fs);
      return Val{name(s->name), s->type, false, true, s->lo, s->hi};
    }
    case 2: {
      if (vars_.empty()) break;
      const VarInfo &v = rng_.pick(vars_);
      Ty t = rng_.chance(0.5) ? Ty::F32 : Ty::F64;
      return Val{call(tyName(t), {name(v.name)}), t, false, true, 0, static_cast<long double>(v.extent.maxValue)};
    }
    case 3: {
      if (symbols_.empty()) break;
      const Extent &s = rng_.pick(symbols_);
      return Val{call("f32", {name(s.text)}), Ty::F32, false, true, 1, static_cast<long double>(s.maxValue)};
    }
    default: break;
    }
  }
  Val l = literalFloat(Ty::F32);
  l.weak = false; // standing alone it is an f32 value
  return l;
}

Val ExprGen::intLeaf() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    switch (rng_.weighted({55, 12, 10, 8})) {
    case 0:
      if (auto r = read(Want::Int)) return *r;
      break;
    case 1: {
      std::vector<const ScalarInfo *> is;
      for (const ScalarInfo &s : scalars_)
        if (isInt(s.type)) is.push_back(&s);
      if (is.empty()) break;
      const ScalarInfo *s = rng_.pick(is);
      return Val{name(s->name), s->type, false, true, s->lo, s->hi};
    }
    case 2: {
      if (vars_.empty()) break;
      const VarInfo &v = rng_.pick(vars_);
      return Val{name(v.name), Ty::I64, false, true, 0, static_cast<long double>(v.extent.maxValue - 1)};
    }
    case 3: {
      if (symbols_.empty()) break;
      const Extent &s = rng_.pick(symbols_);
      return Val{name(s.text), Ty::I64, false, true, 1, static_cast<long double>(s.maxValue)};
    }
    }
  }
  Val l = literalInt(Ty::I64);
  l.weak = false;
  return l;
}

// a op b for + - * /, with the language's typing of weak literals; nullopt
// when the result could overflow its type or the divisor could be near 0.
std::optional<Val> ExprGen::arith(const std::string &op, const Val &a, const Val &b) {
  if (a.weak && b.weak) return std::nullopt;
  if (a.type == Ty::Bool || b.type == Ty::Bool) return std::nullopt;
  Ty t;
  if (a.weak) t = b.type;
  else if (b.weak) t = a.type;
  else t = promote(a.type, b.type);
  const Val &w = a.weak ? a : b;
  if ((a.weak || b.weak) && isFloat(w.type) && !isFloat(t)) return std::nullopt; // 1.5 cannot become an integer
  if ((a.weak || b.weak) && isInt(t) && (w.lo < intMin(t) || w.hi > intMax(t))) return std::nullopt;
  long double lo, hi;
  if (op == "/") {
    if (isInt(t)) {
      // Integer division only by a positive constant (division by zero is undefined).
      if (!(b.lo == b.hi && b.lo >= 1)) return std::nullopt;
      lo = std::floor(a.lo / b.lo);
      hi = std::floor(a.hi / b.lo);
    } else {
      if (b.lo <= 0.2L && b.hi >= -0.2L) return std::nullopt;
      long double c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
      lo = *std::min_element(c, c + 4);
      hi = *std::max_element(c, c + 4);
    }
  } else if (op == "%") {
    if (!isInt(t) || !(b.lo == b.hi && b.lo >= 1)) return std::nullopt;
    lo = 0;
    hi = b.lo - 1;
  } else if (op == "*") {
    long double c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    lo = *std::min_element(c, c + 4);
    hi = *std::max_element(c, c + 4);
  } else if (op == "+") {
    lo = a.lo + b.lo;
    hi = a.hi + b.hi;
  } else {
    lo = a.lo - b.hi;
    hi = a.hi - b.lo;
  }
  Val r{binary(op, a.node, b.node), t, false, false, lo, hi};
  if (!fits(r, t)) return std::nullopt;
  if (isInt(t)) r.exact = a.exact && b.exact;
  // Scaling an exact float by a power of two up is exact.
  int e2 = 0;
  if (op == "*" && isFloat(t) && b.weak && a.exact && b.lo >= 1 && std::frexp(static_cast<double>(b.lo), &e2) == 0.5)
    r.exact = true;
  return r;
}

// A value too large for the type it ends up in is squashed by tanh.
Val ExprGen::tame(Val v, Ty storeAs) {
  if (fits(v, storeAs)) return v;
  if (isInt(storeAs) && isInt(v.type)) {
    // Clamp into the target's range (documented max/min, exact).
    Val r = v;
    Val hiC = intConst(intMax(storeAs), v.type, true), loC = intConst(intMin(storeAs) + 1, v.type, true);
    r.node = call("max", {call("min", {v.node, hiC.node}), loC.node});
    r.lo = std::max(v.lo, static_cast<long double>(intMin(storeAs) + 1));
    r.hi = std::min(v.hi, static_cast<long double>(intMax(storeAs)));
    if (r.lo > r.hi) r.lo = r.hi;
    return r;
  }
  Ty t = isFloat(v.type) ? v.type : Ty::F32;
  return Val{call("tanh", {v.node}), t, false, false, -1, 1};
}

Val ExprGen::castTo(Ty t, const Val &a) {
  Val r = a;
  r.node = call(tyName(t), {a.node});
  r.type = t;
  r.weak = false;
  if (t == Ty::Bool) {
    r.lo = 0;
    r.hi = 1;
    return r;
  }
  if (isInt(t)) {
    if (isFloat(a.type)) { // truncates toward zero, saturates (docs/abi.md)
      r.lo = std::max<long double>(std::trunc(a.lo), intMin(t));
      r.hi = std::min<long double>(std::trunc(a.hi), intMax(t));
    } else if (a.type == Ty::Bool) {
      r.lo = 0;
      r.hi = 1;
    }
  } else if (a.type == Ty::Bool) {
    r.lo = 0;
    r.hi = 1;
  }
  return r;
}

Val ExprGen::selectOf(const Val &a, const Val &b) {
  Val c = genBool(1);
  Ty t = a.weak ? b.type : b.weak ? a.type : promote(a.type, b.type);
  Val r{call("select", {c.node, a.node, b.node}), t, false, a.exact && b.exact && c.exact,
        std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  return r;
}

Val ExprGen::mathCall(const Val &a) {
  bool isI = !isFloat(a.type);
  Ty rt = isI ? Ty::F32 : a.type;
  long double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
  NodePtr one = lit(isI ? "1" : "1.0");
  switch (rng_.weighted({3, 3, 2, 2, 3, 2, 3, 2})) {
  case 0: { // exp of a bounded argument
    NodePtr arg = a.node;
    long double lo = a.lo, hi = a.hi;
    if (hi > 8 || lo < -40) {
      arg = call("tanh", {a.node});
      lo = -1;
      hi = 1;
    }
    Val r{call("exp", {arg}), rt, false, false, std::exp(lo), std::exp(hi)};
    if (!fits(r, rt)) return Val{call("tanh", {a.node}), rt, false, false, -1, 1};
    return r;
  }
  case 1: // log of a value >= 1
    return Val{call("log", {binary("+", call("abs", {a.node}), one)}), rt, false, false, 0, std::log(m + 1)};
  case 2:
    return Val{call("sqrt", {binary("+", call("abs", {a.node}), lit(isI ? "1" : "0.25"))}), rt, false, false, 0,
               std::sqrt(m + 1)};
  case 3:
    return Val{call("rsqrt", {binary("+", call("abs", {a.node}), lit(isI ? "1" : "0.25"))}), rt, false, false, 0, 2};
  case 4: return Val{call("tanh", {a.node}), rt, false, false, -1, 1};
  case 5: return Val{call("erf", {a.node}), rt, false, false, -1, 1};
  case 6: { // abs keeps integers integer
    if (isI && a.lo <= intMin(a.type)) break;
    long double lo = (a.lo <= 0 && a.hi >= 0) ? 0 : std::min(std::fabs(a.lo), std::fabs(a.hi));
    return Val{call("abs", {a.node}), a.type, false, a.exact, lo, m};
  }
  case 7: { // pow of a positive base
    if (isI) break;
    long double e = rng_.pick(std::vector<long double>{2.0, 0.5, 3.0});
    long double top = std::pow(m + 0.5L, e);
    Val r{call("pow", {binary("+", call("abs", {a.node}), lit("0.5")), lit(floatText(e))}), rt, false, false, 0, top};
    if (fits(r, rt)) return r;
    break;
  }
  }
  return Val{call("tanh", {a.node}), rt, false, false, -1, 1};
}

// Documented extremes: the largest and smallest values of each integer
// type, folded constant expressions near INT64_MIN/MAX (all in range).
Val ExprGen::extremeInt(const Val &a) {
  // Typed as the narrower operand: the program is valid whichever type the
  // folded constant gets, because the value fits both.
  Ty t = a.type == Ty::Bool ? Ty::I32 : a.type;
  Val r = a;
  switch (rng_.below(5)) {
  case 0: r.node = call("min", {a.node, intConst(intMax(t), t, true).node}); break;
  case 1: // `-MAX - 1`, the type's minimum, as a constant expression
    r.node = call("max", {a.node, binary("-", unary("-", lit(std::to_string(intMax(t)))), lit("1"))});
    break;
  case 2: // + (2^63-1 - (2^63-2)) = + 1
    r.node = binary("+", a.node, binary("-", lit("9223372036854775807"), lit("9223372036854775806")));
    r.lo = a.lo + 1;
    r.hi = a.hi + 1;
    break;
  case 3: // * (INT64_MIN / 2^62) = * -2
    r.node = binary("*", a.node,
                    binary("/", binary("-", unary("-", lit("9223372036854775807")), lit("1")), lit("4611686018427387904")));
    r.lo = -2 * a.hi;
    r.hi = -2 * a.lo;
    break;
  default: // i64(a) + 9223372036854775800 - 9223372036854775800
    if (a.hi > 7) return a;
    r.node = binary("-", binary("+", call("i64", {a.node}), lit("9223372036854775800")), lit("9223372036854775800"));
    r.type = t = Ty::I64;
    break;
  }
  r.type = t;
  r.weak = false;
  return fits(r, t) ? r : a;
}

} // namespace tk::randprog
