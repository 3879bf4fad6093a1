#include "scheduler/WriteAnalysis.h"

#include "ir/Simplify.h"
#include "scheduler/WorkerLimits.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// A set of elements in isl's notation without its parameter list and, for
// one piece, without braces: `Z[i, j] for 2i >= M`, `Z[i = -1 + M, j]`.
std::string setText(const isl::Set &s) {
  std::string t = isl::str(s);
  size_t arrow = t.find("-> {");
  if (!t.empty() && t[0] == '[' && arrow != std::string::npos) t = t.substr(arrow + 3);
  if (t.size() < 4 || t.front() != '{' || t.find(';') != std::string::npos) return t;
  t = t.substr(2, t.size() - 4);
  size_t colon = t.find(" : ");
  return colon == std::string::npos ? t : t.substr(0, colon) + " for " + t.substr(colon + 3);
}

// The names of `t`'s dimensions: the index variables of the op statement
// that assigns it (i0, i1, ... when there is none).
std::vector<std::string> dimNames(const Op &op, const TensorDecl &t) {
  for (const Assign &a : op.body)
    if (a.target.get() == &t && a.vars.size() == t.rank()) {
      std::vector<std::string> out;
      for (const IndexVar &v : a.vars) out.push_back(v.name);
      return out;
    }
  std::vector<std::string> out;
  for (size_t d = 0; d < t.rank(); ++d) out.push_back(fmt::format("i{}", d));
  return out;
}

} // namespace

// isl operations for one kernel's analysis (a few seconds at most; the
// mappings users write need far less). The scheduler's own kernels are
// checked only for errors, in about 0.05-0.2 s: constructed matmuls and
// convolutions (many versioned stores under min/cdiv bounds) run out of
// it, and pass (their results are tested against the interpreter). The
// time is proportional to the budget: at 1,000,000 the convolution's
// analysis took 0.73 s, 28% of compiling std/nn.tk's conv2d; at 250,000
// 0.18 s (matmul 0.16 -> 0.05 s).
constexpr unsigned long kBudget = 20'000'000, kQuietBudget = 250'000;

WriteAnalysis::WriteAnalysis(const Kernel &k, bool quiet) : k_(k), quiet_(quiet), pb_(k, quiet ? kQuietBudget : kBudget) {}

std::string WriteAnalysis::undecided(isl_bool none) const {
  if (pb_.exhausted()) return "the analysis ran out of its budget of isl operations";
  if (none == isl_bool_false) return "its example does not fit an expression that is not affine";
  return "the integer sets are too complex";
}

void WriteAnalysis::report(std::vector<WriteFinding> &out, bool proven, SourceLoc loc, std::string error,
                           std::string warning) {
  if (proven) out.push_back({Severity::Error, loc, std::move(error)});
  else if (!quiet_) out.push_back({Severity::Warning, loc, std::move(warning)});
}

WriteAnalysis::Domain WriteAnalysis::domain(const std::vector<IterDim> &iters, const std::vector<Guard> &guards) {
  unsigned n = static_cast<unsigned>(iters.size());
  Domain d;
  d.under = isl::Set(isl_set_universe(isl_space_set_alloc(pb_.ctx(), 0, n)));
  d.over = d.under;
  auto restrict = [&](const Expr &cond, const std::string &why) {
    Presburger::Cond c = pb_.condition(cond, n, &d.over);
    d.under = isl::Set(isl_set_intersect(d.under.release(), c.under.release()));
    d.over = isl::Set(isl_set_intersect(d.over.release(), c.over.release()));
    if (!c.why.empty() && d.why.empty()) d.why = why;
    return c.why.empty();
  };
  for (size_t k = 0; k < n; ++k) {
    const IterDim &it = iters[k];
    restrict(binary(BinOp::GE, Presburger::dimExpr(k), intImm(0)), "");
    d.inexactExtent |= !restrict(binary(BinOp::LT, Presburger::dimExpr(k), it.extent), "the extent '" + it.extentText + "' of '" +
                                                                           it.userVar + "' (" + it.site +
                                                                           ") is not affine");
  }
  for (size_t g = 0; g < guards.size(); ++g)
    if (!restrict(guards[g].cond, "it runs under `if (" + guards[g].text + ")`, whose condition is not affine"))
      d.inexactGuards.push_back(g);
  return d;
}

