// The productions of ExprGen: which expression forms a float, integer or
// bool value may take (docs/language.md §3.2), each kept within the
// ranges that make the program's result well defined.
#include "tests/random/ExprGen.h"

#include <algorithm>
#include <cmath>

namespace tk::randprog {

Val ExprGen::genFloat(int depth) {
  if (depth <= 0 || rng_.chance(0.2)) return floatLeaf();
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (rng_.weighted({30, 6, 16, 4, 8, 5, 14, 5, 3})) {
    case 0: { // + - *
      Val a = genFloat(depth - 1);
      Val b = rng_.chance(0.3) ? literalFloat(a.type) : gen(Want::Float, depth - 1);
      if (rng_.chance(0.5)) std::swap(a, b);
      if (auto r = arith(rng_.pick(std::vector<std::string>{"+", "-", "*"}), a, b)) return *r;
      break;
    }
    case 1: { // division by something bounded away from zero
      Val a = genFloat(depth - 1);
      Val d;
      switch (rng_.below(3)) {
      case 0: {
        Val x = genFloat(depth - 1);
        long double m = std::max(std::fabs(x.lo), std::fabs(x.hi));
        d = Val{binary("+", call("abs", {x.node}), lit("1.0")), x.type, false, false, 1, m + 1};
        break;
      }
      case 1: {
        for (const ScalarInfo &s : scalars_)
          if (isFloat(s.type) && s.lo > 0) d = Val{name(s.name), s.type, false, true, s.lo, s.hi};
        if (!d.node) d = literalFloat(a.type);
        break;
      }
      default: d = literalFloat(a.type);
      }
      if (auto r = arith("/", a, d)) return *r;
      break;
    }
    case 2: return mathCall(gen(Want::Float, depth - 1));
    case 3: {
      Val a = genFloat(depth - 1);
      a.node = unary("-", a.node);
      std::swap(a.lo, a.hi);
      a.lo = -a.lo;
      a.hi = -a.hi;
      a.weak = false;
      return a;
    }
    case 4: { // max / min (calls)
      Val a = genFloat(depth - 1), b = rng_.chance(0.3) ? literalFloat(a.type) : gen(Want::Float, depth - 1);
      if (a.type == Ty::Bool || b.type == Ty::Bool) break;
      if (b.weak && isFloat(b.type) && !isFloat(a.type)) break;
      bool mx = rng_.chance(0.5);
      Ty t = b.weak ? a.type : promote(a.type, b.type);
      return Val{call(mx ? "max" : "min", {a.node, b.node}), t, false, a.exact && b.exact,
                 mx ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo), mx ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi)};
    }
    case 5: {
      Val a = genFloat(depth - 1), b = genFloat(depth - 1);
      return selectOf(a, b);
    }
    case 6:
      if (auto r = reduce(Want::Float, depth - 1)) return *r;
      break;
    case 7: { // conversion to another float type
      Val a = gen(Want::Float, depth - 1);
      Ty t = rng_.pick(std::vector<Ty>{Ty::F16, Ty::BF16, Ty::F32, Ty::F64});
      Val r = castTo(t, a);
      r.exact = a.exact; // a conversion rounds deterministically
      if (fits(r, t)) return r;
      break;
    }
    default: { // documented extremes that leave the value unchanged
      Val a = genFloat(depth - 1);
      // A float literal with an integer operand makes the call float
      // (docs/language.md): only a float value keeps its type here (seed 93216).
      if (!isFloat(a.type)) break;
      static const std::vector<std::string> forms = {"max(@, -inf)", "min(@, inf)", "min(@, 60000.0)",
                                                     "max(@, -3.0e38)"};
      std::string f = rng_.pick(forms);
      if (a.type == Ty::F16 && f.find("3.0e38") != std::string::npos) f = "max(@, -60000.0)";
      NodePtr bound = lit(f.substr(f.find(", ") + 2, f.size() - f.find(", ") - 3));
      return Val{call(f.substr(0, 3), {a.node, bound}), a.type, false, a.exact, a.lo, a.hi};
    }
    }
  }
  return floatLeaf();
}

