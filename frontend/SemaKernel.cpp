// Kernels -> mapping IR: task-mapping loops (worker kinds checked against
// the target), ordinary loops, local tensors (scopes checked against the
// target), stores, barriers, `if`, `let` (substituted), holes, `require`
// and tensor-core statements (SemaIntrinsic).
#include "frontend/Sema.h"
#include "frontend/SemaExpr.h"
#include "frontend/SemaIntrinsic.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tk::sema {

namespace {

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

class KernelChecker {
public:
  KernelChecker(const ast::KernelDecl &decl, const OpEntry &op, ir::TargetFamily target, DiagEngine &diags)
      : decl_(decl), entry_(op), diags_(diags) {
    kernel_ = std::make_shared<ir::Kernel>();
    kernel_->name = decl.name;
    kernel_->op = op.op;
    kernel_->target = target;
    kernel_->loc = decl.loc;
  }

  ir::KernelPtr run() {
    const ir::Op &op = *entry_.op;
    for (const std::string &s : op.symbols) bindFixed(s, {Binding::Kind::Symbol, nullptr, ir::var(s, ir::VarKind::Symbol), op.loc});
    for (const ir::Param &p : op.inputs) {
      if (p.isScalar()) bindFixed(p.name, {Binding::Kind::Symbol, nullptr, ir::var(p.name, ir::VarKind::Symbol, p.type), p.loc});
      else bindFixed(p.name, {Binding::Kind::Tensor, p.tensor, nullptr, p.loc});
    }
    for (const ir::TensorPtr &t : op.outputs) bindFixed(t->name, {Binding::Kind::Tensor, t, nullptr, t->loc});
    kernel_->body = block(decl_.body, decl_.loc);
    return kernel_;
  }

private:
  const ast::KernelDecl &decl_;
  const OpEntry &entry_;
  DiagEngine &diags_;
  ir::KernelPtr kernel_;
  Scope scope_;
  std::set<std::string> usedVarNames_;        // every variable name of the kernel, after renaming
  std::map<std::string, int> nextSuffix_;     // next n to try for name.n (keeps renaming linear)
  std::map<std::string, SourceLoc> endedLocals_; // locals whose block has ended
  std::vector<ir::WorkerKind> workers_;          // worker kinds of the enclosing mappings, innermost last

  void bindFixed(const std::string &name, Binding b) {
    usedVarNames_.insert(name);
    scope_.declare(name, std::move(b));
  }

  ExprEnv env() {
    ExprEnv e{ExprEnv::Mode::Kernel, scope_, diags_, {}, nullptr};
    e.target = kernel_->target;
    e.inLanes = std::any_of(workers_.begin(), workers_.end(), [](ir::WorkerKind w) {
      return w == ir::WorkerKind::Threads || w == ir::WorkerKind::Warps;
    });
    e.makeHole = [this](const ast::Expr &h) -> ir::Expr {
      for (int64_t c : h.candidates)
        if (c <= 0) {
          diags_.error(h.loc, "hole candidates must be positive, not {}", c);
          return nullptr;
        }
      int id = static_cast<int>(kernel_->holes.size());
      kernel_->holes.push_back({id, h.candidates, h.loc, std::nullopt});
      return ir::hole(id, h.candidates, h.loc);
    };
    return e;
  }

  ir::Expr intExpr(const ast::Expr &e, const std::string &what) {
    ExprEnv en = env();
    return lowerIntExpr(e, en, what);
  }

  // Declares a new name in the innermost block; a clash with a name visible
  // in the same block is an error (reported here).
  bool declareNew(const ast::Ident &id, Binding b) {
    Binding prev;
    if (scope_.declare(id.name, std::move(b), &prev)) return true;
    diags_.error(id.loc, "duplicate definition of '" + id.name + "' (first defined at " + lineCol(prev.loc) + ")");
    return false;
  }

