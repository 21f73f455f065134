#include "cache/feed/kube_feed.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "cache/objects/conventions.h"
#include "cache/objects/decode_error.h"
#include "logging/json_log.h"
#include "cache/state/gpupool_queues.h"
#include "kube/config.h"
#include "kube/informer.h"
#include "kube/objects.h"
#include "kube/rest_client.h"

namespace gangplank::cache {
namespace {

std::map<std::string, std::string> ToMap(const kube::StringPairs& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : pairs) out.emplace(std::string(key), std::string(value));
  return out;
}

// The client already reduced quantities to milli-units; "<n>m" hands them to our quantity parser
// unchanged in value.
ResourceList ToResourceList(const std::vector<kube::ResourceAmount>& amounts) {
  ResourceList out;
  for (const auto& a : amounts) out.emplace_back(a.name, std::to_string(a.milli) + "m");
  return out;
}

PodInfo ToPodInfo(const kube::Pod& p) {
  PodInfo pod;
  pod.name = p.meta.name;
  pod.namespace_ = p.meta.namespace_;
  pod.uid = p.meta.uid;
  pod.labels = ToMap(p.meta.labels);
  pod.annotations = ToMap(p.meta.annotations);
  pod.deleting = !p.meta.deletion_timestamp.empty();
  pod.node_name = p.node_name;
  pod.scheduler_name = p.scheduler_name;
  pod.priority = p.priority;
  pod.phase = p.phase;
  ContainerResources effective;  // kube::Pod holds the effective request already.
  effective.requests = ToResourceList(p.requests);
  pod.containers.push_back(std::move(effective));
  return pod;
}

NodeInfo ToNodeInfo(const kube::Node& n) {
  NodeInfo node;
  node.name = n.meta.name;
  node.labels = ToMap(n.meta.labels);
  node.allocatable = ToResourceList(n.allocatable);
  node.unschedulable = n.unschedulable;
  for (const auto& t : n.taints) node.taints.push_back({t.key, t.value, t.effect});
  return node;
}

const kube::ResourceDescriptor& GpuPools() {
  static const kube::ResourceDescriptor r{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
  return r;
}

}  // namespace

struct KubeFeed::Impl {
  Impl(ClusterState& s, KubeFeedOptions o) : state(s), options(std::move(o)) {}

  ClusterState& state;
  KubeFeedOptions options;
  std::shared_ptr<kube::RestClient> client;
  std::unique_ptr<kube::Informer<kube::Node>> nodes;
  std::unique_ptr<kube::Informer<kube::Pod>> pods;
  std::unique_ptr<kube::Informer<kube::GenericObject>> pools;
  std::unique_ptr<kube::Informer<kube::GenericObject>> namespaces;
  std::mutex mu;
  bool stopping = false;
  std::thread sync_watcher;
  std::map<std::string, std::vector<QueueConfig>> pool_queues;  // GPUPool name -> its queues.

  void PublishQueues() {
    std::map<std::string, QueueConfig> merged;
    for (const auto& q : options.static_queues) merged[q.name] = q;
    for (const auto& [pool, queues] : pool_queues) {
      for (const auto& q : queues) merged[q.name] = q;
    }
    std::vector<QueueConfig> all;
    for (auto& [name, q] : merged) all.push_back(std::move(q));
    state.SetQueues(std::move(all));
  }

