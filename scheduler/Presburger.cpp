#include "scheduler/Presburger.h"

#include "ir/Simplify.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <isl/ilp.h>

namespace tk {
using namespace ir;

namespace {

bool isIterDim(const Expr &e) { return e->kind == ExprKind::Var && !e->name.empty() && e->name[0] == '@'; }

// Only parameters (no iteration dimension, loop variable, load or hole).
bool paramOnly(const Expr &e) {
  bool ok = true;
  visitExpr(e, [&](const Expr &n) {
    ok &= !(n->kind == ExprKind::Var && n->varKind != VarKind::Symbol) && n->kind != ExprKind::Load &&
          n->kind != ExprKind::Hole && n->kind != ExprKind::Reduce && n->kind != ExprKind::FloatImm;
  });
  return ok;
}

std::optional<int64_t> constOf(const Expr &e) {
  int64_t v;
  if (isConstInt(simplify(e), &v)) return v;
  return std::nullopt;
}

bool isIntType(ScalarType t) {
  return t != ScalarType::F32 && t != ScalarType::F64 && t != ScalarType::F16 && t != ScalarType::BF16 &&
         t != ScalarType::Bool;
}

} // namespace

std::optional<int64_t> evalAt(const Expr &e, const PointValues &v) {
  std::vector<std::pair<std::string, Expr>> map;
  visitExpr(e, [&](const Expr &n) {
    if (n->kind != ExprKind::Var) return;
    auto it = v.find(n->name);
    if (it != v.end()) map.push_back({n->name, intImm(it->second)});
  });
  Expr r = simplify(substitute(e, map));
  int64_t out;
  if (isConstInt(r, &out)) return out;
  if (r->kind == ExprKind::BoolImm) return r->intValue;
  return std::nullopt;
}

std::string valueText(const Expr &e, const PointValues &v) {
  auto x = evalAt(e, v);
  return x ? fmt::format("{}", *x) : "?";
}

PointValues pointValues(const Presburger::Sample &s, size_t from, size_t n) {
  PointValues v = s.params;
  for (size_t k = 0; k < n; ++k) v[fmt::format("@{}", k)] = s.dims[from + k];
  return v;
}

ir::Expr Presburger::dimExpr(size_t k) { return ir::var(fmt::format("@{}", k), ir::VarKind::Loop); }

Presburger::Presburger(const Kernel &k, unsigned long budget) : ctx_(isl_ctx_alloc()), k_(k) {
  isl_options_set_on_error(ctx(), ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx(), budget);
  context_ = isl::Set(isl_set_universe(isl_space_params_alloc(ctx(), 0)));
  auto assume = [&](const Expr &cond, const std::string &what) {
    Cond c = condition(cond, 0);
    context_ = isl::Set(isl_set_intersect(context_.release(), isl_set_params(c.over.release())));
    if (!c.why.empty() && contextGap_.empty()) contextGap_ = what + " `" + printExpr(cond) + "`: " + c.why;
    checks_.push_back(cond);
  };
  const Op &op = *k.op;
  for (const std::string &s : op.symbols) assume(binary(BinOp::GE, var(s, VarKind::Symbol), intImm(0)), "");
  for (const Constraint &c : op.where) assume(c.cond, "where");
  for (const auto *list : {&op.outputs, &op.intermediates})
    for (const TensorPtr &t : *list)
      for (const Expr &d : t->shape) assume(binary(BinOp::GE, d, intImm(0)), "extent");
  for (const Constraint &c : k.requires_) assume(c.cond, "require");
  context_ = isl::Set(isl_set_coalesce(context_.release()));
}

bool Presburger::exhausted() const { return isl_ctx_last_error(ctx()) == isl_error_quota; }

isl::Set Presburger::box(const ir::TensorDecl &t) {
  using namespace ir;
  unsigned r = static_cast<unsigned>(t.rank());
  isl::Set b(isl_set_universe(isl_space_set_alloc(ctx(), 0, r)));
  for (unsigned d = 0; d < r; ++d) {
    Expr inside = binary(BinOp::And, binary(BinOp::GE, dimExpr(d), intImm(0)), binary(BinOp::LT, dimExpr(d), t.shape[d]));
    b = isl::Set(isl_set_intersect(b.release(), condition(inside, r).over.release()));
  }
  return isl::Set(isl_set_set_tuple_name(b.release(), t.name.c_str()));
}

isl::PwAff Presburger::dim(unsigned n, unsigned pos) const {
  isl_local_space *ls = isl_local_space_from_space(isl_space_set_alloc(ctx(), 0, n));
  return isl::PwAff(isl_pw_aff_var_on_domain(ls, isl_dim_set, pos));
}

isl::PwAff Presburger::constant(unsigned n, int64_t v) const {
  isl_local_space *ls = isl_local_space_from_space(isl_space_set_alloc(ctx(), 0, n));
  return isl::PwAff(isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx(), v))));
}

