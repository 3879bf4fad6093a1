#include "scheduler/construct/FillHoles.h"

#include "ir/IRRewrite.h"
#include "ir/Simplify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace tk::construct {
using namespace ir;

namespace {

bool mentionsHole(const Expr &e, int id) {
  bool found = false;
  if (e) visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Hole && n->holeId == id; });
  return found;
}

// The nest dimension indexed by tensor dimension `t` of an access to
// `tensor`: the only loop dimension with a non-zero coefficient there; for
// a tensor the nest does not access, the first dimension of the nearest
// extent (in log scale).
int nestDimOf(const LoopNest &nest, const Op &op, const TensorPtr &tensor, size_t t,
              const std::map<std::string, int64_t> &shapes) {
  bool accessed = std::any_of(nest.accesses.begin(), nest.accesses.end(),
                              [&](const Access &a) { return a.tensor == tensor->name; });
  if (!accessed) {
    if (t >= tensor->shape.size()) return -1;
    double extent = static_cast<double>(std::max<int64_t>(evalExtent(op, tensor->shape[t], shapes), 1));
    int best = -1;
    double bestDistance = 0;
    for (size_t d = 0; d < nest.dims.size(); ++d) {
      double distance = std::abs(std::log2(static_cast<double>(std::max<int64_t>(nest.dims[d].extent, 1)) / extent));
      if (best < 0 || distance < bestDistance) best = static_cast<int>(d), bestDistance = distance;
    }
    return best;
  }
  for (const Access &a : nest.accesses) {
    if (a.tensor != tensor->name || t >= a.coef.size()) continue;
    int found = -1, count = 0;
    for (size_t d = 0; d < a.coef[t].size(); ++d)
      if (a.coef[t][d] != 0) found = static_cast<int>(d), ++count;
    if (count == 1) return found;
  }
  return -1;
}

} // namespace

std::optional<HoleRole> holeRole(const Kernel &k, const LoopNest &nest, const HardwareDesc &hw, int holeId,
                                 const std::map<std::string, int64_t> &shapes) {
  std::map<std::string, Expr> extentOf; // kernel loop variable -> extent
  bool inRegister = false;
  visitMStmt(k.body, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::MapFor) {
      std::vector<Expr> shape = s.mapping.taskShape();
      for (size_t i = 0; i < s.vars.size() && i < shape.size(); ++i) extentOf[s.vars[i]] = shape[i];
    } else if (s.kind == MStmt::Kind::SeqFor) {
      extentOf[s.var] = sub(s.end, s.begin);
    } else if (s.kind == MStmt::Kind::Alloc && s.tensor->scope == Scope::Register) {
      for (const Expr &d : s.tensor->shape) inRegister |= mentionsHole(d, holeId);
    }
  });
  int dim = -1;
  auto scan = [&](const TensorPtr &t, const std::vector<Expr> &indices) {
    if (dim >= 0 || t->role == TensorRole::Local) return;
    for (size_t i = 0; i < indices.size() && dim < 0; ++i) {
      for (const auto &[atom, c] : linearize(indices[i]).terms) {
        bool uses = mentionsHole(atom, holeId);
        if (!uses && atom->kind == ExprKind::Var) {
          auto it = extentOf.find(atom->name);
          uses = it != extentOf.end() && mentionsHole(it->second, holeId);
        }
        if (uses && (dim = nestDimOf(nest, *k.op, t, i, shapes)) >= 0) break;
      }
    }
  };
  visitMStmt(k.body, [&](const MStmt &s) {
    if (s.kind != MStmt::Kind::Store) return;
    scan(s.tensor, s.indices);
    visitExpr(s.value, [&](const Expr &n) {
      if (n->kind == ExprKind::Load) scan(n->tensor, n->args);
    });
  });
  if (dim < 0) return std::nullopt;
  return HoleRole{dim, inRegister ? hw.levels.size() - 1 : unitLevel(hw)};
}

