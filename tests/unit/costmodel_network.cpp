// The TLP cost-model network (scheduler/costmodel): analytic gradients
// against a double-precision reference, padding invariance, learning a synthetic
// ranking with LambdaRank and with MSE, determinism, weights files and their
// located errors, and multi-task decoders.
#include "costmodel_network_reference.h"

#include <sstream>

using namespace tk;
using namespace tk::costmodel;
using namespace tk::costmodel::nettest;

TEST_CASE("costmodel network: analytic gradients match finite differences, padding excluded") {
  std::mt19937 rng(5);
  {
    TlpNetwork net(tinyShape(), 11);
    Batch b = randomBatch(net.shape(), {3, 2, 1, 3, 2}, rng);
    checkGradients(net, b, 1);
  }
  // Sequences longer than 16 and a width of 16: several query tiles, and
  // whole-tile transposes at every level.
  NetworkShape shape = tinyShape();
  shape.seqLen = 18;
  shape.width = 16;
  shape.heads = 4;
  TlpNetwork net(shape, 12);
  Batch b = randomBatch(shape, {18, 17, 5, 1}, rng);
  checkGradients(net, b, 3);
}

TEST_CASE("costmodel network: SIMD levels differ in rounding only") {
  NetworkShape shape = fullSizeShape();
  TlpNetwork net(shape, 3);
  std::mt19937 rng(9);
  Batch b = randomBatch(shape, {25, 1, 7, 24, 13, 2, 16, 17}, rng);
  const std::vector<float> best = net.predict(b.samples(), 0);
  for (SimdLevel level : simdLevels()) {
    AtSimdLevel at(level);
    std::vector<float> scores = net.predict(b.samples(), 0);
    for (size_t i = 0; i < best.size(); ++i) CHECK(scores[i] == doctest::Approx(best[i]).epsilon(1e-5));
  }
}

TEST_CASE("costmodel network: LambdaRank loss and gradient") {
  // Two samples of one list, tied scores: ranks by index, so sample 0 (the
  // better) is first; gains 255 and 15, |ΔNDCG| = 240 · (1 - 1/log2 3) /
  // (255 + 15/log2 3).
  CHECK(lambdaRankGain(1.0f) == 255.0f);
  CHECK(lambdaRankGain(0.5f) == 15.0f);
  float score[] = {0, 0}, label[] = {1.0f, 0.5f}, grad[2];
  int group[] = {7, 7}, head[] = {0, 0};
  float delta = 240.0f * (1 - 1 / std::log2(3.0f)) / (255 + 15.0f / std::log2(3.0f));
  CHECK(lambdaRankLoss(2, score, label, group, head, grad) == doctest::Approx(delta * std::log(2.0f)));
  CHECK(grad[0] == doctest::Approx(-delta / 2));
  CHECK(grad[1] == doctest::Approx(delta / 2));
  // Other groups or heads are separate lists: no pair, no loss.
  int otherGroup[] = {7, 8}, otherHead[] = {0, 1};
  CHECK(lambdaRankLoss(2, score, label, otherGroup, head, grad) == 0.0f);
  CHECK(lambdaRankLoss(2, score, label, group, otherHead, grad) == 0.0f);
  CHECK(grad[0] == 0.0f);

  // The gradient is the loss's derivative where no two scores swap.
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  const int n = 9;
  float s[n], l[n], g[n], unused[n];
  int grp[n], hd[n];
  for (int i = 0; i < n; ++i) {
    s[i] = static_cast<float>(i % 5) * 0.7f - static_cast<float>(i) * 0.05f; // distinct, gaps >= 0.05
    l[i] = u(rng);
    grp[i] = i % 2;
    hd[i] = i < 6 ? 0 : 1;
  }
  lambdaRankLoss(n, s, l, grp, hd, g);
  for (int i = 0; i < n; ++i) {
    const float eps = 1e-3f, keep = s[i];
    s[i] = keep + eps;
    float up = lambdaRankLoss(n, s, l, grp, hd, unused);
    s[i] = keep - eps;
    float down = lambdaRankLoss(n, s, l, grp, hd, unused);
    s[i] = keep;
    CHECK(g[i] == doctest::Approx((up - down) / (2 * eps)).epsilon(1e-2).scale(1e-3));
  }
}

