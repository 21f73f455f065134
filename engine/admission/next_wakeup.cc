#include "engine/admission/next_wakeup.h"

#include <algorithm>
#include <unordered_map>

namespace gangplank::engine {

void WakeupClock::Waiting(const WaitingGang& gang) {
  someone_waits_ = true;
  if (config_.reclaim.enabled || config_.consolidation.enabled) {
    Consider(gang.arrival + config_.reclaim.min_wait_seconds, while_waiting_);
  }
  Consider(gang.arrival + config_.reservation.reserve_after_seconds, while_waiting_);
  Consider(gang.arrival + config_.no_backfill_after_seconds, while_waiting_);
  Consider(gang.arrival + gang.timeout, while_waiting_);
}

void WakeupClock::Victim(double start, const AdmissionQueue* queue) {
  const bool evicts = config_.reclaim.enabled || config_.consolidation.enabled;
  if (!evicts && !(queue != nullptr && queue->preempt_lower_priority)) return;
  const double runtime = queue != nullptr ? queue->min_runtime_seconds.value_or(config_.reclaim.min_runtime_seconds)
                                          : config_.reclaim.min_runtime_seconds;
  Consider(start + runtime, while_waiting_);
}

void WakeupClock::Running(const RunningGang& gang, const AdmissionQueue* queue) {
  Victim(gang.start, queue);
  if (gang.leave_by && !gang.terminating) LeaveBy(*gang.leave_by);
  if (!gang.started && !gang.terminating) Consider(gang.admitted_at + config_.start_timeout_seconds, always_);
}

void WakeupClock::Admitted(const AdmissionQueue& queue) {
  Victim(now_, &queue);
  Consider(now_ + config_.start_timeout_seconds, always_);
}

void WakeupClock::Eviction(double at) {
  if (evictions_count_) Consider(at + config_.reclaim.window_seconds, while_waiting_);
}

double WakeupClock::next() const { return someone_waits_ ? std::min(while_waiting_, always_) : always_; }

double NextWakeup(const AdmissionInput& input, const AdmissionConfig& config) {
  std::unordered_map<std::string, const AdmissionQueue*> queues;
  bool preempts = false;
  for (const AdmissionQueue& q : input.queues) {
    queues.emplace(q.name, &q);
    preempts = preempts || q.preempt_lower_priority;
  }
  WakeupClock clock(config, input.now, preempts);
  for (const WaitingGang& w : input.waiting) clock.Waiting(w);
  for (const RunningGang& r : input.running) {
    auto q = queues.find(r.queue);
    clock.Running(r, q == queues.end() ? nullptr : q->second);
  }
  for (double t : input.recent_evictions) clock.Eviction(t);
  return clock.next();
}

}  // namespace gangplank::engine
