// SemaConstant: integer constant expressions in the frontend. Every
// arithmetic node the expression lowering builds from constant operands is
// folded here with overflow checks (ir/IntArith.h), so `(-9223372036854775807
// - 1) / (-1)`, `4611686018427387904 * 4` or an i32 `2147483647 + 1` is a
// located error instead of a crash (SIGFPE) or a silent wrap in a later
// pass. The IR keeps the unfolded nodes; only the check happens here.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/Expr.h"

#include <optional>
#include <unordered_map>

namespace tk::sema {

class ConstantChecker {
public:
  explicit ConstantChecker(DiagEngine &diags) : diags_(diags) {}

  // Takes a node just built from already checked operands. Returns false
  // after reporting an error at the node when it is an integer constant
  // expression whose value does not fit its type, divides by zero, or
  // uses an integer literal out of its (adopted) type's range.
  bool check(const ir::Expr &e);

  // The value of an integer constant expression (literals combined by
  // + - * / % cdiv min max abs, unary minus and integer casts), or nullopt
  // (not constant, or not representable). Memoized per node.
  std::optional<int64_t> value(const ir::Expr &e);

private:
  DiagEngine &diags_;
  std::unordered_map<const ir::ExprNode *, std::optional<int64_t>> memo_;
};

// The value of an integer literal in type `t` (after a literal adopted the
// type of the other operand or of a store), checked: reports "integer
// literal 300 does not fit in i8" and returns false when it does not fit.
bool checkLiteralFits(const ir::Expr &literal, DiagEngine &diags);

} // namespace tk::sema
