#include "scheduler/costmodel/RankingLoss.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace tk::costmodel {

float lambdaRankGain(float label) { return std::exp2(8 * label) - 1; }

float lambdaRankLoss(int n, const float *score, const float *label, const int *group, const int *head, float *grad) {
  std::fill(grad, grad + n, 0.0f);
  // Lists: runs of equal (head, group) after a stable order by that key.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return std::pair(head[a], group[a]) < std::pair(head[b], group[b]); });
  double loss = 0;
  long pairs = 0;
  std::vector<int> rank(n);
  std::vector<float> ideal, discount(1); // discount[r] = D(r), from r = 1
  for (size_t begin = 0, end; begin < order.size(); begin = end) {
    end = begin + 1;
    while (end < order.size() && head[order[end]] == head[order[begin]] && group[order[end]] == group[order[begin]])
      ++end;
    if (end - begin < 2) continue;
    while (discount.size() <= end - begin)
      discount.push_back(1.0f / std::log2(1.0f + static_cast<float>(discount.size())));
    std::vector<int> list(order.begin() + begin, order.begin() + end);
    std::sort(list.begin(), list.end(),
              [&](int a, int b) { return score[a] != score[b] ? score[a] > score[b] : a < b; });
    for (size_t r = 0; r < list.size(); ++r) rank[list[r]] = static_cast<int>(r) + 1;
    ideal.clear();
    for (int i : list) ideal.push_back(lambdaRankGain(label[i]));
    std::sort(ideal.begin(), ideal.end(), std::greater<>());
    float idcg = 0;
    for (size_t r = 0; r < ideal.size(); ++r) idcg += ideal[r] * discount[r + 1];
    for (int i : list)
      for (int j : list) {
        if (!(label[i] > label[j])) continue;
        float delta = std::fabs((lambdaRankGain(label[i]) - lambdaRankGain(label[j])) * (discount[rank[i]] - discount[rank[j]])) / idcg;
        // log(1 + e^-x) and σ(-x) from one e^-|x|, which cannot overflow.
        float x = score[i] - score[j], e = std::exp(-std::fabs(x));
        loss += delta * (std::max(-x, 0.0f) + std::log1p(e));
        float g = delta * (x >= 0 ? e : 1.0f) / (1.0f + e);
        grad[i] -= g;
        grad[j] += g;
        ++pairs;
      }
  }
  if (pairs == 0) return 0.0f;
  for (int i = 0; i < n; ++i) grad[i] /= static_cast<float>(pairs);
  return static_cast<float>(loss / static_cast<double>(pairs));
}

float mseLoss(int n, const float *score, const float *label, float *grad) {
  double loss = 0;
  for (int i = 0; i < n; ++i) {
    float err = score[i] - label[i];
    loss += static_cast<double>(err) * err;
    grad[i] = 2.0f * err / static_cast<float>(n);
  }
  return static_cast<float>(loss / n);
}

} // namespace tk::costmodel