KernelPtr fillHolesByConstruction(const Kernel &k, const ConstructOptions &opts, DiagEngine &diags) {
  LoopNest nest = buildLoopNest(*k.op, opts.shapes);
  Space space(nest, opts.hw);
  std::ostream *tr = opts.gensor.trace;
  if (tr) *tr << "// construct " << k.name << " for " << opts.hw.name << ": nest " << nest.op << " (";
  for (size_t d = 0; tr && d < nest.dims.size(); ++d)
    *tr << (d ? ", " : "") << nest.dims[d].name << "=" << nest.dims[d].extent << (nest.dims[d].reduction ? " red" : "");
  if (tr) *tr << ")\n";
  GensorResult res = runGensor(space, opts.gensor);
  if (res.ranked.empty()) throw InternalError("construction produced no state (the initial state always fits)");
  const ETIR &best = res.ranked.front().state;

  // Per open hole: its candidates ordered by distance to the chosen tile.
  struct Open {
    size_t index;
    std::vector<int64_t> order;
  };
  std::vector<Open> open;
  for (size_t i = 0; i < k.holes.size(); ++i) {
    const Hole &h = k.holes[i];
    if (h.value) continue;
    auto role = holeRole(k, nest, opts.hw, h.id, opts.shapes);
    if (!role) {
      diags.error(h.loc,
                  "the construction optimizer cannot tell which loop dimension hole ?{} tiles (it is not used in an "
                  "index or loop extent of an op tensor access); write a value",
                  h.id);
      continue;
    }
    int64_t target = best.tile[role->level][role->dim];
    std::vector<int64_t> cands = h.candidates;
    if (cands.empty()) {
      // Any positive value: every integer up to 1024 and the powers of two
      // beyond, so that `require`s like `U % 48 == 0` can be met.
      for (int64_t v = 1; v <= 1024; ++v) cands.push_back(v);
      for (int64_t v = 2048; v <= 65536; v *= 2) cands.push_back(v);
      cands.push_back(target);
    }
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    std::stable_sort(cands.begin(), cands.end(), [&](int64_t a, int64_t b) {
      return std::abs(std::log2(static_cast<double>(a) / target)) < std::abs(std::log2(static_cast<double>(b) / target));
    });
    if (tr)
      *tr << "// hole ?" << h.id << " tiles " << nest.dims[role->dim].name << " at " << opts.hw.levels[role->level].name
          << ": constructed " << target << ", nearest candidate " << cands.front() << "\n";
    open.push_back({i, std::move(cands)});
  }
  if (diags.hasErrors()) return nullptr;

  // Assignments in order of total rank (sum of per-hole positions), so the
  // first legal one is as close to the construction as `require` allows.
  std::vector<std::vector<size_t>> combos{std::vector<size_t>(open.size(), 0)};
  for (size_t h = 0; h < open.size(); ++h) {
    std::vector<std::vector<size_t>> next;
    for (const auto &c : combos)
      for (size_t p = 0; p < open[h].order.size() && next.size() < 4096; ++p) {
        next.push_back(c);
        next.back()[h] = p;
      }
    combos = std::move(next);
  }
  std::stable_sort(combos.begin(), combos.end(), [](const auto &a, const auto &b) {
    size_t sa = 0, sb = 0;
    for (size_t x : a) sa += x;
    for (size_t x : b) sb += x;
    return sa < sb;
  });
  // Which `require`s held for some assignment: one that never did is the
  // reason to report.
  std::vector<bool> everHeld(k.requires_.size(), false);
  const Constraint *failed = nullptr;
  for (const auto &c : combos) {
    std::vector<std::pair<int, int64_t>> values;
    for (const Hole &h : k.holes)
      if (h.value) values.push_back({h.id, *h.value});
    for (size_t h = 0; h < open.size(); ++h) values.push_back({k.holes[open[h].index].id, open[h].order[c[h]]});
    const Constraint *bad = nullptr;
    for (size_t r = 0; r < k.requires_.size(); ++r) {
      Expr cond = simplify(fillHoles(k.requires_[r].cond, values));
      if (cond->kind == ExprKind::BoolImm && !cond->intValue) bad = bad ? bad : &k.requires_[r];
      else everHeld[r] = true;
    }
    if (bad) {
      failed = failed ? failed : bad;
      continue;
    }
    auto out = std::make_shared<Kernel>(k);
    for (Hole &h : out->holes)
      for (const auto &[id, v] : values)
        if (h.id == id) h.value = v;
    if (tr) {
      *tr << "// chosen:";
      for (const auto &[id, v] : values) *tr << " ?" << id << " = " << v;
      *tr << "\n";
    }
    return out;
  }
  for (size_t r = 0; r < k.requires_.size(); ++r)
    if (!everHeld[r]) {
      failed = &k.requires_[r];
      break;
    }
  diags.error(failed ? failed->loc : k.loc, "the construction optimizer found no assignment of the holes' candidates "
                                            "that satisfies " +
                                                (failed ? "`" + printExpr(failed->cond) + "`" : std::string("the kernel")));
  return nullptr;
}

} // namespace tk::construct
