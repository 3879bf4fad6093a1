#include "frontend/SemaIntrinsic.h"

#include "frontend/SemaExpr.h"
#include "ir/IntArith.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace tk::sema {

namespace {

using ir::ScalarType;

// What one operand of a GPU statement must be.
struct OperandRule {
  enum class Form {
    Fragment,  // t[i, j] for a register tensor t[I, J, L]: fragment of length L
    Tile,      // S[.., r, c] of a shared tensor (rank >= 2, rows of 8k elements)
    SharedElem,// S[..] of a shared tensor, every index given
    GlobalElem,// G[..] of a global tensor (op input/output), every index given
    AtomicElem,// T[..] of a global op output/intermediate or a shared tensor, every index given
    Value,     // any value expression
    Count      // a positive integer literal
  } form;
  const char *role;
  std::vector<ScalarType> dtypes; // empty: any
  std::vector<int64_t> lengths;   // Fragment: allowed lengths
};

std::string joinOr(const std::vector<std::string> &xs) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? " or " : "") + xs[i];
  return out;
}

std::string dtypeList(const std::vector<ScalarType> &ts) {
  std::vector<std::string> names;
  for (ScalarType t : ts) names.emplace_back(ir::scalarTypeName(t));
  return joinOr(names);
}

std::string intList(const std::vector<int64_t> &xs) {
  std::vector<std::string> names;
  for (int64_t x : xs) names.push_back(fmt::format("{}", x));
  return joinOr(names);
}

struct Signature {
  ir::GpuIntrinsic kind;
  bool warpCollective;
  std::vector<OperandRule> rules;
  const char *operandNames;
  bool sameDtype; // the last two tensor operands share their element type
};

std::optional<Signature> signature(const std::string &name) {
  using F = OperandRule::Form;
  const std::vector<ScalarType> halves = {ScalarType::F16, ScalarType::BF16};
  if (name == "mma")
    return Signature{ir::GpuIntrinsic::Mma, true,
                     {{F::Fragment, "accumulator", {ScalarType::F32}, {4}},
                      {F::Fragment, "A fragment", halves, {8}},
                      {F::Fragment, "B fragment", halves, {4}}},
                     "accumulator, A fragment, B fragment", true};
  if (name == "ldmatrix")
    return Signature{ir::GpuIntrinsic::LdMatrix, true,
                     {{F::Fragment, "destination fragment", halves, {8, 4}}, {F::Tile, "source tile", halves, {}}},
                     "fragment, shared tile", true};
  if (name == "ldmatrix_trans")
    return Signature{ir::GpuIntrinsic::LdMatrixTrans, true,
                     {{F::Fragment, "destination fragment", halves, {4}}, {F::Tile, "source tile", halves, {}}},
                     "fragment, shared tile", true};
  if (name == "cp_async")
    return Signature{ir::GpuIntrinsic::CpAsync, false,
                     {{F::SharedElem, "destination", {}, {}}, {F::GlobalElem, "source", {}, {}},
                      {F::Count, "element count", {}, {}}},
                     "shared destination, global source, element count", true};
  if (name == "atomic_add")
    return Signature{ir::GpuIntrinsic::AtomicAdd, false,
                     {{F::AtomicElem, "target", {ScalarType::F32, ScalarType::I32}, {}}, {F::Value, "value", {}, {}}},
                     "global or shared target element, value", false};
  if (name == "cp_async_commit") return Signature{ir::GpuIntrinsic::CpAsyncCommit, false, {}, "", false};
  if (name == "cp_async_wait")
    return Signature{ir::GpuIntrinsic::CpAsyncWait, false, {{F::Count, "group count", {}, {}}}, "group count", false};
  return std::nullopt;
}

class Checker {
public:
  explicit Checker(const IntrinsicContext &cx) : cx_(cx) {}

  ir::Expr count(const ast::Expr &e, const std::string &what) {
    if (e.kind != ast::ExprKind::Int) {
      cx_.diags.error(e.loc, what + " must be an integer literal");
      return nullptr;
    }
    return ir::intImm(e.intValue, ScalarType::I64, e.loc);
  }

