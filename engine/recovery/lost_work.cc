#include "engine/recovery/lost_work.h"

#include <algorithm>

namespace gangplank::engine {

double RestartLostGpuSeconds(double gpus, double started_at, std::optional<double> last_checkpoint_at,
                             double restart_at) {
  // A checkpoint from before this run started is the one it resumed from: all of this run is lost.
  const double saved_at = std::max(started_at, last_checkpoint_at.value_or(started_at));
  return std::max(0.0, gpus) * std::max(0.0, restart_at - saved_at);
}

}  // namespace gangplank::engine
