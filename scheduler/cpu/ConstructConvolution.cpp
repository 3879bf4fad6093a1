#include "scheduler/cpu/ConstructConvolution.h"

#include "ir/Simplify.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/FreshNames.h"
#include "scheduler/cpu/ConvolutionRoles.h"
#include "scheduler/cpu/PackOperand.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }

// `load` with its indices simplified (after substituting 1 for a stride).
Expr simplifyIndices(const Expr &e) {
  std::vector<Expr> idx;
  for (const Expr &i : e->args) idx.push_back(simplify(i));
  return load(e->tensor, std::move(idx), e->pad, e->pred, e->loc);
}

// Serial loops over `vars` (outermost first) around `body`.
MStmtPtr loops(const std::vector<IndexVar> &vars, MStmtPtr body, SourceLoc loc) {
  for (size_t i = vars.size(); i-- > 0;) body = seqFor(vars[i].name, vars[i].extent, body, loc);
  return body;
}

// Whether the packed tiles beat the row tiles at unit stride (a run-time
// test, folded where the shape is constant). Per image element and output
// filter row, both run cdiv(F, mr) * mr / lanes vector FMAs; row tiles
// cover OW columns with cdiv(OW, nr) * nr lanes, wasting the rest, and the
// packed tiles pay about kPackCost vector FMAs' time to copy each element
// into the panel. So packed iff cdiv(F, mr) * mr * waste > kPackCost *
// lanes * OW. Measured on a 2-core Zen 5 (unit-stride 3x3 and 5x5 layers,
// C and F 12..256, OW 9..56), each version forced: kPackCost = 3 picks the
// faster one on all 16 shapes (rows 419 vs packed 291 GFLOP/s at C = F = 64,
// OW = 56; packed 137 vs rows 62 at F = 169, OW = 9; either within 2% at
// OW = 14 and 28, F = 64..256). The copies' cost against the register tile
// varies with C and the window (fits of 1 to 8 on single shapes), so the
// rule is approximate where the two are close.
Expr packedWins(const ConvolutionRoles &r, const ConvolutionTiles &t) {
  constexpr int64_t kPackCost = 3;
  const Expr &f = r.a->vars[r.fDim].extent, &ow = r.a->vars[r.xDim].extent;
  Expr rows = mul(ceilDiv(f, intImm(t.mr)), intImm(t.mr));
  Expr waste = sub(mul(ceilDiv(ow, intImm(t.nr)), intImm(t.nr)), ow);
  return simplify(binary(BinOp::GT, mul(rows, waste), mul(intImm(kPackCost * t.lanes), ow)));
}

// if (cond) { a } else { b }, or the one a constant condition selects (a
// shape the op fixes).
MStmtPtr choose(const Expr &cond, MStmtPtr a, MStmtPtr b, SourceLoc loc) {
  if (cond->kind == ExprKind::BoolImm || cond->kind == ExprKind::IntImm) return cond->intValue ? a : b;
  return mIf(cond, std::move(a), std::move(b), loc);
}

} // namespace

ConvolutionTiles chooseConvolutionTiles(const TargetDesc &target, int elemBytes) {
  int64_t lanes = std::max(1, target.vectorBits / (8 * elemBytes));
  // One row: nv accumulators; mr rows share the nv image vectors and take
  // one broadcast: mr * nv + nv + 1 registers (EmitRegisterTile's rule).
  ConvolutionTiles t;
  t.lanes = lanes;
  if (target.vectorRegisters >= 32) { // 6 * 4 + 4 + 1 = 29 registers
    t.mr = 6;
    t.nr = 4 * lanes;
  } else {
    t.mr = 4;
    t.nr = 3 * lanes;
  }
  return t;
}

bool constructConvolutionApplies(const Op &op, std::string *reason) { return analyseConvolution(op, nullptr, reason); }

