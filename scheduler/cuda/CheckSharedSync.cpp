// How CheckSharedSync decides (CheckSharedSync.h). Every event of a launch
// (SharedAccesses.h) becomes integer sets over its dimensions: the
// iterations that run (an under- and an over-approximation), its schedule,
// its element and its thread. A race is a pair of iterations of a read and
// a write that agree on the block and the element, differ in the thread,
// and fall in the same phase: no sync instance lies strictly between their
// schedules, in either order. Threads run freely between barriers, so
// which of the two comes first in the program does not matter; the barrier
// that separates them does.
//
// A proof takes the under-approximated accesses and every `sync` wherever
// it may run (a barrier inside an `if` or a thread mapping included), so
// it never claims a race that a barrier might prevent. The possibility
// takes the over-approximated accesses and only the barriers every thread
// certainly reaches (outside thread mappings, under exact conditions).
#include "scheduler/cuda/CheckSharedSync.h"

#include "scheduler/Presburger.h"
#include "scheduler/WorkerLimits.h"
#include "scheduler/cuda/SharedAccesses.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

// isl operations per kernel: WriteAnalysis's budget for a user kernel.
constexpr unsigned long kBudget = 20'000'000;

// An event as integer sets over its n dimensions.
struct Sets {
  isl::Set under, over;       // the iterations that run: under ⊆ those ⊆ over
  std::string why;            // why an access is not exact ("" when it is)
  isl::Map sched;             // iteration -> schedule point
  isl::Map accUnder, accOver; // iteration -> element, inside the tensor's box
  isl::Map thread, warp;      // iteration -> thread index in the block, its warp
};

class Checker {
public:
  Checker(Presburger &pb, const SharedLaunch &l, DiagEngine &diags) : pb_(pb), l_(l), diags_(diags) {}
  bool run();

private:
  isl_ctx *ctx() const { return pb_.ctx(); }
  isl::Map fn(const Expr &e, unsigned n, std::string *why, const isl::Set *within) const;
  Sets sets(const SharedEvent &e) const;
  isl::Map samePhase(const isl::Set &syncs) const;
  isl::Map race(size_t r, size_t w, bool proof) const;
  bool report(size_t r, size_t w, const isl::Map &proof); // an error, when the race is proven
  std::string why(size_t r, size_t w, isl_bool none, const isl::Map &proof) const;

  Presburger &pb_;
  const SharedLaunch &l_;
  DiagEngine &diags_;
  size_t depth_ = 0; // schedule entries, the longest schedule's
  std::vector<Sets> sets_;
  isl::Map phaseProof_, phaseMay_; // schedule pairs with no barrier between
  std::string untrusted_; // why the first `sync` that may not be a barrier (or not run) is not trusted
};

// `e` as a map from the n dimensions to one value; any value when it is not
// Presburger (`why` says why).
isl::Map Checker::fn(const Expr &e, unsigned n, std::string *why, const isl::Set *within) const {
  isl::PwAff pa = pb_.affine(e, n, why, within);
  return isl::Map(pa ? isl_map_from_pw_aff(pa.release()) : isl_map_universe(isl_space_alloc(ctx(), 0, n, 1)));
}

