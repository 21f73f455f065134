// Whether each GPU pool's selector makes sense on the nodes there are: how many nodes it selects, and
// which of them another pool selects too (such a node belongs to neither: cache::OwningPool).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "engine/node.h"

namespace gangplank::op {

struct PoolHealth {
  int nodes = 0;                           // Nodes the pool's selector takes (overlaps included).
  std::map<std::string, int> shared_with;  // Other pool -> nodes both select.
};

// Every pool gets an entry, those that select nothing too.
std::map<std::string, PoolHealth> PoolHealthOf(const std::vector<cache::PoolConfig>& pools,
                                               const std::vector<engine::NodeSpec>& nodes);

}  // namespace gangplank::op
