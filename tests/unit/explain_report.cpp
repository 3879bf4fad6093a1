// The pieces of `tkc explain`'s report: who runs which task (against the
// lowering's own rule, ir::mappingTasks), the hot loop of assembly and PTX,
// an op's work for the roofline, the trace table, the loop IR's line
// locations, and the PTX executor's launch records read back.
#include <doctest/doctest.h>

#include "frontend/driver/explain/ExecutorCounters.h"
#include "frontend/driver/explain/HotLoop.h"
#include "frontend/driver/explain/HtmlText.h"
#include "frontend/driver/explain/LdmAccounting.h"
#include "frontend/driver/explain/MappingPictures.h"
#include "frontend/driver/explain/RooflinePlot.h"
#include "frontend/driver/explain/TraceTable.h"
#include "ir/PrintLoopIRLines.h"
#include "ir/Simplify.h"
#include "ir/TaskMapping.h"
#include "scheduler/Pipeline.h"
#include "sched_build.h"
#include "source_module.h"

#include <fmt/format.h>

#include <map>
#include <sstream>

using namespace tk;
using namespace tk::ir;
using namespace tk::explain;

namespace {

MappingAtom atom(MappingAtom::Kind kind, std::vector<int64_t> dims, std::vector<int> perm = {}) {
  MappingAtom a;
  a.kind = kind;
  for (int64_t d : dims) a.dims.push_back(intImm(d));
  a.perm = std::move(perm);
  return a;
}

int64_t evaluate(const Expr &e, const std::vector<std::pair<std::string, Expr>> &env) {
  int64_t v = 0;
  REQUIRE(isConstInt(simplify(substitute(e, env)), &v));
  return v;
}

// Every (worker, step) of `m` through ir::mappingTasks, as the lowering
// runs them (steps counted in loop order), must be what taskOwner says of
// the task it reaches, and every task is reached once.
void checkAgainstLowering(const TaskMapping &m) {
  std::vector<std::vector<int64_t>> dims;
  for (const MappingAtom &a : m.atoms) {
    std::vector<int64_t> &d = dims.emplace_back();
    for (const Expr &e : a.dims) d.push_back(evaluate(e, {}));
  }
  int64_t workers = evaluate(m.numWorkers(), {});
  MappingTasks tasks = mappingTasks(m, var("w", VarKind::Loop), [](size_t a, size_t d) {
    return fmt::format("r{}_{}", a, d);
  });
  std::map<std::vector<int64_t>, int> reached;
  for (int64_t w = 0; w < workers; ++w) {
    std::vector<int64_t> extents;
    for (const auto &l : tasks.loops) extents.push_back(evaluate(l.extent, {}));
    std::vector<int64_t> idx(extents.size(), 0);
    for (int64_t step = 0;; ++step) {
      std::vector<std::pair<std::string, Expr>> env{{"w", intImm(w)}};
      for (size_t i = 0; i < idx.size(); ++i) env.emplace_back(tasks.loops[i].var, intImm(idx[i]));
      std::vector<int64_t> t;
      for (const Expr &c : tasks.coords) t.push_back(evaluate(c, env));
      std::optional<TaskOwner> o = taskOwner(m, dims, t);
      REQUIRE(o);
      CHECK(o->worker == w);
      CHECK(o->step == step);
      ++reached[t];
      size_t i = idx.size();
      while (i > 0 && ++idx[i - 1] == extents[i - 1]) idx[--i] = 0;
      if (i == 0) break;
    }
  }
  int64_t total = 1;
  for (int64_t s : [&] {
         std::vector<int64_t> shape(m.rank(), 1);
         for (const auto &d : dims)
           for (size_t k = 0; k < d.size(); ++k) shape[k] *= d[k];
         return shape;
       }())
    total *= s;
  CHECK(static_cast<int64_t>(reached.size()) == total);
  for (const auto &[t, n] : reached) CHECK(n == 1);
}

} // namespace

