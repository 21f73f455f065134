#include "simulator/spot/spot_options.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulator/frag/seed_list.h"

namespace gangplank::simulator {
namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

void ValidateSpotOptions(const SpotReplayOptions& o) {
  Require(o.spot_fraction >= 0 && o.spot_fraction <= 1, "--spot-fraction must be between 0 and 1");
  Require(std::isfinite(o.interruptions_per_node_month) && o.interruptions_per_node_month >= 0,
          "--interruptions-per-node-month must be a finite number >= 0");
  Require(std::isfinite(o.notice_seconds) && o.notice_seconds >= 0, "--notice-seconds must be a finite number >= 0");
  Require(std::isfinite(o.replacement_seconds) && o.replacement_seconds >= 0,
          "--replacement-seconds must be a finite number >= 0");
  Require(std::isfinite(o.checkpoint_write_seconds) && o.checkpoint_write_seconds >= 0,
          "--checkpoint-write-seconds must be a finite number >= 0");
  Require(o.checkpoint_grace_seconds >= 0, "--checkpoint-grace-seconds must be >= 0");
  Require(o.eviction_margin_seconds >= 0, "--eviction-margin-seconds must be >= 0");
  Require(std::isfinite(o.failure_detection_seconds) && o.failure_detection_seconds >= 0,
          "--failure-detection-seconds must be a finite number >= 0");
  SpotSeeds(o);
  Require(o.threads >= 1, "--threads must be at least 1");
  Require(!o.policies.empty(), "--policies names no policy");
  for (const std::string& p : o.policies) {
    const auto& known = SpotPolicyNames();
    Require(std::find(known.begin(), known.end(), p) != known.end(),
            "unknown spot policy '" + p + "' (checkpoint-then-requeue, evict-on-notice, ignore)");
  }
}

std::vector<std::uint64_t> SpotSeeds(const SpotReplayOptions& options) {
  try {
    return frag::ParseSeedList(options.spot_seeds);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--spot-seeds: ") + e.what());
  }
}

}  // namespace gangplank::simulator
