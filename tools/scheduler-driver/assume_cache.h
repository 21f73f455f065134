// Pods this driver bound that the pod informer does not show bound yet (kube-scheduler's assumed pods).
// They count on their node at once, so a second pod scheduled in the informer's lag cannot take the same
// capacity, and a pod is never tried again while its binding is on the way. An assumption ends when the
// informer shows the pod bound (to any node), deleted or replaced by a new pod of the same name, or when
// the binding failed. Not thread-safe: ClusterView guards it.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "kube/objects.h"

namespace gangplank::scheduler_driver {

struct AssumedPod {
  kube::Pod pod;  // with node_name set to the node it was bound to
  std::chrono::steady_clock::time_point since;
};

class AssumeCache {
 public:
  void Assume(const kube::Pod& pod, const std::string& node);
  void Forget(const std::string& key);
  // The informer's latest state of the pod at `key` (nullptr: deleted). Ends the assumption when the pod
  // is bound, gone or replaced.
  void Observe(const std::string& key, const kube::Pod* latest);

  const AssumedPod* Find(const std::string& key) const;
  const std::map<std::string, AssumedPod>& all() const { return assumed_; }

 private:
  std::map<std::string, AssumedPod> assumed_;  // by namespace/name
};

}  // namespace gangplank::scheduler_driver
