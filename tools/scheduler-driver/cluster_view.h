// The driver's view of pods, fed by the pod informer: each pod's raw JSON (sent to the extender as
// kube-scheduler sends its informer copy) with its compact decoded form, plus the assume cache, and the
// resources each node holds. Nodes are read from the node informer directly. Thread-safe: informer
// handlers write, the scheduling cycle reads.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "kube/list_watch.h"
#include "kube/objects.h"
#include "tools/scheduler-driver/assume_cache.h"
#include "tools/scheduler-driver/node_fit.h"

namespace gangplank::scheduler_driver {

struct PodEntry {
  std::shared_ptr<const kube::GenericObject> raw;
  std::shared_ptr<const kube::Pod> pod;
};

class ClusterView {
 public:
  struct PodChange {
    std::shared_ptr<const kube::Pod> before;  // null: new to the view
    std::shared_ptr<const kube::Pod> after;   // null: could not be decoded (logged), or deleted
  };

  // From the pod informer's add/update: decodes the pod and ends its assumption if it is now bound.
  PodChange UpsertPod(const std::shared_ptr<const kube::GenericObject>& raw);
  // From the pod informer's delete.
  PodChange DeletePod(const std::string& key);

  std::optional<PodEntry> Pod(const std::string& key) const;

  void Assume(const kube::Pod& pod, const std::string& node);
  void Forget(const std::string& key);
  bool IsAssumed(const std::string& key) const;
  std::size_t AssumedCount() const;

  // Per node: the pods holding resources there by the informer, plus assumed pods it does not show bound
  // yet.
  std::map<std::string, NodeUsage, std::less<>> Usage() const;
  std::size_t PodCount() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, PodEntry> pods_;  // by namespace/name
  AssumeCache assumed_;
  kube::ObjectDecoder<kube::Pod> decoder_;
};

}  // namespace gangplank::scheduler_driver