  // Loop variables get kernel-unique names (i, i.1, i.2, ...) so later
  // passes can key on names; the user's spelling maps to the unique one.
  ir::Expr loopVar(const ast::Ident &id) {
    // Source names have no '.', so id.name + ".n" is only ever made here, in
    // order: resuming from the last n gives the smallest free one.
    std::string unique = id.name;
    for (int &n = nextSuffix_.try_emplace(id.name, 1).first->second; usedVarNames_.count(unique); ++n)
      unique = fmt::format("{}.{}", id.name, n);
    usedVarNames_.insert(unique);
    ir::Expr v = ir::var(unique, ir::VarKind::Loop, ir::ScalarType::I64, id.loc);
    if (!scope_.declare(id.name, {Binding::Kind::Loop, nullptr, v, id.loc}))
      diags_.error(id.loc, "loop variable '" + id.name + "' is bound twice");
    return v;
  }

  ir::MStmtPtr block(const std::vector<ast::StmtPtr> &stmts, SourceLoc loc) {
    scope_.push();
    std::vector<ir::MStmtPtr> out;
    for (const auto &s : stmts) {
      if (diags_.errorLimitReached()) break; // later errors are dropped: stop early
      if (ir::MStmtPtr m = stmt(*s)) out.push_back(m);
    }
    for (const auto &[name, b] : scope_.pop())
      if (b.kind == Binding::Kind::Tensor) endedLocals_[name] = b.loc;
    return ir::mBlock(std::move(out), loc);
  }

  ir::MStmtPtr newStmt(ir::MStmt::Kind k, SourceLoc loc) {
    auto m = std::make_shared<ir::MStmt>();
    m->kind = k;
    m->loc = loc;
    return m;
  }

  ir::TensorPtr storeTarget(const ast::Ident &t) {
    Binding *b = scope_.lookup(t.name);
    if (b && b->kind == Binding::Kind::Tensor) {
      if (b->tensor->role != ir::TensorRole::Input) return b->tensor;
      diags_.error(t.loc, "cannot assign to input '" + t.name + "': inputs are read-only");
    } else if (b) {
      diags_.error(t.loc, "cannot assign to '" + t.name + "': it is not a tensor");
    } else if (endedLocals_.count(t.name)) {
      diags_.error(t.loc, "tensor '" + t.name + "' is not in scope here (it was declared at " +
                              lineCol(endedLocals_[t.name]) + " in a block that has ended)");
    } else if (std::count(entry_.intermediateNames.begin(), entry_.intermediateNames.end(), t.name)) {
      diags_.error(t.loc, "'" + t.name + "' is an intermediate of op '" + entry_.op->name +
                              "' and is not visible in kernels; declare a local tensor instead");
    } else {
      diags_.error(t.loc, "store to unknown tensor '" + t.name + "'" +
                              didYouMean(t.name, scope_.visibleNames(Binding::Kind::Tensor)));
    }
    return nullptr;
  }

  ir::MStmtPtr store(const ast::Stmt &s) {
    ir::TensorPtr t = storeTarget(s.target);
    ExprEnv en = env();
    ir::Expr value = lowerExpr(*s.value, en);
    if (!t) return nullptr;
    if (s.indices.size() != t->rank()) {
      diags_.error(s.target.loc, "'{}' has rank {} but is assigned with {} {}", t->name, t->rank(), s.indices.size(),
                   s.indices.size() == 1 ? "index" : "indices");
      return nullptr;
    }
    auto m = newStmt(ir::MStmt::Kind::Store, s.loc);
    bool ok = value != nullptr;
    for (const auto &i : s.indices) {
      m->indices.push_back(intExpr(*i, "index"));
      ok &= m->indices.back() != nullptr;
    }
    if (!ok) return nullptr;
    m->tensor = t;
    m->value = convertForStore(value, t->dtype, t->name, s.value->loc, diags_);
    m->accum = s.accum == "+=" ? ir::AccumOp::Add
               : s.accum == "*=" ? ir::AccumOp::Mul
               : s.accum == "max=" ? ir::AccumOp::Max
               : s.accum == "min=" ? ir::AccumOp::Min
                                   : ir::AccumOp::None;
    if (!s.hint.name.empty()) {
      if (s.hint.name != "stream") {
        diags_.error(s.hint.loc, "unknown store hint '" + s.hint.name + "' (expected stream, a non-temporal store)");
        return nullptr;
      }
      if (!onCpu(s.hint.loc, "'stream' stores are for cpu kernels")) return nullptr;
      m->stream = true;
    }
    return m->value ? m : nullptr;
  }

