#include "scheduler/cpu/PackOperand.h"

#include "ir/Diagnostics.h"
#include "ir/Simplify.h"

namespace tk {
using namespace ir;

PackedOperand packPanels(const Expr &operand, const PanelSpec &spec, SourceLoc loc) {
  if (!operand || (operand->type != ScalarType::F32 && operand->type != ScalarType::F64))
    throw InternalError("packPanels: the operand is not an f32/f64 expression");
  PackedOperand out;
  TensorPtr buf = scratchTensor(spec.buffer, operand->type,
                                {intImm(spec.panels), intImm(spec.depth), intImm(spec.width)}, Scope::Local, loc);
  out.buffer = buf;
  out.alloc = mAlloc(buf, loc);

  Expr p = var(spec.copyVars[0], VarKind::Loop), d = var(spec.copyVars[1], VarKind::Loop),
       w = var(spec.copyVars[2], VarKind::Loop);
  Expr value = substitute(operand, {{spec.outerVar, simplify(add(spec.outerBase, add(mul(p, intImm(spec.width)), w)))},
                                    {spec.depthVar, simplify(add(spec.depthBase, d))}});
  MStmtPtr lanes = mMapFor({spec.copyVars[2]}, MappingAtom::Kind::Repeat, {intImm(spec.width)}, std::nullopt,
                           mStore(buf, {p, d, w}, value, AccumOp::None, loc), loc);
  MStmtPtr rows = seqFor(spec.copyVars[1], spec.liveDepth ? spec.liveDepth : intImm(spec.depth), lanes, loc);
  out.copy = seqFor(spec.copyVars[0], spec.livePanels ? spec.livePanels : intImm(spec.panels), rows, loc);
  return out;
}

MStmtPtr seqFor(const std::string &v, Expr end, MStmtPtr body, SourceLoc loc) {
  return mSeqFor(v, simplify(std::move(end)), std::move(body), loc);
}

Expr loadPanel(const PackedOperand &p, Expr panel, Expr depth, Expr lane) {
  return load(p.buffer, {std::move(panel), std::move(depth), std::move(lane)});
}

} // namespace tk
