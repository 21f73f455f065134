#include "simulator/time_replay/idle_burst.h"

#include <algorithm>

namespace gangplank::simulator {
namespace {

IdleBurst BurstFrom(const Workload& workload, const std::vector<int>& jobs, size_t first, double burst_seconds) {
  IdleBurst burst;
  burst.queue = workload.jobs[jobs[first]].queue;
  burst.start = workload.jobs[jobs[first]].arrival;
  for (size_t i = first; i < jobs.size() && workload.jobs[jobs[i]].arrival < burst.start + burst_seconds; ++i) {
    burst.jobs.push_back(jobs[i]);
    burst.gpus += workload.jobs[jobs[i]].gpus;
  }
  return burst;
}

// The largest burst of one queue's jobs (in arrival order).
IdleBurst LargestOfQueue(const Workload& workload, const std::vector<int>& jobs, double idle_seconds,
                         double burst_seconds) {
  IdleBurst best;
  double busy_until = -idle_seconds;  // Last arrival or trace end of an earlier job, whichever is later.
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& job = workload.jobs[jobs[i]];
    if (job.arrival >= idle_seconds && job.arrival - busy_until >= idle_seconds) {
      IdleBurst burst = BurstFrom(workload, jobs, i, burst_seconds);
      if (burst.gpus > best.gpus) best = std::move(burst);
    }
    busy_until = std::max(busy_until, job.arrival + job.duration);
  }
  return best;
}

}  // namespace

IdleBurst FindIdleBurst(const Workload& workload, double idle_seconds, double burst_seconds) {
  std::vector<std::vector<int>> by_queue(workload.queues.size());
  for (const ReplayJob& job : workload.jobs) by_queue[job.queue].push_back(job.id);
  IdleBurst best;
  for (const std::vector<int>& jobs : by_queue) {
    IdleBurst burst = LargestOfQueue(workload, jobs, idle_seconds, burst_seconds);
    if (burst.gpus > best.gpus || (burst.gpus == best.gpus && burst.queue >= 0 && burst.start < best.start)) {
      best = std::move(burst);
    }
  }
  return best;
}

double MeanBurstWait(const Workload& workload, const ReplayResult& result, const IdleBurst& burst) {
  double sum = 0;
  int started = 0;
  for (int id : burst.jobs) {
    if (result.jobs[id].start < 0) continue;
    sum += result.jobs[id].start - workload.jobs[id].arrival;
    ++started;
  }
  return started > 0 ? sum / started : 0;
}

}  // namespace gangplank::simulator