  // Whether the kernel is for cpu, where cache hints mean something; else
  // the located error `message`.
  bool onCpu(SourceLoc loc, const std::string &message) {
    if (kernel_->target == ir::TargetFamily::Cpu) return true;
    diags_.error(loc, message);
    return false;
  }

  // `prefetch T[i, ..];`: a hint that the element is read soon (cpu).
  ir::MStmtPtr prefetch(const ast::Stmt &s) {
    if (s.scope.name != "prefetch") {
      diags_.error(s.scope.loc, "unknown statement '" + s.scope.name + "' (expected prefetch T[..] or a store)");
      return nullptr;
    }
    if (!onCpu(s.scope.loc, "'prefetch' is for cpu kernels")) return nullptr;
    Binding *b = scope_.lookup(s.target.name);
    if (!b || b->kind != Binding::Kind::Tensor) {
      diags_.error(s.target.loc, "prefetch of unknown tensor '" + s.target.name + "'" +
                                     didYouMean(s.target.name, scope_.visibleNames(Binding::Kind::Tensor)));
      return nullptr;
    }
    ir::TensorPtr t = b->tensor;
    if (s.indices.size() != t->rank()) {
      diags_.error(s.target.loc, "'{}' has rank {} but is prefetched with {} {}", t->name, t->rank(), s.indices.size(),
                   s.indices.size() == 1 ? "index" : "indices");
      return nullptr;
    }
    std::vector<ir::Expr> idx;
    for (const auto &i : s.indices) {
      idx.push_back(intExpr(*i, "index"));
      if (!idx.back()) return nullptr;
    }
    return ir::mPrefetch(t, std::move(idx), s.loc);
  }

  std::optional<ir::MappingAtom> atom(const ast::MapAtom &a) {
    ir::MappingAtom out;
    out.loc = a.loc;
    if (a.name == "spatial") out.kind = ir::MappingAtom::Kind::Spatial;
    else if (a.name == "repeat") out.kind = ir::MappingAtom::Kind::Repeat;
    else {
      diags_.error(a.loc, "unknown task mapping '" + a.name + "' (expected spatial or repeat)" +
                              didYouMean(a.name, {"spatial", "repeat"}));
      return std::nullopt;
    }
    bool ok = true;
    for (const auto &d : a.dims) {
      out.dims.push_back(intExpr(*d, "task-mapping extent"));
      ok &= out.dims.back() != nullptr;
    }
    if (!a.ranksKeyword.empty()) {
      if (a.ranksKeyword != "ranks") {
        diags_.error(a.ranksLoc, "unknown task-mapping option '" + a.ranksKeyword + "' (expected ranks=[...])");
        return std::nullopt;
      }
      std::vector<int64_t> sorted = a.ranks;
      std::sort(sorted.begin(), sorted.end());
      bool perm = sorted.size() == a.dims.size();
      for (size_t i = 0; perm && i < sorted.size(); ++i) perm = sorted[i] == static_cast<int64_t>(i);
      if (!perm) {
        diags_.error(a.ranksLoc, "ranks must be a permutation of 0..{} (one entry per dimension of {})",
                     a.dims.size() - 1, a.name);
        return std::nullopt;
      }
      for (int64_t r : a.ranks) out.perm.push_back(static_cast<int>(r));
    }
    if (!ok) return std::nullopt;
    return out;
  }

