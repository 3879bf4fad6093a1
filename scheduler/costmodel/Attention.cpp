#include "scheduler/costmodel/Attention.h"

#include "scheduler/costmodel/TileProduct.h"

#include <algorithm>
#include <cmath>

// Layout of the work on one sequence of n rows. Queries are the vector
// dimension: the queries, keys or values of all heads are transposed into
// width × lp matrices (lp: n padded with zeros to a multiple of 16), and a
// head's scores are kept transposed too, row j (a key) holding its score
// against every query. Then every product is a sum of broadcast scalar ×
// vector, the softmax over keys is lane-wise max and sum across rows, and
// no sum runs across lanes (which would need reassociation). Padding lanes
// hold finite values that no valid lane ever reads.
namespace tk::costmodel {
namespace {

// Independent of the SIMD level, so that the saved probabilities have one
// layout; a multiple of every level's vector length.
constexpr int kQueryPad = 16;

int paddedLength(int n) { return (n + kQueryPad - 1) / kQueryPad * kQueryPad; }

// e^x for x <= 0 to about 2 ulp, lane by lane: Cephes' expf polynomial after
// a Cody-Waite reduction (libm's expf is a call per element). Arguments
// below -87 give e^-87 (a probability of 1.6e-38 against the largest),
// keeping 2^n a normal float.
template <int L> [[gnu::always_inline]] inline void expNonPositive(Floats<L> &x) {
  const Floats<L> lowest = Floats<L>{} - 87.0f;
  x = x < lowest ? lowest : x;
  // Truncation toward zero of x·log2(e) - 0.5 (<= -0.5) rounds x·log2(e) to
  // the nearest integer n, in [-126, 0].
  Ints<L> n = __builtin_convertvector(x * 1.44269504f - 0.5f, Ints<L>);
  Floats<L> fn = __builtin_convertvector(n, Floats<L>);
  Floats<L> r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
  Floats<L> p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  Ints<L> bits = (n + 127) << 23;
  Floats<L> twoN;
  std::memcpy(&twoN, &bits, sizeof twoN);
  x = (p * r * r + r + 1.0f) * twoN;
}

// Swaps the off-diagonal B × B blocks of every 2B × 2B block of an L × L
// tile held as L rows; B = L/2, ..., 2, 1 in turn transpose it.
template <int L, int B> [[gnu::always_inline]] inline void swapBlocks(Floats<L> (&t)[L]) {
  Ints<L> lo, hi;
  for (int l = 0; l < L; ++l) {
    lo[l] = (l & B) ? L + l - B : l;
    hi[l] = (l & B) ? L + l : l + B;
  }
  for (int i = 0; i < L; ++i)
    if (!(i & B)) {
      Floats<L> a = t[i], b = t[i + B];
      t[i] = __builtin_shuffle(a, b, lo);
      t[i + B] = __builtin_shuffle(a, b, hi);
    }
  if constexpr (B > 1) swapBlocks<L, B / 2>(t);
}

// dst[c·ldd + r] = r < rows ? src[r·lds + c] : 0 for c < cols, r < padded:
// the transpose of a rows × cols block, each of its rows extended with zeros
// to `padded` floats. With `tiles` it moves whole L × L tiles through
// registers, which needs padded % L == 0 and source rows readable up to
// column cols rounded up to L; otherwise element by element.
template <int L>
[[gnu::always_inline]] inline void transposePadded(int rows, int cols, const float *src, size_t lds, float *dst,
                                                   size_t ldd, int padded, bool tiles) {
  if (!tiles) {
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < padded; ++r) dst[c * ldd + r] = r < rows ? src[r * lds + c] : 0.0f;
    return;
  }
  for (int r0 = 0; r0 < padded; r0 += L)
    for (int c0 = 0; c0 < cols; c0 += L) {
      Floats<L> t[L];
      for (int i = 0; i < L; ++i) {
        if (r0 + i < rows)
          load<L>(t[i], src + (r0 + i) * lds + c0);
        else
          t[i] = Floats<L>{};
      }
      swapBlocks<L, L / 2>(t);
      for (int i = 0; i < L && c0 + i < cols; ++i) store<L>(dst + (c0 + i) * ldd + r0, t[i]);
    }
}

// dst[j·lp + i] = Σ_d x(j, d) · cols[d·lp + i] for j < n: each row of x
// (dh wide) against the dh transposed columns.
template <int L>
[[gnu::always_inline]] inline void rowScores(int n, int lp, int dh, StridedMatrix x, const float *cols,
                                             const float *zeros, float *dst) {
  product<L>(n, lp, dh, x, cols, lp, dst, lp, {zeros});
}

// dst[d·lp + i] = Σ_j x(d, j) · rows[j·lp + i] for d < dh: the dh columns of
// x weighted by the n rows, transposed.
template <int L>
[[gnu::always_inline]] inline void weightedRows(int n, int lp, int dh, const float *rows, StridedMatrix x,
                                                const float *zeros, float *dst) {
  product<L>(dh, lp, n, x, rows, lp, dst, lp, {zeros});
}

// Rows j < n of p hold scores; each column (query) becomes the softmax over
// its n keys of scale · score.
template <int L> [[gnu::always_inline]] inline void softmaxColumns(int n, int lp, float scale, float *p) {
  for (int c = 0; c < lp; c += L) {
    Floats<L> mx, v, sum{};
    load<L>(mx, p + c);
    for (int j = 1; j < n; ++j) {
      load<L>(v, p + j * lp + c);
      mx = mx < v ? v : mx;
    }
    for (int j = 0; j < n; ++j) {
      load<L>(v, p + j * lp + c);
      v = (v - mx) * scale;
      expNonPositive<L>(v);
      sum += v;
      store<L>(p + j * lp + c, v);
    }
    const Floats<L> inv = 1.0f / sum;
    for (int j = 0; j < n; ++j) {
      load<L>(v, p + j * lp + c);
      store<L>(p + j * lp + c, v * inv);
    }
  }
}

// Given the probabilities p and, in ds, the loss gradient with respect to
// them, ds becomes the gradient with respect to the scores (before scale):
// scale · p · (ds - Σ_j p ds) per column.
template <int L>
[[gnu::always_inline]] inline void softmaxBackward(int n, int lp, float scale, const float *p, float *ds) {
  for (int c = 0; c < lp; c += L) {
    Floats<L> dot{}, pv, dv;
    for (int j = 0; j < n; ++j) {
      load<L>(pv, p + j * lp + c);
      load<L>(dv, ds + j * lp + c);
      dot += pv * dv;
    }
    for (int j = 0; j < n; ++j) {
      load<L>(pv, p + j * lp + c);
      load<L>(dv, ds + j * lp + c);
      store<L>(ds + j * lp + c, scale * pv * (dv - dot));
    }
  }
}

struct Geometry {
  int width, heads, dh; // dh: the width of a head
  size_t ld;            // floats per qkv row
  float scale;          // 1 / sqrt(dh)
  Geometry(int w, int h)
      : width(w), heads(h), dh(w / h), ld(3 * static_cast<size_t>(w)), scale(1.0f / std::sqrt(static_cast<float>(dh))) {
  }
};

// Scratch for one sequence, sized for the longest: width × lp matrices in
// (the queries, or the output gradient, transposed) and out (the output, or
// the gradients of queries, keys and values, transposed); n × lp ones.
struct Scratch {
  std::vector<float> in, out[3], scores, square, zeros;
  Scratch(int width, const PackedSequences &seqs) {
    const int maxLen = seqs.length.empty() ? 0 : *std::max_element(seqs.length.begin(), seqs.length.end());
    const size_t lp = static_cast<size_t>(paddedLength(maxLen));
    in.resize(width * lp);
    for (std::vector<float> &o : out) o.resize(in.size());
    scores.resize(maxLen * lp);
    square.resize(scores.size());
    zeros.resize(lp);
  }
};

template <int L>
[[gnu::always_inline]] inline void forward(const PackedSequences &seqs, Geometry g, const float *qkv, float *out,
                                           float *saved) {
  Scratch t(g.width, seqs);
  const size_t ld = g.ld;
  const bool tiles = g.width % L == 0;
  for (size_t s = 0; s < seqs.length.size(); ++s) {
    const int n = seqs.length[s], lp = paddedLength(n);
    const size_t r0 = static_cast<size_t>(seqs.start[s]);
    const float *rows = qkv + r0 * ld;
    transposePadded<L>(n, g.width, rows, ld, t.in.data(), lp, lp, tiles); // the queries
    for (int h = 0; h < g.heads; ++h, saved += static_cast<size_t>(n) * lp) {
      const size_t c = static_cast<size_t>(h) * g.dh; // the head's first column
      float *p = saved;                               // row j: key j's scores, then probabilities, for every query
      rowScores<L>(n, lp, g.dh, {rows + g.width + c, ld, 1}, t.in.data() + c * lp, t.zeros.data(), p);
      softmaxColumns<L>(n, lp, g.scale, p);
      weightedRows<L>(n, lp, g.dh, p, {rows + 2 * g.width + c, 1, ld}, t.zeros.data(), t.out[0].data() + c * lp);
    }
    transposePadded<L>(g.width, n, t.out[0].data(), lp, out + r0 * g.width, g.width, g.width, tiles);
  }
}

template <int L>
[[gnu::always_inline]] inline void backward(const PackedSequences &seqs, Geometry g, const float *qkv,
                                            const float *saved, const float *dOut, float *dQkv) {
  Scratch t(g.width, seqs);
  const size_t ld = g.ld, w = static_cast<size_t>(g.width);
  const bool tiles = g.width % L == 0;
  for (size_t s = 0; s < seqs.length.size(); ++s) {
    const int n = seqs.length[s], lp = paddedLength(n);
    const size_t r0 = static_cast<size_t>(seqs.start[s]);
    const float *rows = qkv + r0 * ld, *dRows = dOut + r0 * w;
    transposePadded<L>(n, g.width, dRows, w, t.in.data(), lp, lp, tiles); // the output gradient
    for (int h = 0; h < g.heads; ++h, saved += static_cast<size_t>(n) * lp) {
      const size_t c = static_cast<size_t>(h) * g.dh;
      const float *p = saved;
      float *ds = t.scores.data();
      // ds: the gradient with respect to the probabilities (dO vᵀ, transposed
      // like p), then to the scores; with it the queries' gradient.
      rowScores<L>(n, lp, g.dh, {rows + 2 * w + c, ld, 1}, t.in.data() + c * lp, t.zeros.data(), ds);
      softmaxBackward<L>(n, lp, g.scale, p, ds);
      weightedRows<L>(n, lp, g.dh, ds, {rows + w + c, 1, ld}, t.zeros.data(), t.out[0].data() + c * lp);
      // Key and value gradients sum over queries: transpose the n × n blocks
      // so that keys become the vector dimension.
      transposePadded<L>(n, n, ds, lp, t.square.data(), lp, lp, true);
      weightedRows<L>(n, lp, g.dh, t.square.data(), {rows + c, 1, ld}, t.zeros.data(), t.out[1].data() + c * lp);
      transposePadded<L>(n, n, p, lp, t.square.data(), lp, lp, true);
      weightedRows<L>(n, lp, g.dh, t.square.data(), {dRows + c, 1, w}, t.zeros.data(), t.out[2].data() + c * lp);
    }
    for (size_t part = 0; part < 3; ++part)
      transposePadded<L>(g.width, n, t.out[part].data(), lp, dQkv + r0 * ld + part * w, ld, g.width, tiles);
  }
}

} // namespace

size_t attentionSavedSize(const PackedSequences &seqs, int heads) {
  size_t n = 0;
  for (int len : seqs.length) n += static_cast<size_t>(heads) * len * paddedLength(len);
  return n;
}

void attentionForward(const PackedSequences &seqs, int width, int heads, const float *qkv, float *out, float *saved) {
  runSimd([&]<int L>() __attribute__((always_inline)) { forward<L>(seqs, {width, heads}, qkv, out, saved); });
}

void attentionBackward(const PackedSequences &seqs, int width, int heads, const float *qkv, const float *saved,
                       const float *dOut, float *dQkv) {
  runSimd([&]<int L>() __attribute__((always_inline)) { backward<L>(seqs, {width, heads}, qkv, saved, dOut, dQkv); });
}

} // namespace tk::costmodel
