// Tuning records: the schedules `tkc tune` chose, as action sequences from
// each export's initial nest, in a versioned text file that later builds
// apply with `--tuning-records=FILE` (format in docs/looptune.md).
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"
#include "ir/Module.h"
#include "scheduler/looptune/Actions.h"

#include <optional>
#include <string>
#include <vector>

namespace tk::looptune {

inline constexpr int kRecordsVersion = 1;

struct TuningRecord {
  std::string symbol;       // exported C symbol
  std::string fingerprint;  // opFingerprint of its op when tuned
  std::string search;       // how it was found (policy, greedy1, ..)
  double gflops = 0;        // measured for the tuned nest
  double startGflops = 0;   // measured for the initial nest
  std::vector<Action> actions;
  SourceLoc loc;            // where the record was read (parseTuningRecords)
};

// 16 hex digits identifying the op's tensor IR text: a record for an op
// that changed since tuning is rejected rather than misapplied.
std::string opFingerprint(const ir::Op &op);

std::string printTuningRecords(const std::vector<TuningRecord> &records);

// Parses the file `file` of `sm`. Errors (a wrong header or version, a
// malformed line, an unknown action, a symbol recorded twice) are reported
// at their line and column; returns nullopt after any error.
std::optional<std::vector<TuningRecord>> parseTuningRecords(int file, const SourceManager &sm, DiagEngine &diags);

// Replaces every function of `funcs` that has a record by the recorded
// schedule of its export's op (lowerTunedNest of the initial nest after the
// actions). A record whose symbol is not exported, whose fingerprint does
// not match, whose op is not tunable or whose actions do not apply is an
// error at the record. Functions without a record are left unchanged.
void applyTuningRecords(const ir::Module &m, const std::vector<TuningRecord> &records, int vectorLanes,
                        std::vector<ir::LoweredFunc> &funcs, DiagEngine &diags);

} // namespace tk::looptune
