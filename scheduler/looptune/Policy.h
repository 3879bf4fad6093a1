// Tuning with the learned policy: follow the Q-network's best legal action
// for a fixed number of steps, without measuring (LoopTune's inference).
#pragma once
#include "scheduler/looptune/Actions.h"
#include "scheduler/looptune/QNetwork.h"

#include <vector>

namespace tk::looptune {

struct PolicyRollout {
  std::vector<TuneNest> states;  // start, then the state after each action
  std::vector<Action> actions;
};

// Up to `steps` actions from `start`: at each state the legal action with the
// highest Q-value whose result was not visited yet (the paper's implicit
// stop: the policy would otherwise oscillate between cursor positions);
// stops early when no such action exists. Requires a network with
// kStateSize inputs and kNumActions outputs (else InternalError).
PolicyRollout rolloutPolicy(const QNetwork &q, const TuneNest &start, int vectorLanes, int steps = 10);

} // namespace tk::looptune
