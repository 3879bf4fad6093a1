#include "tests/random/KernelGen.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::randprog {

const char *flawName(Flaw f) {
  switch (f) {
  case Flaw::None: return "none";
  case Flaw::Shrink: return "under-covers: spatial(E - 1)";
  case Flaw::Half: return "under-covers: spatial(E / 2)";
  case Flaw::FloorTiles: return "under-covers: spatial(E / T) * repeat(T)";
  case Flaw::HalfIndex: return "conflicts and under-covers: store at i / 2";
  case Flaw::EvenIndex: return "conflicts and under-covers: store at i - i % 2";
  case Flaw::ReverseStore: return "conflicts: stores at i and E - 1 - i";
  case Flaw::NegativeRepeat: return "negative extent: repeat(-T)";
  case Flaw::OverlapTiles: return "conflicts: tiles of T every T - 1";
  case Flaw::IdleWorker: return "conflicts: a spatial worker coordinate unused";
  case Flaw::Shift: return "under-covers: store at i + 1";
  }
  return "?";
}

namespace {

std::string paren(const std::string &e) { return e.find(' ') == std::string::npos ? e : "(" + e + ")"; }

enum class Strategy { Direct, Composed, Nested, OuterSeq, Lanes, RepeatOnly, Reversed };

class KernelWriter {
public:
  KernelWriter(Rng &rng, const GeneratedOp &op) : rng_(rng), op_(op) {}
  std::string write(const std::string &name, Flaw flaw, size_t flawed);

private:
  void line(const std::string &s) { body_ += std::string(static_cast<size_t>(2 * depth_), ' ') + s + "\n"; }
  void open(const std::string &s) {
    line(s + " {");
    ++depth_;
  }
  void close() {
    --depth_;
    line("}");
  }
  std::string tile(bool mayHole);
  void statement(const OpStatement &st, Flaw flaw);
  void element(const OpStatement &st, const Subst &at, Flaw flaw, bool syncOk);

