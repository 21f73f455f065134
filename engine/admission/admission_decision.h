// The outcome of one admission round. Indices refer to the AdmissionInput the round was given. The
// caller applies it in this order: evict `reclaims` (whole gangs), start `admitted` with their plans in
// list order (each plan was made on the model with the earlier ones applied), keep `reservations`
// (replacing the input's). Every entry carries a sentence for a Kubernetes event.
#pragma once

#include <string>
#include <vector>

#include "engine/gang/gang_plan.h"

namespace gangplank::engine {

struct Admitted {
  int waiting = 0;  // Index into AdmissionInput::waiting.
  GangPlan plan;
  std::string reason;
};

struct Reserved {
  int waiting = 0;
  std::vector<NodeId> nodes;
  bool for_reclaim = false;
  std::string reason;
};

struct Reclaimed {
  int running = 0;      // Index into AdmissionInput::running: evict this whole gang.
  int beneficiary = 0;  // Index into AdmissionInput::waiting: the gang it makes room for.
  double lost_gpu_seconds = 0;
  std::string reason;
};

// A waiting gang of a queue below its fair share that could not be placed and for which no eviction
// was made, with why (budget spent, nothing reclaimable, eviction would not help...).
struct ReclaimRefused {
  int waiting = 0;
  std::string reason;
};

struct AdmissionDecision {
  std::vector<Admitted> admitted;
  std::vector<Reserved> reservations;
  std::vector<Reclaimed> reclaims;
  std::vector<ReclaimRefused> refused;
  std::vector<double> fair_shares;  // Per input queue, GPUs.
  std::vector<double> held;         // Per input queue, GPUs held by running gangs before the round.
  std::vector<std::string> errors;  // Waiting gangs skipped as malformed (unknown queue, bad request).
};

}  // namespace gangplank::engine
