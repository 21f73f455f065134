#include "operator/model/gang_route.h"

#include <algorithm>

#include "cache/crd/queue_access.h"
#include "cache/objects/conventions.h"
#include "operator/reasons.h"

namespace gangplank::op {

const Member* LeadMember(const Gang& gang) {
  for (const Member& m : gang.members) {
    if (!m.deleting()) return &m;
  }
  return gang.members.empty() ? nullptr : &gang.members.front();
}

GangRoute RouteGang(const Gang& gang, const std::vector<cache::PoolConfig>& pools, const QueueTree& tree,
                    const std::string& namespace_queue, const cache::QueueResolver& queues, std::optional<int> group_priority) {
  GangRoute route;
  std::optional<std::string> own_label;
  for (const Member& m : gang.members) {
    if ((own_label = m.pod.QueueLabel())) break;
  }
  route.queue = queues.Resolve(own_label, namespace_queue);
  const Member* lead = LeadMember(gang);
  if (lead == nullptr) return route;
  if (auto queue = tree.queues.find(route.queue); queue != tree.queues.end()) {
    std::int32_t priority = lead->pod.priority;
    for (const Member& m : gang.members) priority = std::max(priority, m.pod.priority);
    if (group_priority) priority = std::max(priority, static_cast<std::int32_t>(*group_priority));
    route.forbidden = cache::QueueAccessRefusal(queue->second, lead->pod.namespace_, namespace_queue, priority,
                                                own_label.has_value());
  }
  route.choice = ChoosePool(pools, tree, route.queue, lead->pod.Label(cache::kPoolLabel), lead->pod.node_selector);
  return route;
}

EntryContext EntryContextFor(const GangRoute& route, const QueueTree& tree, const std::string& pool, const SizeVerdict& size) {
  EntryContext entry;
  entry.queue = route.queue;
  if (route.choice.pool == pool) {
    entry.queue_verdict = CheckQueue(tree, route.queue, pool);
    if (entry.queue_verdict.reason.empty() && !route.forbidden.empty()) {
      entry.queue_verdict = QueueVerdict{reasons::kQueueForbidden, route.forbidden};
    }
  } else {
    entry.queue_verdict = QueueVerdict{route.choice.pool.empty() ? route.choice.reason : reasons::kOtherPool,
                                       route.choice.message};
  }
  entry.size = size.size;
  entry.size_reason = size.reason;
  entry.size_message = size.message;
  return entry;
}

}  // namespace gangplank::op
