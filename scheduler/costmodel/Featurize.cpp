#include "scheduler/costmodel/Featurize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tk::costmodel {

std::string FeatureLayout::signature() const {
  return fmt::format("tk-features-1 seq={} kinds={} numbers={} names={}", seqLen, kPrimitiveKinds, kMaxPrimitiveNumbers,
                     kNameBits);
}

int featurize(const DecisionSequence &seq, const FeatureLayout &layout, float *out) {
  const int e = layout.embed();
  std::fill(out, out + size_t(layout.seqLen) * e, 0.0f);
  int rows = std::min<int>(static_cast<int>(seq.size()), layout.seqLen);
  for (int r = 0; r < rows; ++r) {
    const Primitive &p = seq[r];
    float *row = out + size_t(r) * e;
    row[static_cast<int>(p.kind)] = 1.0f;
    for (size_t n = 0; n < p.numbers.size() && n < size_t(kMaxPrimitiveNumbers); ++n)
      row[kPrimitiveKinds + n] = static_cast<float>(std::log2(1.0 + std::max(0.0, p.numbers[n])) / 8.0);
    if (!p.names.empty()) {
      uint32_t h = 2166136261u; // FNV-1a: the same bits on every platform
      for (unsigned char c : p.names[0]) h = (h ^ c) * 16777619u;
      for (int b = 0; b < kNameBits; ++b) row[kPrimitiveKinds + kMaxPrimitiveNumbers + b] = float((h >> b) & 1u);
    }
  }
  return std::max(rows, 1);
}

} // namespace tk::costmodel
