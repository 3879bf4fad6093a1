#include "scheduler/sunway/LdmRewrite.h"

#include "ir/IRMutator.h"
#include "ir/IRRewrite.h"
#include "ir/Simplify.h"

#include <fmt/format.h>

#include <functional>

namespace tk {
using namespace ir;

namespace {

// The accesses of `t` redirected to `buf`, which holds the box at origin
// `o` with extents `n` packed row-major from element `base`.
class Redirect final : public LoopMutator {
public:
  Redirect(const LdmPlan &p, TensorPtr buf, std::vector<Expr> o, std::vector<Expr> n, Expr base)
      : p_(p), buf_(std::move(buf)), o_(std::move(o)), n_(std::move(n)), base_(std::move(base)) {}

protected:
  Expr mutateLoad(const Expr &e) override {
    Expr m = LoopMutator::mutateLoad(e);
    if (m->tensor != p_.tensor) return m;
    // A padded read without a guard reads the pad outside the tensor: its
    // bounds become the guard (the buffer holds only elements inside).
    Expr pred = m->pred;
    if (m->pad && !pred)
      for (size_t d = 0; d < m->args.size(); ++d)
        pred = conjoin(pred, binary(BinOp::And, binary(BinOp::GE, m->args[d], intImm(0)),
                                    binary(BinOp::LT, m->args[d], p_.tensor->shape[d])));
    return load(buf_, {flat(m->args)}, m->pad, pred, m->loc);
  }
  LStmtPtr mutateStore(const LStmtPtr &s) override {
    LStmtPtr m = LoopMutator::mutateStore(s);
    if (m->tensor != p_.tensor) return m;
    auto n = std::make_shared<LStmt>(*m);
    n->tensor = buf_;
    n->indices = {flat(m->indices)};
    return n;
  }

private:
  Expr flat(const std::vector<Expr> &idx) const {
    Expr f = intImm(0);
    for (size_t d = 0; d < idx.size(); ++d) f = add(mul(f, n_[d]), sub(idx[d], o_[d]));
    return simplify(add(f, base_));
  }

