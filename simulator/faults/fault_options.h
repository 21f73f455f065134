// Everything a failure replay can be told: the time replay's trace, cluster and admission settings, plus how often
// nodes fail, how long a repair takes, how jobs and Kubernetes react without gangplank, gangplank's recovery settings
// and which policies to compare. Filled by the `faults` CLI command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/faults/fault_sequence.h"
#include "simulator/time_replay/options.h"

namespace gangplank::simulator {

// The policies compared, by their CLI names, in report order.
inline const std::vector<std::string>& FaultPolicyNames() {
  static const std::vector<std::string> names = {"restart-gang", "per-pod-replacement", "no-handling"};
  return names;
}

struct FaultReplayOptions {
  // Trace, cluster, admission and checkpoint model, as in `time`. Reclaim is off by default here, so every eviction and
  // every GPU-hour lost comes from a fault.
  TimeReplayOptions replay = [] {
    TimeReplayOptions o;
    o.reclaim = false;
    o.out_dir = "faults-replay-out";
    return o;
  }();
  // Faults per node per day (Poisson), of the kinds in Llama 3's mix. Default: Llama 3's published rate.
  double faults_per_node_day = Llama3FaultsPerNodeDay();
  double repair_seconds = 4 * 3600;      // A node out of service comes back after this (assumption).
  double checkpoint_write_seconds = 60;  // A job asked to checkpoint acknowledges this long after (assumption).
  // A collective waiting for a dead peer gives up after this (PyTorch's NCCL default, 10 minutes).
  double collective_timeout_seconds = 600;
  // Pods of a lost host are replaced this long after it stopped answering (Kubernetes' 300 s toleration).
  double failure_detection_seconds = 300;
  // no-handling: a failed job's user notices, deletes and resubmits it this long after the fault (assumption).
  double user_notice_seconds = 3600;
  // restart-gang: the engine's RecoveryConfig (engine/recovery/recovery_config.h), its defaults.
  double node_grace_seconds = 60;
  double checkpoint_grace_seconds = 120;
  int restart_limit = 3;
  // Seeds of the fault sequences ("1..3", "1,5,9"); every policy is replayed under each, figures are means over seeds.
  std::string fault_seeds = "1..3";
  int threads = 2;  // Worker threads, each replaying one (seed, policy) at a time.
  std::vector<std::string> policies = FaultPolicyNames();
};

// Throws std::invalid_argument naming the first setting that makes no sense.
void ValidateFaultOptions(const FaultReplayOptions& options);

// The seeds of --fault-seeds; throws std::invalid_argument naming the flag and the bad part.
std::vector<std::uint64_t> FaultSeeds(const FaultReplayOptions& options);

}  // namespace gangplank::simulator
