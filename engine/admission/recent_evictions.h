// The eviction times a caller keeps between rounds for the budget's window (ReclaimConfig's
// max_victims_per_window over window_seconds; AdmissionInput::recent_evictions). The operator and the
// simulator prune them the same way before each round.
#pragma once

#include <vector>

namespace gangplank::engine {

// Drops the times that have left the window ending at `now` (at or before now - window_seconds); the
// others keep their order.
void PruneRecentEvictions(std::vector<double>& times, double now, double window_seconds);

}  // namespace gangplank::engine
