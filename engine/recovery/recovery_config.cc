#include "engine/recovery/recovery_config.h"

#include <algorithm>
#include <cmath>

namespace gangplank::engine {

double RestartBackoff(int restarts, const RecoveryConfig& config) {
  if (restarts <= 0) return 0;
  // 2^62 overflows no double, and any backoff is capped far below it.
  const double wait = std::max(0.0, config.backoff_seconds) * std::ldexp(1.0, std::min(restarts - 1, 62));
  return std::min(wait, std::max(0.0, config.max_backoff_seconds));
}

}  // namespace gangplank::engine
