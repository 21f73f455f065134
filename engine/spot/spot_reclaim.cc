#include "engine/spot/spot_reclaim.h"

#include <algorithm>
#include <unordered_map>

namespace gangplank::engine {
namespace {

// The notice on the gang's node that goes first, or null when none of its nodes is under notice.
const NodeNotice* FirstToGo(const GangOnNodes& gang, const std::unordered_map<NodeId, const NodeNotice*>& by_node) {
  const NodeNotice* first = nullptr;
  for (NodeId node : gang.nodes) {
    auto it = by_node.find(node);
    if (it != by_node.end() && (first == nullptr || it->second->terminate_at < first->terminate_at)) first = it->second;
  }
  return first;
}

SpotDecision Evict(SpotDecision d, bool checkpointed, std::string reason) {
  d.action = SpotAction::kEvict;
  d.checkpointed = checkpointed;
  d.reason = std::move(reason);
  return d;
}

SpotDecision DecideCheckpointThenEvict(const GangOnNodes& gang, const NodeNotice& notice, double now,
                                       const SpotConfig& config, SpotDecision d) {
  const bool asked = gang.checkpoint_deadline && *gang.checkpoint_deadline >= notice.noticed_at;
  const bool acknowledged = gang.checkpoint_done && (!gang.checkpoint_done_at || *gang.checkpoint_done_at >= notice.noticed_at);
  if (!asked) {
    d.deadline = CheckpointDeadline(notice, now, config);
    if (d.deadline <= now) return Evict(d, false, "no time left to checkpoint before the node goes");
    d.action = SpotAction::kRequestCheckpoint;
    return d;
  }
  d.deadline = *gang.checkpoint_deadline;
  if (acknowledged) return Evict(d, true, "checkpoint done");
  if (now >= d.deadline) return Evict(d, false, "checkpoint deadline passed without an acknowledgement");
  d.action = SpotAction::kWait;
  return d;
}

}  // namespace

double CheckpointDeadline(const NodeNotice& notice, double now, const SpotConfig& config) {
  const double latest = notice.terminate_at - config.eviction_margin_seconds;
  return std::max(now, std::min(now + config.checkpoint_grace_seconds, latest));
}

SpotPlan PlanSpotReclaim(const std::vector<NodeNotice>& notices, const std::vector<GangOnNodes>& gangs, double now,
                         const SpotConfig& config) {
  SpotPlan plan;
  std::unordered_map<NodeId, const NodeNotice*> by_node;
  for (const NodeNotice& n : notices) {
    auto [it, fresh] = by_node.emplace(n.node, &n);
    if (!fresh && n.terminate_at < it->second->terminate_at) it->second = &n;
  }
  for (const GangOnNodes& gang : gangs) {
    if (gang.terminating) continue;
    const NodeNotice* notice = FirstToGo(gang, by_node);
    if (notice == nullptr) {
      if (gang.checkpoint_asked_for_notice) plan.withdrawn.push_back(gang.name);
      continue;
    }
    if (config.policy == SpotPolicy::kIgnore) continue;
    SpotDecision d;
    d.gang = gang.name;
    d.node = notice->node;
    d.terminate_at = notice->terminate_at;
    d = config.policy == SpotPolicy::kEvictOnNotice
            ? Evict(d, false, "evict on notice")
            : DecideCheckpointThenEvict(gang, *notice, now, config, d);
    if (d.action != SpotAction::kEvict) plan.next_wakeup = std::min(plan.next_wakeup, d.deadline);
    plan.decisions.push_back(std::move(d));
  }
  return plan;
}

}  // namespace gangplank::engine
