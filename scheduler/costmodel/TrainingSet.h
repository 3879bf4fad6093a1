// TrainingSet: records as the cost model's rows — featurized decisions,
// labels (best latency of the task / latency, TLP's), task groups and the
// decoder head of each row's machine — and the split into training and
// held-out tasks.
#pragma once
#include "scheduler/costmodel/Featurize.h"
#include "scheduler/costmodel/Metrics.h"
#include "scheduler/costmodel/Records.h"

#include <functional>
#include <string>
#include <vector>

namespace tk::costmodel {

struct TrainingSet {
  FeatureLayout layout;
  std::vector<std::string> heads;  // hardware ids, one decoder head each
  std::vector<float> x;            // rows x seqLen x embed
  std::vector<int> lengths;        // per row
  std::vector<float> labels;       // per row, in (0, 1]
  std::vector<int> group;          // per row: index into tasks
  std::vector<int> output;         // per row: index into heads
  std::vector<double> latency;     // per row, seconds
  struct Task {
    std::string key, op;           // Record::task(), the op's name
    size_t begin = 0, end = 0;     // its rows
  };
  std::vector<Task> tasks;

  size_t rows() const { return lengths.size(); }
};

// The rows of `records` whose task `keep` accepts (all when unset), grouped
// by task in order of first appearance. `heads` lists the hardware ids the
// model has heads for; records of another machine are left out.
TrainingSet buildTrainingSet(const std::vector<Record> &records, const FeatureLayout &layout,
                             const std::vector<std::string> &heads,
                             const std::function<bool(const Record &)> &keep = {});

// The hardware ids of `records` in order of first appearance.
std::vector<std::string> hardwareIds(const std::vector<Record> &records);

// Per task, its rows' latencies and `scores` (one per row): what Metrics
// evaluates.
std::vector<RankedTask> rankedTasks(const TrainingSet &set, const std::vector<double> &scores);

// 1 for each row of `set` whose record (in `records`, which `set` was built
// from) names `candidate` as its source, 0 for the others: that source's
// ranking ("rule": tkc's default blocking first, the rest in record order).
std::vector<double> candidateScores(const TrainingSet &set, const std::vector<Record> &records,
                                    const std::string &candidate);

// Whether a task is held out for validation: a deterministic hash of its
// key below `fraction` (the same split on every machine and run).
bool heldOut(const std::string &taskKey, double fraction);

} // namespace tk::costmodel