TEST_CASE("explain: taskOwner follows the lowering's task-mapping rule") {
  using K = MappingAtom::Kind;
  checkAgainstLowering({{atom(K::Spatial, {4, 2}), atom(K::Repeat, {2, 2})}});
  checkAgainstLowering({{atom(K::Repeat, {2, 1}), atom(K::Spatial, {32, 8})}});
  checkAgainstLowering({{atom(K::Spatial, {3, 5}, {1, 0}), atom(K::Repeat, {2, 3}, {1, 0}), atom(K::Spatial, {2, 2})}});
  checkAgainstLowering({{atom(K::Spatial, {7})}});
  checkAgainstLowering({{atom(K::Repeat, {2, 3, 2}), atom(K::Spatial, {2, 1, 3}, {2, 0, 1})}});
  TaskMapping m{{atom(K::Spatial, {4, 2}), atom(K::Repeat, {2, 2})}};
  CHECK_FALSE(taskOwner(m, {{4, 2}, {2, 2}}, {8, 0})); // outside the 8 x 4 task shape
}

TEST_CASE("explain: a kernel's worker-bound mappings become pictures at the report's sizes") {
  std::string src = R"(
op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] { C[i, j] = sum(k) A[i, k] * B[k, j]; }
kernel mmk implements mm on cpu {
  for (bi, bj) in spatial(cdiv(M, 4), cdiv(N, 32)) on cores {
    for (i, j) in repeat(4, 32) { C[bi*4 + i, bj*32 + j] = 0; }
    for k in 0..K { for (i, j) in repeat(4, 32) { C[bi*4 + i, bj*32 + j] += A[bi*4 + i, k] * B[k, bj*32 + j]; } }
  }
}
)";
  Module mod = unittest::moduleFromSource(src);
  schedtest::DiagFixture fx;
  PipelineOptions po;
  std::vector<KernelPtr> kernels = scheduleModule(mod, po, fx.diags);
  REQUIRE(kernels.size() == 1);
  std::vector<MappingPicture> pics = mappingPictures(*kernels[0], {{"M", 10}, {"N", 64}, {"K", 3}});
  REQUIRE(pics.size() == 1);
  CHECK(pics[0].header == "for (bi, bj) in spatial(cdiv(M, 4), cdiv(N, 32)) on cores");
  CHECK(pics[0].loc.line == 4);
  CHECK(pics[0].note.rfind("6 workers (cores), 1 task each", 0) == 0); // cdiv(10, 4) x cdiv(64, 32)
  CHECK(pics[0].svg.find("data-task=\"2,1\" data-worker=\"5\"") != std::string::npos);
  // Without a value for N nothing can be drawn, and the note says why.
  std::vector<MappingPicture> unknown = mappingPictures(*kernels[0], {{"M", 10}});
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].svg.empty());
  CHECK(unknown[0].note.find("cdiv(N, 32)") != std::string::npos);

  // The loop IR's lines carry the kernel's source lines.
  std::vector<LoweredFunc> funcs = lowerModule(mod, po, fx.diags);
  REQUIRE(funcs.size() == 2); // the op's export uses the kernel that implements it, as does mmk's
  std::vector<SourceLoc> locs;
  std::string text = printLoweredFuncLines(funcs[1], &locs);
  CHECK(text == printLoweredFunc(funcs[1]));
  std::istringstream lines(text);
  size_t n = 0, linked = 0;
  for (std::string l; std::getline(lines, l); ++n) {
    REQUIRE(n < locs.size());
    if (l.find("+=") != std::string::npos || l.find(" = C[") != std::string::npos) {
      CHECK(locs[n].line == 6);
      ++linked;
    }
    if (l.find("parallel for") != std::string::npos) CHECK(locs[n].line == 4);
  }
  CHECK(linked >= 1);
}

