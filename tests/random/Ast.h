// Expression trees of generated programs, printed as .tk source. The same
// tree prints as an op body and, with index variables substituted by a
// kernel's index expressions and the reduction replaced by its
// accumulator, as the statements of a kernel implementing the op.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tk::randprog {

enum class NodeKind { Lit, Name, Read, Unary, Binary, Call, Reduce, Slot };

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct ReduceVar {
  std::string name;
  std::string explicitExtent; // `k < E` when non-empty
  std::string extent;         // the range, written or inferred
};

struct Node {
  NodeKind kind = NodeKind::Lit;
  std::string op;             // literal text, name, operator, function or reducer
  std::vector<NodePtr> args;  // operands; a Read's indices; a Reduce's body; a Slot's reduction
  std::string tensor;         // Read
  std::string elseText;       // Read: the `else` value, empty for none
  bool brackets = true;       // Read of a rank-0 tensor: `t[]` or `t`
  bool parenRead = false;     // Read with `else` as an operand: `(X[i] else 0) + 1`
  std::vector<ReduceVar> rvars;
  std::string valueType;      // Reduce: the element type of its value ("f32", ...)
};

std::shared_ptr<Node> makeNode(NodeKind kind, std::string op, std::vector<NodePtr> args);
NodePtr lit(std::string text);
NodePtr name(std::string n);
NodePtr unary(std::string op, NodePtr a);
NodePtr binary(std::string op, NodePtr a, NodePtr b);
NodePtr call(std::string fn, std::vector<NodePtr> args);

// Names replaced while printing: index variables by kernel index
// expressions, and "@slot" (the op's one reduction) by an accumulator.
using Subst = std::map<std::string, std::string>;

std::string printExpr(const Node &n, const Subst &subst = {});

// Variables used alone as an index of a read without `else`: the ones whose
// range the language infers from the tree (docs/language.md §3.1).
void collectAnchors(const Node &n, std::set<std::string> &out);
// The reduction of a kernel-mode statement (its Slot's child), or null.
NodePtr findSlot(const NodePtr &n);

} // namespace tk::randprog
