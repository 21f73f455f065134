#include "cache/crd/queue_config.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

namespace jf = json_fields;

PoolQuota QuotaOf(const nlohmann::json& entry, const std::string& at) {
  PoolQuota q;
  q.guaranteed_gpus = jf::NonNegativeInt(&entry, at, "guaranteedGPUs").value_or(0);
  q.limit_gpus = jf::NonNegativeInt(&entry, at, "limitGPUs");
  if (q.limit_gpus && *q.limit_gpus < q.guaranteed_gpus) {
    throw DecodeError(at, "limitGPUs must not be below guaranteedGPUs");
  }
  return q;
}

QueueFaultRecovery FaultRecoveryOf(const nlohmann::json* spec) {
  const nlohmann::json* r = jf::Member(spec, "spec", "faultRecovery");
  const std::string at = "spec.faultRecovery";
  QueueFaultRecovery out;
  if (const auto policy = jf::String(r, at, "policy")) out.policy = FaultPolicyNamed(*policy, at + ".policy");
  out.restart_limit = jf::NonNegativeInt(r, at, "restartLimit");
  return out;
}

}  // namespace

PoolFaultRecovery FaultRecoveryFor(PoolFaultRecovery pool, const QueueConfig& queue) {
  pool.policy = queue.fault_recovery.policy.value_or(pool.policy);
  pool.restart_limit = queue.fault_recovery.restart_limit.value_or(pool.restart_limit);
  return pool;
}

QueueConfig UniformQueue(std::string name, int guaranteed_gpus, std::optional<int> limit_gpus) {
  QueueConfig q;
  q.name = std::move(name);
  q.any_pool = PoolQuota{guaranteed_gpus, limit_gpus};
  // Open to every namespace: a --queue flag has no namespace list, and the one who sets the flag is the
  // admin (a Queue object without spec.namespaces is closed instead, queue_access.h).
  q.namespaces = std::vector<std::string>{std::string(kAnyNamespace)};
  return q;
}

QueueConfig QueueConfigFromObject(const nlohmann::json& queue) {
  if (!queue.is_object()) throw DecodeError("", "Queue is not a JSON object");
  QueueConfig c;
  const nlohmann::json* meta = jf::Member(&queue, "", "metadata");
  c.name = jf::String(meta, "metadata", "name").value_or("");
  if (c.name.empty()) throw DecodeError("metadata.name", "missing");
  const nlohmann::json* spec = jf::Member(&queue, "", "spec");
  c.parent = jf::String(spec, "spec", "parent").value_or("");
  if (c.parent == c.name) throw DecodeError("spec.parent", "a queue cannot be its own parent");
  c.weight = jf::NonNegativeNumber(spec, "spec", "weight").value_or(1.0);
  if (const nlohmann::json* pools = jf::Member(spec, "spec", "pools")) {
    if (!pools->is_array()) throw DecodeError("spec.pools", "expected a list");
    for (size_t i = 0; i < pools->size(); ++i) {
      const std::string at = "spec.pools[" + std::to_string(i) + "]";
      const nlohmann::json& entry = (*pools)[i];
      const std::string name = jf::String(&entry, at, "name").value_or("");
      if (name.empty()) throw DecodeError(at + ".name", "missing");
      if (!c.pools.emplace(name, QuotaOf(entry, at)).second) throw DecodeError(at + ".name", "pool " + name + " is listed twice");
    }
    if (!c.pools.empty()) c.any_pool.reset();
  }
  const nlohmann::json* preemption = jf::Member(spec, "spec", "preemption");
  const std::string within = jf::String(preemption, "spec.preemption", "withinQueue").value_or("Never");
  if (within != "Never" && within != "LowerPriority") {
    throw DecodeError("spec.preemption.withinQueue", "expected Never or LowerPriority, got '" + within + "'");
  }
  c.preempt_lower_priority = within == "LowerPriority";
  c.min_runtime_seconds = jf::NonNegativeInt(preemption, "spec.preemption", "minRuntimeSeconds");
  c.namespaces = jf::StringList(spec, "spec", "namespaces");
  if (const nlohmann::json* max = jf::Member(spec, "spec", "maxPriority")) {
    if (!max->is_number_integer() || max->get<std::int64_t>() < INT32_MIN || max->get<std::int64_t>() > INT32_MAX) {
      throw DecodeError("spec.maxPriority", "expected a whole number (a pod priority, 32 bits)");
    }
    c.max_priority = static_cast<std::int32_t>(max->get<std::int64_t>());
  }
  c.fault_recovery = FaultRecoveryOf(spec);
  c.idle = QueueIdlePolicyOf(queue);
  return c;
}

}  // namespace gangplank::cache
