// Priority preemption inside a queue (AdmissionQueue::preempt_lower_priority): after reclaim, for
// unplaced gangs of such queues in admission order, whole running gangs of the same leaf queue with a
// strictly lower priority are evicted when that verifiably lets the gang start. The queue's total does
// not change (one of its gangs replaces others), so fair shares and guarantees are not in play; the
// victim rules (minimum runtime, lost-work cap, not terminating) and the eviction budget are reclaim's;
// an idle gang (RunningGang::idle_preemptible) of lower priority goes first, whatever its runtime.
#include <algorithm>
#include <limits>

#include "engine/admission/round.h"

namespace gangplank::engine {

bool Round::AnyQueuePreempts() const {
  return std::any_of(in_.queues.begin(), in_.queues.end(),
                     [](const AdmissionQueue& q) { return q.preempt_lower_priority; });
}

// Running gangs of w's queue with a lower priority that may be victims, idle ones whatever their runtime.
std::vector<VictimCandidate> Round::LowerPriority(int w) {
  if (running_by_queue_.empty()) {
    running_by_queue_.resize(in_.queues.size());
    for (size_t r = 0; r < in_.running.size(); ++r) {
      const int q = tree_.Find(in_.running[r].queue);
      if (q >= 0 && in_.queues[q].preempt_lower_priority) running_by_queue_[q].push_back(static_cast<int>(r));
    }
  }
  const int q = gangs_[w].queue;
  std::vector<VictimCandidate> out;
  for (int r : running_by_queue_[q]) {
    if (in_.running[r].priority >= Request(w).priority) continue;
    if (std::optional<VictimCandidate> v = AsVictimOf(r, q, true)) out.push_back(*v);
  }
  return out;
}

void Round::Preempt() {
  const int tries = config_.reclaim.max_beneficiaries_per_round;
  int attempts = 0;
  for (int w : Beneficiaries(true)) {
    if (attempts >= tries) break;
    const std::vector<VictimCandidate> candidates = LowerPriority(w);
    if (candidates.empty()) continue;  // Nothing it outranks may go: not an attempt, nothing to report.
    ++attempts;
    if (budget_ <= 0) {
      out_.refused.push_back({w, BudgetSpent("preempting", w)});
      continue;
    }
    const std::vector<double> unlimited(in_.queues.size(), std::numeric_limits<double>::infinity());
    const VictimChoice choice = SearchVictims(w, candidates, VictimSearch{0, 0, unlimited, {}}, budget_);
    if (!choice.found) {
      const GangRequest& g = Request(w);
      out_.refused.push_back({w, "not preempting for " + g.name + " (priority " + std::to_string(g.priority) +
                                     "): " + choice.reason});
      continue;
    }
    EvictFor(w, choice, candidates, EvictionKind::kPriority);
  }
}

}  // namespace gangplank::engine
