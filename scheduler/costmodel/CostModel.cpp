#include "scheduler/costmodel/CostModel.h"

#include <fmt/format.h>

namespace tk::costmodel {

CostModel::CostModel(TlpNetwork net) : net_(std::move(net)) { layout_.seqLen = net_.shape().seqLen; }

std::optional<CostModel> CostModel::load(int file, const SourceManager &sm, DiagEngine &diags) {
  std::optional<TlpNetwork> net = TlpNetwork::parse(file, sm, diags);
  if (!net) return std::nullopt;
  CostModel m(std::move(*net));
  const NetworkShape &s = m.net_.shape();
  if (s.layout != m.layout_.signature() || s.embed != m.layout_.embed()) {
    diags.error({file, 1, 1}, fmt::format("cost model was trained on features '{}' ({} per position); this tkc computes "
                                          "'{}' ({}): train it again with `tkc train-cost-model`",
                                          s.layout, s.embed, m.layout_.signature(), m.layout_.embed()));
    return std::nullopt;
  }
  return m;
}

std::vector<double> CostModel::score(const std::vector<DecisionSequence> &candidates, int head) const {
  size_t e = size_t(layout_.embed()) * layout_.seqLen;
  std::vector<float> x(candidates.size() * e);
  std::vector<int> len(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) len[i] = featurize(candidates[i], layout_, x.data() + i * e);
  std::vector<float> s = net_.predict({static_cast<int>(candidates.size()), x.data(), len.data()}, head);
  return std::vector<double>(s.begin(), s.end());
}

} // namespace tk::costmodel
