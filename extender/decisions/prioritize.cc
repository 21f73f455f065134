#include "extender/decisions/prioritize.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "engine/fit_check.h"
#include "extender/decisions/pod_role.h"

namespace gangplank::extender {
namespace {

// Per topology level, the domains that hold other members of the pod's gang.
std::vector<std::unordered_set<engine::DomainId>> GangDomains(const cache::StateView& view, const cache::PodInfo& pod,
                                                             const PodRole& role) {
  const engine::Topology& topology = view.cluster().topology();
  std::vector<std::unordered_set<engine::DomainId>> domains;
  if (role.gang.empty() || topology.levels() == 0) return domains;
  domains.resize(static_cast<size_t>(topology.levels()));
  bool any = false;
  for (const cache::PodId id : view.GangMembers(role.gang)) {
    const cache::PodRecord* member = &view.Pod(id);
    if (member->uid == pod.uid || !member->allocation) continue;
    const auto& path = topology.path(member->allocation->node);
    for (int level = 0; level < topology.levels(); ++level) {
      if (path[level] != engine::kNoDomain) {
        domains[level].insert(path[level]);
        any = true;
      }
    }
  }
  if (!any) domains.clear();
  return domains;
}

// 1 when the node shares the narrowest level with a gang member, falling to 0 when it shares none.
double TopologyCloseness(const engine::Topology& topology, engine::NodeId node,
                         const std::vector<std::unordered_set<engine::DomainId>>& gang_domains) {
  const auto& path = topology.path(node);
  for (int level = topology.levels() - 1; level >= 0; --level) {
    if (path[level] != engine::kNoDomain && gang_domains[level].count(path[level])) {
      return static_cast<double>(level + 1) / topology.levels();
    }
  }
  return 0;
}

}  // namespace

std::vector<HostPriority> PrioritizeNodes(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                                          const std::vector<std::string_view>& candidates,
                                          engine::ScoringPolicy& policy) {
  std::vector<HostPriority> out(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) out[i].host = candidates[i];
  const PodRole role = RoleOf(view, pod);
  if (!role.planned_node.empty()) {
    for (auto& p : out) p.score = p.host == role.planned_node ? kMaxExtenderPriority : kMinExtenderPriority;
    return out;
  }
  const engine::Cluster& cluster = view.cluster();
  const engine::FitCheck fit(cluster, request);  // Decides most nodes from their one-line summary.
  std::vector<engine::NodeId> fitting;  // The candidates that fit, scored in one batch.
  std::vector<size_t> at;               // Their positions in `candidates`.
  fitting.reserve(candidates.size());
  at.reserve(candidates.size());
  const std::vector<engine::NodeId> found = view.FindNodes(candidates);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (found[i] == engine::kNoNode || !fit.Fits(found[i])) continue;
    fitting.push_back(found[i]);
    at.push_back(i);
  }
  // Only the score matters here: FastScore skips building the GPU choice where the policy can.
  std::vector<double> raw;
  policy.FastScores(cluster, fitting, request, raw);
  double lo = 0, hi = 0;
  for (size_t k = 0; k < raw.size(); ++k) {
    lo = k > 0 ? std::min(lo, raw[k]) : raw[k];
    hi = k > 0 ? std::max(hi, raw[k]) : raw[k];
  }
  const auto gang_domains = GangDomains(view, pod, role);
  for (size_t k = 0; k < fitting.size(); ++k) {
    double score = hi > lo ? (raw[k] - lo) / (hi - lo) : 1.0;
    if (!gang_domains.empty()) score = 0.5 * score + 0.5 * TopologyCloseness(cluster.topology(), fitting[k], gang_domains);
    out[at[k]].score = std::lround(score * static_cast<double>(kMaxExtenderPriority));
  }
  return out;
}

}  // namespace gangplank::extender
