// Reference interpreter for the tensor IR: evaluates what an `op` means,
// independently of any schedule, so that compiled kernels can be checked
// against it (tests/e2e) and so that unit tests can state semantics directly.
//
// Semantics implemented here (docs/language.md, docs/abi.md "Types"):
//  - arithmetic in double precision; integers exactly, wrapping at their
//    width like the compiled code; integer / and % are floor division /
//    modulo and cdiv ceiling division; division by zero and a type's
//    minimum divided by -1 (undefined in the compiled code) throw
//    std::domain_error; float min / max let a NaN operand lose (minnum);
//  - casts and stores convert to the target dtype as docs/abi.md says:
//    integer -> narrower integer wraps; float -> integer truncates toward
//    zero and saturates at the type's range, NaN gives 0; anything -> bool
//    is `!= 0` (NaN is true); -> f32 / f64 rounds to nearest even once;
//    -> f16 / bf16 rounds to f32 first, then to nearest even;
//  - reductions start from their identity (sum 0, prod 1, max -inf, min +inf;
//    the integer limits for integer reductions), so an empty domain gives it;
//  - a load outside its tensor yields its `else` value; one with a false
//    scheduler guard (`pred`) yields the `else` value or 0;
//  - statements run in order; each one evaluates its whole right-hand side
//    before writing its target (whole-tensor assignment).
// Run-time checks follow the C ABI (docs/abi.md): a negative shape symbol, a
// false `where` constraint or a negative derived extent gives status 1 and
// computes nothing.
#pragma once
#include "ir/TensorIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::ir {

// The run-time arguments of one call, by name.
struct InterpArgs {
  std::map<std::string, int64_t> symbols;              // shape symbols (Op::symbols)
  std::map<std::string, double> scalars;               // scalar parameters (integers too)
  std::map<std::string, std::vector<double>> tensors;  // input tensors, row-major
};

struct InterpResult {
  int status = 0;            // 0 = ok, 1 = a symbol, `where` constraint or derived extent failed
  int failedWhere = -1;      // index into Op::where of the first false constraint, else -1
  std::string message;       // why status != 0
  // Extents of every input, output and intermediate tensor.
  std::map<std::string, std::vector<int64_t>> shapes;
  // Values of every output and intermediate (interpret only), row-major.
  std::map<std::string, std::vector<double>> tensors;
  // Per element of `tensors`: a first-order bound on how far a correct
  // implementation that computes in the IR's dtypes may be from the value
  // (running error analysis, Higham ch. 3): every rounding of a result v in
  // dtype T adds u_T*|v| (u = 2^-24 for f32, 2^-11 f16, 2^-8 bf16, 2^-53 f64;
  // library calls such as exp/erf count 8 u_T), errors propagate through
  // arithmetic by their derivatives, and an n-term sum adds n*u_T*sum|terms|
  // (the recursive-summation bound, valid for any summation order).
  std::map<std::string, std::vector<double>> errorBounds;
};

// Checks the `where` constraints and computes the extents of every tensor of
// `op` from symbol and scalar values alone (no tensor data needed).
// Requires every symbol and scalar parameter of `op` in `args`; a missing one
// throws std::invalid_argument.
InterpResult computeShapes(const Op &op, const InterpArgs &args);

// computeShapes, then (on status 0) evaluates the body. Requires every input
// tensor in `args` with exactly as many elements as its shape says, else
// throws std::invalid_argument; integer division by zero in the body throws
// std::domain_error; an out-of-range load without an `else` value (which the
// frontend rules out) throws tk::InternalError.
InterpResult interpret(const Op &op, const InterpArgs &args);

// Rounds `v` once to the precision and range of `t`, as a literal or an
// input element is: floats to nearest even (overflow gives inf), integers
// as a float -> integer cast (truncated, saturated, NaN 0), bool `v != 0`.
double roundToType(double v, ScalarType t);

// The unit roundoff of a floating-point type (0 for integer types).
double unitRoundoff(ScalarType t);

} // namespace tk::ir
