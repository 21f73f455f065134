#include "simulator/faults/fault_options.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulator/frag/seed_list.h"

namespace gangplank::simulator {
namespace {

void RequireSeconds(double value, const char* flag) {
  if (!std::isfinite(value) || value < 0) {
    throw std::invalid_argument(std::string(flag) + " must be a finite number >= 0");
  }
}

}  // namespace

void ValidateFaultOptions(const FaultReplayOptions& o) {
  RequireSeconds(o.faults_per_node_day, "--faults-per-node-day");
  RequireSeconds(o.repair_seconds, "--repair-seconds");
  RequireSeconds(o.checkpoint_write_seconds, "--checkpoint-write-seconds");
  RequireSeconds(o.collective_timeout_seconds, "--collective-timeout-seconds");
  RequireSeconds(o.failure_detection_seconds, "--failure-detection-seconds");
  RequireSeconds(o.user_notice_seconds, "--user-notice-seconds");
  RequireSeconds(o.node_grace_seconds, "--node-grace-seconds");
  RequireSeconds(o.checkpoint_grace_seconds, "--checkpoint-grace-seconds");
  if (o.restart_limit < 0) throw std::invalid_argument("--restart-limit must be >= 0");
  FaultSeeds(o);
  if (o.threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (o.policies.empty()) throw std::invalid_argument("--policies names no policy");
  const auto& known = FaultPolicyNames();
  for (const std::string& p : o.policies) {
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      throw std::invalid_argument("unknown fault policy '" + p + "' (restart-gang, per-pod-replacement, no-handling)");
    }
  }
}

std::vector<std::uint64_t> FaultSeeds(const FaultReplayOptions& options) {
  try {
    return frag::ParseSeedList(options.fault_seeds);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--fault-seeds: ") + e.what());
  }
}

}  // namespace gangplank::simulator
