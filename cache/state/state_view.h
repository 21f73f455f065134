// A consistent, read-only view of the cluster-state cache: the engine cluster (nodes with bound pods
// and reservations applied), pods by UID and by node, the GPU pool of each node, queue usage per pool
// and gang membership. Obtained only through ClusterState::Read, which holds a shared lock for the
// view's lifetime.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/cluster.h"
#include "engine/short_string_hash.h"
#include "cache/objects/kube_objects.h"
#include "cache/objects/queue_resolver.h"
#include "cache/state/node_index.h"
#include "cache/state/pod_index.h"
#include "cache/state/pod_placement.h"
#include "cache/state/pod_record.h"
#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"

namespace gangplank::cache {

// Hash that lets unordered_map<std::string, ...> be searched with a string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return engine::ShortStringHash(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

class StateView {
 public:
  StateView() = default;
  StateView(const StateView&) = delete;
  StateView& operator=(const StateView&) = delete;

  const engine::Cluster& cluster() const { return *cluster_; }
  // Engine node id of a node by name, or engine::kNoNode.
  engine::NodeId FindNode(std::string_view name) const;
  // FindNode for every name, faster than one by one (see NodeIndex::FindMany).
  std::vector<engine::NodeId> FindNodes(const std::vector<std::string_view>& names) const {
    return node_index_.FindMany(*cluster_, names);
  }
  const PodRecord* FindPod(std::string_view uid) const;
  // FindPod for many UIDs at once, overlapping their cache misses (see PodIndex::FindMany).
  std::vector<const PodRecord*> FindPods(const std::vector<std::string_view>& uids) const;
  // The same as compact ids (kNoPod where unknown), for callers that read Placement first.
  std::vector<PodId> FindPodIds(const std::vector<std::string_view>& uids) const { return pod_index_.FindMany(uids); }
  // A cached pod by its compact id (PodRecord::id, gang members).
  const PodRecord& Pod(PodId id) const { return *pod_by_id_[id]; }
  // Where a cached pod is held and its gang, without reading its record (PodPlacement::Of(Pod(id))).
  const PodPlacement& Placement(PodId id) const { return placement_by_id_[id]; }
  // UIDs of the pods holding capacity on a node (bound pods and reservations).
  const std::vector<std::string>& PodsOn(engine::NodeId node) const { return pods_on_node_.at(node); }
  // GPU milli held by reservations (planned, unbound pods) on a node.
  std::int64_t ReservedGpuMilli(engine::NodeId node) const { return reserved_gpu_milli_.at(node); }
  // GPUs fully taken by reservations on a node.
  int ReservedWholeGpus(engine::NodeId node) const { return reserved_whole_gpus_.at(node); }

  const QueueConfig* FindQueue(std::string_view name) const;
  // The queue a pod is charged to (QueueResolver): its gangplank.io/queue label, else its namespace's
  // label of that name (design: "default: its namespace's label"), else the default queue
  // (ClusterState::SetQueueRules); empty when none names one. This is the rule for a pod being placed;
  // QueueOf(PodRecord), what a cached pod pays, charges one gangplank does not govern to its namespace's
  // queue alone.
  std::string QueueOf(const PodInfo& pod) const;
  const QueueResolver& queue_resolver() const { return queue_resolver_; }
  // The queue label of a namespace, or "" when it has none or is unknown.
  std::string_view NamespaceQueue(std::string_view namespace_) const;
  // GPU milli held by the queue's pods (bound and reserved), in every pool and outside any.
  std::int64_t QueueUsageMilli(std::string_view queue) const;
  // The same in one pool (an index into pools(); -1 for nodes in no pool).
  std::int64_t QueueUsageMilli(std::string_view queue, int pool) const;

  // The GPU pools (ClusterState::SetPools) and the pool of each node: the one pool that selects it,
  // -1 when none does or when two do (an overlap the operator reports).
  const std::vector<PoolConfig>& pools() const { return pools_; }
  int PoolOf(engine::NodeId node) const { return node_pool_.at(node); }
  int FindPool(std::string_view name) const;
  // Ids of a gang's known pods ("namespace/gang"); a member's PodRecord::gang_members is the same list.
  const std::vector<PodId>& GangMembers(std::string_view gang) const;

  // Requests of up to `max` pods that hold capacity: the workload model fragmentation-aware policies
  // score against.
  std::vector<engine::PodRequest> HeldRequests(size_t max) const;

  // Changes whenever the engine cluster is rebuilt (node ids and versions start afresh), so anything
  // memoised per node id must be dropped.
  std::uint64_t generation() const { return generation_; }

  size_t node_count() const { return node_index_.size(); }
  size_t pod_count() const { return pods_.size(); }
  size_t reservation_count() const { return reservations_; }
  // Pods bound by AssumeBound that the informer has not confirmed yet.
  size_t assumed_count() const { return assumed_.size(); }
  // Pods that should hold capacity but do not (unknown node, bad request, node full in our books).
  size_t unaccounted_count() const { return unaccounted_; }

 private:
  friend class ClusterState;

  std::string QueueOf(const PodRecord& pod) const;  // The same for a cached pod.

  std::unique_ptr<engine::Cluster> cluster_ = std::make_unique<engine::Cluster>();
  NodeIndex node_index_;
  std::map<std::string, engine::NodeSpec> node_specs_;  // Master copy: the cluster is rebuilt from it.
  StringMap<PodRecord> pods_;  // Owns the records; node-based, so pointers to them stay valid.
  std::vector<PodRecord*> pod_by_id_;  // nullptr for free ids.
  std::vector<PodPlacement> placement_by_id_;  // Parallel to pod_by_id_; default for free ids.
  std::vector<PodId> free_pod_ids_;
  PodIndex pod_index_{pod_by_id_};
  std::set<std::string, std::less<>> assumed_;  // UIDs of the pods with an assumption.
  std::vector<std::vector<std::string>> pods_on_node_;
  std::vector<std::int64_t> reserved_gpu_milli_;
  std::vector<int> reserved_whole_gpus_;
  StringMap<std::vector<std::string>> waiting_for_node_;  // Node name -> pods bound/planned there.
  // Node name -> pods bound/planned there for which the books had no room: tried again when room frees
  // there (a pod bound where a victim's deletion has not reached the informer yet).
  StringMap<std::vector<std::string>> short_of_room_;
  StringMap<QueueConfig> queues_;
  // Per queue: GPU milli held per pool, indexed by pool + 1 (0: nodes in no pool).
  StringMap<std::vector<std::int64_t>> queue_usage_milli_;
  std::vector<PoolConfig> pools_;
  std::vector<int> node_pool_;  // Indexed by NodeId.
  QueueResolver queue_resolver_;
  StringMap<std::string> namespace_queues_;  // Namespace -> its gangplank.io/queue label (only labelled ones).
  StringMap<std::vector<PodId>> gangs_;
  std::uint64_t generation_ = 0;
  size_t reservations_ = 0;
  size_t unaccounted_ = 0;
};

}  // namespace gangplank::cache
