#include "scheduler/cpu/CheckBarriers.h"

#include "ir/IRRewrite.h"

#include <set>

namespace tk {
using namespace ir;

bool checkBarriers(const Kernel &k, DiagEngine &diags) {
  std::set<const MStmt *> placed;
  std::vector<const MStmt *> inside; // in source order, for a stable report
  bool ok = true;
  visitMStmt(k.body, [&](const MStmt &m) {
    if (m.kind != MStmt::Kind::MapFor || m.worker != WorkerKind::Cores) return;
    visitMStmt(m.body, [&](const MStmt &s) {
      if (s.kind == MStmt::Kind::Sync) inside.push_back(&s);
    });
    if (m.body->kind != MStmt::Kind::Block) return;
    const std::vector<MStmtPtr> &body = m.body->stmts;
    const MStmt *lastSync = nullptr;
    for (const MStmtPtr &s : body)
      if (s->kind == MStmt::Kind::Sync) placed.insert(lastSync = s.get());
    for (const MStmtPtr &s : body) {
      if (s.get() == lastSync) break;
      if (lastSync && s->kind == MStmt::Kind::Alloc) {
        diags.error(s->loc, "per-core local '" + s->tensor->name +
                                "' is declared before a 'sync': on cpu the mapping is split into one parallel loop "
                                "per phase, so a local cannot live across the barrier (declare it inside a '{ }' "
                                "block, after the last 'sync', or make it a global)");
        ok = false;
      }
    }
  });
  std::set<const MStmt *> reported;
  for (const MStmt *s : inside) {
    if (placed.count(s) || !reported.insert(s).second) continue;
    diags.error(s->loc, "on cpu, 'sync' must be a statement of the cores mapping's own body, not inside an 'if', "
                        "a loop or a mapping on other workers (a core runs each task to completion, so the "
                        "mapping is split at its syncs)");
    ok = false;
  }
  return ok;
}

} // namespace tk
