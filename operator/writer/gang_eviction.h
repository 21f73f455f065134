// Evicting a whole gang through the Eviction API: the PodDisruptionBudgets are checked for the whole
// gang first (disruption_budgets.h), so a gang is either left alone or taken whole. A budget that
// refuses a member anyway (it changed in between) leaves the rest for the caller to retry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

struct GangEviction {
  enum class Outcome { kEvicted, kBlocked, kPartial };
  Outcome outcome = Outcome::kEvicted;
  int evicted = 0;     // Members evicted by this call (or already gone).
  std::string reason;  // Why blocked or partial.
  bool deleted = false;  // EvictGangOrDelete: the eviction was stopped, so the members were deleted.
};

// `grace_seconds`, when set, overrides the members' termination grace period (a node about to go).
GangEviction EvictGang(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                       std::optional<int> grace_seconds = std::nullopt);

// For a gang that must go whatever its budgets say (its node goes, or the gang is broken): evicted whole as
// EvictGang does, and where that is refused, every member deleted (grace: `grace_seconds`, else 30 s).
GangEviction EvictGangOrDelete(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                               std::optional<int> grace_seconds = std::nullopt);

}  // namespace gangplank::op
