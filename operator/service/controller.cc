#include "operator/service/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cache/feed/gangplank_resources.h"
#include "cache/feed/object_conversion.h"
#include "cache/objects/conventions.h"
#include "cache/objects/convert.h"
#include "logging/json_log.h"
#include "operator/service/native_pod_groups.h"
#include "operator/spot/notice_report.h"
#include "operator/status/pool_status.h"

namespace gangplank::op {
namespace {

constexpr const char* kQueuesKey = "queues";
const std::string kPoolPrefix = "pool/";
constexpr std::chrono::milliseconds kReplanAfterConflict{1000};  // Informer events usually come first.

bool HoldsCapacity(const kube::Pod& pod) {
  if (cache::IsFinishedPhase(pod.phase)) return false;
  return !pod.node_name.empty() || pod.meta.annotations.contains(std::string(cache::kPlannedNodeAnnotation));
}

bool SameAmounts(const std::vector<kube::ResourceAmount>& x, const std::vector<kube::ResourceAmount>& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const auto& p, const auto& q) { return p.name == q.name && p.milli == q.milli; });
}

// Node fields admission reads; a status heartbeat changes none of them.
bool SameForAdmission(const kube::Node& a, const kube::Node& b) {
  auto same_taints = [](const std::vector<kube::Taint>& x, const std::vector<kube::Taint>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [](const auto& p, const auto& q) { return p.key == q.key && p.value == q.value && p.effect == q.effect; });
  };
  return a.unschedulable == b.unschedulable && same_taints(a.taints, b.taints) && a.meta.labels == b.meta.labels &&
         SameAmounts(a.allocatable, b.allocatable);
}

}  // namespace

Controller::Controller(cache::SharedInformers& informers, cache::ClusterStateFeed& feed, ClusterWriter& writer,
                       ObjectReader& reader, OperatorMetrics& metrics, ControllerOptions options)
    : informers_(informers), feed_(feed), writer_(writer), metrics_(metrics), options_(std::move(options)),
      tracker_(options_.scheduler_names), sizes_(reader),
      conditions_(writer, [this] { return Now(); }, options_.condition_rewrite_seconds,
                  [this](const std::string& gang_key) { return sizes_.UidOf(gang_key); },
                  options_.waiting_condition_delay_seconds),
      capacity_(writer, options_.placeholders),
      reconciler_(tracker_, sizes_, writer, conditions_, &metrics, member_faults_, options_.reconciler), pools_(feed),
      queue_status_(writer) {
  reconciler_.SetCapacityRequests(&capacity_);
  if (options_.utilization_source != nullptr) {
    utilization_ = std::make_unique<UtilizationPoller>(
        *options_.utilization_source, &metrics.usage(), options_.utilization, [this] { return pools_.Configs(); },
        [this] { EnqueueAllPools(); });
  }
  const cache::dra::GpuInventory* gpus = &feed_.gpus();
  informers_.pods().AddHandlers({
      [this, gpus](const auto& p) { OnPod(cache::ToPodInfo(*p, options_.plan_seal.get(), gpus), false, false); },
      [this, gpus](const auto& old, const auto& p) {
        OnPod(cache::ToPodInfo(*p, options_.plan_seal.get(), gpus), false, HoldsCapacity(*old) && !HoldsCapacity(*p));
      },
      [this, gpus](const auto& p, bool) { OnPod(cache::ToPodInfo(*p, options_.plan_seal.get(), gpus), true, HoldsCapacity(*p)); },
  });
  // A claim allocated, a slice published or fenced: the pods and nodes it touches are read again.
  feed_.OnDraChange([this](const cache::dra::Affected& affected) { OnDraChange(affected); });
  informers_.nodes().AddHandlers({
      [this](const auto& n) {
        ObserveNotice(*n);
        ObserveFaults(*n);
        OnNodeChange();
      },
      [this](const auto& old, const auto& n) {
        // Notices and faults come as annotations, conditions and taints too, which admission does not
        // otherwise read.
        const bool notice = ObserveNotice(*n);
        const bool fault = ObserveFaults(*n);
        if (!notice && !fault && SameForAdmission(*old, *n)) return;
        const bool moved = Moved(*old, *n);
        OnNodeChange(moved, moved || fault);
      },
      [this](const auto& n, bool) {
        notices_.Remove(n->meta.name);
        node_faults_.Remove(n->meta.name);
        OnNodeChange();
      },
  });
  informers_.namespaces().AddHandlers({
      [this](const auto& n) { OnNamespace(n->meta.name, cache::NamespaceQueueOf(*n)); },
      [this](const auto&, const auto& n) { OnNamespace(n->meta.name, cache::NamespaceQueueOf(*n)); },
      [this](const auto& n, bool) { OnNamespace(n->meta.name, ""); },
  });
  auto pools = [this](auto&&...) { OnPoolsChanged(); };
  informers_.objects(cache::resources::gpu_pools()).AddHandlers({pools, pools, pools});
  auto queues = [this](auto&&...) { OnQueuesChanged(); };
  informers_.objects(cache::resources::queues()).AddHandlers({queues, queues, queues});
}

