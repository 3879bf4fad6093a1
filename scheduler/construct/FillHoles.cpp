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

namespace {

// Seconds of candidate calls one kernel's holes may take to time.
constexpr double kTimingBudgetSec = 2.0;

// An open hole: its index in k.holes, its role and its candidate values.
struct Slot {
  size_t index;
  HoleRole role;
  std::vector<int64_t> values; // sorted, distinct
  bool anyValue = false;       // no candidates given: the constructed tile is one too
};

// One assignment of the open holes (a value per slot, in slot order).
using Assignment = std::vector<int64_t>;

// The legal assignments nearest (in log scale) to `targets`, one value per
// slot, at most `max` of them: assignments in order of total rank (sum of
// per-slot positions in the candidates ordered by distance to the target),
// those whose `require`s all hold. Empty when none of the first 4096 does;
// then *failed is the `require` to report (one that never held, else the
// first that failed).
std::vector<Assignment> legalAssignments(const Kernel &k, const std::vector<Slot> &slots,
                                         const std::vector<int64_t> &targets, size_t max, const Constraint **failed) {
  std::vector<std::vector<int64_t>> order;
  for (size_t h = 0; h < slots.size(); ++h) {
    std::vector<int64_t> o = slots[h].values;
    if (slots[h].anyValue && std::find(o.begin(), o.end(), targets[h]) == o.end()) o.push_back(targets[h]);
    std::stable_sort(o.begin(), o.end(), [&](int64_t a, int64_t b) {
      double t = static_cast<double>(targets[h]);
      return std::abs(std::log2(a / t)) < std::abs(std::log2(b / t));
    });
    order.push_back(std::move(o));
  }
  std::vector<std::vector<size_t>> combos{std::vector<size_t>(slots.size(), 0)};
  for (size_t h = 0; h < slots.size(); ++h) {
    std::vector<std::vector<size_t>> next;
    for (const auto &c : combos)
      for (size_t p = 0; p < order[h].size() && next.size() < 4096; ++p) {
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
  std::vector<bool> everHeld(k.requires_.size(), false);
  *failed = nullptr;
  std::vector<Assignment> out;
  for (const auto &c : combos) {
    if (out.size() >= max) break;
    std::vector<std::pair<int, int64_t>> values;
    for (const Hole &h : k.holes)
      if (h.value) values.push_back({h.id, *h.value});
    Assignment a;
    for (size_t h = 0; h < slots.size(); ++h) {
      a.push_back(order[h][c[h]]);
      values.push_back({k.holes[slots[h].index].id, a.back()});
    }
    const Constraint *bad = nullptr;
    for (size_t r = 0; r < k.requires_.size(); ++r) {
      Expr cond = simplify(fillHoles(k.requires_[r].cond, values));
      if (cond->kind == ExprKind::BoolImm && !cond->intValue) bad = bad ? bad : &k.requires_[r];
      else everHeld[r] = true;
    }
    if (!bad) out.push_back(std::move(a));
    else *failed = *failed ? *failed : bad;
  }
  if (out.empty())
    for (size_t r = 0; r < k.requires_.size(); ++r)
      if (!everHeld[r]) {
        *failed = &k.requires_[r];
        break;
      }
  return out;
}

// The candidate of `slot` nearest to `target` in log scale (the first of
// equally near ones); the target itself for a hole that takes any value.
int64_t nearestValue(const Slot &slot, int64_t target) {
  if (slot.anyValue) return target;
  auto distance = [&](int64_t v) { return std::abs(std::log2(static_cast<double>(v) / static_cast<double>(target))); };
  return *std::min_element(slot.values.begin(), slot.values.end(),
                           [&](int64_t a, int64_t b) { return distance(a) < distance(b); });
}

KernelPtr withValues(const Kernel &k, const std::vector<Slot> &slots, const Assignment &a) {
  auto out = std::make_shared<Kernel>(k);
  for (size_t h = 0; h < slots.size(); ++h) out->holes[slots[h].index].value = a[h];
  return out;
}

} // namespace

std::vector<size_t> modelOrder(const ConstructOptions &opts, const std::vector<costmodel::DecisionSequence> &seqs,
                               std::vector<double> *scores) {
  *scores = opts.rankByModel(seqs);
  std::vector<size_t> order(seqs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*scores)[a] > (*scores)[b]; });
  return order;
}

