// Consolidation (ConsolidationConfig): the pool's free GPUs would hold a waiting gang, but they lie in
// holes too small for it, on nodes that long-running small gangs keep partly busy. For a gang that has
// waited as long as reclaim asks, and whose queue's fair share has room for it, movable one-pod gangs
// (RunningGang::move_as) of any queue are moved out of its way: evicted, losing their work since their
// last checkpoint, and requeued in their place, to start again at once in the holes elsewhere. A move is
// made only when every moved gang fits again, as its own request asks, with the waiting gang placed, so no
// one is moved into a wait (the hole is not held for it: a gang ahead of it in admission order may take it
// first, as after any requeue). Moves have a budget of their own per round. The step runs after reclaim,
// which takes from queues above their share first; a move changes no queue's share, so any queue's small
// gangs may move.
#include <limits>

#include "engine/admission/round.h"
#include "engine/gang/gang_planner.h"

namespace gangplank::engine {

// Running one-pod gangs that may move (RunningGang::move_as), small enough and cheap enough to restart.
std::vector<VictimCandidate> Round::Movable() const {
  const ConsolidationConfig& cc = config_.consolidation;
  std::vector<VictimCandidate> out;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const RunningGang& gang = in_.running[r];
    if (!gang.move_as || gang.allocations.size() != 1 || !gang.exclusive_class.empty()) continue;
    const int q = tree_.Find(gang.queue);
    if (q < 0) continue;
    std::optional<VictimCandidate> v = AsVictim(static_cast<int>(r), q, false);
    if (!v || v->gpus > cc.max_gpus + kAdmissionEpsilon || v->lost_gpu_seconds > cc.max_lost_gpu_seconds) continue;
    out.push_back(*v);
  }
  return out;
}

// The victim search adds the cheapest gangs of a domain until the gang fits, which may move more than
// needed (a small gang first, then the large one beside it that alone would do): each move costs its
// gang a restart, so a victim whose staying still leaves room is kept.
void Round::KeepUnneeded(int w, VictimChoice& choice, const std::vector<VictimCandidate>& candidates) {
  for (size_t i = 0; i < choice.victims.size();) {
    const std::size_t mark = model_.Mark();
    auto held = reserved_.find(w);
    if (held != reserved_.end()) model_.Uncordon(held->second.nodes);
    for (size_t j = 0; j < choice.victims.size(); ++j) {
      if (j != i) model_.Release(*candidates[choice.victims[j]].allocations);
    }
    GangPlan plan = PlanGang(model_.cluster(), Request(w), model_.policy(), rng_);
    model_.UndoTo(mark);
    if (!plan.placed) {
      ++i;
      continue;
    }
    choice.victims.erase(choice.victims.begin() + static_cast<std::ptrdiff_t>(i));
    choice.plan = std::move(plan);
  }
}

// Whether, with `w` placed as chosen, every moved gang fits again on the nodes left.
bool Round::MovesFit(int w, const VictimChoice& choice, const std::vector<VictimCandidate>& candidates) {
  const std::size_t mark = model_.Mark();
  for (int c : choice.victims) model_.Release(*candidates[c].allocations);
  model_.Apply(choice.plan, Request(w));
  bool fit = true;
  for (int c : choice.victims) {
    const RunningGang& gang = in_.running[candidates[c].running];
    GangRequest moved;
    moved.name = gang.name;
    moved.members.push_back(*gang.move_as);
    GangPlan plan = PlanGang(model_.cluster(), moved, model_.policy(), rng_);
    if (!plan.placed) {
      fit = false;
      break;
    }
    model_.Apply(plan, moved);
  }
  model_.UndoTo(mark);
  return fit;
}

void Round::Consolidate() {
  std::vector<VictimCandidate> candidates;
  bool listed = false;
  int attempts = 0;
  int moves = config_.consolidation.max_moves_per_round;
  for (int w : Beneficiaries(false)) {
    if (moves <= 0 || attempts >= config_.reclaim.max_beneficiaries_per_round) break;
    const int q = gangs_[w].queue;
    // Moves serve fair share: never to take a queue above it (reclaim may also have changed it).
    if (held_[q] + gangs_[w].gpus > fair_[q] + kAdmissionEpsilon || !WithinLimit(w)) continue;
    if (gangs_[w].gpus > FreeGpus() + kAdmissionEpsilon) continue;  // Moving cannot make room that is not there.
    ++attempts;
    if (!listed) {
      candidates = Movable();
      listed = true;
    }
    if (candidates.empty()) return;
    const std::vector<double> unlimited(held_.size(), std::numeric_limits<double>::infinity());
    VictimChoice choice = SearchVictims(w, candidates, VictimSearch{0, 0, unlimited, Parents()}, moves);
    if (!choice.found) continue;
    KeepUnneeded(w, choice, candidates);
    if (!MovesFit(w, choice, candidates)) continue;
    EvictFor(w, choice, candidates, EvictionKind::kConsolidation);
    moves -= static_cast<int>(choice.victims.size());
    std::erase_if(candidates, [&](const VictimCandidate& v) { return Evicted(v.running); });  // Moved already.
  }
}

}  // namespace gangplank::engine
