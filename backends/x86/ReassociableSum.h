// Sums into one register element whose summand is any element-wise
// expression — softmax's `acc = acc + exp(X[i, j] - m[i])`, layernorm's
// squared deviations — which VectorReduction's explicit vector code does
// not cover (it takes loads and products of loads):
//
//   for j in ..
//     acc[idx] = acc[idx] + E      (acc a register tensor, idx ignores j, no guard)
//
// The loop is emitted as scalar code whose accumulating add may be
// reassociated (that add only: E keeps strict semantics, which the inline
// exp's range reduction needs), so LLVM's loop vectorizer keeps several
// vector partial sums. The e2e tolerance bounds any summation order.
#pragma once
#include "backends/x86/CodegenContext.h"

namespace tk::x86 {

// The accumulating store of such a loop, or null (with `*reason` set when
// given). Pure analysis.
const ir::LStmt *matchReassociableSum(const ir::LStmt &loop, std::string *reason = nullptr);

// Emits `loop` (accepted by matchReassociableSum, with `store` its result)
// at the builder's insertion point.
void emitReassociableSum(CodegenContext &cg, const ir::LStmt &loop, const ir::LStmt &store);

} // namespace tk::x86
