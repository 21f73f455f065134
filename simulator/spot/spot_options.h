// Everything a spot replay can be told: the time replay's trace, cluster and admission settings, plus which nodes are
// spot, how often they are reclaimed, how long a notice gives, how long a replacement takes, how jobs checkpoint, and
// which spot policies to compare. Filled by the `spot` CLI command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/time_replay/options.h"

namespace gangplank::simulator {

// The policies compared, by their CLI names, in report order.
inline const std::vector<std::string>& SpotPolicyNames() {
  static const std::vector<std::string> names = {"checkpoint-then-requeue", "evict-on-notice", "ignore"};
  return names;
}

struct SpotReplayOptions {
  // Trace, cluster, admission and checkpoint model, as in `time`. Reclaim is off by default here, so every eviction and
  // every GPU-hour lost comes from a spot notice.
  TimeReplayOptions replay = [] {
    TimeReplayOptions o;
    o.reclaim = false;
    o.out_dir = "spot-replay-out";
    return o;
  }();
  double spot_fraction = 0.5;  // Of the nodes, picked by `spot_seed`.
  // Interruptions per spot node per 30 days. Default 0.20: the edge of the highest frequency-of-interruption bucket
  // (">20%") of the AWS Spot Instance Advisor (see simulator/spot/README.md).
  double interruptions_per_node_month = 0.20;
  double notice_seconds = 120;           // AWS's two-minute warning; GKE and Azure give 30 s.
  double replacement_seconds = 600;      // Until a replacement node is up (assumption, see README).
  double checkpoint_write_seconds = 60;  // A job acknowledges this long after it is asked (assumption).
  double checkpoint_grace_seconds = 90;  // Engine: the longest a gang is given to checkpoint.
  double eviction_margin_seconds = 15;   // Engine: evict this long before the node goes.
  // Ignore: how long the survivors of a gang that lost a node hold their GPUs before the job is noticed failed
  // (Kubernetes' default 300 s toleration of unreachable/not-ready nodes).
  double failure_detection_seconds = 300;
  // Seeds of the reclaim sequences ("1..3", "1,5,9"): each picks the spot nodes and draws the reclaims, and every
  // policy is replayed under each; the summary is the mean (and sd) over seeds.
  std::string spot_seeds = "1..3";
  int threads = 2;  // Worker threads, each replaying one (seed, policy) at a time.
  std::vector<std::string> policies = SpotPolicyNames();
};

// Throws std::invalid_argument naming the first setting that makes no sense.
void ValidateSpotOptions(const SpotReplayOptions& options);

// The seeds of --spot-seeds; throws std::invalid_argument naming the flag and the bad part.
std::vector<std::uint64_t> SpotSeeds(const SpotReplayOptions& options);

}  // namespace gangplank::simulator
