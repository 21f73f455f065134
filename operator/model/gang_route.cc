#include "operator/model/gang_route.h"

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
                    const std::string& namespace_queue, const std::string& default_queue) {
  GangRoute route;
  route.queue = QueueOfGang(gang, namespace_queue);
  if (route.queue.empty()) route.queue = default_queue;
  const Member* lead = LeadMember(gang);
  if (lead == nullptr) return route;
  auto pool_label = lead->pod.labels.find(std::string(cache::kPoolLabel));
  route.choice = ChoosePool(pools, tree, route.queue, pool_label == lead->pod.labels.end() ? "" : pool_label->second,
                            lead->pod.node_selector);
  return route;
}

EntryContext EntryContextFor(const GangRoute& route, const QueueTree& tree, const std::string& pool, const SizeVerdict& size) {
  EntryContext entry;
  entry.queue = route.queue;
  if (route.choice.pool == pool) {
    entry.queue_verdict = CheckQueue(tree, route.queue, pool);
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