isl::Set WriteAnalysis::box(const TensorDecl &t) {
  unsigned r = static_cast<unsigned>(t.rank());
  isl_set *s = pb_.box(t).release();
  std::vector<std::string> names = dimNames(*k_.op, t);
  for (unsigned d = 0; d < r; ++d) s = isl_set_set_dim_name(s, isl_dim_set, d, names[d].c_str());
  return isl::Set(s);
}

void WriteAnalysis::add(StoreAccess a) {
  isl_ctx *ctx = pb_.ctx();
  unsigned n = static_cast<unsigned>(a.iters.size());
  Domain d = domain(a.iters, a.guards);
  Access acc;
  acc.why = d.why;
  isl_map *over = isl_map_universe(isl_space_alloc(ctx, 0, n, 0));
  bool exactIndex = true;
  for (size_t i = 0; i < a.index.size(); ++i) {
    std::string why;
    isl::PwAff pa = pb_.affine(a.index[i], n, &why, &d.over);
    if (!pa) {
      exactIndex = false;
      bool indirect = false;
      visitExpr(a.source[i], [&](const Expr &e) { indirect |= e->kind == ExprKind::Load; });
      if (acc.why.empty())
        acc.why = "index '" + printExpr(a.source[i]) + "' is " + (indirect ? "indirect" : "not affine");
    }
    isl_map *m = pa ? isl_map_from_pw_aff(pa.release()) : isl_map_universe(isl_space_alloc(ctx, 0, n, 1));
    over = isl_map_flat_range_product(over, m);
  }
  const TensorDecl &t = *a.tensor;
  over = isl_map_set_tuple_name(over, isl_dim_out, t.name.c_str());
  isl::Map all(isl_map_intersect_range(over, box(t).release()));
  acc.over = isl::Map(isl_map_intersect_domain(all.copy(), d.over.release()));
  acc.under = exactIndex ? isl::Map(isl_map_intersect_domain(all.copy(), d.under.release()))
                         : isl::Map(isl_map_empty(isl_map_get_space(all.get())));
  for (size_t k = 0; k < n; ++k)
    if (a.iters[k].parallel) acc.depth = k + 1;
  while (acc.depth > 0 && acc.depth < n && a.iters[acc.depth].loop == a.iters[acc.depth - 1].loop) ++acc.depth;
  auto project = [&](const isl::Map &m) {
    return isl::Map(isl_map_project_out(m.copy(), isl_dim_in, static_cast<unsigned>(acc.depth),
                                        static_cast<unsigned>(n - acc.depth)));
  };
  if (acc.depth > 0) {
    acc.workerOver = project(acc.over);
    acc.workerUnder = project(acc.under);
  }
  acc.a = std::move(a);
  if (exactIndex && !d.inexactExtent && d.inexactGuards.size() == 1) acc.branch = d.inexactGuards[0];
  bool output = acc.a.tensor->role == TensorRole::Output;
  (acc.a.read ? reads_ : output ? accesses_ : localStores_).push_back(std::move(acc));
}

std::string WriteAnalysis::element(const Access &a, const PointValues &v) const {
  std::string s = a.a.tensor->name + "[";
  for (size_t d = 0; d < a.a.index.size(); ++d) s += (d ? ", " : "") + valueText(a.a.index[d], v);
  return s + "]";
}

