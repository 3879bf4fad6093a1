// Loop-IR statements whose translation is the same on every target: stores,
// conditionals and lets. Loops, allocations, checks and barriers differ
// between targets and stay in each backend, which passes its own statement
// lowering as `lowerBody` for nested statements.
#pragma once
#include "backends/common/CodegenContext.h"

namespace tk::codegen {

using StmtLowering = std::function<void(const ir::LStmtPtr &)>;

// t[indices] = value, only when `pred` holds (if any).
void lowerStore(CodegenContext &cg, const ir::LStmt &s);

// if (cond) thenS else elseS.
void lowerIf(CodegenContext &cg, const ir::LStmt &s, const StmtLowering &lowerBody);

// let var = value in body.
void lowerLet(CodegenContext &cg, const ir::LStmt &s, const StmtLowering &lowerBody);

} // namespace tk::codegen
