#include "frontend/driver/explain/SharedBanks.h"

#include "frontend/driver/explain/HtmlText.h"
#include "frontend/driver/explain/ValueAt.h"
#include "ir/IRVisitor.h"
#include "ir/TaskMapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

namespace tk::explain {

using namespace ir;

namespace {

constexpr int kWarp = 32, kBanks = 32, kBankBytes = 4;

struct Access {
  const TensorDecl *tensor;
  std::vector<Expr> indices;
  SourceLoc loc;
  bool write;
};

// The shared-tensor accesses under the mapping loop, in source order.
class Finder : public MappingVisitor {
public:
  std::vector<Access> found;

protected:
  void visitStore(const MStmt &s) override {
    if (s.tensor->scope == Scope::Shared) found.push_back({s.tensor.get(), s.indices, s.loc, true});
    MappingVisitor::visitStore(s);
  }
  void visitLoad(const Expr &e) override {
    if (e->tensor->scope == Scope::Shared) found.push_back({e->tensor.get(), e->args, e->loc, false});
    MappingVisitor::visitLoad(e);
  }
};

// Every variable of `e` not bound in `env` (loops around or inside the
// mapping) at 0: their first iteration.
Expr firstIteration(const Expr &e) {
  std::vector<std::pair<std::string, Expr>> zero;
  std::set<std::string> seen;
  visitExpr(e, [&](const Expr &x) {
    if (x->kind == ExprKind::Var && seen.insert(x->name).second) zero.emplace_back(x->name, intImm(0));
  });
  return substitute(e, zero);
}

std::string strip(const BankAccess &a) {
  const int cell = 24;
  std::string svg = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="banks" width="{0}" height="{1}" )"
                                R"(viewBox="0 0 {0} {1}" role="img" aria-label="shared-memory bank of each lane">)",
                                kWarp * cell + 1, cell + 1);
  for (int lane = 0; lane < kWarp; ++lane) {
    int64_t b = a.bank[lane];
    if (b < 0) continue;
    svg += fmt::format(R"(<rect x="{}" y="0" width="{}" height="{}" fill="{}" data-lane="{}" data-bank="{}">)"
                       R"(<title>lane {}: bank {}</title></rect><text x="{}" y="{}">{}</text>)",
                       lane * cell, cell, cell, pictureFill(b), lane, b, lane, b, lane * cell + cell / 2, cell * 2 / 3, b);
  }
  return svg + "</svg>";
}

} // namespace

std::vector<BankAccess> sharedBankAccesses(const MStmt &mapFor, const std::map<std::string, int64_t> &values,
                                           size_t limit) {
  Finder finder;
  finder.walkStmt(mapFor.body);
  MappingTasks tasks = mappingTasks(mapFor.mapping, var("w.lane", VarKind::Loop),
                                    [](size_t a, size_t d) { return fmt::format("r.{}.{}", a, d); });
  ValueAt at(values);
  // Lanes past the mapping's workers run nothing (a block of fewer threads).
  int64_t workers = at(mapFor.mapping.numWorkers()).value_or(kWarp);
  std::vector<BankAccess> out;
  std::set<std::string> shown;
  for (const Access &acc : finder.found) {
    if (out.size() >= limit) break;
    std::vector<std::string> idx;
    for (const Expr &e : acc.indices) idx.push_back(printExpr(e));
    BankAccess a;
    a.text = fmt::format("{}[{}] ({})", acc.tensor->name, fmt::join(idx, ", "), acc.write ? "write" : "read");
    if (!shown.insert(a.text).second) continue;
    a.loc = acc.loc;
    // The element's row-major offset in the tensor, in bytes.
    Expr offset = intImm(0);
    for (size_t d = 0; d < acc.indices.size() && d < acc.tensor->shape.size(); ++d)
      offset = add(mul(offset, acc.tensor->shape[d]), acc.indices[d]);
    offset = mul(offset, intImm(scalarTypeBytes(acc.tensor->dtype)));
    std::vector<std::pair<std::string, Expr>> coords;
    for (size_t i = 0; i < mapFor.vars.size() && i < tasks.coords.size(); ++i)
      coords.emplace_back(mapFor.vars[i], tasks.coords[i]);
    Expr perLane = at.bound(offset, coords);
    std::map<int64_t, std::set<int64_t>> words; // bank -> distinct words
    bool known = true;
    for (int lane = 0; lane < kWarp && known; ++lane) {
      if (lane >= workers) {
        a.bank.push_back(-1);
        continue;
      }
      std::optional<int64_t> bytes = at(firstIteration(substitute(perLane, {{"w.lane", intImm(lane)}})));
      known = bytes.has_value();
      if (!known) break;
      int64_t word = *bytes / kBankBytes;
      a.bank.push_back(word % kBanks);
      words[word % kBanks].insert(word);
    }
    if (!known) continue;
    for (const auto &[bank, ws] : words) a.ways = std::max(a.ways, static_cast<int>(ws.size()));
    a.svg = strip(a);
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace tk::explain
