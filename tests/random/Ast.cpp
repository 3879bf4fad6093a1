#include "tests/random/Ast.h"

namespace tk::randprog {

std::shared_ptr<Node> makeNode(NodeKind kind, std::string op, std::vector<NodePtr> args) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->op = std::move(op);
  n->args = std::move(args);
  return n;
}

NodePtr lit(std::string text) { return makeNode(NodeKind::Lit, std::move(text), {}); }
NodePtr name(std::string n) { return makeNode(NodeKind::Name, std::move(n), {}); }
NodePtr unary(std::string op, NodePtr a) { return makeNode(NodeKind::Unary, std::move(op), {a}); }
NodePtr binary(std::string op, NodePtr a, NodePtr b) {
  return makeNode(NodeKind::Binary, std::move(op), {a, b});
}
NodePtr call(std::string fn, std::vector<NodePtr> args) {
  return makeNode(NodeKind::Call, std::move(fn), std::move(args));
}

namespace {

bool atomicText(const std::string &s) {
  for (char c : s)
    if (c == ' ' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%') return false;
  return true;
}

std::string print(const Node &n, const Subst &s);

// Operands of operators are parenthesized unless they are atomic; the body
// of a reduction extends as far right as possible, so a reduction operand
// always gets parentheses.
std::string operand(const Node &n, const Subst &s) {
  std::string t = print(n, s);
  bool paren = false;
  switch (n.kind) {
  case NodeKind::Binary:
  case NodeKind::Unary:
  case NodeKind::Reduce: paren = true; break;
  case NodeKind::Lit: paren = !t.empty() && t[0] == '-'; break;
  case NodeKind::Name: paren = !atomicText(t); break;
  case NodeKind::Read: paren = !n.elseText.empty() && n.parenRead; break;
  case NodeKind::Slot: paren = !atomicText(t) && t.back() != ']'; break;
  case NodeKind::Call: break;
  }
  return paren ? "(" + t + ")" : t;
}

std::string print(const Node &n, const Subst &s) {
  switch (n.kind) {
  case NodeKind::Lit: return n.op;
  case NodeKind::Name: {
    auto it = s.find(n.op);
    return it == s.end() ? n.op : it->second;
  }
  case NodeKind::Read: {
    std::string t = n.tensor;
    if (!n.args.empty() || n.brackets) {
      t += '[';
      for (size_t i = 0; i < n.args.size(); ++i) t += (i ? ", " : "") + print(*n.args[i], s);
      t += ']';
    }
    if (!n.elseText.empty()) t += " else " + n.elseText;
    return t;
  }
  case NodeKind::Unary: return n.op + operand(*n.args[0], s);
  case NodeKind::Binary: return operand(*n.args[0], s) + " " + n.op + " " + operand(*n.args[1], s);
  case NodeKind::Call: {
    std::string t = n.op + "(";
    for (size_t i = 0; i < n.args.size(); ++i) t += (i ? ", " : "") + print(*n.args[i], s);
    return t + ")";
  }
  case NodeKind::Reduce: {
    std::string t = n.op + "(";
    for (size_t i = 0; i < n.rvars.size(); ++i) {
      t += (i ? ", " : "") + n.rvars[i].name;
      if (!n.rvars[i].explicitExtent.empty()) t += " < " + n.rvars[i].explicitExtent;
    }
    return t + ") " + print(*n.args[0], s);
  }
  case NodeKind::Slot: {
    auto it = s.find("@slot");
    return it == s.end() ? operand(*n.args[0], s) : it->second;
  }
  }
  return "";
}

} // namespace

std::string printExpr(const Node &n, const Subst &subst) { return print(n, subst); }

void collectAnchors(const Node &n, std::set<std::string> &out) {
  if (n.kind == NodeKind::Read && n.elseText.empty())
    for (const NodePtr &i : n.args)
      if (i->kind == NodeKind::Name) out.insert(i->op);
  for (const NodePtr &a : n.args) collectAnchors(*a, out);
}

NodePtr findSlot(const NodePtr &n) {
  if (n->kind == NodeKind::Slot) return n->args[0];
  for (const NodePtr &a : n->args)
    if (NodePtr s = findSlot(a)) return s;
  return nullptr;
}

} // namespace tk::randprog
