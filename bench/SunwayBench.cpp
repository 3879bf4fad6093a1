// tk_sunway_bench: the Sunway target measured through its performance
// model. Each operator of bench/ops/sunway.tk is compiled for --target=sunway
// (sunway-pro with --pro), built against the athread emulator and run once;
// the emulator's accounting (DMA transfers and bytes, flops per CPE, per
// spawn) goes through SunwayCostModel against the .hw description, giving a
// modelled time per call. Rows: tkc (the fastest modelled tiling, double-
// buffered DMA), tkc-sync (the same without double buffering,
// --sunway-dma=sync), swtvm (swTVM's LDM sizing, --schedule=swtvm, sync) and
// untiled (the plain default schedule, --schedule=default, sync), no-merge
// (one transfer per row), rows (8 x 8 rounds with row broadcasts wherever
// an operand allows them, --sunway-broadcast=rows), no-bcast (no broadcast of shared
// operands, --sunway-broadcast=off), fixed64 (no LDM sizing, --schedule=fixed64) and
// natural (no loop reordering, --sunway-loop-order=natural): the ablation
// tables of docs/sunway.md.
// Bytes moved and transfers include the CPEs' direct main-memory accesses
// (TK_GMEM), which the model charges as synchronous transfers. Outputs of
// the variants are compared with each other. Not a ctest.
#include "frontend/Frontend.h"
#include "scheduler/construct/HardwareDesc.h"
#include "scheduler/sunway/SunwayCostModel.h"
#include "tests/e2e/NativeOp.h"
#include "tk_athread_stats.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using namespace tk;

namespace {

using Shapes = std::map<std::string, int64_t>;

struct Variant {
  std::string name;
  std::vector<std::string> flags;
  std::string cflags; // added to the Makefile's CFLAGS
};

// no-merge: tkc's schedule with every row of a box's innermost dimension
// a DMA transfer of its own (tk_dma_box built with TK_DMA_NO_MERGE): the
// ablation of merging contiguous transfers.
const Variant kTkc{"tkc", {"--schedule=construct"}, ""},
    kSync{"tkc-sync", {"--schedule=construct", "--sunway-dma=sync"}, ""},
    kNoMerge{"no-merge", {"--schedule=construct"}, "-DTK_DMA_NO_MERGE"},
    kNoBcast{"no-bcast", {"--schedule=construct", "--sunway-broadcast=off"}, ""},
    kRows{"rows", {"--schedule=construct", "--sunway-broadcast=rows"}, ""},
    kFixed{"fixed64", {"--schedule=fixed64"}, ""}, kNatural{"natural", {"--sunway-loop-order=natural"}, ""},
    kSwtvm{"swtvm", {"--schedule=swtvm", "--sunway-dma=sync"}, ""},
    kUntiled{"untiled", {"--schedule=default", "--sunway-dma=sync"}, ""};

struct Case {
  std::string name;
  std::vector<std::string> calls; // exports called in turn (a chain: several)
  Shapes shapes;
  std::vector<Variant> variants;
  std::string compulsoryOf; // op whose inputs and outputs are the compulsory bytes
};

struct Measured {
  double seconds = 0, dmaBytes = 0, transfers = 0, flops = 0, ldmPeak = 0;
  std::vector<double> output; // of the last call
};

using TotalFn = int (*)(tk_athread_stats *);
using RecentFn = int (*)(unsigned, tk_athread_stats *);

double elements(const std::string &tensor, const ir::InterpResult &shapes) {
  double n = 1;
  for (int64_t e : shapes.shapes.at(tensor)) n *= static_cast<double>(e);
  return n;
}

// Bytes each input tensor and output of `op` takes once.
double compulsoryBytes(const ir::Op &op, const Shapes &shapes) {
  ir::InterpArgs args;
  args.symbols = shapes;
  ir::InterpResult s = ir::computeShapes(op, args);
  double bytes = 0;
  for (const ir::Param &p : op.inputs)
    if (!p.isScalar()) bytes += elements(p.name, s) * ir::scalarTypeBytes(p.type);
  for (const ir::TensorPtr &t : op.outputs) bytes += elements(t->name, s) * ir::scalarTypeBytes(t->dtype);
  return bytes;
}

// Runs export `symbol` of `lib` once on random inputs; adds what its spawns
// did to `m` and keeps its first output.
void runOnce(e2e::NativeLibrary &lib, const ir::Op &op, const Shapes &shapes, const construct::HardwareDesc &hw,
             Measured &m) {
  ir::InterpArgs args;
  args.symbols = shapes;
  ir::InterpResult s = ir::computeShapes(op, args);
  if (s.status != 0) throw std::runtime_error(op.name + ": " + s.message);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::map<std::string, std::unique_ptr<e2e::TensorBuffer>> owned;
  std::map<std::string, e2e::TensorBuffer *> buffers;
  for (const ir::Param &p : op.inputs) {
    if (p.isScalar()) throw std::runtime_error(op.name + ": scalar parameters are not benchmarked");
    size_t n = static_cast<size_t>(elements(p.name, s));
    std::vector<double> v(n);
    for (double &x : v) x = dist(rng);
    owned[p.name] = std::make_unique<e2e::TensorBuffer>(p.type, n);
    owned[p.name]->store(v);
  }
  for (const ir::TensorPtr &t : op.outputs)
    owned[t->name] = std::make_unique<e2e::TensorBuffer>(t->dtype, static_cast<size_t>(elements(t->name, s)));
  for (auto &[name, b] : owned) buffers[name] = b.get();

  auto total = reinterpret_cast<TotalFn>(lib.symbol("tk_athread_total_stats"));
  auto recent = reinterpret_cast<RecentFn>(lib.symbol("tk_athread_recent_stats"));
  if (!total || !recent) throw std::runtime_error("the library holds no athread emulator");
  tk_athread_stats before{}, after{};
  total(&before); // -1 before the first spawn: zeros
  if (e2e::callExport(lib.symbol(op.name), op, buffers, args) != 0)
    throw std::runtime_error(op.name + ": the call failed");
  total(&after);
  uint64_t spawns = after.spawns - before.spawns;
  if (spawns > TK_ATHREAD_RECENT) throw std::runtime_error(op.name + ": more spawns than the emulator keeps");
  for (unsigned back = 0; back < spawns; ++back) {
    tk_athread_stats st;
    recent(back, &st);
    std::vector<CpeWork> cpes;
    for (const tk_athread_cpe_stats &c : st.cpe) {
      // Direct main-memory accesses count as synchronous transfers.
      cpes.push_back({double(c.get_count + c.put_count + c.gmem_count),
                      double(c.get_bytes + c.put_bytes + c.gmem_bytes), double(c.flops), double(c.ahead_count),
                      double(c.ahead_bytes), double(c.bcast_count), double(c.bcast_bytes),
                      double(c.bcast_ahead_count), double(c.bcast_ahead_bytes), double(c.syn_count),
                      double(c.row_bcast_count), double(c.row_bcast_bytes), double(c.row_bcast_ahead_count),
                      double(c.row_bcast_ahead_bytes)});
      m.ldmPeak = std::max(m.ldmPeak, double(c.ldm_high_water));
    }
    m.seconds += spawnSeconds(cpes, hw);
    m.dmaBytes += double(st.total.get_bytes + st.total.put_bytes + st.total.gmem_bytes);
    m.transfers += double(st.total.get_count + st.total.put_count + st.total.gmem_count);
    m.flops += double(st.total.flops);
  }
  m.output = owned.at(op.outputs.front()->name)->load();
}

double maxRelDiff(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0, scale = 1;
  for (double x : b) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / scale);
  return worst;
}