  ir::Expr operand(const ast::Stmt &s, size_t n, const OperandRule &rule) {
    using F = OperandRule::Form;
    const ast::Expr &e = *s.indices[n];
    std::string what = fmt::format("operand {} of '{}' (the {})", n + 1, s.target.name, rule.role);
    if (rule.form == F::Count) return count(e, what);
    if (rule.form == F::Value) return value(e);
    bool fragment = rule.form == F::Fragment, atomic = rule.form == F::AtomicElem;
    if (e.kind != ast::ExprKind::Access && !((fragment || atomic) && e.kind == ast::ExprKind::Name)) {
      cx_.diags.error(e.loc, what + " must be " +
                                 (fragment                    ? "a register fragment, e.g. acc[i] or acc"
                                  : rule.form == F::GlobalElem ? "an element of an op tensor, e.g. A[i, k]"
                                  : atomic ? "an element of an op output or a shared tensor, e.g. H[i]"
                                           : "a shared tensor element, e.g. As[r, c]"));
      return nullptr;
    }
    Binding *b = cx_.scope.lookup(e.name);
    if (!b || b->kind != Binding::Kind::Tensor) {
      cx_.diags.error(e.loc, "unknown tensor '" + e.name + "' in " + what +
                                 didYouMean(e.name, cx_.scope.visibleNames(Binding::Kind::Tensor)));
      return nullptr;
    }
    const ir::TensorPtr &t = b->tensor;
    ir::Scope scope = fragment ? ir::Scope::Register : rule.form == F::GlobalElem ? ir::Scope::Global : ir::Scope::Shared;
    if (atomic && !checkAtomicTarget(e, *t, what)) return nullptr;
    if (!atomic && t->scope != scope) {
      cx_.diags.error(e.loc, what + " must be a " + std::string(ir::scopeName(scope)) + " tensor, but '" + t->name +
                                 "' is " + std::string(ir::scopeName(t->scope)));
      return nullptr;
    }
    if (!rule.dtypes.empty() && std::find(rule.dtypes.begin(), rule.dtypes.end(), t->dtype) == rule.dtypes.end()) {
      cx_.diags.error(e.loc, what + " must hold " + dtypeList(rule.dtypes) + ", but '" + t->name + "' holds " +
                                 std::string(ir::scalarTypeName(t->dtype)));
      return nullptr;
    }
    if (e.pad) {
      cx_.diags.error(e.pad->loc, what + " cannot have an 'else' value");
      return nullptr;
    }
    int64_t last = 0;
    bool constLast = t->rank() > 0 && ir::isConstInt(t->shape.back(), &last);
    if (fragment && (!constLast || std::find(rule.lengths.begin(), rule.lengths.end(), last) == rule.lengths.end())) {
      cx_.diags.error(e.loc, "{} must be a fragment of {} elements, but the last dimension of '{}' is {}", what,
                      intList(rule.lengths), t->name, constLast ? fmt::format("{}", last) : "not a constant");
      return nullptr;
    }
    if (rule.form == F::Tile && (t->rank() < 2 || last % 8 != 0)) {
      cx_.diags.error(e.loc, what + ": '" + t->name +
                                 "' must be a shared tensor of rank 2 or more whose rows are a multiple of 8 "
                                 "elements (16 bytes)");
      return nullptr;
    }
    size_t want = fragment ? t->rank() - 1 : t->rank();
    if (e.args.size() != want) {
      cx_.diags.error(e.loc, "{}: '{}' has rank {}, so it takes {} {}{}, not {}", what, t->name, t->rank(), want,
                      want == 1 ? "index" : "indices", fragment ? " (all but the fragment dimension)" : "",
                      e.args.size());
      return nullptr;
    }
    std::vector<ir::Expr> idx;
    for (const auto &a : e.args) {
      idx.push_back(cx_.intExpr(*a, "index"));
      if (!idx.back()) return nullptr;
    }
    if (fragment) idx.push_back(ir::intImm(0));
    return ir::load(t, std::move(idx), nullptr, nullptr, e.loc);
  }

  // Atomics read-modify-write memory that other threads see: a global op
  // output or intermediate (inputs are read-only, and the kernel marks
  // them so) or a shared tensor; register/local ones belong to one thread.
  bool checkAtomicTarget(const ast::Expr &e, const ir::TensorDecl &t, const std::string &what) {
    if (t.scope == ir::Scope::Global && t.role == ir::TensorRole::Input) {
      cx_.diags.error(e.loc, what + " must be an op output or intermediate, but '" + t.name +
                                 "' is an input (inputs are read-only)");
      return false;
    }
    if (t.scope != ir::Scope::Global && t.scope != ir::Scope::Shared) {
      cx_.diags.error(e.loc, what + " must be a global or shared tensor, but '" + t.name + "' is " +
                                 std::string(ir::scopeName(t.scope)) + " (atomics update memory that threads share)");
      return false;
    }
    return true;
  }