  ir::MStmtPtr mapFor(const ast::Stmt &s) {
    auto m = newStmt(ir::MStmt::Kind::MapFor, s.loc);
    bool ok = true, spatial = false;
    for (const ast::MapAtom &a : s.atoms) {
      auto at = atom(a);
      if (!at) {
        ok = false;
        continue;
      }
      spatial |= at->kind == ir::MappingAtom::Kind::Spatial;
      if (!m->mapping.atoms.empty() && at->dims.size() != m->mapping.rank()) {
        diags_.error(a.loc,
                     "task mappings composed with '*' must have the same rank: {} has rank {} but {} has rank "
                     "{}",
                     a.name, at->dims.size(), s.atoms[0].name, m->mapping.rank());
        ok = false;
        continue;
      }
      m->mapping.atoms.push_back(*at);
    }
    if (ok && s.vars.size() != m->mapping.rank()) {
      diags_.error(s.vars[0].loc, "the loop binds {} variable{} but the task mapping has rank {}", s.vars.size(),
                   s.vars.size() == 1 ? "" : "s", m->mapping.rank());
      ok = false;
    }
    if (!s.worker.name.empty()) {
      auto w = ir::parseWorkerKind(s.worker.name);
      std::vector<std::string> available;
      for (ir::WorkerKind k : {ir::WorkerKind::Cores, ir::WorkerKind::Lanes, ir::WorkerKind::Blocks,
                               ir::WorkerKind::Warps, ir::WorkerKind::Threads, ir::WorkerKind::Cpes})
        if (ir::targetHasWorker(kernel_->target, k)) available.emplace_back(ir::workerKindName(k));
      std::string target(ir::targetFamilyName(kernel_->target));
      if (!w) {
        diags_.error(s.worker.loc, "unknown worker kind '" + s.worker.name + "' (" + target + " kernels run on " +
                                       joinNames(available) + ")" +
                                       didYouMean(s.worker.name, {"cores", "lanes", "blocks", "warps", "threads", "cpes"}));
        ok = false;
      } else if (!ir::targetHasWorker(kernel_->target, *w)) {
        diags_.error(s.worker.loc, "worker kind '" + s.worker.name + "' is not available on " + target +
                                       " kernels (" + target + " provides " + joinNames(available) + ")");
        ok = false;
      } else {
        m->worker = *w;
      }
    } else if (spatial) {
      diags_.error(s.loc, "a task mapping with spatial(...) must say which workers run it, e.g. 'on cores'; "
                          "without 'on' a mapping may only use repeat(...)");
      ok = false;
    }
    scope_.push();
    for (const ast::Ident &v : s.vars) m->vars.push_back(loopVar(v)->name);
    if (m->worker) workers_.push_back(*m->worker);
    m->body = block(s.body, s.loc);
    if (m->worker) workers_.pop_back();
    scope_.pop();
    return ok ? m : nullptr;
  }

  ir::MStmtPtr seqFor(const ast::Stmt &s) {
    auto m = newStmt(ir::MStmt::Kind::SeqFor, s.loc);
    m->begin = intExpr(*s.begin, "loop bound");
    m->end = intExpr(*s.value, "loop bound");
    scope_.push();
    m->var = loopVar(s.vars[0])->name;
    m->body = block(s.body, s.loc);
    scope_.pop();
    return m->begin && m->end ? m : nullptr;
  }

  ir::MStmtPtr local(const ast::Stmt &s) {
    std::string target(ir::targetFamilyName(kernel_->target));
    auto sc = ir::parseScope(s.scope.name);
    if (!sc) {
      diags_.error(s.scope.loc, "unknown memory scope '" + s.scope.name + "'" +
                                    didYouMean(s.scope.name, {"global", "shared", "register", "ldm", "local"}));
      return nullptr;
    }
    if (!ir::targetHasScope(kernel_->target, *sc)) {
      diags_.error(s.scope.loc, "memory scope '" + s.scope.name + "' is not available on " + target + " kernels" +
                                    (*sc == ir::Scope::Shared ? " (shared memory exists only on cuda)"
                                                              : " (ldm exists only on sunway)"));
      return nullptr;
    }
    auto t = std::make_shared<ir::TensorDecl>();
    t->name = s.target.name;
    t->scope = *sc;
    t->role = ir::TensorRole::Local;
    t->loc = s.target.loc;
    auto dt = ir::parseScalarType(s.type.dtype);
    if (!dt) {
      diags_.error(s.type.loc, "unknown type '" + s.type.dtype + "'" +
                                   didYouMean(s.type.dtype, {"f16", "bf16", "f32", "f64", "i8", "i32", "i64", "bool"}));
      return nullptr;
    }
    t->dtype = *dt;
    bool ok = true;
    for (const auto &d : s.type.shape) {
      t->shape.push_back(intExpr(*d, "extent"));
      ok &= t->shape.back() != nullptr;
    }
    if (!ok || !declareNew(s.target, {Binding::Kind::Tensor, t, nullptr, s.target.loc})) return nullptr;
    endedLocals_.erase(t->name);
    auto m = newStmt(ir::MStmt::Kind::Alloc, s.loc);
    m->tensor = t;
    return m;
  }

