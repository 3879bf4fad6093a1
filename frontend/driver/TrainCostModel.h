// `tkc train-cost-model`: trains the learned cost model on records files
// (docs/costmodel.md) and writes its weights.
//   tkc train-cost-model -o MODEL.tkcm [--epochs=N] [--seed=N] [--width=N]
//       [--heads=N] [--lr=X] [--loss=lambdarank|mse] [--validation=F] [--seq=N] RECORDS...
// RECORDS are JSON Lines files (docs/records.md), plain or zstd-compressed
// (`.zst`); every machine in them gets a decoder head.
#pragma once
#include "ir/Diagnostics.h"
#include "scheduler/costmodel/Records.h"

#include <optional>

#include <string>
#include <vector>

namespace tk::driver {

// Runs the command on `args` (after "train-cost-model"). Progress goes to
// stderr, one line per epoch. Returns the exit status: 0, 1 after record or
// output errors (reported through `diags`), 2 for a usage error (printed).
int trainCostModelCommand(const std::vector<std::string> &args, SourceManager &sm, DiagEngine &diags);

// The text of a records file: as stored, or decompressed when `path` ends
// in `.zst`. False (and *error set) when it cannot be read or is not a
// valid zstd stream; at most 1 GiB once decompressed.
bool readRecordsFile(const std::string &path, std::string &text, std::string *error);

// Every record of the files at `paths`, in order (readRecordsFile, then
// costmodel::parseRecords on each). nullopt after an error: a file that
// cannot be read (*error says why) or malformed records (reported through
// `diags` at their line, *error left empty).
std::optional<std::vector<costmodel::Record>> readRecords(const std::vector<std::string> &paths, SourceManager &sm,
                                                          DiagEngine &diags, std::string *error);

} // namespace tk::driver
