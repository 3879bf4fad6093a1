#include "scheduler/cpu/ConstructByteContraction.h"

#include "ir/ByteDot.h"
#include "ir/Simplify.h"
#include "scheduler/FreshNames.h"
#include "scheduler/Refusal.h"
#include "scheduler/cpu/ContractionEpilogue.h"
#include "scheduler/cpu/PackOperand.h"

namespace tk {
using namespace ir;

namespace {

// Bytes per lane of one dot-product instruction: the k depth of a quad.
constexpr int64_t kQuad = 4;

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }
Expr i32(int64_t v) { return intImm(v, ScalarType::I32); }

// i32(L) with L an element of an i8 tensor other than `out`, else null.
Expr widenedByte(const Expr &f, const TensorDecl *out) {
  if (f->kind != ExprKind::Cast || f->type != ScalarType::I32) return nullptr;
  const Expr &l = f->args[0];
  if (l->kind != ExprKind::Load || l->type != ScalarType::I8 || l->tensor.get() == out) return nullptr;
  return f;
}

// An i8 byte whose two's complement bits are b + 128 read as unsigned:
// b's sign bit flipped.
Expr flipSign(const Expr &b) {
  return cast(ScalarType::I8, select(binary(BinOp::LT, b, i32(0)), binary(BinOp::Add, b, i32(128)),
                                     binary(BinOp::Sub, b, i32(128))));
}

} // namespace

bool byteContractionApplies(const Op &op, const TargetDesc &target, std::string *reason) {
  if (!target.byteDot) return refuse(reason, "the target has no 8-bit dot products");
  if (op.body.size() != 1 || !op.intermediates.empty())
    return refuse(reason, "the op has more than one statement");
  const Assign &a = op.body[0];
  if (a.vars.size() < 2) return refuse(reason, "the output has rank < 2");
  Expr v = contractionSum(a);
  if (!v || v->type != ScalarType::I32 || v->reduceOp != ReduceOp::Sum || v->rvars.size() != 1)
    return refuse(reason, "the value holds no i32 sum over one reduction variable");
  if (v == a.value && a.target->dtype != ScalarType::I32) return refuse(reason, "the output is not i32");
  // With an epilogue the sums gather in a tile of the task (i32 whatever the output's type).
  if (v != a.value && !epilogueApplies(a, v, reason, false)) return false;
  const Expr &prod = v->args[0];
  if (prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul)
    return refuse(reason, "the summand is not a product");
  for (const Expr &f : prod->args)
    if (!widenedByte(f, a.target.get())) return refuse(reason, "a factor is not i32 of an element of an i8 tensor");
  return contractionFactorsApply(a, v, reason);
}

