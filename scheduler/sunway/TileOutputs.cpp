#include "scheduler/sunway/TileOutputs.h"

#include "ir/Diagnostics.h"
#include "ir/IRRewrite.h"
#include "ir/Reduction.h"
#include "ir/Simplify.h"
#include "scheduler/DefaultSchedule.h"
#include "scheduler/FreshNames.h"

#include <algorithm>

namespace tk {
using namespace ir;

namespace {

Expr loopVar(const std::string &name) { return var(name, VarKind::Loop, ScalarType::I64); }

// for (names) in repeat(dims) { body }.
MStmtPtr repeat(std::vector<std::string> names, std::vector<Expr> dims, MStmtPtr body, SourceLoc loc) {
  return mMapFor(std::move(names), MappingAtom::Kind::Repeat, std::move(dims), std::nullopt, std::move(body), loc);
}


// The loops of one group (the tile's output offsets, the reduction blocks
// or the offsets inside a block), outermost first.
struct Loops {
  std::vector<std::pair<std::string, Expr>> loops;
  void add(std::string n, Expr e) { loops.push_back({std::move(n), simplify(e)}); }
  MStmtPtr wrap(MStmtPtr body, SourceLoc loc) const {
    for (size_t i = loops.size(); i-- > 0;) body = tileLoop(loops[i].first, loops[i].second, std::move(body), loc);
    return body;
  }
};

// The iterations of a block of `size` starting at `start` that lie inside
// [0, extent): `size` when the blocks divide a constant extent.
Expr clamped(const Expr &extent, const Expr &start, int64_t size) {
  int64_t e;
  if (isConstInt(simplify(extent), &e) && e % size == 0) return intImm(size);
  return binary(BinOp::Min, intImm(size), sub(extent, start));
}

} // namespace

MStmtPtr tileLoop(const std::string &name, const Expr &n, MStmtPtr body, SourceLoc loc) {
  if (n->kind == ExprKind::IntImm) return repeat({name}, {n}, std::move(body), loc);
  return mSeqFor(name, n, std::move(body), loc);
}

bool tileOutputsApplies(const Assign &a, std::string *reason) {
  auto no = [&](const char *why) {
    if (reason) *reason = why;
    return false;
  };
  if (a.vars.empty()) return no("the target is a scalar: there are no output tiles to spread over the CPEs");
  if (containsReduce(a.value) && !soleReduction(a.value, a.target->dtype))
    return no("the value holds a reduction that is not all of it (or an element-wise function of one in the "
              "target's type)");
  if (readsTensor(a.value, a.target.get())) return no("the value reads the target it writes");
  return true;
}

MStmtPtr tileOutputs(const Assign &a, const Op &op, const std::vector<int64_t> &tile, int spread,
                     bool reductionInside, int rows) {
  FreshNames fresh(op, a);
  Expr red = containsReduce(a.value) ? soleReduction(a.value, a.target->dtype) : nullptr;
  static const std::vector<IndexVar> none;
  const std::vector<IndexVar> &rvars = red ? red->rvars : none;
  size_t rank = a.vars.size();
  if (tile.size() != rank + rvars.size()) throw InternalError("TileOutputs: one tile size per loop dimension expected");
  if (spread >= static_cast<int>(rank) || rows >= static_cast<int>(rank) || (rows >= 0 && (spread < 0 || rows == spread)))
    throw InternalError("TileOutputs: the lockstep dimensions are not distinct output ones");

  // Output tiles: t's mixed-radix digits are the tile coordinates; inside
  // a tile each output variable is its offset (a loop unless the size is 1).
  // In lockstep the dimensions the CPEs spread over are the innermost
  // digits, each count rounded up to a multiple of its lanes (the tiles
  // past its end are empty): round t (a loop every CPE runs) and CPE w
  // stand for the tiles whose lane digits are (t's digit) * lanes + w's
  // part: w itself over 64 lanes, or its column w % 8 along `spread` and
  // its row w / 8 along `rows`. The CPE appears in no other digit, so the
  // boxes of an operand that depends on none of those dimensions provably
  // do not depend on the CPE, and one that depends on the row's alone
  // differs only between rows.
  std::string t = fresh("tile");
  std::string w = spread >= 0 ? fresh("cpe") : "";
  struct Lane {
    size_t dim;
    int64_t lanes;
    Expr part;
  };
  std::vector<Lane> lanes; // innermost first
  if (spread >= 0 && rows >= 0) {
    lanes.push_back({static_cast<size_t>(spread), 8, floorMod(loopVar(w), intImm(8))});
    lanes.push_back({static_cast<size_t>(rows), 8, floorDiv(loopVar(w), intImm(8))});
  } else if (spread >= 0) {
    lanes.push_back({static_cast<size_t>(spread), 64, loopVar(w)});
  }
  auto laneOf = [&](size_t d) -> const Lane * {
    for (const Lane &l : lanes)
      if (l.dim == d) return &l;
    return nullptr;
  };
  std::vector<Expr> count(rank);
  Expr tiles = intImm(1);
  for (size_t d = 0; d < rank; ++d) {
    count[d] = simplify(ceilDiv(a.vars[d].extent, intImm(tile[d])));
    if (const Lane *l = laneOf(d)) count[d] = simplify(mul(ceilDiv(count[d], intImm(l->lanes)), intImm(l->lanes)));
    tiles = mul(tiles, count[d]);
  }
  std::vector<size_t> digits; // innermost first
  for (const Lane &l : lanes) digits.push_back(l.dim);
  for (size_t d = rank; d-- > 0;)
    if (!laneOf(d)) digits.push_back(d);
  std::vector<std::pair<std::string, Expr>> map;
  std::vector<Expr> idx(rank);
  std::vector<std::pair<std::string, Expr>> offsets; // innermost first
  Expr stride = intImm(1);                            // of t's digit
  for (size_t n = 0; n < digits.size(); ++n) {
    size_t d = digits[n];
    const Lane *l = laneOf(d);
    Expr q = l ? simplify(floorDiv(count[d], intImm(l->lanes))) : count[d];
    Expr coord = floorDiv(loopVar(t), stride);
    if (n + 1 < digits.size()) coord = floorMod(coord, q);
    if (l) coord = add(mul(coord, intImm(l->lanes)), l->part);
    stride = mul(stride, q);
    Expr start = mul(coord, intImm(tile[d]));
    idx[d] = start;
    if (tile[d] > 1) {
      idx[d] = add(start, loopVar(a.vars[d].name));
      offsets.push_back({a.vars[d].name, clamped(a.vars[d].extent, start, tile[d])});
    }
    idx[d] = simplify(idx[d]);
    map.push_back({a.vars[d].name, idx[d]});
  }
  // Loops in the output's dimension order, whatever the digits' order.
  std::sort(offsets.begin(), offsets.end(), [&](const auto &x, const auto &y) {
    auto pos = [&](const std::string &v) {
      auto named = [&](const IndexVar &iv) { return iv.name == v; };
      return std::find_if(a.vars.begin(), a.vars.end(), named) - a.vars.begin();
    };
    return pos(x.first) > pos(y.first);
  });
  Loops inTile;
  for (size_t i = offsets.size(); i-- > 0;) inTile.add(offsets[i].first, offsets[i].second);

  // Reduction blocks: k = k_blk * Kb + k, the last block clamped.
  Loops blocks, inBlock;
  for (size_t r = 0; r < rvars.size(); ++r) {
    const IndexVar &v = rvars[r];
    int64_t kb = tile[rank + r], extent = 0;
    if (kb == 1 || (isConstInt(simplify(v.extent), &extent) && kb >= extent)) {
      (kb == 1 ? blocks : inBlock).add(v.name, v.extent);
      map.push_back({v.name, loopVar(v.name)});
      continue;
    }
    std::string outer = fresh(v.name + "_blk");
    Expr start = mul(loopVar(outer), intImm(kb));
    blocks.add(outer, ceilDiv(v.extent, intImm(kb)));
    inBlock.add(v.name, clamped(v.extent, start, kb));
    map.push_back({v.name, simplify(add(start, loopVar(v.name)))});
  }

  SourceLoc loc = a.loc;
  std::vector<MStmtPtr> task;
  if (!red) {
    task.push_back(inTile.wrap(mStore(a.target, idx, substitute(a.value, map), AccumOp::None, loc), loc));
  } else {
    SourceLoc rloc = red->loc.valid() ? red->loc : a.loc;
    Expr body = substitute(red->args[0], map);
    Expr identity = reductionIdentity(red->reduceOp, a.target->dtype);
    task.push_back(inTile.wrap(mStore(a.target, idx, identity, AccumOp::None, loc), loc));
    MStmtPtr update = mStore(a.target, idx, body, accumFor(red->reduceOp), loc);
    if (reductionInside) task.push_back(inTile.wrap(blocks.wrap(inBlock.wrap(update, rloc), rloc), loc));
    else task.push_back(blocks.wrap(inBlock.wrap(inTile.wrap(update, loc), rloc), rloc));
    if (red != a.value) {
      // value = f(reduction) (avgpool's sum / k^2): f applied to the tile in LDM.
      Expr reduced = load(a.target, idx);
      Expr post = transformExpr(substitute(a.value, map), [&](const Expr &n) {
        return n->kind == ExprKind::Reduce ? reduced : n;
      });
      task.push_back(inTile.wrap(mStore(a.target, idx, post, AccumOp::None, loc), loc));
    }
  }
  if (spread < 0) return cpeChunks({t}, simplify(ceilDiv(tiles, intImm(64))), mBlock(task, loc), loc);
  // for (w) in spatial(64) on cpes { for t in 0..T' / 64 { ... } }: the 64
  // tiles of a round differ in the lockstep dimensions alone.
  return mMapFor({w}, MappingAtom::Kind::Spatial, {intImm(64)}, WorkerKind::Cpes,
                 mSeqFor(t, simplify(floorDiv(tiles, intImm(64))), mBlock(task, loc), loc), loc);
}

} // namespace tk
