// How a gang recovers from a fault: the policy and its limits, per gang (the caller resolves its pool's
// settings overridden by its queue's). Negative limits and durations act as 0.
#pragma once

namespace gangplank::engine {

enum class RecoveryPolicy {
  kRestartGang,  // Evict every member and requeue the gang whole, away from the faulty nodes.
  kFailGang,     // Evict it and leave it failed, with the cause.
  kIgnore,       // Do nothing: the job's own retries, or its owner, deal with it.
};

struct RecoveryConfig {
  RecoveryPolicy policy = RecoveryPolicy::kRestartGang;
  int restart_limit = 3;             // Restarts allowed; the next fault after them fails the gang.
  double backoff_seconds = 30;       // The wait before the second restart, doubled for each later one ...
  double max_backoff_seconds = 600;  // ... up to this.
  double node_grace_seconds = 60;    // A lost host counts once it was gone this long.
  double below_minimum_grace_seconds = 300;  // A gang below its minimum members counts after this.
  double checkpoint_grace_seconds = 120;     // The longest a gang on live hosts is given to checkpoint.
  // Frameworks that replace one worker (torchrun elastic): a lost member is waited for, not restarted.
  bool replace_members = false;
};

// The wait after the last restart before restart number `restarts` + 1 (`restarts` already done):
// none before the first (the fault just happened), `backoff_seconds` before the second, then doubled
// each time, at most `max_backoff_seconds`. A crash-looping job thus spaces its restarts out.
double RestartBackoff(int restarts, const RecoveryConfig& config);

}  // namespace gangplank::engine
