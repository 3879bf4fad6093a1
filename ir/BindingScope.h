// BindingScope: what is bound at a point of an IR tree while a visitor or
// mutator (ir/IRVisitor.h, ir/IRMutator.h) walks it — the variables that
// loops, lets, task mappings and reductions bind around the node, and the
// tensors allocated around it. (Named so as not to clash with ir::Scope,
// the memory scope of a buffer.)
#pragma once
#include "ir/Expr.h"

#include <string>
#include <string_view>
#include <vector>

namespace tk::ir {

// What binds a variable.
enum class BindingKind {
  Outer,  // bound outside the walked tree (a pass binds its function's symbols)
  Loop,   // LStmt For, MStmt SeqFor
  Let,    // LStmt Let
  Mapped, // a variable of an MStmt MapFor
  Reduce  // a reduction variable of a Reduce expression
};

struct Binding {
  std::string name;
  BindingKind kind;
};

class BindingScope {
public:
  // True when `name` is bound around the current node (by any binder).
  bool hasVar(std::string_view name) const { return lookup(name) != nullptr; }
  // The innermost binding of `name`; null when it is unbound.
  const Binding *lookup(std::string_view name) const;
  // Every binding, outermost first; a shadowed name appears more than once.
  const std::vector<Binding> &vars() const { return vars_; }

  // True when `t` is allocated around the current node.
  bool hasTensor(const TensorDecl *t) const;
  // The allocated tensors, outermost first.
  const std::vector<TensorPtr> &tensors() const { return tensors_; }

  // For walkers (and passes binding outer names before a walk): bindings
  // are undone innermost first, by popping back to an earlier size.
  void bindVar(std::string name, BindingKind kind) { vars_.push_back({std::move(name), kind}); }
  void popVars(size_t size) { vars_.resize(size); }
  void bindTensor(TensorPtr t) { tensors_.push_back(std::move(t)); }
  void popTensors(size_t size) { tensors_.resize(size); }

private:
  std::vector<Binding> vars_;
  std::vector<TensorPtr> tensors_;
};

} // namespace tk::ir
