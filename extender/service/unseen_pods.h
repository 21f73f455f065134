// Pods the filter verb was asked about that the cluster-state cache had not seen yet: created and
// scheduled within the pod informer's lag. The bind verb assumes such a pod bound from this copy
// (ClusterState::AssumeBound(PodInfo, node)), as kube-scheduler assumes the pod object it scheduled,
// so a filter call before the informer catches up cannot hand its capacity to another pod. Bounded:
// the oldest copies go first; a pod the informer reports meanwhile is assumed from the cache instead.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cache/objects/kube_objects.h"

namespace gangplank::extender {

class UnseenPods {
 public:
  explicit UnseenPods(size_t capacity = 4096) : capacity_(capacity) {}

  void Remember(const cache::PodInfo& pod);
  // The copy of the pod with this UID, removed from the memo; nullopt when there is none.
  std::optional<cache::PodInfo> Take(std::string_view uid);
  size_t size() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, cache::PodInfo> pods_;
  std::deque<std::string> order_;  // UIDs, oldest first; may name pods already taken.
};

}  // namespace gangplank::extender
