// Helpers for the x86 backend unit tests: build small loop-IR functions by
// hand, compile them with emitCpuCode to an object, link the object (with
// libtkrt.a and libm) into a shared library with the system `cc` and dlopen it.
#pragma once
#include "backends/x86/X86Backend.h"
#include "ir/LoopIR.h"

#include <memory>
#include <string>
#include <vector>

namespace tk::test {

ir::TensorPtr tensor(const std::string &name, ir::ScalarType t, std::vector<ir::Expr> shape,
                     ir::TensorRole role, ir::Scope scope = ir::Scope::Global);
ir::Expr sym(const std::string &name, ir::ScalarType t = ir::ScalarType::I64);
ir::Expr loopVar(const std::string &name);

ir::LStmtPtr forLoop(const std::string &var, ir::Expr extent, ir::LStmtPtr body,
                     ir::ForKind kind = ir::ForKind::Serial,
                     std::optional<ir::WorkerKind> worker = std::nullopt);
ir::LStmtPtr store(ir::TensorPtr t, std::vector<ir::Expr> idx, ir::Expr value, ir::Expr pred = nullptr);
ir::LStmtPtr alloc(ir::TensorPtr t, ir::LStmtPtr body);
ir::LStmtPtr check(ir::Expr cond, int code);

// An op signature: tensor inputs and scalar params in order, outputs, symbols.
ir::OpPtr makeOp(const std::string &name, std::vector<ir::Param> inputs,
                 std::vector<ir::TensorPtr> outputs, std::vector<std::string> symbols);
ir::Param tensorParam(ir::TensorPtr t);
ir::Param scalarParam(const std::string &name, ir::ScalarType t);

// A compiled and loaded set of functions; the library is unloaded and its
// temporary directory removed on destruction.
class LoadedKernels {
public:
  LoadedKernels(const std::vector<ir::LoweredFunc> &funcs, const std::string &target = "x86_64",
                int optLevel = 2);
  ~LoadedKernels();
  template <typename Fn> Fn *get(const std::string &name) const {
    return reinterpret_cast<Fn *>(symbol(name));
  }

private:
  void *symbol(const std::string &name) const;
  std::string dir_;
  void *handle_ = nullptr;
};

// emitCpuCode into a string; fails the test on errors.
std::string emit(const std::vector<ir::LoweredFunc> &funcs, tk::CodegenOutput kind,
                 const std::string &target = "x86_64", int optLevel = 2);

} // namespace tk::test
