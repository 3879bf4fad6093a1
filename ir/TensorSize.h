// Byte sizes of tensors and the limits every target shares. A tensor's
// size is its element size times the product of its extents; computed in
// int64 it can wrap (f32[4611686018427387904] is 2^64 bytes, i.e. 0), so
// every size is computed here with overflow checks: the frontend refuses
// constant sizes beyond the limits with a located error, and the backends
// allocate symbolic ones only after a checked multiplication (status 3 on
// overflow, docs/abi.md).
#pragma once
#include "ir/Expr.h"
#include "ir/PrintTypes.h"

#include <cstdint>

namespace tk::ir {

// No tensor may take more than 2^47 bytes (128 TiB): the user address space
// of x86-64 and the most tkrt_alloc hands out (docs/abi.md).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 47;
// A `register` or `local` tensor of constant size lives on the stack of the
// thread that runs it; the frontend refuses larger ones (declare them
// `global`), and the x86 backend puts larger generated ones on the heap.
constexpr int64_t kMaxStackTensorBytes = int64_t(1) << 20;

struct ConstantSize {
  bool known = false;    // every extent is an integer constant (after simplify)
  bool tooLarge = false; // the constant extents alone exceed kMaxTensorBytes
  int64_t bytes = 0;     // when known and not tooLarge (negative extents count as 0)
};

// What can be said about `t`'s size at compile time. The constant extents
// are multiplied as max(extent, 1), so a product whose prefix overflows is
// too large even when a later extent is 0.
ConstantSize constantSize(const TensorDecl &t);

} // namespace tk::ir
