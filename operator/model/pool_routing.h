// Which GPU pool a waiting gang is admitted in. Running pods belong to the pool of their node; a gang
// that waits has no node yet, so:
//   1. the gangplank.io/pool label of its pods names the pool (it must exist);
//   2. otherwise the pools its queue may use, narrowed to those its pods' node selector agrees with;
//   3. exactly one left: that pool; none: no pool can take it; several: the user must choose (label).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "operator/model/queue_tree.h"

namespace gangplank::op {

struct PoolChoice {
  std::string pool;     // Empty when no single pool can be chosen.
  std::string reason;   // CamelCase when !pool: PoolNotFound, NoPool, AmbiguousPool.
  std::string message;
};

PoolChoice ChoosePool(const std::vector<cache::PoolConfig>& pools, const QueueTree& tree, const std::string& queue,
                      const std::string& pool_label, const std::map<std::string, std::string>& node_selector);

}  // namespace gangplank::op