isl::PwAff Presburger::param(unsigned n, const std::string &name) {
  isl_space *sp = isl_space_set_alloc(ctx(), 1, n);
  sp = isl_space_set_dim_id(sp, isl_dim_param, 0, isl_id_alloc(ctx(), name.c_str(), nullptr));
  return isl::PwAff(isl_pw_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_param, 0));
}

isl::PwAff Presburger::bySplit(const isl::PwAff &x, unsigned n, const isl::Set *within, int64_t maxValues,
                               const std::function<isl::PwAff(int64_t)> &piece) {
  isl_set *dom = within ? within->copy() : isl_set_universe(isl_space_set_alloc(ctx(), 0, n));
  isl_pw_aff *xs = isl_pw_aff_intersect_domain(x.copy(), isl_set_intersect_params(dom, context_.copy()));
  isl::Val lo(isl_pw_aff_min_val(isl_pw_aff_copy(xs))), hi(isl_pw_aff_max_val(xs));
  if (!lo || !hi || isl_val_is_int(lo.get()) != isl_bool_true || isl_val_is_int(hi.get()) != isl_bool_true) return {};
  int64_t l = isl_val_get_num_si(lo.get()), h = isl_val_get_num_si(hi.get());
  if (h < l || h - l >= maxValues) return {};
  isl::PwAff out;
  for (int64_t v = l; v <= h; ++v) {
    isl::PwAff p = piece(v);
    if (!p) return {};
    isl_set *where = isl_pw_aff_eq_set(x.copy(), constant(n, v).release());
    isl_pw_aff *part = isl_pw_aff_intersect_domain(p.release(), where);
    out = isl::PwAff(out ? isl_pw_aff_union_add(out.release(), part) : part);
  }
  return out;
}

