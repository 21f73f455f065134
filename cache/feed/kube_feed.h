// Feeds the cluster-state cache from the API server: informers on nodes, pods, namespaces (their
// gangplank.io/queue label is the default queue of their pods) and GPUPool resources (kube/informer.h),
// each event applied to ClusterState; the cache is marked synced once nodes, namespaces and pods have
// been listed. GPUPool queues are merged over the --queue flags.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cache/state/cluster_state.h"

namespace gangplank::kube {
class RestClient;
}

namespace gangplank::cache {

struct KubeFeedOptions {
  std::string kubeconfig;                  // Empty: in-cluster service account.
  std::vector<QueueConfig> static_queues;  // From flags; a GPUPool queue of the same name wins.
};

class KubeFeed {
 public:
  KubeFeed(ClusterState& state, KubeFeedOptions options);
  ~KubeFeed();
  KubeFeed(const KubeFeed&) = delete;
  KubeFeed& operator=(const KubeFeed&) = delete;

  // Loads the client configuration (throws kube::ConfigError naming the problem) and starts the
  // informers; returns at once. A watcher marks the state synced when the informers have listed.
  void Start();
  void Stop();
  // The API client the informers use (null before Start()): also for the bind verb's Bindings.
  std::shared_ptr<kube::RestClient> client() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gangplank::cache
