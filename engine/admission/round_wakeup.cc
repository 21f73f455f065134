// The decision's next_wakeup (next_wakeup.h) for the state the decision leaves: gangs still waiting,
// running gangs not evicted, gangs admitted now, evictions of the window and of this round.
#include "engine/admission/next_wakeup.h"
#include "engine/admission/round.h"

namespace gangplank::engine {

double Round::NextWakeup() const {
  WakeupClock clock(config_, in_.now, AnyQueuePreempts());
  for (size_t w = 0; w < gangs_.size(); ++w) {
    if (gangs_[w].queue >= 0 && !gangs_[w].admitted) clock.Waiting(in_.waiting[w]);
  }
  for (size_t r = 0; r < in_.running.size(); ++r) {
    if (evicted_[r]) continue;
    const int q = tree_.Find(in_.running[r].queue);
    clock.Running(in_.running[r], q < 0 ? nullptr : &in_.queues[q]);
  }
  for (const Admitted& a : out_.admitted) clock.Admitted(in_.queues[gangs_[a.waiting].queue]);
  for (double t : in_.recent_evictions) clock.Eviction(t);
  for (const Reclaimed& r : out_.reclaims) {
    if (r.kind != EvictionKind::kStartTimeout) clock.Eviction(in_.now);
  }
  return clock.next();
}

}  // namespace gangplank::engine
