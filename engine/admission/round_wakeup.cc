// The decision's next_wakeup (next_wakeup.h) for the state the decision leaves: gangs still waiting,
// running gangs not evicted, gangs admitted now, evictions of the window and of this round. An
// incremental round counts only the gangs it planned and skips the running ones: the last full round's
// wakeup covers the rest, and the caller keeps the earlier of the two.
#include "engine/admission/next_wakeup.h"
#include "engine/admission/round.h"

namespace gangplank::engine {

double Round::NextWakeup() const {
  WakeupClock clock(config_, in_.now, AnyQueuePreempts());
  for (const std::vector<int>& list : by_queue_) {
    for (int w : list) {
      if (!gangs_[w].admitted) clock.Waiting(in_.waiting[w]);
    }
  }
  if (incremental()) {
    // Not every waiting gang was looked at: one that waits and was not still makes time count.
    clock.SomeoneWaits(out_.admitted.size() < in_.waiting.size());
  } else {
    for (size_t r = 0; r < in_.running.size(); ++r) {
      if (Evicted(static_cast<int>(r))) continue;
      const int q = tree_.Find(in_.running[r].queue);
      clock.Running(in_.running[r], q < 0 ? nullptr : &in_.queues[q]);
    }
  }
  for (const Admitted& a : out_.admitted) {
    clock.Admitted(in_.queues[gangs_[a.waiting].queue]);
    if (a.by_prediction) clock.LeaveBy(in_.now + *BackfillRuntime(a.waiting));
  }
  for (double t : in_.recent_evictions) clock.Eviction(t);
  for (const Reclaimed& r : out_.reclaims) {
    if (Budgeted(r.kind)) clock.Eviction(in_.now);
  }
  return clock.next();
}

}  // namespace gangplank::engine