isl::Map WriteAnalysis::concurrent(const Access &a, const Access &b, bool phases, std::vector<size_t> &dims) {
  const std::vector<IterDim> &ia = a.a.iters, &ib = b.a.iters;
  size_t na = a.depth, nb = b.depth, common = 0;
  while (common < na && common < nb && ia[common].loop == ib[common].loop) ++common;
  // Pairs of iterations that run at the same time on different workers:
  // they agree on every dimension of the loops around a worker mapping and
  // differ in one of its spatial factors.
  auto start = [&](size_t p) {
    while (p > 0 && ia[p - 1].loop == ia[p].loop) --p;
    return p;
  };
  auto phase = [](const StoreAccess &x, const MStmt *m) -> const Phase * {
    for (const Phase &f : x.phases)
      if (f.mapping == m) return &f;
    return nullptr;
  };
  isl_space *sp = isl_space_alloc(pb_.ctx(), 0, static_cast<unsigned>(na), static_cast<unsigned>(nb));
  isl::Map out(isl_map_empty(isl_space_copy(sp)));
  for (size_t p = 0; p < common; ++p) {
    // Workers outside a local's allocation each have their own copy.
    if (!ia[p].parallel || p < a.a.allocDepth || p < b.a.allocDepth) continue;
    const Phase *fa = phases ? phase(a.a, ia[p].loop) : nullptr, *fb = phases ? phase(b.a, ia[p].loop) : nullptr;
    if (fa && fb && fa->index != fb->index) continue; // a `sync` orders them
    // On cpu CheckBarriers refuses a nested `sync`: no race to report.
    if (phases && k_.target == TargetFamily::Cpu && nestedSync_.count(ia[p].loop)) continue;
    dims.push_back(p);
    isl_map *m = isl_map_universe(isl_space_copy(sp));
    for (size_t q = 0; q < start(p); ++q) m = isl_map_equate(m, isl_dim_in, q, isl_dim_out, q);
    // With a barrier in the body, every worker runs the mapping's repeat
    // tasks in step: only the same task of two workers overlaps.
    for (size_t q = start(p); fa && fa->synced && q < common && ia[q].loop == ia[p].loop; ++q)
      if (!ia[q].parallel) m = isl_map_equate(m, isl_dim_in, q, isl_dim_out, q);
    isl_map *lt = isl_map_order_lt(isl_map_copy(m), isl_dim_in, p, isl_dim_out, p);
    isl_map *gt = isl_map_order_gt(m, isl_dim_in, p, isl_dim_out, p);
    out = isl::Map(isl_map_union(out.release(), isl_map_union(lt, gt)));
  }
  isl_space_free(sp);
  return out;
}

isl::Map WriteAnalysis::pairs(const isl::Map &x, const isl::Map &y, const isl::Map &concurrent) const {
  isl_map *r = isl_map_domain_product(x.copy(), y.copy());
  r = isl_map_intersect_domain(r, isl_map_wrap(concurrent.copy()));
  return isl::Map(isl_map_intersect_params(r, pb_.context().copy()));
}

void WriteAnalysis::conflict(const Access &a, const Access &b, std::vector<WriteFinding> &out) {
  const std::vector<IterDim> &ia = a.a.iters;
  size_t na = a.depth, nb = b.depth;
  std::vector<size_t> workerDims;
  isl::Map concurrent = this->concurrent(a, b, false, workerDims);
  if (workerDims.empty()) return;
  std::string key = fmt::format("{},{}", na, nb);
  for (size_t p : workerDims) {
    size_t start = p;
    while (start > 0 && ia[start - 1].loop == ia[p].loop) --start;
    key += fmt::format(",{}:{}", p, start);
  }
  auto pairs = [&](const isl::Map &x, const isl::Map &y) { return this->pairs(x, y, concurrent); };
  // Versions of one loop nest (full / partial tiles) repeat the same maps.
  key += "|" + isl::str(a.workerOver) + "|" + isl::str(b.workerOver);
  if (noConflict_.count(key)) return;
  isl::Map over = pairs(a.workerOver, b.workerOver);
  isl_bool none = isl_map_is_empty(over.get());
  if (none == isl_bool_true) {
    noConflict_.insert(key);
    return;
  }
  bool exact = a.why.empty() && b.why.empty();
  isl::Map witness = exact ? over : pairs(a.workerUnder, b.workerUnder);
  std::optional<Presburger::Sample> s;
  if (witness && isl_map_is_empty(witness.get()) == isl_bool_false) s = pb_.sample(isl::Set(isl_map_wrap(witness.copy())));
  bool proven = s && pb_.consistent(s->params);
  if (!s && none == isl_bool_false) s = pb_.sample(isl::Set(isl_map_wrap(over.copy())));
  // The worker dimension the two iterations differ in (the first such).
  size_t p = workerDims.front();
  if (s)
    for (size_t w : workerDims)
      if (s->dims[w] != s->dims[na + w]) {
        p = w;
        break;
      }
  const IterDim &d = ia[p];
  std::string other = &a == &b ? "" : " as the store at " + lineCol(a.a.loc);
  std::string tensor = a.a.tensor->name;
  std::string example;
  if (s) {
    PointValues va = pointValues(*s, 0, na), vb = pointValues(*s, na, nb);
    example = fmt::format(" (e.g. {}[{}] by {} = {} and {} = {}", tensor,
                          fmt::join(s->dims.begin() + (na + nb), s->dims.end(), ", "), d.userVar,
                          valueText(d.userValue, va), d.userVar, valueText(d.userValue, vb));
    std::string params = pb_.describeParams(s->params, isl::Set(isl_map_wrap(over.copy())));
    example += (params.empty() ? "" : " when " + params) + ")";
  }
  std::string why = !a.why.empty()          ? a.why
                    : !b.why.empty()        ? b.why
                                             : undecided(none);
  report(out, proven, b.a.loc,
         "writes conflict: workers differing in '" + d.userVar + "' (" + d.site + ") store to the same element of " +
             tensor + other + example,
         "cannot prove that workers differing in '" + d.userVar + "' (" + d.site +
             ") do not store to the same element of " + tensor + other + ": " + why);
}

