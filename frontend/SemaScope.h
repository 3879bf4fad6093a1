// SemaScope: what a name means at one point of an op or kernel (tensor,
// symbol or scalar parameter, index/loop variable, `let` binding), with
// nested blocks, plus spelling suggestions for unknown names.
#pragma once
#include "ir/Expr.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::sema {

struct Binding {
  enum class Kind { Tensor, Symbol, Index, Loop, Let } kind;
  ir::TensorPtr tensor; // Tensor
  ir::Expr value;       // the variable (Symbol/Index/Loop) or the bound expression (Let)
  SourceLoc loc;
  bool assigned = true; // Tensor: an op output is readable only after its first assignment
};

class Scope {
public:
  Scope() : levels_(1) {}
  void push() { levels_.emplace_back(); }
  // Returns the names declared in the level that ends.
  std::vector<std::pair<std::string, Binding>> pop();
  // False (nothing declared) when the name is already declared in the
  // innermost level; `previous` then receives that binding.
  bool declare(const std::string &name, Binding b, Binding *previous = nullptr);
  Binding *lookup(const std::string &name);
  // Names visible now, optionally only those of one kind.
  std::vector<std::string> visibleNames(std::optional<Binding::Kind> kind = std::nullopt) const;

private:
  std::vector<std::map<std::string, Binding>> levels_;
};

// The candidate closest to `name` by edit distance when it is close enough
// to be a plausible typo, else "".
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);
// "; did you mean 'x'?" or "".
std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates);
// "3:14" for messages that point at a second location in the same file.
std::string lineCol(SourceLoc loc);

} // namespace tk::sema
