// EnclosingSerialLoops: the variables of the serial loops around the point
// a loop-IR walk has reached — what VersionFullTiles and PartitionLoops
// take as fixed for one run of the nest below (a parallel task or a let is
// a tile position, not a loop of its own).
#pragma once
#include "ir/LoopIR.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tk {

class EnclosingSerialLoops {
public:
  const std::set<std::string> &names() const { return names_; }

  // Call from a LoopVisitor's or LoopMutator's enterScope / leaveScope:
  // a For that is not parallel adds its variable; other statements nothing.
  void enterScope(const ir::LStmt &s) {
    if (serial(s)) push(s.var);
  }
  void leaveScope(const ir::LStmt &s) {
    if (serial(s)) pop();
  }

  // Around a loop a pass descends into by hand. A name already there (a
  // shadowing loop) stays until its outer loop is left.
  void push(const std::string &var) { stack_.push_back({var, names_.insert(var).second}); }
  void pop() {
    if (stack_.back().second) names_.erase(stack_.back().first);
    stack_.pop_back();
  }

private:
  static bool serial(const ir::LStmt &s) { return s.kind == ir::LStmt::Kind::For && s.forKind != ir::ForKind::Parallel; }
  std::set<std::string> names_;
  std::vector<std::pair<std::string, bool>> stack_; // each push: its variable, and whether it added it
};

} // namespace tk
