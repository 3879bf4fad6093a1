#include "tests/e2e/Compare.h"

#include <cmath>
#include <sstream>

namespace tk::e2e {

namespace {

std::string elementName(const std::string &name, const std::vector<int64_t> &shape, size_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = static_cast<int64_t>(flat) % shape[d];
    flat /= static_cast<size_t>(shape[d]);
  }
  std::ostringstream os;
  os << name << '[';
  for (size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d];
  os << ']';
  return os.str();
}

} // namespace

CompareReport compareTensor(const std::string &name, const std::vector<int64_t> &shape,
                            const std::vector<double> &got, const std::vector<double> &ref,
                            const std::vector<double> &bound) {
  CompareReport rep;
  for (size_t i = 0; i < ref.size(); ++i) {
    double g = got[i], r = ref[i];
    bool ok;
    double tol = kBoundFactor * bound[i] + kAbsTol;
    if (!std::isfinite(r)) {
      ok = std::isnan(r) ? std::isnan(g) : g == r;
    } else {
      double diff = std::fabs(g - r);
      ok = diff <= tol; // false for NaN
      if (ok) rep.worstRatio = std::max(rep.worstRatio, diff / tol);
    }
    if (ok) continue;
    if (rep.mismatches++ == 0) {
      std::ostringstream os;
      os.precision(9);
      os << elementName(name, shape, i) << ": got " << g << ", expected " << r << " (tolerance " << tol << ")";
      rep.firstMismatch = os.str();
    }
  }
  return rep;
}

} // namespace tk::e2e
