// The case time-based fair share is for: a queue that was idle for a while and then submits a burst.
// Picked from the trace alone (the same for every scheduler) by a stated rule, so its wait can be compared
// with and without decay.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct IdleBurst {
  int queue = -1;          // -1: the trace has no such burst.
  double start = 0;        // Arrival of its first job.
  std::vector<int> jobs;   // Job ids of the burst, in arrival order.
  int gpus = 0;            // GPUs its jobs ask for, summed.
};

// Per queue, a burst starts at a job that arrives at least `idle_seconds` after the queue's previous
// arrival and after every earlier job of the queue would have ended by its trace duration (so the queue
// held nothing before it, whatever the scheduler), and no earlier than `idle_seconds` into the trace (so
// the idle time is seen); it holds the queue's jobs arriving within `burst_seconds` of that one. The
// burst asking for the most GPUs wins (ties: earlier).
IdleBurst FindIdleBurst(const Workload& workload, double idle_seconds, double burst_seconds);

// Mean wait (first start - arrival) of the burst's jobs that started, in seconds; 0 when none did.
double MeanBurstWait(const Workload& workload, const ReplayResult& result, const IdleBurst& burst);

}  // namespace gangplank::simulator
