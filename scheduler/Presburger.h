// Presburger: a kernel's integer index arithmetic as isl objects, for the
// exact write analysis of task mappings (WriteAnalysis.h).
//
// Expressions range over the kernel's parameters (shape symbols and integer
// scalar parameters, by name) and n iteration dimensions, written `@0` ..
// `@n-1` in ir::Expr (a name no .tk identifier can spell). Sums, constant
// multiples, floor division / modulo / cdiv by constants, min, max and
// selects of affine conditions are Presburger; anything else is "not
// affine" and reported with the reason. A non-affine expression of the
// parameters alone (e.g. `M * N`) becomes an *opaque parameter* named by its
// text, which stands for its value: sets over it are exact in every other
// respect, and a sample point is checked against its real value.
#pragma once
#include "ir/MappingIR.h"
#include "scheduler/IslHandle.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk {

// Values of parameters (by name) and iteration dimensions (`@k`) at a point.
using PointValues = std::map<std::string, int64_t>;

class Presburger {
public:
  // The context of kernel `k`: every shape symbol >= 0, the op's `where`s,
  // derived output / intermediate extents >= 0 (all checked at entry with
  // status 1), and the kernel's `require`s (status 2).
  Presburger(const ir::Kernel &k, unsigned long budget);

  isl_ctx *ctx() const { return ctx_.get(); }

  // Iteration dimension k as an expression (`@k`).
  static ir::Expr dimExpr(size_t k);
  // The elements of t's shape as a set named t (over-approximated where an
  // extent is not affine).
  isl::Set box(const ir::TensorDecl &t);

  // `e` as a function on the n-dimensional iteration space; null, with the
  // reason in `why`, when not Presburger. A product or quotient of two
  // variable terms is split into cases when one of them takes at most 64
  // values (8 when `e` reads parameters only and that term divides) on
  // `within` (a superset of where `e` is evaluated) and the context, e.g.
  // `t * cdiv(N, 2)` for t < 2: the result is then defined only there.
  isl::PwAff affine(const ir::Expr &e, unsigned nDims, std::string *why, const isl::Set *within = nullptr);

  // A condition as sets of the iteration space with under ⊆ truth ⊆ over;
  // `why` is empty when both are exact (then under == over).
  struct Cond {
    isl::Set under, over;
    std::string why;
  };
  Cond condition(const ir::Expr &e, unsigned nDims, const isl::Set *within = nullptr);

  // The parameter values the kernel may be called with, and what it leaves
  // out (a `where` / `require` that is not affine; empty when exact).
  const isl::Set &context() const { return context_; }
  const std::string &contextGap() const { return contextGap_; }

  // A point of `s`: its parameters by name and its set dimensions in order
  // (for a wrapped map: domain, then range); nullopt when `s` is empty or
  // isl gave up. When opaque parameters make the first point found
  // inconsistent, small values of the symbols under them are tried (with
  // each opaque one fixed to its value there) for a consistent one.
  struct Sample {
    PointValues params;
    std::vector<int64_t> dims;
  };
  std::optional<Sample> sample(const isl::Set &s) const;

private:
  std::optional<Sample> anyPoint(const isl::Set &s) const;
  std::optional<Sample> consistentPoint(const isl::Set &s) const;

public:
  // Whether `v` is a real point: opaque parameters equal their
  // expressions, and every constraint of the context holds.
  bool consistent(const PointValues &v) const;
  // Whether parameter `name` stands for a non-affine expression.
  bool opaque(const std::string &name) const { return opaque_.count(name) != 0; }
  // "M = 4, N = 1": the parameters of `v` that `of` depends on beyond the
  // context (no opaque ones), in the kernel's symbol order.
  std::string describeParams(const PointValues &v, const isl::Set &of) const;

  // Whether isl gave up: the kernel's whole analysis has a budget of isl
  // operations (the constructor's `budget`); past it every query fails
  // fast, and what is left undecided.
  bool exhausted() const;

private:
  isl::PwAff param(unsigned nDims, const std::string &name);
  isl::PwAff constant(unsigned nDims, int64_t v) const;
  isl::PwAff dim(unsigned nDims, unsigned pos) const;
  // Σ over the values v of `x` (at most maxValues, on `within` and the
  // context) of piece(v) where x == v; null when x has more values or piece
  // fails.
  isl::PwAff bySplit(const isl::PwAff &x, unsigned nDims, const isl::Set *within, int64_t maxValues,
                     const std::function<isl::PwAff(int64_t)> &piece);

  isl::Ctx ctx_;
  const ir::Kernel &k_;
  std::map<std::string, ir::Expr> opaque_; // name -> the expression it stands for
  std::vector<ir::Expr> checks_;           // the context's conditions, evaluated on samples
  isl::Set context_;
  std::string contextGap_;
};

// The value of an integer or bool expression at `v`, if it folds to a
// constant there.
std::optional<int64_t> evalAt(const ir::Expr &e, const PointValues &v);
// Its decimal text, or "?".
std::string valueText(const ir::Expr &e, const PointValues &v);

// The values of a sample's parameters and of its dimensions [from, from + n)
// as `@0` .. `@n-1`.
PointValues pointValues(const Presburger::Sample &s, size_t from, size_t n);

} // namespace tk