  const LdmPlan &p_;
  TensorPtr buf_;
  std::vector<Expr> o_, n_;
  Expr base_;
};

// Whether an expression of `s` names variable `v`.
bool mentions(const LStmtPtr &s, const std::string &v) {
  bool found = false;
  visitLExprs(s, [&](const Expr &e) { found |= mentionsVar(e, v); });
  return found;
}

// The box of `p` where the variables of `subst` take those values: lets
// named <tensor>.<prefix>o<d> / .<prefix>n<d> (clamped origin and extents)
// around `inner`, which gets the origin and extent variables.
LStmtPtr withBox(const LdmPlan &p, const std::string &prefix, const std::vector<std::pair<std::string, Expr>> &subst,
                 const std::function<LStmtPtr(const std::vector<Expr> &, const std::vector<Expr> &)> &inner,
                 SourceLoc loc) {
  const TensorDecl &t = *p.tensor;
  std::vector<Expr> o, n;
  std::vector<std::pair<std::string, Expr>> lets;
  for (size_t d = 0; d < t.rank(); ++d) {
    std::string on = fmt::format("{}.{}o{}", t.name, prefix, d), nn = fmt::format("{}.{}n{}", t.name, prefix, d);
    Expr ov = var(on, VarKind::Loop), nv = var(nn, VarKind::Loop);
    Expr lo = substitute(p.lo[d], subst), hi = substitute(p.hi[d], subst);
    Expr last = binary(BinOp::Min, hi, sub(t.shape[d], intImm(1)));
    lets.push_back({on, simplify(binary(BinOp::Max, lo, intImm(0)))});
    lets.push_back({nn, simplify(binary(BinOp::Max, add(sub(last, ov), intImm(1)), intImm(0)))});
    o.push_back(ov);
    n.push_back(nv);
  }
  LStmtPtr s = inner(o, n);
  for (size_t i = lets.size(); i-- > 0;) {
    if (!mentions(s, lets[i].first)) continue; // e.g. n0 where only the strides n1.. index the buffer
    LStmtPtr let = lStmt(LStmt::Kind::Let, loc);
    let->var = lets[i].first;
    let->value = lets[i].second;
    let->body = s;
    s = let;
  }
  return s;
}

// What the CPE that fetches a shared box does (`cpe` is the CPE loop's
// variable): CPE 0 for a box every CPE shares, the first CPE of each row
// (cpe % 8 == 0) for a row-shared one; and the array barrier every CPE
// passes around it.
LStmtPtr onIssuer(const LdmPlan &p, const std::string &cpe, LStmtPtr s, SourceLoc loc) {
  Expr w = var(cpe, VarKind::Loop);
  if (p.rowShared) w = floorMod(w, intImm(8));
  return lIf(binary(BinOp::EQ, w, intImm(0)), std::move(s), nullptr, loc);
}
LStmtPtr barrier(SourceLoc loc) { return lStmt(LStmt::Kind::Barrier, loc); }

// A get of `p`'s box: for a shared box, CPE 0's broadcast to every CPE;
// for a row-shared one, a row's first CPE's broadcast to its row.
LStmtPtr boxGet(const LdmPlan &p, const std::vector<Expr> &o, const std::vector<Expr> &n, const TensorPtr &buf,
                SourceLoc loc) {
  LStmtPtr get = lDma(false, p.tensor, o, n, buf, loc);
  get->broadcast = p.broadcast();
  get->rowBroadcast = p.rowShared;
  return get;
}

TensorPtr ldmBuffer(const LdmPlan &p, int64_t copies) {
  const TensorDecl &t = *p.tensor;
  return scratchTensor(t.name + ".ldm", t.dtype, {intImm(p.capacity * copies)}, Scope::Ldm, t.loc);
}

// `body` with `p`'s buffer around it: get, body with accesses redirected,
// put. A shared box: every CPE has its buffer and is done with the last box
// (barrier), its issuer broadcasts the box, every CPE has it (barrier).
LStmtPtr wrap(const LStmtPtr &body, const LdmPlan &p, const std::string &cpe) {
  TensorPtr buf = ldmBuffer(p, 1);
  SourceLoc loc = body->loc;
  LStmtPtr s = withBox(p, "", {}, [&](const std::vector<Expr> &o, const std::vector<Expr> &n) {
    std::vector<LStmtPtr> stmts;
    if (p.broadcast()) {
      stmts.push_back(barrier(loc));
      stmts.push_back(onIssuer(p, cpe, boxGet(p, o, n, buf, loc), loc));
      stmts.push_back(barrier(loc));
    } else if (p.get) {
      stmts.push_back(boxGet(p, o, n, buf, loc));
    }
    stmts.push_back(Redirect(p, buf, o, n, intImm(0)).mutateStmt(body));
    if (p.put) stmts.push_back(lDma(true, p.tensor, o, n, buf, body->loc));
    return lBlock(std::move(stmts), body->loc);
  }, body->loc);
  return lAlloc(buf, s, body->loc);
}

// Loop `loop` (the level of `plans`, its body already rewritten) with the
// boxes of `plans` double-buffered: half (i - min) % 2 of a buffer holds
// iteration i's box. Their issuers fetch and wait for the shared boxes; an
// array barrier after the waits then says every CPE has this iteration's
// boxes and is done with the last one's, whose half the next fetch fills.
LStmtPtr wrapDouble(const LStmtPtr &loop, const std::vector<const LdmPlan *> &plans, const std::string &cpe) {
  SourceLoc loc = loop->loc;
  Expr v = var(loop->var, VarKind::Loop), next = add(v, intImm(1)), end = add(loop->min, loop->extent);
  std::vector<LStmtPtr> first, waits, fetches;
  std::vector<TensorPtr> bufs;
  LStmtPtr body = loop->body;
  for (const LdmPlan *p : plans) {
    TensorPtr buf = ldmBuffer(*p, 2);
    Expr cap = intImm(p->capacity);
    auto half = [&, cap](const Expr &i) { return simplify(mul(floorMod(sub(i, loop->min), intImm(2)), cap)); };
    auto fetch = [&](const std::string &prefix, const Expr &i) {
      LStmtPtr s = withBox(*p, prefix, {{loop->var, i}}, [&](const std::vector<Expr> &o, const std::vector<Expr> &n) {
        LStmtPtr get = boxGet(*p, o, n, buf, loc);
        get->value = half(i);
        get->async = true;
        return get;
      }, loc);
      return p->broadcast() ? onIssuer(*p, cpe, s, loc) : s;
    };
    body = withBox(*p, "", {}, [&](const std::vector<Expr> &o, const std::vector<Expr> &n) {
      return Redirect(*p, buf, o, n, half(v)).mutateStmt(body);
    }, loc);
    first.push_back(fetch("first.", loop->min));
    waits.push_back(p->broadcast() ? onIssuer(*p, cpe, lDmaWait(buf, loc), loc) : lDmaWait(buf, loc));
    fetches.push_back(fetch("next.", next));
    bufs.push_back(buf);
  }
  // Wait for this iteration's boxes, then start the next ones: a wait
  // covers every transfer issued into its buffer so far.
  bool shared = std::any_of(plans.begin(), plans.end(), [](const LdmPlan *p) { return p->broadcast(); });
  std::vector<LStmtPtr> stmts = waits;
  if (shared) stmts.push_back(barrier(loc));
  stmts.push_back(lIf(simplify(binary(BinOp::LT, next, end)), lBlock(fetches, loc), nullptr, loc));
  stmts.push_back(body);
  auto n = std::make_shared<LStmt>(*loop);
  n->body = lBlock(std::move(stmts), loc);
  // Before the first broadcast every CPE has its buffers and is done with
  // what they held before.
  std::vector<LStmtPtr> out0;
  if (shared) out0.push_back(barrier(loc));
  out0.push_back(lIf(simplify(binary(BinOp::GT, loop->extent, intImm(0))), lBlock(first, loc), nullptr, loc));
  out0.push_back(n);
  LStmtPtr out = lBlock(std::move(out0), loc);
  for (size_t i = bufs.size(); i-- > 0;) out = lAlloc(bufs[i], out, loc);
  return out;
}

class ApplyPlans final : public LoopMutator {
public:
  ApplyPlans(const std::vector<LdmPlan> &plans, std::string cpe) : plans_(plans), cpe_(std::move(cpe)) {}

protected:
  LStmtPtr mutateFor(const LStmtPtr &s) override {
    LStmtPtr m = LoopMutator::mutateFor(s);
    bool here = false;
    for (const LdmPlan &p : plans_) here |= p.placed && p.level == s.get();
    if (!here) return m;
    auto n = std::make_shared<LStmt>(*m);
    for (const LdmPlan &p : plans_)
      if (p.placed && p.level == s.get() && !p.doubleBuffer) n->body = wrap(n->body, p, cpe_);
    std::vector<const LdmPlan *> twice;
    for (const LdmPlan &p : plans_)
      if (p.placed && p.level == s.get() && p.doubleBuffer) twice.push_back(&p);
    return twice.empty() ? n : wrapDouble(n, twice, cpe_);
  }

private:
  const std::vector<LdmPlan> &plans_;
  std::string cpe_;
};

} // namespace

LStmtPtr applyLdmPlans(const LStmtPtr &body, const std::vector<LdmPlan> &plans, const std::string &cpe) {
  LStmtPtr out = ApplyPlans(plans, cpe).mutateStmt(body);
  for (const LdmPlan &p : plans)
    if (p.placed && !p.level) out = wrap(out, p, cpe);
  return out;
}

} // namespace tk