Sets Checker::sets(const SharedEvent &e) const {
  unsigned n = static_cast<unsigned>(e.dims.size());
  Sets s;
  s.under = isl::Set(isl_set_universe(isl_space_set_alloc(ctx(), 0, n)));
  s.over = s.under;
  auto restrict = [&](const Expr &cond, const std::string &why) {
    Presburger::Cond c = pb_.condition(cond, n, &s.over);
    s.under = isl::Set(isl_set_intersect(s.under.release(), c.under.release()));
    s.over = isl::Set(isl_set_intersect(s.over.release(), c.over.release()));
    if (!c.why.empty() && s.why.empty()) s.why = why;
  };
  for (size_t k = 0; k < n; ++k) {
    restrict(binary(BinOp::GE, Presburger::dimExpr(k), intImm(0)), "");
    restrict(binary(BinOp::LT, Presburger::dimExpr(k), e.dims[k].extent),
             "the trip count of '" + e.dims[k].name + "' is not affine");
  }
  for (size_t g = 0; g < e.guards.size(); ++g)
    restrict(e.guards[g], "it runs under `if (" + e.guardTexts[g] + ")`, whose condition is not affine");
  isl_map *sched = isl_map_universe(isl_space_alloc(ctx(), 0, n, 0));
  for (size_t i = 0; i < depth_; ++i) {
    Expr v = i >= e.sched.size() ? intImm(0) : e.sched[i].isDim ? Presburger::dimExpr(e.sched[i].dim) : intImm(e.sched[i].seq);
    sched = isl_map_flat_range_product(sched, fn(v, n, nullptr, nullptr).release());
  }
  s.sched = isl::Map(sched);
  if (!e.tensor) return s;
  s.thread = fn(e.thread, n, nullptr, nullptr);
  s.warp = fn(floorDiv(e.thread, intImm(32)), n, nullptr, nullptr);
  isl_map *acc = isl_map_universe(isl_space_alloc(ctx(), 0, n, 0));
  bool exact = true;
  for (size_t d = 0; d < e.index.size(); ++d) {
    std::string why;
    isl::Map m = fn(e.index[d], n, &why, &s.over);
    if (!why.empty()) {
      exact = false;
      if (s.why.empty()) s.why = "index '" + e.source[d] + "' of " + e.tensor->name + " is not affine";
    }
    acc = isl_map_flat_range_product(acc, m.release());
  }
  acc = isl_map_set_tuple_name(acc, isl_dim_out, e.tensor->name.c_str());
  acc = isl_map_intersect_range(acc, pb_.box(*e.tensor).release());
  s.accOver = isl::Map(isl_map_intersect_domain(isl_map_copy(acc), s.over.copy()));
  s.accUnder = exact ? isl::Map(isl_map_intersect_domain(acc, s.under.copy()))
                     : isl::Map(isl_map_empty(isl_map_get_space(acc)));
  if (!exact) isl_map_free(acc);
  return s;
}

// { s -> s' } for schedule points with no point of `syncs` strictly
// between them, in either order (s == s' included: one statement).
isl::Map Checker::samePhase(const isl::Set &syncs) const {
  isl_space *sp = isl_space_set_alloc(ctx(), 0, static_cast<unsigned>(depth_));
  isl_map *lt = isl_map_lex_lt(isl_space_copy(sp));
  isl_map *toSync = isl_map_intersect_range(isl_map_copy(lt), syncs.copy());
  isl_map *between = isl_map_apply_range(toSync, isl_map_intersect_domain(lt, syncs.copy()));
  isl_map *same = isl_map_subtract(isl_map_lex_le(sp), between);
  isl_map *reversed = isl_map_reverse(isl_map_copy(same));
  return isl::Map(isl_map_union(same, reversed));
}

// { read iteration -> write iteration } of the races between events r and w.
isl::Map Checker::race(size_t r, size_t w, bool proof) const {
  const Sets &a = sets_[r], &b = sets_[w];
  const SharedEvent &er = l_.events[r], &ew = l_.events[w];
  isl_map *p = isl_map_apply_range((proof ? a.accUnder : a.accOver).copy(),
                                   isl_map_reverse((proof ? b.accUnder : b.accOver).copy()));
  for (size_t q = 0; q < er.dims.size() && q < ew.dims.size(); ++q)
    if (er.dims[q].kind == EventDim::Kind::Block && ew.dims[q].kind == EventDim::Kind::Block)
      p = isl_map_equate(p, isl_dim_in, static_cast<int>(q), isl_dim_out, static_cast<int>(q));
  // Which lane of a warp-collective statement reads an element is not
  // modelled: a proof needs a thread of another warp.
  bool warps = proof && (er.collective || ew.collective);
  isl_map *less = isl_map_lex_lt(isl_space_set_alloc(ctx(), 0, 1));
  isl_map *differ = isl_map_union(less, isl_map_lex_gt(isl_space_set_alloc(ctx(), 0, 1)));
  isl_map *other = isl_map_apply_range(differ, isl_map_reverse((warps ? b.warp : b.thread).copy()));
  isl_map *threads = isl_map_apply_range((warps ? a.warp : a.thread).copy(), other);
  p = isl_map_intersect(p, threads);
  isl_map *order = isl_map_apply_range(isl_map_intersect_domain(a.sched.copy(), isl_map_domain(isl_map_copy(p))),
                                       isl_map_apply_range((proof ? phaseProof_ : phaseMay_).copy(),
                                                           isl_map_reverse(b.sched.copy())));
  p = isl_map_intersect(p, order);
  return isl::Map(isl_map_intersect_params(p, pb_.context().copy()));
}

