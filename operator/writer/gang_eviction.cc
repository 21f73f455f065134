#include "operator/writer/gang_eviction.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "operator/writer/disruption_budgets.h"

namespace gangplank::op {

GangEviction EvictGang(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, std::optional<int> grace_seconds) {
  GangEviction result;
  if (members.empty()) return result;
  if (std::string why = BudgetsForbid(writer.DisruptionBudgets(members.front().namespace_), members); !why.empty()) {
    result.outcome = GangEviction::Outcome::kBlocked;
    result.reason = why;
    return result;
  }
  for (const cache::PodInfo& pod : members) {
    if (writer.EvictPod(pod, grace_seconds) == EvictResult::kBlockedByBudget) {
      result.outcome = GangEviction::Outcome::kPartial;
      result.reason = "a PodDisruptionBudget refused pod " + pod.namespace_ + "/" + pod.name + " after " +
                      std::to_string(result.evicted) + " of " + std::to_string(members.size()) + " members went";
      continue;  // The others still go: a gang missing members cannot run anyway.
    }
    ++result.evicted;
  }
  return result;
}

GangEviction EvictGangOrDelete(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                               std::optional<int> grace_seconds) {
  GangEviction result = EvictGang(writer, members, grace_seconds);
  if (result.outcome == GangEviction::Outcome::kEvicted) return result;
  for (const cache::PodInfo& pod : members) {
    try {
      writer.DeletePod(pod, grace_seconds.value_or(30));
    } catch (const std::exception& e) {
      spdlog::warn(logging::JsonFields("cannot delete a member of a gang that must go", "namespace", pod.namespace_,
                                       "pod", pod.name, "error", e.what()));
    }
  }
  result.deleted = true;
  return result;
}

}  // namespace gangplank::op