Controller::~Controller() { Stop(); }

double Controller::Now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void Controller::Start() {
  stopping_ = false;
  sync_watcher_ = std::thread([this] {
    while (!stopping_) {
      const bool core = informers_.WaitForCoreSync(std::chrono::milliseconds(200));
      // The feed has synced DRA's informers too where they are served: no DRA GPU is missing from a round.
      if (!core || !feed_.synced() || !informers_.objects(cache::resources::gpu_pools()).HasSynced() ||
          !informers_.objects(cache::resources::queues()).HasSynced()) {
        continue;
      }
      synced_ = true;
      spdlog::info(logging::JsonFields("operator caches synced", "gangs", std::to_string(tracker_.size())));
      EnqueueAllPools();
      break;
    }
    // After readiness, which does not wait for a kind the cluster may not serve.
    WatchNativePodGroups(informers_, stopping_, [this](const std::string& key) { OnNativePodGroup(key); });
  });
  for (int i = 0; i < std::max(1, options_.workers); ++i) workers_.emplace_back([this] { Work(); });
  if (utilization_) utilization_->Start();
}

void Controller::Stop() {
  stopping_ = true;
  if (utilization_) utilization_->Stop();
  queue_.shutdown();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
  if (sync_watcher_.joinable()) sync_watcher_.join();
}

void Controller::SetLeader(bool leading) {
  if (leader_.exchange(leading) == leading) return;
  metrics_.Leader(leading);
  spdlog::info(logging::JsonFields(leading ? "became the leader: reconciling" : "lost the lead: writing nothing"));
  if (leading) EnqueueAllPools();
}

std::string Controller::NotReadyReason() const {
  if (!synced_) return "informers have not listed nodes, pods, namespaces, GPUPools, Queues and DRA objects yet";
  return {};
}

std::vector<std::string> Controller::PoolNames() const { return pools_.Names(); }

void Controller::EnqueueAllPools() {
  for (const std::string& name : PoolNames()) queue_.Add(kPoolPrefix + name);
  // Statuses follow the reconciles at most once per delay: every node change comes here, and a thousand
  // nodes relabelled one by one must not mean a thousand writes of each Queue's status.
  queue_.AddAfter(kQueuesKey, options_.queue_status_delay);
}

void Controller::NoteAll(const std::vector<std::string>& gangs) {
  pools_.ForEach([&](PoolModel& model) {
    for (const std::string& key : gangs) model.NoteGang(key);
  });
}

void Controller::OnPod(const cache::PodInfo& pod, bool removed, bool freed) {
  // A placeholder is no gang's member: it landing (deleted then) or going is news for its pool only.
  if (std::string pool; capacity_.Observe(pod, removed, pool)) {
    if (std::shared_ptr<PoolModel> model = pools_.Find(pool)) {
      if (freed) model->NoteCapacityFreed();
      queue_.Add(kPoolPrefix + pool);
    }
    return;
  }
  // Before the tracker forgets a finished or deleted member: its gang may have to restart.
  if (!pod.node_name.empty()) member_faults_.Observe(GangKeyOf(pod, cache::GangIdentityOf(pod)), pod, removed, Now());
  std::vector<std::string> gangs = removed ? tracker_.Remove(pod.uid) : tracker_.Upsert(pod);
  if (const std::string ns = ungoverned_.Observe(pod, removed, tracker_.Manages(pod)); !ns.empty()) {
    gangs.push_back(UngovernedKey(ns));
  }
  if (gangs.empty() && !freed) return;
  pools_.ForEach([&](PoolModel& model) {
    for (const std::string& key : gangs) model.NoteGang(key);
    if (freed) model.NoteCapacityFreed();
    if (freed || !pod.node_name.empty()) model.NoteRunningChanged();
  });
  for (const std::string& name : PoolNames()) queue_.Add(kPoolPrefix + name);
}

