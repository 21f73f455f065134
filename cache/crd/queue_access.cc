#include "cache/crd/queue_access.h"

#include <algorithm>

namespace gangplank::cache {

std::string QueueAccessRefusal(const QueueConfig& queue, std::string_view pod_namespace, std::string_view namespace_queue,
                               std::int32_t priority, bool named_by_pod) {
  const std::string ns(pod_namespace);
  const bool open = queue.namespaces && std::find(queue.namespaces->begin(), queue.namespaces->end(), kAnyNamespace) !=
                                            queue.namespaces->end();
  if (open) {
    if (!namespace_queue.empty() && namespace_queue != queue.name) {
      return "namespace " + ns + " is bound to queue " + std::string(namespace_queue) +
             " by its gangplank.io/queue label and may not use queue " + queue.name;
    }
  } else if (queue.namespaces) {
    if (std::find(queue.namespaces->begin(), queue.namespaces->end(), ns) == queue.namespaces->end()) {
      return "namespace " + ns + " may not use queue " + queue.name + " (not in its spec.namespaces)";
    }
  } else if (named_by_pod && namespace_queue != queue.name) {
    // Closed unless an admin opens it: a pod's own queue label is the tenant's to write.
    return "namespace " + ns + " may not use queue " + queue.name + " (it lists no spec.namespaces and the namespace " +
           "is not labelled gangplank.io/queue=" + queue.name + ")";
  }
  if (queue.max_priority && priority > *queue.max_priority) {
    return "priority " + std::to_string(priority) + " is above queue " + queue.name + "'s maxPriority of " +
           std::to_string(*queue.max_priority);
  }
  return {};
}

}  // namespace gangplank::cache
