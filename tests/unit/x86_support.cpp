#include "x86_support.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tk::test {

using namespace tk::ir;

TensorPtr tensor(const std::string &name, ScalarType t, std::vector<Expr> shape, TensorRole role, Scope scope) {
  auto d = std::make_shared<TensorDecl>();
  d->name = name;
  d->dtype = t;
  d->shape = std::move(shape);
  d->role = role;
  d->scope = scope;
  return d;
}
Expr sym(const std::string &name, ScalarType t) { return var(name, VarKind::Symbol, t); }
Expr loopVar(const std::string &name) { return var(name, VarKind::Loop); }

static LStmtPtr stmt(LStmt::Kind k) {
  auto s = std::make_shared<LStmt>();
  s->kind = k;
  return s;
}
LStmtPtr forLoop(const std::string &v, Expr extent, LStmtPtr body, ForKind kind, std::optional<WorkerKind> worker) {
  LStmtPtr s = lFor(v, intImm(0), std::move(extent), std::move(body), {}, kind);
  s->worker = worker;
  return s;
}
LStmtPtr store(TensorPtr t, std::vector<Expr> idx, Expr value, Expr pred) {
  auto s = stmt(LStmt::Kind::Store);
  s->tensor = std::move(t);
  s->indices = std::move(idx);
  s->value = std::move(value);
  s->pred = std::move(pred);
  return s;
}
LStmtPtr alloc(TensorPtr t, LStmtPtr body) {
  auto s = stmt(LStmt::Kind::Alloc);
  s->tensor = std::move(t);
  s->body = std::move(body);
  return s;
}
LStmtPtr check(Expr cond, int code) {
  auto s = stmt(LStmt::Kind::Check);
  s->cond = std::move(cond);
  s->errorCode = code;
  s->message = "test check";
  return s;
}

OpPtr makeOp(const std::string &name, std::vector<Param> inputs, std::vector<TensorPtr> outputs,
             std::vector<std::string> symbols) {
  auto op = std::make_shared<Op>();
  op->name = name;
  op->inputs = std::move(inputs);
  op->outputs = std::move(outputs);
  op->symbols = std::move(symbols);
  return op;
}
Param tensorParam(TensorPtr t) { return Param{t->name, t->dtype, t, {}}; }
Param scalarParam(const std::string &name, ScalarType t) { return Param{name, t, nullptr, {}}; }

std::string emit(const std::vector<LoweredFunc> &funcs, CodegenOutput kind, const std::string &target,
                 int optLevel) {
  std::string error;
  auto t = resolveCpuTarget(target, &error);
  REQUIRE_MESSAGE(t, error);
  SourceManager sm;
  DiagEngine diags(sm);
  std::string out;
  REQUIRE(emitCpuCode(funcs, *t, optLevel, kind, "test.tk", out, diags));
  return out;
}

// libtkrt.a lives in <build>/lib, next to <build>/bin where the test runs.
static std::string runtimeLibrary() {
  auto exe = std::filesystem::read_symlink("/proc/self/exe");
  return (exe.parent_path().parent_path() / "lib" / "libtkrt.a").string();
}

LoadedKernels::LoadedKernels(const std::vector<LoweredFunc> &funcs, const std::string &target, int optLevel) {
  std::string obj = emit(funcs, CodegenOutput::Object, target, optLevel);
  char tmpl[] = "/tmp/tk_x86_test_XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  dir_ = tmpl;
  std::ofstream(dir_ + "/k.o", std::ios::binary) << obj;
  std::string cmd = "cc -shared -o " + dir_ + "/k.so " + dir_ + "/k.o " + runtimeLibrary() + " -lm -lpthread";
  REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
  handle_ = dlopen((dir_ + "/k.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE_MESSAGE(handle_, dlerror());
}

LoadedKernels::~LoadedKernels() {
  if (handle_) dlclose(handle_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void *LoadedKernels::symbol(const std::string &name) const {
  void *p = dlsym(handle_, name.c_str());
  REQUIRE_MESSAGE(p, "missing symbol " << name);
  return p;
}

} // namespace tk::test