std::optional<construct::HardwareDesc> readHw(const std::string &path, SourceManager &sm, DiagEngine &diags) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return construct::parseHardwareDesc(ss.str(), sm.addFile(path, ss.str()), diags);
}

std::vector<Case> cases() {
  const std::vector<Variant> all{kTkc, kRows, kNoBcast, kSync, kNoMerge, kFixed, kNatural, kSwtvm, kUntiled},
      tiled{kTkc, kSync, kNoMerge, kUntiled};
  auto nchw = [](int64_t c, int64_t f, int64_t hw) { return Shapes{{"N", 1}, {"C", c}, {"F", f}, {"H", hw}, {"W", hw}}; };
  Shapes act{{"N", 1}, {"C", 64}, {"H", 112}, {"W", 112}};
  return {
      {"gemm 1024x1024x1024", {"gemm"}, {{"M", 1024}, {"K", 1024}, {"N", 1024}}, all, "gemm"},
      {"gemm 1000x300x1000", {"gemm"}, {{"M", 1000}, {"K", 300}, {"N", 1000}}, all, "gemm"},
      {"conv3x3 64->64 56x56", {"conv3x3"}, nchw(64, 64, 56), all, "conv3x3"},
      {"conv3x3 128->128 28x28", {"conv3x3"}, nchw(128, 128, 28), all, "conv3x3"},
      {"conv3x3 256->256 14x14", {"conv3x3"}, nchw(256, 256, 14), all, "conv3x3"},
      {"conv3x3 512->512 7x7", {"conv3x3"}, nchw(512, 512, 7), all, "conv3x3"},
      {"conv1x1 256->64 56x56", {"conv1x1"}, nchw(256, 64, 56), all, "conv1x1"},
      {"conv3x3, bias, relu: 3 calls", {"conv3x3", "bias_add", "relu"}, nchw(64, 64, 56), {kTkc},
       "conv3x3_bias_relu"},
      {"conv3x3_bias_relu: 1 op", {"conv3x3_bias_relu"}, nchw(64, 64, 56), {kTkc}, "conv3x3_bias_relu"},
      {"bias_add 64x112x112", {"bias_add"}, act, tiled, "bias_add"},
      {"relu 64x112x112", {"relu"}, act, tiled, "relu"},
      {"batchnorm 64x112x112", {"batchnorm"}, act, tiled, "batchnorm"},
      {"maxpool2x2 64x112x112", {"maxpool2x2"}, act, tiled, "maxpool2x2"},
      {"softmax 1024x1000", {"softmax"}, {{"M", 1024}, {"N", 1000}}, tiled, "softmax"},
      {"softmax 128x10000 (long rows)", {"softmax"}, {{"M", 128}, {"N", 10000}}, {kTkc}, "softmax"},
      {"layernorm 1024x1024", {"layernorm"}, {{"M", 1024}, {"N", 1024}}, tiled, "layernorm"},
      {"rmsnorm 1024x1024", {"rmsnorm"}, {{"M", 1024}, {"N", 1024}}, tiled, "rmsnorm"},
      {"bias_add, relu (2 calls)", {"bias_add", "relu"}, act, {kTkc}, "bias_relu"},
      {"bias_relu (1 op, 2 statements)", {"bias_relu"}, act, {kTkc}, "bias_relu"},
  };
}

} // namespace

