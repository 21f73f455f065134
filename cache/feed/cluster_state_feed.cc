#include "cache/feed/cluster_state_feed.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "cache/dra/dra_objects.h"
#include "cache/feed/object_conversion.h"
#include "cache/objects/decode_error.h"
#include "kube/api_error.h"
#include "kube/discovery.h"
#include "logging/json_log.h"

namespace gangplank::cache {
namespace {

// Handlers run on an informer's dispatcher thread: nothing may escape it, and a bad object is logged
// and skipped (the rest of the cache stays current).
template <typename F>
void Guarded(const char* kind, F&& apply) {
  try {
    apply();
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot apply informer event", "kind", kind, "error", e.what()));
  }
}

}  // namespace

ClusterStateFeed::ClusterStateFeed(SharedInformers& informers, std::vector<QueueConfig> static_queues,
                                   std::shared_ptr<const PlanSeal> seal)
    : informers_(informers), static_queues_(std::move(static_queues)), seal_(std::move(seal)) {
  informers_.nodes().AddHandlers({
      [this](const auto& n) { ForEachState([&](ClusterState& s) { s.UpsertNode(ToNodeInfo(*n, &gpus_)); }); },
      [this](const auto&, const auto& n) { ForEachState([&](ClusterState& s) { s.UpsertNode(ToNodeInfo(*n, &gpus_)); }); },
      [this](const auto& n, bool) { ForEachState([&](ClusterState& s) { s.DeleteNode(n->meta.name); }); },
  });
  informers_.namespaces().AddHandlers({
      [this](const auto& n) { ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, NamespaceQueueOf(*n)); }); },
      [this](const auto&, const auto& n) {
        ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, NamespaceQueueOf(*n)); });
      },
      [this](const auto& n, bool) { ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, ""); }); },
  });
  auto upsert_pod = [this](const std::shared_ptr<const kube::Pod>& p) {
    const PodInfo pod = ToPodInfo(*p, seal_.get(), &gpus_);
    gpus_.NotePod(pod);
    ForEachState([&](ClusterState& s) { s.UpsertPod(pod); });
  };
  informers_.pods().AddHandlers({
      upsert_pod,
      [upsert_pod](const auto&, const auto& p) { upsert_pod(p); },
      [this](const auto& p, bool) {
        gpus_.ForgetPod(p->meta.uid);
        ForEachState([&](ClusterState& s) { s.DeletePod(p->meta.uid); });
      },
  });
  informers_.objects(resources::gpu_pools()).AddHandlers({
      [this](const auto& p) { SetPool(*p, false); },
      [this](const auto&, const auto& p) { SetPool(*p, false); },
      [this](const auto& p, bool) { SetPool(*p, true); },
  });
  informers_.objects(resources::queues()).AddHandlers({
      [this](const auto& q) { SetQueue(*q, false); },
      [this](const auto&, const auto& q) { SetQueue(*q, false); },
      [this](const auto& q, bool) { SetQueue(*q, true); },
  });
}

ClusterStateFeed::~ClusterStateFeed() {
  informers_.Stop();  // Their handlers call into this feed: no event may arrive once it is gone.
  Stop();
}

template <typename F>
void ClusterStateFeed::ForEachState(F&& apply) {
  std::lock_guard lock(mu_);
  for (ClusterState* state : states_) Guarded("object", [&] { apply(*state); });
}

void ClusterStateFeed::Attach(ClusterState* state) {
  std::lock_guard lock(mu_);
  states_.push_back(state);
  Replay(*state);
  if (synced_) state->MarkSynced();
}

void ClusterStateFeed::Detach(ClusterState* state) {
  std::lock_guard lock(mu_);
  states_.erase(std::remove(states_.begin(), states_.end(), state), states_.end());
}

// Everything the informers hold now; later events then apply on top (an event already reflected here
// is applied again harmlessly: every update is a full replacement).
void ClusterStateFeed::Replay(ClusterState& state) {
  std::vector<PoolConfig> pools;
  for (const auto& [name, pool] : pools_) pools.push_back(pool);
  state.SetPools(std::move(pools));
  std::map<std::string, QueueConfig> merged;
  for (const QueueConfig& q : static_queues_) merged[q.name] = q;
  for (const auto& [name, q] : queues_) merged[name] = q;
  std::vector<QueueConfig> queues;
  for (auto& [name, q] : merged) queues.push_back(std::move(q));
  state.SetQueues(std::move(queues));
  for (const auto& n : informers_.namespaces().List()) state.SetNamespaceQueue(n->meta.name, NamespaceQueueOf(*n));
  for (const auto& n : informers_.nodes().List()) Guarded("Node", [&] { state.UpsertNode(ToNodeInfo(*n, &gpus_)); });
  for (const auto& p : informers_.pods().List()) {
    Guarded("Pod", [&] { state.UpsertPod(ToPodInfo(*p, seal_.get(), &gpus_)); });
  }
}

