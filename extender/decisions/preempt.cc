#include "extender/decisions/preempt.h"

#include <algorithm>

#include "engine/fit_check.h"
#include "extender/decisions/pod_role.h"
#include "extender/decisions/reasons.h"
#include "extender/decisions/room_without.h"
#include "extender/protocol/json_writer.h"

namespace gangplank::extender {
namespace {

// A victim set: the scheduler's handful of pods plus gang mates, so a linear search beats a hash set.
// Each victim's cache id and record are looked up once and carried along (the checks below read them).
// One Candidate is reused for every node of a call, so its buffers are allocated once per call.
struct Candidate {
  std::vector<std::string_view> uids;
  std::vector<cache::PodId> ids;                 // Parallel to uids; kNoPod for pods the cache does not know.
  std::vector<const cache::PodRecord*> records;  // Parallel to uids; nullptr for pods the cache does not know.
  engine::NodeState after;                       // The node with the victims gone (see FitsOnceGone).

  void Clear() {
    uids.clear();
    ids.clear();
    records.clear();
  }
  // A proposed victim; a UID proposed twice counts once.
  void Add(std::string_view uid, cache::PodId id, const cache::PodRecord* record) {
    if (std::find(uids.begin(), uids.end(), uid) != uids.end()) return;
    uids.push_back(uid);
    ids.push_back(id);
    records.push_back(record);
  }
  // A gang mate, unless already in the set (a known pod's id stands for its UID).
  void AddMate(const cache::StateView& view, cache::PodId id) {
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return;
    const cache::PodRecord& mate = view.Pod(id);
    uids.push_back(mate.uid);
    ids.push_back(id);
    records.push_back(&mate);
  }
};

// Sets `why` to the refusal for a victim whose gang mate `member` cannot go with it; false.
bool SplitsGang(const cache::StateView& view, cache::PodId victim, cache::PodId member, std::string_view how,
                std::string& why) {
  const cache::PodRecord& m = view.Pod(member);
  why.clear();
  AppendText(why, {"would split gang ", view.Pod(victim).gang, ": member ", m.namespace_, "/", m.name, " ", how});
  return false;
}

// Adds the rest of every touched gang; false with the reason in `why` when a gang cannot be taken
// whole from this node. Reads placements only: records are read for the mates added and for the reason.
bool CompleteGangs(const cache::StateView& view, engine::NodeId node, Candidate& c, std::string& why) {
  for (size_t i = 0; i < c.ids.size(); ++i) {  // Grows while iterating: added members are checked too.
    if (c.ids[i] == cache::kNoPod) continue;
    const std::vector<cache::PodId>* members = view.Placement(c.ids[i]).gang_members;
    if (members == nullptr) continue;
    for (const cache::PodId id : *members) {  // By id: no UID hashing per mate.
      const cache::PodPlacement& member = view.Placement(id);
      if (member.node == engine::kNoNode) continue;  // Holds nothing: nothing to evict.
      if (member.node != node) return SplitsGang(view, c.ids[i], id, "runs on another node", why);
      if (!member.bound) {
        return SplitsGang(view, c.ids[i], id, "is planned but not bound, so the scheduler cannot evict it", why);
      }
      c.AddMate(view, id);
    }
  }
  return true;
}

// Whether evicting a victim set (all on one node) would take a queue below its guarantee in the node's
// pool. A queue's quota and usage in a pool are looked up once per call: the candidates of one call
// share a handful of queues and pools, so the facts are kept in a short list.
class GuaranteeCheck {
 public:
  GuaranteeCheck(const cache::StateView& view, const PodRole& preemptor, const engine::PodRequest& request)
      : view_(view), preemptor_(preemptor), request_(request) {}

  // Whether the set can go; false with the reason in `why` when it cannot.
  bool Check(engine::NodeId node, const Candidate& c, std::string& why) {
    const int pool = view_.PoolOf(node);
    if (pool < 0) return true;  // Guarantees are per pool; a node in no pool has none to keep.
    removed_.clear();  // Per queue; few queues per set.
    for (const cache::PodRecord* victim : c.records) {
      if (victim == nullptr || !victim->allocation || victim->queue.empty()) continue;
      auto it = std::find_if(removed_.begin(), removed_.end(), [&](const auto& q) { return q.first == victim->queue; });
      if (it == removed_.end()) removed_.emplace_back(victim->queue, victim->GpuMilli());
      else it->second += victim->GpuMilli();
    }
    for (const auto& [queue, milli] : removed_) {
      const Facts& f = FactsOf(queue, pool);
      if (f.guaranteed <= 0) continue;
      std::int64_t after = f.usage - milli;
      if (queue == preemptor_.queue) after += request_.TotalGpuMilli();  // Reshuffling inside one queue.
      if (after < f.guaranteed) {
        why.clear();
        AppendText(why, {"would take queue ", queue, " below its guarantee of ", FormatGpus(f.guaranteed),
                         " GPUs in pool ", view_.pools()[pool].name, " (to ", FormatGpus(after), ")"});
        return false;
      }
    }
    return true;
  }

 private:
  struct Facts {
    std::string_view queue;
    int pool;
    std::int64_t guaranteed;  // Milli; 0: nothing to keep.
    std::int64_t usage;
  };

