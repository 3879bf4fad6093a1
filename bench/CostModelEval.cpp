// tk_costmodel_eval: how well the learned cost model ranks candidates it
// was not trained on, against the roofline estimate, the capacity rule and
// random order (docs/costmodel.md, "Evaluation"; TLP's top-k metric).
//   tk_costmodel_eval RECORDS... [--epochs=N] [--seed=S] [--width=W]
//                     [--holdout-ops=a,b] [--holdout=F] [--lr=X] [--batch-tasks=N] [--out-model=FILE]
//                     [--dump=FILE] [--mtl=MACHINE [--mtl-share=F]]
// Held out: every task of the --holdout-ops ops (default matmul_tn and
// bmm_shared: ops never trained on) and a fraction F (default 0.2) of the
// other tasks (shapes never trained on). Records are tk_dataset's (their
// ops are rebuilt from DatasetTasks.h for the roofline); the roofline is
// evaluated with this host's description, so evaluate records of this
// machine. --mtl=MACHINE runs MTL-TLP's experiment instead
// (CostModelTransfer.h): MACHINE's held-out tasks ranked by models that saw
// F (default 0.1) of its other tasks.
#include "bench/CostModelTransfer.h"
#include "bench/DatasetTasks.h"

#include "frontend/Frontend.h"
#include "frontend/driver/HostHardware.h"
#include "frontend/driver/TrainCostModel.h"
#include "scheduler/costmodel/Training.h"
#include "scheduler/cpu/ContractionSpace.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using namespace tk;
using namespace tk::costmodel;

namespace {

struct Options {
  std::vector<std::string> inputs;
  TrainingOptions train;
  std::set<std::string> holdoutOps{"matmul_tn", "bmm_shared"};
  double holdout = 0.2;
  std::string outModel;
  std::string dump; // per held-out candidate: task, latency, model score, blocking
  std::string mtl;  // target machine of the multi-task experiment (CostModelTransfer.h)
  double mtlShare = 0.1;
};

std::optional<Options> parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> std::optional<std::string> {
      size_t n = std::strlen(flag);
      if (a.compare(0, n, flag) != 0) return std::nullopt;
      return a.substr(n);
    };
    if (auto v = value("--epochs=")) o.train.epochs = std::max(1, std::atoi(v->c_str()));
    else if (auto v = value("--seed=")) o.train.seed = std::strtoull(v->c_str(), nullptr, 10);
    else if (auto v = value("--width=")) o.train.width = std::max(8, std::atoi(v->c_str()));
    else if (auto v = value("--holdout=")) o.holdout = std::atof(v->c_str());
    else if (auto v = value("--lr=")) o.train.learningRate = std::stof(*v);
    else if (auto v = value("--batch-tasks=")) o.train.tasksPerBatch = std::max(1, std::atoi(v->c_str()));
    else if (auto v = value("--out-model=")) o.outModel = *v;
    else if (auto v = value("--dump=")) o.dump = *v;
    else if (auto v = value("--mtl=")) o.mtl = *v;
    else if (auto v = value("--mtl-share=")) o.mtlShare = std::atof(v->c_str());
    else if (auto v = value("--holdout-ops=")) {
      o.holdoutOps.clear();
      std::stringstream ss(*v);
      for (std::string op; std::getline(ss, op, ',');)
        if (!op.empty()) o.holdoutOps.insert(op);
    } else if (a.size() > 1 && a[0] == '-') return std::nullopt;
    else o.inputs.push_back(a);
  }
  if (o.inputs.empty()) return std::nullopt;
  return o;
}

// Each task's records, in the order buildTrainingSet gives them rows.
using TaskRecords = std::map<std::string, std::vector<const Record *>>;

