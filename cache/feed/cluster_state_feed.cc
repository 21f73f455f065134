#include "cache/feed/cluster_state_feed.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cache/feed/gangplank_resources.h"
#include "cache/feed/object_conversion.h"
#include "cache/objects/decode_error.h"
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
      [this](const auto& n) { ForEachState([&](ClusterState& s) { s.UpsertNode(ToNodeInfo(*n)); }); },
      [this](const auto&, const auto& n) { ForEachState([&](ClusterState& s) { s.UpsertNode(ToNodeInfo(*n)); }); },
      [this](const auto& n, bool) { ForEachState([&](ClusterState& s) { s.DeleteNode(n->meta.name); }); },
  });
  informers_.namespaces().AddHandlers({
      [this](const auto& n) { ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, NamespaceQueueOf(*n)); }); },
      [this](const auto&, const auto& n) {
        ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, NamespaceQueueOf(*n)); });
      },
      [this](const auto& n, bool) { ForEachState([&](ClusterState& s) { s.SetNamespaceQueue(n->meta.name, ""); }); },
  });
  informers_.pods().AddHandlers({
      [this](const auto& p) { ForEachState([&](ClusterState& s) { s.UpsertPod(ToPodInfo(*p, seal_.get())); }); },
      [this](const auto&, const auto& p) { ForEachState([&](ClusterState& s) { s.UpsertPod(ToPodInfo(*p, seal_.get())); }); },
      [this](const auto& p, bool) { ForEachState([&](ClusterState& s) { s.DeletePod(p->meta.uid); }); },
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
  for (const auto& n : informers_.nodes().List()) Guarded("Node", [&] { state.UpsertNode(ToNodeInfo(*n)); });
  for (const auto& p : informers_.pods().List()) Guarded("Pod", [&] { state.UpsertPod(ToPodInfo(*p, seal_.get())); });
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
  std::lock_guard lock(mu_);
  if (Remember(pools_, pool, deleted, PoolConfigFromObject, "GPUPool")) PublishPools();
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

void ClusterStateFeed::Start() {
  if (sync_watcher_.joinable()) return;
  stopping_ = false;
  sync_watcher_ = std::thread([this] {
    // GPUPools and Queues do not gate readiness (their CRDs may be absent; --queue flags still apply).
    while (!stopping_) {
      if (!informers_.WaitForCoreSync(std::chrono::milliseconds(200))) continue;
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
