#include "cache/crd/queue_access.h"

#include <algorithm>

namespace gangplank::cache {

std::string QueueAccessRefusal(const QueueConfig& queue, std::string_view pod_namespace, std::string_view namespace_queue,
                               std::int32_t priority) {
  const std::string ns(pod_namespace);
  if (queue.namespaces) {
    if (std::find(queue.namespaces->begin(), queue.namespaces->end(), ns) == queue.namespaces->end()) {
      return "namespace " + ns + " may not use queue " + queue.name + " (not in its spec.namespaces)";
    }
  } else if (!namespace_queue.empty() && namespace_queue != queue.name) {
    return "namespace " + ns + " is bound to queue " + std::string(namespace_queue) +
           " by its gangplank.io/queue label and may not use queue " + queue.name;
  }
  if (queue.max_priority && priority > *queue.max_priority) {
    return "priority " + std::to_string(priority) + " is above queue " + queue.name + "'s maxPriority of " +
           std::to_string(*queue.max_priority);
  }
  return {};
}

}  // namespace gangplank::cache
