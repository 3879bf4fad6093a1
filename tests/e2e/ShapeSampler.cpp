#include "tests/e2e/ShapeSampler.h"

#include <sstream>

namespace tk::e2e {

namespace {

constexpr int kMaxDraws = 4000;
const int64_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33, 63, 65, 127};

void drawScalars(const ir::Op &op, std::mt19937_64 &rng, int64_t lo, int64_t hi, ir::InterpArgs &args) {
  for (const ir::Param &p : op.inputs) {
    if (!p.isScalar()) continue;
    if (ir::isFloat(p.type))
      args.scalars[p.name] = std::uniform_real_distribution<double>(1e-3, 0.5)(rng);
    else
      args.scalars[p.name] = static_cast<double>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  }
}

} // namespace

std::optional<ir::InterpArgs> sampleValid(const ir::Op &op, const SampleRequest &req, std::mt19937_64 &rng) {
  std::vector<int64_t> sizes = req.sizes;
  if (sizes.empty()) sizes.assign(std::begin(kSizes), std::end(kSizes));
  std::uniform_int_distribution<size_t> sizeIdx(0, sizes.size() - 1);
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    ir::InterpArgs args;
    double work = 1;
    // Later draws favour small sizes so tight budgets still find a sample.
    size_t cap = sizes.size() - 1 - std::min<size_t>(sizes.size() > 1 ? sizes.size() - 2 : 0, draw / 200);
    for (const std::string &s : op.symbols) {
      int64_t v = req.allOnes ? 1 : sizes[std::min(sizeIdx(rng), cap)];
      if (s == req.forcedSymbol) v = req.forcedValue;
      args.symbols[s] = v;
      work *= static_cast<double>(v);
    }
    if (work > req.workBudget) continue;
    drawScalars(op, rng, 0, 3, args);
    ir::InterpResult r = ir::computeShapes(op, args);
    if (r.status != 0) continue;
    const std::vector<int64_t> &out = r.shapes.at(op.outputs.front()->name);
    bool empty = false;
    for (int64_t x : out) empty |= x == 0;
    if (!empty) return args;
  }
  return std::nullopt;
}

std::optional<ir::InterpArgs> sampleViolating(const ir::Op &op, Violation kind, std::mt19937_64 &rng) {
  if (kind == Violation::Where && op.where.empty()) return std::nullopt;
  std::uniform_int_distribution<int64_t> sym(0, 9);
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    ir::InterpArgs args;
    for (const std::string &s : op.symbols) args.symbols[s] = sym(rng);
    drawScalars(op, rng, -2, 4, args);
    ir::InterpResult r = ir::computeShapes(op, args);
    if (kind == Violation::Where ? r.failedWhere >= 0 : r.status == 1 && r.failedWhere < 0) return args;
  }
  return std::nullopt;
}

std::string describeArgs(const ir::Op &op, const ir::InterpArgs &args) {
  std::ostringstream os;
  const char *sep = "";
  for (const std::string &s : op.symbols) {
    os << sep << s << "=" << args.symbols.at(s);
    sep = " ";
  }
  for (const ir::Param &p : op.inputs)
    if (p.isScalar()) os << sep << p.name << "=" << args.scalars.at(p.name);
  return os.str();
}

} // namespace tk::e2e