isl::PwAff Presburger::affine(const Expr &e, unsigned n, std::string *why, const isl::Set *within) {
  auto fail = [&](std::string reason) {
    if (why && why->empty()) *why = std::move(reason);
    return isl::PwAff();
  };
  std::string inner;
  auto sub = [&](const Expr &x) { return affine(x, n, &inner, within); };
  isl::PwAff out;
  switch (e->kind) {
  case ExprKind::IntImm: return constant(n, e->intValue);
  case ExprKind::Var:
    if (isIterDim(e)) {
      unsigned pos = static_cast<unsigned>(std::stoul(e->name.substr(1)));
      if (pos < n) return dim(n, pos);
    } else if (e->varKind == VarKind::Symbol && isIntType(e->type)) {
      return param(n, e->name);
    }
    return fail("variable '" + e->name + "' is not a mapping or loop variable of this store");
  case ExprKind::Cast:
    if (isIntType(e->type) && isIntType(e->args[0]->type)) return sub(e->args[0]);
    break;
  case ExprKind::Unary:
    if (e->unOp == UnOp::Neg)
      if (isl::PwAff a = sub(e->args[0])) return isl::PwAff(isl_pw_aff_neg(a.release()));
    break;
  case ExprKind::Select: {
    Cond c = condition(e->args[0], n, within);
    if (!c.why.empty()) {
      inner = c.why;
      break;
    }
    isl::PwAff a = sub(e->args[1]), b = sub(e->args[2]);
    if (a && b)
      return isl::PwAff(isl_pw_aff_cond(isl_set_indicator_function(c.under.release()), a.release(), b.release()));
    break;
  }
  case ExprKind::Binary: {
    BinOp op = e->binOp;
    if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul && op != BinOp::Div && op != BinOp::Mod &&
        op != BinOp::CDiv && op != BinOp::Min && op != BinOp::Max)
      break;
    std::optional<int64_t> ca = constOf(e->args[0]), cb = constOf(e->args[1]);
    if ((op == BinOp::Div || op == BinOp::Mod || op == BinOp::CDiv) && cb && *cb == 0) break;
    isl::PwAff a = sub(e->args[0]), b = sub(e->args[1]);
    if (!a || !b) break;
    // Splits into up to 64 cases (a worker index of 64 CPEs times a block
    // size; `M * 4 * N` under M <= 16). An expression of the parameters
    // alone whose factor holds a floor division is split only into a few:
    // it can stand for itself (an opaque parameter, below), and every case
    // of such a factor is a set with an existential variable — split into
    // 64 of them, the convolution's version condition `cdiv(F, 6) * 6 *
    // (64 * cdiv(OW, 64) - OW)` kept the analysis of one printed kernel
    // busy for minutes.
    auto maxValues = [&](const Expr &factor) -> int64_t {
      bool divides = false;
      visitExpr(factor, [&](const Expr &x) {
        divides |= x->kind == ExprKind::Binary &&
                   (x->binOp == BinOp::Div || x->binOp == BinOp::Mod || x->binOp == BinOp::CDiv);
      });
      return divides && paramOnly(e) ? 8 : 64;
    };
    if (op == BinOp::Mul && !ca && !cb) { // a product of variable terms: split on one of them
      auto times = [&](const isl::PwAff &y) {
        return [&, y](int64_t v) { return isl::PwAff(isl_pw_aff_scale_val(y.copy(), isl_val_int_from_si(ctx(), v))); };
      };
      if (isl::PwAff r = bySplit(a, n, within, maxValues(e->args[0]), times(b))) return r;
      if (isl::PwAff r = bySplit(b, n, within, maxValues(e->args[1]), times(a))) return r;
      break;
    }
    if ((op == BinOp::Div || op == BinOp::Mod || op == BinOp::CDiv) && !cb) { // split on the divisor
      Expr whole = e;
      isl::PwAff r = bySplit(b, n, within, maxValues(e->args[1]), [&](int64_t v) {
        if (v == 0) return isl::PwAff();
        return affine(binary(op, whole->args[0], intImm(v)), n, nullptr, within);
      });
      if (r) return r;
      break;
    }
    switch (op) {
    case BinOp::Add: return isl::PwAff(isl_pw_aff_add(a.release(), b.release()));
    case BinOp::Sub: return isl::PwAff(isl_pw_aff_sub(a.release(), b.release()));
    case BinOp::Min: return isl::PwAff(isl_pw_aff_min(a.release(), b.release()));
    case BinOp::Max: return isl::PwAff(isl_pw_aff_max(a.release(), b.release()));
    case BinOp::Mul: return isl::PwAff(isl_pw_aff_mul(a.release(), b.release()));
    case BinOp::CDiv: return isl::PwAff(isl_pw_aff_ceil(isl_pw_aff_div(a.release(), b.release())));
    case BinOp::Div: return isl::PwAff(isl_pw_aff_floor(isl_pw_aff_div(a.release(), b.release())));
    default: { // floor modulo: a - c * floor(a / c)
      isl::PwAff q(isl_pw_aff_floor(isl_pw_aff_div(a.copy(), b.copy())));
      return isl::PwAff(isl_pw_aff_sub(a.release(), isl_pw_aff_mul(b.release(), q.release())));
    }
    }
  }
  default: break;
  }
  // Not Presburger: a function of the parameters alone stands for itself.
  if (paramOnly(e) && isIntType(e->type)) {
    std::string name = printExpr(simplify(e));
    opaque_.emplace(name, e);
    return param(n, name);
  }
  if (!inner.empty()) return fail(inner);
  if (e->kind == ExprKind::Load) return fail("'" + printExpr(e) + "' reads tensor " + e->tensor->name);
  return fail("'" + printExpr(e) + "' is not affine");
}

// `x < min(a, b)` as `x < a && x < b` (likewise `<=`, `x > max(a, b)`,
// `max(a, b) < y`, `min(a, b) > y`); null when `e` has no such form. The
// conjunction is one convex set, where comparing with isl's piecewise min
// splits it in two pieces at every loop whose extent is a min — and the
// coverage proofs of tiled kernels (`0..min(T, N - t * T)`) then grow
// past their budget.
static Expr splitMinMax(const Expr &e) {
  if (e->kind != ExprKind::Binary || !isComparison(e->binOp)) return nullptr;
  BinOp op = e->binOp;
  bool less = op == BinOp::LT || op == BinOp::LE, greater = op == BinOp::GT || op == BinOp::GE;
  const Expr &l = e->args[0], &r = e->args[1];
  auto is = [](const Expr &x, BinOp f) { return x->kind == ExprKind::Binary && x->binOp == f; };
  if ((less && is(r, BinOp::Min)) || (greater && is(r, BinOp::Max)))
    return binary(BinOp::And, binary(op, l, r->args[0], e->loc), binary(op, l, r->args[1], e->loc), e->loc);
  if ((less && is(l, BinOp::Max)) || (greater && is(l, BinOp::Min)))
    return binary(BinOp::And, binary(op, l->args[0], r, e->loc), binary(op, l->args[1], r, e->loc), e->loc);
  return nullptr;
}

