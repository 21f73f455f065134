#include "cache/crd/pool_config.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

namespace jf = json_fields;

PoolRuntimePrediction PredictionOf(const nlohmann::json* admission) {
  const nlohmann::json* p = jf::Member(admission, "spec.admission", "runtimePrediction");
  const std::string at = "spec.admission.runtimePrediction";
  PoolRuntimePrediction out;
  out.enabled = jf::Bool(p, at, "enabled").value_or(out.enabled);
  out.backfill_quantile = jf::NonNegativeNumber(p, at, "backfillQuantile").value_or(out.backfill_quantile);
  if (out.backfill_quantile < 0.5 || out.backfill_quantile > 0.999) {
    throw DecodeError(at + ".backfillQuantile", "expected a quantile from 0.5 to 0.999");
  }
  out.min_samples = jf::NonNegativeInt(p, at, "minSamples", 1000).value_or(out.min_samples);
  if (out.min_samples < 1) throw DecodeError(at + ".minSamples", "expected at least 1");
  out.window = jf::NonNegativeInt(p, at, "window", 256).value_or(out.window);
  if (out.window < out.min_samples) throw DecodeError(at + ".window", "must be at least minSamples");
  out.checkpoint_grace_seconds =
      jf::NonNegativeInt(p, at, "checkpointGraceSeconds").value_or(out.checkpoint_grace_seconds);
  return out;
}

PoolAdmission AdmissionOf(const nlohmann::json* spec) {
  const nlohmann::json* a = jf::Member(spec, "spec", "admission");
  const std::string at = "spec.admission";
  PoolAdmission out;
  out.gang_timeout_seconds = jf::NonNegativeInt(a, at, "gangTimeoutSeconds").value_or(out.gang_timeout_seconds);
  out.start_timeout_seconds = jf::NonNegativeInt(a, at, "startTimeoutSeconds").value_or(out.start_timeout_seconds);
  out.reserve_after_seconds = jf::NonNegativeInt(a, at, "reserveAfterSeconds").value_or(out.reserve_after_seconds);
  out.prediction = PredictionOf(a);
  return out;
}

