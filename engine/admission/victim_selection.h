// Choosing which running gangs to evict so that one waiting gang can start (fair-share reclaim,
// priority preemption, consolidation's moves).
//
// Victims are whole gangs. The caller offers only gangs that may go (for reclaim: queue above its fair
// share, past the minimum runtime, not terminating) and says per queue how many GPUs may still be taken
// without going below its fair share or guarantee; a victim draws on its queue and every queue above it.
// For every topology domain the gang may use, narrowest level first, the victims touching the domain are
// added in order of least lost work (then fewest GPUs outside the domain: evicting a gang that is mostly
// elsewhere damages more for less) until a cheap check says the gang's pods would fit the domain's freed
// nodes. The resulting sets are ranked by lost work, then number of victims, then narrower domain, and
// verified in that order with PlanGang on the model with the victims released. A verified set is trimmed
// to the victims on nodes the plan uses, so no gang is evicted for nothing.
//
// Idle gangs (RunningGang::idle_preemptible, marked `idle`) come first: they are added before any other
// victim, draw on no queue's budget (`reclaimable` counts busy GPUs only), and sets are ranked by the
// work lost on busy victims, so a set of idle victims beats a cheaper one of busy victims.
#pragma once

#include <string>
#include <vector>

#include "engine/admission/scratch_model.h"
#include "engine/gang/gang_plan.h"
#include "engine/gang/gang_request.h"
#include "engine/random.h"

namespace gangplank::engine {

struct VictimCandidate {
  int running = 0;  // Caller's id (index into AdmissionInput::running).
  int queue = 0;
  double gpus = 0;
  double lost_gpu_seconds = 0;
  const std::vector<Allocation>* allocations = nullptr;
  bool idle = false;  // Idle past its policy's limit: first to go, outside every queue's budget.
};

struct VictimSearch {
  int max_victims = 1;
  int max_verifications = 6;
  // Per queue: GPUs that may still be taken from it, counting everything below it, so sibling victims
  // together never take their parent below its floor.
  std::vector<double> reclaimable;
  // Per queue: its parent queue, or -1. Empty: flat queues (a victim draws on its own queue only).
  std::vector<int> parent;
};

struct VictimChoice {
  bool found = false;
  std::vector<int> victims;  // Indices into the candidates: idle ones first, then least lost work first.
  GangPlan plan;             // The gang's plan on the model with the victims released.
  double lost_gpu_seconds = 0;
  std::string reason;        // Why nothing was chosen, when !found.
};

VictimChoice ChooseVictims(ScratchModel& model, const GangRequest& gang, const std::vector<VictimCandidate>& candidates,
                           const VictimSearch& search, Rng& rng);

}  // namespace gangplank::engine
