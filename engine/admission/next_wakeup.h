// When time alone could change what an admission round decides. A caller that runs rounds on events
// (pods, nodes, queues changing) must also run one at this time, even if nothing else happens: a gang
// may have waited long enough to reclaim or reserve, a victim may have passed its minimum runtime, an
// eviction may have left the budget's window, a gang may have timed out.
//
// The times, each only when it lies after `now`:
//  - per waiting gang: arrival + ReclaimConfig::min_wait_seconds (reclaim or consolidation on), arrival +
//    reserve_after_seconds, arrival + no_backfill_after_seconds, arrival + its timeout;
//  - per running gang: start + its queue's minimum runtime (reclaim or consolidation on, or its queue
//    preempts);
//  - per eviction counted by the budget: its time + window_seconds (reclaim on, or a queue preempts);
//  - per gang backfilled on its predicted runtime: when it must leave (RunningGang::leave_by);
//  - per running gang not started: admitted_at + start_timeout_seconds.
// All but the last matter only while some gang waits: with none, they are not counted.
#pragma once

#include <limits>

#include "engine/admission/admission_input.h"

namespace gangplank::engine {

class WakeupClock {
 public:
  WakeupClock(const AdmissionConfig& config, double now, bool any_queue_preempts)
      : config_(config), now_(now), evictions_count_(config.reclaim.enabled || any_queue_preempts) {}

  void Waiting(const WaitingGang& gang);
  // `queue` may be null (a queue the pool does not have).
  void Running(const RunningGang& gang, const AdmissionQueue* queue);
  // A gang admitted now: it runs from now on, and has not started yet.
  void Admitted(const AdmissionQueue& queue);
  // A gang backfilled on its predicted runtime must be gone by `at` (it may be ended then).
  void LeaveBy(double at) { Consider(at, while_waiting_); }
  // An eviction the budget counts, at `at`.
  void Eviction(double at);
  // Some gang waits although it was not passed to Waiting.
  void SomeoneWaits(bool waits) { someone_waits_ = someone_waits_ || waits; }

  double next() const;

 private:
  void Consider(double t, double& into) const {
    if (t > now_ && t < into) into = t;
  }
  void Victim(double start, const AdmissionQueue* queue);

  const AdmissionConfig& config_;
  double now_;
  bool evictions_count_;
  bool someone_waits_ = false;
  double while_waiting_ = std::numeric_limits<double>::infinity();  // Rules that matter only if a gang waits.
  double always_ = std::numeric_limits<double>::infinity();         // Start timeouts.
};

// The next wakeup for `input` as it stands, as a full round would report it with nothing admitted or
// evicted: for a caller that skips a round (e.g. nothing could start) but still needs its timer.
double NextWakeup(const AdmissionInput& input, const AdmissionConfig& config);

}  // namespace gangplank::engine
