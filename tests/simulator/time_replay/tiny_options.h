// The replay options the time replay's tests share: two 8-GPU nodes, each its own rack, row and zone,
// samples every 10 s, no progress bar, reclaim off (the golden traces were worked out without it); and
// the result of one scheduler of a run.
#pragma once

#include <stdexcept>
#include <string>

#include "simulator/time_replay/options.h"
#include "simulator/time_replay/run_time_replay.h"

namespace gangplank::simulator::testing {

inline TimeReplayOptions TinyOptions() {
  TimeReplayOptions o;
  o.nodes = 2;
  o.gpus_per_node = 8;
  o.nodes_per_rack = 1;
  o.racks_per_row = 1;
  o.rows_per_zone = 1;
  o.sample_seconds = 10;
  o.progress = false;
  o.reclaim = false;
  return o;
}

inline const ReplayResult& ResultOf(const TimeReplayOutput& out, const std::string& scheduler) {
  for (const ReplayResult& r : out.results) {
    if (r.scheduler == scheduler) return r;
  }
  throw std::runtime_error("no result for " + scheduler);
}

}  // namespace gangplank::simulator::testing
