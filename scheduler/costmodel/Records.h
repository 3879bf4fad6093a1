// Records: measured candidates in the versioned JSON Lines format of
// docs/records.md — one object per line, each a candidate kernel's
// decisions and latency on one machine. `tkc --records-out`, `tkc tune
// --records-out` and bench/tk_dataset append to such files; `tkc
// train-cost-model` and the evaluation read them. Files from different
// machines merge by concatenation (each line names its hardware).
#pragma once
#include "ir/Diagnostics.h"
#include "scheduler/costmodel/Decisions.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::costmodel {

inline constexpr int kRecordsFormatVersion = 1;

struct Latency {
  double median = 0; // seconds of one call
  int runs = 0;      // timed calls the median is over
  double spread = 0; // (slowest - fastest) / median over those calls
};

struct Record {
  std::string hardware;                 // hardware id (costmodel::hardwareId)
  std::string op;                       // the op's name
  std::string ir;                       // 16 hex digits: hash of the op's tensor IR text
  std::map<std::string, int64_t> shape; // shape symbols and integer parameters
  std::string candidate;                // where the candidate came from: rule, gensor, random, template, ..
  DecisionSequence decisions;
  Latency latency;
  std::string tkc;                      // the tkc version that measured it
  SourceLoc loc;                        // where it was read (parseRecords)

  // The records a label compares: same machine, same op IR, same shape.
  std::string task() const;
};

// One line of JSON (no newline) for `r`.
std::string printRecord(const Record &r);

// Parses every line of file `file` of `sm` (blank lines are allowed).
// A line that is not JSON, lacks a field, has a field of the wrong type,
// an unknown primitive kind or a wrong count of numbers or names, or a
// non-positive or non-finite latency is an error at its line and column
// (the column of the JSON error, else 1); returns nullopt after any error.
std::optional<std::vector<Record>> parseRecords(int file, const SourceManager &sm, DiagEngine &diags);

// A stable id of a machine description: its name, and for a description
// detected on the host ("host"), the CPU's description (hostHardwareId:
// model name, family, vector ISA) and core count after it, e.g.
// "host-amd-epyc-f25-avx512-2c"; lower case, [a-z0-9-] only.
std::string hardwareId(const std::string &descName, const std::string &cpuModel, int units);

} // namespace tk::costmodel
