// The two all-or-nothing schedulers of the time replay; both plan whole gangs with the engine's
// topology-aware gang planner, so a gang never holds GPUs before it can start.
//  - gangplank: a thin adapter over the engine's admission round (engine/admission/admission_round.h),
//    the same code the operator runs: fair-share admission order with backfill, optional waiting-time
//    reservations, optional fair-share reclaim, optional time-based fair share and optional runtime
//    prediction. The adapter only keeps the round's input current (waiting gangs, running gangs,
//    reservations, recent evictions, each queue's past usage from a UsageLedger fed with what it held,
//    runtimes predicted from the jobs that have ended) and applies each decision.
//  - fifo-gang: one queue in strict arrival order; the first gang that does not fit blocks the rest.
#pragma once

#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "engine/admission/admission_decision.h"
#include "engine/admission/admission_input.h"
#include "engine/fairshare/usage_ledger.h"
#include "engine/gang/gang_planner.h"
#include "engine/prediction/runtime_predictor.h"
#include "engine/scoring_policy.h"
#include "simulator/time_replay/replay_scheduler.h"

namespace gangplank::simulator {

// Shared: turning a job into a gang and starting it from a plan.
class GangSchedulerBase : public ReplayScheduler {
 public:
  GangSchedulerBase(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                    std::unique_ptr<engine::ScoringPolicy> policy);

 protected:
  int FreeGpus() const;
  engine::GangRequest GangFor(const ReplayJob& job) const;
  // Plans the job; on success applies the plan and returns true.
  bool TryStart(const ReplayJob& job);
  void Start(const ReplayJob& job, const engine::GangPlan& plan);

  std::unique_ptr<engine::ScoringPolicy> policy_;
};

class GangplankScheduler : public GangSchedulerBase {
 public:
  GangplankScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                     std::unique_ptr<engine::ScoringPolicy> policy);
  std::string_view Name() const override { return name_; }
  // For comparisons of variants in one run (gangplank-no-predict...).
  void set_name(std::string name) { name_ = std::move(name); }
  void Submit(const ReplayJob& job) override;
  void Schedule(double now, std::vector<int>& started) override;
  void Finish(const ReplayJob& job) override;
  double NextWakeup(double now) const override;

  // Seconds a gang waits before it may reserve nodes; infinity disables reservations.
  void set_reserve_after(double seconds) { config_.reservation.reserve_after_seconds = seconds; }
  // Largest fraction of the nodes reservations may hold at once.
  void set_reserve_fraction(double fraction) { config_.reservation.max_node_fraction = fraction; }
  void set_reserve_policy(engine::ReservationChoice choice, engine::ReservationShare share) {
    config_.reservation.choice = choice;
    config_.reservation.share = share;
  }
  void set_reclaim(const engine::ReclaimConfig& reclaim) { config_.reclaim = reclaim; }
  void set_consolidation(const engine::ConsolidationConfig& c) { config_.consolidation = c; }
  void set_no_backfill_after(double seconds) { config_.no_backfill_after_seconds = seconds; }
  // Time-based fair share: past usage kept and counted as `config` says (off when its half-life is 0).
  void set_usage_decay(const engine::UsageDecayConfig& config) { usage_ = engine::UsageLedger(config); }
  const engine::UsageLedger& usage() const { return usage_; }
  int reservations_made() const { return reservations_made_; }
  // Runtime prediction (engine/prediction/), off until set: a job's key is its queue and GPU count (the
  // trace has no user or name), it learns each job's runtime when the job ends, and backfill onto
  // reserved nodes trusts the `quantile` of its prediction; with `predicted_ends` reservations are
  // placed by running jobs' predicted ends too.
  void set_runtime_prediction(const engine::PredictorConfig& config, double quantile, bool predicted_ends = true);
  PredictionRecord Predictions() const override { return record_; }

 protected:
  // Jobs running now, in no particular order.
  const std::vector<int>& running_jobs() const { return running_job_; }
  // The round's entry of a running job, or null when it does not run.
  engine::RunningGang* RunningGangOf(int job);
  // Evicts a running job whole and requeues it at the head of its queue (see Evict for checkpoint_at;
  // `overrun`: ended for overstaying a predicted backfill, it is never backfilled on a prediction again).
  void EvictWhole(const ReplayJob& job, std::optional<double> checkpoint_at = std::nullopt,
                  EvictionCause cause = EvictionCause::kOther);
  // A node under a running job died (nobody acted on its notice): see ReplayScheduler::Break.
  void BreakRunning(const ReplayJob& job, engine::NodeId dead_node);
  // A broken job is noticed failed: released and requeued whole at the head of its queue.
  void RequeueBroken(const ReplayJob& job);

 private:
  void Wait(const ReplayJob& job, bool front);
  void ForgetRunning(const ReplayJob& job);
  // Applies one decision; returns whether it evicted anything (so another round may start the gang).
  bool Apply(const engine::AdmissionDecision& decision, std::vector<int>& started);
  void UpdateCheckpoints(double now);
  void RunRounds(double now, std::vector<int>& started);
  // Books what each queue held since the last call into the ledger (held is constant between calls:
  // it changes only at events, and the event loop schedules at every event).
  void RecordUsage(double now);
  void SetPastUsage(double now);
  // The round's predicted runtimes (waiting gangs) and ends (running gangs), from the jobs ended so far.
  void Predict(double now);
  // The backfill quantile of the job's prediction; none once it overstayed one, or without history.
  std::optional<double> PredictedRuntime(int job) const;

  std::string name_ = "gangplank";
  engine::AdmissionInput input_;
  engine::AdmissionConfig config_;
  std::vector<int> waiting_job_;   // Job id of each input_.waiting entry.
  std::vector<int> running_job_;   // Job id of each input_.running entry.
  std::vector<int> running_slot_;  // Per job: index into input_.running, or -1.
  int reservations_made_ = 0;
  double next_wakeup_ = std::numeric_limits<double>::infinity();  // From the last round.
  engine::UsageLedger usage_;
  std::vector<int> usage_held_;  // GPUs per queue since usage_since_.
  double usage_since_ = 0;
  std::optional<engine::RuntimePredictor> predictor_;
  std::vector<engine::KeyChain> chains_;  // Per job, from its arrival.
  std::vector<char> overran_;             // Per job: ended for overstaying a predicted backfill.
  bool predicted_ends_ = true;
  bool learnt_ = false;  // A job ended since the waiting gangs were last predicted.
  PredictionRecord record_;
};

class FifoGangScheduler : public GangSchedulerBase {
 public:
  using GangSchedulerBase::GangSchedulerBase;
  std::string_view Name() const override { return "fifo-gang"; }
  void Submit(const ReplayJob& job) override;
  void Schedule(double now, std::vector<int>& started) override;

 private:
  std::deque<int> waiting_;
};

}  // namespace gangplank::simulator
