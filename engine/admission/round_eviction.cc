// What fair-share reclaim and priority preemption share: the budget, which running gangs may be victims
// at all, which waiting gangs evictions are tried for, and how a chosen set of victims is evicted.
#include <algorithm>
#include <limits>
#include <set>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"

namespace gangplank::engine {

void Round::StartEvictions() {
  const ReclaimConfig& rc = config_.reclaim;
  const double since = in_.now - rc.window_seconds;
  const int recent = static_cast<int>(std::count_if(in_.recent_evictions.begin(), in_.recent_evictions.end(),
                                                     [&](double t) { return t > since && t <= in_.now; }));
  budget_ = std::min(rc.max_victims_per_round, rc.max_victims_per_window - recent);
}

void Round::MarkEvicted(int r) {
  if (evicted_.empty()) evicted_.assign(in_.running.size(), 0);
  evicted_[r] = 1;
}

double Round::MinRuntime(int queue) const {
  return in_.queues[queue].min_runtime_seconds.value_or(config_.reclaim.min_runtime_seconds);
}

// A running gang of `queue` as a victim, unless it may not be one: ungoverned, evicted already or
// terminating, younger than its queue's minimum runtime, holding no GPUs, or (when `lost_work_capped`)
// losing more work than the cap.
std::optional<VictimCandidate> Round::AsVictim(int r, int queue, bool lost_work_capped) const {
  const RunningGang& gang = in_.running[r];
  if (Evicted(r) || gang.terminating || gang.ungoverned) return std::nullopt;
  // A gang that has not run at all (e.g. admitted this instant) is never a victim, whatever the minimum.
  if (in_.now - gang.start < MinRuntime(queue) || !(in_.now > gang.start)) return std::nullopt;
  const double gpus = gang.Gpus();
  const double lost = LostGpuSeconds(gang, in_.now);
  if (gpus <= 0 || (lost_work_capped && lost > config_.reclaim.max_lost_gpu_seconds)) return std::nullopt;
  return VictimCandidate{r, queue, gpus, lost, &gang.allocations};
}

// Gangs evictions may be tried for, in admission order: unplaced gangs (of plan_only, in an incremental
// round) within their limits, not timed out, with no victims on their way out, the first of each pod shape per queue, at most max_beneficiaries_per_round
// per queue (the loops stop there anyway). Reclaim: queues below their fair share, gangs that waited
// long enough. Priority: queues that preempt.
std::vector<int> Round::Beneficiaries(bool priority) const {
  const ReclaimConfig& rc = config_.reclaim;
  std::vector<int> picks;
  for (size_t q = 0; q < by_queue_.size(); ++q) {
    if (priority ? !in_.queues[q].preempt_lower_priority : !BelowShare(static_cast<int>(q))) continue;
    std::set<std::vector<int>> shapes;
    int found = 0;
    for (int w : by_queue_[q]) {
      if (found >= rc.max_beneficiaries_per_round) break;
      if (!gangs_[w].listed || gangs_[w].admitted || gangs_[w].timed_out || gangs_[w].gpus <= 0 || !WithinLimit(w)) {
        continue;
      }
      if (!priority && in_.now - in_.waiting[w].arrival < rc.min_wait_seconds) continue;
      auto held = reserved_.find(w);
      if (held != reserved_.end() && held->second.for_reclaim) continue;  // Its victims are on their way out.
      if (!shapes.insert(GpuSizes(Request(w))).second) continue;
      picks.push_back(w);
      ++found;
    }
  }
  std::sort(picks.begin(), picks.end(), [&](int a, int b) { return Before(a, b); });
  return picks;
}

std::string Round::BudgetSpent(const std::string& what, int w) const {
  const ReclaimConfig& rc = config_.reclaim;
  return "not " + what + " for " + Request(w).name + ": the preemption budget (" +
         std::to_string(rc.max_victims_per_round) + " gangs per round, " + std::to_string(rc.max_victims_per_window) +
         " per " + Fixed(rc.window_seconds / 3600) + " h) is spent";
}

// ChooseVictims for `w`, at most `max_victims` of them, which may use its own drain reservation; the
// model is left as it was.
VictimChoice Round::SearchVictims(int w, const std::vector<VictimCandidate>& candidates, VictimSearch search,
                                  int max_victims) {
  search.max_victims = max_victims;
  search.max_verifications = config_.reclaim.max_verifications;
  const std::size_t mark = model_.Mark();
  auto held = reserved_.find(w);
  if (held != reserved_.end()) model_.Uncordon(held->second.nodes);
  VictimChoice choice = ChooseVictims(model_, Request(w), candidates, search, rng_);
  model_.UndoTo(mark);
  return choice;
}

// Evicts the chosen victims and reserves the nodes of the verified plan for `w`, which starts there in
// a later round, once they are gone; its GPUs count for its queue from now on.
void Round::EvictFor(int w, const VictimChoice& choice, const std::vector<VictimCandidate>& candidates,
                     EvictionKind kind) {
  for (int c : choice.victims) {
    const VictimCandidate& v = candidates[c];
    out_.reclaims.push_back(Reclaimed{v.running, w, v.lost_gpu_seconds, EvictionReason(v, w, kind), kind});
    model_.Release(in_.running[v.running].allocations);
    AddAlong(tree_.path(v.queue), held_, -v.gpus);
    AddAlong(tree_.path(v.queue), running_held_, -v.gpus);
    MarkEvicted(v.running);
    if (Budgeted(kind)) --budget_;
  }
  AddAlong(tree_.path(gangs_[w].queue), held_, gangs_[w].gpus);
  std::vector<NodeId> nodes;
  for (const MemberAllocation& m : choice.plan.allocations) nodes.push_back(m.allocation.node);
  auto held = reserved_.find(w);
  if (held != reserved_.end()) model_.Uncordon(held->second.nodes);
  model_.Cordon(nodes);
  const std::string& name = Request(w).name;
  const char* freed_by = kind == EvictionKind::kPriority        ? "reserved the nodes freed by preemption for "
                         : kind == EvictionKind::kConsolidation ? "reserved the nodes freed by moving gangs for "
                                                                : "reserved the nodes freed by reclaim for ";
  reserved_[w] = Reserved{w, std::move(nodes), true, freed_by + name + " until its victims are gone", {},
                          std::numeric_limits<double>::infinity()};
}

std::string Round::EvictionReason(const VictimCandidate& v, int w, EvictionKind kind) const {
  const RunningGang& victim = in_.running[v.running];
  const GangRequest& g = Request(w);
  const std::string ran = Fixed((in_.now - victim.start) / 3600) + " h running, losing " +
                          Fixed(v.lost_gpu_seconds / 3600) + " GPU-hours since its " +
                          (victim.last_checkpoint ? "last checkpoint" : "start") + ", so that ";
  if (kind == EvictionKind::kPriority) {
    return "preempting gang " + victim.name + " (priority " + std::to_string(victim.priority) + ") of queue " +
           victim.queue + " after " + ran + g.name + " (priority " + std::to_string(g.priority) + ", " +
           Amount(gangs_[w].gpus) + " GPUs) can start";
  }
  const int q = gangs_[w].queue;
  if (kind == EvictionKind::kConsolidation) {
    return "moving gang " + victim.name + " (" + Fixed(v.gpus) + " GPUs) of queue " + victim.queue + " after " + ran +
           g.name + " (" + Fixed(gangs_[w].gpus) + " GPUs; " + QueueState(q) +
           ") can start on whole nodes; it fits on free GPUs elsewhere";
  }
  return "reclaiming " + Fixed(v.gpus) + " GPUs: evicting gang " + victim.name + " of " + QueueState(v.queue) +
         " (guarantee " + Fixed(in_.queues[v.queue].guaranteed) + "), after " + ran + g.name + " (" +
         Fixed(gangs_[w].gpus) + " GPUs; " + QueueState(q) + ") can start";
}

}  // namespace gangplank::engine
