#include "operator/model/gang_entries.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "cache/objects/conventions.h"
#include "base/time_format.h"
#include "operator/gangs/admission_id.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

// The kubelet's default maxPods: no node of the pool runs more members than this.
constexpr std::int64_t kMaxPodsPerNode = 110;

// Seconds the gang says it runs: the longest any member declares, from its spec.activeDeadlineSeconds
// (the kubelet ends the pod then, so a tenant cannot understate it to backfill onto reserved nodes and
// stay) or, without one, the gangplank.io/expected-runtime annotation. Unset when no member declares
// a positive, well-formed number. (A Job's own activeDeadlineSeconds is not in the cache's pod model.)
std::optional<double> ExpectedRuntimeOf(const std::vector<const Member*>& members) {
  std::optional<double> out;
  for (const Member* m : members) {
    double seconds = 0;
    if (m->pod.active_deadline_seconds) {
      seconds = static_cast<double>(*m->pod.active_deadline_seconds);
    } else if (const std::string text = m->pod.Annotation(cache::kExpectedRuntimeAnnotation); !text.empty()) {
      char* end = nullptr;
      seconds = std::strtod(text.c_str(), &end);
      if (end == nullptr || *end != '\0') seconds = 0;
    }
    if (seconds > 0 && std::isfinite(seconds)) out = std::max(out.value_or(0), seconds);
  }
  return out;
}

std::optional<double> CheckpointOf(const cache::PodInfo& pod) {
  const std::string text = pod.Annotation(cache::kLastCheckpointAnnotation);
  if (text.empty()) return std::nullopt;
  return base::ParseEpochSeconds(text);  // Malformed: unknown (work since the start is at stake).
}

// A pod of a shared ResourceClaim (resourceClaimName): the claim keeps its devices on this node after
// the pod goes, so the pod made again can run only here.
bool HoldsASharedClaim(const cache::PodInfo& pod) {
  return std::any_of(pod.resource_claims.begin(), pod.resource_claims.end(),
                     [](const cache::PodClaimRef& c) { return !c.claim_name.empty(); });
}

engine::RunningGang RunningOf(const Gang& gang, const EntryContext& context, const std::vector<const Member*>& members,
                              const std::vector<engine::Allocation>& allocations) {
  engine::RunningGang r;
  r.name = gang.key;
  r.queue = context.queue;
  r.allocations = allocations;
  r.start = members.front()->created;
  r.started = true;
  for (const Member* m : members) {
    r.priority = std::max(r.priority, static_cast<int>(m->pod.priority));
    if (const double admitted = AdmittedAt(m->admission_id); admitted > 0) {
      r.admitted_at = std::max(r.admitted_at, admitted);
    }
    if (auto checkpoint = CheckpointOf(m->pod)) {
      r.last_checkpoint = r.last_checkpoint ? std::min(*r.last_checkpoint, *checkpoint) : *checkpoint;
    }
    r.terminating = r.terminating || m->deleting();
    r.started = r.started && m->bound();
  }
  if (r.admitted_at > 0) r.start = r.admitted_at;
  if (auto runtime = ExpectedRuntimeOf(members)) r.expected_end = r.start + *runtime;
  // A lone pod its controller recreates may be moved by consolidation, to wherever its own request fits
  // (a bare pod evicted would be gone; a gang of several moves only whole, which costs too much).
  if (context.movable && members.size() == 1 && members.front()->pod.controller &&
      !HoldsASharedClaim(members.front()->pod)) {
    r.move_as = members.front()->request;
  }
  return r;
}

// Replacement members of a running gang (a framework replaced a lost worker) land with it: when the gang
// requires a topology level and its running members share one domain of it, the replacements are
// pinned there by a node selector, so they are not placed as a group of their own elsewhere.
void PinToRunningDomain(engine::GangRequest& g, const std::vector<engine::Allocation>& running, const cache::StateView& view) {
  if (running.empty() || g.required_level.empty()) return;
  std::string domain;
  for (const engine::Allocation& a : running) {
    const auto& labels = view.cluster().spec(a.node).labels;
    const auto it = labels.find(g.required_level);
    if (it == labels.end() || (!domain.empty() && it->second != domain)) return;
    domain = it->second;
  }
  for (engine::PodRequest& member : g.members) member.node_selector[g.required_level] = domain;
}

