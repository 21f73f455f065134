// Which queue a pod is charged to: the one rule the extender and the operator share. Its own
// gangplank.io/queue label, else its namespace's gangplank.io/queue label, else the default queue (the
// --default-queue flag of both binaries, the chart's defaultQueue). An empty own label keeps the
// namespace's from applying but still takes the default. "" when none applies: the pod is in no queue.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

class QueueResolver {
 public:
  explicit QueueResolver(std::string default_queue = {}) : default_queue_(std::move(default_queue)) {}

  // own_label: the pod's queue label (a gang's: its first labelled member's), unset when it has none.
  std::string Resolve(const std::optional<std::string>& own_label, std::string_view namespace_queue) const;
  std::string QueueOf(const PodInfo& pod, std::string_view namespace_queue) const {
    return Resolve(pod.QueueLabel(), namespace_queue);
  }

  const std::string& default_queue() const { return default_queue_; }

 private:
  std::string default_queue_;
};

}  // namespace gangplank::cache
