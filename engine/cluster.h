// The cluster model: nodes, their free capacity and topology. All accounting goes through Assign and
// Release, which refuse anything that would overcommit a node or a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/allocation.h"
#include "engine/node.h"
#include "engine/node_summary.h"
#include "engine/request.h"
#include "engine/topology.h"

namespace gangplank::engine {

class Cluster {
 public:
  explicit Cluster(std::vector<std::string> topology_keys = {});

  NodeId AddNode(NodeSpec spec);

  int size() const { return static_cast<int>(specs_.size()); }
  const NodeSpec& spec(NodeId node) const { return specs_.at(node); }
  const NodeState& state(NodeId node) const { return states_.at(node); }
  // The node in one cache line, exact after every change (node_summary.h). Unchecked: hot paths call it
  // for ids they got from the cluster.
  const NodeSummary& summary(NodeId node) const { return summaries_[static_cast<size_t>(node)]; }
  const Topology& topology() const { return topology_; }
  // Bumped on every change to a node's free capacity or cordon; lets policies cache per-node work.
  std::uint64_t version(NodeId node) const { return summaries_.at(static_cast<size_t>(node)).version; }
  // Bumped on every change to any node's free capacity (and on AddNode); lets policies cache cluster-wide work.
  std::uint64_t change_count() const { return change_count_; }
  // Node id by name, or kNoNode.
  NodeId Find(const std::string& name) const;
  // A small id per distinct GPU model name of the nodes ("" included), or -1 for a model no node has.
  std::int32_t ModelId(std::string_view model) const;
  int model_count() const { return static_cast<int>(models_.size()); }
  // Nodes of one shape (GPU model, GPU count, allocatable CPU and memory) share a shape id
  // (NodeSummary::shape_id); the free GPU milli of each shape's nodes together is kept as they change,
  // so policies that weigh whole kinds of node need not visit every node.
  int shape_count() const { return static_cast<int>(shape_free_gpu_milli_.size()); }
  std::int64_t shape_free_gpu_milli(int shape) const { return shape_free_gpu_milli_.at(static_cast<size_t>(shape)); }

  void SetUnschedulable(NodeId node, bool unschedulable);
  void SetTaints(NodeId node, std::vector<Taint> taints);
  // New labels that keep the node in its topology domains (Topology::SamePath); a node that moves
  // domains needs a cluster built afresh, so that throws std::logic_error.
  void SetLabels(NodeId node, std::map<std::string, std::string> labels);

  // Static eligibility: GPU model, node selector, taints (NoSchedule/NoExecute), cordon.
  bool Eligible(NodeId node, const PodRequest& request) const;
  // Free CPU, memory and enough GPU capacity right now (ignores eligibility).
  bool HasCapacity(NodeId node, const PodRequest& request) const;
  bool Fits(NodeId node, const PodRequest& request) const {
    return Eligible(node, request) && HasCapacity(node, request);
  }

  // Why `allocation` cannot be applied (empty when it can): unknown node, repeated GPUs, overcommit.
  std::string CheckAssign(const Allocation& allocation) const;
  // Applies an allocation; throws std::logic_error instead of overcommitting anything.
  void Assign(const Allocation& allocation);
  // Returns an allocation's resources; throws std::logic_error if they were not held.
  void Release(const Allocation& allocation);

  std::int64_t total_gpu_milli() const { return total_gpu_milli_; }
  std::int64_t allocated_gpu_milli() const { return allocated_gpu_milli_; }
  int total_gpus() const { return static_cast<int>(total_gpu_milli_ / kMilliPerGpu); }

 private:
  std::int32_t ShapeOf(const NodeSpec& spec, std::int32_t model_id);  // Adds the shape when new.
  void Changed(NodeId node);  // Bumps the node's version and the change count, refreshes its summary.

  std::vector<NodeSpec> specs_;
  std::vector<NodeState> states_;
  std::vector<NodeSummary> summaries_;
  std::vector<std::string> models_;  // By model id.
  std::vector<std::int64_t> shape_free_gpu_milli_;  // By shape id.
  std::map<std::tuple<std::int32_t, int, std::int64_t, std::int64_t>, std::int32_t> shape_ids_;
  std::uint64_t change_count_ = 0;
  Topology topology_;
  std::int64_t total_gpu_milli_ = 0;
  std::int64_t allocated_gpu_milli_ = 0;
};

// Whether a node in `state` has the free CPU, memory and GPU capacity for the request (what
// Cluster::HasCapacity asks of a real node; also used on what-if copies of a node's state).
bool CapacityFits(const NodeState& state, const PodRequest& request);

// GPUs a pod would get on a node by the default rule: the lowest-indexed fully free GPUs for whole-GPU
// pods, the fullest GPU that still fits for a sharing pod (best fit). Empty when none fit.
std::vector<int> DefaultGpuChoice(const NodeState& state, const PodRequest& request);

// The allocation of `request` on `node` with the given GPUs.
Allocation MakeAllocation(NodeId node, const PodRequest& request, std::vector<int> gpus);

}  // namespace gangplank::engine
