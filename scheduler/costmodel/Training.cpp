#include "scheduler/costmodel/Training.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

namespace tk::costmodel {

std::vector<double> scoreRows(const TlpNetwork &net, const TrainingSet &set) {
  std::vector<double> out(set.rows(), 0.0);
  size_t e = size_t(set.layout.embed()) * set.layout.seqLen;
  for (size_t h = 0; h < set.heads.size(); ++h) {
    int o = net.outputIndex(set.heads[h]);
    if (o < 0) continue;
    // Rows of this head, in chunks of 256, gathered contiguously.
    std::vector<size_t> rows;
    for (size_t r = 0; r < set.rows(); ++r)
      if (set.output[r] == static_cast<int>(h)) rows.push_back(r);
    for (size_t b = 0; b < rows.size(); b += 256) {
      size_t n = std::min<size_t>(256, rows.size() - b);
      std::vector<float> x(n * e);
      std::vector<int> len(n);
      for (size_t i = 0; i < n; ++i) {
        std::copy_n(set.x.begin() + long(rows[b + i] * e), e, x.begin() + long(i * e));
        len[i] = set.lengths[rows[b + i]];
      }
      std::vector<float> s = net.predict({static_cast<int>(n), x.data(), len.data()}, o);
      for (size_t i = 0; i < n; ++i) out[rows[b + i]] = s[i];
    }
  }
  return out;
}

TlpNetwork trainCostModel(const TrainingSet &train, const TrainingSet *validation, const TrainingOptions &opts,
                          const std::function<void(const EpochReport &)> &progress) {
  NetworkShape shape;
  shape.seqLen = train.layout.seqLen;
  shape.embed = train.layout.embed();
  shape.width = opts.width;
  shape.heads = opts.heads;
  shape.outputs = train.heads;
  shape.layout = train.layout.signature();
  TlpNetwork net(shape, opts.seed);
  TlpNetwork best = net;
  double bestTop1 = -1;
  TrainOptions to;
  to.learningRate = opts.learningRate;
  to.loss = opts.loss;
  std::mt19937_64 rng(opts.seed ^ 0x5eedull);
  std::vector<size_t> order(train.tasks.size());
  std::iota(order.begin(), order.end(), size_t(0));
  size_t e = size_t(train.layout.embed()) * train.layout.seqLen;
  auto start = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= opts.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    double lossSum = 0;
    int batches = 0;
    for (size_t b = 0; b < order.size(); b += size_t(std::max(opts.tasksPerBatch, 1))) {
      std::vector<float> x, labels;
      std::vector<int> len, group, output;
      for (size_t t = b; t < std::min(order.size(), b + size_t(std::max(opts.tasksPerBatch, 1))); ++t) {
        const TrainingSet::Task &task = train.tasks[order[t]];
        for (size_t r = task.begin; r < task.end; ++r) {
          x.insert(x.end(), train.x.begin() + long(r * e), train.x.begin() + long((r + 1) * e));
          len.push_back(train.lengths[r]);
          labels.push_back(train.labels[r]);
          group.push_back(train.group[r]);
          output.push_back(train.output[r]);
        }
      }
      lossSum += net.trainStep({static_cast<int>(len.size()), x.data(), len.data()}, labels.data(), group.data(),
                               output.data(), to);
      ++batches;
    }
    EpochReport rep;
    rep.epoch = epoch;
    rep.loss = batches ? lossSum / batches : 0;
    if (validation && !validation->tasks.empty()) {
      std::vector<RankedTask> ranked = rankedTasks(*validation, scoreRows(net, *validation));
      rep.top1 = topKScore(ranked, 1);
      rep.top5 = topKScore(ranked, 5);
      if (rep.top1 >= bestTop1) bestTop1 = rep.top1, best = net;
    }
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(rep);
  }
  return validation && !validation->tasks.empty() ? best : net;
}

} // namespace tk::costmodel