TEST_CASE("explain: the hot loop is the innermost loop with the most arithmetic of the export's functions") {
  std::string x86 = "\t.type\tmm,@function\nmm:\n.LBB0_1:\n\tvfmadd231ps %zmm0, %zmm1, %zmm2\n\tjne .LBB0_1\n"
                    ".Lfunc_end0:\n\t.type\t.Lmm.tile0,@function\n.Lmm.tile0:\n.LBB1_1:\n\taddq $1, %rax\n"
                    ".LBB1_2:\n\tvfmadd231ps %zmm0, %zmm1, %zmm2\n\tvfmadd231ps %zmm0, %zmm1, %zmm3\n\tjb .LBB1_2\n"
                    "\tjmp .LBB1_1\n.Lfunc_end1:\n\t.type\tother,@function\nother:\n.LBB2_1:\n\tvfmadd231ps %zmm0, %zmm1, %zmm2\n"
                    "\tvfmadd231ps %zmm0, %zmm1, %zmm2\n\tvfmadd231ps %zmm0, %zmm1, %zmm2\n\tjne .LBB2_1\n.Lfunc_end2:\n";
  std::optional<HotLoop> h = findHotLoop(x86, "mm");
  REQUIRE(h);
  CHECK(h->function == "mm.tile0");
  CHECK(h->arithmetic == 2);
  CHECK(h->firstLine == 11);
  CHECK(h->text.rfind(".LBB1_2:", 0) == 0);
  CHECK_FALSE(findHotLoop(x86, "absent"));
  // MergeFunctions left `mm2` calling mm's tile and its task body a jump to
  // `other`: their loops are mm2's; a jump to a label of its own is no call.
  std::string merged = x86 + "\t.type\tmm2,@function\nmm2:\n\tcallq .Lmm.tile0\n\tjmp .LBB3_9\n.Lfunc_end3:\n"
                             "\t.type\t.Lmm2.par0,@function\n.Lmm2.par0:\n\tjmp other\n.Lfunc_end4:\n";
  h = findHotLoop(merged, "mm2");
  REQUIRE(h);
  CHECK(h->function == "other");
  CHECK(h->arithmetic == 3);
  h = findHotLoop(merged, "mm");
  REQUIRE(h);
  CHECK(h->function == "mm.tile0");

  std::string ptx = ".visible .entry k_k0(\n\t.param .u64 p\n)\n{\n$L__BB0_1:\n\tfma.rn.f32 %f1, %f2, %f3, %f1;\n"
                    "\t@%p1 bra $L__BB0_1;\n\tret;\n}\n";
  h = findHotLoop(ptx, "k");
  REQUIRE(h);
  CHECK(h->function == "k_k0");
  CHECK(h->arithmetic == 1);
}

TEST_CASE("explain: an op's work and the machine's roofs") {
  std::string src = "op mm(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N] { C[i, j] = sum(k) A[i, k] * B[k, j]; }\n"
                    "op axpy(a: f32, X: f32[N], Y: f32[N]) -> Z: f32[N] { Z[i] = a * X[i] + Y[i]; }\n";
  Module mod = unittest::moduleFromSource(src);
  REQUIRE(mod.ops.size() == 2);
  OpWork mm = opWork(*mod.ops[0], {{"M", 8}, {"K", 5}, {"N", 3}});
  CHECK(mm.unknown.empty());
  CHECK(mm.ops == 2.0 * 8 * 5 * 3); // a multiply and an add per product
  CHECK(mm.bytes == 4.0 * (8 * 5 + 5 * 3 + 8 * 3));
  OpWork axpy = opWork(*mod.ops[1], {{"N", 100}});
  CHECK(axpy.ops == 200);
  CHECK(axpy.bytes == 4.0 * 300);
  CHECK(opWork(*mod.ops[0], {{"M", 8}}).unknown != "");

  construct::HardwareDesc hw;
  hw.units = 4;
  hw.gflopsF32 = 100;
  hw.gflopsF16 = 400;
  hw.levels.push_back({"dram", 1 << 30, 50, 100, 64, 0, 0, true, std::nullopt});
  Roofs r = machineRoofs(hw, ScalarType::F32);
  CHECK(r.peakGops == 400);
  CHECK(r.bandwidthGBs == 50);
  CHECK(machineRoofs(hw, ScalarType::F16).peakGops == 1600);
  CHECK(r.attainable(1) == 50);
  CHECK(r.attainable(100) == 400);
  std::string svg = rooflineSvg(r, mm, 120.0);
  CHECK(svg.find("class=\"op-modelled\"") != std::string::npos);
  CHECK(svg.find("class=\"op-measured\"") != std::string::npos);
  CHECK(rooflineSvg(r, mm, std::nullopt).find("op-measured") == std::string::npos);
}

