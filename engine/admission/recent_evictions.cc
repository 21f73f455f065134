#include "engine/admission/recent_evictions.h"

#include <algorithm>

namespace gangplank::engine {

void PruneRecentEvictions(std::vector<double>& times, double now, double window_seconds) {
  const double since = now - window_seconds;
  times.erase(std::remove_if(times.begin(), times.end(), [since](double t) { return t <= since; }), times.end());
}

}  // namespace gangplank::engine
