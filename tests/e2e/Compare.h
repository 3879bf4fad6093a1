// Compare: checks a compiled kernel's output against the reference
// interpreter's, element by element, with a tolerance derived from the
// interpreter's running error bound (InterpResult::errorBounds).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tk::e2e {

// Element e passes when got and ref are the same non-finite value (both NaN,
// or the same infinity), or when
//   |got - ref| <= kBoundFactor * bound + kAbsTol.
// The bound is first order and already covers any summation order and FMA
// contraction; the factor 4 absorbs second-order terms, and kAbsTol covers
// results that flush to zero (denormals).
constexpr double kBoundFactor = 4;
constexpr double kAbsTol = 1e-30;

struct CompareReport {
  size_t mismatches = 0;
  double worstRatio = 0;  // max over elements of |got - ref| / tolerance
  std::string firstMismatch; // "C[3, 17]: got 1.5, expected 1.25 (tolerance 1e-6)"
};

CompareReport compareTensor(const std::string &name, const std::vector<int64_t> &shape,
                            const std::vector<double> &got, const std::vector<double> &ref,
                            const std::vector<double> &bound);

} // namespace tk::e2e