TEST_CASE("explain: the construction trace becomes steps and a ranked table") {
  std::string trace = "// construct mm for zen5-2c: nest mm (i=64)\nstep 0  state [1] [1]*\n"
                      "    tile(i)                benefit 2          p 0.75\n"
                      "    cache                  benefit 1          p 0.25\n  -> tile(i)  (kept in top_results)\n"
                      "step 1  state [2] [2]*\n  no action fits: stop\nend of chain: [2] [2]*\n"
                      "top_results ranked by the roofline estimate (2 of 3 visited states):\n"
                      "  1. [2] [2]*  est 1.5 ms\n  2. [1] [1]*  est 2 ms\nstep 0  state [3] [3]*\n"
                      "  -> tile(i)\n// chosen: ?0 = 2 <x>\n";
  std::string html = traceHtml(trace);
  CHECK(html.find("<h4>construct mm for zen5-2c: nest mm (i=64)</h4>") != std::string::npos);
  CHECK(html.find("step 0  state [1] [1]* &rarr; tile(i) (kept in top_results)") != std::string::npos);
  CHECK(html.find("<tr class=\"chosen\"><td><code>tile(i)</code></td><td class=\"num\">2</td>") != std::string::npos);
  CHECK(html.find("step 1  state [2] [2]* &rarr; no action fits: stop") != std::string::npos);
  CHECK(html.find("<td>2</td><td><code>[1] [1]*</code></td><td class=\"num\">2 ms</td>") != std::string::npos);
  CHECK(html.find("// chosen: ?0 = 2 &lt;x&gt;") != std::string::npos); // kept, escaped
  // A second traversal after the ranked table closes the table first.
  CHECK(html.find("2 ms</td>") < html.find("</tbody></table><details class=\"step\"><summary>step 0  state [3]"));
  CHECK(escapeHtml("a<b & 'c' \"d\">") == "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;");
}

TEST_CASE("explain: shared-memory banks of the first warp show padding removing a conflict") {
  std::string src = R"(
op copy(X: f32[N]) -> Y: f32[N] { Y[i] = X[i]; }
kernel padded implements copy on cuda {
  for b in spatial(cdiv(N, 32)) on blocks {
    shared S: f32[32, 33];
    for t in spatial(32) on threads { S[t, 0] = X[b*32 + t]; }
    sync;
    for t in spatial(32) on threads { Y[b*32 + t] = S[t, 0]; }
  }
}
kernel unpadded implements copy on cuda {
  for b in spatial(cdiv(N, 32)) on blocks {
    shared S: f32[32, 32];
    for (t, u) in spatial(16, 2) on threads { S[t * 2 + u, 0] = X[b*32 + t * 2 + u]; }
    sync;
    for t in spatial(32) on threads { Y[b*32 + t] = S[t, 0]; }
  }
}
)";
  Module mod = unittest::moduleFromSource(src, nullptr, "t.tk", TargetFamily::Cuda);
  schedtest::DiagFixture fx;
  PipelineOptions po;
  po.target.family = TargetFamily::Cuda;
  std::vector<KernelPtr> kernels = scheduleModule(mod, po, fx.diags);
  REQUIRE_MESSAGE(kernels.size() == 2, fx.out.str());
  std::vector<MappingPicture> padded = mappingPictures(*kernels[0], {{"N", 64}});
  REQUIRE(padded.size() == 3); // blocks, then the two thread mappings
  CHECK(padded[0].banks.empty());
  REQUIRE(padded[1].banks.size() == 1);
  const BankAccess &w = padded[1].banks[0];
  CHECK(w.text == "S[t, 0] (write)");
  CHECK(w.ways == 1);
  for (int lane = 0; lane < 32; ++lane) CHECK(w.bank[lane] == lane); // row t starts at word 33 t
  std::vector<MappingPicture> unpadded = mappingPictures(*kernels[1], {{"N", 64}});
  REQUIRE(unpadded.size() == 3);
  REQUIRE(unpadded[1].banks.size() == 1);
  CHECK(unpadded[1].banks[0].ways == 32); // every row starts in bank 0
  CHECK(unpadded[1].banks[0].bank[31] == 0);
  CHECK(unpadded[1].banks[0].svg.find("data-lane=\"31\" data-bank=\"0\"") != std::string::npos);
}

