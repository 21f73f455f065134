// The result of planning a gang: an allocation for every placed member, or a reason a person can act
// on. Planning never changes the cluster; ApplyGangPlan applies a plan all at once or not at all.
#pragma once

#include <string>
#include <vector>

#include "engine/allocation.h"
#include "engine/cluster.h"
#include "engine/topology.h"

namespace gangplank::engine {

struct MemberAllocation {
  int member = 0;  // Index into GangRequest::members.
  Allocation allocation;
};

struct GangPlan {
  bool placed = false;
  std::vector<MemberAllocation> allocations;  // Empty unless placed.
  // The domain holding the whole gang: a domain id at `level`, or level -1 and kNoDomain for the
  // whole pool when no single labelled domain holds it.
  int level = -1;
  DomainId domain = kNoDomain;
  // False when the gang asked for a preferred level and had to go wider.
  bool preferred_met = true;
  std::string reason;  // Why the gang cannot be placed now (when !placed), or a note (e.g. went wider).
};

// Applies every allocation of a placed plan, or none: if one cannot be applied (the cluster changed
// since planning), the ones already applied are released and std::logic_error is thrown.
void ApplyGangPlan(Cluster& cluster, const GangPlan& plan);
// Releases every allocation of an applied plan.
void ReleaseGangPlan(Cluster& cluster, const GangPlan& plan);

}  // namespace gangplank::engine
