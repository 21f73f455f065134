// Which queue a pod is charged to: the one rule the extender and the operator share. Its own
// gangplank.io/queue label, else its namespace's gangplank.io/queue label, else the default queue (the
// --default-queue flag of both binaries, the chart's defaultQueue). An empty own label keeps the
// namespace's from applying but still takes the default. "" when none applies: the pod is in no queue.
// A pod gangplank does not govern (another scheduler's, no admission gate) pays its namespace's queue
// only: its own label is its owner's word, and the operator charges it so (op::UngovernedPods).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

class QueueResolver {
 public:
  // governing_schedulers: the schedulerNames gangplank schedules for; empty: it governs every pod.
  explicit QueueResolver(std::string default_queue = {}, std::vector<std::string> governing_schedulers = {})
      : default_queue_(std::move(default_queue)), governing_schedulers_(std::move(governing_schedulers)) {}

  // own_label: the pod's queue label (a gang's: its first labelled member's), unset when it has none.
  std::string Resolve(const std::optional<std::string>& own_label, std::string_view namespace_queue) const;
  // The rule for a pod gangplank governs (one it is asked to place).
  std::string QueueOf(const PodInfo& pod, std::string_view namespace_queue) const {
    return Resolve(pod.QueueLabel(), namespace_queue);
  }
  // True for a pod of one of gangplank's schedulers or one its admission gate holds (GangTracker::Manages).
  bool Governs(std::string_view scheduler_name, bool admission_gated) const;
  // The queue a cached pod pays: Resolve for a governed pod, else its namespace's queue alone.
  std::string Charged(const std::optional<std::string>& own_label, std::string_view namespace_queue,
                      bool governed) const {
    return governed ? Resolve(own_label, namespace_queue) : std::string(namespace_queue);
  }

  const std::string& default_queue() const { return default_queue_; }

 private:
  std::string default_queue_;
  std::vector<std::string> governing_schedulers_;
};

}  // namespace gangplank::cache