TEST_CASE("explain: LDM buffers and DMA transfers of a Sunway function, counted at the report's sizes") {
  std::string src = R"(
op scale(A: f32[M, N], alpha: f32) -> B: f32[M, N] { B[i, j] = A[i, j] * alpha; }
kernel scale_rows implements scale on sunway {
  for (i) in spatial(64) * repeat(cdiv(M, 64)) on cpes {
    for j in 0..N { B[i, j] = A[i, j] * alpha; }
  }
}
)";
  Module mod = unittest::moduleFromSource(src, nullptr, "t.tk", TargetFamily::Sunway);
  schedtest::DiagFixture fx;
  PipelineOptions po;
  po.target.family = TargetFamily::Sunway;
  std::vector<LoweredFunc> funcs = lowerModule(mod, po, fx.diags);
  REQUIRE_MESSAGE(funcs.size() == 2, fx.out.str());
  for (int64_t n : {1024, 700}) {
    LdmReport r = ldmAccounting(funcs[1], {{"M", 200}, {"N", n}, {"alpha", 1}});
    REQUIRE_MESSAGE(r.notCounted.empty(), r.notCounted);
    int64_t got = 0, put = 0;
    for (const DmaStatement &d : r.dmas) (d.put ? put : got) += d.bytes;
    // Every element of A comes in once and every element of B goes out once.
    CHECK(got == 4 * 200 * n);
    CHECK(put == 4 * 200 * n);
    REQUIRE(!r.buffers.empty());
    int64_t sum = 0;
    for (const LdmBuffer &b : r.buffers) sum += b.bytes;
    CHECK(r.bufferBytes == sum);
  }
  LdmReport tooMany = ldmAccounting(funcs[1], {{"M", 4096}, {"N", 4096}, {"alpha", 1}}, 100);
  CHECK(tooMany.notCounted.find("more than 100 loop iterations") != std::string::npos);
  for (const DmaStatement &d : tooMany.dmas) CHECK(d.count == 0);

  // The modelled time: the counted transfers spread over the CPEs, as the
  // Sunway model costs one CPE's (latency per transfer, bytes over its
  // share of the bandwidth), against the arithmetic at the CPE's rate.
  construct::HardwareDesc hw;
  hw.units = 64;
  hw.gflopsF32 = 10;
  construct::MemLevel mem;
  mem.capacity = 1 << 30, mem.bandwidth = 32, mem.latency = 500, mem.scope = Scope::Global;
  hw.levels = {mem};
  LdmReport r = ldmAccounting(funcs[1], {{"M", 200}, {"N", 700}, {"alpha", 1}});
  std::optional<SpawnModel> m = modelSpawn(r, 200.0 * 700, hw);
  REQUIRE(m);
  double transfers = 0, bytes = 0;
  for (const DmaStatement &d : r.dmas) transfers += d.count, bytes += d.bytes;
  double dmaNs = transfers / 64 * 500 + bytes / 64 / (32.0 / 64);
  CHECK(m->dmaSeconds == doctest::Approx(dmaNs * 1e-9));
  CHECK(m->computeSeconds == doctest::Approx(200.0 * 700 / 64 / 10 * 1e-9));
  CHECK(m->seconds >= std::max(m->dmaSeconds, m->computeSeconds));
  CHECK_FALSE(modelSpawn(tooMany, 1.0, hw)); // nothing counted: nothing modelled
}

