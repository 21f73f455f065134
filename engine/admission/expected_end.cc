#include "engine/admission/expected_end.h"

#include <algorithm>

namespace gangplank::engine {

double ExpectedEnd(const RunningGang& gang, double now, double min_remaining_seconds) {
  if (gang.expected_end && *gang.expected_end > now) return *gang.expected_end;
  if (gang.predicted_end && *gang.predicted_end > now) return *gang.predicted_end;
  return now + std::max(now - gang.start, min_remaining_seconds);
}

}  // namespace gangplank::engine
