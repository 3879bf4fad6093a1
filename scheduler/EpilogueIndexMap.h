// EpilogueIndexMap: the index map of an epilogue's read of the anchor's
// tensor, and its inverse (docs/fusion.md). An epilogue `E[v...] =
// g(T[...])` is applied at the anchor's store of T, so each element the
// anchor stores must name exactly one element of E: the read must be a
// bijection from E's index space onto T's. The maps recognised are the
// mixed-radix flattenings: each index of the read is a sum of distinct
// index variables of the statement times strides 1, e1, e1*e2, ... (the
// extents of the variables inside it), covering T's extent exactly.
// Permutations are the case of one variable per index.
#pragma once
#include "ir/TensorIR.h"

#include <string>
#include <vector>

namespace tk {

// One variable of a flattened index: the statement's variable vars[var]
// contributes var * stride to it, and ranges over [0, extent).
struct RadixDigit {
  size_t var;
  ir::Expr stride;
  ir::Expr extent;
};

// For each dimension of the read tensor, the digits of its index, innermost
// (stride 1) first. Every variable of the statement is in exactly one.
using EpilogueIndexMap = std::vector<std::vector<RadixDigit>>;

// Takes statement `c` and `read`, a load in c's value of tensor `t` (a
// rank-t->rank() load). When the load's indices are a mixed-radix bijection
// from c's index variables onto t's elements, provably for every value of
// the symbols, stores the map in `*out` and returns true. Otherwise returns
// false and says why in `*reason` (if given): an index that is not a sum of
// variables times strides, a variable used in no index (a broadcast) or in
// two, a stride that is not the product of the inner extents, or extents
// whose product is not t's extent. Never throws on well-formed IR.
bool epilogueIndexMap(const ir::Assign &c, const ir::TensorPtr &t, const ir::Expr &read, EpilogueIndexMap *out,
                      std::string *reason);

// Takes a map from epilogueIndexMap and `idx`, the indices of one element of
// the read tensor. Returns, for each index variable of the statement (in
// c.vars order), its value at that element: (idx_d / stride) % extent,
// without the division for the innermost digit and the modulo for the
// outermost (so a permutation binds each variable to an index as is).
std::vector<ir::Expr> invertIndexMap(const EpilogueIndexMap &m, const std::vector<ir::Expr> &idx);

} // namespace tk
