#include "simulator/faults/fault_metrics.h"

#include <algorithm>

namespace gangplank::simulator {
namespace {

double Hours(double seconds) { return seconds / 3600; }
double Minutes(double seconds) { return seconds / 60; }

DurationStats HitJct(const Workload& workload, const ReplayResult& result, std::vector<int> hit) {
  std::sort(hit.begin(), hit.end());
  hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
  std::vector<double> jct;
  for (int job : hit) {
    if (result.jobs[job].end >= 0) jct.push_back(result.jobs[job].end - workload.jobs[job].arrival);
  }
  return SummarizeDurations(std::move(jct));
}

}  // namespace

FaultFigures ComputeFaultFigures(const Workload& workload, const ReplayResult& result, const FaultCounters& counters) {
  FaultFigures f;
  f.policy = result.scheduler;
  f.replay = ComputeFigures(workload, result);
  f.faults = counters;
  f.requeue = SummarizeDurations(counters.requeue_seconds);
  f.recovery = SummarizeDurations(counters.recovery_seconds);
  f.hit_jct = HitJct(workload, result, counters.interrupted_jobs);
  f.work_lost_gpu_seconds = result.lost_gpu_seconds;
  f.stranded_gpu_seconds = result.held_incomplete_gpu_seconds;
  return f;
}

PolicyRun FaultColumns(const FaultFigures& f) {
  const FaultCounters& c = f.faults;
  return {f.policy,
          {{"lost_gpu_hours", Hours(f.LostGpuSeconds())},
           {"work_lost_gpu_hours", Hours(f.work_lost_gpu_seconds)},
           {"stranded_gpu_hours", Hours(f.stranded_gpu_seconds)},
           {"requeue_p50_minutes", Minutes(f.requeue.p50)},
           {"requeue_p99_minutes", Minutes(f.requeue.p99)},
           {"recovery_p50_minutes", Minutes(f.recovery.p50)},
           {"recovery_p99_minutes", Minutes(f.recovery.p99)},
           {"recovery_mean_minutes", Minutes(f.recovery.mean)},
           {"jct_mean_hours", Hours(f.replay.jct.mean)},
           {"jct_p50_hours", Hours(f.replay.jct.p50)},
           {"jct_p95_hours", Hours(f.replay.jct.p95)},
           {"hit_jct_mean_hours", Hours(f.hit_jct.mean)},
           {"hit_jobs", f.hit_jct.count},
           {"jobs_failed", c.jobs_failed},
           {"faults", c.faults},
           {"faults_on_jobs", c.faults_on_jobs},
           {"interruptions", c.interruptions},
           {"restarts", c.restarts},
           {"checkpointed_restarts", c.checkpointed_restarts},
           {"evictions", f.replay.preemptions},
           {"finished", f.replay.finished},
           {"jobs", f.replay.jobs},
           {"utilisation", f.replay.utilisation}}};
}

}  // namespace gangplank::simulator
