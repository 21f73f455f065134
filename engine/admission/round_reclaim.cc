// The reclaim step of a round: whole running gangs of queues above their fair share evicted for waiting
// gangs of queues below theirs.
#include <algorithm>
#include <limits>

#include "engine/admission/past_usage.h"
#include "engine/admission/round.h"
#include "engine/fairshare/admission_order.h"

namespace gangplank::engine {

// Per queue: whether its running gangs may be reclaimed for a gang of leaf `beneficiary`. Not the
// beneficiary's queue or a queue above it, and every queue from the victim's up to where its side meets
// the beneficiary's (below their lowest common ancestor) must hold more than its fair share in busy
// gangs (idle ones count apart and may go from any queue, round_idle_victims.cc).
std::vector<char> Round::VictimSources(int beneficiary) const {
  std::vector<char> source(held_.size(), 0);
  const std::vector<double> busy = BusyHeld();
  for (int q = 0; q < tree_.size(); ++q) {
    if (tree_.IsAncestorOrSelf(q, beneficiary)) continue;
    const int side = tree_.SideOf(q, beneficiary);
    source[q] = 1;
    for (int a : tree_.path(q)) {
      if (busy[a] <= fair_[a] + kAdmissionEpsilon) source[q] = 0;
      if (a == side) break;
    }
  }
  return source;
}

// The running gangs reclaim may take for a gang of leaf `beneficiary_queue`. For a queue below its
// guarantee the lost-work cap does not shield them: a guarantee is a promise to that queue, and a gang
// that never declares a checkpoint (its lost work then grows with its whole runtime) must not make
// itself unreclaimable by it.
std::vector<VictimCandidate> Round::Candidates(int beneficiary_queue) const {
  const std::vector<char> source = VictimSources(beneficiary_queue);
  const bool owed = held_[beneficiary_queue] + kAdmissionEpsilon < in_.queues[beneficiary_queue].guaranteed;
  std::vector<VictimCandidate> out;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const int q = tree_.Find(in_.running[r].queue);
    if (q < 0 || tree_.IsAncestorOrSelf(q, beneficiary_queue)) continue;
    if (std::optional<VictimCandidate> v = AsVictimOf(static_cast<int>(r), q, source[q] != 0, !owed)) out.push_back(*v);
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
  const std::vector<double> busy = BusyHeld();  // Idle victims spend none of this budget.
  // Both sides' past usage counts, so a queue that used more lately is taken further down.
  const std::vector<double> past = SubtreePastUsage(tree_, in_.queues);
  for (int q = 0; q < tree_.size(); ++q) {
    if (tree_.IsAncestorOrSelf(q, beneficiary)) {
      r[q] = q == beneficiary ? 0 : std::numeric_limits<double>::infinity();
      continue;
    }
    if (busy[q] <= fair_[q] + kAdmissionEpsilon) continue;
    const int other = tree_.SideOf(beneficiary, q);
    const double ratio = ShareRatio(held_[other], fair_[other], past[other]);
    r[q] = std::max(0.0, busy[q] - std::max(HeldAtRatio(ratio, fair_[q], past[q]), in_.queues[q].guaranteed));
  }
  return r;
}

std::vector<int> Round::Parents() const {
  std::vector<int> parents(held_.size());
  for (int q = 0; q < tree_.size(); ++q) parents[q] = tree_.parent(q);
  return parents;
}

void Round::Reclaim() {
  const ReclaimConfig& rc = config_.reclaim;
  int attempts = 0;
  for (int w : Beneficiaries(false)) {
    const int q = gangs_[w].queue;
    if (!BelowShare(q) || !WithinLimit(w)) continue;  // Earlier evictions this round may have changed it.
    if (attempts++ >= rc.max_beneficiaries_per_round) break;
    if (budget_ <= 0) {
      out_.refused.push_back({w, BudgetSpent("reclaiming", w)});
      continue;
    }
    const std::vector<VictimCandidate> candidates = Candidates(q);
    const VictimChoice choice = SearchVictims(w, candidates, VictimSearch{0, 0, Reclaimable(q), Parents()}, budget_);
    if (!choice.found) {
      out_.refused.push_back(
          {w, "not reclaiming for " + in_.waiting[w].request.name + " (" + QueueState(q) + "): " + choice.reason});
      continue;
    }
    EvictFor(w, choice, candidates, EvictionKind::kReclaim);
  }
}

}  // namespace gangplank::engine
