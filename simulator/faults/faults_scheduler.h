// gangplank's time-replay scheduler on a cluster whose nodes fail: the engine's admission round (through
// GangplankScheduler) plus one of three ways to handle a fault, fed from a fixed fault sequence:
//  - restart-gang: gangplank. Every decision about a gang hit by a fault is the engine's (engine/recovery/,
//    PlanGangRecovery, the function the operator runs); the adapter turns replay time into the signals the operator's
//    cache would read (a member Failed, a node NotReady, a GPU condition, a maintenance quarantine) and checkpoint
//    acknowledgements, and applies the decisions.
//  - per-pod-replacement: Kubernetes by itself. The dead member is replaced alone; the rest of a job of several pods
//    hangs in a collective, holding its GPUs, until the collective times out; then the job restarts whole from its
//    last checkpoint. A lost host's pods are replaced only once Kubernetes evicts them.
//  - no-handling: nothing restarts the job. Its pods stay as they are (the dead one gone, the others hung) until its
//    user notices, deletes it and resubmits it.
// A job stopped by a fault restarts (or is resubmitted) at the head of its queue under every policy, through the same
// admission round, so the policies differ only in how and when a fault is handled, not in where jobs are placed.
// Whatever the policy, a node out of service (a GPU, host or maintenance fault) is cordoned until it is repaired.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/recovery/gang_recovery.h"
#include "simulator/faults/fault_sequence.h"
#include "simulator/time_replay/gang_schedulers.h"

namespace gangplank::simulator {

enum class FaultHandling { kRestartGang, kPerPodReplacement, kNoHandling };

struct FaultSettings {
  std::string name;  // The policy's CLI name, reported as the scheduler's name.
  FaultHandling handling = FaultHandling::kRestartGang;
  engine::RecoveryConfig recovery;          // restart-gang: the engine's policy and limits.
  double checkpoint_write_seconds = 60;     // A gang asked to checkpoint acknowledges this long after.
  double collective_timeout_seconds = 600;  // per-pod-replacement: survivors of a dead member hang this long.
  double failure_detection_seconds = 300;   // per-pod-replacement: a lost host's pods are replaced after this.
  double user_notice_seconds = 3600;        // A failed job is resubmitted by its user this long after.
};

struct FaultCounters {
  int faults = 0;                 // Faults injected.
  int faults_on_jobs = 0;         // Of those, faults that hit a running job directly.
  int interruptions = 0;          // Runs of jobs stopped by a fault or by its handling.
  std::vector<int> interrupted_jobs;  // The job of each interruption, in order (a job stopped twice is here twice).
  int restarts = 0;               // Stopped jobs put back in their queue (by the policy or by their user).
  int checkpointed_restarts = 0;  // restart-gang: restarted after a checkpoint acknowledged in time.
  int jobs_failed = 0;            // Failures left to the job's user (no-handling; restart-gang past its limit).
  std::vector<double> requeue_seconds;   // Per interruption: from the fault to the job back in its queue.
  std::vector<double> recovery_seconds;  // Per interruption: from the fault to the job running again.
};

class FaultsScheduler : public GangplankScheduler {
 public:
  FaultsScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                  std::unique_ptr<engine::ScoringPolicy> policy, std::vector<InjectedFault> faults,
                  FaultSettings settings);
  std::string_view Name() const override { return settings_.name; }
  void Schedule(double now, std::vector<int>& started) override;
  void Finish(const ReplayJob& job) override;
  double NextWakeup(double now) const override;
  const FaultCounters& counters() const { return counters_; }

 private:
  struct JobState {
    std::optional<double> hit_at;                     // Interrupted since (the fault), until it runs again.
    bool broken = false;                              // Stopped: the dead pod gone, the others hold their GPUs.
    std::vector<engine::NodeId> nodes;                // Where it ran when it broke.
    std::vector<engine::MemberFault> member_faults;   // restart-gang: what the engine is told.
    std::optional<double> release_at;                 // Broken: put back in its queue then.
    std::optional<double> requested_at;               // restart-gang: asked to checkpoint then ...
    double deadline = 0;                              // ... by then ...
    double ack_at = 0;                                // ... and it acknowledges then.
    int restarts = 0;                                 // restart-gang: restarts so far (the engine's backoff).
    std::optional<double> last_restart_at;
  };

  void RepairNodes(double now);
  void ReleaseDue(double now);
  void InjectFaults(double now);
  std::vector<int> JobsHit(const InjectedFault& fault) const;
  void Hit(int job, const InjectedFault& fault, double now);
  void Stop(int job, engine::NodeId node, double now);
  void Requeue(int job, double now);
  void NoteInterrupted(int job);
  void NoteRequeued(int job, double now);
  double ReleaseDelay(int job, FaultKind kind) const;
  void NoteRecovered(double now, const std::vector<int>& started);
  // restart-gang (faults_recovery.cc).
  void DecideRecovery(double now);
  std::vector<engine::NodeFault> EngineNodeFaults() const;
  std::vector<int> JobsToAsk() const;
  engine::GangHealth HealthOf(int job, double now) const;
  void Apply(const engine::RecoveryDecision& decision, int job, double now);
  void RestartWhole(const engine::RecoveryDecision& decision, int job, double now);
  void FailJob(int job, double now);

  FaultSettings settings_;
  std::vector<InjectedFault> faults_;  // By time.
  size_t next_fault_ = 0;
  std::vector<InjectedFault> out_of_service_;  // Nodes under repair, by the fault that took them out.
  std::vector<JobState> state_;                // Per job.
  std::vector<int> stopped_;                   // Broken jobs not back in their queue yet.
  double recovery_wakeup_ = std::numeric_limits<double>::infinity();  // The engine's next_wakeup.
  FaultCounters counters_;
};

}  // namespace gangplank::simulator
