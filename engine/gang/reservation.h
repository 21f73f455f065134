// Draining nodes for a gang that keeps waiting. Without it, a large gang behind a stream of small ones
// may never find enough free GPUs in one place: each freed GPU is taken by a small job first. The
// admission loop reserves the nodes this function picks (no other gang may land there) until the gang
// starts; because reserved nodes only lose work, the gang starts once their jobs end.
#pragma once

#include <vector>

#include "engine/cluster.h"
#include "engine/gang/gang_request.h"

namespace gangplank::engine {

// One node per member: inside the narrowest domain (honouring a required level) that has at least as
// many eligible nodes as the gang has members, the nodes with the most fully free GPUs; among domains,
// the one whose chosen nodes already have the most of the GPUs the members need. Empty when no domain
// has enough eligible nodes, or when a member is larger than every eligible node.
std::vector<NodeId> ChooseReservation(const Cluster& cluster, const GangRequest& gang);

}  // namespace gangplank::engine
