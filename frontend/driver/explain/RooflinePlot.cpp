#include "frontend/driver/explain/RooflinePlot.h"

#include "frontend/driver/explain/ValueAt.h"
#include "ir/IRVisitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tk::explain {

using namespace ir;

namespace {

class Evaluator {
public:
  explicit Evaluator(const std::map<std::string, int64_t> &values) : at_(values) {}
  // The value of `e`, or nullopt with `*unknown` naming it.
  std::optional<double> operator()(const Expr &e, std::string *unknown) const {
    if (std::optional<int64_t> v = at_(e)) return static_cast<double>(*v);
    if (unknown->empty()) *unknown = printExpr(e);
    return std::nullopt;
  }

private:
  ValueAt at_;
};

bool countsAsWork(const ExprNode &n) { return n.type != ScalarType::Bool && n.type != ScalarType::I64; }

// Operations of one statement's value, each weighted by how many times the
// reductions around it run it.
class OpCounter : public ExprVisitor {
public:
  OpCounter(const Evaluator &eval, std::string *unknown) : eval_(eval), unknown_(unknown) {}
  double ops = 0;

protected:
  void visitOperation(const Expr &e) override {
    bool arithmetic = e->kind == ExprKind::Call || (e->kind == ExprKind::Unary && e->unOp == UnOp::Neg) ||
                      (e->kind == ExprKind::Binary && !isComparison(e->binOp) && !isLogical(e->binOp));
    if (arithmetic && countsAsWork(*e)) ops += weight_;
    ExprVisitor::visitOperation(e);
  }
  void enterReduce(const Expr &e) override {
    weights_.push_back(weight_);
    for (const IndexVar &v : e->rvars) weight_ *= eval_(v.extent, unknown_).value_or(0);
    ops += weight_; // the combine of every reduced element
  }
  void leaveReduce(const Expr &) override {
    weight_ = weights_.back();
    weights_.pop_back();
  }

private:
  const Evaluator &eval_;
  std::string *unknown_;
  double weight_ = 1;
  std::vector<double> weights_;
};

double tensorBytes(const TensorDecl &t, const Evaluator &eval, std::string *unknown) {
  double n = scalarTypeBytes(t.dtype);
  for (const Expr &e : t.shape) n *= eval(e, unknown).value_or(0);
  return n;
}

// An axis label: 4, 64, 1024, 16k, 262k, 4M.
std::string axisLabel(double v) {
  if (v >= 1e6) return fmt::format("{:.0f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.0f}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

double logPos(double v, double lo, double hi, double len) {
  return (std::log2(v) - std::log2(lo)) / (std::log2(hi) - std::log2(lo)) * len;
}

} // namespace

OpWork opWork(const Op &op, const std::map<std::string, int64_t> &values) {
  OpWork w;
  Evaluator eval(values);
  for (const Assign &a : op.body) {
    double iterations = 1;
    for (const IndexVar &v : a.vars) iterations *= eval(v.extent, &w.unknown).value_or(0);
    OpCounter count(eval, &w.unknown);
    count.walkExpr(a.value);
    w.ops += iterations * std::max(count.ops, 1.0); // a copy still does one operation per element
  }
  for (const Param &p : op.inputs)
    if (p.tensor) w.bytes += tensorBytes(*p.tensor, eval, &w.unknown);
  for (const TensorPtr &t : op.outputs) w.bytes += tensorBytes(*t, eval, &w.unknown);
  return w;
}

double Roofs::attainable(double intensity) const { return std::min(peakGops, intensity * bandwidthGBs); }

Roofs machineRoofs(const construct::HardwareDesc &hw, ScalarType dtype) {
  Roofs r;
  bool half = dtype == ScalarType::F16 || dtype == ScalarType::BF16;
  r.peakGops = (half && hw.gflopsF16 > 0 ? hw.gflopsF16 : hw.gflopsF32) * hw.units;
  if (!hw.levels.empty()) r.bandwidthGBs = hw.unitBandwidth(0) * hw.units;
  return r;
}

std::string rooflineSvg(const Roofs &roofs, const OpWork &work, std::optional<double> measuredGops) {
  const double width = 560, height = 330, left = 64, bottom = 40, top = 24, right = 16;
  double plotW = width - left - right, plotH = height - top - bottom;
  double xLo = 1.0 / 16, xHi = 1024, yHi = std::exp2(std::ceil(std::log2(std::max(roofs.peakGops, 1.0))) + 1);
  double yLo = yHi / 65536;
  auto X = [&](double v) { return left + logPos(std::clamp(v, xLo, xHi), xLo, xHi, plotW); };
  auto Y = [&](double v) { return top + plotH - logPos(std::clamp(v, yLo, yHi), yLo, yHi, plotH); };
  std::string svg = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="roofline" width="{0}" height="{1}" )"
                                R"(viewBox="0 0 {0} {1}" role="img" aria-label="roofline">)",
                                width, height);
  for (double x = xLo; x <= xHi; x *= 4)
    svg += fmt::format(R"(<line class="tick" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text x="{0:.1f}" y="{3}">{4}</text>)",
                       X(x), top, top + plotH, height - bottom + 16, x < 1 ? fmt::format("1/{:.0f}", 1 / x) : fmt::format("{:.0f}", x));
  for (double y = yLo; y <= yHi; y *= 16)
    svg += fmt::format(R"(<line class="tick" x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}"/><text class="y" x="{3}" y="{4:.1f}">{5}</text>)",
                       left, Y(y), left + plotW, left - 6, Y(y) + 4, axisLabel(y));
  svg += fmt::format(R"(<text x="{}" y="{}">arithmetic intensity (operations per byte of compulsory traffic)</text>)",
                     left + plotW / 2, height - 4);
  svg += fmt::format(R"(<text class="y" x="{}" y="{}">G op/s</text>)", left + 40, top - 10);
  if (roofs.peakGops > 0 && roofs.bandwidthGBs > 0) {
    double ridge = roofs.ridge();
    svg += fmt::format(R"(<polyline class="roof" points="{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}"/>)", X(xLo),
                       Y(roofs.attainable(xLo)), X(ridge), Y(roofs.peakGops), X(xHi), Y(roofs.peakGops));
  }
  if (work.unknown.empty() && work.bytes > 0) {
    double ai = work.intensity(), modelled = roofs.attainable(ai);
    svg += fmt::format(R"(<circle class="op-modelled" cx="{:.1f}" cy="{:.1f}" r="6"><title>roofline bound: {:.4g} G op/s )"
                       R"(at {:.3g} op/byte</title></circle>)",
                       X(ai), Y(modelled), modelled, ai);
    if (measuredGops && *measuredGops > 0)
      svg += fmt::format(R"(<circle class="op-measured" cx="{:.1f}" cy="{:.1f}" r="6"><title>measured: {:.4g} G op/s</title></circle>)",
                         X(ai), Y(*measuredGops), *measuredGops);
  }
  return svg + "</svg>";
}

} // namespace tk::explain
