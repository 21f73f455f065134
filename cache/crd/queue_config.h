// A team's queue (crds/queue.gangplank.io.yaml) as gangplank reads it: its place in the queue tree,
// its weight, its guarantee and limit in each GPU pool, its preemption policy and its overrides of the
// pools' fault recovery. The extender enforces limits and guarantees from it; the operator computes fair
// shares over the tree.
#pragma once

#include <functional>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cache/crd/pool_config.h"

namespace gangplank::cache {

struct PoolQuota {
  int guaranteed_gpus = 0;
  std::optional<int> limit_gpus;  // No limit when empty.
};

// spec.faultRecovery: what the queue's gangs get instead of their pool's policy and restart limit.
struct QueueFaultRecovery {
  std::optional<FaultPolicy> policy;
  std::optional<int> restart_limit;
};

// spec.namespaces entry that opens a queue to every namespace not bound to another queue.
inline constexpr std::string_view kAnyNamespace = "*";

struct QueueConfig {
  std::string name;
  std::string parent;  // Empty: a top-level queue.
  double weight = 1;
  // Quotas of the pools the queue lists. A queue that lists none may use every pool (`any_pool`).
  std::map<std::string, PoolQuota, std::less<>> pools;
  std::optional<PoolQuota> any_pool = PoolQuota{};
  bool preempt_lower_priority = false;  // spec.preemption.withinQueue: LowerPriority.
  std::optional<int> min_runtime_seconds;
  // spec.namespaces: the only namespaces whose pods may use the queue ("*": any not bound to another
  // queue). Unset: only the namespaces labelled gangplank.io/queue=<this queue> (queue_access.h).
  std::optional<std::vector<std::string>> namespaces;
  std::optional<std::int32_t> max_priority;  // spec.maxPriority: the highest pod priority the queue takes.
  QueueFaultRecovery fault_recovery;
  QueueIdlePolicy idle;  // spec.idlePolicy: overrides of the pools' idle policy for this queue's gangs.

  // The queue's quota in a pool, or nullptr when it may not use that pool.
  const PoolQuota* QuotaIn(std::string_view pool) const {
    if (auto it = pools.find(pool); it != pools.end()) return &it->second;
    return any_pool ? &*any_pool : nullptr;
  }
};

// A pool's fault recovery for the gangs of a queue: the queue's policy and restart limit where it sets them.
PoolFaultRecovery FaultRecoveryFor(PoolFaultRecovery pool, const QueueConfig& queue);

// A top-level queue with the same quota in every pool, open to every namespace (what the extender's --queue
// flags give).
QueueConfig UniformQueue(std::string name, int guaranteed_gpus, std::optional<int> limit_gpus = std::nullopt);

// A Queue object (its JSON) as a QueueConfig. Defaults as the CRD declares them, so objects the API
// server did not default (or older ones) read the same. Throws DecodeError naming the field
// ("spec.pools[1].limitGPUs: expected a whole number of GPUs >= 0").
QueueConfig QueueConfigFromObject(const nlohmann::json& queue);

}  // namespace gangplank::cache
