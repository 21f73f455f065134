// The operator's control loop: shared informers in, one work-queue key per GPU pool (plus one for the
// Queues' status), a reconciler that asks the engine, writes out. Informer handlers only note what
// changed and enqueue; workers reconcile (one pool never on two workers at once); only the leader
// writes. The pools themselves (models, lifecycle, health) are the PoolSet's; the Queue status is the
// QueueStatusWriter's; the controller only wires them to the informers and the work queue.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/shared_informers.h"
#include "kube/work_queue.h"
#include "operator/admission/reconciler.h"
#include "operator/gangs/gang_size_resolver.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/gangs/ungoverned_pods.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/model/pool_set.h"
#include "operator/model/queue_tree.h"
#include "operator/faults/member_faults.h"
#include "operator/faults/node_faults.h"
#include "operator/spot/node_notices.h"
#include "operator/status/gang_conditions.h"
#include "operator/status/queue_status.h"
#include "operator/utilization/utilization_poller.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

struct ControllerOptions {
  std::vector<std::string> scheduler_names{"gangplank"};
  std::string default_queue;  // Queue of gangs whose pods and namespace name none ("" = none: blocked).
  ReconcilerOptions reconciler;
  int workers = 1;
  std::chrono::milliseconds resync{std::chrono::seconds(30)};  // Every pool is reconciled at least this often.
  // Queue statuses are written this long after a reconcile (the reconciles in between coalesce).
  std::chrono::milliseconds queue_status_delay{std::chrono::seconds(5)};
  double condition_rewrite_seconds = 30;
  double waiting_condition_delay_seconds = 5;  // GangConditions' first wait.
  std::function<double()> clock;  // Seconds since the epoch; default the system clock.
  // Plans without a valid seal are dropped as pods are read (cache/objects/plan_seal.h); null: trusted.
  std::shared_ptr<const cache::PlanSeal> plan_seal;
  // Where GPU utilization is read (utilization/); null: it is not, and idle policies never act.
  UtilizationSource* utilization_source = nullptr;
  UtilizationPollerOptions utilization;
  // The placeholder pods autoscaled pools ask for nodes with (operator/autoscaling/capacity_requests.h).
  PlaceholderOptions placeholders;
};

class Controller {
 public:
  // Registers handlers on `informers` (after `feed`'s, so pool states are current when they run). Call
  // before informers.Start().
  Controller(cache::SharedInformers& informers, cache::ClusterStateFeed& feed, ClusterWriter& writer,
             ObjectReader& reader, OperatorMetrics& metrics, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void Start();  // Workers and the sync watcher.
  void Stop();   // Finishes the reconcile in flight, then stops.
  // The webhook's queue check (webhook/pod_gate_webhook.h QueueRefusal): why a pod of `namespace_`
  // may not use the queue it resolves to; "" when it may, or the queue is unknown (its gang says so).
  std::string QueueRefusal(const std::string& namespace_, const std::optional<std::string>& queue_label,
                           std::int32_t priority) const;
  void SetLeader(bool leading);
  bool leader() const { return leader_.load(); }
  // The informers have listed nodes, namespaces, pods, GPUPools and Queues.
  bool synced() const { return synced_.load(); }
  std::string NotReadyReason() const;

  // "Where and when would this gang land": plans the given pods (Pod objects) as one waiting gang on a
  // scratch copy of its pool's model, changing nothing. Answers what the round would decide.
  nlohmann::json DryRun(const nlohmann::json& request);

  // Test hooks.
  GangTracker& tracker() { return tracker_; }
  GangConditions& conditions() { return conditions_; }
  std::vector<std::string> PoolNames() const;

 private:
  double Now() const;
  void OnPod(const cache::PodInfo& pod, bool removed, bool freed);
  // `health`: the node came, went or Moved (which pools select it); `faults`: anything that may be a
  // running gang's fault (the node went, shrank, moved or its fault signals changed).
  void OnNodeChange(bool health = true, bool faults = true);
  void OnDraChange(const cache::dra::Affected& affected);
  // A native PodGroup was added, deleted or its spec changed: its gang is read again.
  void OnNativePodGroup(const std::string& gang_key);
  // Whether an updated node changed size, pools or topology domains.
  bool Moved(const kube::Node& old, const kube::Node& node) const;
  // Reads the node's termination notice; true when it appeared, went or moved.
  bool ObserveNotice(const kube::Node& node);
  // Reads the node's fault signals under its pool's rules; true when they changed.
  bool ObserveFaults(const kube::Node& node);
  void OnPoolsChanged();
  void OnQueuesChanged();
  void OnNamespace(const std::string& name, const std::string& queue);
  void NoteAll(const std::vector<std::string>& gangs);
  void EnqueueAllPools();
  void RecomputeHealth();
  void Work();
  void Process(const std::string& key);
  void ReconcilePool(const std::string& name);
  void WriteQueueStatus();
  ReconcileContext Context() const;

  cache::SharedInformers& informers_;
  cache::ClusterStateFeed& feed_;
  ClusterWriter& writer_;
  OperatorMetrics& metrics_;
  ControllerOptions options_;
  GangTracker tracker_;
  UngovernedPods ungoverned_;  // GPU pods outside the tracker, charged to their namespace's queue.
  GangSizeResolver sizes_;
  GangConditions conditions_;
  MemberFaults member_faults_;  // Before the reconciler, which keeps a reference.
  CapacityRequests capacity_;   // Likewise.
  Reconciler reconciler_;
  kube::WorkQueue queue_;
  NodeNotices notices_;
  NodeFaults node_faults_;
  PoolSet pools_;
  QueueStatusWriter queue_status_;
  std::unique_ptr<UtilizationPoller> utilization_;  // Enqueues every pool after each read.

  mutable std::mutex mu_;  // Guards the fields below.
  std::shared_ptr<const QueueTree> tree_ = std::make_shared<QueueTree>();
  std::map<std::string, std::string> namespace_queues_;

  std::atomic<bool> leader_{false};
  std::atomic<bool> synced_{false};
  std::atomic<bool> health_stale_{true};  // Nodes came, went or were relabelled since RecomputeHealth.
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
  std::thread sync_watcher_;
};

}  // namespace gangplank::op
