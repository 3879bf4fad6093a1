// Hand-built IR for the scheduler and IR tests (no frontend needed), and
// the whole pipeline run on one op of it.
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"
#include "ir/Module.h"
#include "scheduler/Pipeline.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/construct/HardwareDesc.h"
#include "source_module.h"

#include <fmt/format.h>

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tk::schedtest {

inline ir::Expr sym(const std::string &n) { return ir::var(n, ir::VarKind::Symbol); }
inline ir::Expr idx(const std::string &n) { return ir::var(n, ir::VarKind::Index); }
inline ir::Expr lv(const std::string &n) { return ir::var(n, ir::VarKind::Loop); }
inline ir::Expr ci(int64_t v) { return ir::intImm(v); }
inline SourceLoc at(int line, int col) { return SourceLoc{0, line, col}; }

inline ir::TensorPtr tensor(const std::string &name, std::vector<ir::Expr> shape, ir::TensorRole role,
                            ir::Scope scope = ir::Scope::Global) {
  auto t = std::make_shared<ir::TensorDecl>();
  t->name = name;
  t->shape = std::move(shape);
  t->role = role;
  t->scope = scope;
  return t;
}

inline ir::Param param(const ir::TensorPtr &t) { return ir::Param{t->name, t->dtype, t, {}}; }

// op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] where K >= 1
//   { C[i, j] = sum(k) A[i, k] * B[k, j]; }
inline ir::OpPtr matmulOp() {
  using namespace ir;
  auto op = std::make_shared<Op>();
  op->name = "matmul";
  auto A = tensor("A", {sym("M"), sym("K")}, TensorRole::Input);
  auto B = tensor("B", {sym("K"), sym("N")}, TensorRole::Input);
  auto C = tensor("C", {sym("M"), sym("N")}, TensorRole::Output);
  op->inputs = {param(A), param(B)};
  op->outputs = {C};
  op->symbols = {"M", "K", "N"};
  op->where = {{binary(BinOp::GE, sym("K"), ci(1)), at(2, 9)}};
  Expr body = binary(BinOp::Mul, load(A, {idx("i"), idx("k")}), load(B, {idx("k"), idx("j")}));
  op->body = {{C, {{"i", sym("M"), {}}, {"j", sym("N"), {}}}, reduce(ReduceOp::Sum, {{"k", sym("K"), {}}}, body), {}}};
  return op;
}

inline ir::MappingAtom spatial(std::vector<ir::Expr> dims) {
  ir::MappingAtom a;
  a.kind = ir::MappingAtom::Kind::Spatial;
  a.dims = std::move(dims);
  return a;
}
inline ir::MappingAtom repeat(std::vector<ir::Expr> dims) {
  ir::MappingAtom a = spatial(std::move(dims));
  a.kind = ir::MappingAtom::Kind::Repeat;
  return a;
}

inline ir::MStmtPtr mapFor(std::vector<std::string> vars, std::vector<ir::MappingAtom> atoms,
                           std::optional<ir::WorkerKind> worker, ir::MStmtPtr body, SourceLoc loc = {}) {
  auto s = std::make_shared<ir::MStmt>();
  s->kind = ir::MStmt::Kind::MapFor;
  s->vars = std::move(vars);
  s->mapping.atoms = std::move(atoms);
  s->worker = worker;
  s->body = std::move(body);
  s->loc = loc;
  return s;
}

inline ir::MStmtPtr seqFor(std::string v, ir::Expr b, ir::Expr e, ir::MStmtPtr body, SourceLoc loc = {}) {
  auto s = std::make_shared<ir::MStmt>();
  s->kind = ir::MStmt::Kind::SeqFor;
  s->var = std::move(v);
  s->begin = std::move(b);
  s->end = std::move(e);
  s->body = std::move(body);
  s->loc = loc;
  return s;
}

inline ir::MStmtPtr store(ir::TensorPtr t, std::vector<ir::Expr> idx, ir::Expr value,
                          ir::AccumOp accum = ir::AccumOp::None, SourceLoc loc = {}) {
  auto s = std::make_shared<ir::MStmt>();
  s->kind = ir::MStmt::Kind::Store;
  s->tensor = std::move(t);
  s->indices = std::move(idx);
  s->value = std::move(value);
  s->accum = accum;
  s->loc = loc;
  return s;
}

inline ir::MStmtPtr allocS(ir::TensorPtr t) {
  auto s = std::make_shared<ir::MStmt>();
  s->kind = ir::MStmt::Kind::Alloc;
  s->tensor = std::move(t);
  return s;
}

inline ir::KernelPtr kernel(const ir::OpPtr &op, ir::TargetFamily target, ir::MStmtPtr body) {
  auto k = std::make_shared<ir::Kernel>();
  k->name = op->name + "_k";
  k->op = op;
  k->target = target;
  k->body = std::move(body);
  k->loc = at(1, 1);
  return k;
}

// A source file of 40 numbered lines, so diagnostics have text to show.
struct DiagFixture {
  SourceManager sm;
  std::ostringstream out;
  DiagEngine diags{sm};
  DiagFixture() {
    std::string text;
    for (int i = 1; i <= 40; ++i) text += fmt::format("line {}\n", i);
    sm.addFile("k.tk", text);
    diags.setStream(&out);
  }
  std::string messages() const {
    std::string s;
    for (const Diagnostic &d : diags.all()) s += d.message + "\n";
    return s;
  }
};

// `op` through lowerModule (with kernel `k`, else its default schedule):
// its one function; any diagnostic fails the test.
inline ir::LoweredFunc lowerOne(const ir::OpPtr &op, ir::KernelPtr k = nullptr) {
  ir::Module m;
  m.ops = {op};
  if (k) m.kernels = {k};
  m.exports = {{op->name, op, k, {}}};
  DiagFixture fx;
  auto fs = lowerModule(m, PipelineOptions{}, fx.diags);
  REQUIRE(fx.messages() == "");
  REQUIRE(fs.size() == 1);
  return fs[0];
}

// Every function of the module of `src`, lowered with default schedules
// (no contraction constructors): the loop IR the CPU passes see for
// pooling-like ops. Fails the test when nothing lowers.
inline std::vector<ir::LoweredFunc> lowerSource(const std::string &src) {
  ir::Module m = unittest::moduleFromSource(src);
  DiagFixture fx;
  PipelineOptions opts;
  opts.constructContractions = false;
  auto fs = lowerModule(m, opts, fx.diags);
  REQUIRE_MESSAGE(!fs.empty(), fx.out.str());
  return fs;
}

// stdlib/targets/NAME.hw, parsed (fails the test when it does not parse).
inline construct::HardwareDesc stdlibTarget(const std::string &name) {
  std::ifstream in(std::string(TK_SOURCE_STDLIB_DIR) + "/targets/" + name + ".hw");
  std::ostringstream text;
  text << in.rdbuf();
  DiagFixture fx;
  auto h = construct::parseHardwareDesc(text.str(), fx.sm.addFile(name + ".hw", text.str()), fx.diags);
  REQUIRE_MESSAGE(h, fx.messages());
  return *h;
}

// A module exporting matmulOp() alone, and the options that schedule it
// for one Sunway core group of stdlib/targets/HW.hw at `shapes` (tests set
// the Sunway switches of `options` as they need).
struct SunwayMatmul {
  ir::Module module;
  construct::ConstructOptions construct;
  PipelineOptions options;
  explicit SunwayMatmul(const std::string &hw, std::map<std::string, int64_t> shapes = {}) {
    ir::OpPtr op = matmulOp();
    module.ops = {op};
    module.exports = {{op->name, op, nullptr, {}}};
    construct.hw = stdlibTarget(hw);
    construct.shapes = std::move(shapes);
    options.target.family = ir::TargetFamily::Sunway;
    options.construct = &construct;
  }
  SunwayMatmul(const SunwayMatmul &) = delete; // options point at construct
  SunwayMatmul &operator=(const SunwayMatmul &) = delete;
};

// The printed loop IR of lowerSource(src), function after function.
inline std::string loopIRText(const std::string &src) {
  std::string text;
  for (const ir::LoweredFunc &f : lowerSource(src)) text += printLoweredFunc(f);
  return text;
}

} // namespace tk::schedtest