  ir::MStmtPtr stmt(const ast::Stmt &s) {
    using K = ast::Stmt::Kind;
    switch (s.kind) {
    case K::Store: return store(s);
    case K::MapFor: return mapFor(s);
    case K::SeqFor: return seqFor(s);
    case K::Local: return local(s);
    case K::Sync: return newStmt(ir::MStmt::Kind::Sync, s.loc); // a no-op on cpu (one worker per task)
    case K::Prefetch: return prefetch(s);
    case K::Block: return block(s.body, s.loc);
    case K::Intrinsic:
      return checkIntrinsic(s, {kernel_->target, !workers_.empty() && workers_.back() == ir::WorkerKind::Warps, scope_,
                                diags_, [this](const ast::Expr &e, const std::string &w) { return intExpr(e, w); },
                                [this](const ast::Expr &e) {
                                  ExprEnv en = env();
                                  return lowerExpr(e, en);
                                }});
    case K::If: {
      ExprEnv en = env();
      auto m = newStmt(ir::MStmt::Kind::If, s.loc);
      m->cond = lowerCondExpr(*s.cond, en, "'if' condition");
      m->thenS = block(s.body, s.loc);
      if (s.hasElse) m->elseS = block(s.elseBody, s.loc);
      return m->cond ? m : nullptr;
    }
    case K::Let: {
      ExprEnv en = env();
      ir::Expr v = lowerExpr(*s.value, en);
      if (v) declareNew(s.name, {Binding::Kind::Let, nullptr, v, s.name.loc});
      return nullptr;
    }
    case K::Require: {
      ExprEnv en = env();
      ir::Expr c = lowerCondExpr(*s.cond, en, "'require' condition");
      if (!c) return nullptr;
      bool pure = true;
      ir::visitExpr(c, [&](const ir::Expr &x) {
        pure &= x->kind != ir::ExprKind::Load && !(x->kind == ir::ExprKind::Var && x->varKind == ir::VarKind::Loop);
      });
      if (!pure)
        diags_.error(s.loc, "'require' may only mention symbols, scalar parameters, holes and 'let' values, not "
                            "loop variables or tensor elements");
      else
        kernel_->requires_.push_back({c, s.loc});
      return nullptr;
    }
    }
    return nullptr;
  }
};

} // namespace

ir::KernelPtr checkKernel(const ast::KernelDecl &decl, const std::map<std::string, OpEntry> &ops,
                          DiagEngine &diags) {
  auto op = ops.find(decl.op.name);
  if (op == ops.end()) {
    std::vector<std::string> names;
    for (const auto &[n, e] : ops) names.push_back(n);
    diags.error(decl.op.loc, "kernel '" + decl.name + "' implements unknown op '" + decl.op.name + "'" +
                                 didYouMean(decl.op.name, names));
    return nullptr;
  }
  auto target = ir::parseTargetFamily(decl.target.name);
  if (!target) {
    diags.error(decl.target.loc, "unknown target '" + decl.target.name + "' (expected cpu, cuda or sunway)" +
                                     didYouMean(decl.target.name, {"cpu", "cuda", "sunway"}));
    return nullptr;
  }
  return KernelChecker(decl, op->second, *target, diags).run();
}

} // namespace tk::sema
