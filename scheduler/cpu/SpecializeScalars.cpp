#include "scheduler/cpu/SpecializeScalars.h"

#include "ir/FlatIndex.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tk {
using namespace ir;

namespace {

// The loop variables that index the op's outputs in some store: the
// output positions a loop walks (a pooling row's x, a convolution's pixel
// block), not the window loops (r, s) that only move each window.
std::set<std::string> outputLoopVars(const LStmtPtr &body) {
  std::set<std::string> out;
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind != LStmt::Kind::Store || !s.tensor || s.tensor->role != TensorRole::Output) return;
    for (const Expr &i : s.indices)
      visitExpr(i, [&](const Expr &n) {
        if (n->kind == ExprKind::Var && n->varKind == VarKind::Loop) out.insert(n->name);
      });
  });
  return out;
}

// A store of one load into a local buffer: a copy that packs a panel.
bool packingCopy(const LStmt &s) {
  return s.kind == LStmt::Kind::Store && s.tensor && s.tensor->role == TensorRole::Local && s.value &&
         s.value->kind == ExprKind::Load;
}

// Scalars `s` appearing as `s * e` (or `e * s`) with a loop variable in e,
// inside the indices of loads and stores, each with whether some such e
// outside a packing copy mentions a loop variable that indexes an output:
// a stride, with which neighbouring outputs read the input where the
// arithmetic happens (a constant one turns a gather into a contiguous or an
// even/odd-interleaved load), rather than a scalar scaling only window
// loops (a convolution's dilation, on r and s), which moves where each
// window starts but not how a vector reads. A stride read only by the
// copies that pack a convolution's panels earns no version: the copy is
// paid once per panel and reused by every filter. Measured without the
// stride-2 copies (2 threads, medians of 11 calls, 4 alternating runs):
// 64 -> 128 channels at 56^2, 3x3: 0.96-1.00 against 0.94-0.97 ms;
// 256 -> 512 at 56^2, 1x1: 1.74-2.20 against 1.71-2.12; 3 -> 64 at 224^2,
// 7x7: 5.60-5.89 against 5.75-6.13; conv2d's text 98 -> 78 KiB. A
// pooling window reads X in its sum: there the copy is 5x faster (64
// channels at 112^2, 3x3: 0.15-0.22 against 0.76-0.79 ms).
std::map<std::string, bool> scalingScalars(const LStmtPtr &body, const std::set<std::string> &scalars) {
  std::set<std::string> walking = outputLoopVars(body);
  std::map<std::string, bool> out;
  auto mentions = [](const Expr &e, const std::function<bool(const Expr &)> &pick) {
    bool found = false;
    visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && pick(n); });
    return found;
  };
  auto scan = [&](const Expr &index, bool copy) {
    visitExpr(index, [&](const Expr &n) {
      if (n->kind != ExprKind::Binary || n->binOp != BinOp::Mul) return;
      for (int side = 0; side < 2; ++side) {
        const Expr &s = n->args[side], &other = n->args[1 - side];
        if (s->kind != ExprKind::Var || !scalars.count(s->name) ||
            !mentions(other, [](const Expr &v) { return v->varKind == VarKind::Loop; }))
          continue;
        out[s->name] |= !copy && mentions(other, [&](const Expr &v) { return walking.count(v->name) > 0; });
      }
    });
  };
  auto scanLoads = [&](const Expr &e, bool copy) {
    if (!e) return;
    visitExpr(e, [&](const Expr &n) {
      if (n->kind == ExprKind::Load)
        for (const Expr &i : n->args) scan(i, copy);
    });
  };
  visitLStmt(body, [&](const LStmt &s) {
    bool copy = packingCopy(s);
    for (const Expr &i : s.indices) scan(i, copy);
    scanLoads(s.value, copy);
    scanLoads(s.pred, copy);
    scanLoads(s.cond, copy);
  });
  return out;
}

// (scalar, value) pairs an `if` of the function already tests as
// `scalar == value` (alone or in a conjunction).
std::set<std::pair<std::string, int64_t>> testedValues(const LStmtPtr &body) {
  std::set<std::pair<std::string, int64_t>> out;
  std::function<void(const Expr &)> scan = [&](const Expr &c) {
    if (c->kind != ExprKind::Binary) return;
    if (c->binOp == BinOp::And) {
      scan(c->args[0]);
      scan(c->args[1]);
      return;
    }
    int64_t v = 0;
    if (c->binOp == BinOp::EQ && c->args[0]->kind == ExprKind::Var && isConstInt(c->args[1], &v))
      out.insert({c->args[0]->name, v});
  };
  visitLStmt(body, [&](const LStmt &s) {
    if (s.kind == LStmt::Kind::If) scan(s.cond);
  });
  return out;
}