int main(int argc, char **argv) {
  bool pro = false;
  std::string filter, variants, work = (fs::temp_directory_path() / "tk_sunway_bench").string();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--pro") pro = true;
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--work" && i + 1 < argc) work = argv[++i];
    else if (a == "--variants" && i + 1 < argc) variants = "," + std::string(argv[++i]) + ",";
    else {
      std::cerr << "usage: tk_sunway_bench [--pro] [--filter TEXT] [--variants NAME,...] [--work DIR]\n";
      return 2;
    }
  }
  std::string src = TK_BENCH_SOURCE_DIR, file = src + "/bench/ops/sunway.tk";
  SourceManager sm;
  DiagEngine diags(sm);
  FrontendOptions fo;
  fo.stdlibDir = src + "/stdlib";
  std::optional<ir::Module> mod = buildModule(file, fo, sm, diags);
  auto hw = readHw(src + "/stdlib/targets/" + (pro ? "sw26010-pro" : "sw26010") + ".hw", sm, diags);
  if (!mod || !hw) return 2;
  const construct::MemLevel *mem = hw->levelFor(ir::Scope::Global);
  double peak = hw->gflopsF32 * hw->units, bandwidth = mem ? mem->bandwidth : 0;
  fmt::print("tk_sunway_bench: {} (modelled: {:.0f} GFLOP/s f32 peak, {:.1f} GB/s DMA per core group)\n", hw->name,
             peak, bandwidth);
  fmt::print("{:<32} {:<8} {:>9} {:>9} {:>6} {:>10} {:>8} {:>6} {:>7} {:>6} {:>7} {:>8}\n", "case", "schedule",
             "moved MB", "transfers", "eff", "model ms", "GFLOP/s", "%peak", "GB/s", "%bw", "LDM KiB", "max diff");
  fs::create_directories(work);
  for (const Case &c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const ir::Op *cop = mod->findOp(c.compulsoryOf).get();
    double compulsory = compulsoryBytes(*cop, c.shapes);
    std::vector<double> reference;
    for (const Variant &variant : c.variants) {
      if (!variants.empty() && variants.find("," + variant.name + ",") == std::string::npos) continue;
      e2e::CompileConfig cfg;
      cfg.tkc = TK_BENCH_TKC;
      cfg.runtimeLibDir = TK_BENCH_LIBDIR;
      cfg.workDir = work;
      cfg.tkcFlags = {pro ? "--target=sunway-pro" : "--target=sunway"};
      if (!variant.cflags.empty()) cfg.sunwayCflags += " " + variant.cflags;
      cfg.tkcFlags.insert(cfg.tkcFlags.end(), variant.flags.begin(), variant.flags.end());
      for (const auto &[sym, v] : c.shapes) cfg.tkcFlags.push_back(fmt::format("--shape-hint={}={}", sym, v));
      std::string error;
      auto lib = e2e::NativeLibrary::build(file, cfg, &error);
      if (!lib) {
        std::cerr << "tk_sunway_bench: " << error;
        return 1;
      }
      Measured m;
      for (const std::string &call : c.calls) {
        const ir::Op &op = *mod->findOp(call);
        Shapes s;
        for (const std::string &sym : op.symbols) s[sym] = c.shapes.at(sym);
        runOnce(*lib, op, s, *hw, m);
      }
      if (reference.empty()) reference = m.output;
      double gflops = m.flops / m.seconds * 1e-9, gbs = compulsory / m.seconds * 1e-9;
      fmt::print("{:<32} {:<8} {:>9.1f} {:>9.0f} {:>6.3f} {:>10.3f} {:>8.1f} {:>6.1f} {:>7.2f} {:>6.1f} {:>7.1f} {:>8.1e}\n",
                 c.name, variant.name, m.dmaBytes / 1e6, m.transfers, compulsory / m.dmaBytes, m.seconds * 1e3, gflops,
                 100 * gflops / peak, gbs, 100 * gbs / bandwidth, m.ldmPeak / 1024, maxRelDiff(m.output, reference));
      std::fflush(stdout);
    }
  }
  return 0;
}
