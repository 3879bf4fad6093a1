// Masked multi-head self-attention over a batch of variable-length
// sequences packed row after row (no padding rows): the attention layer of
// the cost-model network (TlpNetwork), forward and backward.
//
// Each sequence attends only to its own rows, so padding never enters: the
// caller packs the valid positions of every sample and nothing past a
// sample's length is ever read.
#pragma once
#include <cstddef>
#include <vector>

namespace tk::costmodel {

// Sequence s occupies rows [start[s], start[s] + length[s]) of the packed
// matrices; rows is the sum of the lengths.
struct PackedSequences {
  std::vector<int> start, length;
  int rows = 0;
};

// Floats attentionForward saves for attentionBackward (the softmax
// probabilities of every head of every sequence).
size_t attentionSavedSize(const PackedSequences &seqs, int heads);

// qkv: rows × 3·width, each row its query, key and value (width each; head h
// uses columns [h·dh, (h+1)·dh) of each, dh = width / heads). Writes out
// (rows × width): per head softmax(q kᵀ / √dh) v over the sequence's rows,
// heads side by side; and saved (attentionSavedSize floats). Requires
// width % heads == 0.
void attentionForward(const PackedSequences &seqs, int width, int heads, const float *qkv, float *out, float *saved);

// Given dOut (rows × width), the gradient of the loss with respect to out,
// writes dQkv (rows × 3·width), its gradient with respect to qkv; qkv and
// saved are those of the forward call.
void attentionBackward(const PackedSequences &seqs, int width, int heads, const float *qkv, const float *saved,
                       const float *dOut, float *dQkv);

} // namespace tk::costmodel
