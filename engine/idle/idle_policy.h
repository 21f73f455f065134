// A pool's idle-GPU policy (issue 20): when a gang holding GPUs without using them counts as idle, and
// what is done about it. Plain data: the operator fills it from the pool's (or queue's) spec.idlePolicy.
#pragma once

namespace gangplank::engine {

struct IdlePolicy {
  enum Action {
    kOff,          // Nothing is judged.
    kReport,       // Said (condition, Event, metric), nothing else.
    kPreemptible,  // Said, and the gang is the first victim of reclaim and preemption (RunningGang::idle_preemptible).
    kReclaim,      // Said, checkpointed, then evicted whole.
  };
  Action action = kOff;
  double threshold_percent = 5;   // Mean utilization of the gang's GPUs (0-100) below this is idle.
  double idle_seconds = 3600;     // Idle this long, with data all along, before the action.
  double min_age_seconds = 1800;  // A gang admitted less long ago is never idle (data loading, warm-up).
};

}  // namespace gangplank::engine