  void ApplyPool(const kube::GenericObject& pool, bool deleted) {
    std::lock_guard lock(mu);
    if (deleted) {
      pool_queues.erase(pool.meta.name);
    } else {
      try {
        pool_queues[pool.meta.name] = QueuesOfGpuPool(pool.json);
      } catch (const DecodeError& e) {
        spdlog::warn(logging::JsonFields("ignoring GPUPool queues", "pool", pool.meta.name, "error", e.what()));
        return;
      }
    }
    PublishQueues();
  }
};

KubeFeed::KubeFeed(ClusterState& state, KubeFeedOptions options) : impl_(std::make_unique<Impl>(state, std::move(options))) {}

KubeFeed::~KubeFeed() { Stop(); }

void KubeFeed::Start() {
  Impl& d = *impl_;
  kube::ClusterConfig config = d.options.kubeconfig.empty() ? kube::load_in_cluster_config()
                                                             : kube::load_kubeconfig({d.options.kubeconfig});
  d.client = std::make_shared<kube::RestClient>(std::move(config));
  {
    std::lock_guard lock(d.mu);
    d.PublishQueues();
  }
  ClusterState& state = d.state;
  auto guarded = [](const char* what, auto&& apply) {
    // Handlers run on the informer's dispatcher thread: nothing may escape it.
    try {
      apply();
    } catch (const std::exception& e) {
      spdlog::warn(logging::JsonFields("cannot apply informer event", "kind", what, "error", e.what()));
    }
  };
  d.nodes = std::make_unique<kube::Informer<kube::Node>>(d.client, kube::resources::nodes());
  d.nodes->add_handlers({
      [&state, guarded](const auto& n) { guarded("Node", [&] { state.UpsertNode(ToNodeInfo(*n)); }); },
      [&state, guarded](const auto&, const auto& n) { guarded("Node", [&] { state.UpsertNode(ToNodeInfo(*n)); }); },
      [&state, guarded](const auto& n, bool) { guarded("Node", [&] { state.DeleteNode(n->meta.name); }); },
  });
  d.pods = std::make_unique<kube::Informer<kube::Pod>>(d.client, kube::resources::pods());
  d.pods->add_handlers({
      [&state, guarded](const auto& p) { guarded("Pod", [&] { state.UpsertPod(ToPodInfo(*p)); }); },
      [&state, guarded](const auto&, const auto& p) { guarded("Pod", [&] { state.UpsertPod(ToPodInfo(*p)); }); },
      [&state, guarded](const auto& p, bool) { guarded("Pod", [&] { state.DeletePod(p->meta.uid); }); },
  });
  d.pools = std::make_unique<kube::Informer<kube::GenericObject>>(d.client, GpuPools());
  Impl* self = &d;
  d.pools->add_handlers({
      [self, guarded](const auto& p) { guarded("GPUPool", [&] { self->ApplyPool(*p, false); }); },
      [self, guarded](const auto&, const auto& p) { guarded("GPUPool", [&] { self->ApplyPool(*p, false); }); },
      [self, guarded](const auto& p, bool) { guarded("GPUPool", [&] { self->ApplyPool(*p, true); }); },
  });
  // Namespaces' queue labels are the default queue of their unlabelled pods.
  auto namespace_queue = [](const kube::GenericObject& ns) {
    const auto queue = ns.meta.labels.find(kQueueLabel);
    return queue ? std::string(*queue) : std::string();
  };
  d.namespaces = std::make_unique<kube::Informer<kube::GenericObject>>(d.client, kube::resources::namespaces());
  d.namespaces->add_handlers({
      [&state, guarded, namespace_queue](const auto& n) {
        guarded("Namespace", [&] { state.SetNamespaceQueue(n->meta.name, namespace_queue(*n)); });
      },
      [&state, guarded, namespace_queue](const auto&, const auto& n) {
        guarded("Namespace", [&] { state.SetNamespaceQueue(n->meta.name, namespace_queue(*n)); });
      },
      [&state, guarded](const auto& n, bool) { guarded("Namespace", [&] { state.SetNamespaceQueue(n->meta.name, ""); }); },
  });
  d.nodes->start();
  d.namespaces->start();
  d.pods->start();
  d.pools->start();
  d.sync_watcher = std::thread([self] {
    // Nodes first so pods find their nodes; then pods. GPUPools do not gate readiness (the CRD may
    // be absent; --queue flags still apply).
    auto synced = [self](auto& informer) {
      while (true) {
        if (informer->wait_for_sync(std::chrono::milliseconds(200))) return true;
        std::lock_guard lock(self->mu);
        if (self->stopping) return false;
      }
    };
    if (!synced(self->nodes) || !synced(self->namespaces) || !synced(self->pods)) return;
    self->nodes->wait_idle(std::chrono::seconds(30));
    self->namespaces->wait_idle(std::chrono::seconds(30));
    self->pods->wait_idle(std::chrono::seconds(30));
    self->state.MarkSynced();
    spdlog::info(logging::JsonFields("cluster-state cache synced"));
  });
}

std::shared_ptr<kube::RestClient> KubeFeed::client() const { return impl_->client; }

void KubeFeed::Stop() {
  Impl& d = *impl_;
  {
    std::lock_guard lock(d.mu);
    d.stopping = true;
  }
  if (d.sync_watcher.joinable()) d.sync_watcher.join();
  if (d.pools) d.pools->stop();
  if (d.pods) d.pods->stop();
  if (d.namespaces) d.namespaces->stop();
  if (d.nodes) d.nodes->stop();
}

}  // namespace gangplank::cache