  // atomic_add's value: any number without a warp shuffle. The value is
  // computed under the atomic's bounds guard, where some lanes may not
  // run, and a shuffle needs all 32 (kernels reject reductions anyway).
  ir::Expr value(const ast::Expr &e) {
    ir::Expr v = cx_.valueExpr(e);
    if (!v) return nullptr;
    bool shuffles = false;
    ir::visitExpr(v, [&](const ir::Expr &x) { shuffles |= x->kind == ir::ExprKind::Shuffle; });
    if (shuffles) {
      cx_.diags.error(e.loc, "the value of 'atomic_add' cannot contain a warp shuffle; compute it into a register "
                             "tensor first");
      return nullptr;
    }
    if (v->type == ScalarType::Bool) {
      cx_.diags.error(e.loc, "the value of 'atomic_add' must be a number, not bool");
      return nullptr;
    }
    return v;
  }

  // cp.async copies 4, 8 or 16 bytes. The product is checked: 2^62 + 1 f32
  // elements wrapped to 4 bytes, and the backend unrolled a copy of 2^62 + 1.
  bool checkCopySize(const ast::Stmt &s, const ir::MStmt &m) {
    int64_t n = m.operands[2]->intValue;
    std::optional<int64_t> bytes = ir::checkedMul(n, ir::scalarTypeBytes(m.operands[0]->tensor->dtype));
    if (n > 0 && (bytes == 4 || bytes == 8 || bytes == 16)) return true;
    cx_.diags.error(s.indices[2]->loc, "'cp_async' copies 4, 8 or 16 bytes, but {} {} elements are {}", n,
                    ir::scalarTypeName(m.operands[0]->tensor->dtype),
                    bytes ? fmt::format("{}", *bytes) : "2^63 or more");
    return false;
  }

  ir::MStmtPtr run(const ast::Stmt &s) {
    const std::string &name = s.target.name;
    auto sig = signature(name);
    if (!sig) {
      std::vector<std::string> known = {"mma",      "ldmatrix",        "ldmatrix_trans", "cp_async",
                                        "cp_async_commit", "cp_async_wait", "atomic_add"};
      cx_.diags.error(s.target.loc, "unknown statement '" + name + "' (the GPU statements are mma, ldmatrix, "
                                    "ldmatrix_trans, cp_async, cp_async_commit, cp_async_wait and atomic_add)" +
                                        didYouMean(name, known));
      return nullptr;
    }
    if (cx_.target != ir::TargetFamily::Cuda) {
      cx_.diags.error(s.target.loc, "'" + name + "' is a GPU instruction and exists only in cuda kernels, not " +
                                        std::string(ir::targetFamilyName(cx_.target)) + " ones");
      return nullptr;
    }
    if (sig->warpCollective && !cx_.inWarps) {
      cx_.diags.error(s.target.loc, "'" + name + "' is executed by a whole warp: write it inside a task mapping "
                                                 "'on warps' (and not inside one 'on threads')");
      return nullptr;
    }
    auto m = std::make_shared<ir::MStmt>();
    m->kind = ir::MStmt::Kind::Intrinsic;
    m->loc = s.loc;
    m->intrinsic = sig->kind;
    if (s.indices.size() != sig->rules.size()) {
      size_t n = sig->rules.size();
      std::string operands = n ? fmt::format("{} operand{} ({})", n, n == 1 ? "" : "s", sig->operandNames)
                               : std::string("no operands");
      cx_.diags.error(s.target.loc, "'{}' takes {}, not {}", name, operands, s.indices.size());
      return nullptr;
    }
    bool ok = true;
    for (size_t i = 0; i < sig->rules.size(); ++i) {
      m->operands.push_back(operand(s, i, sig->rules[i]));
      ok &= m->operands.back() != nullptr;
    }
    if (!ok) return nullptr;
    if (sig->sameDtype) {
      size_t ix = m->intrinsic == ir::GpuIntrinsic::CpAsync ? 0 : m->operands.size() - 2;
      const ir::Expr &x = m->operands[ix], &y = m->operands[ix + 1];
      if (x->tensor->dtype != y->tensor->dtype) {
        cx_.diags.error(s.indices[ix + 1]->loc, "'" + name + "' operands '" + x->tensor->name + "' and '" +
                                                    y->tensor->name + "' must have the same element type (" +
                                                    std::string(ir::scalarTypeName(x->tensor->dtype)) + " vs " +
                                                    std::string(ir::scalarTypeName(y->tensor->dtype)) + ")");
        return nullptr;
      }
    }
    if (m->intrinsic == ir::GpuIntrinsic::CpAsync && !checkCopySize(s, *m)) return nullptr;
    if (m->intrinsic == ir::GpuIntrinsic::AtomicAdd) {
      const ir::TensorPtr &t = m->operands[0]->tensor;
      m->operands[1] = convertForStore(m->operands[1], t->dtype, t->name, s.indices[1]->loc, cx_.diags);
      if (!m->operands[1]) return nullptr;
    }
    if (m->intrinsic == ir::GpuIntrinsic::CpAsyncWait && m->operands[0]->intValue > 7) {
      cx_.diags.error(s.indices[0]->loc, "'cp_async_wait' takes a group count from 0 to 7");
      return nullptr;
    }
    return m;
  }

private:
  const IntrinsicContext &cx_;
};

} // namespace

