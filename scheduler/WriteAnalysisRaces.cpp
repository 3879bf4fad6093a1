// Read-write races of WriteAnalysis (declared in WriteAnalysis.h): a worker
// of a parallel mapping reads an element that another worker of the same
// mapping writes, with no top-level `sync` of that mapping between the two
// (issue 19: `Y[i] = Y[i - 1]` across cores gives a different answer per
// run). Concurrency is the write-conflict check's: the two iterations agree
// on the loops around the mapping and differ in one of its spatial factors.
#include "scheduler/WorkerLimits.h"
#include "scheduler/WriteAnalysis.h"

#include <fmt/format.h>

namespace tk {
using namespace ir;

// Sema renames a second `i` of a kernel apart to `i.1`.
std::string sourceVarName(const std::string &v) {
  size_t dot = v.rfind('.');
  if (dot == std::string::npos || dot + 1 == v.size()) return v;
  for (size_t c = dot + 1; c < v.size(); ++c)
    if (v[c] < '0' || v[c] > '9') return v;
  return v.substr(0, dot);
}

bool WriteAnalysis::syncOrders(WorkerKind w) {
  return w == WorkerKind::Cores || w == WorkerKind::Threads || w == WorkerKind::Warps || w == WorkerKind::Cpes;
}

bool WriteAnalysis::race(const Access &r, const Access &w, std::vector<WriteFinding> &out) {
  if (r.depth == 0 || w.depth == 0) return false;
  std::vector<size_t> dims;
  isl::Map concurrent = this->concurrent(r, w, true, dims);
  if (dims.empty()) return false;
  isl::Map over = pairs(r.workerOver, w.workerOver, concurrent);
  isl_bool none = isl_map_is_empty(over.get());
  if (none == isl_bool_true) return false;
  bool exact = r.why.empty() && w.why.empty();
  isl::Map witness = exact ? over : pairs(r.workerUnder, w.workerUnder, concurrent);
  std::optional<Presburger::Sample> s;
  if (witness && isl_map_is_empty(witness.get()) == isl_bool_false) s = pb_.sample(isl::Set(isl_map_wrap(witness.copy())));
  bool proven = s && pb_.consistent(s->params);
  size_t nr = r.depth, nw = w.depth, p = dims.front();
  if (s)
    for (size_t q : dims)
      if (s->dims[q] != s->dims[nr + q]) {
        p = q;
        break;
      }
  const IterDim &d = r.a.iters[p];
  bool nested = nestedSync_.count(d.loop) != 0;
  proven &= !nested;
  std::string var = sourceVarName(d.userVar), tensor = r.a.tensor->name;
  std::string example;
  if (s) {
    PointValues vr = pointValues(*s, 0, nr), vw = pointValues(*s, nr, nw);
    example = fmt::format("{}[{}] is written by {} = {} (the store at {}) and read by {} = {}", tensor,
                          fmt::join(s->dims.begin() + (nr + nw), s->dims.end(), ", "), var,
                          valueText(d.userValue, vw), lineCol(w.a.loc), var, valueText(d.userValue, vr));
    std::string params = pb_.describeParams(s->params, isl::Set(isl_map_wrap(over.copy())));
    example += params.empty() ? "" : " when " + params;
  }
  std::string why = nested          ? "a 'sync' inside a loop, an 'if' or an inner mapping of it may order them"
                    : !r.why.empty() ? r.why
                    : !w.why.empty() ? w.why
                                     : undecided(none);
  std::string workers = "workers differing in '" + var + "' (" + d.site + ")";
  report(out, proven, r.a.loc,
         "read-write race: " + workers + ": " + example +
             "; a 'sync' between the write and the read, or separate mappings, would order them",
         "cannot prove that " + workers + " do not read elements of " + tensor + " that another of them writes (the store at " +
             lineCol(w.a.loc) + "): " + why);
  return true;
}

void WriteAnalysis::checkRaces(std::vector<WriteFinding> &out) {
  for (const Access &r : reads_) {
    bool found = false;
    for (const std::vector<Access> *writes : {&accesses_, &localStores_})
      for (const Access &w : *writes)
        if (!found && w.a.tensor == r.a.tensor) found = race(r, w, out);
  }
}

} // namespace tk