void WriteAnalysis::overwrite(const Access &a, std::vector<WriteFinding> &out) {
  if (!a.why.empty()) return; // a rewrite within one worker is no race: report only what is proven
  size_t n = a.a.iters.size();
  isl_map *r = isl_map_apply_range(a.under.copy(), isl_map_reverse(a.under.copy()));
  r = isl_map_intersect(r, isl_map_lex_lt(isl_space_set_alloc(pb_.ctx(), 0, static_cast<unsigned>(n))));
  isl::Map twice(isl_map_intersect_params(r, pb_.context().copy()));
  if (isl_map_is_empty(twice.get()) != isl_bool_false) return;
  auto s = pb_.sample(isl::Set(isl_map_wrap(twice.copy())));
  if (!s || !pb_.consistent(s->params)) return;
  size_t q = 0;
  while (q + 1 < n && s->dims[q] == s->dims[n + q]) ++q;
  const IterDim &d = a.a.iters[q];
  PointValues v1 = pointValues(*s, 0, n), v2 = pointValues(*s, n, n);
  std::string t = a.a.tensor->name;
  std::string params = pb_.describeParams(s->params, isl::Set(isl_map_wrap(twice.copy())));
  out.push_back({Severity::Error, a.a.loc,
                 "store to " + t + " is not injective: iterations differing in '" + d.userVar + "' (" + d.site +
                     ") write the same element; accumulate with '+=' or index " + t + " by '" + d.userVar +
                     "' (e.g. " + element(a, v1) + " at " + d.userVar + " = " + valueText(d.userValue, v1) + " and " +
                     d.userVar + " = " + valueText(d.userValue, v2) + (params.empty() ? "" : " when " + params) +
                     ")"});
}

void WriteAnalysis::checkConflicts(std::vector<WriteFinding> &out) {
  for (size_t j = 0; j < accesses_.size(); ++j) {
    size_t before = out.size();
    for (size_t i = 0; i <= j && out.size() == before; ++i)
      if (accesses_[i].a.tensor == accesses_[j].a.tensor) conflict(accesses_[i], accesses_[j], out);
    if (out.size() == before && accesses_[j].a.accum == AccumOp::None) overwrite(accesses_[j], out);
  }
}

// Elements written whichever way a condition that is not affine goes: for
// each `if` of that kind, those that its `then` and its `else` branch both
// write in the same iteration of the loops around it.
isl::Set WriteAnalysis::eitherBranch(const std::vector<const Access *> &stores) {
  isl::Set out;
  std::vector<const MStmt *> done;
  for (const Access *a : stores) {
    if (!a->branch || std::find(done.begin(), done.end(), a->branchGuard()->at) != done.end()) continue;
    const Guard &g = *a->branchGuard();
    done.push_back(g.at);
    isl::Map side[2];
    for (const Access *b : stores) {
      if (!b->branch || b->branchGuard()->at != g.at) continue;
      size_t n = b->a.iters.size();
      isl_map *m = isl_map_project_out(b->over.copy(), isl_dim_in, static_cast<unsigned>(g.depth),
                                       static_cast<unsigned>(n - g.depth));
      isl::Map &s = side[b->branchGuard()->inElse];
      s = isl::Map(s ? isl_map_union(s.release(), m) : m);
    }
    if (!side[0] || !side[1]) continue;
    isl_set *both = isl_map_range(isl_map_intersect(side[0].release(), side[1].release()));
    out = isl::Set(out ? isl_set_union(out.release(), both) : both);
  }
  return out;
}

