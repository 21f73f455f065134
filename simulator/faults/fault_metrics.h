// Figures of one fault-handling policy in one replay.
//
// Lost GPU-hours = work thrown away (GPUs x run time since the last checkpoint kept, when a job is stopped) + GPU time
// spent writing a checkpoint asked for by gangplank + GPU time the surviving pods of a stopped job held until it was
// restarted or resubmitted ("stranded", also shown alone). Per interruption, nearest-rank percentiles: time to requeue,
// from the fault to the job back in its queue (what the policy decides), and time to recover, from the fault to the job
// running again (queueing for free GPUs included). JCT = end - arrival over finished jobs, and over the
// finished jobs that a fault or its handling stopped at least once ("hit jobs": where the policies differ; which jobs
// a fault hits differs between policies once their schedules diverge).
#pragma once

#include <utility>
#include <string>
#include <vector>

#include "simulator/faults/faults_scheduler.h"
#include "simulator/faults/policy_summary.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_metrics.h"

namespace gangplank::simulator {

struct FaultFigures {
  std::string policy;
  SchedulerFigures replay;  // JCT, queueing delay, utilisation, evictions, as in `time`.
  FaultCounters faults;
  DurationStats requeue;             // Seconds from a fault to the job back in its queue.
  DurationStats recovery;            // Seconds from a fault to the job running again.
  DurationStats hit_jct;             // JCT of the finished jobs stopped at least once.
  double work_lost_gpu_seconds = 0;  // Thrown away and spent writing checkpoints (the replay's lost work).
  double stranded_gpu_seconds = 0;   // Held by the surviving pods of stopped jobs.
  double LostGpuSeconds() const { return work_lost_gpu_seconds + stranded_gpu_seconds; }
};

FaultFigures ComputeFaultFigures(const Workload& workload, const ReplayResult& result, const FaultCounters& counters);

// The figures by column name (lost_gpu_hours, recovery_p99_minutes, jobs_failed, ...), in file order.
PolicyRun FaultColumns(const FaultFigures& figures);

}  // namespace gangplank::simulator