  const Facts& FactsOf(std::string_view queue, int pool) {
    for (const Facts& f : facts_) {
      if (f.pool == pool && f.queue == queue) return f;
    }
    const cache::QueueConfig* config = view_.FindQueue(queue);
    const cache::PoolQuota* quota = config == nullptr ? nullptr : config->QuotaIn(view_.pools()[pool].name);
    const std::int64_t guaranteed =
        quota == nullptr ? 0 : static_cast<std::int64_t>(std::max(quota->guaranteed_gpus, 0)) * engine::kMilliPerGpu;
    return facts_.emplace_back(Facts{queue, pool, guaranteed, view_.QueueUsageMilli(queue, pool)});
  }

  const cache::StateView& view_;
  const PodRole& preemptor_;
  const engine::PodRequest& request_;
  std::vector<std::pair<std::string_view, std::int64_t>> removed_;
  std::vector<Facts> facts_;
};

// Whether the pod fits the node once the victims are gone.
bool FitsOnceGone(const cache::StateView& view, engine::NodeId node, const engine::FitCheck& fit,
                  const engine::PodRequest& request, Candidate& c) {
  if (!fit.Eligible(node)) return false;
  if (fit.HasCapacity(node)) return true;  // Handing capacity back only adds room.
  return FitsWithout(view, node, request, c.records, c.after);
}

// Answers a kept set, highest priority first as kube-scheduler orders victims; unknown pods keep their place.
void KeepVictims(const Candidate& c, std::string_view node_name, std::int64_t num_pdb_violations, NodeVictimsMap& kept) {
  if (c.uids.size() == 1) {
    kept.AddUid(c.uids[0]);
  } else {
    std::vector<size_t> order(c.uids.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto priority = [&](size_t i) { return c.records[i] ? c.records[i]->priority : 0; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return priority(a) > priority(b); });
    for (size_t i : order) kept.AddUid(c.uids[i]);
  }
  kept.CloseNode(node_name, num_pdb_violations);
}

}  // namespace

PreemptVerdicts SelectVictims(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                              const NodeVictimsMap& candidates) {
  PreemptVerdicts out;
  const PodRole role = RoleOf(view, pod);
  // Every node and every victim is looked up in one batch each, so their cache misses overlap.
  std::vector<std::string_view> node_names;
  node_names.reserve(candidates.size());
  for (const auto& [node_name, victims] : candidates) node_names.push_back(node_name);
  const std::vector<engine::NodeId> nodes = view.FindNodes(node_names);
  const std::vector<std::string_view>& uids = candidates.all_uids();
  const std::vector<cache::PodId> ids = view.FindPodIds(uids);
  // Records and placements of all victims are fetched in one pass of independent loads, so their
  // cache misses overlap instead of stalling each node in turn.
  std::vector<const cache::PodRecord*> records(ids.size(), nullptr);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == cache::kNoPod) continue;
    __builtin_prefetch(&view.Placement(ids[i]));
    records[i] = &view.Pod(ids[i]);
  }
  const engine::FitCheck fit(view.cluster(), request);
  GuaranteeCheck guarantees(view, role, request);
  Candidate c;
  std::string why;  // A refusal's reason, built in place for each refused node.
  bool mates_plain = true;  // Whether the gang mates added to kept sets need no escaping.
  out.result.node_to_meta_victims.reserve(candidates.size(), uids.size());
  size_t node_index = 0;
  for (const auto& [node_name, victims] : candidates) {
    const engine::NodeId node = nodes[node_index++];
    if (victims.uids.empty()) {
      out.dropped.insert_or_assign(node_name, "no victims proposed");
      continue;
    }
    if (!role.queue_forbidden.empty()) {
      out.dropped.insert_or_assign(node_name, role.queue_forbidden);
      continue;
    }
    if (!role.planned_node.empty() && node_name != role.planned_node) {
      out.dropped.insert_or_assign(node_name, "pod is planned for node " + role.planned_node);
      continue;
    }
    if (node == engine::kNoNode) {
      out.dropped.insert_or_assign(node_name, "node is not in gangplank's cache");
      continue;
    }
    c.Clear();
    const size_t first = static_cast<size_t>(victims.uids.data() - uids.data());
    for (size_t k = 0; k < victims.uids.size(); ++k) c.Add(victims.uids[k], ids[first + k], records[first + k]);
    const size_t proposed = c.uids.size();
    if (!CompleteGangs(view, node, c, why) || !guarantees.Check(node, c, why)) {
      out.dropped.insert_or_assign(node_name, why);
      continue;
    }
    if (!FitsOnceGone(view, node, fit, request, c)) {
      out.dropped.insert_or_assign(node_name, "evicting these victims does not make room for the pod");
      continue;
    }
    for (size_t i = proposed; i < c.uids.size(); ++i) mates_plain = mates_plain && IsPlainJsonString(c.uids[i]);
    KeepVictims(c, node_name, victims.num_pdb_violations, out.result.node_to_meta_victims);
  }
  // Candidates come sorted by node name, so each kept node was appended; the names and the proposed
  // UIDs are the candidates' own.
  out.result.node_to_meta_victims.set_known_plain(candidates.known_plain() && mates_plain);
  return out;
}

}  // namespace gangplank::extender
