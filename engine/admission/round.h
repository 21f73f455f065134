// The state of one admission round (see admission_round.h for the rules). Internal to the engine: the
// steps of a round live in round_*.cc, one step a file, all on this state.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/admission/admission_decision.h"
#include "engine/admission/admission_input.h"
#include "engine/admission/gang_shape.h"
#include "engine/admission/scratch_model.h"
#include "engine/admission/victim_selection.h"
#include "engine/random.h"

namespace gangplank::engine {

inline constexpr double kAdmissionEpsilon = 1e-9;

class Round {
 public:
  Round(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config, ScoringPolicy& policy, Rng& rng)
      : in_(input), config_(config), rng_(rng), model_(cluster, policy) {}

  AdmissionDecision Run();

 private:
  struct Gang {
    int queue = -1;
    double gpus = 0;
    bool admitted = false;
    bool shape_known = false;
    GangShape shape;
  };

  // Setup (admission_round.cc).
  void IndexQueues();
  void IndexGangs();
  void ComputeShares();
  bool WithinQueue(int a, int b) const;
  bool Before(int a, int b) const;
  bool BelowShare(int q) const { return held_[q] < fair_[q] - kAdmissionEpsilon; }
  bool WithinLimit(int w) const;
  double FreeGpus() const;
  std::string QueueState(int q) const;

  // Admission (round_admission.cc).
  const GangShape& ShapeFor(int w);
  bool Hopeless(int w);
  void Admit(int w, GangPlan plan, const std::string& how);
  void StartReserved();
  void AdmitInOrder();
  void BlockIfStarving(int w, std::vector<size_t>& pos) const;
  std::vector<int> Unplaced() const;
  void GrantWaitingReservations();

  // Reclaim (round_reclaim.cc).
  int RecentEvictions() const;
  std::vector<VictimCandidate> Candidates(int beneficiary_queue, const std::vector<char>& evicted) const;
  std::vector<double> Reclaimable(int beneficiary) const;
  std::vector<int> Beneficiaries() const;
  void Reclaim();

  const AdmissionInput& in_;
  const AdmissionConfig& config_;
  Rng& rng_;
  ScratchModel model_;
  AdmissionDecision out_;
  std::unordered_map<std::string, int> queue_index_;
  std::vector<Gang> gangs_;
  std::vector<std::vector<int>> by_queue_;
  std::vector<double> waiting_gpus_, held_, fair_;
  std::vector<double> running_held_;  // Per queue: GPUs of running gangs not evicted this round.
  std::map<int, Reserved> reserved_;  // By waiting index: reservations held after the round.
  std::vector<GangShape> failed_;
};

}  // namespace gangplank::engine
