// When the gangs on a node are expected to be gone, for choosing which nodes a waiting gang reserves
// (engine/gang/soonest_reservation.h). A declared end counts while it is ahead, then a predicted one
// (from the runtimes of gangs like it); past both, or without them, a gang is expected to run as long
// again as it has run so far: training runs' lengths are heavy-tailed, so a gang that has run for days
// is the one least likely to end soon.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/admission/admission_input.h"

namespace gangplank::engine {

double ExpectedEnd(const RunningGang& gang, double now, double min_remaining_seconds);

// Per node of a cluster of `nodes` nodes, the latest expected end of the gangs on it (`now` when
// none). `skip(i)` leaves running gang i out (evicted this round).
template <typename Skip>
std::vector<double> NodeFreeTimes(int nodes, const std::vector<RunningGang>& running, double now,
                                  double min_remaining_seconds, Skip skip) {
  std::vector<double> free_at(static_cast<size_t>(nodes), now);
  for (size_t i = 0; i < running.size(); ++i) {
    if (skip(static_cast<int>(i))) continue;
    const double end = ExpectedEnd(running[i], now, min_remaining_seconds);
    for (const Allocation& a : running[i].allocations) free_at[a.node] = std::max(free_at[a.node], end);
  }
  return free_at;
}

}  // namespace gangplank::engine
