#include "scheduler/CheckHoles.h"

#include "ir/IRRewrite.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "ir/TensorSize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace tk {
using namespace ir;

static std::string candidateList(const Hole &h) { return fmt::format("{{{}}}", fmt::join(h.candidates, ", ")); }

static std::string holeValues(const std::vector<std::pair<int, int64_t>> &values) {
  std::string s;
  for (const auto &[id, v] : values) s += fmt::format("{}?{} = {}", s.empty() ? "" : ", ", id, v);
  return s;
}

static bool mentionsHole(const Expr &e) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Hole; });
  return found;
}

// Sema multiplied each mapping's constant extents with the holes unknown;
// filled, spatial(T, T, T) with T = 2^40 has 2^120 workers, a count the
// generated code wrapped to 0 (nothing ran, status 0). Reports a task
// dimension or worker count of `s` whose constant product overflows int64.
static void checkMappingProducts(const MStmt &s, const std::string &holes, DiagEngine &diags) {
  const TaskMapping &m = s.mapping;
  std::vector<int64_t> shape(m.rank(), 1);
  int64_t workers = 1;
  for (const MappingAtom &a : m.atoms)
    for (size_t d = 0; d < a.dims.size() && d < shape.size(); ++d) {
      int64_t v = 0;
      if (!isConstInt(a.dims[d], &v) || v <= 0) continue; // symbolic, or refused elsewhere
      std::optional<int64_t> task = checkedMul(shape[d], v);
      std::optional<int64_t> work = a.kind == MappingAtom::Kind::Spatial ? checkedMul(workers, v) : workers;
      if (!task || !work) {
        diags.error(a.loc.valid() ? a.loc : s.loc,
                    "task mapping '{}' has more than 2^63 {} for the chosen tile sizes ({})", printMapping(m),
                    task ? "workers" : fmt::format("tasks in dimension {}", d), holes);
        return;
      }
      shape[d] = *task;
      workers = *work;
    }
}

KernelPtr checkHoles(const Kernel &k, DiagEngine &diags) {
  size_t errorsBefore = diags.errorCount();
  std::vector<std::pair<int, int64_t>> values;
  for (const Hole &h : k.holes) {
    if (!h.value) {
      // Reached only when the construction optimizer did not run
      // (PipelineOptions::construct unset); there is no option to give a
      // hole its value, so the fix is in the source.
      diags.error(h.loc,
                  "hole ?{} has no value: tile sizes left as '?' are chosen by the construction optimizer, which "
                  "did not run; write {} instead of the '?'",
                  h.id, h.candidates.empty() ? std::string("a positive value") : "one of " + candidateList(h));
      continue;
    }
    if (*h.value <= 0) {
      diags.error(h.loc, "hole ?{} = {} is not a positive tile size", h.id, *h.value);
      continue;
    }
    // No tensor extent exceeds 2^47 (ir/TensorSize.h), so a larger tile only
    // overshoots: its guarded loops would run ~2^62 idle iterations, and its
    // products (b * T, T * T) overflow int64.
    if (*h.value > kMaxTensorBytes) {
      diags.error(h.loc, "hole ?{} = {} is larger than any tensor extent can be (2^47 = {}): no tile needs it", h.id,
                  *h.value, kMaxTensorBytes);
      continue;
    }
    if (!h.candidates.empty() && std::find(h.candidates.begin(), h.candidates.end(), *h.value) == h.candidates.end()) {
      diags.error(h.loc, "hole ?{} = {} is not one of its candidates {}", h.id, *h.value, candidateList(h));
      continue;
    }
    values.push_back({h.id, *h.value});
  }
  if (diags.errorCount() > errorsBefore) return nullptr;

  auto fill = [&](const Expr &e) {
    Expr f = fillHoles(e, values);
    return f == e ? e : simplify(f);
  };
  // Local tensors whose shape mentions a hole get a filled copy; loads and
  // stores are redirected to it.
  std::map<const TensorDecl *, TensorPtr> filled;
  visitMStmt(k.body, [&](const MStmt &s) {
    if (s.kind != MStmt::Kind::Alloc || filled.count(s.tensor.get())) return;
    if (std::none_of(s.tensor->shape.begin(), s.tensor->shape.end(), mentionsHole)) return;
    auto t = std::make_shared<TensorDecl>(*s.tensor);
    for (Expr &d : t->shape) d = fill(d);
    filled[s.tensor.get()] = t;
    // The frontend measured this tensor with its holes unknown; filled, its
    // constant size may exceed the limit, or wrap int64 (docs/language.md §7).
    if (constantSize(*t).tooLarge)
      diags.error(t->loc.valid() ? t->loc : s.loc,
                  std::string(scopeName(t->scope)) + " tensor '" + t->name + "' (" + printTensorType(*t) +
                      ") is too large for the chosen tile sizes (" + holeValues(values) +
                      "): it takes more than 2^47 bytes (128 TiB), the most any tensor may take");
  });
  if (diags.errorCount() > errorsBefore) return nullptr;
  auto tensorFn = [&](const TensorPtr &t) {
    auto it = filled.find(t.get());
    return it == filled.end() ? t : it->second;
  };
  auto exprFn = [&](const Expr &e) {
    Expr f = fill(e);
    if (filled.empty()) return f;
    return transformExpr(f, [&](const Expr &n) -> Expr {
      if (n->kind != ExprKind::Load || !filled.count(n->tensor.get())) return n;
      auto m = std::make_shared<ExprNode>(*n);
      m->tensor = tensorFn(n->tensor);
      return m;
    });
  };

  auto out = std::make_shared<Kernel>(k);
  out->body = rewriteMStmt(k.body, exprFn, tensorFn);
  visitMStmt(out->body, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::MapFor) checkMappingProducts(s, holeValues(values), diags);
  });
  if (diags.errorCount() > errorsBefore) return nullptr;
  out->requires_.clear();
  for (const Constraint &c : k.requires_) {
    Expr cond = simplify(fillHoles(c.cond, values));
    if (cond->kind != ExprKind::BoolImm) {
      out->requires_.push_back({cond, c.loc});
      continue;
    }
    if (cond->intValue) continue;
    std::string msg = "requirement `" + printExpr(c.cond) + "` is false";
    if (mentionsHole(c.cond)) msg += " for the chosen tile sizes (" + holeValues(values) + ")";
    diags.error(c.loc, msg);
  }
  if (diags.errorCount() > errorsBefore) return nullptr;
  return out;
}

} // namespace tk
