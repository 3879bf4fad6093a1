// Op declarations -> tensor IR: signature (inputs, scalar parameters, shape
// symbols, outputs, `where`) and index-notation body with range inference.
#include "frontend/PrintAST.h"
#include "frontend/Sema.h"
#include "frontend/SemaExpr.h"

#include <fmt/format.h>

#include <functional>
#include <set>

namespace tk::sema {

namespace {

void collectNames(const ast::Expr &e, std::vector<const ast::Expr *> &out) {
  if (e.kind == ast::ExprKind::Name) out.push_back(&e);
  for (const auto &a : e.args) collectNames(*a, out);
  if (e.pad) collectNames(*e.pad, out);
}

class OpChecker {
public:
  OpChecker(const ast::OpDecl &decl, DiagEngine &diags) : decl_(decl), diags_(diags) {
    entry_.op = std::make_shared<ir::Op>();
    entry_.op->name = decl.name;
    entry_.op->loc = decl.loc;
    entry_.decl = &decl;
  }

  OpEntry run() {
    signature();
    for (const auto &s : decl_.body)
      if (!diags_.errorLimitReached()) statement(*s);
    for (const ir::TensorPtr &t : entry_.op->outputs)
      if (!scope_.lookup(t->name)->assigned) diags_.error(t->loc, "output '" + t->name + "' is never assigned");
    return std::move(entry_);
  }

private:
  const ast::OpDecl &decl_;
  DiagEngine &diags_;
  OpEntry entry_;
  Scope scope_;
  std::set<std::string> inferredShape_; // outputs declared without a shape, not yet assigned

  bool declare(const std::string &name, Binding b) {
    Binding prev;
    SourceLoc loc = b.loc;
    if (scope_.declare(name, std::move(b), &prev)) return true;
    diags_.error(loc, "duplicate definition of '" + name + "' (first defined at " + lineCol(prev.loc) + ")");
    return false;
  }

  std::optional<ir::ScalarType> dtype(const ast::TypeRef &t) {
    if (auto st = ir::parseScalarType(t.dtype)) return st;
    diags_.error(t.loc, "unknown type '" + t.dtype + "'" +
                            didYouMean(t.dtype, {"f16", "bf16", "f32", "f64", "i8", "i32", "i64", "bool"}));
    return std::nullopt;
  }

  std::vector<ir::Expr> shape(const ast::TypeRef &t) {
    ExprEnv env{ExprEnv::Mode::Signature, scope_, diags_, {}, nullptr};
    std::vector<ir::Expr> out;
    for (const auto &d : t.shape) {
      ir::Expr x = lowerIntExpr(*d, env, "extent");
      out.push_back(x ? x : ir::intImm(0));
    }
    return out;
  }

  void signature() {
    ir::Op &op = *entry_.op;
    // Scalar parameters first: a shape may mention one declared after it.
    for (const ast::Param &p : decl_.inputs) {
      if (p.type.hasShape) continue;
      ir::ScalarType t = dtype(p.type).value_or(ir::ScalarType::I64);
      declare(p.name, {Binding::Kind::Symbol, nullptr, ir::var(p.name, ir::VarKind::Symbol, t, p.loc), p.loc});
    }
    // Every other identifier in an input shape introduces a shape symbol.
    for (const ast::Param &p : decl_.inputs) {
      std::vector<const ast::Expr *> names;
      for (const auto &d : p.type.shape) collectNames(*d, names);
      for (const ast::Expr *n : names) {
        if (scope_.lookup(n->name)) continue;
        scope_.declare(n->name, {Binding::Kind::Symbol, nullptr, ir::var(n->name, ir::VarKind::Symbol), n->loc});
        op.symbols.push_back(n->name);
      }
    }
    for (const ast::Param &p : decl_.inputs) {
      ir::Param param{p.name, dtype(p.type).value_or(ir::ScalarType::F32), nullptr, p.loc};
      if (p.type.hasShape) {
        auto t = std::make_shared<ir::TensorDecl>();
        t->name = p.name;
        t->dtype = param.type;
        t->shape = shape(p.type);
        t->role = ir::TensorRole::Input;
        t->loc = p.loc;
        param.tensor = t;
        declare(p.name, {Binding::Kind::Tensor, t, nullptr, p.loc});
      }
      op.inputs.push_back(param);
    }
    for (const ast::Param &p : decl_.outputs) {
      auto t = std::make_shared<ir::TensorDecl>();
      t->name = p.name;
      t->dtype = dtype(p.type).value_or(ir::ScalarType::F32);
      t->role = ir::TensorRole::Output;
      t->loc = p.loc;
      if (p.type.hasShape) t->shape = shape(p.type);
      else inferredShape_.insert(p.name);
      op.outputs.push_back(t);
      Binding b{Binding::Kind::Tensor, t, nullptr, p.loc};
      b.assigned = false;
      declare(p.name, b);
    }
    ExprEnv env{ExprEnv::Mode::Signature, scope_, diags_, {}, nullptr};
    for (const auto &w : decl_.where)
      if (ir::Expr c = lowerCondExpr(*w, env, "'where' constraint")) op.where.push_back({c, w->loc});
  }

