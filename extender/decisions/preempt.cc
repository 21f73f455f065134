#include "extender/decisions/preempt.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "extender/decisions/pod_role.h"
#include "extender/decisions/reasons.h"

namespace gangplank::extender {
namespace {

struct Candidate {
  std::vector<std::string> uids;
  std::unordered_set<std::string> set;

  void Add(const std::string& uid) {
    if (set.insert(uid).second) uids.push_back(uid);
  }
};

// Adds the rest of every touched gang; the reason when a gang cannot be taken whole from this node.
std::string CompleteGangs(const StateView& view, engine::NodeId node, Candidate& c) {
  for (size_t i = 0; i < c.uids.size(); ++i) {  // Grows while iterating: added members are checked too.
    const PodRecord* victim = view.FindPod(c.uids[i]);
    if (victim == nullptr || victim->gang.empty()) continue;
    for (const std::string& uid : view.GangMembers(victim->gang)) {
      const PodRecord* member = view.FindPod(uid);
      if (member == nullptr || !member->allocation) continue;  // Holds nothing: nothing to evict.
      if (member->allocation->node != node) {
        return "would split gang " + victim->gang + ": member " + member->namespace_ + "/" + member->name +
               " runs on another node";
      }
      if (member->node.empty()) {
        return "would split gang " + victim->gang + ": member " + member->namespace_ + "/" + member->name +
               " is planned but not bound, so the scheduler cannot evict it";
      }
      c.Add(uid);
    }
  }
  return {};
}

// The reason when evicting the set would take a queue below its guarantee.
std::string CheckGuarantees(const StateView& view, const PodRole& preemptor, const engine::PodRequest& request,
                            const Candidate& c) {
  std::unordered_map<std::string, std::int64_t> removed;
  for (const auto& uid : c.uids) {
    const PodRecord* victim = view.FindPod(uid);
    if (victim != nullptr && victim->allocation && !victim->queue.empty()) removed[victim->queue] += victim->GpuMilli();
  }
  for (const auto& [queue, milli] : removed) {
    const QueueConfig* config = view.FindQueue(queue);
    if (config == nullptr || config->guaranteed_gpus <= 0) continue;
    std::int64_t after = view.QueueUsageMilli(queue) - milli;
    if (queue == preemptor.queue) after += request.TotalGpuMilli();  // Reshuffling inside one queue.
    const std::int64_t guaranteed = static_cast<std::int64_t>(config->guaranteed_gpus) * engine::kMilliPerGpu;
    if (after < guaranteed) {
      return "would take queue " + queue + " below its guarantee of " + FormatGpus(guaranteed) + " GPUs (to " +
             FormatGpus(after) + ")";
    }
  }
  return {};
}

// Whether the pod fits the node once the victims are gone: their allocations are handed back on a
// copy of the node's free capacity, then the engine's own fit rules (CPU, memory, DefaultGpuChoice)
// decide.
bool FitsWithout(const StateView& view, engine::NodeId node, const engine::PodRequest& request, const Candidate& c) {
  if (!view.cluster().Eligible(node, request)) return false;
  engine::NodeState state = view.cluster().state(node);
  for (const auto& uid : c.uids) {
    const PodRecord* pod = view.FindPod(uid);
    if (pod == nullptr || !pod->allocation || pod->allocation->node != node) continue;
    const engine::Allocation& a = *pod->allocation;
    state.free.cpu_milli += a.host.cpu_milli;
    state.free.memory_mib += a.host.memory_mib;
    for (int g : a.gpus) state.gpu_free[static_cast<size_t>(g)] += a.milli_per_gpu;
  }
  if (state.free.cpu_milli < request.host.cpu_milli || state.free.memory_mib < request.host.memory_mib) return false;
  return !request.WantsGpu() || !engine::DefaultGpuChoice(state, request).empty();
}

}  // namespace

PreemptVerdicts SelectVictims(const StateView& view, const PodInfo& pod, const engine::PodRequest& request,
                              const std::map<std::string, MetaVictims>& candidates) {
  PreemptVerdicts out;
  const PodRole role = RoleOf(view, pod);
  for (const auto& [node_name, victims] : candidates) {
    if (victims.uids.empty()) {
      out.dropped[node_name] = "no victims proposed";
      continue;
    }
    if (!role.planned_node.empty() && node_name != role.planned_node) {
      out.dropped[node_name] = "pod is planned for node " + role.planned_node;
      continue;
    }
    const engine::NodeId node = view.FindNode(node_name);
    if (node == engine::kNoNode) {
      out.dropped[node_name] = "node is not in gangplank's cache";
      continue;
    }
    Candidate c;
    for (const auto& uid : victims.uids) c.Add(uid);
    std::string why = CompleteGangs(view, node, c);
    if (why.empty()) why = CheckGuarantees(view, role, request, c);
    if (why.empty() && !FitsWithout(view, node, request, c)) why = "evicting these victims does not make room for the pod";
    if (!why.empty()) {
      out.dropped[node_name] = std::move(why);
      continue;
    }
    // Highest priority first, as kube-scheduler orders victims; unknown pods keep their place.
    std::stable_sort(c.uids.begin(), c.uids.end(), [&](const std::string& a, const std::string& b) {
      const PodRecord* pa = view.FindPod(a);
      const PodRecord* pb = view.FindPod(b);
      return (pa ? pa->priority : 0) > (pb ? pb->priority : 0);
    });
    MetaVictims& kept = out.result.node_to_meta_victims[node_name];
    kept.uids = std::move(c.uids);
    kept.num_pdb_violations = victims.num_pdb_violations;
  }
  return out;
}

}  // namespace gangplank::extender
