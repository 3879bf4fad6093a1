// Integer arithmetic of the language's semantics (floor division and
// modulo, ceiling division) on compile-time constants, checked: a result
// that does not fit the expression's type, or a division by zero, is
// reported instead of wrapping or trapping (INT64_MIN / -1 raises SIGFPE
// on x86). Every pass that folds integer constants goes through these, so
// a fold is either exact or not done; the frontend turns a failure in a
// constant expression into a located error (docs/language.md).
#pragma once
#include "ir/Expr.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tk::ir {

enum class FoldError { None, Overflow, DivisionByZero };

struct FoldResult {
  int64_t value = 0;
  FoldError error = FoldError::None;
  bool ok() const { return error == FoldError::None; }
};

// `a op b` for op in + - * / % cdiv min max, with the result checked
// against the range of `t` (i8, i32, i64; bool: 0 or 1; a float type as
// i64). Other operators give FoldError::Overflow with value 0: callers
// only fold the ones listed.
FoldResult foldIntBinary(BinOp op, int64_t a, int64_t b, ScalarType t = ScalarType::I64);
// -a and |a| in type t.
FoldResult foldIntNeg(int64_t a, ScalarType t = ScalarType::I64);
FoldResult foldIntAbs(int64_t a, ScalarType t = ScalarType::I64);

// Whether v is in the range of integer type t (i8, i32, i64; bool: 0/1).
bool fitsIntType(int64_t v, ScalarType t);
// v converted to integer type t by an explicit cast: two's-complement
// truncation, like the generated code's (bool: v != 0).
int64_t wrapToIntType(int64_t v, ScalarType t);

// Convenience for passes: the checked sum and product in int64 (nullopt on
// overflow), e.g. a linear form's coefficients or a buffer's element count.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

// The message a front end prints for `e`, e.g. "integer overflow in
// constant expression: 4611686018427387904 * 4 does not fit in i64".
std::string foldErrorMessage(FoldError err, const std::string &expr, ScalarType t);

} // namespace tk::ir