// The roofline's score (minus its estimate) of every row of `set`, built
// from the records' ops and decisions; nullopt when a task's op is not one
// of tk_dataset's.
std::optional<std::vector<double>> rooflineScores(const TrainingSet &set, const TaskRecords &byTask) {
  construct::HardwareDesc hw = driver::detectHostHardware();
  std::vector<double> out(set.rows());
  for (const TrainingSet::Task &t : set.tasks) {
    const std::vector<const Record *> &rs = byTask.at(t.key);
    bench::DatasetTask task{rs.front()->op, rs.front()->shape, ""};
    SourceManager sm;
    DiagEngine diags(sm);
    std::ostringstream sink;
    diags.setStream(&sink);
    FrontendOptions fo;
    std::string src;
    try {
      src = bench::datasetOpSource(task);
    } catch (const std::out_of_range &) {
      return std::nullopt;
    }
    auto m = buildModule("eval.tk", fo, sm, diags, nullptr, &src);
    if (!m || m->ops.size() != 1) return std::nullopt;
    construct::Space space(construct::buildLoopNest(*m->ops[0], task.shape), hw);
    for (size_t r = t.begin; r < t.end; ++r) {
      auto tiles = contractionTilesOf(rs[r - t.begin]->decisions);
      out[r] = tiles ? -contractionEstimate(space, *tiles).seconds : -1e30;
    }
  }
  return out;
}

struct Row {
  std::string name;
  std::vector<RankedTask> tasks;
};

void printTable(const std::vector<Row> &rows) {
  fmt::print("| ranking | top-1 | top-5 | measurements to 95% of best |\n|---|---|---|---|\n");
  for (const Row &r : rows)
    fmt::print("| {} | {:.3f} | {:.3f} | {:.2f} |\n", r.name, topKScore(r.tasks, 1), topKScore(r.tasks, 5),
               measurementsToReach(r.tasks, 0.95));
}

} // namespace

