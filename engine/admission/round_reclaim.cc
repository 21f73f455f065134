// The reclaim step of a round: whole running gangs of queues above their fair share evicted for waiting
// gangs of queues below theirs.
#include <algorithm>
#include <limits>
#include <set>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"
#include "engine/fairshare/admission_order.h"

namespace gangplank::engine {

int Round::RecentEvictions() const {
  const double since = in_.now - config_.reclaim.window_seconds;
  return static_cast<int>(std::count_if(in_.recent_evictions.begin(), in_.recent_evictions.end(),
                                         [&](double t) { return t > since && t <= in_.now; }));
}

// Per queue: whether its running gangs may be reclaimed for a gang of leaf `beneficiary`. Not the
// beneficiary's queue or a queue above it, and every queue from the victim's up to where its side meets
// the beneficiary's (below their lowest common ancestor) must hold more than its fair share.
std::vector<char> Round::VictimSources(int beneficiary) const {
  std::vector<char> source(held_.size(), 0);
  for (int q = 0; q < tree_.size(); ++q) {
    if (tree_.IsAncestorOrSelf(q, beneficiary)) continue;
    const int side = tree_.SideOf(q, beneficiary);
    source[q] = 1;
    for (int a : tree_.path(q)) {
      if (running_held_[a] <= fair_[a] + kAdmissionEpsilon) source[q] = 0;
      if (a == side) break;
    }
  }
  return source;
}

std::vector<VictimCandidate> Round::Candidates(int beneficiary_queue, const std::vector<char>& evicted) const {
  const std::vector<char> source = VictimSources(beneficiary_queue);
  std::vector<VictimCandidate> out;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const RunningGang& gang = in_.running[r];
    const int q = tree_.Find(gang.queue);
    if (evicted[r] || gang.terminating || q < 0 || !source[q]) continue;
    // A gang that has not run at all (e.g. admitted this instant) is never a victim, whatever the minimum.
    if (in_.now - gang.start < config_.reclaim.min_runtime_seconds || !(in_.now > gang.start)) continue;
    const double gpus = gang.Gpus();
    const double lost = LostGpuSeconds(gang, in_.now);
    if (gpus <= 0 || lost > config_.reclaim.max_lost_gpu_seconds) continue;
    out.push_back(VictimCandidate{static_cast<int>(r), q, gpus, lost, &gang.allocations});
  }
  return out;
}

// GPUs that may be taken from each queue for a gang of leaf `beneficiary`. Flat: down to the queue's
// guarantee, and not below the beneficiary queue's current fraction of its fair share, so a victim
// queue never ends worse off (relative to its share) than the beneficiary's queue was. That also rules
// out ping-pong: the victim's queue cannot in turn reclaim from the beneficiary's. In a tree the same
// holds for every queue on the victim's side below the lowest common ancestor, against the
// beneficiary's side at that level (siblings compete for their parent's share; nothing above the
// common ancestor changes). Queues on the beneficiary's path are not limited here (no victims come
// from them). Only what queues held before the round counts, so gangs admitted this round never turn
// their queue into a victim source.
std::vector<double> Round::Reclaimable(int beneficiary) const {
  std::vector<double> r(held_.size(), 0);
  for (int q = 0; q < tree_.size(); ++q) {
    if (tree_.IsAncestorOrSelf(q, beneficiary)) {
      r[q] = q == beneficiary ? 0 : std::numeric_limits<double>::infinity();
      continue;
    }
    if (running_held_[q] <= fair_[q] + kAdmissionEpsilon) continue;
    const int other = tree_.SideOf(beneficiary, q);
    const double ratio = ShareRatio(held_[other], fair_[other]);
    r[q] = std::max(0.0, running_held_[q] - std::max(ratio * fair_[q], in_.queues[q].guaranteed));
  }
  return r;
}

std::vector<int> Round::Parents() const {
  std::vector<int> parents(held_.size());
  for (int q = 0; q < tree_.size(); ++q) parents[q] = tree_.parent(q);
  return parents;
}

