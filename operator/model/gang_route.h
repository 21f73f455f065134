// Where a gang goes, decided the same way for a reconcile and for a dry run: its queue (the rule the
// extender shares, cache::QueueResolver: its pods' label, else its namespace's, else the default queue), the GPU pool that takes it (pool_routing.h)
// and, for one pool, the context its entries are built with (may the queue use the pool, the gang's size).
#pragma once

#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/objects/queue_resolver.h"
#include "operator/gangs/gang_size_resolver.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/model/gang_entries.h"
#include "operator/model/pool_routing.h"
#include "operator/model/queue_tree.h"

namespace gangplank::op {

struct GangRoute {
  std::string queue;  // Empty: the gang names none and there is no default (it is blocked with NoQueue).
  std::string forbidden;  // Why the gang's namespace or priority may not use the queue (cache/crd/queue_access.h).
  PoolChoice choice;
};

// `namespace_queue` is the queue its namespace names ("" for none). The gang's own label is its first
// labelled member's. `group_priority` is the priority its defining object gives it (a native PodGroup's),
// held to the queue's maxPriority like its pods' (a tenant's group must not outrank what its pods may).
GangRoute RouteGang(const Gang& gang, const std::vector<cache::PoolConfig>& pools, const QueueTree& tree,
                    const std::string& namespace_queue, const cache::QueueResolver& queues,
                    std::optional<int> group_priority = std::nullopt);

// The entry context of a routed gang in `pool`: a gang routed elsewhere waits there, not here (OtherPool,
// or why no pool takes it).
EntryContext EntryContextFor(const GangRoute& route, const QueueTree& tree, const std::string& pool, const SizeVerdict& size);

// The member that speaks for the gang: its first one not being deleted.
const Member* LeadMember(const Gang& gang);

}  // namespace gangplank::op
