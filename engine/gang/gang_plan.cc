#include "engine/gang/gang_plan.h"

#include <stdexcept>

namespace gangplank::engine {

void ApplyGangPlan(Cluster& cluster, const GangPlan& plan) {
  if (!plan.placed) throw std::logic_error("ApplyGangPlan: the plan did not place the gang");
  size_t applied = 0;
  try {
    for (; applied < plan.allocations.size(); ++applied) cluster.Assign(plan.allocations[applied].allocation);
  } catch (...) {
    while (applied > 0) cluster.Release(plan.allocations[--applied].allocation);
    throw;
  }
}

void ReleaseGangPlan(Cluster& cluster, const GangPlan& plan) {
  for (const MemberAllocation& m : plan.allocations) cluster.Release(m.allocation);
}

}  // namespace gangplank::engine