  void statement(const ast::Stmt &s) {
    if (s.kind != ast::Stmt::Kind::Store) {
      diags_.error(s.loc, "only assignments 'T[i, j] = expr;' are allowed in an op body; loops, local tensors, "
                          "'let', 'if' and the like belong in a kernel");
      return;
    }
    if (s.accum != "=") {
      diags_.error(s.loc, "'" + s.accum + "' is not allowed in an op body: assign with '=' and write reductions "
                          "as sum(k) ..., max(k) ...");
      return;
    }
    if (!s.hint.name.empty()) {
      diags_.error(s.hint.loc, "a store hint ('" + s.hint.name + "') belongs in a kernel, not in an op body");
      return;
    }
    Binding *tb = scope_.lookup(s.target.name);
    if (tb && tb->kind == Binding::Kind::Tensor && !tb->tensor) return; // failed definition, already reported
    // Whatever happens below, later statements treat the target as defined,
    // so one mistake does not cascade into "unknown tensor" errors.
    struct MarkDefined {
      Scope &scope;
      const std::string &name;
      ~MarkDefined() {
        if (Binding *b = scope.lookup(name)) b->assigned = true;
        else scope.declare(name, {Binding::Kind::Tensor, nullptr, nullptr, {}});
      }
    } markDefined{scope_, s.target.name};
    ir::TensorPtr target;
    bool known = false; // shape known before this statement
    if (tb) {
      if (tb->kind != Binding::Kind::Tensor) {
        diags_.error(s.target.loc, "cannot assign to '" + s.target.name + "': it is not a tensor");
        return;
      }
      target = tb->tensor;
      if (target->role == ir::TensorRole::Input) {
        diags_.error(s.target.loc, "cannot assign to input '" + s.target.name + "': inputs are read-only");
        return;
      }
      known = !inferredShape_.count(target->name);
      if (known && s.indices.size() != target->rank()) {
        diags_.error(s.target.loc, "'{}' has rank {} but is assigned with {} {}", target->name, target->rank(),
                     s.indices.size(), s.indices.size() == 1 ? "index" : "indices");
        return;
      }
    }

    scope_.push();
    std::vector<ir::IndexVar> vars;
    std::vector<ir::Expr> bounds; // explicit ranges `i < E`, null where inferred
    bool ok = true;
    for (const auto &full : s.indices) {
      // `T[i, y < OH] = ...` gives y's range explicitly, as `sum(r < R)`
      // does for a reduction variable: for intermediates whose variables
      // appear only in compound indices (an img2col buffer).
      const ast::Expr *idx = full.get();
      ir::Expr bound;
      if (idx->kind == ast::ExprKind::Binary && idx->op == "<" && idx->args[0]->kind == ast::ExprKind::Name) {
        ExprEnv sig{ExprEnv::Mode::Signature, scope_, diags_, {}, nullptr};
        bound = lowerIntExpr(*idx->args[1], sig, "index range");
        ok &= bound != nullptr; // the variable is still declared: no cascade of unknown names
        idx = idx->args[0].get();
      }
      if (idx->kind != ast::ExprKind::Name) {
        diags_.error(idx->loc, "only plain index variables can appear on the left-hand side of an op statement, "
                               "not '" + printASTExpr(*idx) + "'");
        ok = false;
        continue;
      }
      Binding *outer = scope_.lookup(idx->name);
      if (outer && outer->kind != Binding::Kind::Index) {
        diags_.error(idx->loc, "'" + idx->name + "' is already a " +
                                   (outer->kind == Binding::Kind::Tensor ? "tensor" : "symbol or scalar parameter") +
                                   " and cannot be used as an index variable");
        ok = false;
        continue;
      }
      if (!scope_.declare(idx->name, {Binding::Kind::Index, nullptr, ir::var(idx->name, ir::VarKind::Index), idx->loc})) {
        diags_.error(idx->loc, "index variable '" + idx->name + "' appears twice on the left-hand side");
        ok = false;
        continue;
      }
      vars.push_back({idx->name, nullptr, idx->loc});
      bounds.push_back(bound);
    }
    ExprEnv env{ExprEnv::Mode::OpBody, scope_, diags_, {}, nullptr};
    ir::Expr value = lowerExpr(*s.value, env);
    scope_.pop();
    if (!ok || !value) return;

    for (size_t d = 0; d < vars.size(); ++d) {
      std::vector<RangeUse> mine;
      for (const RangeUse &u : env.uses)
        if (u.var == vars[d].name) mine.push_back(u);
      ir::Expr declared = known ? target->shape[d] : nullptr;
      bool output = known && target->role == ir::TensorRole::Output;
      std::string what = known ? fmt::format("dimension {} of {}{}{}", d + 1, output ? "output " : "", target->name,
                                             output ? " (as declared)" : "")
                               : "";
      if (bounds[d] && declared)
        mine.push_back({vars[d].name, bounds[d], vars[d].loc, "the range " + vars[d].name + " < " + ir::printExpr(bounds[d]), false});
      else if (bounds[d]) {
        declared = bounds[d];
        what = "the range " + vars[d].name + " < " + ir::printExpr(bounds[d]);
      }
      vars[d].extent = resolveRange(vars[d].name, vars[d].loc, mine, declared, what, false, diags_);
      ok &= vars[d].extent != nullptr;
    }
    if (!ok) return;

    if (!target) {
      target = std::make_shared<ir::TensorDecl>();
      target->name = s.target.name;
      target->dtype = value->type;
      target->role = ir::TensorRole::Intermediate;
      target->loc = s.target.loc;
      for (const ir::IndexVar &v : vars) target->shape.push_back(v.extent);
      entry_.op->intermediates.push_back(target);
      entry_.intermediateNames.push_back(target->name);
      scope_.declare(target->name, {Binding::Kind::Tensor, target, nullptr, s.target.loc});
    } else if (!known) {
      for (const ir::IndexVar &v : vars) target->shape.push_back(v.extent);
      inferredShape_.erase(target->name);
    }
    value = convertForStore(value, target->dtype, target->name, s.value->loc, diags_);
    if (!value) return;
    entry_.op->body.push_back({target, std::move(vars), value, s.loc});
  }
};

} // namespace

OpEntry checkOp(const ast::OpDecl &decl, DiagEngine &diags) { return OpChecker(decl, diags).run(); }

} // namespace tk::sema
