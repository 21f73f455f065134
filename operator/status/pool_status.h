// What a GPUPool's status says, built from the pool's cluster state and the last admission round:
// nodes, GPUs (capacity, allocated, free), the largest whole-GPU gang placeable now (pool-wide and per
// topology level), fragmentation, gangs pending and running, and each queue's fair share, use and
// pending gangs. And whether the pool is Ready: it selects nodes, and shares none with another pool.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/state/state_view.h"
#include "operator/model/pool_health.h"
#include "operator/model/pool_model.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

struct PoolCounts {
  int pending_gangs = 0;
  int running_gangs = 0;
  double fragmentation = 0;  // 0..1
  int nodes_under_notice = 0;
};

nlohmann::json PoolStatusFields(const cache::StateView& view, const std::map<std::string, QueueFigures>& queues,
                                const PoolCounts& counts);

ConditionWrite PoolReadyCondition(const cache::PoolConfig& pool, const PoolHealth& health);

}  // namespace gangplank::op