PoolConsolidation ConsolidationOf(const nlohmann::json* preemption) {
  const nlohmann::json* c = jf::Member(preemption, "spec.preemption", "consolidation");
  const std::string at = "spec.preemption.consolidation";
  PoolConsolidation out;
  out.enabled = jf::Bool(c, at, "enabled").value_or(out.enabled);
  out.max_gpus = jf::NonNegativeNumber(c, at, "maxGPUs").value_or(out.max_gpus);
  out.max_lost_gpu_hours = jf::NonNegativeNumber(c, at, "maxLostGPUHours").value_or(out.max_lost_gpu_hours);
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
  out.consolidation = ConsolidationOf(p);
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

// Refuses an item a list already has, as the CRD's x-kubernetes-list-type: set does.
template <class It, class T>
void RefuseRepeat(It first, It last, const T& item, const std::string& field, const std::string& what) {
  if (std::find(first, last, item) != last) throw DecodeError(field, what + " is listed twice");
}

std::string Item(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

std::vector<UnhealthyCondition> UnhealthyConditionsOf(const nlohmann::json* recovery, const std::string& at) {
  const auto entries = jf::StringList(recovery, at, "unhealthyConditions");
  if (!entries) return DefaultUnhealthyConditions();
  std::vector<UnhealthyCondition> out;
  for (size_t i = 0; i < entries->size(); ++i) {
    const std::string field = Item(at + ".unhealthyConditions", i);
    const auto rule = ParseUnhealthyCondition((*entries)[i]);
    if (!rule) {
      throw DecodeError(field, "'" + (*entries)[i] +
                                   "' is not a condition type (e.g. KernelDeadlock) or type=status (e.g. "
                                   "AcceleratedHardwareReady=False)");
    }
    RefuseRepeat(out.begin(), out.end(), *rule, field, "condition " + rule->type + "=" + rule->status);
    out.push_back(*rule);
  }
  return out;
}

std::vector<std::string> QuarantineTaintsOf(const nlohmann::json* recovery, const std::string& at) {
  const auto keys = jf::StringList(recovery, at, "quarantineTaints");
  if (!keys) return DefaultQuarantineTaints();
  std::vector<std::string> out;
  for (size_t i = 0; i < keys->size(); ++i) {
    const std::string field = Item(at + ".quarantineTaints", i);
    const std::string& key = (*keys)[i];
    if (!IsQualifiedName(key)) throw DecodeError(field, "'" + key + "' is not a taint key (e.g. nvidia.com/gpu-xid-error)");
    RefuseRepeat(out.begin(), out.end(), key, field, "taint " + key);
    out.push_back(key);
  }
  return out;
}

// A whole number >= 1 (a backoff of 0 would restart a crashing gang in a tight loop).
int PositiveInt(const nlohmann::json* object, const std::string& at, const char* key, int fallback) {
  const int v = jf::NonNegativeInt(object, at, key).value_or(fallback);
  if (v < 1) throw DecodeError(jf::Path(at, key), "expected a whole number from 1 to 1000000000");
  return v;
}

PoolFaultRecovery FaultRecoveryOf(const nlohmann::json* spec) {
  const nlohmann::json* r = jf::Member(spec, "spec", "faultRecovery");
  const std::string at = "spec.faultRecovery";
  PoolFaultRecovery out;
  out.policy = FaultPolicyNamed(jf::String(r, at, "policy").value_or("RestartGang"), at + ".policy");
  out.restart_limit = jf::NonNegativeInt(r, at, "restartLimit").value_or(out.restart_limit);
  out.backoff_seconds = PositiveInt(r, at, "backoffSeconds", out.backoff_seconds);
  out.max_backoff_seconds = PositiveInt(r, at, "maxBackoffSeconds", out.max_backoff_seconds);
  out.node_grace_seconds = jf::NonNegativeInt(r, at, "nodeGraceSeconds").value_or(out.node_grace_seconds);
  out.below_minimum_grace_seconds = jf::NonNegativeInt(r, at, "belowMinimumGraceSeconds").value_or(out.below_minimum_grace_seconds);
  out.checkpoint_grace_seconds = jf::NonNegativeInt(r, at, "checkpointGraceSeconds").value_or(out.checkpoint_grace_seconds);
  out.replace_members = jf::Bool(r, at, "replaceMembers").value_or(out.replace_members);
  out.node_faults.unhealthy_conditions = UnhealthyConditionsOf(r, at);
  out.node_faults.quarantine_taints = QuarantineTaintsOf(r, at);
  return out;
}

}  // namespace

std::string_view FaultPolicyName(FaultPolicy policy) {
  switch (policy) {
    case FaultPolicy::kRestartGang: return "RestartGang";
    case FaultPolicy::kFailGang: return "FailGang";
    case FaultPolicy::kIgnore: return "Ignore";
  }
  return "RestartGang";
}

FaultPolicy FaultPolicyNamed(std::string_view name, const std::string& field) {
  for (FaultPolicy p : {FaultPolicy::kRestartGang, FaultPolicy::kFailGang, FaultPolicy::kIgnore}) {
    if (FaultPolicyName(p) == name) return p;
  }
  throw DecodeError(field, "expected RestartGang, FailGang or Ignore, got '" + std::string(name) + "'");
}

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

bool SamePlaceInPools(const std::vector<PoolConfig>& pools, const engine::NodeSpec& a, const engine::NodeSpec& b) {
  const std::vector<int> selecting = PoolsSelecting(pools, a);
  if (selecting != PoolsSelecting(pools, b)) return false;
  auto value = [](const engine::NodeSpec& node, const std::string& key) -> const std::string* {
    auto it = node.labels.find(key);
    return it == node.labels.end() ? nullptr : &it->second;
  };
  for (int i : selecting) {
    for (const std::string& key : pools[i].topology_levels) {
      const std::string* x = value(a, key);
      const std::string* y = value(b, key);
      if ((x == nullptr) != (y == nullptr) || (x != nullptr && *x != *y)) return false;
    }
  }
  return true;
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
  c.device_classes = jf::StringList(spec, "spec", "deviceClasses").value_or(std::vector<std::string>{});
  const std::string capacity = jf::String(spec, "spec", "capacityType").value_or("OnDemand");
  if (capacity != "OnDemand" && capacity != "Spot") {
    throw DecodeError("spec.capacityType", "expected OnDemand or Spot, got '" + capacity + "'");
  }
  c.spot = capacity == "Spot";
  c.topology_levels = jf::StringList(spec, "spec", "topologyLevels").value_or(DefaultTopologyLevels());
  for (size_t i = 0; i < c.topology_levels.size(); ++i) {
    const std::string field = Item("spec.topologyLevels", i);
    if (c.topology_levels[i].empty()) throw DecodeError(field, "empty label key");
    const auto level = c.topology_levels.begin() + static_cast<std::ptrdiff_t>(i);
    RefuseRepeat(c.topology_levels.begin(), level, *level, field, "level " + *level);
  }
  c.admission = AdmissionOf(spec);
  c.preemption = PreemptionOf(spec);
  c.spot_handling = SpotOf(spec);
  c.fault_recovery = FaultRecoveryOf(spec);
  c.utilization = PoolUtilizationOf(pool);
  c.idle = PoolIdlePolicyOf(pool);
  c.fair_share = PoolFairShareOf(pool);
  c.autoscaling = PoolAutoscalingOf(pool, c.topology_levels);
  return c;
}

}  // namespace gangplank::cache
