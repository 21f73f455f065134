// The replay options the time replay's tests share: two 8-GPU nodes, each its own rack, row and zone,
// samples every 10 s, no progress bar, reclaim off (the golden traces were worked out without it).
#pragma once

#include "simulator/time_replay/options.h"

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

}  // namespace gangplank::simulator::testing