KernelPtr constructConvolution(const OpPtr &op, const ConvolutionTiles &t) {
  ConvolutionRoles ro;
  std::string why;
  if (!analyseConvolution(*op, &ro, &why)) throw InternalError("constructConvolution: " + why);
  const Assign &a = *ro.a;
  SourceLoc loc = a.loc;
  FreshNames fresh(*op, a);
  std::string fb = fresh("fb"), xb = fresh("xb"), pb = fresh("pb"), fr = fresh("fr"), xx = fresh("xx");
  const IndexVar &fv = a.vars[ro.fDim], &xv = a.vars[ro.xDim];
  Expr panels = ceilDiv(fv.extent, intImm(t.mr));
  Expr fIdx = add(mul(loopVar(fb), intImm(t.mr)), loopVar(fr));
  Expr xIdx = add(mul(loopVar(xb), intImm(t.nr)), loopVar(xx));

  // Every index variable becomes the loop variable of the same name; f and
  // x are composed from their block and in-tile parts.
  std::vector<std::pair<std::string, Expr>> vmap;
  for (const IndexVar &v : a.vars) vmap.push_back({v.name, loopVar(v.name)});
  for (const IndexVar &k : ro.kOrder) vmap.push_back({k.name, loopVar(k.name)});
  vmap[ro.fDim].second = fIdx;
  vmap[ro.xDim].second = xIdx;

  // The filter, packed once per call: Fp[fb, k.., fr] is contiguous in fr
  // (one broadcast stream for all mr rows) and then in the innermost
  // reduction variable; rows past F hold 0 (the filter load's guard).
  std::vector<Expr> packedShape{simplify(panels)};
  for (const IndexVar &k : ro.kOrder) packedShape.push_back(k.extent);
  packedShape.push_back(intImm(t.mr));
  TensorPtr packed = scratchTensor(fresh("packed_" + ro.filt->tensor->name), a.target->dtype, packedShape,
                                   Scope::Global, loc);
  MStmtPtr alloc = mAlloc(packed, loc);
  std::vector<Expr> pIdx{loopVar(fb)};
  for (const IndexVar &k : ro.kOrder) pIdx.push_back(loopVar(k.name));
  pIdx.push_back(loopVar(fr));
  MStmtPtr packRow = mMapFor({fr}, MappingAtom::Kind::Repeat, {intImm(t.mr)}, std::nullopt,
                             mStore(packed, pIdx, substitute(ro.filt, vmap), AccumOp::None, loc), loc);
  MStmtPtr pack = mMapFor({fb}, MappingAtom::Kind::Spatial, {simplify(panels)}, WorkerKind::Cores,
                          loops(ro.kOrder, packRow, loc), loc);

  std::vector<Expr> oIdx;
  for (size_t d = 0; d < a.vars.size(); ++d) oIdx.push_back(simplify(vmap[d].second));
  std::vector<IndexVar> window(ro.kOrder.begin(), ro.kOrder.begin() + ro.windowVars);
  std::optional<IndexVar> channel;
  std::string cb = fresh("cb");
  std::vector<Expr> fIdxC = pIdx;
  if (ro.kOrder.size() > ro.windowVars) {
    channel = ro.kOrder.back();
    window.assign(ro.kOrder.begin(), ro.kOrder.end() - 1);
    Expr blocked = add(mul(loopVar(cb), intImm(t.kc)), loopVar(channel->name));
    for (auto &[name, e] : vmap)
      if (name == channel->name) e = blocked;
    fIdxC[ro.kOrder.size()] = blocked;
  }
  // The tasks: one value of each output index but f and those the columns
  // `covered`, times the blocks of nr of `cols` columns (numbered by `col`),
  // on the cores.
  // With `groups` > 1 each of them is split further into that many tasks,
  // each over its share of the filter blocks (overFilters).
  std::string fg = fresh("fg");
  int64_t groups = 1;
  auto taskDims = [&](const std::set<size_t> &covered, const Expr &cols) {
    std::vector<std::pair<std::string, Expr>> dims;
    for (size_t d = 0; d < a.vars.size(); ++d)
      if (d != ro.fDim && !covered.count(d)) dims.push_back({a.vars[d].name, a.vars[d].extent});
    dims.push_back({"", simplify(ceilDiv(cols, intImm(t.nr)))});
    return dims;
  };
  auto tasks = [&](const std::set<size_t> &covered, const std::string &col, const Expr &cols, MStmtPtr body) {
    std::vector<std::string> workers;
    std::vector<Expr> spatial;
    for (const auto &[name, extent] : taskDims(covered, cols)) {
      workers.push_back(name.empty() ? col : name);
      spatial.push_back(extent);
    }
    if (groups > 1) {
      workers.push_back(fg);
      spatial.push_back(intImm(groups));
    }
    return mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, std::move(body), loc);
  };
  // for fb over the filter blocks of the task: all, or group fg's share.
  auto overFilters = [&](MStmtPtr body) {
    if (groups == 1) return seqFor(fb, panels, std::move(body), loc);
    Expr share = ceilDiv(panels, intImm(groups));
    MStmtPtr l = seqFor(fb, simplify(binary(BinOp::Min, panels, mul(add(loopVar(fg), intImm(1)), share))),
                        std::move(body), loc);
    l->begin = simplify(mul(loopVar(fg), share));
    return l;
  };
  // Too few tasks for the cores (one small image: a 7 x 7 layer is one
  // task of 64 pixels): two versions of the tiles, built without and with
  // the filter blocks split into one group per core, chosen at run time.
  auto perCore = [&](const std::set<size_t> &covered, const Expr &cols, const std::function<MStmtPtr()> &build) {
    groups = 1;
    MStmtPtr whole = build();
    if (t.cores <= 1) return whole;
    Expr count = intImm(1);
    for (const auto &dim : taskDims(covered, cols)) count = mul(count, dim.second);
    groups = t.cores;
    MStmtPtr split = build();
    groups = 1;
    return choose(simplify(binary(BinOp::LT, count, intImm(t.cores))), split, whole, loc);
  };
  auto zero = [&](const std::vector<Expr> &out) {
    return mMapFor({fr, xx}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)}, std::nullopt,
                   mStore(a.target, out, floatImm(0, a.target->dtype), AccumOp::None, loc), loc);
  };
  // One version of the tiles. A task is nr of `cols` columns (numbered by
  // `col`) for all filters (its group's, overFilters) and one value of each output index but f and
  // those the columns `covered`; it writes `out` += `img` * `filt` under
  // the reduction loops `outer` and the channel loop. The channel variable
  // is cut into blocks of kc so that the image rows one block reads
  // (kc x window rows x nr) stay in L1 while every filter panel passes over
  // them. Each panel is zeroed right before its first block (under `if (cb
  // == 0)`): a tile set to a constant just before the nest that
  // accumulates into it starts its register accumulators from that
  // constant (the x86 backend, tileStart) instead of reading back the
  // zeroed output.
  auto tiles = [&](const std::set<size_t> &covered, const std::string &col, const Expr &cols,
                   const std::vector<Expr> &out, const Expr &img, const Expr &filt,
                   const std::vector<IndexVar> &outer) {
    MStmtPtr init = zero(out);
    // The reduction loops of one panel over channel block `block`.
    auto panel = [&](const Expr &block) {
      std::vector<std::pair<std::string, Expr>> at{{cb, block}};
      Expr i = simplifyIndices(substitute(img, at)), f = simplifyIndices(substitute(filt, at));
      MStmtPtr fma = mStore(a.target, out, ro.imgFirst ? mul(i, f) : mul(f, i), AccumOp::Add, loc);
      MStmtPtr nest = mMapFor({fr, xx}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)}, std::nullopt, fma, loc);
      if (channel) {
        Expr live = simplify(binary(BinOp::Min, intImm(t.kc), sub(channel->extent, mul(block, intImm(t.kc)))));
        nest = seqFor(channel->name, live, nest, loc);
      }
      return loops(outer, nest, loc);
    };
    if (!channel) return tasks(covered, col, cols, overFilters(mBlock({init, panel(intImm(0))}, loc)));
    // One copy of the tiles: only the zeroing depends on the block (a
    // peeled first block doubled the convolution's code). At least one
    // block, so that C = 0 still zeroes the output.
    Expr blocks = simplify(binary(BinOp::Max, intImm(1), ceilDiv(channel->extent, intImm(t.kc))));
    MStmtPtr first = mIf(binary(BinOp::EQ, loopVar(cb), intImm(0)), init, nullptr, loc);
    return tasks(covered, col, cols, seqFor(cb, blocks, overFilters(mBlock({first, panel(loopVar(cb))}, loc)), loc));
  };
  // Row tiles: nr columns x of one output row, each panel zeroed right
  // before its first channel block like the flat tiles. (A peeled copy of
  // the first block made LLVM spill two lane masks in a hot loop of a
  // padded 1x1 f64 convolution, tests/codegen no-spill tests; the one copy
  // under `if (cb == 0)` does not.) Against zeroing all panels first, a C
  // driver alternating both, medians of 41 calls, three runs: 64 -> 64
  // channels at 56^2 3 x 3 2% faster, 34 -> 72 at 31^2 5%, 232 -> 69 at
  // 19^2 3%, 24 -> 169 at 9^2 the same.
  auto rowTiles = [&](const Expr &img) {
    return tiles({ro.xDim}, xb, xv.extent, oIdx, simplifyIndices(substitute(img, vmap)), load(packed, fIdxC), window);
  };
  // Flat tiles: nr consecutive pixels p = pb*nr + xx of one image, output
  // pixel (p / OW, p % OW), image pixel (p / W, p % W) (ir/FlatIndex.h).
  auto flatTiles = [&](const Expr &img, const FlatPixels &fl) {
    size_t yDim = ro.xDim - 1;
    const std::vector<Expr> &os = a.target->shape;
    Expr p = add(mul(loopVar(pb), intImm(t.nr)), loopVar(xx)), ow = os[ro.xDim], w = img->tensor->shape.back();
    std::vector<Expr> out = oIdx;
    out[yDim] = simplify(binary(BinOp::Div, p, ow));
    out[ro.xDim] = simplify(binary(BinOp::Mod, p, ow));
    std::vector<std::pair<std::string, Expr>> at = vmap;
    at[yDim].second = binary(BinOp::Div, p, w);
    at[ro.xDim].second = binary(BinOp::Mod, p, w);
    Expr imgV = simplifyIndices(substitute(substitute(img, fl.values), at));
    std::vector<IndexVar> outer(ro.kOrder.begin() + ro.windowVars, ro.kOrder.end() - 1);
    return tiles({yDim, ro.xDim}, pb, mul(os[yDim], ow), out, imgV, substitute(load(packed, fIdxC), fl.values), outer);
  };

  // Any stride and dilation (flat pixels as above, an output pixel reading
  // image pixel (y*stride + .., x*stride + ..)): per channel block and
  // window step, each task copies the kc x nr image elements its nr pixels
  // read into a local panel (im2col, one panel at a time; padding as zeros,
  // and the lanes of pixels past the last one get whatever image elements
  // their row and column name, in bounds, and are never stored), which the
  // register tile then reads at unit stride while every filter panel
  // passes over it. The panel
  // (16 KiB) stays in L1; the output tile is zeroed first and read back
  // once per kc channels. Not without a channel loop (each panel would be
  // one deep) or an output row index besides f.
  bool packable = channel && ro.xDim > 0 && ro.xDim - 1 != ro.fDim;
  // With few channels (C * S <= kc: an RGB stem's 3 x 7) a panel per
  // window step gives the register tile a reduction of C steps between
  // loading and storing its accumulators. `merged` panels hold the last
  // window variable s and the channel together, row s*C + c, so the tile
  // sums over all S*C rows at once; the filter's pair [k / C, k % C] is the
  // packed row s*C + c (ir/FlatIndex.h). Only where the channel is the one
  // reduction variable after the window (the filter's s and c adjacent),
  // and only for other strides: at unit stride few channels go to the row
  // tiles, which keep their accumulators across the window loops (the
  // packed ones there serve narrow outputs), and each version costs text
  // (13 KB of nn.tk's; for the same reason no second version whose tasks
  // split the filters: an output of under 2 x 64 pixels with C * S <= 64
  // is a few microseconds of work on one core). The stem: 13-39 -> 69-110
  // GFLOP/s (2-core Zen 4, three alternating runs).
  bool mergeable = packable && ro.windowVars >= 1 && ro.kOrder.size() == ro.windowVars + 1;
  const IndexVar *lastWindow = mergeable ? &ro.kOrder[ro.windowVars - 1] : nullptr;
  auto packedTiles = [&](const Expr &img, bool merged) {
    size_t yDim = ro.xDim - 1;
    const std::vector<Expr> &os = a.target->shape;
    Expr p = add(mul(loopVar(pb), intImm(t.nr)), loopVar(xx)), ow = os[ro.xDim];
    std::vector<Expr> out = oIdx;
    out[yDim] = simplify(binary(BinOp::Div, p, ow));
    out[ro.xDim] = simplify(binary(BinOp::Mod, p, ow));
    std::vector<std::pair<std::string, Expr>> at = vmap;
    at[yDim].second = out[yDim];
    at[ro.xDim].second = out[ro.xDim];
    TensorPtr buf = scratchTensor(fresh("panel_" + ro.img->tensor->name), a.target->dtype,
                                  {intImm(t.kc), intImm(t.nr)}, Scope::Local, loc);
    const std::string &c = channel->name;
    std::string k = merged ? fresh("k") : c; // the register tile's reduction loop
    std::vector<IndexVar> outer(ro.kOrder.begin(), ro.kOrder.end() - 1);
    MStmtPtr copy;
    Expr i, f, rows;
    if (!merged) {
      rows = simplify(binary(BinOp::Min, intImm(t.kc), sub(channel->extent, mul(loopVar(cb), intImm(t.kc)))));
      // Pixels outside, channels inside: a pixel's row and column (a
      // division by OW) and its padding test stay out of the channel loop.
      copy = mMapFor({xx}, MappingAtom::Kind::Repeat, {intImm(t.nr)}, std::nullopt,
                     seqFor(c, rows, mStore(buf, {loopVar(c), loopVar(xx)}, simplifyIndices(substitute(img, at)),
                                            AccumOp::None, loc), loc), loc);
      i = load(buf, {loopVar(c), loopVar(xx)});
      f = load(packed, fIdxC);
    } else { // rows k = s*C + c of one channel block (cb = 0)
      const IndexVar &sv = *lastWindow;
      const Expr &cs = channel->extent;
      std::vector<std::pair<std::string, Expr>> first{{cb, intImm(0)}};
      Expr pixel = simplifyIndices(substitute(substitute(img, at), first));
      Expr row = add(mul(loopVar(sv.name), cs), loopVar(c));
      copy = mMapFor({xx}, MappingAtom::Kind::Repeat, {intImm(t.nr)}, std::nullopt,
                     seqFor(sv.name, sv.extent,
                            seqFor(c, cs, mStore(buf, {row, loopVar(xx)}, pixel, AccumOp::None, loc), loc), loc),
                     loc);
      std::vector<Expr> fIdxK = pIdx;
      fIdxK[ro.windowVars] = binary(BinOp::Div, loopVar(k), cs);
      fIdxK[ro.windowVars + 1] = binary(BinOp::Mod, loopVar(k), cs);
      i = load(buf, {loopVar(k), loopVar(xx)});
      f = load(packed, fIdxK);
      rows = simplify(mul(sv.extent, cs));
      outer.pop_back();
    }
    MStmtPtr fma = mStore(a.target, out, ro.imgFirst ? mul(i, f) : mul(f, i), AccumOp::Add, loc);
    MStmtPtr tile = seqFor(k, rows, mMapFor({fr, xx}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)},
                                            std::nullopt, fma, loc), loc);
    MStmtPtr steps = loops(outer, mBlock({copy, overFilters(tile)}, loc), loc);
    if (!merged) steps = seqFor(cb, ceilDiv(channel->extent, intImm(t.kc)), steps, loc);
    MStmtPtr body = mBlock({mAlloc(buf, loc), overFilters(zero(out)), steps}, loc);
    return tasks({yDim, ro.xDim}, pb, mul(os[yDim], ow), body);
  };

  // The unit-stride version: the integer scalars multiplying x in the
  // image's last index set to 1 (no `if` when there are none), and within
  // it the flat pixel version where it applies.
  std::vector<std::pair<std::string, Expr>> ones;
  Expr unitCond;
  for (const std::string &p : ro.unitParams) {
    ones.push_back({p, intImm(1)});
    unitCond = conjoin(unitCond, binary(BinOp::EQ, var(p, VarKind::Symbol), intImm(1)));
  }
  Expr unitImg = substitute(ro.img, ones);
  MStmtPtr compute = rowTiles(unitImg);
  // Flat and packed tiles cover pixel rows (y, x) together.
  auto pixelsPerCore = [&](const std::function<MStmtPtr()> &build) {
    const std::vector<Expr> &os = a.target->shape;
    return perCore({ro.xDim - 1, ro.xDim}, mul(os[ro.xDim - 1], os[ro.xDim]), build);
  };
  if (packable)
    compute = choose(packedWins(ro, t), pixelsPerCore([&] { return packedTiles(unitImg, false); }), compute, loc);
  if (std::optional<FlatPixels> fl = flatPixels(*op, ro, unitImg, ones)) {
    MStmtPtr flat = pixelsPerCore([&] { return flatTiles(unitImg, *fl); });
    compute = fl->cond ? mIf(fl->cond, flat, compute, loc) : flat;
  }
  // Other strides and dilations: the packed tiles (these tiles with a
  // run-time stride would run their register tile one lane at a time);
  // without them the default schedule, whose inner loop over x the later
  // loop-IR passes specialise and split at the padding.
  if (unitCond) {
    MStmtPtr strided = packable ? pixelsPerCore([&] { return packedTiles(ro.img, false); }) : nullptr;
    if (mergeable) {
      Expr fits = simplify(binary(BinOp::LE, mul(lastWindow->extent, channel->extent), intImm(t.kc)));
      strided = choose(fits, packedTiles(ro.img, true), strided, loc);
    }
    compute = mIf(unitCond, compute, strided ? strided : defaultSchedule(op, TargetDesc{})->body, loc);
  }

  return synthesizedKernel(op, TargetFamily::Cpu, mBlock({alloc, pack, compute}, op->loc));
}

} // namespace tk
