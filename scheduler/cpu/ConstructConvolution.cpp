#include "scheduler/cpu/ConstructConvolution.h"

#include "ir/Simplify.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/FreshNames.h"
#include "scheduler/cpu/PackOperand.h"
#include "scheduler/Refusal.h"

#include <algorithm>
#include <set>

namespace tk {
using namespace ir;

namespace {

Expr loopVar(const std::string &n) { return var(n, VarKind::Loop); }

// What each part of the statement is (constructConvolutionApplies).
struct Roles {
  const Assign *a = nullptr;
  Expr img, filt;
  bool imgFirst = true;
  size_t fDim = 0, xDim = 0;
  std::vector<IndexVar> kOrder;       // window reduction variables, then the others
  size_t windowVars = 0;              // how many of kOrder are window variables
  std::vector<std::string> unitParams; // scalar parameters the fast path fixes to 1
};

bool analyse(const Op &op, Roles *out, std::string *reason) {
  if (op.body.size() != 1 || !op.intermediates.empty()) return refuse(reason, "the op has more than one statement");
  const Assign &a = op.body[0];
  if (a.vars.size() < 2) return refuse(reason, "the output has rank < 2");
  if (a.target->dtype != ScalarType::F32 && a.target->dtype != ScalarType::F64)
    return refuse(reason, "the output is not f32 or f64");
  const Expr &v = a.value;
  if (v->kind != ExprKind::Reduce || v->reduceOp != ReduceOp::Sum) return refuse(reason, "the value is not a sum");
  const Expr &prod = v->args[0];
  if (prod->kind != ExprKind::Binary || prod->binOp != BinOp::Mul) return refuse(reason, "the summand is not a product");
  for (const Expr &f : prod->args) {
    if (f->kind != ExprKind::Load || f->type != a.target->dtype)
      return refuse(reason, "a factor is not an element of a tensor of the output's type");
    if (f->tensor == a.target) return refuse(reason, "a factor reads the output");
  }
  Roles r;
  r.a = &a;
  r.xDim = a.vars.size() - 1;
  const std::string &x = a.vars[r.xDim].name;
  r.imgFirst = mentionsVar(prod->args[0], x);
  r.img = prod->args[r.imgFirst ? 0 : 1];
  r.filt = prod->args[r.imgFirst ? 1 : 0];
  if (!mentionsVar(r.img, x) || mentionsVar(r.filt, x))
    return refuse(reason, "not exactly one factor depends on the innermost output index");
  const std::vector<Expr> &idx = r.img->args;
  for (size_t d = 0; d + 1 < idx.size(); ++d)
    if (mentionsVar(idx[d], x)) return refuse(reason, "the innermost output index appears before the image's last index");
  if (r.img->pred) return refuse(reason, "the image factor is guarded");
  bool window = std::any_of(v->rvars.begin(), v->rvars.end(), [&](const IndexVar &k) { return mentionsVar(idx.back(), k.name); });
  if (!window) return refuse(reason, "the image's last index has no window (no reduction variable next to the output index)");

  std::vector<size_t> filterDims;
  for (size_t d = 0; d + 1 < a.vars.size(); ++d)
    if (mentionsVar(r.filt, a.vars[d].name)) filterDims.push_back(d);
  if (filterDims.size() != 1) return refuse(reason, "the filter factor does not depend on exactly one output index");
  r.fDim = filterDims[0];
  if (mentionsVar(r.img, a.vars[r.fDim].name)) return refuse(reason, "the filter's output index also indexes the image");

  // Scalar parameters multiplying an index variable in the image's last
  // index (stride, dilation): the unit-stride version fixes them to 1.
  std::set<std::string> scalars;
  for (const Param &p : op.inputs)
    if (p.isScalar() && isInteger(p.type)) scalars.insert(p.name);
  std::set<std::string> unit;
  for (const auto &[atom, coef] : linearize(simplify(idx.back())).terms) {
    if (atom->kind == ExprKind::Var) continue;
    visitExpr(atom, [&](const Expr &n) {
      if (n->kind == ExprKind::Var && scalars.count(n->name)) unit.insert(n->name);
    });
  }
  r.unitParams.assign(unit.begin(), unit.end());
  std::vector<std::pair<std::string, Expr>> ones;
  for (const std::string &p : r.unitParams) ones.push_back({p, intImm(1)});
  if (std::optional<VarTerm> t = splitOnVar(substitute(idx.back(), ones), x); !t || t->coef != 1)
    return refuse(reason, "the image's last index is not unit-stride in the innermost output index");

  // Window variables (those that share an image index with an output index)
  // loop outside the others, so the image's padding guards do not change in
  // the innermost reduction loop.
  auto windowVar = [&](const IndexVar &k) {
    return std::any_of(idx.begin(), idx.end(), [&](const Expr &i) {
      return mentionsVar(i, k.name) &&
             std::any_of(a.vars.begin(), a.vars.end(), [&](const IndexVar &o) { return mentionsVar(i, o.name); });
    });
  };
  for (const IndexVar &k : v->rvars)
    if (windowVar(k)) r.kOrder.push_back(k);
  r.windowVars = r.kOrder.size();
  for (const IndexVar &k : v->rvars)
    if (!windowVar(k)) r.kOrder.push_back(k);
  if (out) *out = std::move(r);
  return true;
}

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

// The flat pixel version's substitutions and run-time condition.
struct Flat {
  std::vector<std::pair<std::string, Expr>> values; // window variables 0, scalars 1 or 0
  Expr cond;                                        // null: always applies
};

// When the window variables are 0 (extents 1), the scalars multiplying an
// index variable in the image's last two indices are 1 and the scalars
// added there are 0, those indices are the output's own (y, x); if the
// image and output rows then also have the same length and count, pixel
// (y, x) of both is element y*W + x of one contiguous row per channel, and
// the convolution is a matmul over that row. `img` is the image factor of
// the unit-stride version, `given` the values its `if` already tests;
// nullopt when it cannot become (y, x), there is no y (rank-2 output) or
// no channel loop.
std::optional<Flat> flatPixels(const Op &op, const Roles &r, const Expr &img,
                               const std::vector<std::pair<std::string, Expr>> &given) {
  const Assign &a = *r.a;
  const std::vector<Expr> &idx = img->args;
  if (r.xDim == 0 || r.xDim - 1 == r.fDim || idx.size() < 2 || r.kOrder.size() == r.windowVars) return std::nullopt;
  Flat fl;
  std::vector<std::pair<std::string, Expr>> fixed = given; // and the window extents, for the shape test
  auto require = [&](const Expr &e, int64_t v) {
    Expr s = simplify(e);
    int64_t c;
    if (isConstInt(s, &c)) return c == v;
    fl.cond = conjoin(fl.cond, binary(BinOp::EQ, s, intImm(v)));
    if (s->kind == ExprKind::Var) fixed.push_back({s->name, intImm(v)});
    return true;
  };
  for (size_t k = 0; k < r.windowVars; ++k) {
    if (!require(r.kOrder[k].extent, 1)) return std::nullopt;
    fl.values.push_back({r.kOrder[k].name, intImm(0)});
  }
  std::set<std::string> scalars, unit, zero;
  for (const Param &p : op.inputs)
    if (p.isScalar() && isInteger(p.type)) scalars.insert(p.name);
  for (size_t d = idx.size() - 2; d < idx.size(); ++d)
    for (const auto &[atom, coef] : linearize(simplify(idx[d])).terms)
      visitExpr(atom, [&](const Expr &n) {
        if (n->kind == ExprKind::Var && scalars.count(n->name)) (atom->kind == ExprKind::Var ? zero : unit).insert(n->name);
      });
  for (const std::string &p : unit) {
    if (zero.count(p)) return std::nullopt;
    require(var(p, VarKind::Symbol), 1);
    fl.values.push_back({p, intImm(1)});
  }
  for (const std::string &p : zero) {
    require(var(p, VarKind::Symbol), 0);
    fl.values.push_back({p, intImm(0)});
  }
  const std::string &y = a.vars[r.xDim - 1].name, &x = a.vars[r.xDim].name;
  auto is = [](const Expr &e, const std::string &v) { return e->kind == ExprKind::Var && e->name == v; };
  size_t n = idx.size();
  if (!is(simplify(substitute(idx[n - 2], fl.values)), y) || !is(simplify(substitute(idx[n - 1], fl.values)), x))
    return std::nullopt;
  for (size_t d = 0; d + 2 < n; ++d)
    if (mentionsVar(idx[d], y) || mentionsVar(idx[d], x)) return std::nullopt;
  // Same row length and row count; tested at run time unless the values
  // fixed above prove it (stdlib conv2d: (H + 2*pad - ..) / stride + 1 is H).
  fixed.insert(fixed.end(), fl.values.begin(), fl.values.end());
  const std::vector<Expr> &in = img->tensor->shape, &out = a.target->shape;
  for (size_t k = 1; k <= 2; ++k) {
    Expr o = simplify(out[out.size() - k]), i = simplify(in[in.size() - k]);
    if (!sameExpr(simplify(substitute(o, fixed)), simplify(substitute(i, fixed))))
      fl.cond = conjoin(fl.cond, binary(BinOp::EQ, o, i));
  }
  return fl;
}

} // namespace

ConvolutionTiles chooseConvolutionTiles(const TargetDesc &target, int elemBytes) {
  int64_t lanes = std::max(1, target.vectorBits / (8 * elemBytes));
  // One row: nv accumulators; mr rows share the nv image vectors and take
  // one broadcast: mr * nv + nv + 1 registers (EmitRegisterTile's rule).
  ConvolutionTiles t;
  if (target.vectorRegisters >= 32) { // 6 * 4 + 4 + 1 = 29 registers
    t.mr = 6;
    t.nr = 4 * lanes;
  } else {
    t.mr = 4;
    t.nr = 3 * lanes;
  }
  return t;
}

bool constructConvolutionApplies(const Op &op, std::string *reason) { return analyse(op, nullptr, reason); }

KernelPtr constructConvolution(const OpPtr &op, const ConvolutionTiles &t) {
  Roles ro;
  std::string why;
  if (!analyse(*op, &ro, &why)) throw InternalError("constructConvolution: " + why);
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
  // One version of the tiles. A task is nr of `cols` columns (numbered by
  // `col`) for all filters and one value of each output index but f and
  // those the columns `covered`; it writes `out` += `img` * `filt` under
  // the reduction loops `outer` and the channel loop. The channel variable
  // is cut into blocks of kc so that the image rows one block reads
  // (kc x window rows x nr) stay in L1 while every filter panel passes over
  // them. With `peel` the first block is peeled and each panel zeroed right
  // before it: a tile set to a constant just before the nest that
  // accumulates into it starts its register accumulators from that
  // constant (the x86 backend, tileInitialValue) instead of reading back
  // the zeroed output. Without it all panels are zeroed first.
  // The tasks: one value of each output index but f and those the columns
  // `covered`, times the blocks of nr of `cols` columns (numbered by `col`),
  // on the cores.
  auto tasks = [&](const std::set<size_t> &covered, const std::string &col, const Expr &cols, MStmtPtr body) {
    std::vector<std::string> workers;
    std::vector<Expr> spatial;
    for (size_t d = 0; d < a.vars.size(); ++d)
      if (d != ro.fDim && !covered.count(d)) {
        workers.push_back(a.vars[d].name);
        spatial.push_back(a.vars[d].extent);
      }
    workers.push_back(col);
    spatial.push_back(simplify(ceilDiv(cols, intImm(t.nr))));
    return mMapFor(workers, MappingAtom::Kind::Spatial, spatial, WorkerKind::Cores, std::move(body), loc);
  };
  auto zero = [&](const std::vector<Expr> &out) {
    return mMapFor({fr, xx}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)}, std::nullopt,
                   mStore(a.target, out, floatImm(0, a.target->dtype), AccumOp::None, loc), loc);
  };
  auto tiles = [&](const std::set<size_t> &covered, const std::string &col, const Expr &cols,
                   const std::vector<Expr> &out, const Expr &img, const Expr &filt,
                   const std::vector<IndexVar> &outer, bool peel) {
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
    MStmtPtr body;
    if (peel) {
      body = seqFor(fb, panels, mBlock({init, panel(intImm(0))}, loc), loc);
      if (channel) {
        MStmtPtr rest = seqFor(cb, ceilDiv(channel->extent, intImm(t.kc)), seqFor(fb, panels, panel(loopVar(cb)), loc), loc);
        rest->begin = intImm(1);
        body = mBlock({body, rest}, loc);
      }
    } else {
      MStmtPtr nest = seqFor(fb, panels, panel(loopVar(cb)), loc);
      if (channel) nest = seqFor(cb, ceilDiv(channel->extent, intImm(t.kc)), nest, loc);
      body = mBlock({seqFor(fb, panels, init, loc), nest}, loc);
    }
    return tasks(covered, col, cols, body);
  };
  // Row tiles: nr columns x of one output row. Not peeled: their padded
  // blocks run masked (lane masks in k registers), and a second copy of
  // them for the first channel block made LLVM spill two of those masks in
  // a hot loop of a padded 1x1 f64 convolution (tests/codegen, no spills).
  auto rowTiles = [&](const Expr &img) {
    return tiles({ro.xDim}, xb, xv.extent, oIdx, simplifyIndices(substitute(img, vmap)), load(packed, fIdxC), window, false);
  };
  // Flat tiles: nr consecutive pixels p = pb*nr + xx of one image, output
  // pixel (p / OW, p % OW), image pixel (p / W, p % W) (ir/FlatIndex.h).
  auto flatTiles = [&](const Expr &img, const Flat &fl) {
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
    return tiles({yDim, ro.xDim}, pb, mul(os[yDim], ow), out, imgV, substitute(load(packed, fIdxC), fl.values), outer, true);
  };

  // Any stride and dilation (flat pixels as above, an output pixel reading
  // image pixel (y*stride + .., x*stride + ..)): per channel block and
  // window step, each task copies the kc x nr image elements its nr pixels
  // read into a local panel (im2col, one panel at a time; padding and the
  // pixels past the last row as zeros), which the register tile then reads
  // at unit stride while every filter panel passes over it. The panel
  // (16 KiB) stays in L1; the output tile is zeroed first and read back
  // once per kc channels. Null without a channel loop (each panel would be
  // one deep) or an output row index besides f.
  auto packedTiles = [&]() -> MStmtPtr {
    if (!channel || ro.xDim == 0 || ro.xDim - 1 == ro.fDim) return nullptr;
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
    Expr live = simplify(binary(BinOp::Min, intImm(t.kc), sub(channel->extent, mul(loopVar(cb), intImm(t.kc)))));
    MStmtPtr copy = seqFor(c, live, mMapFor({xx}, MappingAtom::Kind::Repeat, {intImm(t.nr)}, std::nullopt,
                                            mStore(buf, {loopVar(c), loopVar(xx)}, simplifyIndices(substitute(ro.img, at)),
                                                   AccumOp::None, loc), loc), loc);
    Expr i = load(buf, {loopVar(c), loopVar(xx)}), f = load(packed, fIdxC);
    MStmtPtr fma = mStore(a.target, out, ro.imgFirst ? mul(i, f) : mul(f, i), AccumOp::Add, loc);
    MStmtPtr tile = seqFor(c, live, mMapFor({fr, xx}, MappingAtom::Kind::Repeat, {intImm(t.mr), intImm(t.nr)},
                                            std::nullopt, fma, loc), loc);
    std::vector<IndexVar> outer(ro.kOrder.begin(), ro.kOrder.end() - 1);
    MStmtPtr steps = loops(outer, mBlock({copy, seqFor(fb, panels, tile, loc)}, loc), loc);
    MStmtPtr body = mBlock({mAlloc(buf, loc), seqFor(fb, panels, zero(out), loc),
                            seqFor(cb, ceilDiv(channel->extent, intImm(t.kc)), steps, loc)}, loc);
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
  if (std::optional<Flat> fl = flatPixels(*op, ro, unitImg, ones))
    compute = fl->cond ? mIf(fl->cond, flatTiles(unitImg, *fl), compute, loc) : flatTiles(unitImg, *fl);
  // Other strides and dilations: the packed tiles (these tiles with a
  // run-time stride would run their register tile one lane at a time);
  // without them the default schedule, whose inner loop over x the later
  // loop-IR passes specialise and split at the padding.
  if (unitCond) {
    MStmtPtr strided = packedTiles();
    compute = mIf(unitCond, compute, strided ? strided : defaultSchedule(op, TargetDesc{})->body, loc);
  }

  return synthesizedKernel(op, TargetFamily::Cpu, mBlock({alloc, pack, compute}, op->loc));
}

} // namespace tk