Presburger::Cond Presburger::condition(const Expr &e, unsigned n, const isl::Set *within) {
  if (Expr split = splitMinMax(e)) return condition(split, n, within);
  isl_space *sp = isl_space_set_alloc(ctx(), 0, n);
  auto all = [&] { return isl::Set(isl_set_universe(isl_space_copy(sp))); };
  auto none = [&] { return isl::Set(isl_set_empty(isl_space_copy(sp))); };
  Cond out;
  if (e->kind == ExprKind::BoolImm) {
    out.under = e->intValue ? all() : none();
    out.over = out.under;
  } else if (e->kind == ExprKind::Unary && e->unOp == UnOp::Not) {
    Cond c = condition(e->args[0], n, within);
    out.under = isl::Set(isl_set_complement(c.over.release()));
    out.over = isl::Set(isl_set_complement(c.under.release()));
    out.why = c.why;
  } else if (e->kind == ExprKind::Binary && (e->binOp == BinOp::And || e->binOp == BinOp::Or)) {
    Cond a = condition(e->args[0], n, within), b = condition(e->args[1], n, within);
    auto combine = e->binOp == BinOp::And ? isl_set_intersect : isl_set_union;
    out.under = isl::Set(combine(a.under.release(), b.under.release()));
    out.over = isl::Set(combine(a.over.release(), b.over.release()));
    out.why = !a.why.empty() ? a.why : b.why;
  } else if (e->kind == ExprKind::Binary && isComparison(e->binOp) && isIntType(e->args[0]->type) &&
             isIntType(e->args[1]->type)) {
    std::string why;
    isl::PwAff a = affine(e->args[0], n, &why, within), b = affine(e->args[1], n, &why, within);
    if (a && b) {
      using Cmp = isl_set *(*)(isl_pw_aff *, isl_pw_aff *);
      Cmp cmp = e->binOp == BinOp::EQ   ? isl_pw_aff_eq_set
                : e->binOp == BinOp::NE ? isl_pw_aff_ne_set
                : e->binOp == BinOp::LT ? isl_pw_aff_lt_set
                : e->binOp == BinOp::LE ? isl_pw_aff_le_set
                : e->binOp == BinOp::GT ? isl_pw_aff_gt_set
                                        : isl_pw_aff_ge_set;
      out.under = isl::Set(cmp(a.release(), b.release()));
      out.over = out.under;
    } else {
      out.why = why;
    }
  } else {
    out.why = "condition '" + printExpr(e) + "' is not affine";
  }
  if (!out.why.empty() && !out.under) {
    out.under = none();
    out.over = all();
  }
  isl_space_free(sp);
  return out;
}

std::optional<Presburger::Sample> Presburger::sample(const isl::Set &s) const {
  std::optional<Sample> first = anyPoint(s);
  if (!first || consistent(first->params)) return first;
  std::optional<Sample> real = consistentPoint(s);
  return real ? real : first;
}

