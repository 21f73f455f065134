// The state of one admission round (see admission_round.h for the rules). Internal to the engine: the
// steps of a round live in round_*.cc, one step a file, all on this state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/admission/admission_decision.h"
#include "engine/admission/admission_input.h"
#include "engine/admission/gang_shape.h"
#include "engine/admission/queue_tree.h"
#include "engine/admission/scratch_model.h"
#include "engine/admission/unfit_reason.h"
#include "engine/admission/victim_selection.h"
#include "engine/random.h"

namespace gangplank::engine {

inline constexpr double kAdmissionEpsilon = 1e-9;

class Round {
 public:
  Round(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config, ScoringPolicy& policy, Rng& rng)
      : in_(input), config_(config), rng_(rng), model_(cluster, policy), tree_(input.queues) {}

  AdmissionDecision Run();

 private:
  struct Gang {
    int queue = -1;
    double gpus = 0;
    bool admitted = false;
    bool listed = false;           // Full round, or in plan_only: may benefit from evictions.
    bool planned = false;          // Listed, or holding a reservation: takes part in planning.
    bool timed_out = false;        // Waited past WaitingGang::timeout: no reservation for it.
    bool lost_reservation = false;  // ... and it held one, released this round.
    bool shape_known = false;
    GangShape shape;
  };

  // Setup (admission_round.cc).
  bool incremental() const { return in_.plan_only.has_value(); }
  void IndexGangs();
  void ListPlanned();
  void KeepReservations(const std::unordered_map<std::string, int>& by_name);
  std::string Malformed(const GangRequest& g, int queue) const;
  void Invalid(int w, std::string why);
  void ComputeShares();
  bool WithinQueue(int a, int b) const;
  bool Before(int a, int b) const;
  bool BelowShare(int q) const { return held_[q] < fair_[q] - kAdmissionEpsilon; }
  // The lowest queue on the gang's path that it would take above its limit, or -1.
  int LimitBlocker(int w) const;
  bool WithinLimit(int w) const { return LimitBlocker(w) < 0; }
  // Adds GPUs to what a queue and every queue above it hold.
  static void AddAlong(const std::vector<int>& path, std::vector<double>& per_queue, double gpus);
  double FreeGpus() const;
  std::string QueueState(int q) const;

  // Exclusive classes (round_exclusive.cc). Request(w) is the waiting gang's request as this round plans
  // it: narrowed to the domains its class leaves free, for a gang of an exclusive class.
  const GangRequest& Request(int w) const;
  void NarrowExclusiveGangs();
  void NarrowToFreeDomains(int w);
  void NarrowClassAfter(int admitted);  // A gang of a class was admitted: the rest of its class move over.

  // Admission (round_admission.cc).
  const GangShape& ShapeFor(int w);
  bool Hopeless(int w);  // Needs at least what a gang that failed this round needed.
  void Admit(int w, GangPlan plan, const std::string& how);
  void StartReserved();
  void AdmitInOrder();
  void BlockIfStarving(int w, std::vector<size_t>& pos);
  std::vector<int> Unplaced() const;

  // Waiting-time reservations and backfill around them (round_reservations.cc).
  bool JudgesReservations() const;
  std::vector<double> FreeTimes() const;
  void Estimate(Reserved& r, const std::vector<double>& free_at) const;
  void EstimateKept();
  // The runtime a gang may backfill on: declared, else predicted; none without either.
  std::optional<double> BackfillRuntime(int w) const;
  bool MayUseReserved(int w) const;
  GangPlan PlanOnReserved(int w);
  bool QueueMayReserve(int w, const std::vector<double>& earmarked) const;
  void Rejudge(Reserved& r, const std::vector<double>& free_at);
  Reserved NewReservation(int w, const std::vector<double>& free_at) const;
  void GrantWaitingReservations();

  // Gangs backfilled on a prediction that overstay a reservation ready otherwise (round_backfill_overrun.cc).
  void EndOverrunBackfills();
  std::vector<int> OverstayingOn(const std::vector<NodeId>& nodes) const;

  // When time alone could change the outcome (round_wakeup.cc).
  double NextWakeup() const;

  // Timeouts (round_timeouts.cc).
  bool TimedOut(int w) const;
  void ReleaseStartTimeouts();
  std::string TimedOutMessage(int w, const Blocked& otherwise) const;

