#include "cache/crd/pool_config.h"

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

namespace jf = json_fields;

PoolAdmission AdmissionOf(const nlohmann::json* spec) {
  const nlohmann::json* a = jf::Member(spec, "spec", "admission");
  const std::string at = "spec.admission";
  PoolAdmission out;
  out.gang_timeout_seconds = jf::NonNegativeInt(a, at, "gangTimeoutSeconds").value_or(out.gang_timeout_seconds);
  out.start_timeout_seconds = jf::NonNegativeInt(a, at, "startTimeoutSeconds").value_or(out.start_timeout_seconds);
  out.reserve_after_seconds = jf::NonNegativeInt(a, at, "reserveAfterSeconds").value_or(out.reserve_after_seconds);
  return out;
}

PoolPreemption PreemptionOf(const nlohmann::json* spec) {
  const nlohmann::json* p = jf::Member(spec, "spec", "preemption");
  const std::string at = "spec.preemption";
  PoolPreemption out;
  out.reclaim = jf::Bool(p, at, "reclaim").value_or(out.reclaim);
  out.min_wait_seconds = jf::NonNegativeInt(p, at, "minWaitSeconds").value_or(out.min_wait_seconds);
  out.min_runtime_seconds = jf::NonNegativeInt(p, at, "minRuntimeSeconds").value_or(out.min_runtime_seconds);
  out.max_gangs_per_hour = jf::NonNegativeInt(p, at, "maxGangsPerHour").value_or(out.max_gangs_per_hour);
  out.max_lost_gpu_hours = jf::NonNegativeNumber(p, at, "maxLostGPUHours").value_or(out.max_lost_gpu_hours);
  return out;
}

PoolSpot SpotOf(const nlohmann::json* spec) {
  const nlohmann::json* s = jf::Member(spec, "spec", "spot");
  const std::string at = "spec.spot";
  PoolSpot out;
  out.node_selector = jf::StringMap(s, at, "nodeSelector").value_or(out.node_selector);
  const std::string policy = jf::String(s, at, "reclaimPolicy").value_or("CheckpointThenEvict");
  if (policy != "CheckpointThenEvict" && policy != "Evict") {
    throw DecodeError(at + ".reclaimPolicy", "expected CheckpointThenEvict or Evict, got '" + policy + "'");
  }
  out.checkpoint_then_evict = policy == "CheckpointThenEvict";
  out.checkpoint_grace_seconds = jf::NonNegativeInt(s, at, "checkpointGraceSeconds").value_or(out.checkpoint_grace_seconds);
  out.avoid_spot_on_requeue = jf::Bool(s, at, "avoidSpotOnRequeue").value_or(out.avoid_spot_on_requeue);
  return out;
}

}  // namespace

const std::vector<std::string>& DefaultTopologyLevels() {
  static const std::vector<std::string> levels{"topology.kubernetes.io/zone", "nvidia.com/gpu.clique",
                                               "kubernetes.io/hostname"};
  return levels;
}

bool PoolConfig::Selects(const engine::NodeSpec& node) const {
  if (node_selector.empty() && node.gpu_count <= 0) return false;
  for (const auto& [key, value] : node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  return gpu_model.empty() || node.gpu_model == gpu_model;
}

std::vector<int> PoolsSelecting(const std::vector<PoolConfig>& pools, const engine::NodeSpec& node) {
  std::vector<int> out;
  for (size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].Selects(node)) out.push_back(static_cast<int>(i));
  }
  return out;
}

// Asked for every node a pool's state sees, so it stops at the second selecting pool and allocates nothing.
int OwningPool(const std::vector<PoolConfig>& pools, const engine::NodeSpec& node) {
  int owner = -1;
  for (size_t i = 0; i < pools.size(); ++i) {
    if (!pools[i].Selects(node)) continue;
    if (owner >= 0) return -1;
    owner = static_cast<int>(i);
  }
  return owner;
}

bool PoolConfig::MarksSpot(const engine::NodeSpec& node) const {
  if (!Selects(node)) return false;
  if (spot) return true;
  if (spot_handling.node_selector.empty()) return false;
  for (const auto& [key, value] : spot_handling.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  return true;
}

PoolConfig PoolConfigFromObject(const nlohmann::json& pool) {
  if (!pool.is_object()) throw DecodeError("", "GPUPool is not a JSON object");
  PoolConfig c;
  const nlohmann::json* meta = jf::Member(&pool, "", "metadata");
  c.name = jf::String(meta, "metadata", "name").value_or("");
  if (c.name.empty()) throw DecodeError("metadata.name", "missing");
  if (const nlohmann::json* g = jf::Member(meta, "metadata", "generation"); g != nullptr && g->is_number_integer()) {
    c.generation = g->get<std::int64_t>();
  }
  const nlohmann::json* spec = jf::Member(&pool, "", "spec");
  c.node_selector = jf::StringMap(spec, "spec", "nodeSelector").value_or(c.node_selector);
  c.gpu_model = jf::String(spec, "spec", "gpuModel").value_or("");
  const std::string capacity = jf::String(spec, "spec", "capacityType").value_or("OnDemand");
  if (capacity != "OnDemand" && capacity != "Spot") {
    throw DecodeError("spec.capacityType", "expected OnDemand or Spot, got '" + capacity + "'");
  }
  c.spot = capacity == "Spot";
  c.topology_levels = jf::StringList(spec, "spec", "topologyLevels").value_or(DefaultTopologyLevels());
  for (size_t i = 0; i < c.topology_levels.size(); ++i) {
    if (c.topology_levels[i].empty()) throw DecodeError("spec.topologyLevels[" + std::to_string(i) + "]", "empty label key");
    for (size_t j = 0; j < i; ++j) {
      if (c.topology_levels[j] == c.topology_levels[i]) {
        throw DecodeError("spec.topologyLevels[" + std::to_string(i) + "]", "level " + c.topology_levels[i] + " is listed twice");
      }
    }
  }
  c.admission = AdmissionOf(spec);
  c.preemption = PreemptionOf(spec);
  c.spot_handling = SpotOf(spec);
  return c;
}

}  // namespace gangplank::cache
