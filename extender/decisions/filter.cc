#include "extender/decisions/filter.h"

#include "engine/fit_check.h"
#include "extender/decisions/pod_role.h"
#include "extender/decisions/reasons.h"
#include "extender/decisions/room_without.h"

namespace gangplank::extender {
namespace {

// The rejection every node of `pool` gets when the pod's queue cannot take it there, or nothing.
// Quotas are per pool (Queue spec.pools); nodes in no pool have none.
std::optional<Rejection> QueueLimit(const cache::StateView& view, const PodRole& role, const engine::PodRequest& request,
                                    int pool) {
  if (role.queue.empty() || !request.WantsGpu() || role.reservation_held || pool < 0) return std::nullopt;
  const cache::QueueConfig* queue = view.FindQueue(role.queue);
  if (queue == nullptr) return std::nullopt;
  const std::string& pool_name = view.pools()[pool].name;
  const cache::PoolQuota* quota = queue->QuotaIn(pool_name);
  if (quota == nullptr) {
    return Rejection{"queue_limit", "queue " + role.queue + " may not use GPU pool " + pool_name, false};
  }
  if (!quota->limit_gpus) return std::nullopt;
  const std::int64_t used = view.QueueUsageMilli(role.queue, pool);
  const std::int64_t limit = static_cast<std::int64_t>(*quota->limit_gpus) * engine::kMilliPerGpu;
  if (used + request.TotalGpuMilli() <= limit) return std::nullopt;
  return Rejection{"queue_limit",
                   "queue " + role.queue + " at its limit of " + FormatGpus(limit) + " GPUs in pool " + pool_name +
                       " (uses " + FormatGpus(used) + ", pod needs " + FormatGpus(request.TotalGpuMilli()) + ")",
                   false};
}

// QueueLimit per pool, worked out once per pool a call meets (a handful at most).
class QueueLimits {
 public:
  QueueLimits(const cache::StateView& view, const PodRole& role, const engine::PodRequest& request)
      : view_(view), role_(role), request_(request), checked_(view.pools().size() + 1, 0),
        verdict_(view.pools().size() + 1) {}

  const std::optional<Rejection>& For(int pool) {
    const size_t slot = static_cast<size_t>(pool + 1);
    if (!checked_[slot]) {
      verdict_[slot] = QueueLimit(view_, role_, request_, pool);
      checked_[slot] = 1;
    }
    return verdict_[slot];
  }

 private:
  const cache::StateView& view_;
  const PodRole& role_;
  const engine::PodRequest& request_;
  std::vector<char> checked_;
  std::vector<std::optional<Rejection>> verdict_;
};

// Whether the pod fits `node` once the victims its grant names there are gone. Only where kube-scheduler
// acted on the grant: the node it nominated the pod for, or one a granted victim has already left
// (deleted, finished or moved). Elsewhere the victims still run. kube-scheduler's own resource filter
// still counts its cache, so the pod is never bound beside victims that are still there.
bool FitsOnceVictimsGone(const cache::StateView& view, const cache::PodInfo& pod, engine::NodeId node,
                         std::string_view name, const engine::PodRequest& request, const PreemptionGrant& grant,
                         engine::NodeState& scratch) {
  const size_t granted = grant.Find(name);
  if (granted == grant.size()) return false;
  const std::vector<std::string_view> uids = grant.victims(granted);
  std::vector<const cache::PodRecord*> victims;
  victims.reserve(uids.size());
  bool acted = pod.nominated_node_name == name;
  for (const std::string_view uid : uids) {
    const cache::PodRecord* victim = view.FindPod(uid);
    acted = acted || victim == nullptr || victim->terminal || victim->HoldingNode() != name;
    victims.push_back(victim);
  }
  return acted && FitsWithout(view, node, request, victims, scratch);
}

}  // namespace

FilterVerdicts FilterNodes(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                           const std::vector<std::string_view>& candidates, const PreemptionGrant* grant) {
  FilterVerdicts out;
  out.passed.reserve(candidates.size());
  const PodRole role = RoleOf(view, pod);
  QueueLimits queue_limits(view, role, request);
  auto reject = [&](std::string_view name, const Rejection& r) {
    out.kinds.push_back(r.kind);
    (r.resolvable ? out.failed : out.unresolvable).insert_or_assign(name, r.reason);
  };
  Rejection why;  // Reused for every node that lacks capacity: its reason is built in place.
  const engine::Cluster& cluster = view.cluster();
  const engine::FitCheck fit(cluster, request);  // Decides most nodes from their one-line summary.
  const std::vector<engine::NodeId> ids = view.FindNodes(candidates);
  engine::NodeState scratch;  // A node's free capacity with granted victims handed back.
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string_view name = candidates[i];
    if (!role.queue_forbidden.empty()) {
      reject(name, {"queue_forbidden", role.queue_forbidden, false});
      continue;
    }
    if (!role.planned_node.empty() && name != role.planned_node) {
      reject(name, {"planned_elsewhere", "pod is planned for node " + role.planned_node + " by gangplank's admission plan",
                    false});
      continue;
    }
    const engine::NodeId id = ids[i];
    if (id == engine::kNoNode) {
      reject(name, {"unknown_node", "node is not in gangplank's cache yet", true});
      continue;
    }
    if (const std::optional<Rejection>& limit = queue_limits.For(view.PoolOf(id))) {
      reject(name, *limit);
      continue;
    }
    // A held reservation is this pod's own capacity: the node fits it by construction, but static
    // eligibility (cordon, taints added since the plan) still applies.
    const bool fits = role.reservation_held ? fit.Eligible(id) : fit.Fits(id);
    if (fits || (grant != nullptr && fit.Eligible(id) && FitsOnceVictimsGone(view, pod, id, name, request, *grant, scratch))) {
      out.passed.push_back(i);
    } else {
      // An eligible node lacks capacity: its summary says what, without its spec.
      if (fit.Eligible(id)) ExplainNoCapacity(view, id, request, why);
      else ExplainNoFit(view, id, request, why);
      reject(name, why);
    }
  }
  return out;
}

}  // namespace gangplank::extender
