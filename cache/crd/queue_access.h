// Who may use a queue: the tenant boundary between teams. A pod's own gangplank.io/queue label is
// untrusted input, so the queue it names must admit the pod's namespace and priority:
//  - a queue with spec.namespaces admits only those namespaces; "*" among them admits any namespace not
//    bound to another queue (a namespace labelled gangplank.io/queue=<q>, a label only cluster admins can
//    set, may use <q> and the queues that list it);
//  - a queue without spec.namespaces is closed but to the namespaces labelled for it;
//  - a queue the pod did not name itself (its namespace's label, the admin's default queue) is the
//    admin's choice, and admits it;
//  - a queue with spec.maxPriority admits no pod of a higher priority (a PriorityClass high enough to
//    evict the queue's other gangs is the admin's to hand out).
// The operator, the extender and the webhook all ask this one rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cache/crd/queue_config.h"

namespace gangplank::cache {

// Why a pod of `pod_namespace` (labelled for `namespace_queue`, "" when not) with `priority` may not
// use `queue`; "" when it may. `named_by_pod`: the pod's own gangplank.io/queue label chose the queue.
std::string QueueAccessRefusal(const QueueConfig& queue, std::string_view pod_namespace, std::string_view namespace_queue,
                               std::int32_t priority, bool named_by_pod = true);

}  // namespace gangplank::cache