// Records (or forgets) one GPUPool or Queue and republishes that kind to every state. An object that
// cannot be read is logged and its last good reading kept (the schema normally refuses such objects).
template <typename Config, typename Parse>
bool ClusterStateFeed::Remember(std::map<std::string, Config>& known, const kube::GenericObject& object, bool deleted,
                                Parse parse, const char* kind) {
  if (deleted) {
    known.erase(object.meta.name);
    return true;
  }
  try {
    known[object.meta.name] = parse(nlohmann::json::parse(object.json));
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("ignoring unreadable object", "kind", kind, "name", object.meta.name, "error", e.what()));
    return false;
  }
  return true;
}

void ClusterStateFeed::SetPool(const kube::GenericObject& pool, bool deleted) {
  dra::Affected affected;
  {
    std::lock_guard lock(mu_);
    if (!Remember(pools_, pool, deleted, PoolConfigFromObject, "GPUPool")) return;
    // The device classes the pools count as GPUs; the nodes' GPUs are read again before the pools apply.
    std::vector<std::string> classes;
    for (const auto& [name, p] : pools_) classes.insert(classes.end(), p.device_classes.begin(), p.device_classes.end());
    affected = gpus_.SetGpuClasses(std::move(classes));
    ApplyDraLocked(affected);
    PublishPools();
  }
  NotifyDra(affected);
}

void ClusterStateFeed::SetQueue(const kube::GenericObject& queue, bool deleted) {
  std::lock_guard lock(mu_);
  if (Remember(queues_, queue, deleted, QueueConfigFromObject, "Queue")) PublishQueues();
}

void ClusterStateFeed::PublishPools() {
  for (ClusterState* state : states_) {
    std::vector<PoolConfig> pools;
    for (const auto& [name, pool] : pools_) pools.push_back(pool);
    Guarded("GPUPool", [&] { state->SetPools(std::move(pools)); });
  }
}

void ClusterStateFeed::PublishQueues() {
  std::map<std::string, QueueConfig> merged;
  for (const QueueConfig& q : static_queues_) merged[q.name] = q;
  for (const auto& [name, q] : queues_) merged[name] = q;
  for (ClusterState* state : states_) {
    std::vector<QueueConfig> queues;
    for (const auto& [name, q] : merged) queues.push_back(q);
    Guarded("Queue", [&] { state->SetQueues(std::move(queues)); });
  }
}

std::vector<PoolConfig> ClusterStateFeed::Pools() const {
  std::lock_guard lock(mu_);
  std::vector<PoolConfig> out;
  for (const auto& [name, pool] : pools_) out.push_back(pool);
  return out;
}

std::vector<QueueConfig> ClusterStateFeed::Queues() const {
  std::lock_guard lock(mu_);
  std::vector<QueueConfig> out;
  for (const auto& [name, q] : queues_) out.push_back(q);
  return out;
}

void ClusterStateFeed::OnDraChange(std::function<void(const dra::Affected&)> listener) {
  std::lock_guard lock(mu_);
  dra_listeners_.push_back(std::move(listener));
}

template <typename Parse, typename Upsert, typename Delete>
void ClusterStateFeed::WatchDraKind(const kube::ResourceDescriptor& resource, Parse parse, Upsert upsert, Delete remove) {
  const std::string kind = resource.kind;
  auto on_upsert = [this, kind, parse, upsert, remove](const std::shared_ptr<const kube::GenericObject>& o) {
    dra::Affected affected;
    try {
      affected = upsert(parse(nlohmann::json::parse(o->json)));
    } catch (const std::exception& e) {
      // A malformed object (the API server validates them, so only a newer schema gets here) counts as
      // absent: what depended on it is read again without it.
      spdlog::warn(logging::JsonFields("ignoring unreadable object", "kind", kind, "name", o->meta.key(), "error", e.what()));
      affected = remove(o->meta);
    }
    ApplyDra(affected);
  };
  informers_.objects(resource).AddHandlers({
      on_upsert,
      [on_upsert](const auto&, const auto& o) { on_upsert(o); },
      [this, remove](const auto& o, bool) { ApplyDra(remove(o->meta)); },
  });
}