// Why a group whose members come only after its first (an exclusive LeaderWorkerSet's workers) can
// never fit the pool; empty when it may. Its size is the tenant's own field: without this bound, a
// declared size of tens of thousands would be planned as that many copies of the leader every round.
std::string LaterMembersBeyondPool(const Member& first, int later_members, const cache::StateView& view) {
  const engine::PodRequest& request = first.request;
  const std::int64_t members = std::int64_t{later_members} + 1;
  const std::int64_t pool_milli = view.cluster().total_gpu_milli();
  if (request.WantsGpu() && members * request.TotalGpuMilli() > pool_milli) {
    return std::to_string(members) + " members of " + std::to_string(request.TotalGpuMilli() / engine::kMilliPerGpu) +
           " GPUs each ask more than the pool's " + std::to_string(pool_milli / engine::kMilliPerGpu) + " GPUs";
  }
  const std::int64_t pod_room = static_cast<std::int64_t>(view.node_count()) * kMaxPodsPerNode;
  if (members > pod_room) {
    return std::to_string(members) + " members are more pods than the pool's " + std::to_string(view.node_count()) +
           " nodes may run (" + std::to_string(kMaxPodsPerNode) + " each)";
  }
  return "";
}

// The engine's exclusive class of an exclusive LeaderWorkerSet group (GangRequest::exclusive_class): its
// pods' anti-affinity keeps every other group of the namespace's sets out of its domain. Empty for any
// other gang, and when the pool has no such level (kube-scheduler alone then keeps the groups apart).
std::string ExclusiveClassOf(const Gang& gang, const EntryContext& context, const cache::StateView& view) {
  if (!context.size || !context.size->exclusive_domain) return "";
  if (view.cluster().topology().LevelIndex(context.size->topology_key) < 0) return "";
  return "LeaderWorkerSet groups of " + gang.namespace_;
}

}  // namespace

