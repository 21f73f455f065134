// Idle gangs as victims (RunningGang::idle_preemptible, engine/idle/): a gang whose GPUs sat idle past
// its policy's limit may be evicted by reclaim and priority preemption whatever its queue's share,
// guarantee or minimum runtime and whatever work it would lose, and goes before every busy victim
// (ChooseVictims). Its GPUs are counted apart, so taking them spends none of its queue's budget and
// leaving them does not make its queue look richer than its busy gangs make it.
#include "engine/admission/round.h"

namespace gangplank::engine {

// Only what no policy can waive: governed, not evicted or terminating already, holding GPUs, and
// started before now.
std::optional<VictimCandidate> Round::AsIdleVictim(int r, int queue) const {
  const RunningGang& gang = in_.running[r];
  if (Evicted(r) || gang.terminating || gang.ungoverned || !(in_.now > gang.start)) return std::nullopt;
  const double gpus = gang.Gpus();
  if (gpus <= 0) return std::nullopt;
  return VictimCandidate{r, queue, gpus, LostGpuSeconds(gang, in_.now), &gang.allocations, true};
}

// A running gang of `queue` as a victim: an idle one by AsIdleVictim, a busy one by AsVictim when its
// queue may lose busy gangs (`busy_may_go`).
std::optional<VictimCandidate> Round::AsVictimOf(int r, int queue, bool busy_may_go, bool lost_work_capped) const {
  if (in_.running[r].idle_preemptible) return AsIdleVictim(r, queue);
  return busy_may_go ? AsVictim(r, queue, lost_work_capped) : std::nullopt;
}

// Per queue, with everything below it: the GPUs its running gangs hold (running_held_) less those of
// idle gangs not evicted yet. Equal to running_held_ when no gang is idle.
std::vector<double> Round::BusyHeld() const {
  std::vector<double> idle(in_.queues.size(), 0);
  bool any = false;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const RunningGang& gang = in_.running[r];
    if (!gang.idle_preemptible || gang.ungoverned || Evicted(static_cast<int>(r))) continue;  // Ungoverned: never taken.
    const int q = tree_.Find(gang.queue);
    if (q < 0) continue;
    idle[q] += gang.Gpus();
    any = true;
  }
  if (!any) return running_held_;
  idle = tree_.SubtreeTotals(std::move(idle));
  std::vector<double> busy = running_held_;
  for (size_t q = 0; q < busy.size(); ++q) busy[q] -= idle[q];
  return busy;
}

}  // namespace gangplank::engine
