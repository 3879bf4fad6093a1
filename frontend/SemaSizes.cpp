#include "frontend/SemaSizes.h"

#include "ir/IRRewrite.h"
#include "ir/IntArith.h"
#include "ir/Simplify.h"
#include "ir/TensorSize.h"

#include <fmt/format.h>

namespace tk::sema {

namespace {

std::string describe(const ir::TensorDecl &t) {
  const char *role = t.role == ir::TensorRole::Input    ? "input"
                     : t.role == ir::TensorRole::Output ? "output"
                     : t.role == ir::TensorRole::Intermediate ? "intermediate"
                                                              : nullptr;
  std::string what = role ? role : std::string(ir::scopeName(t.scope)) + " tensor";
  return what + " '" + t.name + "' (" + ir::printTensorType(t) + ")";
}

bool checkTensor(const ir::TensorDecl &t, bool local, DiagEngine &diags) {
  // A symbolic extent is checked at entry (status 1); a constant one can
  // be refused now.
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t v = 0;
    if (ir::isConstInt(ir::simplify(t.shape[d]), &v) && v < 0) {
      diags.error(t.loc, "{} has extent {} in dimension {}: an extent must not be negative", describe(t), v, d);
      return false;
    }
  }
  ir::ConstantSize size = ir::constantSize(t);
  if (size.tooLarge) {
    diags.error(t.loc, describe(t) + " is too large: " + (size.known ? "it takes" : "its constant extents alone take") +
                           " more than 2^47 bytes (128 TiB), the most any tensor may take");
    return false;
  }
  bool stack = local && (t.scope == ir::Scope::Register || t.scope == ir::Scope::Local);
  if (stack && size.known && size.bytes > ir::kMaxStackTensorBytes) {
    diags.error(t.loc,
                "{} takes {} bytes; register and local tensors live on the stack and may take at most 1 MiB ({} "
                "bytes): declare it global",
                describe(t), size.bytes, ir::kMaxStackTensorBytes);
    return false;
  }
  return true;
}

// The task shape of a composed mapping multiplies its factors' extents
// per dimension, and its workers the spatial extents: with constants, each
// product must fit int64 (spatial(2^62) * repeat(4) would index task 2^64).
bool checkMapping(const ir::MStmt &s, DiagEngine &diags) {
  const ir::TaskMapping &m = s.mapping;
  std::vector<int64_t> shape(m.rank(), 1);
  int64_t workers = 1;
  for (const ir::MappingAtom &a : m.atoms)
    for (size_t d = 0; d < a.dims.size() && d < shape.size(); ++d) {
      int64_t v = 0;
      if (!ir::isConstInt(ir::simplify(a.dims[d]), &v) || v <= 0) continue; // symbolic, or refused elsewhere
      std::optional<int64_t> task = ir::checkedMul(shape[d], v);
      std::optional<int64_t> work = a.kind == ir::MappingAtom::Kind::Spatial ? ir::checkedMul(workers, v) : workers;
      if (!task || !work) {
        diags.error(a.loc.valid() ? a.loc : s.loc, "task mapping '{}' has more than 2^63 {}", ir::printMapping(m),
                    task ? "workers" : fmt::format("tasks in dimension {}", d));
        return false;
      }
      shape[d] = *task;
      workers = *work;
    }
  return true;
}

} // namespace

bool checkTensorSizes(const ir::Module &m, DiagEngine &diags) {
  bool ok = true;
  for (const ir::OpPtr &op : m.ops) {
    for (const ir::Param &p : op->inputs)
      if (p.tensor) ok &= checkTensor(*p.tensor, false, diags);
    for (const ir::TensorPtr &t : op->outputs) ok &= checkTensor(*t, false, diags);
    for (const ir::TensorPtr &t : op->intermediates) ok &= checkTensor(*t, false, diags);
  }
  for (const ir::KernelPtr &k : m.kernels)
    ir::visitMStmt(k->body, [&](const ir::MStmt &s) {
      if (s.kind == ir::MStmt::Kind::Alloc && s.tensor) ok &= checkTensor(*s.tensor, true, diags);
      if (s.kind == ir::MStmt::Kind::MapFor) ok &= checkMapping(s, diags);
    });
  return ok;
}

} // namespace tk::sema
