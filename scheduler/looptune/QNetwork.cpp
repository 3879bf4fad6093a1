#include "scheduler/looptune/QNetwork.h"

#include "ir/WordLexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace tk::looptune {
namespace {

const char *kHeader = "tk-looptune-qnet";

} // namespace

QNetwork::QNetwork(std::vector<int> widths, std::mt19937 &rng) : widths_(std::move(widths)) {
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    Layer L;
    L.in = widths_[l];
    L.out = widths_[l + 1];
    float bound = std::sqrt(6.0f / static_cast<float>(L.in));
    std::uniform_real_distribution<float> d(-bound, bound);
    L.w.resize(static_cast<size_t>(L.in) * L.out);
    for (float &x : L.w) x = d(rng);
    L.b.assign(L.out, 0.0f);
    L.mw.assign(L.w.size(), 0.0f);
    L.vw = L.mw;
    L.mb.assign(L.out, 0.0f);
    L.vb = L.mb;
    layers_.push_back(std::move(L));
  }
}

std::vector<float> QNetwork::forward(const std::vector<float> &x) const {
  std::vector<float> a = x;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer &L = layers_[l];
    std::vector<float> z(L.b);
    for (int o = 0; o < L.out; ++o)
      for (int i = 0; i < L.in; ++i) z[o] += L.w[static_cast<size_t>(o) * L.in + i] * a[i];
    if (l + 1 < layers_.size())
      for (float &v : z) v = std::max(v, 0.0f);
    a = std::move(z);
  }
  return a;
}

float QNetwork::train(const std::vector<std::vector<float>> &xs, const std::vector<int> &actions,
                      const std::vector<float> &targets, float learningRate) {
  std::vector<std::vector<float>> gw(layers_.size()), gb(layers_.size());
  for (size_t l = 0; l < layers_.size(); ++l) {
    gw[l].assign(layers_[l].w.size(), 0.0f);
    gb[l].assign(layers_[l].out, 0.0f);
  }
  float loss = 0;
  for (size_t s = 0; s < xs.size(); ++s) {
    std::vector<std::vector<float>> acts{xs[s]};
    for (size_t l = 0; l < layers_.size(); ++l) {
      const Layer &L = layers_[l];
      std::vector<float> z(L.b);
      for (int o = 0; o < L.out; ++o)
        for (int i = 0; i < L.in; ++i) z[o] += L.w[static_cast<size_t>(o) * L.in + i] * acts.back()[i];
      if (l + 1 < layers_.size())
        for (float &v : z) v = std::max(v, 0.0f);
      acts.push_back(std::move(z));
    }
    float err = acts.back()[actions[s]] - targets[s];
    loss += std::fabs(err) <= 1 ? 0.5f * err * err : std::fabs(err) - 0.5f;
    std::vector<float> delta(layers_.back().out, 0.0f);
    delta[actions[s]] = std::clamp(err, -1.0f, 1.0f) / static_cast<float>(xs.size());
    for (size_t l = layers_.size(); l-- > 0;) {
      const Layer &L = layers_[l];
      const std::vector<float> &in = acts[l];
      std::vector<float> back(L.in, 0.0f);
      for (int o = 0; o < L.out; ++o) {
        if (delta[o] == 0) continue;
        gb[l][o] += delta[o];
        for (int i = 0; i < L.in; ++i) {
          gw[l][static_cast<size_t>(o) * L.in + i] += delta[o] * in[i];
          back[i] += delta[o] * L.w[static_cast<size_t>(o) * L.in + i];
        }
      }
      if (l > 0)
        for (int i = 0; i < L.in; ++i) back[i] = in[i] > 0 ? back[i] : 0.0f;
      delta = std::move(back);
    }
  }
  ++steps_;
  const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  float c1 = 1 - std::pow(b1, static_cast<float>(steps_)), c2 = 1 - std::pow(b2, static_cast<float>(steps_));
  auto adam = [&](std::vector<float> &p, std::vector<float> &m, std::vector<float> &v, const std::vector<float> &g) {
    for (size_t i = 0; i < p.size(); ++i) {
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      p[i] -= learningRate * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
    }
  };
  for (size_t l = 0; l < layers_.size(); ++l) {
    adam(layers_[l].w, layers_[l].mw, layers_[l].vw, gw[l]);
    adam(layers_[l].b, layers_[l].mb, layers_[l].vb, gb[l]);
  }
  return loss / static_cast<float>(xs.size());
}

std::string QNetwork::serialize() const {
  std::ostringstream os;
  os << kHeader << " " << kQNetVersion << "\nlayers " << layers_.size();
  for (int w : widths_) os << " " << w;
  os << "\n";
  // 9 significant digits read back to the same float.
  for (const Layer &L : layers_) {
    for (int o = 0; o < L.out; ++o)
      os << fmt::format("{:.9g}\n", fmt::join(L.w.begin() + static_cast<size_t>(o) * L.in,
                                               L.w.begin() + static_cast<size_t>(o + 1) * L.in, " "));
    os << fmt::format("{:.9g}\n", fmt::join(L.b, " "));
  }
  return os.str();
}

std::optional<QNetwork> QNetwork::parse(int file, const SourceManager &sm, DiagEngine &diags) {
  WordLexer lex(file, sm);
  std::string w;
  SourceLoc loc;
  auto fail = [&](const std::string &msg) -> std::optional<QNetwork> {
    diags.error(loc, msg);
    return std::nullopt;
  };
  auto integer = [&](int &out) {
    if (!lex.next(w, loc)) return false;
    char *end = nullptr;
    long v = std::strtol(w.c_str(), &end, 10);
    if (*end != '\0' || v <= 0 || v > 4096) return false;
    out = static_cast<int>(v);
    return true;
  };
  if (!lex.next(w, loc) || w != kHeader)
    return fail(fmt::format("not a Q-network weights file (expected '{} {}')", kHeader, kQNetVersion));
  int version = 0;
  if (!integer(version) || version != kQNetVersion)
    return fail(fmt::format("unsupported Q-network weights version (this tkc reads version {})", kQNetVersion));
  int nLayers = 0;
  if (!lex.next(w, loc) || w != "layers") return fail("expected 'layers N WIDTH...'");
  if (!integer(nLayers) || nLayers > 16) return fail("expected a layer count between 1 and 16");
  QNetwork q;
  q.widths_.resize(nLayers + 1);
  for (int &x : q.widths_)
    if (!integer(x)) return fail("expected a layer width between 1 and 4096");
  for (int l = 0; l < nLayers; ++l) {
    Layer L;
    L.in = q.widths_[l];
    L.out = q.widths_[l + 1];
    L.w.resize(static_cast<size_t>(L.in) * L.out);
    L.b.resize(L.out);
    for (std::vector<float> *vec : {&L.w, &L.b})
      for (float &x : *vec) {
        if (!lex.next(w, loc)) return fail(fmt::format("weights end early (layer {})", l + 1));
        char *end = nullptr;
        x = std::strtof(w.c_str(), &end);
        if (*end != '\0' || !std::isfinite(x)) return fail("expected a finite number, got '" + w + "'");
      }
    L.mw.assign(L.w.size(), 0.0f);
    L.vw = L.mw;
    L.mb.assign(L.out, 0.0f);
    L.vb = L.mb;
    q.layers_.push_back(std::move(L));
  }
  if (lex.next(w, loc)) return fail("unexpected text after the last layer");
  return q;
}

} // namespace tk::looptune
