#include "tests/random/OpGen.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::randprog {

namespace {

Extent symbolExtent(const std::string &s) { return Extent{s, {s}, kMaxSymbol, false, true}; }

// Extents tensors are declared with: mostly plain symbols, sometimes
// offset, scaled, halved (cdiv), products of two symbols, constants, an
// integer scalar parameter, or one less than a symbol (possibly empty).
Extent randomExtent(Rng &rng, const std::vector<Extent> &syms, const std::vector<ScalarInfo> &scalars) {
  const Extent &s = rng.pick(syms);
  switch (rng.weighted({66, 6, 4, 3, 4, 5, 3, 3})) {
  case 1: {
    int c = rng.range(1, 2);
    return Extent{fmt::format("{} + {}", s.text, c), s.syms, s.maxValue + c, false, false};
  }
  case 2: return Extent{"2 * " + s.text, s.syms, 2 * s.maxValue, false, false};
  case 3: return Extent{"cdiv(" + s.text + ", 2)", s.syms, (s.maxValue + 1) / 2, false, true};
  case 4: {
    const Extent &t = rng.pick(syms);
    if (t.text == s.text) return s;
    return Extent{s.text + " * " + t.text, {s.text, t.text}, kBudget, false, false};
  }
  case 5: {
    int c = rng.pick(std::vector<int>{1, 3, 5});
    return Extent{std::to_string(c), {}, c, false, true};
  }
  case 6:
    for (const ScalarInfo &p : scalars)
      if (isInt(p.type)) return Extent{p.name + " + 1", {}, 4, false, false};
    return s;
  case 7: return Extent{s.text + " - 1", s.syms, s.maxValue - 1, true, false};
  default: return s;
  }
}

Ty randomType(Rng &rng, bool allowBool) {
  static const std::vector<Ty> types = {Ty::F32, Ty::F16, Ty::BF16, Ty::F64, Ty::I32, Ty::I8, Ty::I64, Ty::Bool};
  size_t i = rng.weighted({30, 12, 10, 10, 10, 10, 6, allowBool ? 4 : 0});
  return types[i];
}

std::string typeText(const TensorInfo &t, bool withShape) {
  std::string s = tyName(t.type);
  if (!withShape) return s;
  s += "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + t.shape[i].text;
  return s + "]";
}

// At most two uses of a symbol among a statement's left-hand extents, and
// only one symbol used twice (ExprGen's cost model does the same for
// reductions).
bool affordable(const std::vector<Extent> &shape) {
  std::map<std::string, int> n;
  int twice = 0;
  for (const Extent &e : shape)
    for (const std::string &s : e.syms)
      if (++n[s] == 2) ++twice;
  for (auto &[s, c] : n)
    if (c > 2) return false;
  return twice <= 1;
}

class OpBuilder {
public:
  OpBuilder(Rng &rng, OpOptions opts) : rng_(rng), opts_(opts) {}
  GeneratedOp build(const std::string &name);

private:
  void chooseSignature();
  std::vector<Extent> lhsShape();
  void statement(const std::string &target, bool isOutput);
  std::string whereClause();

