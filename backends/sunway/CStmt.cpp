#include "backends/sunway/CStmt.h"

#include "backends/common/CHeader.h"
#include "ir/Diagnostics.h"
#include "ir/FloatOps.h"
#include "ir/IRRewrite.h"

#include <fmt/format.h>

#include <set>

namespace tk::sunway {

using ir::Expr;
using ir::LStmt;


void CWriter::line(const std::string &text) {
  out_.append(static_cast<size_t>(2 * depth_), ' ');
  out_ += text;
  out_ += '\n';
}

// `/* t.tk:4 */` before the first loop of each .tk line, so a reader can
// map generated code back to the statement it computes.
void CWriter::comment(const LStmt &s) {
  if (!s.loc.valid() || s.loc.line == lastLine_) return;
  lastLine_ = s.loc.line;
  line(fmt::format("/* .tk line {} */", s.loc.line));
}

void CWriter::stmt(const ir::LStmtPtr &sp) {
  if (!sp) return;
  const LStmt &s = *sp;
  switch (s.kind) {
  case LStmt::Kind::Block:
    for (const ir::LStmtPtr &c : s.stmts) stmt(c);
    return;
  case LStmt::Kind::For: return forLoop(s);
  case LStmt::Kind::Store: return store(s);
  case LStmt::Kind::Alloc: return alloc(s);
  case LStmt::Kind::If:
    line("if (" + cExpr(s.cond, names_) + ") {");
    indent(1);
    stmt(s.thenS);
    indent(-1);
    if (s.elseS) {
      line("} else {");
      indent(1);
      stmt(s.elseS);
      indent(-1);
    }
    line("}");
    return;
  case LStmt::Kind::Let: {
    // A chain of lets shares one block (distinct names: C forbids a
    // second declaration of a name in one block).
    line("{");
    indent(1);
    std::set<std::string> declared;
    const LStmt *l = &s;
    for (;;) {
      declared.insert(l->var);
      line(fmt::format("const {} {} = {};", cValueType(l->value->type), names_.var(l->var), cExpr(l->value, names_)));
      if (!l->body || l->body->kind != LStmt::Kind::Let || declared.count(l->body->var)) break;
      l = l->body.get();
    }
    stmt(l->body);
    indent(-1);
    line("}");
    return;
  }
  case LStmt::Kind::Check:
    if (side_ == Side::Cpe) throw InternalError("sunway backend: a run-time check on the CPEs");
    line(fmt::format("if (!({})) return {}; /* {} */", cExpr(s.cond, names_), s.errorCode, s.message));
    return;
  case LStmt::Kind::Barrier:
    if (side_ == Side::Mpe) throw InternalError("sunway backend: a barrier outside a CPE loop");
    line("athread_syn(ARRAY_SCOPE, 0xffff);");
    return;
  case LStmt::Kind::Prefetch: return; // a cache hint; CPEs have no data cache
  case LStmt::Kind::Dma: return dma(s);
  case LStmt::Kind::DmaWait: {
    const AsyncReply &r = async_.at(s.buffer.get());
    return line(fmt::format("while ({} != {}) {{ TK_DMA_SPIN(); }}", r.reply, r.issued));
  }
  case LStmt::Kind::Intrinsic: break;
  }
  throw InternalError("sunway backend: a statement with no C form on the Sunway target");
}

void CWriter::forLoop(const LStmt &s) {
  if (s.forKind == ir::ForKind::Parallel) {
    if (side_ == Side::Mpe && s.worker == ir::WorkerKind::Cpes && hooks_.spawn) return hooks_.spawn(*this, s);
    throw InternalError("sunway backend: a parallel loop that is not the outermost loop over the CPEs");
  }
  comment(s);
  const std::string &v = names_.var(s.var);
  std::string end = names_.fresh(s.var + "_end");
  line(fmt::format("for (int64_t {0} = {1}, {2} = {1} + {3}; {0} < {2}; ++{0}) {{", v, cExpr(s.min, names_), end,
                   cExpr(s.extent, names_)));
  indent(1);
  stmt(s.body);
  indent(-1);
  line("}");
}

void CWriter::store(const LStmt &s) {
  const ir::TensorDecl &t = *s.tensor;
  std::string text = fmt::format("{}[{}] = {};", names_.tensor(&t), cOffset(t, s.indices, names_),
                                 cStored(cExpr(s.value, names_), s.value->type, t.dtype));
  // CPE code declares its arithmetic and its direct main-memory accesses
  // (tensors no LDM box holds) for the emulator's accounting.
  if (side_ == Side::Cpe) {
    if (int64_t n = ir::floatOps(s.value)) text += fmt::format(" TK_FLOPS({});", n);
    int64_t count = 0, bytes = 0;
    auto global = [&](const ir::TensorDecl &g) {
      if (g.scope == ir::Scope::Global) count += 1, bytes += ir::scalarTypeBytes(g.dtype);
    };
    ir::visitExpr(s.value, [&](const ir::Expr &e) {
      if (e->kind == ir::ExprKind::Load) global(*e->tensor);
    });
    global(t);
    if (count) text += fmt::format(" TK_GMEM({}, {});", count, bytes);
  }
  if (s.pred) text = "if (" + cExpr(s.pred, names_) + ") { " + text + " }";
  line(text);
}

void CWriter::alloc(const LStmt &s) {
  const ir::TensorDecl &t = *s.tensor;
  const std::string &name = names_.tensor(&t);
  std::string type = cTypeName(t.dtype);
  if (t.scope == ir::Scope::Global) {
    if (side_ == Side::Cpe || !hooks_.intermediate)
      throw InternalError("sunway backend: a main-memory buffer allocated on the CPEs");
    return hooks_.intermediate(*this, s);
  }
  std::string count = "1";
  for (const ir::Expr &d : t.shape) count += " * " + cExpr(d, names_);
  line("{");
  indent(1);
  if (t.scope == ir::Scope::Ldm) {
    if (side_ == Side::Mpe) throw InternalError("sunway backend: an ldm buffer on the MPE");
    // ldm_malloc, not a __thread_local array: the emulator (and the
    // budget check) count it for the spawn that uses it only.
    std::string bytes = names_.fresh(t.name + "_bytes");
    line(fmt::format("const size_t {} = (size_t)({}) * sizeof({});", bytes, count, type));
    line(fmt::format("{} *{} = ({} *)ldm_malloc({});", type, name, type, bytes));
    // A buffer filled ahead (double buffering) counts its transfers on a
    // reply word of its own.
    bool async = false;
    ir::visitLStmt(s.body, [&](const LStmt &d) { async |= d.kind == LStmt::Kind::Dma && d.async && d.buffer == s.tensor; });
    if (async) {
      AsyncReply r{names_.fresh(t.name + "_reply"), names_.fresh(t.name + "_issued")};
      line(fmt::format("volatile int {} = 0;", r.reply));
      line(fmt::format("int {} = 0;", r.issued));
      async_[&t] = r;
    }
    stmt(s.body);
    line(fmt::format("ldm_free({}, {});", name, bytes));
  } else {
    // register / local: on the CPE's stack (in LDM on the chip)
    line(fmt::format("{} {}[{}];", type, name, count));
    stmt(s.body);
  }
  indent(-1);
  line("}");
}

void CWriter::dma(const LStmt &s) {
  if (side_ == Side::Mpe) throw InternalError("sunway backend: a dma on the MPE");
  const ir::TensorDecl &t = *s.tensor;
  size_t rank = t.rank();
  std::string dims, origin, ext;
  for (size_t d = 0; d < rank; ++d) {
    std::string sep = d ? ", " : "";
    dims += sep + cExpr(t.shape[d], names_);
    origin += sep + cExpr(s.indices[d], names_);
    ext += sep + cExpr(s.operands[d], names_);
  }
  if (rank == 0) dims = origin = ext = "0"; // C has no empty arrays; rank 0 reads none
  line("{");
  indent(1);
  line(fmt::format("const int64_t tk_dims[] = {{{}}}, tk_origin[] = {{{}}}, tk_ext[] = {{{}}};", dims, origin, ext));
  std::string buf = names_.tensor(s.buffer.get());
  if (s.value) buf = fmt::format("({} + {})", buf, cExpr(s.value, names_));
  std::string call = fmt::format("tk_dma_box({}, (char *){}, tk_dims, tk_origin, tk_ext, {}, (int64_t)sizeof({}[0]), "
                                 "(char *){}, {}, {})",
                                 s.put ? 1 : s.broadcast ? 2 : 0, names_.tensor(&t), rank, names_.tensor(&t), buf,
                                 !s.broadcast ? "0" : s.rowBroadcast ? "1 << _ROW" : "0xff",
                                 s.async ? "&" + async_.at(s.buffer.get()).reply : "0");
  if (!s.async) {
    line(call + ";");
  } else {
    // Issued ahead of its use: TK_DMA_AHEAD tells the emulator's accounting
    // (the model overlaps these transfers with computation).
    line("TK_DMA_AHEAD(1);");
    line(fmt::format("{} += {};", async_.at(s.buffer.get()).issued, call));
    line("TK_DMA_AHEAD(0);");
  }
  indent(-1);
  line("}");
}

} // namespace tk::sunway
