// CostModelTransfer: MTL-TLP's experiment for tk_costmodel_eval --mtl=ID —
// how well a model ranks held-out tasks of a target machine when only a
// small share of that machine's tasks is measured: one backbone trained on
// the other machines' records plus that share (a head per machine), against
// a model of the share alone and a model of the other machines alone; with
// two references, a model of all the target's training tasks and tkc's
// default blocking.
#pragma once
#include "scheduler/costmodel/Training.h"

#include <string>
#include <vector>

namespace tk::bench {

// Prints the table for target machine `target` (a hardware id of
// `records`, which must hold at least one other machine): held out are the
// target's tasks that heldOut(key, holdout) picks; `share` of the rest
// (by a second hash) is the target data the models may see. Returns false
// (after a message) when the records do not allow the experiment.
bool evaluateTransfer(const std::vector<costmodel::Record> &records, const std::string &target, double holdout,
                      double share, const costmodel::TrainingOptions &opts);

} // namespace tk::bench