void Controller::OnDraChange(const cache::dra::Affected& affected) {
  const cache::dra::GpuInventory* gpus = &feed_.gpus();
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  if (affected.all) {
    pods = informers_.pods().List();
  } else {
    for (const std::string& uid : affected.pods) {
      if (auto p = informers_.pods().Get(gpus->PodKey(uid))) pods.push_back(std::move(p));
    }
  }
  for (const auto& p : pods) OnPod(cache::ToPodInfo(*p, options_.plan_seal.get(), gpus), false, false);
  if (!affected.all && affected.nodes.empty()) return;
  for (const auto& n : informers_.nodes().List()) {
    if (affected.all || affected.nodes.count(n->meta.name)) ObserveFaults(*n);
  }
  OnNodeChange();
}

void Controller::OnNativePodGroup(const std::string& gang_key) {
  sizes_.Forget(gang_key);  // Its terms are read again, not taken from the resolver's cache.
  NoteAll({gang_key});
  EnqueueAllPools();
}

void Controller::OnNodeChange(bool health, bool faults) {
  // Which pools select each node: read again by the next reconcile, once however many nodes changed
  // (a thousand nodes listed at start-up), and only when a node came, went or was relabelled.
  if (health) health_stale_ = true;
  // A node added, grown or uncordoned frees capacity; only a change that may be a fault makes the
  // next reconcile look over every running gang (a taint or cordon coming and going does not).
  pools_.ForEach([faults](PoolModel& model) { faults ? model.NoteNodesChanged() : model.NoteCapacityFreed(); });
  EnqueueAllPools();
}

// Whether a node changed size, pools or topology domains: pool health is read again and running gangs
// looked over. Taints, cordons and other labels (kube-controller-manager's on each new node, GPU
// Feature Discovery's timestamp every minute) change neither.
bool Controller::Moved(const kube::Node& old, const kube::Node& node) const {
  if (!SameAmounts(old.allocatable, node.allocatable)) return true;
  if (old.meta.labels == node.meta.labels) return false;
  try {
    const cache::dra::GpuInventory* gpus = &feed_.gpus();
    return !cache::SamePlaceInPools(pools_.Configs(), cache::ToNodeSpec(cache::ToNodeInfo(old, gpus)),
                                    cache::ToNodeSpec(cache::ToNodeInfo(node, gpus)));
  } catch (const std::exception&) {
    return true;  // Its allocatable cannot be read: health says so.
  }
}

bool Controller::ObserveNotice(const kube::Node& node) {
  const cache::NodeInfo info = cache::ToNodeInfo(node, &feed_.gpus());
  bool known_spot = false;
  try {
    const engine::NodeSpec spec = cache::ToNodeSpec(info);
    known_spot = pools_.MarksSpot(spec);
  } catch (const std::exception&) {
    // Its allocatable cannot be read: it is in no pool (the cache logs it); the clouds' labels still count.
  }
  const NodeNotices::Observation seen = notices_.Observe(info, Now(), known_spot);
  ReportNotice({"v1", "Node", node.meta.name, node.meta.uid}, seen, leader_ ? &writer_ : nullptr, metrics_);
  return seen.changed;
}

bool Controller::ObserveFaults(const kube::Node& node) {
  const cache::NodeInfo info = cache::ToNodeInfo(node, &feed_.gpus());
  cache::NodeFaultRules rules;
  try {
    const std::vector<cache::PoolConfig> configs = pools_.Configs();
    const int owner = cache::OwningPool(configs, cache::ToNodeSpec(info));
    if (owner >= 0) rules = configs[owner].fault_recovery.node_faults;
  } catch (const std::exception&) {
    // Its allocatable cannot be read: it is in no pool; the default rules still say what is wrong.
  }
  return node_faults_.Observe(info, rules, Now());
}

void Controller::OnNamespace(const std::string& name, const std::string& queue) {
  {
    std::lock_guard lock(mu_);
    auto it = namespace_queues_.find(name);
    const std::string before = it == namespace_queues_.end() ? "" : it->second;
    if (before == queue) return;
    if (queue.empty()) namespace_queues_.erase(name);
    else namespace_queues_[name] = queue;
  }
  std::vector<std::string> gangs = tracker_.KeysInNamespace(name);
  gangs.push_back(UngovernedKey(name));  // Charged to the namespace's queue, whichever it is now.
  NoteAll(gangs);
  EnqueueAllPools();
}

void Controller::OnPoolsChanged() {
  pools_.Update(feed_.Pools());
  RecomputeHealth();
  EnqueueAllPools();
}