// The DRA informers, made once the API server is known to serve resource.k8s.io/v1.
void ClusterStateFeed::WatchDra() {
  WatchDraKind(
      kube::resources::DeviceClasses(), dra::DeviceClassFromObject,
      [this](dra::DeviceClass c) { return gpus_.UpsertClass(std::move(c)); },
      [this](const kube::ObjectMeta& m) { return gpus_.DeleteClass(m.name); });
  WatchDraKind(
      kube::resources::ResourceSlices(), dra::ResourceSliceFromObject,
      [this](dra::ResourceSlice s) { return gpus_.UpsertSlice(std::move(s)); },
      [this](const kube::ObjectMeta& m) { return gpus_.DeleteSlice(m.name); });
  WatchDraKind(
      kube::resources::ResourceClaimTemplates(), dra::ResourceClaimTemplateFromObject,
      [this](dra::ResourceClaimTemplate t) { return gpus_.UpsertTemplate(std::move(t)); },
      [this](const kube::ObjectMeta& m) { return gpus_.DeleteTemplate(m.namespace_, m.name); });
  WatchDraKind(
      kube::resources::ResourceClaims(), dra::ResourceClaimFromObject,
      [this](dra::ResourceClaim c) { return gpus_.UpsertClaim(std::move(c)); },
      [this](const kube::ObjectMeta& m) { return gpus_.DeleteClaim(m.namespace_, m.name); });
}

bool ClusterStateFeed::DraSynced(std::chrono::milliseconds timeout) {
  for (const kube::ResourceDescriptor* r : {&kube::resources::DeviceClasses(), &kube::resources::ResourceSlices(),
                                            &kube::resources::ResourceClaimTemplates(), &kube::resources::ResourceClaims()}) {
    auto& informer = informers_.objects(*r);
    if (!informer.WaitForSync(timeout) || !informer.WaitIdle(timeout)) return false;
  }
  return true;
}

void ClusterStateFeed::ApplyDra(const dra::Affected& affected) {
  {
    std::lock_guard lock(mu_);
    ApplyDraLocked(affected);
  }
  NotifyDra(affected);
}

void ClusterStateFeed::NotifyDra(const dra::Affected& affected) {
  if (affected.empty()) return;
  std::vector<std::function<void(const dra::Affected&)>> listeners;
  {
    std::lock_guard lock(mu_);
    listeners = dra_listeners_;
  }
  for (const auto& listener : listeners) Guarded("DRA listener", [&] { listener(affected); });
}

// Reads the affected nodes and pods again from the informers' caches, now with the inventory's change.
void ClusterStateFeed::ApplyDraLocked(const dra::Affected& affected) {
  if (affected.empty() || states_.empty()) return;
  std::vector<std::shared_ptr<const kube::Node>> nodes;
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  if (affected.all) {
    nodes = informers_.nodes().List();
    for (const auto& p : informers_.pods().List()) {
      if (p->claims || p->requests.size() > 2) pods.push_back(p);  // Claims, or extended resources beside cpu and memory.
    }
  } else {
    for (const std::string& name : affected.nodes) {
      if (auto n = informers_.nodes().Get(name)) nodes.push_back(std::move(n));
    }
    for (const std::string& uid : affected.pods) {
      if (auto p = informers_.pods().Get(gpus_.PodKey(uid))) pods.push_back(std::move(p));
    }
  }
  for (const auto& n : nodes) {
    const NodeInfo node = ToNodeInfo(*n, &gpus_);
    for (ClusterState* state : states_) Guarded("Node", [&] { state->UpsertNode(node); });
  }
  for (const auto& p : pods) {
    const PodInfo pod = ToPodInfo(*p, seal_.get(), &gpus_);
    for (ClusterState* state : states_) Guarded("Pod", [&] { state->UpsertPod(pod); });
  }
}

void ClusterStateFeed::Start() {
  if (sync_watcher_.joinable()) return;
  stopping_ = false;
  sync_watcher_ = std::thread([this] {
    // Whether DRA is served decides which informers readiness waits for.
    const std::optional<bool> served =
        kube::AskUntilTold(*informers_.client(), kube::resources::ResourceSlices(), stopping_, [](const std::string& error) {
          spdlog::warn(logging::JsonFields("cannot tell whether resource.k8s.io/v1 is served; asking again", "error", error));
        });
    if (served.value_or(false)) {
      dra_served_ = true;
      WatchDra();
    } else if (served) {
      spdlog::info(logging::JsonFields("resource.k8s.io/v1 is not served: GPUs come from the device plugin only"));
    }
    // GPUPools and Queues do not gate readiness (their CRDs may be absent; --queue flags still apply).
    while (!stopping_) {
      if (!informers_.WaitForCoreSync(std::chrono::milliseconds(200))) continue;
      if (dra_served_ && !DraSynced(std::chrono::milliseconds(200))) continue;
      std::lock_guard lock(mu_);
      synced_ = true;
      for (ClusterState* state : states_) state->MarkSynced();
      spdlog::info(logging::JsonFields("cluster-state cache synced"));
      return;
    }
  });
}

void ClusterStateFeed::Stop() {
  stopping_ = true;
  if (sync_watcher_.joinable()) sync_watcher_.join();
}

}  // namespace gangplank::cache
