#include "scheduler/ConstructSchedule.h"

#include "ir/Simplify.h"
#include "scheduler/PackOperand.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

bool mentions(const Expr &e, const std::string &name) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && n->name == name; });
  return found;
}

bool fail(std::string *reason, const std::string &why) {
  if (reason) *reason = why;
  return false;
}

// Capacity per core of the level named `name` (l1, l2), or `fallback`.
int64_t levelCapacity(const construct::HardwareDesc &hw, const std::string &name, int64_t fallback) {
  for (size_t l = 0; l < hw.levels.size(); ++l)
    if (hw.levels[l].name == name && hw.levels[l].capacity > 0) return hw.unitCapacity(l);
  return fallback;
}

// The statement's two factors, X (ignores j) first.
std::pair<Expr, Expr> factors(const Assign &a) {
  const Expr &prod = a.value->args[0];
  const std::string &j = a.vars.back().name;
  if (mentions(prod->args[0], j)) return {prod->args[1], prod->args[0]};
  return {prod->args[0], prod->args[1]};
}

// Fresh variable and buffer names: none of the op's names is reused.
class Names {
public:
  explicit Names(const Op &op, const Assign &a) {
    used_.insert(op.symbols.begin(), op.symbols.end());
    for (const Param &p : op.inputs) used_.insert(p.name);
    for (const TensorPtr &t : op.outputs) used_.insert(t->name);
    for (const IndexVar &v : a.vars) used_.insert(v.name);
    for (const IndexVar &v : a.value->rvars) used_.insert(v.name);
  }
  std::string operator()(const std::string &base) {
    std::string name = base;
    for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
    used_.insert(name);
    return name;
  }

private:
  std::set<std::string> used_;
};

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }

} // namespace

ContractionTiles chooseContractionTiles(const construct::HardwareDesc &hw, int vectorBits, int elemBytes) {
  ContractionTiles t;
  int64_t lanes = std::max(1, vectorBits / (8 * elemBytes));
  int64_t regs = vectorBits >= 512 ? 32 : 16;
  t.mr = 4;
  t.nr = lanes * std::max<int64_t>(1, (regs - 1) / (t.mr + 1));
  int64_t l1 = levelCapacity(hw, "l1", 32 << 10), l2 = levelCapacity(hw, "l2", 512 << 10);
  t.kc = 16;
  while (t.kc < 512 && 2 * t.kc * (t.mr + t.nr) * elemBytes <= l1) t.kc *= 2;
  int64_t quarter = l2 / 4;
  t.mc = std::max(t.mr, std::min<int64_t>(128, quarter / (t.kc * elemBytes)) / t.mr * t.mr);
  t.nc = std::max(t.nr, std::min<int64_t>(4 * t.nr, quarter / (t.kc * elemBytes)) / t.nr * t.nr);
  return t;
}

bool constructScheduleApplies(const Op &op, std::string *reason) {
  if (op.body.size() != 1 || !op.intermediates.empty())
    return fail(reason, "the op has more than one statement");
  const Assign &a = op.body[0];
  if (a.vars.size() < 2) return fail(reason, "the output has rank < 2");
  if (a.target->dtype != ScalarType::F32 && a.target->dtype != ScalarType::F64)
    return fail(reason, "the output is not f32 or f64");
  const Expr &v = a.value;
  if (v->kind != ExprKind::Reduce || v->reduceOp != ReduceOp::Sum || v->rvars.size() != 1)
    return fail(reason, "the value is not a sum over one reduction variable");
  const Expr &prod = v->args[0];
  if (prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul)
    return fail(reason, "the summand is not a product");
  for (const Expr &f : prod->args) {
    if (f->kind != ExprKind::Load || f->type != a.target->dtype)
      return fail(reason, "a factor is not an element of a tensor of the output's type");
    if (f->tensor == a.target) return fail(reason, "a factor reads the output");
  }
  auto [x, y] = factors(a);
  const std::string &i = a.vars[a.vars.size() - 2].name, &j = a.vars.back().name;
  if (mentions(x, j)) return fail(reason, "both factors depend on the innermost output index");
  if (mentions(y, i)) return fail(reason, "the factor along the innermost index also depends on the row index");
  return true;
}