ir::MStmtPtr checkIntrinsic(const ast::Stmt &s, const IntrinsicContext &cx) { return Checker(cx).run(s); }

namespace {
const std::vector<std::pair<std::string, ir::ShuffleOp>> kShuffles = {{"shfl_xor", ir::ShuffleOp::Xor},
                                                                        {"shfl_down", ir::ShuffleOp::Down},
                                                                        {"shfl_up", ir::ShuffleOp::Up},
                                                                        {"shfl_idx", ir::ShuffleOp::Idx}};
} // namespace

bool isShuffleName(const std::string &name) {
  return std::any_of(kShuffles.begin(), kShuffles.end(), [&](const auto &p) { return p.first == name; });
}

ir::Expr checkShuffle(const ast::Expr &e, std::vector<ir::Expr> args, const ShuffleContext &cx) {
  const std::string &name = e.name;
  auto fail = [&](SourceLoc loc, const std::string &msg) -> ir::Expr {
    cx.diags.error(loc, msg);
    return nullptr;
  };
  if (!cx.inKernel)
    return fail(e.loc, "'" + name + "' is a warp instruction of cuda kernels; an op states what is computed "
                                    "(write the reduction with sum, max, ...)");
  if (cx.target != ir::TargetFamily::Cuda)
    return fail(e.loc, "'" + name + "' is a GPU instruction and exists only in cuda kernels, not " +
                           std::string(ir::targetFamilyName(cx.target)) + " ones");
  if (!cx.inLanes)
    return fail(e.loc, "'" + name + "' exchanges values between the 32 lanes of a warp: write it inside a task "
                                    "mapping 'on threads' or 'on warps'");
  if (args.size() != 2)
    return fail(e.loc, fmt::format("'{}' takes 2 arguments (value, {}), got {}", name,
                                   name == "shfl_xor"   ? "lane mask"
                                   : name == "shfl_idx" ? "source lane"
                                                        : "lane delta",
                                   args.size()));
  if (args[0]->type != ScalarType::F32 && args[0]->type != ScalarType::I32)
    return fail(e.args[0]->loc, "'" + name + "' moves 32-bit values: its first argument must be f32 or i32, not " +
                                    std::string(ir::scalarTypeName(args[0]->type)));
  if (!ir::isInteger(args[1]->type))
    return fail(e.args[1]->loc, "the lane operand of '" + name + "' must be an integer, not " +
                                    std::string(ir::scalarTypeName(args[1]->type)));
  int64_t lane = 0;
  if (ir::isConstInt(args[1], &lane) && (lane < 0 || lane > 31))
    return fail(e.args[1]->loc,
                fmt::format("the lane operand of '{}' must be in 0..31 (a warp has 32 lanes), not {}", name, lane));
  auto it = std::find_if(kShuffles.begin(), kShuffles.end(), [&](const auto &p) { return p.first == name; });
  if (it == kShuffles.end()) throw InternalError("checkShuffle: not a shuffle: " + name);
  ir::Expr laneArg = ir::isConstInt(args[1]) ? ir::intImm(lane, ScalarType::I32, args[1]->loc)
                     : args[1]->type == ScalarType::I32 ? args[1]
                                                         : ir::cast(ScalarType::I32, args[1], e.args[1]->loc);
  return ir::shuffle(it->second, args[0], laneArg, e.loc);
}

} // namespace tk::sema
