// The training losses of the cost-model network (TlpNetwork) over one batch
// of scores, with their gradients with respect to the scores.
//
// A label is the sample's quality in (0, 1]: the best latency measured for
// its task divided by its own latency, so the best schedule of a task has
// label 1 and higher is faster, like the scores.
#pragma once

namespace tk::costmodel {

// LambdaRank. Samples are compared only within a list: the samples with the
// same group (task) and the same decoder head. For every pair (i, j) of a
// list with label_i > label_j:
//   loss_ij = |ΔNDCG_ij| · log(1 + exp(-(s_i - s_j)))
//   |ΔNDCG_ij| = |G(label_i) - G(label_j)| · |D(rank_i) - D(rank_j)| / IDCG
// where rank is the 1-based position in the list sorted by decreasing score
// (ties by sample index), D(r) = 1 / log2(1 + r), G the gain
// (lambdaRankGain) and IDCG = Σ_k D(k) · G(label_(k)) with the list's labels
// sorted decreasingly: the change of the list's NDCG if i and j swapped
// places. The loss is the mean
// of loss_ij over all such pairs of the batch (0 if there are none).
// |ΔNDCG| depends on the scores only through their order, so it is constant
// between ties and grad is the exact derivative there:
//   ∂loss/∂s_i = -Σ_j |ΔNDCG_ij| · σ(-(s_i - s_j)) / pairs (and + for j).
// Takes n scores, labels, groups and heads (heads >= 0); writes grad[0..n);
// returns the loss.
// The gain of a label: 2^(8 label) - 1, NDCG's exponential gain on labels
// in (0, 1] (255 for the best candidate, 15 for one twice as slow). With the
// label itself as the gain, a candidate at 0.7 of the best counted almost
// as much as the best, and held-out top-1 was 0.72 instead of 0.75 (records
// of 2026-11-27, docs/costmodel.md).
float lambdaRankGain(float label);

float lambdaRankLoss(int n, const float *score, const float *label, const int *group, const int *head, float *grad);

// Mean squared error: Σ (s_i - label_i)² / n, grad_i = 2 (s_i - label_i) / n.
// Requires n >= 1; writes grad[0..n); returns the loss.
float mseLoss(int n, const float *score, const float *label, float *grad);

} // namespace tk::costmodel
