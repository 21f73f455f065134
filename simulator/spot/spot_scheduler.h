// gangplank's time-replay scheduler on a cluster with spot nodes: the engine's admission round (through
// GangplankScheduler) plus the engine's spot decisions (engine/spot/spot_reclaim.h), fed from a fixed sequence of node
// reclaims. The adapter only turns replay time into notices and acknowledgements and applies what PlanSpotReclaim
// decides; with the Ignore policy it does nothing, so a node that goes takes its pods and strands the rest of their
// gangs until they are noticed failed.
//
// Whatever the policy, a node under notice is cordoned (the clouds' termination handlers taint it), so its capacity is
// never planned for new gangs; it stays out until its replacement is up.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/spot/spot_reclaim.h"
#include "simulator/spot/preemption_sequence.h"
#include "simulator/time_replay/gang_schedulers.h"

namespace gangplank::simulator {

struct SpotSettings {
  std::string name;                        // The policy's CLI name, reported as the scheduler's name.
  engine::SpotConfig engine;               // Policy, checkpoint grace and eviction margin.
  double checkpoint_write_seconds = 60;    // A gang asked to checkpoint acknowledges this long after.
  double failure_detection_seconds = 300;  // Ignore: a broken gang's survivors hold GPUs this long.
};

struct SpotCounters {
  int notices = 0;        // Nodes that got a termination notice.
  int nodes_lost = 0;     // Nodes that went.
  int gangs_noticed = 0;  // Gangs with a member on a node under notice that the policy acted on.
  int checkpoints_requested = 0;
  int checkpoints_in_time = 0;         // Acknowledged before the deadline; the gang was evicted then.
  int checkpoints_late = 0;            // Evicted at the deadline without an acknowledgement.
  int evicted_without_checkpoint = 0;  // Evicted at once (evict-on-notice, or no time to checkpoint).
  int jobs_killed = 0;                 // Jobs that had a pod on a node when it went.
  int gangs_broken = 0;                // Of those, jobs of several pods whose other pods were left holding GPUs.
};

class SpotGangplankScheduler : public GangplankScheduler {
 public:
  SpotGangplankScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                         std::unique_ptr<engine::ScoringPolicy> policy, std::vector<NodePreemption> preemptions,
                         SpotSettings settings);
  std::string_view Name() const override { return settings_.name; }
  void Schedule(double now, std::vector<int>& started) override;
  void Finish(const ReplayJob& job) override;
  double NextWakeup(double now) const override;
  const SpotCounters& counters() const { return counters_; }

 private:
  // Per job: its checkpoint request and the failure of a broken gang.
  struct JobSpotState {
    std::optional<double> requested_at;  // Asked to checkpoint then ...
    double deadline = 0;                 // ... by then ...
    double ack_at = 0;                   // ... and it acknowledges then.
    std::optional<double> failed_until;  // Broken: noticed failed (and requeued) then.
  };

  void ReplaceNodes(double now);
  void RequeueFailed(double now);
  void ReceiveNotices(double now);
  void DecideSpot(double now);
  void Apply(const engine::SpotDecision& decision, int job, double now);
  void TerminateNodes(double now);
  std::vector<engine::GangOnNodes> AffectedGangs(double now, std::vector<int>& jobs) const;

  SpotSettings settings_;
  std::vector<NodePreemption> preemptions_;  // By notice time.
  size_t next_notice_ = 0;
  std::vector<NodePreemption> under_notice_;                      // Noticed, not gone yet.
  std::vector<NodePreemption> gone_;                              // Gone, replacement not up yet.
  std::vector<JobSpotState> state_;                               // Per job.
  std::vector<int> broken_;                                       // Jobs waiting to be noticed failed.
  double spot_wakeup_ = std::numeric_limits<double>::infinity();  // The engine's next deadline.
  SpotCounters counters_;
};

}  // namespace gangplank::simulator
