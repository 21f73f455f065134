// A reconciler over an in-memory API server (FakeClusterWriter) and a pool model the test fills with
// nodes and pods: what the operator's unit tests of the reconcile loop share.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "cache/objects/conventions.h"
#include "operator/admission/reconciler.h"
#include "tests/cache/support/state_builders.h"
#include "tests/operator/support/fake_cluster_writer.h"

namespace gangplank::op::testing {

using Json = nlohmann::json;

class MapReader : public ObjectReader {
 public:
  std::map<std::string, Json> objects;  // "kind/ns/name"
  std::optional<Json> Get(const std::string&, const std::string& kind, const std::string& ns, const std::string& name) override {
    auto it = objects.find(kind + "/" + ns + "/" + name);
    return it == objects.end() ? std::nullopt : std::optional<Json>(it->second);
  }
};

constexpr double kNow = 1'800'000'000;

class ReconcilerTest : public ::testing::Test {
 protected:
  ReconcilerTest() : sizes_(reader_), conditions_(writer_, [this] { return now_; }, 0) {
    pool_.name = "pool";
    pool_.topology_levels = {"rack", "kubernetes.io/hostname"};
    pool_.preemption.min_wait_seconds = 0;
    pool_.preemption.min_runtime_seconds = 60;
    queues_ = {cache::UniformQueue("team-a", 0), cache::UniformQueue("team-b", 0)};
  }

  void SetUp() override { Remake(); }

  void Remake(int admission_writers = ReconcilerOptions{}.admission_writers) {
    model_ = std::make_unique<PoolModel>(pool_, [](const engine::NodeSpec&) { return true; });
    ReconcilerOptions options;
    options.policy = "bestfit";
    options.status_interval_seconds = 0;
    options.admission_writers = admission_writers;
    reconciler_ = std::make_unique<Reconciler>(tracker_, sizes_, writer_, conditions_, &metrics_, member_faults_, options);
  }

  void Node(const std::string& name, int gpus, const std::string& rack, std::map<std::string, std::string> labels = {}) {
    labels["rack"] = rack;
    labels["kubernetes.io/hostname"] = name;
    model_->state().UpsertNode(cache::testing::GpuNode(name, gpus, "A100", labels));
  }

  // A gated pod of a gang (label), as the webhook leaves it; GatedPod builds it, Waiting also makes it
  // known to every cache.
  static cache::PodInfo GatedPod(const std::string& name, const std::string& gang, int gpus, const std::string& queue,
                                 int size = 0, int priority = 0) {
    cache::PodInfo p = cache::testing::GpuPod(name, {.queue = queue, .gang = gang, .gpus = gpus, .priority = priority});
    p.scheduler_name = "gangplank";
    p.scheduling_gates = {std::string(cache::kAdmissionGate)};
    p.resource_version = "1";
    p.creation_timestamp = "2027-01-15T08:00:00Z";
    if (size > 0) p.annotations["gangplank.io/gang-size"] = std::to_string(size);
    return p;
  }
  cache::PodInfo Waiting(const std::string& name, const std::string& gang, int gpus, const std::string& queue,
                         int size = 0, int priority = 0) {
    cache::PodInfo p = GatedPod(name, gang, gpus, queue, size, priority);
    Add(p);
    return p;
  }

  // A pod already running on `node` (admitted long ago); AdmittedPod builds it, Running also adds it.
  static cache::PodInfo AdmittedPod(const std::string& name, const std::string& gang, int gpus, const std::string& queue,
                                    const std::string& node, int priority = 0) {
    cache::PodInfo p = cache::testing::GpuPod(name, {.node = node, .queue = queue, .gang = gang, .gpus = gpus, .priority = priority});
    p.scheduler_name = "gangplank";
    p.resource_version = "1";
    p.creation_timestamp = "2027-01-15T00:00:00Z";
    p.annotations["gangplank.io/admission-id"] = "1799990000-00000001";
    p.annotations["gangplank.io/planned-node"] = node;
    p.annotations["gangplank.io/last-checkpoint"] = "2027-01-15T07:59:00Z";  // A minute before kNow.
    return p;
  }
  cache::PodInfo Running(const std::string& name, const std::string& gang, int gpus, const std::string& queue,
                         const std::string& node, int priority = 0) {
    cache::PodInfo p = AdmittedPod(name, gang, gpus, queue, node, priority);
    Add(p);
    return p;
  }

