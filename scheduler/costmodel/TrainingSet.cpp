#include "scheduler/costmodel/TrainingSet.h"

#include <algorithm>
#include <map>

namespace tk::costmodel {

TrainingSet buildTrainingSet(const std::vector<Record> &records, const FeatureLayout &layout,
                             const std::vector<std::string> &heads, const std::function<bool(const Record &)> &keep) {
  TrainingSet set;
  set.layout = layout;
  set.heads = heads;
  std::map<std::string, std::vector<const Record *>> byTask;
  std::vector<std::string> order;
  for (const Record &r : records) {
    if (keep && !keep(r)) continue;
    if (std::find(heads.begin(), heads.end(), r.hardware) == heads.end()) continue;
    auto &v = byTask[r.task()];
    if (v.empty()) order.push_back(r.task());
    v.push_back(&r);
  }
  size_t e = size_t(layout.embed()) * layout.seqLen;
  for (const std::string &key : order) {
    const std::vector<const Record *> &rs = byTask[key];
    double best = rs.front()->latency.median;
    for (const Record *r : rs) best = std::min(best, r->latency.median);
    int g = static_cast<int>(set.tasks.size());
    int head = static_cast<int>(std::find(heads.begin(), heads.end(), rs.front()->hardware) - heads.begin());
    set.tasks.push_back({key, rs.front()->op, set.rows(), set.rows() + rs.size()});
    for (const Record *r : rs) {
      size_t at = set.x.size();
      set.x.resize(at + e);
      set.lengths.push_back(featurize(r->decisions, layout, set.x.data() + at));
      set.labels.push_back(static_cast<float>(best / r->latency.median));
      set.group.push_back(g);
      set.output.push_back(head);
      set.latency.push_back(r->latency.median);
    }
  }
  return set;
}

std::vector<std::string> hardwareIds(const std::vector<Record> &records) {
  std::vector<std::string> ids;
  for (const Record &r : records)
    if (std::find(ids.begin(), ids.end(), r.hardware) == ids.end()) ids.push_back(r.hardware);
  return ids;
}

std::vector<RankedTask> rankedTasks(const TrainingSet &set, const std::vector<double> &scores) {
  std::vector<RankedTask> out;
  for (const TrainingSet::Task &t : set.tasks) {
    RankedTask r;
    r.latency.assign(set.latency.begin() + long(t.begin), set.latency.begin() + long(t.end));
    r.score.assign(scores.begin() + long(t.begin), scores.begin() + long(t.end));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<double> candidateScores(const TrainingSet &set, const std::vector<Record> &records,
                                    const std::string &candidate) {
  std::map<std::string, std::vector<const Record *>> byTask; // rows in record order, as buildTrainingSet
  for (const Record &r : records) byTask[r.task()].push_back(&r);
  std::vector<double> out(set.rows(), 0.0);
  for (const TrainingSet::Task &t : set.tasks)
    for (size_t r = t.begin; r < t.end; ++r) out[r] = byTask.at(t.key)[r - t.begin]->candidate == candidate ? 1.0 : 0.0;
  return out;
}

bool heldOut(const std::string &taskKey, double fraction) {
  uint64_t h = 1469598103934665603ull; // FNV-1a 64, then splitmix64's finalizer:
  for (unsigned char c : taskKey) h = (h ^ c) * 1099511628211ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull; // keys differing in their last
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull; // characters leave FNV's high bits alike
  h ^= h >> 31;
  return double(h >> 11) * 0x1p-53 < fraction;
}

} // namespace tk::costmodel
