// Where a gang that keeps waiting should reserve nodes so that it starts soonest (EASY backfill's
// "shadow time"). The caller says when each node's running gangs are expected to be gone; a node
// whose GPUs are free enough for a member now is ready now. The chosen domain is the one whose
// slowest needed node is ready first: draining a node under a multi-day job would hold the gang (and
// the idle GPUs around it) for days, which is why the nodes with the most free GPUs now are not chosen.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/gang/gang_request.h"

namespace gangplank::engine {

struct SoonestReservation {
  std::vector<NodeId> nodes;  // One per member; empty when no domain can ever hold the gang.
  int level = -1;             // Topology level of `domain`; -1: the whole pool.
  DomainId domain = kNoDomain;
  double start = std::numeric_limits<double>::infinity();  // When every chosen node is expected ready.
};

// `free_at[n]`: when every running gang on node n is expected to have ended (<= now for an idle node).
// Domains from the narrowest level up to the widest the gang allows (its required level, else the
// pool); a wider domain wins only when it is expected to be ready strictly earlier. Among equally
// soon domains, the one whose chosen nodes already have the most of the GPUs the members need. Nodes
// that are not Eligible (cordoned: other reservations) are skipped.
SoonestReservation ChooseSoonestReservation(const Cluster& cluster, const GangRequest& gang,
                                            const std::vector<double>& free_at, double now);

// When the gang's members are expected to fit on exactly these nodes (one member each, largest
// members on the earliest-ready nodes); infinity when they cannot.
double ExpectedStartOn(const Cluster& cluster, const GangRequest& gang, const std::vector<NodeId>& nodes,
                       const std::vector<double>& free_at, double now);

// The narrowest domain holding every node, as "key=value", or "the pool".
std::string DomainName(const Cluster& cluster, const std::vector<NodeId>& nodes);

}  // namespace gangplank::engine