KernelPtr constructSchedule(const OpPtr &op, const ContractionTiles &t) {
  std::string why;
  if (!constructScheduleApplies(*op, &why)) throw InternalError("constructSchedule: " + why);
  const Assign &a = op->body[0];
  SourceLoc loc = a.loc;
  size_t rank = a.vars.size();
  const IndexVar &iv = a.vars[rank - 2], &jv = a.vars[rank - 1], &kv = a.value->rvars[0];
  Names fresh(*op, a);
  std::string bi = fresh("bi"), bj = fresh("bj"), kb = fresh("kb"), ir = fresh("ir"), jr = fresh("jr"),
              kk = fresh("kk"), r = fresh("r"), jj = fresh("jj");

  // Batch dimensions keep their names as worker variables.
  std::vector<std::pair<std::string, Expr>> batch;
  std::vector<std::string> workers;
  std::vector<Expr> spatial;
  for (size_t d = 0; d + 2 < rank; ++d) {
    batch.push_back({a.vars[d].name, loopVar(a.vars[d].name)});
    workers.push_back(a.vars[d].name);
    spatial.push_back(a.vars[d].extent);
  }
  workers.insert(workers.end(), {bi, bj});
  spatial.push_back(ceilDiv(iv.extent, intImm(t.mc)));
  spatial.push_back(ceilDiv(jv.extent, intImm(t.nc)));

  Expr rowBase = mul(loopVar(bi), intImm(t.mc)), colBase = mul(loopVar(bj), intImm(t.nc));
  Expr depthBase = mul(loopVar(kb), intImm(t.kc));
  auto outIndex = [&](Expr row, Expr col) {
    std::vector<Expr> idx;
    for (const auto &b : batch) idx.push_back(b.second);
    idx.push_back(simplify(add(rowBase, row)));
    idx.push_back(simplify(add(colBase, col)));
    return idx;
  };

  // Zero the task's output tile.
  std::string zr = fresh("zi"), zc = fresh("zj");
  MStmtPtr init = mMapFor({zr, zc}, MappingAtom::Kind::Repeat, {intImm(t.mc), intImm(t.nc)}, std::nullopt,
                         mStore(a.target, outIndex(loopVar(zr), loopVar(zc)), floatImm(0, a.target->dtype),
                               AccumOp::None, loc),
                         loc);

  // Live panels and depth rows: a tile sticking out of a small tensor
  // packs and multiplies only what it will store.
  Expr liveDepth = simplify(binary(BinOp::Min, intImm(t.kc), sub(kv.extent, depthBase)));
  Expr liveRows = simplify(binary(BinOp::Min, intImm(t.mc / t.mr), ceilDiv(sub(iv.extent, rowBase), intImm(t.mr))));
  Expr liveCols = simplify(binary(BinOp::Min, intImm(t.nc / t.nr), ceilDiv(sub(jv.extent, colBase), intImm(t.nr))));

  auto [x, y] = factors(a);
  PanelSpec xs{fresh("packed_" + x->tensor->name), t.mc / t.mr, t.kc, t.mr, iv.name, rowBase, kv.name, depthBase,
               liveRows, liveDepth, {fresh("p"), fresh("d"), fresh("w")}};
  PanelSpec ys{fresh("packed_" + y->tensor->name), t.nc / t.nr, t.kc, t.nr, jv.name, colBase, kv.name, depthBase,
               liveCols, liveDepth, {fresh("p"), fresh("d"), fresh("w")}};
  PackedOperand xp = packPanels(substitute(x, batch), xs, loc);
  PackedOperand yp = packPanels(substitute(y, batch), ys, loc);

  // The register tile: T[.., r, jj] += Xp[ir, kk, r] * Yp[jr, kk, jj].
  Expr xv = loadPanel(xp, loopVar(ir), loopVar(kk), loopVar(r));
  Expr yv = loadPanel(yp, loopVar(jr), loopVar(kk), loopVar(jj));
  bool xFirst = sameExpr(a.value->args[0]->args[0], x);
  Expr rowIdx = add(mul(loopVar(ir), intImm(t.mr)), loopVar(r));
  Expr colIdx = add(mul(loopVar(jr), intImm(t.nr)), loopVar(jj));
  MStmtPtr fma = mStore(a.target, outIndex(rowIdx, colIdx), xFirst ? mul(xv, yv) : mul(yv, xv), AccumOp::Add, loc);
  MStmtPtr tile = mMapFor({r, jj}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)}, std::nullopt, fma, loc);
  MStmtPtr kLoop = seqFor(kk, liveDepth, tile, loc);
  // ir inside jr: one B micro-panel (kc x nr, sized for L1) serves every
  // row panel of the task before the next is touched.
  MStmtPtr compute = seqFor(jr, liveCols, seqFor(ir, liveRows, kLoop, loc), loc);
  MStmtPtr kBlocks = seqFor(kb, ceilDiv(kv.extent, intImm(t.kc)), mBlock({yp.copy, xp.copy, compute}, loc), loc);

  MStmtPtr task = mBlock({xp.alloc, yp.alloc, init, kBlocks}, loc);
  auto k = std::make_shared<Kernel>();
  k->name = op->name;
  k->op = op;
  k->target = TargetFamily::Cpu;
  k->loc = op->loc;
  k->synthesized = true;
  k->body = mBlock({mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, task, loc)}, op->loc);
  return k;
}

} // namespace tk