void Controller::OnQueuesChanged() {
  auto tree = std::make_shared<const QueueTree>(BuildQueueTree(feed_.Queues()));
  {
    std::lock_guard lock(mu_);
    tree_ = std::move(tree);
  }
  pools_.ForEach([](PoolModel& model) { model.NoteQueuesChanged(); });
  EnqueueAllPools();
}

void Controller::RecomputeHealth() {
  std::vector<engine::NodeSpec> nodes;
  for (const auto& node : informers_.nodes().List()) {
    try {
      nodes.push_back(cache::ToNodeSpec(cache::ToNodeInfo(*node, &feed_.gpus())));
    } catch (const std::exception&) {
      // Its allocatable cannot be read: it is in no pool (the cache logs it).
    }
  }
  pools_.UpdateHealth(nodes);
}

ReconcileContext Controller::Context() const {
  ReconcileContext c;
  c.pools = pools_.Configs();
  std::lock_guard lock(mu_);
  c.tree = tree_;
  auto queues = std::make_shared<std::map<std::string, std::string>>(namespace_queues_);
  c.namespace_queue = [queues](const std::string& ns) {
    auto it = queues->find(ns);
    return it == queues->end() ? std::string() : it->second;
  };
  c.queues = cache::QueueResolver(options_.default_queue);
  c.now = Now();
  c.notices = notices_.Snapshot();
  c.node_faults = node_faults_.Snapshot();
  if (utilization_) c.utilization = utilization_->Latest();
  c.ungoverned = &ungoverned_;
  c.pool_object = [this](const std::string& pool) -> std::string {
    const auto object = informers_.objects(cache::resources::gpu_pools()).Get(pool);
    return object ? object->json : std::string();
  };
  return c;
}

void Controller::Work() {
  while (auto key = queue_.Get()) {
    try {
      Process(*key);
      queue_.Forget(*key);
    } catch (const std::exception& e) {
      // A failed round (the API server down, say) is retried with backoff; nothing escapes the worker.
      spdlog::warn(logging::JsonFields("reconcile failed; retrying", "key", *key, "error", e.what()));
      queue_.AddRateLimited(*key);
    }
    queue_.done(*key);
  }
}

void Controller::Process(const std::string& key) {
  if (stopping_) return;
  if (key == kQueuesKey) {
    if (synced_ && leader_) WriteQueueStatus();
    return;
  }
  if (key.rfind(kPoolPrefix, 0) == 0) ReconcilePool(key.substr(kPoolPrefix.size()));
}

void Controller::ReconcilePool(const std::string& name) {
  if (!synced_ || !leader_) return;  // Only the leader writes; it reconciles every pool on taking the lead.
  std::shared_ptr<PoolModel> model = pools_.Find(name);
  if (!model) return;
  const std::string key = kPoolPrefix + name;
  RoundReport report;
  {
    std::lock_guard round(model->round_mutex);
    if (health_stale_.exchange(false)) RecomputeHealth();
    const ReconcileContext context = Context();
    report = reconciler_.Reconcile(*model, context);
    reconciler_.WritePoolStatus(*model, context, PoolReadyCondition(model->config(), pools_.HealthOf(name)), false);
    if (report.ran) {
      spdlog::debug(logging::JsonFields("round", "pool", name, "scope", report.full ? "full" : "incremental", "admitted",
                                        std::to_string(report.admitted), "evicted", std::to_string(report.evicted)));
    }
  }
  if (report.conflicts > 0) {
    // The API server holds newer pods than the cache planned from (a condition written just before,
    // say): the informer's event for them requeues the pool. Planning again before that meets the same
    // stale versions, in a loop; the delay is only a safety net.
    queue_.AddAfter(key, kReplanAfterConflict);
  } else if (report.again || model->HasChanges()) {
    queue_.Add(key);
  }
  const double wait = report.next_wakeup - Now();
  if (std::isfinite(wait) && wait < 1e9) {
    queue_.AddAfter(key, std::chrono::milliseconds(static_cast<long long>(std::max(0.0, wait) * 1000) + 1));
  }
  queue_.AddAfter(key, options_.resync);
  queue_.AddAfter(kQueuesKey, options_.queue_status_delay);
}

void Controller::WriteQueueStatus() {
  std::shared_ptr<const QueueTree> tree;
  {
    std::lock_guard lock(mu_);
    tree = tree_;
  }
  queue_status_.Write(*tree, pools_.Models());
}

}  // namespace gangplank::op