// Gangs reclaim may be attempted for, in admission order: unplaced gangs of queues below their fair
// share that waited long enough and have no victims on their way out, the first of each pod shape per
// queue, at most max_beneficiaries_per_round per queue (the loop stops there anyway).
std::vector<int> Round::Beneficiaries() const {
  const ReclaimConfig& rc = config_.reclaim;
  std::vector<int> picks;
  for (size_t q = 0; q < by_queue_.size(); ++q) {
    if (!BelowShare(static_cast<int>(q))) continue;
    std::set<std::vector<int>> shapes;
    int found = 0;
    for (int w : by_queue_[q]) {
      if (found >= rc.max_beneficiaries_per_round) break;
      if (gangs_[w].admitted || gangs_[w].gpus <= 0 || !WithinLimit(w)) continue;
      if (in_.now - in_.waiting[w].arrival < rc.min_wait_seconds) continue;
      auto held = reserved_.find(w);
      if (held != reserved_.end() && held->second.for_reclaim) continue;  // Its victims are on their way out.
      if (!shapes.insert(GpuSizes(in_.waiting[w].request)).second) continue;
      picks.push_back(w);
      ++found;
    }
  }
  std::sort(picks.begin(), picks.end(), [&](int a, int b) { return Before(a, b); });
  return picks;
}

void Round::Reclaim() {
  const ReclaimConfig& rc = config_.reclaim;
  int budget = std::min(rc.max_victims_per_round, rc.max_victims_per_window - RecentEvictions());
  std::vector<char> evicted(in_.running.size(), 0);
  int attempts = 0;
  for (int w : Beneficiaries()) {
    const GangRequest& g = in_.waiting[w].request;
    const int q = gangs_[w].queue;
    if (!BelowShare(q) || !WithinLimit(w)) continue;  // Earlier evictions this round may have changed it.
    auto held = reserved_.find(w);
    if (attempts++ >= rc.max_beneficiaries_per_round) break;
    if (budget <= 0) {
      out_.refused.push_back({w, "not reclaiming for " + g.name + ": the preemption budget (" +
                                     std::to_string(rc.max_victims_per_round) + " gangs per round, " +
                                     std::to_string(rc.max_victims_per_window) + " per " +
                                     Fixed(rc.window_seconds / 3600) + " h) is spent"});
      continue;
    }
    const std::vector<VictimCandidate> candidates = Candidates(q, evicted);
    VictimSearch search{budget, rc.max_verifications, Reclaimable(q), Parents()};
    const std::size_t mark = model_.Mark();
    if (held != reserved_.end()) model_.Uncordon(held->second.nodes);  // Its own drain reservation is usable.
    VictimChoice choice = ChooseVictims(model_, g, candidates, search, rng_);
    model_.UndoTo(mark);
    if (!choice.found) {
      out_.refused.push_back({w, "not reclaiming for " + g.name + " (" + QueueState(q) + "): " + choice.reason});
      continue;
    }
    std::vector<NodeId> nodes;
    for (const MemberAllocation& m : choice.plan.allocations) nodes.push_back(m.allocation.node);
    const std::string beneficiary = g.name + " (" + Fixed(gangs_[w].gpus) + " GPUs; " + QueueState(q) + ")";
    for (int c : choice.victims) {
      const VictimCandidate& v = candidates[c];
      const RunningGang& victim = in_.running[v.running];
      std::string reason = "reclaiming " + Fixed(v.gpus) + " GPUs: evicting gang " + victim.name + " of " +
                           QueueState(v.queue) + " (guarantee " + Fixed(in_.queues[v.queue].guaranteed) +
                           "), after " + Fixed((in_.now - victim.start) / 3600) + " h running, losing " +
                           Fixed(v.lost_gpu_seconds / 3600) + " GPU-hours since its " +
                           (victim.last_checkpoint ? "last checkpoint" : "start") + ", so that " + beneficiary +
                           " can start";
      model_.Release(victim.allocations);
      AddAlong(tree_.path(v.queue), held_, -v.gpus);
      AddAlong(tree_.path(v.queue), running_held_, -v.gpus);
      evicted[v.running] = 1;
      --budget;
      out_.reclaims.push_back(Reclaimed{v.running, w, v.lost_gpu_seconds, std::move(reason)});
    }
    AddAlong(tree_.path(q), held_, gangs_[w].gpus);  // Earmarked: it starts here once the victims are gone.
    if (held != reserved_.end()) model_.Uncordon(held->second.nodes);
    model_.Cordon(nodes);
    reserved_[w] = Reserved{w, std::move(nodes), true,
                            "reserved the nodes freed by reclaim for " + g.name + " until its victims are gone"};
  }
}

}  // namespace gangplank::engine