void WriteAnalysis::checkCoverage(std::vector<WriteFinding> &out) {
  for (const TensorPtr &t : k_.op->outputs) {
      std::vector<const Access *> stores;
    for (const Access &a : accesses_)
      if (a.a.tensor == t.get()) stores.push_back(&a);
    if (stores.empty()) {
      out.push_back({Severity::Error, k_.loc, "kernel " + k_.name + " never writes output " + t->name});
      continue;
    }
    isl::Set full(isl_set_intersect_params(box(*t).release(), pb_.context().copy()));
    isl::Set written(isl_set_empty(isl_set_get_space(full.get())));
    for (const Access *a : stores) written = isl::Set(isl_set_union(written.release(), isl_map_range(a->under.copy())));
    if (isl::Set both = eitherBranch(stores)) written = isl::Set(isl_set_union(written.release(), both.release()));
    isl::Set missing(isl_set_coalesce(isl_set_subtract(full.copy(), written.release())));
    isl_bool none = isl_set_is_empty(missing.get());
    if (none == isl_bool_true) continue;
    const Access *inexact = nullptr;
    for (const Access *a : stores)
      if (!inexact && !a->why.empty()) inexact = a;
    auto s = none == isl_bool_false ? pb_.sample(missing) : std::nullopt;
    bool proven = !inexact && pb_.contextGap().empty() && s && pb_.consistent(s->params);
    std::string example;
    if (s) {
      std::string params = pb_.describeParams(s->params, missing);
      example = fmt::format("{}[{}]{}", t->name, fmt::join(s->dims, ", "), params.empty() ? "" : " when " + params);
    }
    std::string why = inexact                        ? inexact->why
                      : !pb_.contextGap().empty()    ? "the " + pb_.contextGap()
                                                     : undecided(none);
    isl::Set shown(isl_set_gist(missing.copy(), full.copy()));
    report(out, proven, (inexact && !proven ? inexact : stores.front())->a.loc,
           "mapping never writes " + setText(shown) + " (e.g. " + example + ")",
           "cannot prove that the mapping writes every element of " + t->name + ": " + why);
  }
}

void WriteAnalysis::checkExtent(const std::vector<IterDim> &outer, const std::vector<Guard> &guards,
                                const Expr &extent, const std::string &text, SourceLoc loc,
                                std::vector<WriteFinding> &out) {
  unsigned n = static_cast<unsigned>(outer.size());
  Domain d = domain(outer, guards);
  Presburger::Cond neg = pb_.condition(binary(BinOp::LT, extent, intImm(0)), n, &d.over);
  auto within = [&](const isl::Set &negative, const isl::Set &dom) {
    return isl::Set(isl_set_intersect_params(isl_set_intersect(negative.copy(), dom.copy()), pb_.context().copy()));
  };
  isl::Set maybe = within(neg.over, d.over);
  isl_bool none = isl_set_is_empty(maybe.get());
  if (none == isl_bool_true) return;
  std::optional<Presburger::Sample> s;
  if (neg.why.empty() && d.why.empty()) s = pb_.sample(within(neg.under, d.under));
  bool proven = s && pb_.consistent(s->params) && pb_.contextGap().empty();
  std::string example;
  if (s) {
    PointValues v = pointValues(*s, 0, n);
    std::string params = pb_.describeParams(s->params, maybe);
    example = " (it is " + valueText(extent, v) + (params.empty() ? "" : " when " + params) + ")";
  }
  std::string why = !neg.why.empty()            ? "it is not affine"
                    : !d.why.empty()            ? d.why
                    : !pb_.contextGap().empty() ? "the " + pb_.contextGap()
                                                : undecided(none);
  report(out, proven, loc,
         "task-mapping extent '" + text + "' can be negative" + example +
             ": add a `require` that keeps it >= 0, or clamp it with max(..., 0)",
         "cannot prove that task-mapping extent '" + text + "' is non-negative: " + why);
}

} // namespace tk