  Rng &rng_;
  const GeneratedOp &op_;
  std::string head_, body_;
  int depth_ = 1;
  int accs_ = 0, lets_ = 0, loops_ = 0, lanes_ = 0;
};

// A tile size: a number, a `let`, or a hole filled by the construction
// optimizer.
std::string KernelWriter::tile(bool mayHole) {
  int t = rng_.pick(std::vector<int>{1, 2, 3, 4, 8, 16});
  if (mayHole && rng_.chance(0.12)) {
    std::string n = fmt::format("T{}", lets_++);
    head_ += "  let " + n + " = ? in {2, 4, 8};\n";
    return n;
  }
  if (rng_.chance(0.1)) {
    std::string n = fmt::format("T{}", lets_++);
    head_ += fmt::format("  let {} = {};\n", n, t);
    return n;
  }
  return std::to_string(t);
}

void KernelWriter::statement(const OpStatement &st, Flaw flaw) {
  size_t r = st.lhs.size();
  std::vector<std::string> E, v;
  for (const VarInfo &x : st.lhs) {
    E.push_back(x.extent.text);
    v.push_back(x.name);
  }
  auto join = [](const std::vector<std::string> &xs) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
    return s;
  };
  auto vars = [&](const std::vector<std::string> &xs) { return xs.size() == 1 && rng_.chance(0.5) ? xs[0] : "(" + join(xs) + ")"; };
  Subst at;
  if (r == 0) {
    if (rng_.chance(0.5)) {
      open(fmt::format("for w{} in spatial(1) on cores", loops_++));
      element(st, at, flaw, true);
      close();
    } else {
      open("");
      element(st, at, flaw, false);
      close();
    }
    return;
  }
  Strategy s;
  switch (flaw) {
  case Flaw::Shrink:
  case Flaw::Half:
  case Flaw::IdleWorker: s = Strategy::Direct; break;
  case Flaw::FloorTiles:
  case Flaw::NegativeRepeat: s = Strategy::Composed; break;
  case Flaw::OverlapTiles: s = Strategy::Nested; break;
  default: {
    static const std::vector<Strategy> all = {Strategy::Direct, Strategy::Composed, Strategy::Nested, Strategy::OuterSeq,
                                              Strategy::Lanes,  Strategy::RepeatOnly, Strategy::Reversed};
    // Two stores of one element by one worker are not a conflict: a
    // reversed second store needs workers along dimension 0.
    s = all[rng_.weighted({22, 24, 20, r >= 2 ? 12 : 0, 8, flaw == Flaw::ReverseStore ? 0 : 6, 6})];
  }
  }
  int opened = 0;
  switch (s) {
  case Strategy::Direct: {
    std::vector<std::string> ext = E, names = v;
    if (flaw == Flaw::Shrink) ext[0] = E[0] + " - 1";
    if (flaw == Flaw::Half) ext[0] = paren(E[0]) + " / 2";
    if (flaw == Flaw::IdleWorker) {
      ext.push_back("2");
      names.push_back(fmt::format("w{}", loops_++));
    }
    open("for " + vars(names) + " in spatial(" + join(ext) + ") on cores");
    opened = 1;
    break;
  }
  case Strategy::Composed: {
    std::vector<std::string> outer, inner;
    for (size_t d = 0; d < r; ++d) {
      std::string t = flaw == Flaw::FloorTiles && d == 0 ? std::to_string(rng_.range(2, 8)) : tile(true);
      if (flaw == Flaw::NegativeRepeat && d == 0) t = std::to_string(rng_.range(2, 16));
      outer.push_back(flaw == Flaw::FloorTiles && d == 0 ? paren(E[d]) + " / " + t : "cdiv(" + E[d] + ", " + t + ")");
      inner.push_back(flaw == Flaw::NegativeRepeat && d == 0 ? "-" + t : t);
    }
    std::string ranks;
    if (r >= 2 && rng_.chance(0.3)) {
      std::vector<std::string> p;
      for (size_t d = r; d-- > 0;) p.push_back(std::to_string(d));
      ranks = ", ranks=[" + join(p) + "]";
    }
    open("for " + vars(v) + " in spatial(" + join(outer) + ranks + ") * repeat(" + join(inner) + ") on cores");
    opened = 1;
    break;
  }
  case Strategy::Nested: {
    std::vector<std::string> outer, inner, bs, es;
    for (size_t d = 0; d < r; ++d) {
      std::string t = flaw == Flaw::OverlapTiles && d == 0 ? std::to_string(rng_.range(3, 8)) : tile(true);
      std::string step = flaw == Flaw::OverlapTiles && d == 0 ? std::to_string(std::stoi(t) - 1) : t;
      std::string b = fmt::format("b{}", loops_), e = fmt::format("e{}", loops_++);
      bs.push_back(b);
      es.push_back(e);
      outer.push_back("cdiv(" + E[d] + ", " + step + ")");
      inner.push_back(t);
      at[v[d]] = b + " * " + step + " + " + e;
    }
    open("for " + vars(bs) + " in spatial(" + join(outer) + ") on cores");
    open("for " + vars(es) + " in repeat(" + join(inner) + ")");
    opened = 2;
    break;
  }
  case Strategy::OuterSeq: {
    open("for " + v[0] + " in spatial(" + E[0] + ") on cores");
    for (size_t d = 1; d < r; ++d) open("for " + v[d] + " in 0.." + E[d]);
    opened = static_cast<int>(r);
    break;
  }
  case Strategy::Lanes: {
    // Every lanes mapping of a kernel has the same width (docs/architecture.md).
    if (!lanes_) lanes_ = rng_.pick(std::vector<int>{4, 8, 16});
    int L = lanes_;
    std::vector<std::string> outer(E.begin(), E.end() - 1), names(v.begin(), v.end() - 1);
    std::string b = fmt::format("bl{}", loops_), l = fmt::format("ll{}", loops_++);
    outer.push_back(fmt::format("cdiv({}, {})", E[r - 1], L));
    names.push_back(b);
    at[v[r - 1]] = fmt::format("{} * {} + {}", b, L, l);
    open("for " + vars(names) + " in spatial(" + join(outer) + ") on cores");
    open(fmt::format("for {} in spatial({}) on lanes", l, L));
    opened = 2;
    break;
  }
  case Strategy::RepeatOnly:
    open("for " + vars(v) + " in repeat(" + join(E) + ")");
    opened = 1;
    break;
  case Strategy::Reversed: {
    // repeat(T) * spatial(cdiv(E, T)): i = t * cdiv(E, T) + s covers [0, E).
    std::string t = std::to_string(rng_.range(2, 4));
    std::vector<std::string> rep(r, "1"), sp = E;
    rep[0] = t;
    sp[0] = "cdiv(" + E[0] + ", " + t + ")";
    open("for " + vars(v) + " in repeat(" + join(rep) + ") * spatial(" + join(sp) + ") on cores");
    opened = 1;
    break;
  }
  }
  // On cpu a `sync` must be a statement of the cores mapping's own body.
  bool syncOk = s == Strategy::Direct || s == Strategy::Composed || s == Strategy::Reversed;
  element(st, at, flaw, syncOk);
  for (int i = 0; i < opened; ++i) close();
}

