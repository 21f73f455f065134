// The cluster-state cache: nodes, pods (bound and planned) and queue configuration, kept as an engine
// Cluster with every bound pod and every planned pod's reservation applied. Many readers (one per
// HTTP request) read concurrently through Read(); writers (the informer handlers) take an exclusive
// lock for the duration of one update.
//
// The extender keeps one over the whole cluster. The operator keeps one per GPU pool, scoped
// (ClusterScope) to the pool's nodes and topology levels and to the pods holding capacity there, so
// each admission round plans on exactly that pool.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cache/objects/kube_objects.h"
#include "cache/state/state_view.h"

namespace gangplank::cache {

// An assumption that ran out (ClusterState::ExpireAssumed), for the caller's log and metrics.
struct ExpiredAssumption {
  std::string uid;
  std::string pod;   // namespace/name
  std::string node;  // Where it was assumed bound.
  bool informer_saw_pod = true;  // False: never reported by the informer, now forgotten.
};

struct ClusterScope {
  // The nodes this state holds; others are foreign: pods held there are not this state's (never
  // accounted, never counted as unaccounted). Empty: every node.
  std::function<bool(const engine::NodeSpec&)> selects_node;
  // Keep only pods that hold capacity (bound or planned) on this state's nodes.
  bool held_pods_only = false;
};

class ClusterState {
 public:
  // kube-scheduler's durationToExpireAssumedPod.
  static constexpr std::chrono::steady_clock::duration kDefaultAssumedPodTtl = std::chrono::minutes(15);

  // topology_keys: node label keys of the topology levels, widest first (engine::Topology).
  explicit ClusterState(std::vector<std::string> topology_keys = {}, ClusterScope scope = {});

  // Adds or updates a node. Throws DecodeError (state unchanged) when its allocatable is malformed.
  void UpsertNode(const NodeInfo& node);
  void DeleteNode(std::string_view name);
  // Adds or updates a pod. A pod whose resources cannot be understood is kept with no allocation and
  // its problem recorded (StateView::unaccounted_count), so one bad pod never blocks the cache.
  void UpsertPod(const PodInfo& pod);
  void DeletePod(std::string_view uid);
  // Records that a pod was just bound to `node` (the extender's bind verb created the Binding), before
  // the pod informer reports it: later filter calls must not hand out the capacity it now holds. True
  // when the pod is now held on `node` (also when it already was); false for an unknown, finished or
  // elsewhere-bound pod. Like kube-scheduler's assume cache: informer updates that still show the pod
  // unbound keep the assumption, the one showing the binding confirms it, and one never confirmed
  // expires after the TTL (ExpireAssumed).
  bool AssumeBound(std::string_view uid, std::string_view node);
  // The same for a pod the cache may not have seen yet (created and bound within the informer's lag):
  // `pod` is the binder's copy, cached with its binding assumed until the informer reports it.
  bool AssumeBound(const PodInfo& pod, std::string_view node);
  // How long an assumption may wait for the informer; zero or less: forever. Applies to later ones.
  void SetAssumedPodTtl(std::chrono::steady_clock::duration ttl);
  // Undoes the assumptions that expired by `now` and returns them: a pod the informer reported is back
  // to what it reported (unbound), one it never reported is forgotten. Takes no lock when none is held.
  std::vector<ExpiredAssumption> ExpireAssumed(std::chrono::steady_clock::time_point now);
  void SetQueues(std::vector<QueueConfig> queues);
  // The GPU pools: which pool each node belongs to, so queue usage is kept per pool.
  void SetPools(std::vector<PoolConfig> pools);
  // A namespace's gangplank.io/queue label ("" when it has none, or the namespace was deleted): the
  // queue of its pods that carry no queue label themselves. Pods already cached move to it.
  void SetNamespaceQueue(std::string_view namespace_, std::string_view queue);
  // Which queue a pod pays (QueueResolver: the default queue, gangplank's schedulers). Pods already
  // cached move to their queue under the new rules.
  void SetQueueRules(QueueResolver rules);

