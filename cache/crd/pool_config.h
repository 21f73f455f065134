// A GPU pool (crds/gpupool.gangplank.io.yaml) as gangplank reads it: which nodes belong to it, their
// topology levels, and the pool's admission, preemption and spot knobs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/node.h"

namespace gangplank::cache {

struct PoolAdmission {
  int gang_timeout_seconds = 0;     // 0: never.
  int start_timeout_seconds = 600;  // 0: never.
  int reserve_after_seconds = 1800; // 0: never.
};

struct PoolPreemption {
  bool reclaim = true;
  int min_wait_seconds = 300;
  int min_runtime_seconds = 600;
  int max_gangs_per_hour = 10;
  double max_lost_gpu_hours = 8;
};

struct PoolSpot {
  std::map<std::string, std::string> node_selector;  // Extra labels that mark a node as spot.
  bool checkpoint_then_evict = true;                  // reclaimPolicy CheckpointThenEvict (else Evict).
  int checkpoint_grace_seconds = 90;
  bool avoid_spot_on_requeue = true;
};

struct PoolConfig {
  std::string name;
  std::int64_t generation = 0;
  std::map<std::string, std::string> node_selector;  // Empty: every node with GPUs.
  std::string gpu_model;                              // Empty: any model.
  bool spot = false;                                  // capacityType Spot.
  std::vector<std::string> topology_levels;           // Label keys, widest first.
  PoolAdmission admission;
  PoolPreemption preemption;
  PoolSpot spot_handling;

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

// The CRD's default topology levels (zone, NVLink clique, node).
const std::vector<std::string>& DefaultTopologyLevels();

// A GPUPool object (its JSON) as a PoolConfig, with the CRD's defaults for absent fields. Throws
// DecodeError naming the field.
PoolConfig PoolConfigFromObject(const nlohmann::json& pool);

}  // namespace gangplank::cache
