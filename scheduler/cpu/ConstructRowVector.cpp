#include "scheduler/cpu/ConstructRowVector.h"

#include "ir/Simplify.h"
#include "scheduler/cpu/ContractionEpilogue.h"
#include "scheduler/cpu/PackOperand.h"

namespace tk {
using namespace ir;

MStmtPtr rowVectorBody(const Assign &a, const Expr &sum, const Expr &x, const Expr &y, int64_t width,
                       FreshNames &fresh) {
  SourceLoc loc = a.loc;
  size_t rank = a.vars.size();
  const IndexVar &iv = a.vars[rank - 2], &jv = a.vars[rank - 1], &kv = sum->rvars[0];
  std::string bj = fresh("bj"), jj = fresh("jj"), kk = fresh("kk");
  std::vector<std::pair<std::string, Expr>> at;
  std::vector<std::string> workers;
  std::vector<Expr> spatial, idx;
  for (size_t d = 0; d + 2 < rank; ++d) {
    at.push_back({a.vars[d].name, var(a.vars[d].name, VarKind::Loop)});
    workers.push_back(a.vars[d].name);
    spatial.push_back(a.vars[d].extent);
    idx.push_back(at.back().second);
  }
  workers.push_back(bj);
  spatial.push_back(simplify(ceilDiv(jv.extent, intImm(width))));
  Expr col = simplify(add(mul(var(bj, VarKind::Loop), intImm(width)), var(jj, VarKind::Loop)));
  at.push_back({iv.name, intImm(0)});
  at.push_back({jv.name, col});
  idx.insert(idx.end(), {intImm(0), col});
  at.push_back({kv.name, var(kk, VarKind::Loop)});
  Expr product = binary(BinOp::Mul, substitute(x, at), substitute(y, at));
  auto overColumns = [&](MStmtPtr s) {
    return mMapFor({jj}, MappingAtom::Kind::Repeat, {intImm(width)}, std::nullopt, std::move(s), loc);
  };
  std::vector<MStmtPtr> task{overColumns(mStore(a.target, idx, floatImm(0, a.target->dtype), AccumOp::None, loc)),
                             seqFor(kk, kv.extent, overColumns(mStore(a.target, idx, product, AccumOp::Add, loc)), loc)};
  if (sum != a.value) task.push_back(overColumns(epilogueStore(a, sum, idx, intImm(0), col)));
  return mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, mBlock(task, loc), loc);
}

} // namespace tk
