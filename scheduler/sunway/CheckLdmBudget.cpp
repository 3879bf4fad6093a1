#include "scheduler/sunway/CheckLdmBudget.h"

#include "ir/IRVisitor.h"
#include "ir/TensorSize.h"

#include <fmt/format.h>

namespace tk {
using namespace ir;

namespace {

struct Buffer {
  const TensorDecl *tensor;
  int64_t bytes;
  SourceLoc loc;
};

// The ldm buffers outside any CPE loop and those of each CPE loop.
class CollectLdm final : public MappingVisitor {
public:
  explicit CollectLdm(DiagEngine &diags) : diags_(diags) {}

  std::vector<Buffer> outside;
  std::vector<std::pair<const MStmt *, std::vector<Buffer>>> loops;
  bool ok = true;

protected:
  void visitMapFor(const MStmt &s) override {
    bool cpes = s.worker == WorkerKind::Cpes && !inCpes_;
    if (cpes) {
      inCpes_ = true;
      loops.push_back({&s, {}});
    }
    MappingVisitor::visitMapFor(s);
    if (cpes) inCpes_ = false;
  }
  void visitAlloc(const MStmt &s) override {
    MappingVisitor::visitAlloc(s);
    if (s.tensor->scope != Scope::Ldm) return;
    ConstantSize size = constantSize(*s.tensor);
    if (!size.known || size.tooLarge) {
      diags_.error(s.loc, "ldm tensor '{}' needs a size known at compile time: each CPE's LDM holds "
                          "it beside the others, and the total must fit",
                   s.tensor->name);
      ok = false;
      return;
    }
    (inCpes_ ? loops.back().second : outside).push_back({s.tensor.get(), size.bytes, s.loc});
  }

private:
  DiagEngine &diags_;
  bool inCpes_ = false;
};

std::string listBuffers(const std::vector<Buffer> &bufs) {
  std::string out;
  for (const Buffer &b : bufs)
    out += fmt::format("{}'{}' ({} bytes, line {})", out.empty() ? "" : ", ", b.tensor->name, b.bytes, b.loc.line);
  return out;
}

} // namespace

bool checkLdmBudget(const Kernel &k, int64_t capacityBytes, int64_t budgetBytes, DiagEngine &diags) {
  CollectLdm c(diags);
  c.walkStmt(k.body);
  auto check = [&](SourceLoc at, std::vector<Buffer> bufs) {
    int64_t total = 0;
    for (const Buffer &b : bufs) total += b.bytes;
    if (total <= budgetBytes) return;
    diags.error(at, "the ldm tensors of this CPE loop take {} bytes, more than the {} bytes of LDM a CPE has "
                    "for them ({} bytes, less {} kept for its stack): {}",
                total, budgetBytes, capacityBytes, capacityBytes - budgetBytes, listBuffers(bufs));
    c.ok = false;
  };
  if (c.loops.empty() && !c.outside.empty()) check(c.outside.front().loc, c.outside);
  for (auto &[loop, bufs] : c.loops) {
    std::vector<Buffer> all = c.outside;
    all.insert(all.end(), bufs.begin(), bufs.end());
    check(loop->loc, all);
  }
  return c.ok;
}

} // namespace tk
