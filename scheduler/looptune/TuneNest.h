// The loop nest LoopTune tunes: one op statement `T[vars] = value` (a plain
// expression or one sum/max/min reduction of a reduction-free body) over
// constant extents, scheduled as an ordered list of loops over its index
// variables, plus the agent's cursor. A variable may be split into several
// loops (outer to inner, decreasing steps, the innermost with step 1); loop
// sizes and tails follow from the steps (docs/looptune.md).
#pragma once
#include "ir/TensorIR.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::looptune {

inline constexpr int kMaxLoops = 10;

struct NestVar {
  std::string name;
  int64_t extent = 0;
  bool reduction = false; // a reduction variable (not an index of the target)
};

struct NestLoop {
  int var = 0;      // index into TuneNest::vars
  int64_t step = 1; // elements of `var` one iteration advances
};

struct TuneNest {
  ir::OpPtr op;               // the op; its single statement is the computation
  std::vector<NestVar> vars;  // target's index variables, then reduction variables
  std::vector<NestLoop> loops; // outermost first
  int cursor = 0;             // index into loops
};

// The nest of `op` in its initial order (target variables in order, then the
// reduction variables; one loop each, cursor on the outermost loop), or
// nullopt with *reason when the op is not tunable: more than one statement
// or an intermediate, scalar parameters, non-constant extents, a reduction
// that is not the whole value or whose body reduces again, or a reduction
// other than sum/max/min.
std::optional<TuneNest> extractTuneNest(const ir::OpPtr &op, std::string *reason);

// The range of `var` the loop at `l` iterates over: the step of the next
// enclosing loop over the same variable, or the variable's extent.
int64_t enclosingRange(const TuneNest &n, int l);
// Iterations of loop `l` (ceil(range / step)).
int64_t loopSize(const TuneNest &n, int l);
// Elements of the last, partial iteration of loop `l` (0 when the step divides the range).
int64_t loopTail(const TuneNest &n, int l);

// Floating-point operations of one execution (2 per multiply-add of a sum
// of products, else 1 per reduction step or output element).
double nestFlops(const TuneNest &n);

// A one-line text form, e.g. `i k >j@16 j`: loops outermost first by
// variable, `@S` for a step S other than 1, `>` before the cursor's loop.
// Nests of one op print equally exactly when they are equal.
std::string printNest(const TuneNest &n);

} // namespace tk::looptune