std::string Checker::why(size_t r, size_t w, isl_bool none, const isl::Map &proof) const {
  const SharedEvent &er = l_.events[r], &ew = l_.events[w];
  if (!sets_[r].why.empty()) return "the read: " + sets_[r].why;
  if (!sets_[w].why.empty()) return "the write: " + sets_[w].why;
  if (pb_.exhausted()) return "the analysis ran out of its budget of isl operations";
  if (!untrusted_.empty()) return untrusted_;
  if ((er.collective || ew.collective) && proof && isl_map_is_empty(proof.get()) == isl_bool_true)
    return "'ldmatrix' is warp-collective and which lane reads which element is not modelled, so only threads "
           "of other warps are proven to race; a thread of the reading warp may write what it reads";
  if (none == isl_bool_false) return "its example does not fit an expression that is not affine";
  return "the integer sets are too complex";
}

// "thread 8", or "warp 1" for a warp-collective statement.
std::string who(const SharedEvent &e, const PointValues &v) {
  return e.collective ? "warp " + valueText(floorDiv(e.thread, intImm(32)), v) : "thread " + valueText(e.thread, v);
}

bool Checker::report(size_t r, size_t w, const isl::Map &proof) {
  if (!proof || isl_map_is_empty(proof.get()) != isl_bool_false) return false;
  const SharedEvent &er = l_.events[r], &ew = l_.events[w];
  // Prefer an example where the write comes first (a read of what another
  // thread has not finished writing); else the read comes first.
  isl_map *later = isl_map_apply_range(isl_map_lex_ge(isl_space_set_alloc(ctx(), 0, static_cast<unsigned>(depth_))),
                                       isl_map_reverse(sets_[w].sched.copy()));
  isl::Map first(isl_map_intersect(proof.copy(), isl_map_apply_range(sets_[r].sched.copy(), later)));
  const isl::Map &from = isl_map_is_empty(first.get()) == isl_bool_false ? first : proof;
  std::optional<Presburger::Sample> s = pb_.sample(isl::Set(isl_map_wrap(from.copy())));
  if (!s || !pb_.consistent(s->params)) return false;
  size_t nr = er.dims.size();
  PointValues vr = pointValues(*s, 0, nr), vw = pointValues(*s, nr, ew.dims.size());
  auto point = [&](const SharedEvent &e, size_t off, size_t i) {
    if (i >= e.sched.size()) return int64_t{0};
    return e.sched[i].isDim ? s->dims[off + e.sched[i].dim] : e.sched[i].seq;
  };
  size_t p = 0;
  while (p < depth_ && point(er, 0, p) == point(ew, nr, p)) ++p;
  bool same = p == depth_, readFirst = !same && point(er, 0, p) < point(ew, nr, p);
  std::vector<std::string> details;
  std::string loop;
  if (!same && p < er.sched.size() && p < ew.sched.size() && er.sched[p].isDim && ew.sched[p].isDim) {
    const std::string &name = er.dims[er.sched[p].dim].name;
    loop = fmt::format(" in {} iteration of '{}'", readFirst ? "a later" : "an earlier", name);
    details.push_back(fmt::format("{} = {} there and {} here", name, point(ew, nr, p), point(er, 0, p)));
  }
  std::string params = pb_.describeParams(s->params, isl::Set(isl_map_wrap(proof.copy())));
  if (!params.empty()) details.push_back("when " + params);
  std::string tail = details.empty() ? "" : fmt::format(" ({})", fmt::join(details, "; "));
  std::vector<std::string> element;
  for (const Expr &i : er.index) element.push_back(valueText(i, vr));
  std::string elem = fmt::format("{}[{}]", er.tensor->name, fmt::join(element, ", "));
  bool atomicRead = er.kind == SharedEvent::Kind::Atomic, atomicWrite = ew.kind == SharedEvent::Kind::Atomic;
  std::string reads = atomicRead ? "updates" : "reads", writes = atomicWrite ? "updates" : "writes";
  std::string read = atomicRead ? "update" : "read", rw = who(er, vr), ww = who(ew, vw);
  std::string msg = fmt::format("shared tensor '{}' is {} here ", er.tensor->name,
                                atomicRead ? "updated by atomic_add" : "read");
  if (same)
    msg += fmt::format("by the statement that writes it at {}, with no 'sync' between the threads: {} {} {}, "
                       "which {} {}{}",
                       lineCol(ew.loc), rw, reads, elem, ww, writes, tail);
  else if (readFirst)
    msg += fmt::format("before the write at {}{} with no 'sync' between them: {} {} {} there while {} {} it "
                       "here{}",
                       lineCol(ew.loc), loop, ww, atomicWrite ? "updates" : "overwrites", elem, rw, reads, tail);
  else
    msg += fmt::format("after the write at {}{} with no 'sync' between them: {} {} {}, which {} {} there{}",
                       lineCol(ew.loc), loop, rw, reads, elem, ww, writes, tail);
  msg += fmt::format("; a 'sync' is needed between the {} and the {}", readFirst ? read : "write",
                     readFirst ? "write" : read);
  diags_.error(er.loc, msg);
  return true;
}