TEST_CASE("explain: the PTX executor's launch records are summed per device kernel of an export") {
  // Two launches of mm_k0, one of mm_k1, and kernels of other exports whose
  // names begin alike (mm_half_k0, mmx_k0), which are not mm's.
  std::string text = "kernel=mm_k0\tgrid=4,1,1\tblock=128,1,1\twarp_instructions=100\tkind_tensor=64"
                     "\tglobal_load_sectors=10\tglobal_load_bytes=320\tglobal_store_sectors=4\tglobal_store_bytes=32"
                     "\tshared_requests=5\tshared_wavefronts=10\tshared_ideal_wavefronts=5\tshared_max_ways=2"
                     "\tbranches=7\tdivergent_branches=1\tregisters_per_thread=40\toccupancy_limit=registers"
                     "\ttheoretical_occupancy=0.5000\tachieved_occupancy=0.0100\n"
                     "\n"
                     "kernel=mm_k1\tgrid=1,1,1\tblock=32,1,1\twarp_instructions=3\n"
                     "kernel=mm_half_k0\twarp_instructions=1000\n"
                     "kernel=mmx_k0\twarp_instructions=1000\n"
                     "kernel=mm_k0\tgrid=8,1,1\tblock=128,1,1\twarp_instructions=50\tkind_tensor=32"
                     "\tglobal_load_sectors=10\tglobal_load_bytes=160\tshared_max_ways=4\n";
  std::string error;
  auto records = parseCounterRecords(text, &error);
  REQUIRE(records);
  CHECK(records->size() == 5);
  std::vector<KernelCounters> mm = countersOf(*records, "mm");
  REQUIRE(mm.size() == 2);
  CHECK(mm[0].kernel == "mm_k0");
  CHECK(mm[0].launches == 2);
  CHECK(mm[0].grid == "8,1,1"); // the last launch's
  CHECK(mm[0].warpInstructions == 150);
  CHECK(mm[0].mma == 3); // counted per lane: 96 / 32
  CHECK(mm[0].loadEfficiency() == doctest::Approx(480.0 / (32 * 20)));
  CHECK(mm[0].storeEfficiency() == doctest::Approx(0.25));
  CHECK(mm[0].sharedConflictFactor() == doctest::Approx(2.0));
  CHECK(mm[0].sharedMaxWays == 4);
  CHECK(mm[1].kernel == "mm_k1");
  CHECK(mm[1].launches == 1);
  CHECK(mm[1].loadEfficiency() == 1.0); // nothing loaded: nothing wasted
  CHECK(countersOf(*records, "mm_half").size() == 1);
  CHECK(countersOf(*records, "other").empty());
  // The names the backends give an export's kernels (HotLoop's rule too).
  CHECK(deviceKernelIndex("mm_k12", "mm") == 12);
  CHECK(deviceKernelIndex("mm_kx", "mm") == -1);
  CHECK(deviceKernelIndex("mm_k", "mm") == -1);
  CHECK(deviceKernelIndex("mm_half_k0", "mm") == -1);

  CHECK_FALSE(parseCounterRecords("kernel=a\tbroken\n", &error));
  CHECK(error == "line 1: 'broken' is not a key=value field");
  CHECK_FALSE(parseCounterRecords("\ngrid=1,1,1\n", &error));
  CHECK(error == "line 2: the record names no kernel (kernel=NAME)");
}
