// tk_dataset: measures candidate blockings of contraction ops on this
// machine and appends them as records (docs/records.md) — the training and
// evaluation data of the learned cost model (docs/costmodel.md).
//   tk_dataset --out=FILE [--tasks=N] [--candidates=C] [--seed=S] [--rounds=R] [--minutes=M] [--list]
// Per task (DatasetTasks.h): the capacity rule's blocking, the blockings
// of Gensor's ranked states, and random legal ones up to C, each
// constructed, compiled with the JIT, checked against the rule's output and
// timed interleaved with the others. Tasks already in FILE (same machine,
// op IR and shape) are skipped, so a run stopped by --minutes or ^C
// resumes where it was.
#include "bench/DatasetTasks.h"

#include "frontend/Frontend.h"
#include "frontend/driver/HostHardware.h"
#include "frontend/driver/MeasureCandidates.h"
#include "scheduler/cpu/ContractionSpace.h"
#include "scheduler/looptune/TuningRecords.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using namespace tk;

namespace {

struct Options {
  std::string out;
  size_t tasks = 120, candidates = 48;
  uint64_t seed = 1;
  int rounds = 5;
  double minutes = 0; // 0: no limit
  bool list = false;
};

std::optional<Options> parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (auto v = value("--out=")) o.out = v;
    else if (auto v = value("--tasks=")) o.tasks = std::strtoull(v, nullptr, 10);
    else if (auto v = value("--candidates=")) o.candidates = std::max<size_t>(2, std::strtoull(v, nullptr, 10));
    else if (auto v = value("--seed=")) o.seed = std::strtoull(v, nullptr, 10);
    else if (auto v = value("--rounds=")) o.rounds = std::max(1, std::atoi(v));
    else if (auto v = value("--minutes=")) o.minutes = std::atof(v);
    else if (a == "--list") o.list = true;
    else return std::nullopt;
  }
  if (o.out.empty() && !o.list) return std::nullopt;
  return o;
}

// Largest difference of two kernels' outputs (the last buffer), relative to
// the reference's largest magnitude; f64 outputs are read as doubles.
double outputDifference(looptune::JitKernel &a, looptune::JitKernel &ref, size_t outBuffer, bool f64) {
  const std::vector<float> &x = a.buffer(outBuffer), &y = ref.buffer(outBuffer);
  size_t n = f64 ? x.size() / 2 : x.size();
  auto at = [&](const std::vector<float> &v, size_t i) {
    return f64 ? reinterpret_cast<const double *>(v.data())[i] : double(v[i]);
  };
  double scale = 1, diff = 0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(at(y, i)));
  for (size_t i = 0; i < n; ++i)
    if (double d = std::fabs(at(x, i) - at(y, i)); !(d <= diff)) diff = d;
  return diff / scale;
}

std::string shapeText(const std::map<std::string, int64_t> &shape) {
  std::string s;
  for (const auto &[k, v] : shape) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

std::set<std::string> tasksDone(const std::string &path) {
  std::set<std::string> done;
  std::ifstream in(path);
  std::string line;
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream sink;
  diags.setStream(&sink);
  std::stringstream all;
  all << in.rdbuf();
  if (all.str().empty()) return done;
  auto recs = costmodel::parseRecords(sm.addFile(path, all.str()), sm, diags);
  if (!recs) throw std::runtime_error("tk_dataset: " + path + " has malformed records:\n" + sink.str());
  for (const costmodel::Record &r : *recs) done.insert(r.task());
  return done;
}

} // namespace