  Rng &rng_;
  OpOptions opts_;
  GeneratedOp op_;
  std::vector<TensorInfo> assigned_; // intermediates and outputs assigned so far
  std::vector<bool> declared_;       // per output: shape declared in the signature
  std::vector<bool> outputDone_;
  std::set<std::string> squared_;
  std::string body_;
  int temps_ = 0;
};

void OpBuilder::chooseSignature() {
  std::vector<std::string> names = {"M", "N", "K", "R"};
  int nsym = static_cast<int>(rng_.weighted({0, 40, 40, 20}));
  for (int i = 0; i < nsym; ++i) {
    std::string s = names[static_cast<size_t>(rng_.below(static_cast<int>(names.size())))];
    names.erase(std::find(names.begin(), names.end(), s));
    op_.symbols.push_back(symbolExtent(s));
  }
  static const std::vector<ScalarInfo> pool = {{"alpha", Ty::F32, 1e-3L, 0.5L}, {"beta", Ty::F64, 1e-3L, 0.5L},
                                               {"p", Ty::I64, 0, 3},            {"c", Ty::I32, 0, 3},
                                               {"h", Ty::F16, 1e-3L, 0.5L}};
  int nscal = static_cast<int>(rng_.weighted({45, 40, 15}));
  for (int i = 0; i < nscal; ++i) {
    const ScalarInfo &s = pool[rng_.weighted({30, 15, 30, 15, 5})];
    bool dup = false;
    for (const ScalarInfo &o : op_.scalars) dup |= o.name == s.name;
    if (!dup) op_.scalars.push_back(s);
  }
  int nin = static_cast<int>(rng_.weighted({0, 35, 45, 20}));
  std::set<std::string> introduced;
  static const std::vector<std::string> inNames = {"X", "Y", "W"};
  for (int i = 0; i < nin; ++i) {
    TensorInfo t{inNames[static_cast<size_t>(i)], randomType(rng_, true), {}};
    int rank = static_cast<int>(rng_.weighted({5, 35, 45, 15}));
    for (int d = 0; d < rank; ++d) {
      Extent e = randomExtent(rng_, op_.symbols, op_.scalars);
      t.shape.push_back(e);
      if (!affordable(t.shape) || (std::count(t.shape.begin(), t.shape.end() - 1, e) > 0 && !rng_.chance(0.15)))
        t.shape.pop_back();
    }
    op_.inputs.push_back(t);
  }
  // Every symbol must be introduced by an input's shape.
  for (const TensorInfo &t : op_.inputs)
    for (const Extent &e : t.shape)
      for (const std::string &s : e.syms) introduced.insert(s);
  for (const Extent &s : op_.symbols) {
    if (introduced.count(s.text)) continue;
    TensorInfo *t = &op_.inputs[static_cast<size_t>(rng_.below(static_cast<int>(op_.inputs.size())))];
    if (t->shape.size() >= 3) {
      op_.inputs.push_back(TensorInfo{fmt::format("V{}", op_.inputs.size()), randomType(rng_, false), {}});
      t = &op_.inputs.back();
    }
    t->shape.insert(t->shape.begin() + rng_.below(static_cast<int>(t->shape.size()) + 1), s);
  }
  for (TensorInfo &t : op_.inputs) {
    t.lo = isFloat(t.type) ? -1 : t.type == Ty::Bool ? 0 : -10;
    t.hi = isFloat(t.type) ? 1 : t.type == Ty::Bool ? 1 : 10;
  }
  int nout = static_cast<int>(rng_.weighted({0, 60, 30, 10}));
  static const std::vector<std::string> outNames = {"Out", "Res", "Aux"};
  for (int i = 0; i < nout; ++i) {
    TensorInfo o{outNames[static_cast<size_t>(i)], randomType(rng_, !opts_.kernelMode), {}};
    bool declared = opts_.kernelMode || rng_.chance(0.7);
    if (declared) {
      int rank = static_cast<int>(rng_.weighted({8, 40, 42, 10}));
      const TensorInfo &mirror = rng_.pick(op_.inputs);
      for (int d = 0; d < rank; ++d) {
        bool fromInput = d < static_cast<int>(mirror.shape.size()) && rng_.chance(0.8);
        o.shape.push_back(fromInput ? mirror.shape[static_cast<size_t>(d)] : randomExtent(rng_, op_.symbols, op_.scalars));
        if (!affordable(o.shape)) o.shape.pop_back();
      }
    }
    op_.outputs.push_back(o);
    declared_.push_back(declared);
    outputDone_.push_back(false);
  }
}

// Two dimensions of equal extent in tensors of the wanted kind: the
// reduction dimension of a contraction (matmul A[i, k] * B[k, j], gemv,
// bmm, a Gram matrix X[i, k] * X[j, k]).
std::optional<Contraction> findContraction(Rng &rng, const std::vector<TensorInfo> &readable, Want want) {
  std::vector<Contraction> found;
  auto kind = [&](Ty t) { return want == Want::Float ? isFloat(t) : isInt(t); };
  for (size_t a = 0; a < readable.size(); ++a)
    for (size_t b = a; b < readable.size(); ++b) {
      if (!kind(readable[a].type) || !kind(readable[b].type)) continue;
      for (size_t da = 0; da < readable[a].shape.size(); ++da)
        for (size_t db = 0; db < readable[b].shape.size(); ++db)
          if (readable[a].shape[da] == readable[b].shape[db] && !readable[a].shape[da].mayBeZero && (a != b || da != db))
            found.push_back({a, da, b, db});
    }
  if (found.empty()) return std::nullopt;
  return rng.pick(found);
}

// The left-hand extents of a new tensor: some dimensions of a tensor it can
// read, permuted, maybe with one more (a broadcast).
std::vector<Extent> OpBuilder::lhsShape() {
  std::vector<TensorInfo> from = op_.inputs;
  if (!opts_.kernelMode) from.insert(from.end(), assigned_.begin(), assigned_.end());
  const TensorInfo &t = rng_.pick(from);
  std::vector<Extent> dims = t.shape;
  for (size_t d = dims.size(); d > 1; --d) std::swap(dims[d - 1], dims[static_cast<size_t>(rng_.below(static_cast<int>(d)))]);
  dims.resize(static_cast<size_t>(rng_.range(0, static_cast<int>(dims.size()))));
  if (dims.size() < 3 && rng_.chance(0.15)) dims.push_back(randomExtent(rng_, op_.symbols, op_.scalars));
  while (!affordable(dims)) dims.pop_back();
  return dims;
}

void OpBuilder::statement(const std::string &target, bool isOutput) {
  TensorInfo *known = nullptr;
  for (TensorInfo &a : assigned_)
    if (a.name == target) known = &a;
  size_t outIdx = 0;
  for (size_t i = 0; i < op_.outputs.size(); ++i)
    if (op_.outputs[i].name == target) outIdx = i;
  bool shapeKnown = known || (isOutput && declared_[outIdx]);
  std::optional<Ty> dtype;
  if (known) dtype = known->type;
  else if (isOutput) dtype = op_.outputs[outIdx].type;
  Want want = !dtype ? (rng_.chance(0.1) ? Want::Bool : rng_.chance(0.25) ? Want::Int : Want::Float)
              : *dtype == Ty::Bool ? Want::Bool
              : isInt(*dtype)      ? Want::Int
                                   : Want::Float;
  std::vector<TensorInfo> readable = op_.inputs;
  if (!opts_.kernelMode) readable.insert(readable.end(), assigned_.begin(), assigned_.end());
  ExprOptions eo;
  eo.kernelMode = opts_.kernelMode;
  eo.maxDepth = rng_.range(1, 4);
  std::vector<Extent> shape = known ? known->shape : isOutput && declared_[outIdx] ? op_.outputs[outIdx].shape : lhsShape();
  if (want != Want::Bool && rng_.chance(0.22)) {
    eo.contraction = findContraction(rng_, readable, want);
    // A new tensor gets the contraction's free dimensions (batch dimensions once).
    if (eo.contraction && !shapeKnown) {
      const Contraction &c = *eo.contraction;
      shape.clear();
      for (size_t d = 0; d < readable[c.a].shape.size(); ++d)
        if (d != c.dimA) shape.push_back(readable[c.a].shape[d]);
      for (size_t d = 0; d < readable[c.b].shape.size(); ++d)
        if (d != c.dimB && std::find(shape.begin(), shape.end(), readable[c.b].shape[d]) == shape.end())
          shape.push_back(readable[c.b].shape[d]);
      while (shape.size() > 3 || !affordable(shape)) shape.pop_back();
    }
  }
  static const std::vector<std::string> lhsNames = {"i", "j", "l"};
  std::vector<VarInfo> lhs;
  for (size_t d = 0; d < shape.size(); ++d) lhs.push_back(VarInfo{lhsNames[d], shape[d]});

  ExprGen gen(rng_, readable, op_.scalars, op_.symbols, eo);
  Val rhs = gen.generate(want, lhs);
  for (const std::string &s : gen.squaredSymbols()) squared_.insert(s);
  Ty t = dtype ? *dtype : rhs.type;
  if (!dtype && !ExprGen::fits(rhs, t)) t = isFloat(t) ? Ty::F32 : t;
  if (isFloat(t) && !ExprGen::fits(rhs, t))
    rhs = Val{call("tanh", {rhs.node}), isFloat(rhs.type) ? rhs.type : Ty::F32, false, false, -1, 1};
  if (isInt(t) && !ExprGen::fits(rhs, t)) {
    // Clamp an integer value into the target type (exact, documented).
    rhs.node = call("max", {call("min", {rhs.node, lit(std::to_string(intMax(t)))}), lit(std::to_string(intMin(t) + 1))});
    rhs.lo = std::max<long double>(rhs.lo, intMin(t) + 1);
    rhs.hi = std::min<long double>(rhs.hi, intMax(t));
  }

  std::string line = "  " + target;
  const std::vector<VarInfo> &res = gen.lhs();
  if (!res.empty() || rng_.chance(0.5)) {
    line += "[";
    for (size_t d = 0; d < res.size(); ++d) {
      line += (d ? ", " : "") + res[d].name;
      if ((!shapeKnown && !res[d].anchored) || rng_.chance(0.12)) line += " < " + res[d].extent.text;
    }
    line += "]";
  }
  line += " = " + printExpr(*rhs.node) + ";\n";
  body_ += line;

  TensorInfo info{target, t, shape, rhs.lo, rhs.hi, rhs.exact};
  if (isFloat(t) && !isFloat(rhs.type)) info.exact = rhs.exact;
  if (known) {
    known->lo = std::min(known->lo, info.lo);
    known->hi = std::max(known->hi, info.hi);
    known->exact = known->exact && info.exact;
  } else {
    assigned_.push_back(info);
  }
  if (isOutput) {
    op_.outputs[outIdx].shape = shape;
    outputDone_[outIdx] = true;
  }
  op_.stmts.push_back(OpStatement{target, res, rhs, gen.reduction()});
}

std::string OpBuilder::whereClause() {
  std::vector<std::string> conds;
  for (const std::string &s : squared_) conds.push_back(s + " <= 150");
  if (rng_.chance(0.25) && !op_.symbols.empty()) {
    const std::string &s = rng_.pick(op_.symbols).text;
    std::vector<std::string> forms = {s + " >= 1", s + " >= 2", s + " % 2 == 1", s + " <= 100"};
    for (const ScalarInfo &p : op_.scalars)
      if (isInt(p.type)) forms.push_back(p.name + " <= 2");
    conds.push_back(rng_.pick(forms));
  }
  std::string w;
  for (size_t i = 0; i < conds.size(); ++i) w += (i ? ", " : "\n  where ") + conds[i];
  return w;
}

GeneratedOp OpBuilder::build(const std::string &name) {
  op_.name = name;
  chooseSignature();
  if (opts_.kernelMode) {
    for (size_t i = 0; i < op_.outputs.size(); ++i) statement(op_.outputs[i].name, true);
  } else {
    int extra = rng_.range(0, 4);
    for (int s = 0; s < extra + static_cast<int>(op_.outputs.size()); ++s) {
      std::vector<size_t> pending;
      for (size_t i = 0; i < op_.outputs.size(); ++i)
        if (!outputDone_[i]) pending.push_back(i);
      size_t left = static_cast<size_t>(extra + static_cast<int>(op_.outputs.size()) - s);
      size_t action = left <= pending.size() ? 1 : rng_.weighted({45, 30, assigned_.empty() ? 0 : 25});
      if (action == 1 && pending.empty()) action = 0;
      if (action == 0) statement(fmt::format("t{}", temps_++), false);
      else if (action == 1) statement(op_.outputs[rng_.pick(pending)].name, true);
      else statement(rng_.pick(assigned_).name, false);
    }
  }
  // The signature: scalar parameters interleaved with the tensors.
  std::vector<std::string> params;
  for (const TensorInfo &t : op_.inputs) params.push_back(t.name + ": " + typeText(t, true));
  for (const ScalarInfo &s : op_.scalars)
    params.insert(params.begin() + rng_.below(static_cast<int>(params.size()) + 1), s.name + ": " + tyName(s.type));
  std::string text = "op " + name + "(";
  for (size_t i = 0; i < params.size(); ++i) text += (i ? ", " : "") + params[i];
  text += ") -> ";
  bool paren = op_.outputs.size() > 1 || rng_.chance(0.2);
  if (paren) text += "(";
  for (size_t i = 0; i < op_.outputs.size(); ++i)
    text += (i ? ", " : "") + op_.outputs[i].name + ": " + typeText(op_.outputs[i], declared_[i]);
  if (paren) text += ")";
  text += whereClause();
  text += " {\n" + body_ + "}\n";
  op_.text = text;
  for (TensorInfo &o : op_.outputs)
    for (const TensorInfo &a : assigned_)
      if (a.name == o.name) {
        o.lo = a.lo;
        o.hi = a.hi;
      }
  return op_;
}

} // namespace

GeneratedOp generateOp(Rng &rng, const std::string &name, OpOptions opts) { return OpBuilder(rng, opts).build(name); }

} // namespace tk::randprog
