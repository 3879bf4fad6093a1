// ConvolutionRoles: what each part of a windowed contraction's statement
// is (image, filter, the filter's and the innermost output index, window
// and channel reduction variables), read from the index expressions, and
// when its pixels can be read as one flat row per channel. Shared by the
// versions ConstructConvolution builds.
#pragma once
#include "ir/TensorIR.h"

#include <optional>
#include <string>
#include <vector>

namespace tk {

struct ConvolutionRoles {
  const ir::Assign *a = nullptr;
  ir::Expr img, filt;
  bool imgFirst = true;
  size_t fDim = 0, xDim = 0;
  std::vector<ir::IndexVar> kOrder;   // window reduction variables, then the others
  size_t windowVars = 0;              // how many of kOrder are window variables
  std::vector<std::string> unitParams; // scalar parameters the fast path fixes to 1
};

// True, filling `out` when non-null, when `op` is a windowed contraction
// (the conditions listed at constructConvolutionApplies); otherwise false
// and why (when `reason` is non-null).
bool analyseConvolution(const ir::Op &op, ConvolutionRoles *out, std::string *reason);

// The flat pixel version's substitutions and run-time condition.
struct FlatPixels {
  std::vector<std::pair<std::string, ir::Expr>> values; // window variables 0, scalars 1 or 0
  ir::Expr cond;                                        // null: always applies
};

// When the window variables are 0 (extents 1), the scalars multiplying an
// index variable in the image's last two indices are 1 and the scalars
// added there are 0, those indices are the output's own (y, x); if the
// image and output rows then also have the same length and count, pixel
// (y, x) of both is element y*W + x of one contiguous row per channel, and
// the convolution is a matmul over that row. `img` is the image factor of
// the unit-stride version, `given` the values its `if` already tests;
// nullopt when it cannot become (y, x), there is no y (rank-2 output) or
// no channel loop.
std::optional<FlatPixels> flatPixels(const ir::Op &op, const ConvolutionRoles &r, const ir::Expr &img,
                                     const std::vector<std::pair<std::string, ir::Expr>> &given);

} // namespace tk
