// Reads and reductions of ExprGen: plain, transposed and broadcast reads
// (index variables whose ranges match the tensor's extents), reads at
// shifted or folded indices with an `else` value, and reductions over one
// or two dimensions of a tensor, possibly over a window reaching past its
// edges (docs/language.md §3.1).
#include "tests/random/ExprGen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tk::randprog {

std::vector<const TensorInfo *> ExprGen::tensorsFor(Want want, bool needRank) const {
  std::vector<const TensorInfo *> r;
  for (const TensorInfo &t : readable_) {
    if (needRank && t.shape.empty()) continue;
    bool ok = want == Want::Float ? isFloat(t.type) : want == Want::Int ? isInt(t.type) : t.type == Ty::Bool;
    if (ok) r.push_back(&t);
  }
  return r;
}

std::optional<Val> ExprGen::read(Want want) {
  std::vector<const TensorInfo *> c = tensorsFor(want, false);
  if (c.empty()) return std::nullopt;
  return readTensor(*rng_.pick(c), {});
}

NodePtr ExprGen::index(const Extent &dim) {
  if (vars_.empty()) return lit(std::to_string(rng_.below(2)));
  const VarInfo &v = rng_.pick(vars_);
  NodePtr x = name(v.name);
  NodePtr c = lit(std::to_string(rng_.range(1, 2)));
  switch (rng_.weighted({14, 14, 12, 6, 5, 4, 4, 7, 4, 6})) {
  case 0: return binary("+", x, c);
  case 1: return binary("-", x, c);
  case 2: return binary("-", binary("-", name(dim.text), lit("1")), x); // reversed
  case 3: return binary("/", x, lit("2"));
  case 4: return binary("*", lit("2"), x);
  case 5: return binary("+", binary("*", x, lit("2")), lit("1"));
  case 6: return binary("%", x, lit("3"));
  case 7: return binary("+", x, name(rng_.pick(vars_).name));
  case 8:
    if (!dim.mayBeZero) return binary("%", binary("+", x, c), name(dim.text));
    return binary("+", x, c);
  default: return lit(std::to_string(rng_.below(2)));
  }
}

std::string ExprGen::elseValue(const TensorInfo &t, long double &lo, long double &hi) {
  auto widen = [&](long double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  if (t.type == Ty::Bool) {
    widen(0);
    widen(1);
    return rng_.pick(std::vector<std::string>{"false", "true", "(false)"});
  }
  std::vector<const ScalarInfo *> names;
  for (const ScalarInfo &s : scalars_)
    if (isInt(s.type) || isFloat(t.type)) names.push_back(&s);
  if (!names.empty() && rng_.chance(0.25)) {
    const ScalarInfo *s = rng_.pick(names);
    // An f64 scalar may not fit f16 tensors' ranges in general; ours do.
    switch (rng_.below(3)) {
    case 0: widen(s->lo); widen(s->hi); return s->name;
    case 1: widen(-s->hi); widen(-s->lo); return "-" + s->name;
    default: widen(s->lo + 1); widen(s->hi + 1); return "(" + s->name + (isFloat(s->type) ? " + 1.0)" : " + 1)");
    }
  }
  if (isInt(t.type) || rng_.chance(0.3)) {
    int v = rng_.range(-3, 9);
    widen(v);
    return std::to_string(v);
  }
  long double v = rng_.pick(std::vector<long double>{0.0, 1.5, -2.5, 0.25, 100.0});
  widen(v);
  char buf[32];
  snprintf(buf, sizeof buf, "%.2Lf", v);
  return buf;
}

Val ExprGen::readTensor(const TensorInfo &t, const std::map<size_t, std::pair<size_t, int>> &forced) {
  // A read with `else` may use any index: shifted, folded, or a variable
  // whose range differs from the dimension (it does not constrain ranges).
  bool elseRead = !vars_.empty() && rng_.chance(0.3);
  bool needsElse = false;
  std::vector<NodePtr> idx;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    auto f = forced.find(d);
    if (f != forced.end()) {
      NodePtr v = name(vars_[f->second.first].name);
      if (f->second.second == 0) {
        idx.push_back(v);
      } else {
        idx.push_back(binary("-", v, lit(std::to_string(f->second.second))));
        needsElse = true;
      }
      continue;
    }
    std::vector<size_t> match;
    for (size_t i = 0; i < vars_.size(); ++i)
      if (vars_[i].extent == t.shape[d]) match.push_back(i);
    size_t kind = elseRead ? rng_.weighted({40, 40, 20}) : 0;
    if (kind == 0 && match.empty()) kind = 1;
    if (kind == 2 && vars_.empty()) kind = 1;
    if (kind == 0) {
      size_t v = rng_.pick(match);
      idx.push_back(name(vars_[v].name));
    } else if (kind == 1) {
      idx.push_back(index(t.shape[d]));
      needsElse = true;
    } else {
      idx.push_back(name(rng_.pick(vars_).name));
      needsElse = true;
    }
  }
  auto node = makeNode(NodeKind::Read, "", idx);
  node->tensor = t.name;
  node->brackets = !t.shape.empty() || rng_.chance(0.5);
  Val r{nullptr, t.type, false, t.exact, t.lo, t.hi};
  if (needsElse || (elseRead && !t.shape.empty())) {
    node->elseText = elseValue(t, r.lo, r.hi);
    node->parenRead = rng_.chance(0.5);
  }
  r.node = node;
  return r;
}