KernelPtr constructByteContraction(const OpPtr &op, const ContractionTiles &t) {
  const Assign &a = op->body[0];
  SourceLoc loc = a.loc;
  Expr sum = contractionSum(a);
  size_t rank = a.vars.size();
  const IndexVar &iv = a.vars[rank - 2], &jv = a.vars[rank - 1], &kv = sum->rvars[0];
  // Batch dimensions keep their names as worker variables.
  std::vector<std::pair<std::string, Expr>> batch;
  std::vector<Expr> batchIdx, spatial;
  std::vector<std::string> workers;
  for (size_t d = 0; d + 2 < rank; ++d) {
    batch.push_back({a.vars[d].name, loopVar(a.vars[d].name)});
    batchIdx.push_back(batch.back().second);
    workers.push_back(a.vars[d].name);
    spatial.push_back(a.vars[d].extent);
  }
  auto [xw0, yw0] = contractionFactors(a, sum);
  Expr x = substitute(xw0, batch), y = substitute(yw0, batch);
  FreshNames fresh(*op, a);
  std::string bi = fresh("bi"), bj = fresh("bj"), kb = fresh("kb"), ir = fresh("ir"), jr = fresh("jr"),
              kk = fresh("kk"), r = fresh("r"), jj = fresh("jj"), q = fresh("q");
  auto repeat = [&](std::vector<std::string> vars, std::vector<int64_t> dims, MStmtPtr body) {
    std::vector<Expr> d;
    for (int64_t n : dims) d.push_back(intImm(n));
    return mMapFor(std::move(vars), MappingAtom::Kind::Repeat, std::move(d), std::nullopt, std::move(body), loc);
  };
  Expr quads = simplify(ceilDiv(kv.extent, intImm(kQuad)));
  Expr quadBlocks = simplify(ceilDiv(quads, intImm(t.kc)));

  // B in quads, once per call: Yq[b.., p, d, w, b] = B[b.., 4d + b, p*nr + w],
  // flipped, with the batch indices B depends on.
  std::string sp = fresh("sp"), sk = fresh("sk"), sd = fresh("sd"), sw = fresh("sw"), sb = fresh("sb");
  Expr panels = simplify(ceilDiv(jv.extent, intImm(t.nr)));
  std::vector<std::string> sWorkers;
  std::vector<Expr> sSpatial, sLead;
  for (size_t d = 0; d + 2 < rank; ++d)
    if (mentionsVar(y, a.vars[d].name)) {
      sWorkers.push_back(a.vars[d].name);
      sSpatial.push_back(a.vars[d].extent);
      sLead.push_back(loopVar(a.vars[d].name));
    }
  auto led = [&](std::vector<Expr> rest) {
    std::vector<Expr> all = sLead;
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
  };
  std::vector<Expr> yShape = sSpatial;
  yShape.insert(yShape.end(), {panels, quads, intImm(t.nr), intImm(kQuad)});
  TensorPtr yq = scratchTensor(fresh("quads_" + y->args[0]->tensor->name), ScalarType::I8, yShape, Scope::Global, loc);
  Expr sDepth = add(mul(loopVar(sk), intImm(t.kc)), loopVar(sd));
  Expr bValue = substitute(y, {{jv.name, add(mul(loopVar(sp), intImm(t.nr)), loopVar(sw))},
                               {kv.name, add(mul(sDepth, intImm(kQuad)), loopVar(sb))}});
  // The bytes of one column are the inner loop: its four stores fill one
  // word, and the column loop vectorizes over contiguous rows of B.
  MStmtPtr sRow = repeat({sw}, {t.nr}, repeat({sb}, {kQuad}, mStore(yq, led({loopVar(sp), sDepth, loopVar(sw), loopVar(sb)}),
                                                                     flipSign(bValue), AccumOp::None, loc)));
  Expr sLive = simplify(binary(BinOp::Min, intImm(t.kc), sub(quads, mul(loopVar(sk), intImm(t.kc)))));
  sWorkers.insert(sWorkers.end(), {sp, sk});
  sSpatial.insert(sSpatial.end(), {panels, quadBlocks});
  MStmtPtr yPack = mMapFor(sWorkers, MappingAtom::Kind::Spatial, sSpatial, WorkerKind::Cores,
                           seqFor(sd, sLive, sRow, loc), loc);

  Expr rowBase = mul(loopVar(bi), intImm(t.mc)), colBase = mul(loopVar(bj), intImm(t.nc));
  auto live = [](int64_t panels, Expr left) {
    return panels == 1 ? intImm(1) : simplify(binary(BinOp::Min, intImm(panels), left));
  };
  Expr liveRows = live(t.mc / t.mr, ceilDiv(sub(iv.extent, rowBase), intImm(t.mr)));
  Expr liveCols = live(t.nc / t.nr, ceilDiv(sub(jv.extent, colBase), intImm(t.nr)));
  Expr depthBase = mul(loopVar(kb), intImm(t.kc));
  Expr liveDepth = simplify(binary(BinOp::Min, intImm(t.kc), sub(quads, depthBase)));

  // A's block of the task, each row's quads contiguous: Xq[p, w, d, b] =
  // A[row p*mr + w, 4*(kb*kc + d) + b], copied along e = 4d + b (a flat
  // pair, ir/FlatIndex.h) so that a row is one contiguous run of bytes and
  // K's edge one split of that loop.
  std::string xp = fresh("p"), xw = fresh("w"), xe = fresh("e");
  TensorPtr xq = scratchTensor(fresh("quads_" + x->args[0]->tensor->name), ScalarType::I8,
                               {intImm(t.mc / t.mr), intImm(t.mr), intImm(t.kc), intImm(kQuad)}, Scope::Local, loc);
  Expr aByte = substitute(x->args[0], {{iv.name, simplify(add(rowBase, add(mul(loopVar(xp), intImm(t.mr)), loopVar(xw))))},
                                       {kv.name, add(mul(depthBase, intImm(kQuad)), loopVar(xe))}});
  std::vector<Expr> xAt{loopVar(xp), loopVar(xw), floorDiv(loopVar(xe), intImm(kQuad)), floorMod(loopVar(xe), intImm(kQuad))};
  MStmtPtr xPack = seqFor(xp, liveRows, seqFor(xw, intImm(t.mr), seqFor(xe, mul(liveDepth, intImm(kQuad)),
                          mStore(xq, xAt, aByte, AccumOp::None, loc), loc), loc), loc);

  // The register tile: C[..] += u8(Yq[panel, depth, jj, q]) * i32(Xq[ir, r, kk, q]),
  // or, with an epilogue around the sum, into the task's own tile of sums
  // (local `sums: i32[mc, nc]`), which the last pass turns into the output.
  bool direct = a.value == sum;
  TensorPtr acc = direct ? a.target
                         : scratchTensor(fresh("sums"), ScalarType::I32, {intImm(t.mc), intImm(t.nc)}, Scope::Local, loc);
  Expr tileRow = simplify(add(mul(loopVar(ir), intImm(t.mr)), loopVar(r)));
  Expr tileCol = simplify(add(mul(loopVar(jr), intImm(t.nr)), loopVar(jj)));
  std::vector<Expr> out = {tileRow, tileCol};
  if (direct) {
    out = batchIdx;
    out.insert(out.end(), {simplify(add(rowBase, tileRow)), simplify(add(colBase, tileCol))});
  }
  Expr panel = simplify(add(mul(loopVar(bj), intImm(t.nc / t.nr)), loopVar(jr)));
  Expr yv = unsignedByte(load(yq, led({panel, simplify(add(depthBase, loopVar(kk))), loopVar(jj), loopVar(q)})));
  Expr xv = cast(ScalarType::I32, load(xq, {loopVar(ir), loopVar(r), loopVar(kk), loopVar(q)}));
  MStmtPtr tile = repeat({r, jj}, {t.mr, t.nr}, mStore(acc, out, binary(BinOp::Mul, yv, xv), AccumOp::Add, loc));
  MStmtPtr kLoop = seqFor(kk, liveDepth, seqFor(q, intImm(kQuad), tile, loc), loc);
  MStmtPtr zero = repeat({r, jj}, {t.mr, t.nr}, mStore(acc, out, i32(0), AccumOp::None, loc));
  MStmtPtr rowPanel = mIf(binary(BinOp::EQ, loopVar(kb), intImm(0)), mBlock({zero, kLoop}, loc), kLoop, loc);
  MStmtPtr compute = seqFor(jr, liveCols, seqFor(ir, liveRows, rowPanel, loc), loc);
  // At least one block, so that an empty reduction (K = 0) stores zeros.
  MStmtPtr kBlocks = seqFor(kb, simplify(binary(BinOp::Max, intImm(1), quadBlocks)), mBlock({xPack, compute}, loc), loc);

  // The flipped B added 128 * A[i, k] to every product: C -= 128 * sum(k) A[i, k].
  std::string er = fresh("er"), ec = fresh("ec"), ek = fresh("ek");
  TensorPtr rs = scratchTensor(fresh("rowsum_" + x->args[0]->tensor->name), ScalarType::I32, {intImm(t.mc)},
                               Scope::Local, loc);
  Expr rows = simplify(binary(BinOp::Min, intImm(t.mc), sub(iv.extent, rowBase)));
  Expr cols = simplify(binary(BinOp::Min, intImm(t.nc), sub(jv.extent, colBase)));
  Expr row = simplify(add(rowBase, loopVar(er)));
  MStmtPtr rowSums = seqFor(er, rows, mBlock({mStore(rs, {loopVar(er)}, i32(0), AccumOp::None, loc),
                                              seqFor(ek, kv.extent, mStore(rs, {loopVar(er)},
                                                     substitute(x, {{iv.name, row}, {kv.name, loopVar(ek)}}),
                                                     AccumOp::Add, loc), loc)}, loc), loc);
  Expr col = simplify(add(colBase, loopVar(ec)));
  std::vector<Expr> at = batchIdx;
  at.insert(at.end(), {row, col});
  Expr offset = binary(BinOp::Mul, i32(128), load(rs, {loopVar(er)}));
  MStmtPtr fixOne = direct ? mStore(a.target, at, binary(BinOp::Sub, load(a.target, at), offset), AccumOp::None, loc)
                           : epilogueStoreOf(a, sum, at,
                                             binary(BinOp::Sub, load(acc, {loopVar(er), loopVar(ec)}), offset), row, col);
  MStmtPtr fix = seqFor(er, rows, seqFor(ec, cols, fixOne, loc), loc);

  workers.insert(workers.end(), {bi, bj});
  spatial.insert(spatial.end(), {simplify(ceilDiv(iv.extent, intImm(t.mc))), simplify(ceilDiv(jv.extent, intImm(t.nc)))});
  std::vector<MStmtPtr> task = {mAlloc(xq, loc), mAlloc(rs, loc)};
  if (!direct) task.push_back(mAlloc(acc, loc));
  task.insert(task.end(), {kBlocks, rowSums, fix});
  MStmtPtr tasks =
      mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, mBlock(std::move(task), loc), loc);
  return synthesizedKernel(op, TargetFamily::Cpu, mBlock({mAlloc(yq, loc), yPack, tasks}, op->loc));
}

} // namespace tk
