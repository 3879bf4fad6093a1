#include "bench/CostModelTransfer.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::bench {

using namespace costmodel;

namespace {

// Scores of the target's held-out rows from `net`'s head `head`.
std::vector<RankedTask> rankWith(const TlpNetwork &net, const std::string &head, const TrainingSet &test) {
  TrainingSet relabelled = test;
  relabelled.heads = {head}; // every row of `test` is the target's: read them through `head`
  return rankedTasks(test, scoreRows(net, relabelled));
}

} // namespace

bool evaluateTransfer(const std::vector<Record> &records, const std::string &target, double holdout, double share,
                      const TrainingOptions &opts) {
  std::vector<std::string> machines = hardwareIds(records), others;
  for (const std::string &m : machines)
    if (m != target) others.push_back(m);
  if (std::find(machines.begin(), machines.end(), target) == machines.end() || others.empty()) {
    fmt::print(stderr, "tk_costmodel_eval --mtl={}: the records must hold that machine and another (they hold: {})\n",
               target, fmt::join(machines, ", "));
    return false;
  }
  FeatureLayout layout;
  auto isTarget = [&](const Record &r) { return r.hardware == target; };
  auto heldTarget = [&](const Record &r) { return isTarget(r) && heldOut(r.task(), holdout); };
  auto shareTarget = [&](const Record &r) { return isTarget(r) && !heldTarget(r) && heldOut(r.task() + "#share", share); };
  TrainingSet test = buildTrainingSet(records, layout, {target}, heldTarget);
  TrainingSet mtl = buildTrainingSet(records, layout, machines,
                                     [&](const Record &r) { return !isTarget(r) || shareTarget(r); });
  TrainingSet alone = buildTrainingSet(records, layout, {target}, shareTarget);
  TrainingSet all = buildTrainingSet(records, layout, {target}, [&](const Record &r) { return isTarget(r) && !heldTarget(r); });
  TrainingSet elsewhere = buildTrainingSet(records, layout, others, [&](const Record &r) { return !isTarget(r); });
  fmt::print("\nMTL on {}: {} held-out tasks; {} of its other {} tasks ({:.0f}%) seen; {} tasks of {}\n", target,
             test.tasks.size(), alone.tasks.size(), all.tasks.size(), share * 100, elsewhere.tasks.size(),
             fmt::join(others, ", "));
  if (test.tasks.empty() || alone.tasks.empty()) {
    fmt::print(stderr, "tk_costmodel_eval --mtl: too few tasks of {} for a held-out set and a share\n", target);
    return false;
  }
  struct Row {
    std::string name;
    std::vector<RankedTask> tasks;
  };
  std::vector<Row> rows;
  rows.push_back({"MTL: backbone on all machines, head of the target", rankWith(trainCostModel(mtl, nullptr, opts), target, test)});
  rows.push_back({"the target's share alone", rankWith(trainCostModel(alone, nullptr, opts), target, test)});
  rows.push_back({"the other machines alone (head of " + others[0] + ")",
                  rankWith(trainCostModel(elsewhere, nullptr, opts), others[0], test)});
  // References: all of the target's training tasks (what measuring the
  // whole dataset on it would give), and tkc's default blocking.
  rows.push_back({"reference: all of the target's other tasks", rankWith(trainCostModel(all, nullptr, opts), target, test)});
  rows.push_back({"reference: capacity rule (tkc's default)", rankedTasks(test, candidateScores(test, records, "rule"))});
  fmt::print("| model | top-1 | top-5 | measurements to reach 95% of the best |\n|---|---|---|---|\n");
  for (const Row &r : rows)
    fmt::print("| {} | {:.3f} | {:.3f} | {:.1f} |\n", r.name, topKScore(r.tasks, 1), topKScore(r.tasks, 5),
               measurementsToReach(r.tasks, 0.95));
  return true;
}

} // namespace tk::bench