  // Ready once the informers have listed everything (the /readyz condition).
  void MarkSynced() { synced_.store(true, std::memory_order_release); }
  bool synced() const { return synced_.load(std::memory_order_acquire); }

  // Calls f(const StateView&) under a shared lock and returns its result.
  template <typename F>
  decltype(auto) Read(F&& f) const {
    { std::lock_guard gate(writer_gate_); }  // Wait behind a queued writer instead of starving it.
    std::shared_lock lock(mu_);
    return f(static_cast<const StateView&>(view_));
  }

  // Calls f(engine::Cluster&, const StateView&) under the exclusive lock, for planning on the cluster
  // as scratch (the engine's admission round). f must leave every node's free capacity as it found it
  // (the round restores what it tries); the cache's books assume so.
  template <typename F>
  decltype(auto) Plan(F&& f) {
    WriteLock lock(*this);
    return f(*view_.cluster_, static_cast<const StateView&>(view_));
  }

 private:
  // The exclusive lock, taken through the writer gate.
  class WriteLock {
   public:
    explicit WriteLock(const ClusterState& s) : gate_(s.writer_gate_), lock_(s.mu_) {}

   private:
    std::lock_guard<std::mutex> gate_;
    std::unique_lock<std::shared_mutex> lock_;
  };

  void AddNodeLocked(engine::NodeSpec spec);
  void UpsertPodLocked(PodRecord record);
  void Rebuild();
  int PoolIndexOf(const engine::NodeSpec& spec) const;
  bool StaysInPlace(engine::NodeId id, const engine::NodeSpec& known, const engine::NodeSpec& spec) const;
  void UpdateInPlace(engine::NodeId id, engine::NodeSpec& known, engine::NodeSpec spec);
  bool Foreign(std::string_view node) const;
  void DropForeignHolders();
  void AddUsage(const PodRecord& pod, std::int64_t sign);
  void ChargeQueue(PodRecord& pod, std::string queue);
  // Account and Unaccount are the only places a pod's allocation changes, and every change of its
  // binding is followed by one of them: they, AddPod and the gang-member changes end by refreshing
  // the pod's PodPlacement.
  void Account(PodRecord& pod);
  void Unaccount(PodRecord& pod);
  void Hold(PodRecord& pod);
  void Release(PodRecord& pod);
  // Accounts again the pods short of room on the nodes where a release freed some. Called at the end
  // of each write that can release, so a pod changing its holding is re-accounted before the others.
  void RetryShortOfRoom();
  void SyncPlacement(const PodRecord& pod) { view_.placement_by_id_[pod.id] = PodPlacement::Of(pod); }
  void AddGangMember(PodRecord& pod);
  void RemoveGangMember(PodRecord& pod);
  PodRecord& AddPod(PodRecord record);  // Gives it an id and indexes it.
  StringMap<PodRecord>::iterator ErasePod(StringMap<PodRecord>::iterator it);
  void CarryAssumption(const PodRecord& cached, PodRecord& incoming);
  bool AssumeLocked(PodRecord& pod, std::string_view node, bool informer_saw_pod);

  std::vector<std::string> topology_keys_;
  ClusterScope scope_;
  std::set<std::string, std::less<>> foreign_nodes_;
  // std::shared_mutex on glibc prefers readers: a steady stream of requests could hold an informer
  // update back indefinitely. A writer holds the gate while it waits, so new readers queue behind it.
  mutable std::mutex writer_gate_;
  mutable std::shared_mutex mu_;
  StateView view_;
  std::atomic<bool> synced_{false};
  std::chrono::steady_clock::duration assume_ttl_ = kDefaultAssumedPodTtl;
  std::atomic<size_t> assumed_count_{0};  // view_.assumed_.size(), readable without the lock.
  std::vector<std::string> freed_nodes_;  // Nodes a release freed room on, since the last RetryShortOfRoom.
};

}  // namespace gangplank::cache
