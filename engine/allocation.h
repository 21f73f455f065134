// The exact resources one pod holds on one node. Assign and Release take the same Allocation, so the
// books always balance.
#pragma once

#include <vector>

#include "engine/resources.h"

namespace gangplank::engine {

struct Allocation {
  NodeId node = kNoNode;
  HostResources host;
  std::vector<int> gpus;        // Distinct GPU indices on the node.
  MilliGpu milli_per_gpu = 0;   // Taken from each GPU in `gpus`.

  friend bool operator==(const Allocation&, const Allocation&) = default;
};

}  // namespace gangplank::engine
