#include "extender/decisions/preempt.h"

#include <algorithm>

#include "extender/decisions/pod_role.h"
#include "extender/decisions/reasons.h"

namespace gangplank::extender {
namespace {

// A victim set: the scheduler's handful of pods plus gang mates, so a linear search beats a hash set.
// Each victim's cache record is looked up once and carried along (every check below reads it).
// One Candidate is reused for every node of a call, so its buffers are allocated once per call.
struct Candidate {
  std::vector<std::string_view> uids;
  std::vector<const cache::PodRecord*> records;  // Parallel to uids; nullptr for pods the cache does not know.
  engine::NodeState after;                // The node with the victims gone (see FitsWithout).

  void Clear() { uids.clear(), records.clear(); }
  void Add(std::string_view uid, const cache::PodRecord* record) {
    if (std::find(uids.begin(), uids.end(), uid) != uids.end()) return;
    uids.push_back(uid);
    records.push_back(record);
  }
};

// Adds the rest of every touched gang; the reason when a gang cannot be taken whole from this node.
std::string CompleteGangs(const cache::StateView& view, engine::NodeId node, Candidate& c) {
  for (size_t i = 0; i < c.uids.size(); ++i) {  // Grows while iterating: added members are checked too.
    const cache::PodRecord* victim = c.records[i];
    if (victim == nullptr || victim->gang.empty()) continue;
    for (const std::string& uid : view.GangMembers(victim->gang)) {
      const cache::PodRecord* member = view.FindPod(uid);
      if (member == nullptr || !member->allocation) continue;  // Holds nothing: nothing to evict.
      if (member->allocation->node != node) {
        return "would split gang " + victim->gang + ": member " + member->namespace_ + "/" + member->name +
               " runs on another node";
      }
      if (member->node.empty()) {
        return "would split gang " + victim->gang + ": member " + member->namespace_ + "/" + member->name +
               " is planned but not bound, so the scheduler cannot evict it";
      }
      c.Add(uid, member);
    }
  }
  return {};
}

// The reason when evicting the set (all on `node`) would take a queue below its guarantee in the
// node's pool.
std::string CheckGuarantees(const cache::StateView& view, engine::NodeId node, const PodRole& preemptor,
                            const engine::PodRequest& request, const Candidate& c) {
  const int pool = view.PoolOf(node);
  if (pool < 0) return {};  // Guarantees are per pool; a node in no pool has none to keep.
  std::vector<std::pair<std::string_view, std::int64_t>> removed;  // Per queue; few queues per set.
  for (const cache::PodRecord* victim : c.records) {
    if (victim == nullptr || !victim->allocation || victim->queue.empty()) continue;
    auto it = std::find_if(removed.begin(), removed.end(), [&](const auto& q) { return q.first == victim->queue; });
    if (it == removed.end()) removed.emplace_back(victim->queue, victim->GpuMilli());
    else it->second += victim->GpuMilli();
  }
  const std::string& pool_name = view.pools()[pool].name;
  for (const auto& [queue, milli] : removed) {
    const cache::QueueConfig* config = view.FindQueue(queue);
    const cache::PoolQuota* quota = config == nullptr ? nullptr : config->QuotaIn(pool_name);
    if (quota == nullptr || quota->guaranteed_gpus <= 0) continue;
    std::int64_t after = view.QueueUsageMilli(queue, pool) - milli;
    if (queue == preemptor.queue) after += request.TotalGpuMilli();  // Reshuffling inside one queue.
    const std::int64_t guaranteed = static_cast<std::int64_t>(quota->guaranteed_gpus) * engine::kMilliPerGpu;
    if (after < guaranteed) {
      return "would take queue " + std::string(queue) + " below its guarantee of " + FormatGpus(guaranteed) +
             " GPUs in pool " + pool_name + " (to " + FormatGpus(after) + ")";
    }
  }
  return {};
}

// Whether the pod fits the node once the victims are gone: their allocations are handed back on a
// copy of the node's free capacity, then the engine's own capacity rule decides.
bool FitsWithout(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request, Candidate& c) {
  if (!view.cluster().Eligible(node, request)) return false;
  engine::NodeState& state = c.after;
  state = view.cluster().state(node);  // Reuses the buffer: no allocation after the first node.
  for (const cache::PodRecord* pod : c.records) {
    if (pod == nullptr || !pod->allocation || pod->allocation->node != node) continue;
    const engine::Allocation& a = *pod->allocation;
    state.free.cpu_milli += a.host.cpu_milli;
    state.free.memory_mib += a.host.memory_mib;
    for (int g : a.gpus) state.gpu_free[static_cast<size_t>(g)] += a.milli_per_gpu;
  }
  return engine::CapacityFits(state, request);
}

}  // namespace

PreemptVerdicts SelectVictims(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                              NodeVictimsMap candidates) {
  PreemptVerdicts out;
  const PodRole role = RoleOf(view, pod);
  Candidate c;
  for (auto& [node_name, victims] : candidates) {
    if (victims.uids.empty()) {
      out.dropped.insert_or_assign(node_name, "no victims proposed");
      continue;
    }
    if (!role.planned_node.empty() && node_name != role.planned_node) {
      out.dropped.insert_or_assign(node_name, "pod is planned for node " + role.planned_node);
      continue;
    }
    const engine::NodeId node = view.FindNode(node_name);
    if (node == engine::kNoNode) {
      out.dropped.insert_or_assign(node_name, "node is not in gangplank's cache");
      continue;
    }
    c.Clear();
    for (std::string_view uid : victims.uids) c.Add(uid, view.FindPod(uid));
    std::string why = CompleteGangs(view, node, c);
    if (why.empty()) why = CheckGuarantees(view, node, role, request, c);
    if (why.empty() && !FitsWithout(view, node, request, c)) why = "evicting these victims does not make room for the pod";
    if (!why.empty()) {
      out.dropped.insert_or_assign(node_name, std::move(why));
      continue;
    }
    // Highest priority first, as kube-scheduler orders victims; unknown pods keep their place.
    if (c.uids.size() > 1) {
      std::vector<size_t> order(c.uids.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      auto priority = [&](size_t i) { return c.records[i] ? c.records[i]->priority : 0; };
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return priority(a) > priority(b); });
      std::vector<std::string_view> sorted;
      sorted.reserve(order.size());
      for (size_t i : order) sorted.push_back(c.uids[i]);
      c.uids = std::move(sorted);
    }
    // Candidates come sorted by node name, so each kept node is appended at the end of the map.
    MetaVictims& kept = out.result.node_to_meta_victims.emplace_hint(out.result.node_to_meta_victims.end(),
                                                                     node_name, MetaVictims{})->second;
    kept.uids = c.uids;
    kept.num_pdb_violations = victims.num_pdb_violations;
  }
  return out;
}

}  // namespace gangplank::extender