costmodel::DecisionSequence holeDecisions(const LoopNest &nest, const HardwareDesc &hw,
                                          const std::vector<std::pair<HoleRole, int64_t>> &holes) {
  costmodel::DecisionSequence seq = costmodel::nestDecisions(nest, hw);
  for (const auto &[role, value] : holes) {
    int64_t extent = std::max<int64_t>(nest.dims[role.dim].extent, 1), step = std::max<int64_t>(value, 1);
    seq.push_back({costmodel::PrimitiveKind::NestLoop,
                   {double(role.dim), double(step), double((extent + step - 1) / step), double(extent % step)},
                   {nest.dims[role.dim].name}});
  }
  return seq;
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
  auto targetsOf = [&](const ETIR &state, const std::vector<Slot> &slots) {
    std::vector<int64_t> t;
    for (const Slot &s : slots) t.push_back(std::max<int64_t>(state.tile[s.role.level][s.role.dim], 1));
    return t;
  };

  std::vector<Slot> slots;
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
    std::vector<int64_t> values = h.candidates;
    bool anyValue = values.empty();
    if (anyValue) {
      // Any positive value: every integer up to 1024 and the powers of two
      // beyond, so that `require`s like `U % 48 == 0` can be met (and the
      // constructed tile itself, added per target by legalAssignments).
      for (int64_t v = 1; v <= 1024; ++v) values.push_back(v);
      for (int64_t v = 2048; v <= 65536; v *= 2) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    slots.push_back({i, *role, std::move(values), anyValue});
  }
  if (diags.hasErrors()) return nullptr;

  // The candidates: the nearest legal assignment to each of Gensor's ranked
  // states (best estimate first), distinct, then the other legal points of
  // the template in order of distance to the best state's tiles (a kernel
  // whose holes have a few candidates each is then searched whole), as many
  // as ranking or timing asks for (the model scores up to modelCandidates;
  // timing takes the first measureTopK); without either, the best state's
  // alone, as always.
  bool measured = static_cast<bool>(opts.measure), ranked = static_cast<bool>(opts.rankByModel);
  size_t limit = ranked ? std::max<size_t>(opts.modelCandidates, 1) : measured ? std::max<size_t>(opts.measureTopK, 1) : 1;
  std::vector<Assignment> cands;
  const Constraint *failed = nullptr;
  auto add = [&](Assignment a) {
    if (cands.size() < limit && std::find(cands.begin(), cands.end(), a) == cands.end()) cands.push_back(std::move(a));
  };
  std::vector<int64_t> bestTargets = targetsOf(res.ranked.front().state, slots);
  if (tr)
    for (size_t h = 0; h < slots.size(); ++h)
      *tr << "// hole ?" << k.holes[slots[h].index].id << " tiles " << nest.dims[slots[h].role.dim].name << " at "
          << opts.hw.levels[slots[h].role.level].name << ": constructed " << bestTargets[h] << ", nearest candidate "
          << nearestValue(slots[h], bestTargets[h]) << "\n";
  std::vector<Assignment> nearBest = legalAssignments(k, slots, bestTargets, limit, &failed);
  if (!nearBest.empty()) {
    add(nearBest.front());
    for (size_t r = 1; r < res.ranked.size() && cands.size() < limit; ++r) {
      const Constraint *ignored = nullptr;
      for (Assignment &a : legalAssignments(k, slots, targetsOf(res.ranked[r].state, slots), 1, &ignored)) add(std::move(a));
    }
    for (Assignment &a : nearBest) add(std::move(a));
  }
  if (cands.empty()) {
    diags.error(failed ? failed->loc : k.loc, "the construction optimizer found no assignment of the holes' candidates "
                                              "that satisfies " +
                                                  (failed ? "`" + printExpr(failed->cond) + "`" : std::string("the kernel")));
    return nullptr;
  }
  auto decisions = [&](const Assignment &a) {
    std::vector<std::pair<HoleRole, int64_t>> holes;
    for (size_t h = 0; h < slots.size(); ++h) holes.push_back({slots[h].role, a[h]});
    return holeDecisions(nest, opts.hw, holes);
  };
  auto print = [&](const Assignment &a) {
    std::string s;
    for (size_t h = 0; h < slots.size(); ++h) s += fmt::format(" ?{} = {}", k.holes[slots[h].index].id, a[h]);
    return s;
  };
  if (ranked && cands.size() > 1) {
    std::vector<costmodel::DecisionSequence> seqs;
    for (const Assignment &a : cands) seqs.push_back(decisions(a));
    std::vector<double> score;
    std::vector<size_t> order = modelOrder(opts, seqs, &score);
    std::vector<Assignment> sorted;
    for (size_t i : order) sorted.push_back(cands[i]);
    if (tr)
      for (size_t i = 0; i < std::min<size_t>(order.size(), 5); ++i)
        *tr << fmt::format("// model rank {}: score {:.4f}:{}\n", i + 1, score[order[i]], print(cands[order[i]]));
    cands = std::move(sorted);
  }
  size_t best = 0;
  if (measured && (cands.size() > 1 || opts.recordMeasured)) {
    double bestSec = 0, spent = 0;
    size_t timed = std::min(cands.size(), std::max<size_t>(opts.measureTopK, 1));
    for (size_t c = 0; c < timed; ++c) {
      costmodel::Latency lat = opts.measure(withValues(k, slots, cands[c]));
      if (opts.recordMeasured) opts.recordMeasured(*k.op, decisions(cands[c]), "holes-gensor", lat);
      if (tr) *tr << "// measured" << print(cands[c]) << ": " << fmt::format("{:.6g}", lat.median) << " s\n";
      // Strictly faster only: a tie keeps the candidate ranked first.
      if (c == 0 || lat.median < bestSec) bestSec = lat.median, best = c;
      // Calls at the assumed shapes can take seconds (a kernel compiled
      // without --shape-hint for sizes far above its use): past the budget
      // the rest keep their rank untimed rather than hold the build.
      if (std::isfinite(lat.median)) spent += lat.median * std::max(lat.runs, 1);
      if (spent > kTimingBudgetSec && c + 1 < timed) {
        if (tr) *tr << fmt::format("// timing stopped after {} of {} candidates: {:.3g} s of calls\n", c + 1, timed, spent);
        break;
      }
    }
  }
  if (tr) *tr << "// chosen:" << print(cands[best]) << "\n";
  return withValues(k, slots, cands[best]);
}

} // namespace tk::construct