  // Why the gangs that wait do (round_blocked.cc).
  void ExplainBlocked();
  Blocked WhyWaiting(int w, UnfitExplainer& unfit, const std::vector<int>& victims_for);
  std::string AtLimit(int w, int q) const;
  int VictimsLeaving(int w, const Reserved& r, const std::vector<int>& victims_for);

  // What reclaim and priority preemption share (round_eviction.cc).
  void StartEvictions();
  bool Evicted(int r) const { return static_cast<size_t>(r) < evicted_.size() && evicted_[r]; }
  void MarkEvicted(int r);
  double MinRuntime(int queue) const;
  // `lost_work_capped`: false when the gang would go for a queue below its guarantee (round_reclaim.cc).
  std::optional<VictimCandidate> AsVictim(int r, int queue, bool lost_work_capped = true) const;
  std::vector<int> Beneficiaries(bool priority) const;
  std::string BudgetSpent(const std::string& what, int w) const;
  VictimChoice SearchVictims(int w, const std::vector<VictimCandidate>& candidates, VictimSearch search,
                             int max_victims);
  void EvictFor(int w, const VictimChoice& choice, const std::vector<VictimCandidate>& candidates, EvictionKind kind);
  std::string EvictionReason(const VictimCandidate& v, int w, EvictionKind kind) const;

  // Idle gangs as victims, RunningGang::idle_preemptible (round_idle_victims.cc).
  std::optional<VictimCandidate> AsIdleVictim(int r, int queue) const;
  std::optional<VictimCandidate> AsVictimOf(int r, int queue, bool busy_may_go, bool lost_work_capped = true) const;
  std::vector<double> BusyHeld() const;

  // Fair-share reclaim (round_reclaim.cc).
  std::vector<char> VictimSources(int beneficiary) const;
  std::vector<VictimCandidate> Candidates(int beneficiary_queue) const;
  std::vector<double> Reclaimable(int beneficiary) const;
  std::vector<int> Parents() const;
  void Reclaim();

  // Moving small gangs into holes elsewhere for a waiting gang (round_consolidation.cc).
  std::vector<VictimCandidate> Movable() const;
  void KeepUnneeded(int w, VictimChoice& choice, const std::vector<VictimCandidate>& candidates);
  bool MovesFit(int w, const VictimChoice& choice, const std::vector<VictimCandidate>& candidates);
  void Consolidate();

  // Priority preemption inside a queue (round_preemption.cc).
  bool AnyQueuePreempts() const;
  std::vector<VictimCandidate> LowerPriority(int w);
  void Preempt();

  const AdmissionInput& in_;
  const AdmissionConfig& config_;
  Rng& rng_;
  ScratchModel model_;
  QueueTree tree_;
  AdmissionDecision out_;
  std::vector<Gang> gangs_;
  std::vector<std::optional<GangRequest>> narrowed_;  // By waiting index: see Request.
  std::vector<std::vector<int>> by_queue_;
  std::vector<double> waiting_gpus_;  // Per queue: GPUs its own waiting gangs ask for.
  // Per queue, with everything below it: GPUs held (running gangs, then this round's admissions and
  // earmarks, less its evictions), fair shares, GPUs of running gangs not evicted this round.
  std::vector<double> held_, fair_, running_held_;
  std::map<int, Reserved> reserved_;  // By waiting index: reservations held after the round.
  std::vector<GangShape> failed_;
  std::vector<std::pair<int, std::string>> invalid_;  // Malformed gangs by waiting index, with why.
  // Per queue: the gang that stopped backfill in it, and the position in by_queue_ from which its gangs wait behind.
  struct Starving {
    int gang = -1;
    size_t from = 0;
  };
  std::vector<Starving> starving_;
  int budget_ = 0;              // Evictions left this round (reclaim and preemption).
  // Per running gang: evicted (or released) this round; sized on the first eviction, so rounds that
  // evict nothing never touch every running gang.
  std::vector<char> evicted_;
  std::vector<std::vector<int>> running_by_queue_;  // Lazily, for preemption: running gangs per queue.
  // Per node: terminating running gangs on it, indexed only when a reclaim reservation needs it.
  std::vector<std::vector<int>> leaving_;
  bool leaving_known_ = false;
};

}  // namespace gangplank::engine