int main(int argc, char **argv) {
  auto opts = parseArgs(argc, argv);
  if (!opts) {
    fmt::print(stderr, "usage: tk_costmodel_eval RECORDS... [--epochs=N] [--seed=S] [--width=W] [--holdout-ops=a,b] "
                       "[--holdout=F] [--lr=X] [--batch-tasks=N] [--out-model=FILE] [--dump=FILE] [--mtl=MACHINE [--mtl-share=F]]\n");
    return 2;
  }
  SourceManager sm;
  DiagEngine diags(sm);
  std::string error;
  std::optional<std::vector<Record>> read = driver::readRecords(opts->inputs, sm, diags, &error);
  if (!read) {
    if (!error.empty()) fmt::print(stderr, "{}\n", error);
    return 1;
  }
  const std::vector<Record> &records = *read;
  if (!opts->mtl.empty())
    return bench::evaluateTransfer(records, opts->mtl, opts->holdout, opts->mtlShare, opts->train) ? 0 : 1;
  FeatureLayout layout;
  std::vector<std::string> heads = hardwareIds(records);
  auto held = [&](const Record &r) { return opts->holdoutOps.count(r.op) || heldOut(r.task(), opts->holdout); };
  TrainingSet train = buildTrainingSet(records, layout, heads, [&](const Record &r) { return !held(r); });
  TrainingSet test = buildTrainingSet(records, layout, heads, held);
  fmt::print("records: {} candidates, {} tasks for training, {} held-out tasks ({} candidates); machines: {}\n",
             records.size(), train.tasks.size(), test.tasks.size(), test.rows(), fmt::join(heads, ", "));
  if (train.tasks.empty() || test.tasks.empty()) {
    fmt::print(stderr, "tk_costmodel_eval: need tasks both to train on and to hold out\n");
    return 1;
  }
  auto progress = [](const EpochReport &r) {
    fmt::print(stderr, "  epoch {}: loss {:.4f} ({:.0f} s)\n", r.epoch, r.loss, r.seconds);
  };
  // No validation inside: the held-out tasks must not choose the epoch.
  fmt::print(stderr, "training (LambdaRank)...\n");
  TlpNetwork rank = trainCostModel(train, nullptr, opts->train, progress);
  TrainingOptions mseOpts = opts->train;
  mseOpts.loss = Loss::Mse;
  fmt::print(stderr, "training (MSE ablation)...\n");
  TlpNetwork mse = trainCostModel(train, nullptr, mseOpts, progress);
  if (!opts->outModel.empty()) std::ofstream(opts->outModel) << rank.serialize();

  TaskRecords byTask;
  for (const Record &r : records) byTask[r.task()].push_back(&r);
  std::vector<Row> rows;
  // How well the model fits what it was trained on: a ceiling for the rest.
  std::vector<RankedTask> fit = rankedTasks(train, scoreRows(rank, train));
  fmt::print("training tasks (fit): top-1 {:.3f}, top-5 {:.3f}\n", topKScore(fit, 1), topKScore(fit, 5));
  rows.push_back({"learned model (LambdaRank)", rankedTasks(test, scoreRows(rank, test))});
  rows.push_back({"learned model (MSE)", rankedTasks(test, scoreRows(mse, test))});
  if (auto roof = rooflineScores(test, byTask)) rows.push_back({"roofline estimate", rankedTasks(test, *roof)});
  else fmt::print("(roofline left out: some held-out ops are not tk_dataset's)\n");
  rows.push_back({"capacity rule (tkc's default)", rankedTasks(test, candidateScores(test, records, "rule"))});
  // Random order: the mean of 20 draws, shown as one row per metric.
  std::vector<RankedTask> base = rankedTasks(test, std::vector<double>(test.rows(), 0.0));
  double r1 = 0, r5 = 0, rm = 0;
  for (uint64_t s = 1; s <= 20; ++s) {
    auto t = randomScores(base, s);
    r1 += topKScore(t, 1) / 20, r5 += topKScore(t, 5) / 20, rm += measurementsToReach(t, 0.95) / 20;
  }
  printTable(rows);
  fmt::print("| random order (mean of 20) | {:.3f} | {:.3f} | {:.2f} |\n", r1, r5, rm);
  if (!opts->dump.empty()) {
    std::ofstream d(opts->dump);
    for (size_t t = 0; t < test.tasks.size(); ++t)
      for (size_t r = test.tasks[t].begin; r < test.tasks[t].end; ++r) {
        const Record &rec = *byTask.at(test.tasks[t].key)[r - test.tasks[t].begin];
        auto tiles = contractionTilesOf(rec.decisions);
        d << fmt::format("{}\t{}\t{:.6g}\t{:.5f}\t{}\n", test.tasks[t].key, rec.candidate, test.latency[r],
                         rows[0].tasks[t].score[r - test.tasks[t].begin], tiles ? printContractionTiles(*tiles) : "");
      }
  }
  // Top-1 by op: where the model and the rule win and lose.
  std::set<std::string> ops;
  for (const TrainingSet::Task &t : test.tasks) ops.insert(t.op);
  fmt::print("\n| held-out op | tasks | model top-1 | rule top-1 |\n|---|---|---|---|\n");
  for (const std::string &op : ops) {
    std::vector<RankedTask> model, byRule;
    for (size_t t = 0; t < test.tasks.size(); ++t)
      if (test.tasks[t].op == op) model.push_back(rows[0].tasks[t]), byRule.push_back(rows.back().tasks[t]);
    fmt::print("| {} | {} | {:.3f} | {:.3f} |\n", op, model.size(), topKScore(model, 1), topKScore(byRule, 1));
  }
  // Inference: one batch of 64 held-out candidates, as --rank=model scores
  // them; the median of 200 calls.
  size_t n = std::min<size_t>(64, test.rows());
  std::vector<double> us;
  for (int rep = 0; rep < 200; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<float> s = rank.predict({static_cast<int>(n), test.x.data(), test.lengths.data()}, 0);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    if (s.empty()) return 4;
  }
  std::sort(us.begin(), us.end());
  fmt::print("\ninference: {:.0f} us per batch of {} candidates (median of 200; {} parameters, width {})\n",
             us[us.size() / 2], n, rank.parameterCount(), opts->train.width);
  return 0;
}