  void Add(const cache::PodInfo& p) {
    writer_.Put(p);
    for (const std::string& key : tracker_.Upsert(p)) model_->NoteGang(key);
    if (const std::string ns = ungoverned_.Observe(p, false, tracker_.Manages(p)); !ns.empty()) {
      model_->NoteGang(UngovernedKey(ns));
    }
    model_->state().UpsertPod(p);
  }
  void Remove(const cache::PodInfo& p) {
    for (const std::string& key : tracker_.Remove(p.uid)) model_->NoteGang(key);
    if (const std::string ns = ungoverned_.Observe(p, true, false); !ns.empty()) model_->NoteGang(UngovernedKey(ns));
    model_->state().DeletePod(p.uid);
    model_->NoteCapacityFreed();
  }

  RoundReport Reconcile() {
    model_->NoteQueuesChanged();
    RoundReport r = ReconcileAsNoted();
    conditions_.WaitIdle(std::chrono::seconds(5));
    return r;
  }
  // One round on what was noted so far (Reconcile() notes the queues changed, since a test may edit them).
  RoundReport ReconcileAsNoted() {
    ReconcileContext c;
    c.notices = notices_;
    c.tree = std::make_shared<QueueTree>(BuildQueueTree(queues_));
    c.pools = {pool_};
    c.pools.insert(c.pools.end(), extra_pools_.begin(), extra_pools_.end());
    c.namespace_queue = [this](const std::string& ns) {
      auto it = namespace_queues_.find(ns);
      return it == namespace_queues_.end() ? std::string() : it->second;
    };
    c.now = now_;
    c.utilization = utilization_;
    c.ungoverned = &ungoverned_;
    return reconciler_->Reconcile(*model_, c);
  }

  std::string Reason(const std::string& lead_uid) {
    auto c = writer_.ConditionOf(lead_uid);
    return c ? c->reason : "(none)";
  }
  std::string Message(const std::string& lead_uid) {
    auto c = writer_.ConditionOf(lead_uid);
    return c ? c->message : "(none)";
  }
  std::string PlannedNode(const std::string& uid) {
    auto p = writer_.Pod(uid);
    if (!p) return "(gone)";
    auto it = p->annotations.find("gangplank.io/planned-node");
    return it == p->annotations.end() ? "" : it->second;
  }
  bool Gated(const std::string& uid) { return !writer_.Pod(uid)->scheduling_gates.empty(); }
  // An Event of `reason` whose message contains `part` was written.
  bool HasEvent(const std::string& reason, const std::string& part) {
    for (const auto& e : writer_.events()) {
      if (e.reason == reason && e.message.find(part) != std::string::npos) return true;
    }
    return false;
  }

  double now_ = kNow;
  std::shared_ptr<const NoticeSnapshot> notices_;
  std::shared_ptr<const UtilizationSnapshots> utilization_;  // The poller's latest reads (null: none).
  cache::PoolConfig pool_;
  std::vector<cache::PoolConfig> extra_pools_;
  std::vector<cache::QueueConfig> queues_;
  std::map<std::string, std::string> namespace_queues_;  // Namespace -> its gangplank.io/queue label.
  FakeClusterWriter writer_;
  GangTracker tracker_{{"gangplank"}};
  UngovernedPods ungoverned_;
  MapReader reader_;
  GangSizeResolver sizes_;
  GangConditions conditions_;
  OperatorMetrics metrics_;
  MemberFaults member_faults_;
  std::unique_ptr<PoolModel> model_;
  std::unique_ptr<Reconciler> reconciler_;
};

}  // namespace gangplank::op::testing
