// stdlib/gpu/matmul_simt_space.tk: Hidet's SIMT matmul template with `?`
// holes. Enumerates the Cartesian product of the holes' candidate sets,
// counts the points where every `require` holds (evaluated as CheckHoles and
// FillHoles do: the hole values substituted, then simplified to a constant),
// and checks that the construction optimizer picks one of them.
#include "source_module.h"
#include "ir/Simplify.h"
#include "sched_build.h"
#include "scheduler/construct/FillHoles.h"

#include <doctest/doctest.h>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace tk;
using namespace tk::construct;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ir::Module spaceModule() {
  std::string src = readFile(std::string(TK_SOURCE_STDLIB_DIR) + "/gpu/matmul_simt_space.tk");
  REQUIRE(!src.empty());
  return unittest::moduleFromSource(src, nullptr, "matmul_simt_space.tk");
}

const ir::Kernel &spaceKernel(const ir::Module &m) {
  for (const ir::KernelPtr &k : m.kernels)
    if (k->name == "matmul_simt_space") return *k;
  FAIL("no kernel matmul_simt_space");
  throw 0;
}

// Every `require` evaluates to true for these hole values (false when one
// is false or stays symbolic: this kernel's requires mention holes only).
bool allRequiresHold(const ir::Kernel &k, const std::vector<std::pair<int, int64_t>> &values) {
  for (const ir::Constraint &c : k.requires_) {
    ir::Expr cond = ir::simplify(ir::fillHoles(c.cond, values));
    if (cond->kind != ir::ExprKind::BoolImm || !cond->intValue) return false;
  }
  return true;
}

HardwareDesc target(const std::string &name) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream out;
  diags.setStream(&out);
  std::string text = readFile(std::string(TK_SOURCE_STDLIB_DIR) + "/targets/" + name + ".hw");
  auto h = parseHardwareDesc(text, sm.addFile(name + ".hw", text), diags);
  REQUIRE_MESSAGE(h, out.str());
  return *h;
}

} // namespace

TEST_CASE("gpu template space: SIMT matmul holes, raw and valid points") {
  ir::Module m = spaceModule();
  const ir::Kernel &k = spaceKernel(m);
  REQUIRE(k.holes.size() == 9);
  size_t raw = 1;
  for (const ir::Hole &h : k.holes) {
    REQUIRE_FALSE(h.candidates.empty());
    CHECK_FALSE(h.value);
    raw *= h.candidates.size();
  }
  CHECK(raw == 2592);
  // The optimizer tries at most 4096 assignments: it sees the whole space.
  CHECK(raw <= 4096);

  size_t valid = 0;
  std::vector<size_t> pos(k.holes.size(), 0);
  for (size_t n = 0; n < raw; ++n) {
    std::vector<std::pair<int, int64_t>> values;
    for (size_t h = 0; h < k.holes.size(); ++h) values.push_back({k.holes[h].id, k.holes[h].candidates[pos[h]]});
    valid += allRequiresHold(k, values);
    for (size_t h = 0; h < pos.size() && ++pos[h] == k.holes[h].candidates.size(); ++h) pos[h] = 0;
  }
  std::cout << "matmul_simt_space: " << raw << " raw points, " << valid << " valid\n";
  // The warp-shape requirement alone keeps half; the resource limits and
  // staging divisibility cut further, but a real space remains.
  CHECK(valid >= 50);
  CHECK(valid < raw / 2);
}

TEST_CASE("gpu template space: the construction optimizer fills the SIMT holes legally") {
  ir::Module m = spaceModule();
  const ir::Kernel &k = spaceKernel(m);
  for (const char *hw : {"h100", "rtx4090"}) {
    ConstructOptions co;
    co.hw = target(hw);
    schedtest::DiagFixture fx;
    ir::KernelPtr filled = fillHolesByConstruction(k, co, fx.diags);
    REQUIRE_MESSAGE(filled, fx.messages());
    std::vector<std::pair<int, int64_t>> values;
    for (const ir::Hole &h : filled->holes) {
      REQUIRE(h.value);
      CHECK(std::find(h.candidates.begin(), h.candidates.end(), *h.value) != h.candidates.end());
      values.push_back({h.id, *h.value});
    }
    CHECK(allRequiresHold(k, values));
    ir::KernelPtr again = fillHolesByConstruction(k, co, fx.diags);
    REQUIRE(again);
    for (size_t h = 0; h < values.size(); ++h) CHECK(*again->holes[h].value == values[h].second);
  }
}
