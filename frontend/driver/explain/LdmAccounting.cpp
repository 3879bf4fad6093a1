#include "frontend/driver/explain/LdmAccounting.h"

#include "frontend/driver/explain/ValueAt.h"
#include "ir/IRVisitor.h"
#include "ir/PrintTypes.h"
#include "scheduler/sunway/SunwayCostModel.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tk::explain {

using namespace ir;

namespace {

// One walk over the function: the statements with a DMA somewhere inside
// (only their loops need running) and the LDM buffers.
class Survey : public LoopVisitor {
public:
  std::set<const LStmt *> holders;
  std::vector<const LStmt *> ldmAllocs;

  void walkStmt(const LStmtPtr &s) override {
    if (!s) return;
    open_.push_back(s.get());
    LoopVisitor::walkStmt(s);
    open_.pop_back();
  }

protected:
  void visitDma(const LStmt &s) override {
    holders.insert(open_.begin(), open_.end());
    LoopVisitor::visitDma(s);
  }
  void visitAlloc(const LStmt &s) override {
    if (s.tensor->scope == Scope::Ldm) ldmAllocs.push_back(&s);
    LoopVisitor::visitAlloc(s);
  }

private:
  std::vector<const LStmt *> open_;
};

class Counter : public LoopVisitor {
public:
  Counter(const std::map<std::string, int64_t> &values, const std::set<const LStmt *> &holders, int64_t budget)
      : holders_(holders), budget_(budget), at_(values) {}
  LdmReport report;

  void walkStmt(const LStmtPtr &s) override {
    if (s && !stopped() && holders_.count(s.get())) LoopVisitor::walkStmt(s);
  }

protected:
  void visitFor(const LStmt &s) override {
    std::optional<int64_t> lo = value(s.min), n = value(s.extent);
    if (!lo || !n) return;
    for (int64_t i = 0; i < *n && !stopped(); ++i) {
      if (++iterations_ > budget_) {
        report.notCounted = fmt::format("not counted: more than {} loop iterations at these sizes "
                                        "(give smaller sizes with --shape-hint)", budget_);
        return;
      }
      env_.emplace_back(s.var, intImm(*lo + i));
      walkStmt(s.body);
      env_.pop_back();
    }
  }
  void visitLet(const LStmt &s) override {
    std::optional<int64_t> v = value(s.value);
    if (!v) return;
    env_.emplace_back(s.var, intImm(*v));
    walkStmt(s.body);
    env_.pop_back();
  }
  void visitIf(const LStmt &s) override {
    std::optional<int64_t> c = value(s.cond);
    if (!c) return;
    walkStmt(*c ? s.thenS : s.elseS);
  }
  void visitAlloc(const LStmt &s) override { walkStmt(s.body); }
  void visitDma(const LStmt &s) override {
    auto [it, fresh] = index_.emplace(&s, report.dmas.size());
    if (fresh) {
      const std::string &from = s.put ? s.buffer->name : s.tensor->name, &to = s.put ? s.tensor->name : s.buffer->name;
      report.dmas.push_back({fmt::format("{}{} {} -> {}", s.put ? "dma_put" : "dma_get", s.async ? " async" : "", from, to),
                             s.loc, s.put, s.async, 0, 0});
    }
    DmaStatement &d = report.dmas[it->second];
    int64_t bytes = scalarTypeBytes(s.tensor->dtype);
    for (const Expr &e : s.operands) bytes *= value(e).value_or(0);
    ++d.count;
    d.bytes += bytes;
  }

private:
  bool stopped() const { return !report.notCounted.empty(); }
  std::optional<int64_t> value(const Expr &e) {
    if (std::optional<int64_t> v = at_(e, env_)) return v;
    if (report.notCounted.empty())
      report.notCounted = fmt::format("not counted: {} has no value at these sizes", printExpr(e));
    return std::nullopt;
  }

  const std::set<const LStmt *> &holders_;
  int64_t budget_, iterations_ = 0;
  ValueAt at_;
  ValueAt::Bindings env_; // the loops and lets around the statement visited
  std::map<const LStmt *, size_t> index_;
};

} // namespace

LdmReport ldmAccounting(const LoweredFunc &f, const std::map<std::string, int64_t> &values, int64_t budget) {
  Survey survey;
  survey.walkStmt(f.body);
  Counter c(values, survey.holders, budget);
  c.walkStmt(f.body);
  // Buffers: their shapes need sizes only (a CPE's LDM holds them all at most).
  ValueAt at(values);
  for (const LStmt *a : survey.ldmAllocs) {
    LdmBuffer b{a->tensor->name, printTensorType(*a->tensor), scalarTypeBytes(a->tensor->dtype), a->loc};
    for (const Expr &d : a->tensor->shape) b.bytes *= at(d).value_or(0);
    c.report.bufferBytes += b.bytes;
    c.report.buffers.push_back(std::move(b));
  }
  if (!c.report.notCounted.empty())
    for (DmaStatement &d : c.report.dmas) d.count = d.bytes = 0;
  return c.report;
}

std::optional<SpawnModel> modelSpawn(const LdmReport &report, double ops, const construct::HardwareDesc &hw) {
  if (!report.notCounted.empty() || !hw.levelFor(ir::Scope::Global) || hw.gflopsF32 <= 0) return std::nullopt;
  double cpes = std::max(1, hw.units);
  CpeWork all;
  for (const DmaStatement &d : report.dmas) {
    all.transfers += d.count / cpes;
    all.bytes += d.bytes / cpes;
    if (d.async) {
      all.aheadTransfers += d.count / cpes;
      all.aheadBytes += d.bytes / cpes;
    }
  }
  CpeWork dmaOnly = all, computeOnly;
  all.flops = computeOnly.flops = ops / cpes;
  auto spawn = [&](const CpeWork &w) { return spawnSeconds(std::vector<CpeWork>(hw.units, w), hw); };
  return SpawnModel{spawn(all), spawn(dmaOnly), spawn(computeOnly)};
}

} // namespace tk::explain