// The divisors of the flat pairs [h + e / S, e % S] of `body`'s accesses
// (ir/FlatIndex.h) replaced by placeholder symbols, S by S. A pair is only
// one index while S is the tensor's extent as declared: bound to constants,
// S would be an equal value but another expression (a 1x1 convolution's
// output row (W + 2*pad - 1) / stride + 1 with stride 2), and the backends
// would address the pair by dividing, lane by lane.
LStmtPtr protectFlatExtents(const LStmtPtr &body, std::vector<std::pair<std::string, Expr>> &restore) {
  auto protect = [&](const TensorDecl &t, std::vector<Expr> idx) {
    std::optional<FlatPair> pair = flatPairIndex(t, idx);
    if (!pair) return idx;
    Expr extent = simplify(t.shape[pair->dim + 1]);
    std::string name = "flat.extent." + std::to_string(restore.size());
    restore.push_back({name, t.shape[pair->dim + 1]});
    Expr holder = var(name, VarKind::Symbol, ScalarType::I64);
    for (size_t d = pair->dim; d <= pair->dim + 1; ++d)
      idx[d] = transformExpr(idx[d], [&](const Expr &n) -> Expr {
        bool divides = n->kind == ExprKind::Binary && (n->binOp == BinOp::Div || n->binOp == BinOp::Mod);
        return divides && sameExpr(simplify(n->args[1]), extent) ? binary(n->binOp, n->args[0], holder) : n;
      });
    return idx;
  };
  auto loads = [&](const Expr &e) {
    return transformExpr(e, [&](const Expr &n) -> Expr {
      if (n->kind != ExprKind::Load || !n->tensor) return n;
      std::vector<Expr> idx = protect(*n->tensor, n->args);
      return idx == n->args ? n : load(n->tensor, idx, n->pad, n->pred, n->loc);
    });
  };
  LStmtPtr out = rewriteLStmt(body, loads);
  return transformLStmt(out, [&](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind == LStmt::Kind::Store && s->tensor) s->indices = protect(*s->tensor, s->indices);
    return s;
  });
}

// `body` with the scalars bound to constants, simplified, constant ifs
// folded; flat pairs keep their declared extents.
LStmtPtr bindScalars(const LStmtPtr &body, const std::vector<std::pair<std::string, Expr>> &values) {
  std::vector<std::pair<std::string, Expr>> restore;
  LStmtPtr out = rewriteLStmt(protectFlatExtents(body, restore),
                              [&](const Expr &e) { return substitute(simplify(substitute(e, values)), restore); });
  return transformLStmt(out, [](const LStmtPtr &s) -> LStmtPtr {
    if (s->kind != LStmt::Kind::If || (s->cond->kind != ExprKind::IntImm && s->cond->kind != ExprKind::BoolImm)) return s;
    const LStmtPtr &taken = s->cond->intValue ? s->thenS : s->elseS;
    return taken ? taken : lBlock({}, s->loc);
  });
}

} // namespace

LoweredFunc specializeScalars(const LoweredFunc &f) {
  std::set<std::string> ints;
  for (const Param &p : f.op->inputs)
    if (p.isScalar() && isInteger(p.type)) ints.insert(p.name);
  std::vector<std::string> chosen;
  std::map<std::string, bool> scaling = scalingScalars(f.body, ints);
  // At most two scalars (a convolution's stride and dilation): each copy
  // is the whole function again (avgpool2d's stride-2 copy is a third of
  // its 40 KiB).
  for (const Param &p : f.op->inputs)
    if (scaling.count(p.name) && chosen.size() < 2) chosen.push_back(p.name);
  bool walks = std::any_of(chosen.begin(), chosen.end(), [&](const std::string &n) { return scaling[n]; });
  if (!walks) return f;

  auto scalar = [&](const std::string &n) {
    for (const Param &p : f.op->inputs)
      if (p.name == n) return var(n, VarKind::Symbol, p.type);
    return var(n, VarKind::Symbol);
  };
  // Versions, most common first: all 1, then each stride at 2 (the
  // downsampling stride of ResNet and MobileNet; 64 channels of 3 x 3
  // average pooling at 112^2 ran 5x faster in its copy). A scalar
  // scaling only window loops is 1 in every copy and gets none of its own:
  // conv2d's dilation == 2 copy was a quarter of its code (194 KB of text,
  // 142 KB without) and no faster on a dilated convolution than the general
  // code (64 -> 64 channels, 56 x 56, 3 x 3, dilation 2: 1.64 ms either way).
  std::vector<std::vector<int64_t>> versions{std::vector<int64_t>(chosen.size(), 1)};
  for (size_t k = 0; k < chosen.size(); ++k) {
    if (!scaling[chosen[k]]) continue;
    versions.push_back(std::vector<int64_t>(chosen.size(), 1));
    versions.back()[k] = 2;
  }
  // A version whose every value an `if` already selects (a constructor's
  // own unit-stride version) would duplicate that code: the general copy
  // keeps it.
  auto tested = testedValues(f.body);
  versions.erase(std::remove_if(versions.begin(), versions.end(),
                                [&](const std::vector<int64_t> &vals) {
                                  for (size_t k = 0; k < chosen.size(); ++k)
                                    if (!tested.count({chosen[k], vals[k]})) return false;
                                  return true;
                                }),
                 versions.end());
  LStmtPtr result = f.body;
  for (size_t v = versions.size(); v-- > 0;) {
    std::vector<std::pair<std::string, Expr>> values;
    Expr cond;
    for (size_t k = 0; k < chosen.size(); ++k) {
      Expr value = intImm(versions[v][k], scalar(chosen[k])->type);
      values.push_back({chosen[k], value});
      cond = conjoin(cond, binary(BinOp::EQ, scalar(chosen[k]), value));
    }
    result = lIf(cond, bindScalars(f.body, values), result, f.body->loc);
  }
  LoweredFunc out = f;
  out.body = result;
  return out;
}

} // namespace tk
