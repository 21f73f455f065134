// Keeps ClusterStates current from the shared informers: nodes, pods, namespaces (their
// gangplank.io/queue label is the default queue of their pods), Queue resources (merged over queues
// given by flags), GPUPools (which pool each node is in), and Dynamic Resource Allocation's
// ResourceSlices, DeviceClasses, ResourceClaims and ResourceClaimTemplates (the GPUs nodes offer and pods
// ask through claims: dra::GpuInventory), where the API server serves resource.k8s.io/v1. The extender attaches its one state; the
// operator attaches one per pool and detaches it when the pool goes. Events are applied to every
// attached state in order, under one lock, so a state attached late is filled from the informers'
// caches without missing or reordering anything.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"
#include "cache/dra/gpu_inventory.h"
#include "cache/feed/shared_informers.h"
#include "cache/objects/plan_seal.h"
#include "cache/state/cluster_state.h"

namespace gangplank::cache {

class ClusterStateFeed {
 public:
  // Registers handlers on `informers` (call before informers.Start()). `static_queues` come from flags;
  // a Queue resource of the same name wins.
  // With a `seal`, pods' plans that do not carry a valid seal are dropped as they are read.
  ClusterStateFeed(SharedInformers& informers, std::vector<QueueConfig> static_queues = {},
                   std::shared_ptr<const PlanSeal> seal = nullptr);
  // Stops the shared informers first: their handlers call into the feed.
  ~ClusterStateFeed();
  ClusterStateFeed(const ClusterStateFeed&) = delete;
  ClusterStateFeed& operator=(const ClusterStateFeed&) = delete;

  // Fills `state` from the informers' caches and keeps it current; marks it synced once the core
  // informers have synced. The state must outlive its attachment.
  void Attach(ClusterState* state);
  void Detach(ClusterState* state);

  // Starts the watcher that marks attached states synced (after informers.Start()): once the core
  // informers have synced and, where resource.k8s.io/v1 is served, the DRA ones too.
  void Start();
  void Stop();
  bool synced() const { return synced_.load(); }

  // The DRA inventory every conversion of a pod or node reads (ToPodInfo, ToNodeInfo).
  const dra::GpuInventory& gpus() const { return gpus_; }
  // Called (outside the feed's lock) after DRA objects changed what pods ask or nodes offer, so a
  // consumer keeping its own records of pods and nodes reads them again. Register before Start().
  void OnDraChange(std::function<void(const dra::Affected&)> listener);
  // False where the API server does not serve resource.k8s.io/v1 (Kubernetes before 1.34, or DRA off).
  bool dra_served() const { return dra_served_.load(); }

  // The GPUPools and Queues as last read (for the operator's validation and status).
  std::vector<PoolConfig> Pools() const;
  std::vector<QueueConfig> Queues() const;

 private:
  template <typename F>
  void ForEachState(F&& apply);
  void Replay(ClusterState& state);
  void PublishQueues();
  void PublishPools();
  template <typename Config, typename Parse>
  static bool Remember(std::map<std::string, Config>& known, const kube::GenericObject& object, bool deleted,
                       Parse parse, const char* kind);
  void SetPool(const kube::GenericObject& pool, bool deleted);
  void SetQueue(const kube::GenericObject& queue, bool deleted);
  void WatchDra();
  bool DraSynced(std::chrono::milliseconds timeout);
  // Applies an inventory change to every attached state and tells the listeners.
  void ApplyDra(const dra::Affected& affected);
  void ApplyDraLocked(const dra::Affected& affected);
  void NotifyDra(const dra::Affected& affected);
  template <typename Parse, typename Upsert, typename Delete>
  void WatchDraKind(const kube::ResourceDescriptor& resource, Parse parse, Upsert upsert, Delete remove);

  SharedInformers& informers_;
  std::vector<QueueConfig> static_queues_;
  std::shared_ptr<const PlanSeal> seal_;
  mutable std::mutex mu_;  // Serialises every event and attachment.
  std::vector<ClusterState*> states_;
  std::map<std::string, PoolConfig> pools_;    // By GPUPool name.
  std::map<std::string, QueueConfig> queues_;  // By Queue name.
  dra::GpuInventory gpus_;
  std::vector<std::function<void(const dra::Affected&)>> dra_listeners_;
  std::atomic<bool> dra_served_{false};
  std::atomic<bool> synced_{false};
  std::atomic<bool> stopping_{false};
  std::thread sync_watcher_;
};

}  // namespace gangplank::cache