bool Checker::run() {
  for (const SharedEvent &e : l_.events) depth_ = std::max(depth_, e.sched.size());
  isl_space *sp = isl_space_set_alloc(ctx(), 0, static_cast<unsigned>(depth_));
  isl::Set syncOver(isl_set_empty(isl_space_copy(sp))), syncUnder(isl_set_empty(sp));
  for (const SharedEvent &e : l_.events) {
    sets_.push_back(sets(e));
    if (e.kind != SharedEvent::Kind::Sync) continue;
    const Sets &s = sets_.back();
    auto points = [&](const isl::Set &dom) {
      return isl_map_range(isl_map_intersect_domain(s.sched.copy(), dom.copy()));
    };
    syncOver = isl::Set(isl_set_union(syncOver.release(), points(s.over)));
    if (!e.inThreadMapping) syncUnder = isl::Set(isl_set_union(syncUnder.release(), points(s.under)));
    std::string at = "the 'sync' at " + lineCol(e.loc);
    if (untrusted_.empty() && e.inThreadMapping)
      untrusted_ = at + " is inside a threads or warps mapping, where it is a barrier only if every thread of the "
                        "block reaches it";
    else if (untrusted_.empty() && !s.why.empty())
      untrusted_ = at + " may not run: " + s.why;
  }
  phaseProof_ = samePhase(syncOver);
  phaseMay_ = samePhase(syncUnder);
  bool ok = true;
  for (size_t r = 0; r < l_.events.size(); ++r) {
    const SharedEvent &er = l_.events[r];
    if (er.kind != SharedEvent::Kind::Read && er.kind != SharedEvent::Kind::Atomic) continue;
    std::optional<std::pair<size_t, std::string>> doubt;
    bool proven = false;
    for (size_t w = 0; w < l_.events.size() && !proven; ++w) {
      const SharedEvent &ew = l_.events[w];
      bool writes = ew.kind == SharedEvent::Kind::Write || ew.kind == SharedEvent::Kind::Atomic;
      if (!writes || ew.tensor != er.tensor || (er.kind == SharedEvent::Kind::Atomic && ew.kind == er.kind)) continue;
      isl::Map over = race(r, w, false);
      isl_bool none = isl_map_is_empty(over.get());
      if (none == isl_bool_true) continue;
      isl::Map proof = race(r, w, true);
      proven = report(r, w, proof);
      if (!proven && !doubt) doubt = {{w, why(r, w, none, proof)}};
    }
    ok &= !proven;
    if (!proven && doubt)
      diags_.warning(er.loc, "cannot prove that shared tensor '{}' {} here and the write at {} are ordered by a "
                             "'sync' where different threads access the same element: {}",
                     er.tensor->name, er.kind == SharedEvent::Kind::Atomic ? "updated by atomic_add" : "read",
                     lineCol(l_.events[doubt->first].loc), doubt->second);
  }
  return ok;
}

} // namespace

bool checkSharedSync(const Kernel &k, DiagEngine &diags) {
  std::vector<SharedLaunch> launches = sharedAccesses(k);
  if (launches.empty()) return true;
  Presburger pb(k, kBudget);
  bool ok = true;
  for (const SharedLaunch &l : launches) ok &= Checker(pb, l, diags).run();
  return ok;
}

} // namespace tk
