// One cache line per node with what most fit decisions need: the extender's filter and prioritize look
// at hundreds of scattered nodes per call, and a node's spec, state and per-GPU array are three or more
// cache misses where this is one. Cluster keeps every node's summary exact on each change (AddNode,
// Assign, Release, SetUnschedulable); FitCheck (fit_check.h) decides from it.
#pragma once

#include <cstdint>

#include "engine/node.h"

namespace gangplank::engine {

struct alignas(64) NodeSummary {
  std::uint64_t name_hash = 0;  // ShortStringHash of the node's name (short_string_hash.h).
  std::uint64_t version = 0;    // Cluster::version(node).
  std::int64_t free_cpu_milli = 0;
  std::int64_t free_memory_mib = 0;
  std::int32_t model_id = 0;           // Cluster::ModelId of the node's GPU model ("" has one too).
  std::int32_t free_gpu_milli = 0;     // Summed over the node's GPUs.
  std::int32_t fully_free_gpus = 0;    // GPUs with all kMilliPerGpu free.
  std::int32_t largest_free_share = 0; // The most milli free on any one GPU (0 without GPUs).
  std::int32_t shape_id = 0;           // Cluster::ShapeOf: nodes of one GPU model, GPU count, CPU and memory.
  std::int32_t gpu_count = 0;          // NodeSpec::gpu_count.
  bool unschedulable = false;          // Cordoned.
  bool blocking_taints = false;        // Has a NoSchedule or NoExecute taint: eligibility needs the spec.
};
static_assert(sizeof(NodeSummary) == 64, "one cache line per node");

// The summary of a node in `state`; name hash, model, shape and version are carried over from `ids`.
NodeSummary Summarize(const NodeSpec& spec, const NodeState& state, const NodeSummary& ids);

}  // namespace gangplank::engine
