#include "cache/feed/shared_informers.h"

#include <spdlog/spdlog.h>

#include <functional>
#include <vector>

#include "logging/json_log.h"

namespace gangplank::cache {

SharedInformers::SharedInformers(std::shared_ptr<kube::RestClient> client, kube::InformerOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

SharedInformers::~SharedInformers() { Stop(); }

template <class T>
kube::Informer<T>& SharedInformers::Make(std::unique_ptr<kube::Informer<T>>& slot,
                                         const kube::ResourceDescriptor& resource) {
  std::lock_guard lock(mu_);
  if (!slot) {
    kube::InformerOptions o = options_;
    if (!o.on_error) {
      const std::string kind = resource.kind;
      o.on_error = [kind](const std::string& what) {
        spdlog::warn(logging::JsonFields("list/watch failed; retrying", "kind", kind, "error", what));
      };
    }
    slot = std::make_unique<kube::Informer<T>>(client_, resource, std::move(o));
    if (started_) slot->Start();
  }
  return *slot;
}

kube::Informer<kube::Node>& SharedInformers::nodes() { return Make(nodes_, kube::resources::Nodes()); }
kube::Informer<kube::Pod>& SharedInformers::pods() { return Make(pods_, kube::resources::Pods()); }
kube::Informer<kube::GenericObject>& SharedInformers::namespaces() {
  return Make(namespaces_, kube::resources::Namespaces());
}
kube::Informer<kube::GenericObject>& SharedInformers::objects(const kube::ResourceDescriptor& resource) {
  std::unique_ptr<kube::Informer<kube::GenericObject>>* slot = nullptr;
  {
    std::lock_guard lock(mu_);
    slot = &objects_[resource.group + "/" + resource.plural];  // Map nodes never move.
  }
  return Make(*slot, resource);
}

void SharedInformers::Start() {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  // Nodes before pods, so pods mostly find their nodes already cached.
  if (nodes_) nodes_->Start();
  if (namespaces_) namespaces_->Start();
  if (pods_) pods_->Start();
  for (auto& [name, informer] : objects_) {
    if (informer) informer->Start();
  }
}

void SharedInformers::Stop() {
  // Stopping joins each informer's dispatcher, whose handlers may ask for an informer (and so take
  // mu_): the lock is not held while they finish.
  std::vector<std::function<void()>> stops;
  {
    std::lock_guard lock(mu_);
    started_ = false;
    for (auto& [name, informer] : objects_) {
      if (informer) stops.emplace_back([i = informer.get()] { i->Stop(); });
    }
    if (pods_) stops.emplace_back([i = pods_.get()] { i->Stop(); });
    if (namespaces_) stops.emplace_back([i = namespaces_.get()] { i->Stop(); });
    if (nodes_) stops.emplace_back([i = nodes_.get()] { i->Stop(); });
  }
  for (const auto& stop : stops) stop();
}

bool SharedInformers::WaitForCoreSync(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
  };
  auto synced = [&](auto* informer) {
    return informer == nullptr || (informer->WaitForSync(left()) && informer->WaitIdle(left()));
  };
  kube::Informer<kube::Node>* nodes;
  kube::Informer<kube::GenericObject>* namespaces;
  kube::Informer<kube::Pod>* pods;
  {
    std::lock_guard lock(mu_);
    nodes = nodes_.get();
    namespaces = namespaces_.get();
    pods = pods_.get();
  }
  return synced(nodes) && synced(namespaces) && synced(pods);
}

}  // namespace gangplank::cache
