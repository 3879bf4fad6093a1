// The scheduling pipeline: module exports -> mapping IR kernels -> loop IR
// functions. scheduler/Pipeline.cpp lists every pass in order; each pass is
// one .h/.cpp pair with a single exported function, in scheduler/ when it
// serves every target and in scheduler/<target>/ when it serves one
// (called from that target's hooks, scheduler/TargetHooks.h).
#pragma once
#include "ir/Diagnostics.h"
#include "ir/LoopIR.h"
#include "ir/Module.h"
#include "scheduler/TargetDesc.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tk {

namespace construct {
struct ConstructOptions;
}

struct PipelineOptions {
  TargetDesc target;
  std::ostream *dumpAfterEachPass = nullptr; // print IR after every pass when set
  // The construction optimizer fills valueless holes when set
  // (scheduler/construct/FillHoles.h); without it they are errors.
  const construct::ConstructOptions *construct = nullptr;
  // CPU contractions without a kernel get ConstructSchedule's packed,
  // cache-blocked kernel (sized for construct->hw) instead of the default
  // schedule; false keeps DefaultSchedule (tkc --schedule=default).
  bool constructContractions = true;
  // Sunway contractions are tiled by swTVM's LDM sizing instead of the
  // fastest modelled tiling (tkc --schedule=swtvm; for comparison).
  bool swtvmLdmSizing = false;
  // ... or without any LDM sizing: every buffer iterator at 64 elements,
  // halved only where the buffers do not fit (tkc --schedule=fixed64; the
  // ablation of swTVM's sizing).
  bool sunwayFixedBuffers = false;
  // Sunway tiles keep the op's loop order: the reduction inside the tile's
  // own loops instead of outside them (tkc --sunway-loop-order=natural; the
  // ablation of swTVM's loop reordering).
  bool sunwayNaturalOrder = false;
  // Sunway: read-only LDM boxes at loop levels are double-buffered
  // (asynchronous DMA of the next box while computing on this one) where the
  // LDM has room (tkc --sunway-dma=sync turns it off, for comparison).
  bool sunwayDoubleBuffer = true;
  // Sunway: an LDM box every CPE fetches alike at the same time (an operand
  // all CPEs of a lockstep round share) is read once by CPE 0 and broadcast
  // (On); Rows: the rounds are 8 x 8 wherever an operand then has a box per
  // CPE row (row broadcast) or per CPE column (their union broadcast); Off:
  // every CPE fetches its own (tkc --sunway-broadcast=..., for comparison).
  enum class SunwayBroadcast { Off, On, Rows };
  SunwayBroadcast sunwayBroadcast = SunwayBroadcast::On;
  // cpu functions record who writes every output element and report those
  // never written or written by two workers at once (tkc --check-mappings,
  // scheduler/cpu/InstrumentMappingChecks.h).
  bool checkMappings = false;
};

// A fusion the pipeline refused and left undone: the statement that stayed
// apart and why (also reported as a warning there).
struct RefusedFusion {
  SourceLoc loc;
  std::string message;
};

// What scheduling made of one export, as data for tools that explain a
// compile (tkc explain) instead of reading the pass dump or the warnings.
struct ExportSchedule {
  std::string symbol;
  ir::KernelPtr kernel;                  // the checked kernel lowered; null when the checks refused it
  std::vector<std::string> kernelPasses; // kernel-level passes that built it, in order ("ConstructSchedule", "FuseRows", ...)
  std::vector<RefusedFusion> refusedFusions;
};

// For every export of `m`: take its kernel (or build the default schedule for
// its op), check it (holes filled, task mappings, scopes), and lower it to
// loop IR. Errors go to `diags` at the user's source location; the result
// then holds only the functions that lowered cleanly. When `schedules` is
// given, it receives one ExportSchedule per export, in export order (an
// export sharing another's kernel repeats that export's record).
std::vector<ir::LoweredFunc> lowerModule(const ir::Module &m, const PipelineOptions &opts, DiagEngine &diags,
                                         std::vector<ExportSchedule> *schedules = nullptr);

// The mapping-IR kernels lowerModule would lower (user kernels and default
// schedules), after checking — for `--emit=mapping`.
std::vector<ir::KernelPtr> scheduleModule(const ir::Module &m, const PipelineOptions &opts,
                                          DiagEngine &diags);

} // namespace tk