Val ExprGen::genInt(int depth) {
  if (depth <= 0 || rng_.chance(0.25)) return intLeaf();
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (rng_.weighted({26, 10, 6, 6, 6, 4, 8, 12, 6, 6})) {
    case 0: { // + - *
      Val a = genInt(depth - 1), b = rng_.chance(0.35) ? literalInt(a.type) : genInt(depth - 1);
      if (rng_.chance(0.5)) std::swap(a, b);
      if (auto r = arith(rng_.pick(std::vector<std::string>{"+", "-", "*"}), a, b)) return *r;
      break;
    }
    case 1: { // floor division and modulo by a positive constant, cdiv
      Val a = genInt(depth - 1);
      Val c = literalInt(a.type);
      c.lo = c.hi = rng_.range(1, 7);
      c.node = lit(std::to_string(static_cast<int>(c.lo)));
      int which = rng_.below(3);
      if (which == 2) {
        if (a.lo < 0) break; // ceiling division of non-negative values only
        return Val{call("cdiv", {a.node, c.node}), a.type, false, a.exact, std::ceil(a.lo / c.lo),
                   std::ceil(a.hi / c.lo)};
      }
      if (auto r = arith(which ? "%" : "/", a, c)) return *r;
      break;
    }
    case 2: {
      Val a = genInt(depth - 1);
      if (a.lo <= intMin(a.type) || a.type == Ty::Bool) break;
      a.node = unary("-", a.node);
      long double lo = -a.hi, hi = -a.lo;
      a.lo = lo;
      a.hi = hi;
      a.weak = false;
      if (fits(a, a.type)) return a;
      break;
    }
    case 3: {
      Val a = genInt(depth - 1), b = rng_.chance(0.3) ? literalInt(a.type) : genInt(depth - 1);
      if (a.type == Ty::Bool || b.type == Ty::Bool) break;
      bool mx = rng_.chance(0.5);
      Ty t = b.weak ? a.type : promote(a.type, b.type);
      return Val{call(mx ? "max" : "min", {a.node, b.node}), t, false, a.exact && b.exact,
                 mx ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo), mx ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi)};
    }
    case 4: {
      Val a = genInt(depth - 1);
      if (a.type == Ty::Bool) break;
      long double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
      if (a.lo <= intMin(a.type)) break;
      return Val{call("abs", {a.node}), a.type, false, a.exact, (a.lo <= 0 && a.hi >= 0) ? 0 : std::min(std::fabs(a.lo), std::fabs(a.hi)), m};
    }
    case 5: return selectOf(genInt(depth - 1), genInt(depth - 1));
    case 6: { // float -> integer conversion (truncates, saturates) of an exact value
      Val f = genExact(true, depth - 1);
      if (!isFloat(f.type)) break;
      Val scaled = f;
      if (rng_.chance(0.6)) {
        Val k = literalFloat(f.type);
        k.lo = k.hi = rng_.pick(std::vector<long double>{8, 16, 256});
        k.node = lit(std::to_string(static_cast<int>(k.lo)) + ".0");
        auto s = arith("*", f, k);
        if (!s || !s->exact) break;
        scaled = *s;
      }
      Ty t = rng_.pick(std::vector<Ty>{Ty::I8, Ty::I32, Ty::I64});
      return castTo(t, scaled);
    }
    case 7:
      if (auto r = reduce(Want::Int, depth - 1)) return *r;
      break;
    case 8: { // conversion between integer types that keeps the value
      Val a = genInt(depth - 1);
      Ty t = rng_.pick(std::vector<Ty>{Ty::I8, Ty::I32, Ty::I64});
      Val r = castTo(t, a);
      if (fits(r, t)) return r;
      break;
    }
    default: return extremeInt(genInt(depth - 1));
    }
  }
  return intLeaf();
}

// Values that the compiled code and the reference compute bit for bit:
// what comparisons, selections' conditions and float-to-integer
// conversions may look at without a rounding error deciding the outcome.
Val ExprGen::genExact(bool wantFloat, int depth) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (depth > 0 && rng_.chance(0.35)) {
      Val a = genExact(wantFloat, depth - 1);
      switch (rng_.below(3)) {
      case 0: {
        Val b = genExact(wantFloat, depth - 1);
        if (a.type == Ty::Bool || b.type == Ty::Bool) continue;
        if (b.weak && isFloat(b.type) && !isFloat(a.type)) continue;
        bool mx = rng_.chance(0.5);
        Ty t = b.weak ? a.type : a.weak ? b.type : promote(a.type, b.type);
        return Val{call(mx ? "max" : "min", {a.node, b.node}), t, false, true,
                   mx ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo), mx ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi)};
      }
      case 1:
        if (a.type == Ty::Bool || (isInt(a.type) && a.lo <= intMin(a.type))) continue;
        return Val{call("abs", {a.node}), a.type, false, true, 0, std::max(std::fabs(a.lo), std::fabs(a.hi))};
      default:
        if (!wantFloat) {
          if (auto r = arith(rng_.chance(0.5) ? "+" : "-", a, literalInt(a.type))) return *r;
        }
        continue;
      }
    }
    if (rng_.chance(0.25)) return wantFloat ? literalFloat(Ty::F32) : literalInt(Ty::I64);
    if (auto r = read(wantFloat ? Want::Float : Want::Int)) {
      if (r->exact) return *r;
    }
  }
  for (const ScalarInfo &s : scalars_)
    if (isFloat(s.type) == wantFloat) return Val{name(s.name), s.type, false, true, s.lo, s.hi};
  Val l = wantFloat ? literalFloat(Ty::F32) : literalInt(Ty::I64);
  l.weak = false;
  return l;
}

Val ExprGen::genBool(int depth) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (rng_.weighted({40, 14, 12, 10, 6, 4})) {
    case 0: { // comparison of exact values
      bool f = rng_.chance(0.5);
      Val a = genExact(f, depth - 1), b = genExact(rng_.chance(0.8) ? f : !f, depth - 1);
      if (a.weak && b.weak) break;
      if ((a.weak && isFloat(a.type) && !isFloat(b.type)) || (b.weak && isFloat(b.type) && !isFloat(a.type))) break;
      static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
      return Val{binary(rng_.pick(ops), a.node, b.node), Ty::Bool, false, true, 0, 1};
    }
    case 1:
      if (depth > 0) {
        Val a = genBool(depth - 1), b = genBool(depth - 1);
        return Val{binary(rng_.chance(0.5) ? "&&" : "||", a.node, b.node), Ty::Bool, false, true, 0, 1};
      }
      break;
    case 2:
      if (depth > 0) return Val{unary("!", genBool(depth - 1).node), Ty::Bool, false, true, 0, 1};
      break;
    case 3:
      if (auto r = read(Want::Bool)) return *r;
      break;
    case 4: { // bool(x) of an exact number
      Val a = genExact(rng_.chance(0.5), depth - 1);
      if (a.weak) break;
      return castTo(Ty::Bool, a);
    }
    default:
      if (depth > 0) {
        Val a = genBool(depth - 1), b = genBool(depth - 1);
        return Val{binary(rng_.chance(0.5) ? "==" : "!=", a.node, b.node), Ty::Bool, false, true, 0, 1};
      }
    }
  }
  return Val{lit(rng_.chance(0.5) ? "true" : "false"), Ty::Bool, false, true, 0, 1};
}

} // namespace tk::randprog