TEST_CASE("costmodel network: padding positions do not change predictions") {
  NetworkShape shape = fullSizeShape();
  TlpNetwork net(shape, 3);
  std::mt19937 rng(9);
  Batch b = randomBatch(shape, {25, 1, 7, 24, 13, 2}, rng);
  std::vector<float> reference = net.predict(b.samples(), 0);
  for (float pad : {0.0f, -1e6f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    b.fillPadding(pad);
    CHECK(net.predict(b.samples(), 0) == reference);
  }
  // Each sample's score is its own: predicting it alone gives the same bits.
  for (int i = 0; i < 6; ++i) {
    Samples one{1, b.x.data() + static_cast<size_t>(i) * 25 * 24, b.lengths.data() + i};
    CHECK(net.predict(one, 0)[0] == reference[i]);
  }
}

namespace {

// A synthetic task in groups of 8: a sample's label is Σ_valid (1 + x0 - x1)
// / (2 · seqLen), in (0, 1] and a sum over positions like the scores.
struct Ranking {
  Batch batch;
  std::vector<float> labels;
  std::vector<int> group, output;
};

Ranking rankingData(const NetworkShape &shape, int groups, std::mt19937 &rng, int firstGroup) {
  std::uniform_int_distribution<int> len(2, shape.seqLen);
  std::vector<int> lengths(groups * 8);
  for (int &l : lengths) l = len(rng);
  Ranking r{randomBatch(shape, lengths, rng, 0, 1), {}, {}, {}};
  for (int i = 0; i < groups * 8; ++i) {
    float label = 0;
    for (int p = 0; p < r.batch.lengths[i]; ++p) label += 1 + r.batch.at(i, p, 0) - r.batch.at(i, p, 1);
    r.labels.push_back(label / static_cast<float>(2 * shape.seqLen));
    r.group.push_back(firstGroup + i / 8);
    r.output.push_back(0);
  }
  return r;
}

// The fraction of a group's pairs, labels more than 5% apart, that the
// scores order correctly.
double pairwiseAccuracy(const Ranking &r, const std::vector<float> &scores) {
  int right = 0, all = 0;
  for (size_t i = 0; i < scores.size(); ++i)
    for (size_t j = 0; j < scores.size(); ++j)
      if (r.group[i] == r.group[j] && r.labels[i] > r.labels[j] * 1.05f) {
        ++all;
        right += scores[i] > scores[j];
      }
  return static_cast<double>(right) / all;
}

// Trains for 100 epochs on 40 groups in batches of 64 (8 groups); returns
// the mean batch losses of the first and last epochs and the accuracy on 20
// other groups.
struct TrainResult {
  float firstLoss, lastLoss;
  double accuracy;
};

TrainResult trainRanking(Loss loss) {
  NetworkShape shape;
  shape.seqLen = 6;
  shape.embed = 5;
  shape.width = 16;
  shape.heads = 2;
  shape.outputs = {"cpu"};
  TlpNetwork net(shape, 21);
  std::mt19937 rng(4);
  Ranking train = rankingData(shape, 40, rng, 0), test = rankingData(shape, 20, rng, 100);
  TrainOptions o;
  o.loss = loss;
  o.learningRate = 3e-3f;
  TrainResult r{0, 0, 0};
  const int per = shape.seqLen * shape.embed;
  for (int epoch = 0; epoch < 100; ++epoch) {
    float sum = 0;
    for (int b = 0; b < 320; b += 64) {
      Samples s{64, train.batch.x.data() + static_cast<size_t>(b) * per, train.batch.lengths.data() + b};
      sum += net.trainStep(s, train.labels.data() + b, train.group.data() + b, train.output.data() + b, o);
    }
    (epoch == 0 ? r.firstLoss : r.lastLoss) = sum / 5;
  }
  r.accuracy = pairwiseAccuracy(test, net.predict(test.batch.samples(), 0));
  return r;
}

} // namespace

TEST_CASE("costmodel network: learns a synthetic ranking (LambdaRank and MSE)") {
  TrainResult rank = trainRanking(Loss::LambdaRank);
  INFO("LambdaRank: loss " << rank.firstLoss << " -> " << rank.lastLoss << ", held-out accuracy " << rank.accuracy);
  CHECK(rank.lastLoss < 0.5f * rank.firstLoss);
  CHECK(rank.accuracy > 0.9);
  TrainResult mse = trainRanking(Loss::Mse);
  INFO("MSE: loss " << mse.firstLoss << " -> " << mse.lastLoss << ", held-out accuracy " << mse.accuracy);
  CHECK(mse.lastLoss < 0.5f * mse.firstLoss);
  CHECK(mse.accuracy > 0.9);
}

TEST_CASE("costmodel network: the same seed and batches give the same weights") {
  auto run = [](uint64_t seed) {
    NetworkShape shape = tinyShape();
    TlpNetwork net(shape, seed);
    std::mt19937 rng(8);
    for (int step = 0; step < 5; ++step) {
      Batch b = randomBatch(shape, {3, 1, 2, 3, 2, 3}, rng);
      std::vector<float> labels = {1.0f, 0.5f, 0.25f, 0.8f, 0.4f, 0.9f};
      std::vector<int> group = {0, 0, 0, 1, 1, 1}, output = {0, 0, 0, 1, 1, 1};
      net.trainStep(b.samples(), labels.data(), group.data(), output.data(), {});
    }
    return net.serialize();
  };
  CHECK(run(42) == run(42));
  CHECK(run(42) != run(43));
}

TEST_CASE("costmodel network: weights files round-trip exactly; errors are located") {
  NetworkShape shape = tinyShape();
  TlpNetwork net(shape, 5);
  std::mt19937 rng(1);
  Batch b = randomBatch(shape, {3, 2, 1, 3}, rng);
  std::vector<float> labels = {1.0f, 0.5f, 0.7f, 0.2f};
  std::vector<int> group = {0, 0, 1, 1}, output = {0, 1, 0, 1};
  net.trainStep(b.samples(), labels.data(), group.data(), output.data(), {}); // weights off the initial grid

  SourceManager sm;
  std::ostringstream err;
  DiagEngine diags(sm);
  diags.setStream(&err);
  diags.setErrorLimit(0);
  const std::string text = net.serialize();
  CHECK(text.rfind("tk-costmodel 1\nseqLen 3 embed 4 width 8 heads 2\nlayout test layout v1\noutputs 2 cpu-a cpu-b\n",
                   0) == 0);
  auto back = TlpNetwork::parse(sm.addFile("w.tlp", text), sm, diags);
  REQUIRE(back);
  CHECK(err.str().empty());
  CHECK(back->shape().layout == shape.layout);
  CHECK(back->shape().outputs == shape.outputs);
  CHECK(back->outputIndex("cpu-b") == 1);
  CHECK(back->outputIndex("gpu") == -1);
  CHECK(back->serialize() == text);
  for (int o = 0; o < 2; ++o) CHECK(back->predict(b.samples(), o) == net.predict(b.samples(), o));
  // An empty layout signature is an empty rest of its line.
  NetworkShape unnamed = shape;
  unnamed.layout = "";
  const std::string unnamedText = TlpNetwork(unnamed, 1).serialize();
  auto unnamedBack = TlpNetwork::parse(sm.addFile("u.tlp", unnamedText), sm, diags);
  REQUIRE(unnamedBack);
  CHECK(unnamedBack->shape().layout.empty());
  CHECK(unnamedBack->serialize() == unnamedText);

  auto bad = [&](const std::string &file) {
    err.str("");
    CHECK_FALSE(TlpNetwork::parse(sm.addFile("bad.tlp", file), sm, diags));
    return err.str();
  };
  auto has = [](const std::string &out, const std::string &what) {
    INFO(out);
    CHECK(out.find(what) != std::string::npos);
  };
  // The good file's lines; the file with line i (1-based) replaced; its first n lines.
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto join = [](const std::vector<std::string> &ls, size_t n) {
    std::string out;
    for (size_t k = 0; k < n; ++k) out += ls[k] + "\n";
    return out;
  };
  auto withLine = [&](size_t i, std::string line) {
    std::vector<std::string> ls = lines;
    ls[i - 1] = std::move(line);
    return join(ls, ls.size());
  };
  auto firstLines = [&](size_t n) { return join(lines, n); };
  REQUIRE(lines[9] == "input.bias 8"); // 4 shape lines, input.weight and its 4 rows

  has(bad("weights 1\n"), "bad.tlp:1:1: error: not a cost-model weights file (expected 'tk-costmodel 1')");
  has(bad("tk-costmodel 2\n"), "bad.tlp:1:14: error: unsupported cost-model weights version");
  has(bad(firstLines(7)), "bad.tlp:8:1: error: weights end early ('input.weight' has 16 of its 32 values)");
  has(bad(withLine(10, "input.bias 9")), "bad.tlp:10:12: error: 'input.bias' has 9 values, the shape needs 8");
  has(bad(withLine(10, "input.bias 99999999999999999999")), "bad.tlp:10:12: error: expected the number of values");
  has(bad(withLine(10, "input.bias 8 x")), "bad.tlp:10:14: error: expected a finite float, got 'x'");
  has(bad(withLine(10, "input.bias 8 nan")), "expected a finite float, got 'nan'");
  has(bad(withLine(10, "output.bias 8")), "bad.tlp:10:1: error: expected array 'input.bias', got 'output.bias'");
  has(bad(withLine(2, "seqLen 3 embed 4 width 8 heads 3")), "bad.tlp:2:32: error: heads (3) must divide the width (8)");
  has(bad(withLine(2, "seqLen 3 embed 0 width 8 heads 2")), "bad.tlp:2:16: error: expected embed between 1 and 4096");
  has(bad(withLine(4, "outputs 2 cpu-a cpu-a")), "bad.tlp:4:17: error: output 'cpu-a' appears twice");
  has(bad(text + "extra\n"), "error: unexpected text after the last array");
  // A large declared shape fails at the end of a short file, quickly and
  // without allocating for the shape.
  const std::string huge = "tk-costmodel 1\nseqLen 4096 embed 4096 width 4096 heads 1\nlayout\noutputs 1 x\n";
  has(bad(huge + "input.weight 16777216\n1 2\n"),
      "bad.tlp:7:1: error: weights end early ('input.weight' has 2 of its 16777216 values)");
  // Mangled files are errors, never crashes or hangs.
  std::mt19937 mangle(17);
  for (int i = 0; i < 200; ++i) {
    std::string m = text;
    for (int k = 0; k < 3; ++k) m[mangle() % m.size()] = "0 -.e9x\n"[mangle() % 8];
    err.str("");
    auto r = TlpNetwork::parse(sm.addFile("m.tlp", m.substr(0, mangle() % (m.size() + 1))), sm, diags);
    CHECK((r.has_value() || err.str().find("error:") != std::string::npos));
  }
}

TEST_CASE("costmodel network: decoders train only on their own labels") {
  NetworkShape shape = tinyShape();
  TlpNetwork net(shape, 9);
  std::mt19937 rng(3);
  Batch b = randomBatch(shape, {3, 2, 1, 3, 2, 1}, rng);
  std::vector<float> labels = {1.0f, 0.5f, 0.25f, 0.8f, 0.4f, 0.9f};
  std::vector<int> group = {0, 0, 0, 1, 1, 1};
  auto decoder = [&](const TlpNetwork &n, int o) {
    std::vector<float> v;
    for (int a : {decoderWeightIndex(o), decoderBiasIndex(o)}) {
      const ParameterArray &pa = n.parameterArrays()[a];
      v.insert(v.end(), n.parameters().begin() + pa.offset, n.parameters().begin() + pa.offset + pa.count());
    }
    return v;
  };

  // No labels at all: nothing changes.
  std::vector<int> none(6, -1);
  const std::string before = net.serialize();
  CHECK(net.trainStep(b.samples(), labels.data(), group.data(), none.data(), {}) == 0.0f);
  CHECK(net.serialize() == before);

  // Only head 0 labelled: head 1's decoder keeps its weights, step after step.
  std::vector<int> head0 = {0, 0, 0, 0, 0, 0};
  const std::vector<float> head1Before = decoder(net, 1), head0Before = decoder(net, 0);
  for (int step = 0; step < 3; ++step) net.trainStep(b.samples(), labels.data(), group.data(), head0.data(), {});
  CHECK(decoder(net, 1) == head1Before);
  CHECK(decoder(net, 0) != head0Before);

  // Unlabelled samples change nothing: the same step with and without them.
  TlpNetwork a = net, c = net;
  std::vector<int> mixed = {1, -1, 1, -1, 1, 1};
  a.trainStep(b.samples(), labels.data(), group.data(), mixed.data(), {});
  Batch kept = b;
  kept.x.clear();
  std::vector<float> keptLabels;
  std::vector<int> keptGroup;
  for (int i : {0, 2, 4, 5}) {
    kept.x.insert(kept.x.end(), b.x.begin() + i * 12, b.x.begin() + (i + 1) * 12);
    keptLabels.push_back(labels[i]);
    keptGroup.push_back(group[i]);
  }
  kept.lengths = {b.lengths[0], b.lengths[2], b.lengths[4], b.lengths[5]};
  std::vector<int> keptOutput(4, 1);
  c.trainStep(kept.samples(), keptLabels.data(), keptGroup.data(), keptOutput.data(), {});
  CHECK(a.serialize() == c.serialize());
  CHECK(decoder(a, 0) == decoder(net, 0)); // head 0 had no labels this time
}
