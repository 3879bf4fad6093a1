// A tiny loop-IR evaluator for the scheduler tests: runs a LoweredFunc on
// small double-valued tensors (parallel and vectorized loops run serially)
// and records every store, so tests can compare schedules against the
// meaning of the op and count how often each element is written.
#pragma once
#include "ir/LoopIR.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tk::schedtest {

struct LoopEval {
  std::map<std::string, double> env;                      // symbols, scalars, loop vars
  std::map<const ir::TensorDecl *, std::vector<double>> mem;
  std::map<const ir::TensorDecl *, std::vector<int64_t>> shapes;
  std::map<std::string, std::map<std::vector<int64_t>, int>> storeCounts; // by tensor name
  int status = 0;

  double eval(const ir::Expr &e) {
    using namespace ir;
    switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::BoolImm: return double(e->intValue);
    case ExprKind::FloatImm: return e->floatValue;
    case ExprKind::Var: {
      auto it = env.find(e->name);
      if (it == env.end()) throw std::runtime_error("unbound " + e->name);
      return it->second;
    }
    case ExprKind::Unary: return e->unOp == UnOp::Neg ? -eval(e->args[0]) : double(!eval(e->args[0]));
    case ExprKind::Select: return eval(e->args[0]) ? eval(e->args[1]) : eval(e->args[2]);
    case ExprKind::Cast: return isInteger(e->type) ? std::trunc(eval(e->args[0])) : eval(e->args[0]);
    case ExprKind::Call: {
      double x = eval(e->args[0]);
      switch (e->fn) {
      case MathFn::Exp: return std::exp(x);
      case MathFn::Log: return std::log(x);
      case MathFn::Sqrt: return std::sqrt(x);
      case MathFn::Rsqrt: return 1 / std::sqrt(x);
      case MathFn::Tanh: return std::tanh(x);
      case MathFn::Erf: return std::erf(x);
      case MathFn::Abs: return std::fabs(x);
      }
      return x;
    }
    case ExprKind::Binary: {
      double a = eval(e->args[0]), b = eval(e->args[1]);
      bool ints = isInteger(e->type);
      switch (e->binOp) {
      case BinOp::Add: return a + b;
      case BinOp::Sub: return a - b;
      case BinOp::Mul: return a * b;
      case BinOp::Div: return ints ? std::floor(a / b) : a / b;
      case BinOp::Mod: return ints ? a - std::floor(a / b) * b : std::fmod(a, b);
      case BinOp::CDiv: return std::ceil(a / b);
      case BinOp::Min: return std::min(a, b);
      case BinOp::Max: return std::max(a, b);
      case BinOp::Pow: return std::pow(a, b);
      case BinOp::EQ: return a == b;
      case BinOp::NE: return a != b;
      case BinOp::LT: return a < b;
      case BinOp::LE: return a <= b;
      case BinOp::GT: return a > b;
      case BinOp::GE: return a >= b;
      case BinOp::And: return a && b;
      case BinOp::Or: return a || b;
      }
      return 0;
    }
    case ExprKind::Load: {
      if (e->pred && !eval(e->pred)) return e->pad ? eval(e->pad) : 0;
      return mem.at(e->tensor.get()).at(offset(*e->tensor, e->args));
    }
    default: throw std::runtime_error("cannot evaluate " + printExpr(e));
    }
  }

  size_t offset(const ir::TensorDecl &t, const std::vector<ir::Expr> &idx) {
    const auto &shape = shapes.at(&t);
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      auto i = int64_t(eval(idx[d]));
      if (i < 0 || i >= shape[d]) throw std::runtime_error("out of bounds access to " + t.name);
      off = off * shape[d] + i;
    }
    return size_t(off);
  }

  void allocate(const ir::TensorPtr &t) {
    std::vector<int64_t> shape;
    size_t n = 1;
    for (const ir::Expr &d : t->shape) {
      shape.push_back(int64_t(eval(d)));
      n *= size_t(std::max<int64_t>(shape.back(), 0));
    }
    shapes[t.get()] = shape;
    mem[t.get()].assign(n, 0);
  }

  void exec(const ir::LStmtPtr &s) {
    using namespace ir;
    if (!s || status) return;
    switch (s->kind) {
    case LStmt::Kind::Block:
      for (const LStmtPtr &c : s->stmts) exec(c);
      return;
    case LStmt::Kind::For: {
      auto lo = int64_t(eval(s->min)), n = int64_t(eval(s->extent));
      for (int64_t i = lo; i < lo + n; ++i) {
        env[s->var] = double(i);
        exec(s->body);
      }
      env.erase(s->var);
      return;
    }
    case LStmt::Kind::Let:
      env[s->var] = eval(s->value);
      exec(s->body);
      env.erase(s->var);
      return;
    case LStmt::Kind::Alloc:
      allocate(s->tensor);
      exec(s->body);
      return;
    case LStmt::Kind::If:
      if (eval(s->cond)) exec(s->thenS);
      else exec(s->elseS);
      return;
    case LStmt::Kind::Check:
      if (!eval(s->cond)) status = s->errorCode;
      return;
    case LStmt::Kind::Barrier: return;
    case LStmt::Kind::Prefetch: return;
    case LStmt::Kind::Intrinsic: throw std::runtime_error("warp-collective intrinsics need a GPU");
    case LStmt::Kind::Dma:
    case LStmt::Kind::DmaWait: throw std::runtime_error("Sunway DMA runs on the athread emulator");
    case LStmt::Kind::Store: {
      if (s->pred && !eval(s->pred)) return;
      std::vector<int64_t> idx;
      for (const Expr &i : s->indices) idx.push_back(int64_t(eval(i)));
      ++storeCounts[s->tensor->name][idx];
      double v = eval(s->value);
      mem.at(s->tensor.get()).at(offset(*s->tensor, s->indices)) = v;
      return;
    }
    }
  }

  // Binds symbols, allocates the op's tensors (inputs filled by `fill`) and runs.
  template <typename Fill> void run(const ir::LoweredFunc &f, const std::map<std::string, int64_t> &symbols, Fill fill) {
    for (const auto &[k, v] : symbols) env[k] = double(v);
    for (const ir::Param &p : f.op->inputs)
      if (!p.isScalar()) {
        allocate(p.tensor);
        auto &m = mem[p.tensor.get()];
        for (size_t i = 0; i < m.size(); ++i) m[i] = fill(p.name, i);
      }
    // Outputs start as NaN, as from an uninitialised buffer: an element the
    // kernel never writes then fails any comparison with the definition.
    for (const ir::TensorPtr &t : f.op->outputs) {
      allocate(t);
      auto &m = mem[t.get()];
      std::fill(m.begin(), m.end(), std::numeric_limits<double>::quiet_NaN());
    }
    exec(f.body);
  }

  const std::vector<double> &tensor(const ir::TensorPtr &t) { return mem.at(t.get()); }
};

// Runs a lowered matmul (A: [M, K], B: [K, N] -> C: [M, N]) on inputs from
// `fill`, checks every element of C against the definition, and returns the
// run (its store counts, for callers that check those too).
template <typename Fill>
LoopEval checkMatmul(const ir::LoweredFunc &f, int64_t M, int64_t K, int64_t N, Fill fill) {
  CAPTURE(M);
  CAPTURE(K);
  CAPTURE(N);
  LoopEval ev;
  ev.run(f, {{"M", M}, {"K", K}, {"N", N}}, fill);
  REQUIRE(ev.status == 0);
  const auto &C = ev.tensor(f.op->outputs[0]);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k) want += fill("A", size_t(i * K + k)) * fill("B", size_t(k * N + j));
      CHECK(C[size_t(i * N + j)] == want);
    }
  return ev;
}

} // namespace tk::schedtest