std::optional<Presburger::Sample> Presburger::consistentPoint(const isl::Set &s) const {
  // The symbols the opaque parameters of `s` are made of.
  std::vector<std::pair<int, std::string>> opaque; // position in s, name
  std::vector<std::string> symbols;
  for (int i = 0, np = isl_set_dim(s.get(), isl_dim_param); i < np; ++i) {
    const char *name = isl_set_get_dim_name(s.get(), isl_dim_param, i);
    auto it = name ? opaque_.find(name) : opaque_.end();
    if (it == opaque_.end()) continue;
    opaque.push_back({i, name});
    visitExpr(it->second, [&](const Expr &n) {
      if (n->kind == ExprKind::Var && std::find(symbols.begin(), symbols.end(), n->name) == symbols.end())
        symbols.push_back(n->name);
    });
  }
  const int64_t values[] = {1, 2, 3, 0, 5, 8};
  constexpr size_t kValues = sizeof(values) / sizeof(values[0]);
  if (opaque.empty() || symbols.size() > 4) return std::nullopt;
  size_t tries = 1;
  for (size_t i = 0; i < symbols.size(); ++i) tries *= kValues;
  for (size_t t = 0; t < tries; ++t) {
    PointValues v;
    for (size_t i = 0, rest = t; i < symbols.size(); ++i, rest /= kValues) v[symbols[i]] = values[rest % kValues];
    isl_set *fixed = s.copy();
    for (const auto &[name, value] : v) {
      int pos = isl_set_find_dim_by_name(fixed, isl_dim_param, name.c_str());
      if (pos >= 0) fixed = isl_set_fix_si(fixed, isl_dim_param, pos, static_cast<int>(value));
    }
    bool ok = true;
    for (const auto &[pos, name] : opaque) {
      std::optional<int64_t> x = evalAt(opaque_.at(name), v);
      ok &= x && *x >= INT32_MIN && *x <= INT32_MAX;
      if (ok) fixed = isl_set_fix_si(fixed, isl_dim_param, pos, static_cast<int>(*x));
    }
    isl::Set candidate(fixed);
    if (!ok || isl_set_is_empty(candidate.get()) != isl_bool_false) continue;
    std::optional<Sample> p = anyPoint(candidate);
    if (p && consistent(p->params)) return p;
  }
  return std::nullopt;
}

std::optional<Presburger::Sample> Presburger::anyPoint(const isl::Set &s) const {
  // The lexicographically smallest point with the parameters first gives
  // the smallest example (M = 2 rather than M = 32), when there is one; any
  // point otherwise (a parameter without a lower bound).
  isl::Space sp(isl_set_get_space(s.get()));
  if (!sp) return std::nullopt;
  int np = isl_space_dim(sp.get(), isl_dim_param), nd = isl_space_dim(sp.get(), isl_dim_set);
  if (np < 0 || nd < 0) return std::nullopt;
  isl_set *flat = isl_set_move_dims(isl_set_flatten(s.copy()), isl_dim_set, 0, isl_dim_param, 0, np);
  isl::Point p(isl_set_sample_point(isl_set_lexmin(isl_set_copy(flat))));
  if (!p || isl_point_is_void(p.get()) != isl_bool_false) p = isl::Point(isl_set_sample_point(isl_set_copy(flat)));
  isl_set_free(flat);
  if (!p || isl_point_is_void(p.get()) != isl_bool_false) return std::nullopt;
  Sample out;
  for (int i = 0; i < np + nd; ++i) {
    isl::Val v(isl_point_get_coordinate_val(p.get(), isl_dim_set, i));
    if (!v || isl_val_is_int(v.get()) != isl_bool_true) return std::nullopt;
    int64_t x = isl_val_get_num_si(v.get());
    if (i < np) {
      const char *name = isl_space_get_dim_name(sp.get(), isl_dim_param, i);
      if (!name) return std::nullopt;
      out.params[name] = x;
    } else {
      out.dims.push_back(x);
    }
  }
  return out;
}

bool Presburger::consistent(const PointValues &v) const {
  for (const auto &[name, e] : opaque_) {
    auto it = v.find(name);
    if (it != v.end() && evalAt(e, v) != it->second) return false;
  }
  for (const Expr &c : checks_)
    if (evalAt(c, v) != 1) return false;
  return true;
}

std::string Presburger::describeParams(const PointValues &v, const isl::Set &of) const {
  isl::Set shown(isl_set_gist_params(of.copy(), context_.copy()));
  auto involved = [&](const std::string &name) {
    int pos = isl_set_find_dim_by_name(shown.get(), isl_dim_param, name.c_str());
    return pos >= 0 && isl_set_involves_dims(shown.get(), isl_dim_param, pos, 1) == isl_bool_true;
  };
  // ... and the symbols under an opaque parameter it involves.
  auto relevant = [&](const std::string &name) {
    if (involved(name)) return true;
    for (const auto &[o, e] : opaque_)
      if (involved(o) && mentionsVar(e, name)) return true;
    return false;
  };
  std::string out;
  auto add = [&](const std::string &name, int64_t value) {
    if (relevant(name)) out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", name, value);
  };
  for (const std::string &s : k_.op->symbols)
    if (auto it = v.find(s); it != v.end()) add(s, it->second);
  for (const auto &[name, value] : v) {
    bool symbol = std::find(k_.op->symbols.begin(), k_.op->symbols.end(), name) != k_.op->symbols.end();
    if (!symbol && !opaque_.count(name)) add(name, value);
  }
  return out;
}

} // namespace tk
