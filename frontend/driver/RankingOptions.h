// RankingOptions: how the construction optimizer's candidates are chosen
// among, from the command line — `--rank=measure`, `--rank=model` with its
// weights and head (`--cost-model`, `--cost-model-head`), `--measure-top`
// and `--records-out` (docs/costmodel.md, docs/records.md) — set on the
// construct options as callbacks.
#pragma once
#include "backends/x86/X86Backend.h"
#include "frontend/driver/CommandLine.h"
#include "ir/Diagnostics.h"
#include "scheduler/construct/FillHoles.h"
#include "scheduler/looptune/TuneNest.h"

#include <functional>

#include <string>
#include <vector>

namespace tk::driver {

// The hardware id records and the model's heads use for `hw`: its name,
// or for the detected host, hostHardwareId().
std::string hardwareIdOf(const construct::HardwareDesc &hw);

// Sets c.measure, c.measureTopK, c.rankByModel and c.recordMeasured as the
// options ask. `cpu` is the CPU target timed candidates are compiled for
// (null for other targets: ranking by measurement or by the model is then
// a usage error, returned in *usage). The model file (--cost-model, else
// <stdlib>/costmodel/cpu.tkcm) is added to `sm` and `deps`. Returns false
// after reporting an error (an unreadable or invalid model, no head for
// the machine) or setting *usage.
bool setRanking(const DriverOptions &o, const CpuTarget *cpu, const std::string &stdlib, construct::ConstructOptions &c,
                SourceManager &sm, DiagEngine &diags, std::vector<std::string> *deps, std::string *usage);

// `tkc tune --records-out=FILE`: a function appending each nest tkc tune
// times to FILE as a record (candidate "looptune-SEARCH", the decisions of
// looptune::tuneDecisions, the host's hardware id, no shape: tuned ops have
// constant extents). Empty, with *usage set, when FILE cannot be opened
// for appending.
std::function<void(const looptune::TuneNest &, const costmodel::Latency &)>
tuneRecorder(const std::string &path, const std::string &search, std::string *usage);

} // namespace tk::driver
