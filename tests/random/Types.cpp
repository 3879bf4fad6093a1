#include "tests/random/Types.h"

#include <cmath>

namespace tk::randprog {

const char *tyName(Ty t) {
  switch (t) {
  case Ty::F16: return "f16";
  case Ty::BF16: return "bf16";
  case Ty::F32: return "f32";
  case Ty::F64: return "f64";
  case Ty::I8: return "i8";
  case Ty::I32: return "i32";
  case Ty::I64: return "i64";
  case Ty::Bool: return "bool";
  }
  return "?";
}

Ty promote(Ty a, Ty b) {
  if (a == Ty::Bool) a = Ty::I32;
  if (b == Ty::Bool) b = Ty::I32;
  if (a == b) return a;
  if ((a == Ty::F16 && b == Ty::BF16) || (a == Ty::BF16 && b == Ty::F16)) return Ty::F32;
  if (isFloat(a) && !isFloat(b)) return a;
  if (isFloat(b) && !isFloat(a)) return b;
  return a > b ? a : b; // enum order is by width within each kind
}

int64_t intMin(Ty t) {
  switch (t) {
  case Ty::I8: return INT8_MIN;
  case Ty::I32: return INT32_MIN;
  case Ty::Bool: return 0;
  default: return INT64_MIN;
  }
}

int64_t intMax(Ty t) {
  switch (t) {
  case Ty::I8: return INT8_MAX;
  case Ty::I32: return INT32_MAX;
  case Ty::Bool: return 1;
  default: return INT64_MAX;
  }
}

double floatCap(Ty t) {
  switch (t) {
  case Ty::F16: return 3.0e4;
  case Ty::BF16: return 1.0e30;
  default: return 1.0e30;
  }
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int Rng::below(int n) { return n <= 1 ? 0 : static_cast<int>(next() % static_cast<uint64_t>(n)); }

bool Rng::chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

size_t Rng::weighted(std::initializer_list<int> weights) {
  int total = 0;
  for (int w : weights) total += w;
  int r = below(total);
  size_t i = 0;
  for (int w : weights) {
    if (r < w) return i;
    r -= w;
    ++i;
  }
  return 0;
}

} // namespace tk::randprog