GangEntries BuildGangEntries(const Gang& gang, const EntryContext& context, const cache::StateView& view) {
  GangEntries out;
  std::vector<const Member*> holding, waiting;
  std::vector<engine::Allocation> allocations;
  bool unsettled = false;
  for (const Member& m : gang.members) {
    const cache::PodRecord* record = view.FindPod(m.pod.uid);
    // Gated yet holding capacity: its admission is being written, or was left half-written by a stopped
    // leader (Recover's to finish or roll back), or this copy of the gang is older than the view. It is
    // not a running member, so the rest of the gang are not its replacements: admitting them now would
    // split one gang between two admissions.
    if (m.gated && !m.deleting() && record != nullptr && record->allocation) unsettled = true;
    if (record != nullptr && record->allocation) {
      holding.push_back(&m);
      allocations.push_back(*record->allocation);
      out.running_pods.push_back(m.pod);
    } else if (record != nullptr && !record->node.empty() && !record->terminal && view.FindNode(record->node) != engine::kNoNode) {
      // Bound to a node that shrank below what it holds (a GPU withdrawn): the cache no longer counts it
      // there, but it still runs, and its gang is fault recovery's to restart, not a gang that waits.
      engine::Allocation nothing;
      nothing.node = view.FindNode(record->node);
      holding.push_back(&m);
      allocations.push_back(std::move(nothing));
      out.running_pods.push_back(m.pod);
    } else if (m.gated && m.planned_node.empty() && !m.deleting()) {
      waiting.push_back(&m);
    }
  }
  if (!holding.empty()) {
    out.running = RunningOf(gang, context, holding, allocations);
    out.running->exclusive_class = ExclusiveClassOf(gang, context, view);
  }
  if (waiting.empty() || unsettled) return out;

  auto block = [&](std::string reason, std::string message) {
    out.block_reason = std::move(reason);
    out.block_message = std::move(message);
    return out;
  };
  for (const Member* m : waiting) {
    if (!m->request_error.empty()) return block(reasons::kInvalidPod, "pod " + m->pod.name + ": " + m->request_error);
  }
  if (!context.queue_verdict.reason.empty()) return block(context.queue_verdict.reason, context.queue_verdict.message);
  if (!context.size) return block(context.size_reason, context.size_message);
  const int size = context.size->min_members;
  if (holding.empty() && static_cast<int>(waiting.size()) < size) {
    return block(reasons::kGangIncomplete, std::to_string(waiting.size()) + " of " + std::to_string(size) + " pods exist (size from " +
                                       context.size->source + ")");
  }

  // Members the controller makes only once the first is placed (an exclusive LeaderWorkerSet's workers):
  // the first is planned with copies of its request for them, below, when the group could fit at all.
  const bool leader_first = holding.empty() && waiting.size() == 1 && context.size->later_members > 0;
  if (leader_first) {
    if (std::string message = LaterMembersBeyondPool(*waiting.front(), context.size->later_members, view); !message.empty()) {
      return block(reasons::kGangExceedsPool, std::move(message));
    }
  }

  // A native basic{} group is not a gang: its pods are admitted one at a time, the oldest first, each
  // as it fits on its own (the engine counts a waiting entry's every member against free capacity).
  // Under kube-scheduler's PodGroup cycle they go together: it would hold the released ones behind a gated one.
  const bool singly = context.size->singly && !context.native_gang_cycle;
  if (singly && waiting.size() > 1) {
    waiting = {*std::min_element(waiting.begin(), waiting.end(),
                                 [](const Member* a, const Member* b) { return a->created < b->created; })};
  }

  engine::WaitingGang w;
  engine::GangRequest& g = w.request;
  g.name = gang.key;
  g.queue = context.queue;
  if (singly) {
    g.min_members = 1;
  } else if (context.size->singly || !holding.empty()) {
    // A basic group under the cycle, and a running gang's replacements: all of them together.
    g.min_members = 0;
  } else {
    g.min_members = size;  // At least `size` members.
  }
  g.required_level = waiting.front()->pod.Annotation(cache::kTopologyRequiredAnnotation);
  g.preferred_level = waiting.front()->pod.Annotation(cache::kTopologyPreferredAnnotation);
  // A group's own topology constraint (a native PodGroup's, which kube-scheduler holds the group to; a
  // LeaderWorkerSet's exclusive topology, which its pods' affinities hold it to) wins over the pod's
  // annotation when it names one of the pool's levels (another key is the scheduler's own to keep).
  const std::string& group_level = context.size->topology_key;
  if (!group_level.empty() && view.cluster().topology().LevelIndex(group_level) >= 0) g.required_level = group_level;
  g.exclusive_class = ExclusiveClassOf(gang, context, view);
  std::vector<double> created;
  for (const Member* m : waiting) {
    g.members.push_back(m->request);
    g.priority = std::max(g.priority, static_cast<int>(m->pod.priority));
    created.push_back(m->created);
    out.waiting_pods.push_back(m->pod);
  }
  if (context.size->priority) g.priority = *context.size->priority;  // The group's, resolved by the API server.
  // The later members are planned with the first, so it starts only where they fit too. They have no
  // pods: the reconciler holds their nodes for them.
  if (leader_first) {
    for (int i = 0; i < context.size->later_members; ++i) g.members.push_back(waiting.front()->request);
    g.min_members = static_cast<int>(g.members.size());
  }
  // The gang arrives when it is complete (its min_members-th pod), not with its first: an old placeholder
  // pod labelled into a gang ahead of time buys it no place in the queue, nor an early reservation (L3).
  std::sort(created.begin(), created.end());
  const size_t complete = static_cast<size_t>(std::clamp(g.min_members, 1, static_cast<int>(created.size()))) - 1;
  w.arrival = created[complete];
  PinToRunningDomain(g, allocations, view);
  if (context.requeued_arrival >= 0) {
    w.arrival = context.requeued_arrival;
    w.front = true;
  }
  if (context.gang_timeout_seconds > 0) w.timeout = context.gang_timeout_seconds;
  w.expected_runtime = ExpectedRuntimeOf(waiting);
  out.waiting = std::move(w);
  return out;
}

}  // namespace gangplank::op
