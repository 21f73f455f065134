// One informer per resource for the whole process, shared by every consumer (client-go's shared
// informer factory): the extender's cache and the operator's pool models, gang tracker and status
// writers all read the same caches and add their own handlers, so each kind is listed and watched once.
// Informers are made on first use; those made before Start() start with it, later ones at once.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kube/informer.h"
#include "kube/objects.h"
#include "kube/rest_client.h"

namespace gangplank::cache {

class SharedInformers {
 public:
  // `options` is the template of every informer (namespace empty: all namespaces); list/watch failures
  // are logged as structured warnings naming the resource.
  explicit SharedInformers(std::shared_ptr<kube::RestClient> client, kube::InformerOptions options = {});
  ~SharedInformers();
  SharedInformers(const SharedInformers&) = delete;
  SharedInformers& operator=(const SharedInformers&) = delete;

  kube::Informer<kube::Node>& nodes();
  kube::Informer<kube::Pod>& pods();
  kube::Informer<kube::GenericObject>& namespaces();
  // Any other resource (GPUPools, Queues, PodGroups, Leases...), as raw JSON objects.
  kube::Informer<kube::GenericObject>& objects(const kube::ResourceDescriptor& resource);

  void Start();
  void Stop();
  // True once nodes, namespaces and pods (whichever were made) have listed and handled that list.
  // Custom resources do not gate it: their CRD may be missing, and what reads them copes.
  bool WaitForCoreSync(std::chrono::milliseconds timeout);

  const std::shared_ptr<kube::RestClient>& client() const { return client_; }

 private:
  template <class T>
  kube::Informer<T>& Make(std::unique_ptr<kube::Informer<T>>& slot, const kube::ResourceDescriptor& resource);

  std::shared_ptr<kube::RestClient> client_;
  kube::InformerOptions options_;
  std::mutex mu_;
  bool started_ = false;
  std::unique_ptr<kube::Informer<kube::Node>> nodes_;
  std::unique_ptr<kube::Informer<kube::Pod>> pods_;
  std::unique_ptr<kube::Informer<kube::GenericObject>> namespaces_;
  std::map<std::string, std::unique_ptr<kube::Informer<kube::GenericObject>>> objects_;  // By group/plural.
};

}  // namespace gangplank::cache