int main(int argc, char **argv) try {
  auto opts = parseArgs(argc, argv);
  if (!opts) {
    fmt::print(stderr, "usage: tk_dataset --out=FILE [--tasks=N] [--candidates=C] [--seed=S] [--rounds=R] "
                       "[--minutes=M] [--list]\n");
    return 2;
  }
  std::vector<bench::DatasetTask> tasks = bench::datasetTasks(opts->tasks, opts->seed);
  if (opts->list) {
    for (const auto &t : tasks) {
      fmt::print("{:<11} {:<17} {}  {:.3f} GFLOP\n", t.op, t.origin, shapeText(t.shape), t.flops() * 1e-9);
    }
    return 0;
  }
  std::string err;
  CpuTarget cpu = *resolveCpuTarget("host", &err);
  TargetDesc desc = cpuTargetDesc(cpu);
  construct::HardwareDesc hw = driver::detectHostHardware();
  std::string hwId = driver::hostHardwareId();
  std::set<std::string> done = tasksDone(opts->out);
  std::ofstream out(opts->out, std::ios::app);
  if (!out) throw std::runtime_error("tk_dataset: cannot open " + opts->out);
  fmt::print(stderr, "tk_dataset: {} tasks x {} candidates on {} ({} already in {})\n", tasks.size(),
             opts->candidates, hwId, done.size(), opts->out);
  auto start = std::chrono::steady_clock::now();
  construct::Rng rng(opts->seed * 0x9e3779b97f4a7c15ull + 1);
  size_t measured = 0;
  for (size_t ti = 0; ti < tasks.size(); ++ti) {
    const bench::DatasetTask &task = tasks[ti];
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (opts->minutes > 0 && elapsed > opts->minutes * 60) {
      fmt::print(stderr, "tk_dataset: stopping after {:.1f} min (--minutes); run again to resume\n", elapsed / 60);
      break;
    }
    SourceManager sm;
    DiagEngine diags(sm);
    FrontendOptions fo;
    std::string src = bench::datasetOpSource(task);
    auto module = buildModule("dataset.tk", fo, sm, diags, nullptr, &src);
    if (!module || module->ops.size() != 1) throw InternalError("tk_dataset: the task's op does not compile: " + src);
    ir::OpPtr op = module->ops[0];
    costmodel::Record proto;
    proto.hardware = hwId;
    proto.op = task.op;
    proto.ir = looptune::opFingerprint(*op);
    proto.shape = task.shape;
    proto.tkc = TK_VERSION;
    if (done.count(proto.task())) continue;

    construct::ConstructOptions co;
    co.hw = hw;
    co.shapes = task.shape;
    construct::Space space(construct::buildLoopNest(*op, task.shape), hw);
    int elemBytes = space.nest().elemBytes;
    std::vector<ContractionTiles> tiles = contractionCandidates(*op, co, desc, 8);
    std::vector<std::string> origin(tiles.size(), "gensor");
    origin[0] = "rule";
    for (int tries = 0; tiles.size() < opts->candidates && tries < 1000; ++tries) {
      ContractionTiles t = randomContractionTiles(hw, desc, elemBytes, rng);
      if (std::find(tiles.begin(), tiles.end(), t) != tiles.end()) continue;
      tiles.push_back(t);
      origin.push_back("random");
    }
    std::vector<std::unique_ptr<looptune::JitKernel>> jits;
    for (const ContractionTiles &t : tiles) {
      std::string why;
      if (!contractionTilesLegal(t, desc, elemBytes, &why))
        throw InternalError("tk_dataset: an illegal blocking was drawn: " + why);
      jits.push_back(driver::compileCandidate(constructSchedule(op, t), cpu, task.shape));
      if (jits.back()->call() != 0) throw InternalError("tk_dataset: a candidate kernel failed its call");
    }
    size_t outBuffer = op->inputs.size();
    bool f64 = elemBytes == 8;
    for (size_t c = 1; c < jits.size(); ++c)
      if (double d = outputDifference(*jits[c], *jits[0], outBuffer, f64); !(d <= 1e-3))
        throw InternalError(fmt::format("tk_dataset: candidate {} of {} differs from the rule's result by {}",
                                        c, task.op, d));
    std::vector<looptune::JitKernel *> raw;
    for (auto &j : jits) raw.push_back(j.get());
    std::vector<costmodel::Latency> lat = driver::measureInterleaved(raw, opts->rounds, 0.004);
    double best = INFINITY;
    for (size_t c = 0; c < tiles.size(); ++c) {
      costmodel::Record r = proto;
      r.candidate = origin[c];
      r.decisions = contractionDecisions(space, tiles[c]);
      r.latency = lat[c];
      best = std::min(best, lat[c].median);
      out << costmodel::printRecord(r) << "\n";
    }
    out.flush();
    measured += tiles.size();
    fmt::print(stderr, "[{}/{}] {} {} ({}): {} candidates, best {:.1f} GFLOP/s, rule {:.2f}x of best  ({:.0f} s)\n",
               ti + 1, tasks.size(), task.op, task.origin, shapeText(task.shape), tiles.size(),
               task.flops() / best * 1e-9, best / lat[0].median,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  fmt::print(stderr, "tk_dataset: {} candidates measured this run\n", measured);
  return 0;
} catch (const InternalError &e) {
  fmt::print(stderr, "internal error: {}\n", e.what());
  return 4;
} catch (const std::runtime_error &e) {
  fmt::print(stderr, "{}\n", e.what());
  return 1;
}
