// CostModel: a trained TLP network as `--rank=model` uses it — loaded from a
// weights file (docs/costmodel.md), checked against the features this tkc
// computes, and scoring candidates' decision sequences for one machine.
#pragma once
#include "ir/Diagnostics.h"
#include "scheduler/costmodel/Decisions.h"
#include "scheduler/costmodel/Featurize.h"
#include "scheduler/costmodel/TlpNetwork.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::costmodel {

class CostModel {
public:
  // Parses file `file` of `sm` (TlpNetwork::parse) and checks that its
  // feature layout is the one Featurize.h computes; errors go to `diags` at
  // their location (a layout mismatch at the first line) and give nullopt.
  static std::optional<CostModel> load(int file, const SourceManager &sm, DiagEngine &diags);
  explicit CostModel(TlpNetwork net);

  // The decoder head trained for hardware id `id`; -1 when there is none.
  int head(const std::string &id) const { return net_.outputIndex(id); }
  const std::vector<std::string> &heads() const { return net_.shape().outputs; }

  // Scores of the candidates on head `head` (higher = predicted faster).
  std::vector<double> score(const std::vector<DecisionSequence> &candidates, int head) const;

private:
  TlpNetwork net_;
  FeatureLayout layout_;
};

} // namespace tk::costmodel
