// A GPU pool (crds/gpupool.gangplank.io.yaml) as gangplank reads it: which nodes belong to it, their
// topology levels, and the pool's admission, preemption, spot, fault-recovery, idle-GPU, fair-share and
// autoscaling knobs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cache/crd/pool_autoscaling.h"
#include "cache/crd/pool_utilization.h"
#include "cache/objects/node_fault.h"
#include "engine/node.h"

namespace gangplank::cache {

// spec.admission.runtimePrediction: each gang's runtime predicted from the gangs like it that ended
// (engine/prediction/runtime_predictor.h); a gang may start on reserved nodes on the backfill quantile
// of its prediction, and is asked to checkpoint and ended whole if it overstays.
struct PoolRuntimePrediction {
  bool enabled = false;
  double backfill_quantile = 0.9;
  int min_samples = 5;   // Ended gangs a key needs before it predicts.
  int window = 32;       // Latest runtimes kept per key (and in status.runtimes).
  int checkpoint_grace_seconds = 120;  // Asked to checkpoint this long before an overstaying gang ends.
  bool operator==(const PoolRuntimePrediction&) const = default;
};

struct PoolAdmission {
  int gang_timeout_seconds = 0;     // 0: never.
  int start_timeout_seconds = 600;  // 0: never.
  int reserve_after_seconds = 1800; // 0: never.
  PoolRuntimePrediction prediction;
};

// spec.preemption.consolidation: one-pod gangs moved (evicted, recreated by their controllers) into free
// GPUs elsewhere so that a waiting gang of a queue below its fair share gets whole nodes.
struct PoolConsolidation {
  bool enabled = false;
  double max_gpus = 4;            // Largest gang moved.
  double max_lost_gpu_hours = 2;  // Work a moved gang may lose (since its last checkpoint).
  bool operator==(const PoolConsolidation&) const = default;
};

struct PoolPreemption {
  bool reclaim = true;
  int min_wait_seconds = 300;
  int min_runtime_seconds = 600;
  int max_gangs_per_hour = 10;
  double max_lost_gpu_hours = 8;
  PoolConsolidation consolidation;
};

struct PoolSpot {
  std::map<std::string, std::string> node_selector;  // Extra labels that mark a node as spot.
  bool checkpoint_then_evict = true;                  // reclaimPolicy CheckpointThenEvict (else Evict).
  int checkpoint_grace_seconds = 90;
  bool avoid_spot_on_requeue = true;
};

// What happens to a running gang when a member or a node of it fails (spec.faultRecovery.policy; a Queue
// may override it).
enum class FaultPolicy { kRestartGang, kFailGang, kIgnore };
std::string_view FaultPolicyName(FaultPolicy policy);  // "RestartGang", "FailGang", "Ignore"
// The policy of that name; throws DecodeError naming `field` for anything but RestartGang, FailGang, Ignore.
FaultPolicy FaultPolicyNamed(std::string_view name, const std::string& field);

struct PoolFaultRecovery {
  FaultPolicy policy = FaultPolicy::kRestartGang;
  int restart_limit = 3;  // Restarts of one gang before it is failed.
  // The first restart comes as soon as the fault counts; restart n (1, 2, ...) waits
  // min(backoff_seconds * 2^(n-1), max_backoff_seconds) after the one before (engine::RestartBackoff): the
  // cap holds for the first wait too, so a cap below backoff_seconds is no contradiction.
  int backoff_seconds = 30;
  int max_backoff_seconds = 600;
  int node_grace_seconds = 60;             // A node fault counts once it lasted this long.
  int below_minimum_grace_seconds = 300;  // A running gang below its minimum members this long restarts.
  int checkpoint_grace_seconds = 120;     // Deadline of the checkpoint asked for before a restart (0: none).
  bool replace_members = false;           // A recreated member joins its running gang instead of a restart.
  NodeFaultRules node_faults;             // unhealthyConditions and quarantineTaints.
  bool operator==(const PoolFaultRecovery&) const = default;
};

struct PoolConfig {
  std::string name;
  std::int64_t generation = 0;
  std::map<std::string, std::string> node_selector;  // Empty: every node with GPUs.
  std::string gpu_model;                              // Empty: any model.
  std::vector<std::string> device_classes;            // DRA classes of its GPUs; empty: the defaults.
  bool spot = false;                                  // capacityType Spot.
  std::vector<std::string> topology_levels;           // Label keys, widest first.
  PoolAdmission admission;
  PoolPreemption preemption;
  PoolSpot spot_handling;
  PoolFaultRecovery fault_recovery;
  PoolUtilization utilization;
  IdlePolicyConfig idle;
  PoolFairShare fair_share;
  PoolAutoscaling autoscaling;

  // Whether a node belongs to the pool by its labels and GPUs (overlaps between pools are the
  // caller's to resolve).
  bool Selects(const engine::NodeSpec& node) const;
  // Whether a node the pool selects is spot capacity by the pool's word: the pool is capacityType Spot,
  // or the node has every label of spec.spot.nodeSelector.
  bool MarksSpot(const engine::NodeSpec& node) const;
};

// Indices of the pools that select a node, in order.
std::vector<int> PoolsSelecting(const std::vector<PoolConfig>& pools, const engine::NodeSpec& node);
// The pool that owns a node: the one pool that selects it. A node two pools select belongs to neither
// (-1, as when none selects it), so no GPU is ever counted in two pools.
int OwningPool(const std::vector<PoolConfig>& pools, const engine::NodeSpec& node);
// Whether two versions of a node (a relabel) are in the same pools and, in each, the same topology
// domains: then the relabel changes no pool's membership, health or placement.
bool SamePlaceInPools(const std::vector<PoolConfig>& pools, const engine::NodeSpec& a, const engine::NodeSpec& b);

// The CRD's default topology levels (zone, NVLink clique, node).
const std::vector<std::string>& DefaultTopologyLevels();

// A GPUPool object (its JSON) as a PoolConfig, with the CRD's defaults for absent fields. Throws
// DecodeError naming the field.
PoolConfig PoolConfigFromObject(const nlohmann::json& pool);

}  // namespace gangplank::cache
