// Scalar types, extents and the random source of the program generator
// (tk_randprog). The generator only writes programs that docs/language.md
// says are valid, so it models the language's typing rules itself: C-like
// promotion, weakly typed literals, the value ranges of every type.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tk::randprog {

enum class Ty { F16, BF16, F32, F64, I8, I32, I64, Bool };

const char *tyName(Ty t);
inline bool isFloat(Ty t) { return t <= Ty::F64; }
inline bool isInt(Ty t) { return t >= Ty::I8 && t <= Ty::I64; }
// docs/language.md §2: any float beats any integer, wider beats narrower,
// f16 with bf16 gives f32, bool promotes to i32.
Ty promote(Ty a, Ty b);
int64_t intMin(Ty t);
int64_t intMax(Ty t);
// Largest magnitude a value of this type may reach in a generated program.
// Far below the type's overflow threshold, so that no rounding difference
// between the compiled code and the reference can turn into an inf.
double floatCap(Ty t);

// The largest shape the campaign asks tk_difftest for: the product of all
// symbols is at most kBudget (its --budget), one symbol at a time is 2039.
constexpr int64_t kBudget = 20000;
constexpr int64_t kMaxSymbol = 2039;

// A tensor extent or reduction range: an integer expression over shape
// symbols and integer scalar parameters. Two extents agree when their
// spellings agree (the language compares them structurally and the
// generator always spells the same extent the same way).
struct Extent {
  std::string text;
  std::vector<std::string> syms; // symbols multiplied in (for the cost model)
  int64_t maxValue = 1;          // largest value under the campaign's shapes
  bool mayBeZero = false;
  bool atomic = true;            // a name or number: no parentheses needed
  bool operator==(const Extent &o) const { return text == o.text; }
};

// splitmix64: portable, so a seed writes the same program everywhere (the
// standard distributions are implementation-defined).
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int below(int n); // [0, n)
  int range(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool chance(double p);
  size_t weighted(std::initializer_list<int> weights);
  template <class T> const T &pick(const std::vector<T> &v) { return v[static_cast<size_t>(below(static_cast<int>(v.size())))]; }

private:
  uint64_t state_;
};

} // namespace tk::randprog
