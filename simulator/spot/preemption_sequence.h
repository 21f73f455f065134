// The spot reclaims of a replay, drawn once from a seed and replayed identically under every policy: which nodes are
// spot, and when each gets its termination notice, goes, and is replaced. Each spot node is reclaimed as a Poisson
// process of the given rate while it is up; its replacement is a spot node too, whose clock starts when it comes up (as
// a node group's autoscaler replaces a lost node).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/resources.h"

namespace gangplank::simulator {

struct NodePreemption {
  engine::NodeId node = 0;
  double notice_at = 0;     // The termination notice arrives.
  double terminate_at = 0;  // The node goes, with whatever runs on it.
  double replaced_at = 0;   // A replacement node takes its place (same name and shape).
};

struct PreemptionModel {
  int nodes = 0;
  double spot_fraction = 0;
  double interruptions_per_node_month = 0;  // A month is 30 days.
  double notice_seconds = 120;
  double replacement_seconds = 600;
  double horizon = 0;  // Notices arrive in [0, horizon).
  std::uint64_t seed = 1;
};

// round(spot_fraction x nodes) distinct nodes chosen by a seeded shuffle, in ascending order.
std::vector<engine::NodeId> PickSpotNodes(const PreemptionModel& model);

// Every reclaim of every spot node, ordered by notice time (then node).
std::vector<NodePreemption> DrawPreemptions(const PreemptionModel& model);

}  // namespace gangplank::simulator