// The statements computing one output element: its reduction as a loop
// nest accumulating into a local (or the output), then the store.
void KernelWriter::element(const OpStatement &st, const Subst &at, Flaw flaw, bool syncOk) {
  const TensorInfo *out = nullptr;
  for (const TensorInfo &o : op_.outputs)
    if (o.name == st.target) out = &o;
  std::vector<std::string> idx;
  for (const VarInfo &x : st.lhs) idx.push_back(at.count(x.name) ? at.at(x.name) : x.name);
  std::vector<std::string> storeIdx = idx;
  if (!storeIdx.empty()) {
    const std::string &i0 = idx[0];
    if (flaw == Flaw::HalfIndex) storeIdx[0] = paren(i0) + " / 2";
    if (flaw == Flaw::EvenIndex) storeIdx[0] = paren(i0) + " - " + paren(i0) + " % 2";
    if (flaw == Flaw::Shift) storeIdx[0] = i0 + " + 1";
  }
  auto ref = [&](const std::vector<std::string> &ix) {
    std::string s = st.target + "[";
    for (size_t i = 0; i < ix.size(); ++i) s += (i ? ", " : "") + ix[i];
    return s + "]";
  };
  Subst sub = at;
  bool sync = syncOk && rng_.chance(0.1);
  bool block = false;
  if (st.reduction) {
    const Node &red = *st.reduction;
    std::string vt = red.valueType;
    std::string accTy = vt == "f16" || vt == "bf16" ? "f32" : vt;
    bool direct = st.rhs.node->kind == NodeKind::Slot && red.op != "mean" && out && tyName(out->type) == accTy &&
                  flaw == Flaw::None && rng_.chance(0.35);
    std::string acc;
    if (direct) {
      acc = ref(idx);
    } else {
      if (sync) {
        open(""); // a per-core local may not live across a `sync`
        block = true;
      }
      acc = fmt::format("a{}", accs_++);
      line(std::string(rng_.chance(0.5) ? "register " : "local ") + acc + ": " + accTy + "[1];");
      acc += "[0]";
    }
    Subst first = sub;
    for (const ReduceVar &rv : red.rvars) first[rv.name] = "0";
    const NodePtr &body = red.args[0];
    if (red.op == "max" || red.op == "min") line(acc + " = " + printExpr(*body, first) + ";");
    else line(acc + " = " + (red.op == "prod" ? "1" : "0") + ";");
    for (const ReduceVar &rv : red.rvars) open("for " + rv.name + " in 0.." + rv.extent);
    std::string op = red.op == "sum" || red.op == "mean" ? "+=" : red.op == "prod" ? "*=" : red.op + "=";
    line(acc + " " + op + " " + printExpr(*body, sub) + ";");
    for (size_t i = 0; i < red.rvars.size(); ++i) close();
    if (direct) {
      if (sync) line("sync;");
      return;
    }
    // The sync goes after the block holding the accumulator.
    std::string value = acc;
    if (red.op == "mean") {
      std::string count;
      for (const ReduceVar &rv : red.rvars) count += (count.empty() ? "" : " * ") + paren(rv.extent);
      value = acc + " / " + vt + "(" + count + ")";
    }
    sub["@slot"] = value;
  }
  std::string rhs = printExpr(*st.rhs.node, sub);
  bool guard = !idx.empty() && flaw == Flaw::None && rng_.chance(0.08);
  if (guard) open("if (" + idx[0] + " >= 0)");
  line(ref(storeIdx) + " = " + rhs + ";");
  if (guard) close();
  if (flaw == Flaw::ReverseStore && !idx.empty()) {
    std::vector<std::string> rev = idx;
    rev[0] = paren(st.lhs[0].extent.text) + " - 1 - " + paren(idx[0]);
    line(ref(rev) + " = " + rhs + ";");
  }
  if (block) close();
  if (sync) line("sync;");
}

std::string KernelWriter::write(const std::string &name, Flaw flaw, size_t flawed) {
  for (size_t i = 0; i < op_.stmts.size(); ++i) statement(op_.stmts[i], i == flawed ? flaw : Flaw::None);
  if (rng_.chance(0.1) && !op_.symbols.empty()) head_ += "  require " + rng_.pick(op_.symbols).text + " >= 1;\n";
  return "kernel " + name + " implements " + op_.name + " on cpu {\n" + head_ + body_ + "}\n";
}

} // namespace

GeneratedKernel generateKernel(Rng &rng, const GeneratedOp &op, const std::string &name, Flaw flaw) {
  GeneratedKernel k;
  size_t flawed = op.stmts.size();
  if (flaw != Flaw::None) {
    std::vector<size_t> ranked;
    // Only a symbolic first extent makes the flaw wrong for general shapes
    // (spatial(3 / 3) * repeat(3) would be fine).
    for (size_t i = 0; i < op.stmts.size(); ++i)
      if (!op.stmts[i].lhs.empty() && !op.stmts[i].lhs[0].extent.syms.empty()) ranked.push_back(i);
    if (ranked.empty()) flaw = Flaw::None;
    else flawed = rng.pick(ranked);
  }
  k.flaw = flaw;
  if (flaw != Flaw::None) k.flawedOutput = op.stmts[flawed].target;
  k.text = KernelWriter(rng, op).write(name, flaw, flawed);
  return k;
}

} // namespace tk::randprog