bool ExprGen::pushVar(VarInfo v) {
  if (vars_.size() >= 5) return false;
  std::map<std::string, int> uses = symUses_;
  for (const std::string &s : v.extent.syms) ++uses[s];
  std::set<std::string> squared = squared_;
  for (auto &[s, n] : uses) {
    if (n > 2) return false;
    if (n == 2) squared.insert(s);
  }
  if (squared.size() > 1) return false;
  symUses_ = uses;
  squared_ = squared;
  vars_.push_back(std::move(v));
  return true;
}

void ExprGen::popVar() {
  for (const std::string &s : vars_.back().extent.syms) --symUses_[s];
  vars_.pop_back();
}

std::optional<Val> ExprGen::reduce(Want want, int depth, const Contraction *con) {
  if (want == Want::Bool || reduceDepth_ >= 2) return std::nullopt;
  if (opts_.kernelMode && (slotReduce_ || reduceDepth_ > 0)) return std::nullopt;
  std::vector<const TensorInfo *> c = tensorsFor(want, true);
  if (c.empty() && !con) return std::nullopt;
  const TensorInfo &t = con ? readable_[con->a] : *rng_.pick(c);
  static const std::vector<std::string> reducers = {"sum", "max", "min", "mean", "prod"};
  std::string op = con ? (rng_.chance(0.85) ? "sum" : rng_.chance(0.5) ? "mean" : "max")
                       : reducers[rng_.weighted({35, 15, 12, 24, 6})];
  std::vector<size_t> dims(t.shape.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = d;
  for (size_t d = dims.size(); d > 1; --d) std::swap(dims[d - 1], dims[static_cast<size_t>(rng_.below(static_cast<int>(d)))]);
  dims.resize(dims.size() >= 2 && rng_.chance(0.25) ? 2 : 1);
  if (con) dims = {con->dimA};
  int shift = dims.size() == 1 && !con && rng_.chance(0.15) ? rng_.range(1, 2) : 0;

  size_t base = vars_.size();
  std::map<size_t, std::pair<size_t, int>> forced;
  std::vector<ReduceVar> rvars;
  for (size_t d : dims) {
    std::string letter = rng_.pick(std::vector<std::string>{"k", "r", "u", "w"});
    VarInfo v{fmt::format("{}{}", letter, reduceCounter_++), t.shape[d]};
    if (shift) {
      v.extent.text = fmt::format("{} + {}", t.shape[d].text, shift);
      v.extent.maxValue += shift;
      v.extent.mayBeZero = false;
      v.extent.atomic = false;
    }
    if (v.extent.mayBeZero || !pushVar(v)) {
      while (vars_.size() > base) popVar();
      return std::nullopt;
    }
    forced[d] = {vars_.size() - 1, shift};
    rvars.push_back({v.name, "", v.extent.text});
  }
  ++reduceDepth_;
  Val seed = readTensor(t, forced);
  Val body = seed;
  bool padInf = shift && (op == "max" || op == "min") && isFloat(t.type);
  if (con) {
    // The second factor, read at the same reduction variable.
    Val second = readTensor(readable_[con->b], {{con->dimB, forced[con->dimA]}});
    if (auto r = arith("*", seed, second)) body = *r;
    if (rng_.chance(0.2)) { // a prologue inside the contraction
      if (auto r = arith(rng_.chance(0.5) ? "+" : "-", body, literalFloat(body.type))) body = *r;
    }
  } else if (padInf) {
    // Max pooling's padding: never wins, as k - shift reaches index 0..E-1.
    auto n = std::make_shared<Node>(*seed.node);
    n->elseText = op == "max" ? "-inf" : "inf";
    body.node = n;
    body.lo = t.lo;
    body.hi = t.hi;
  } else if (rng_.chance(0.55)) {
    Val other = gen(want, depth);
    if (auto r = arith(rng_.pick(std::vector<std::string>{"+", "-", "*"}), seed, other)) body = *r;
  } else if (want == Want::Float && rng_.chance(0.3)) {
    body = mathCall(seed);
  }
  --reduceDepth_;

  long double n = 1;
  std::set<std::string> syms;
  for (size_t i = base; i < vars_.size(); ++i) {
    n *= static_cast<long double>(vars_[i].extent.maxValue);
    for (const std::string &s : vars_[i].extent.syms) syms.insert(s);
  }
  if (syms.size() >= 2) n = std::min<long double>(n, 4.0L * kBudget);
  std::set<std::string> anchors;
  collectAnchors(*body.node, anchors);
  for (size_t i = base; i < vars_.size(); ++i)
    if (!anchors.count(vars_[i].name) || shift || rng_.chance(0.2)) rvars[i - base].explicitExtent = vars_[i].extent.text;
  while (vars_.size() > base) popVar();

  if (body.type == Ty::Bool) return std::nullopt;
  auto sumRange = [&](const Val &b) {
    return std::pair<long double, long double>{std::min(b.lo, n * b.lo), std::max(b.hi, n * b.hi)};
  };
  if ((op == "sum" || op == "mean") && isInt(body.type)) {
    auto [lo, hi] = sumRange(body);
    Val probe = body;
    probe.lo = lo;
    probe.hi = hi;
    if (!fits(probe, body.type)) { // accumulate a narrow integer in i64 (a long i8 reduction)
      body = castTo(Ty::I64, body);
      probe.type = Ty::I64;
      if (!fits(probe, Ty::I64)) return std::nullopt;
    }
  }
  Val r = body;
  r.weak = false;
  if (op == "sum") {
    auto [lo, hi] = sumRange(body);
    r.lo = lo;
    r.hi = hi;
    r.exact = isInt(body.type) && body.exact;
  } else if (op == "mean") {
    r.exact = isInt(body.type) && body.exact;
    // The sum must not overflow a float type either.
    auto [lo, hi] = sumRange(body);
    if (isFloat(body.type) && std::max(std::fabs(lo), std::fabs(hi)) > floatCap(body.type)) return std::nullopt;
  } else if (op == "prod") {
    long double m = std::max(std::fabs(body.lo), std::fabs(body.hi));
    if (m > 1) return std::nullopt;
    r.lo = -1;
    r.hi = 1;
    r.exact = isInt(body.type) && body.exact;
  }
  if (!fits(r, r.type)) return std::nullopt;
  auto red = makeNode(NodeKind::Reduce, op, {body.node});
  red->rvars = rvars;
  red->valueType = tyName(body.type);
  r.node = red;
  if (opts_.kernelMode) {
    slotReduce_ = red;
    r.node = makeNode(NodeKind::Slot, "", {red});
  }
  return r;
}

} // namespace tk::randprog
